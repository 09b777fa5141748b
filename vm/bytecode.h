/* bytecode.h — a compiled module, as the code generator hands it to the
 * loader: the module half of the contract between the compiler and the VM
 * (the instruction half is opcodes.h).
 *
 * The code is a flat array of words: an opcode number (opcodes.def) and its
 * operands, encoded as opcodes.h defines (labels as label numbers, imports,
 * lambdas and BIFs as indexes). Constants are already terms (literal.h).
 * The loader turns this into threaded code; `mini -S` prints it (disasm.c).
 * It lives in vm/ because the VM defines what it can load: the compiler is
 * one producer of it.
 */
#ifndef MINI_BYTECODE_H
#define MINI_BYTECODE_H

#include <stdio.h>
#include "term.h"
#include "opcodes.h"

typedef struct CodeImport {           /* a function called as Module:Name/Arity */
    Term module, name;                /* atoms */
    int arity;
} CodeImport;

typedef struct CodeFunction {         /* every function, including lambdas and
                                         list comprehension helpers */
    Term name;                        /* atom */
    int arity;
    int label;                        /* entry: the first instruction after func_info */
    int info_label;                   /* the label of its func_info instruction */
    int exported;
} CodeFunction;

typedef struct CodeLambda {           /* a `fun ... end` or `fun f/N` */
    int function;                     /* index into functions: the code takes
                                         the fun's arguments, then its free variables */
    int arity;                        /* the fun's own arity (without free vars) */
    int nfree;
    Term name;                        /* e.g. '-main/0-fun-0-' */
} CodeLambda;

typedef struct CodeModule {
    Term name;                        /* atom */
    const char *file;
    UWord *code; size_t ncode;
    int nlabels;                      /* labels are numbered 1..nlabels */
    CodeImport *imports; int nimports;
    CodeFunction *functions; int nfunctions;
    CodeLambda *lambdas; int nlambdas;
} CodeModule;

/* BIF operands ('b') index bifs.def, in its order. This table holds what
 * the compiler needs of each BIF (bytecode.c); the VM's bif_table (bif.h),
 * made from the same list, adds the C functions. */
typedef struct BifName {
    const char *module, *name;
    int arity;
    int guard;                        /* allowed in guards */
} BifName;
extern const BifName bif_names[];
extern const int bif_count;
/* Index of a BIF in bifs.def, or -1. */
int bif_lookup(const char *module, const char *name, int arity);

/* NULL if the module is safe to load (every opcode known, every operand
 * and count in range of the module's tables), else what is wrong
 * (bytecode_check.c). The loader refuses a module that fails it. */
const char *bytecode_check(const CodeModule *cm);

/* Prints the module's code readably, one instruction a line, labels on
 * their own lines (`mini -S`, tests/codegen; disasm.c). */
void disasm_module(FILE *out, const CodeModule *cm);

#endif
