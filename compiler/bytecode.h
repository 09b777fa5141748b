/* bytecode.h — a compiled module, as the code generator hands it to the loader.
 *
 * The code is a flat array of words: an opcode number (vm/opcodes.def) and its
 * operands, encoded as opcodes.def says (labels as label numbers, imports,
 * lambdas and BIFs as indexes). Constants are already terms (vm/literal.h).
 * The loader turns this into threaded code; `mini -S` prints it (disasm.c).
 */
#ifndef MINI_BYTECODE_H
#define MINI_BYTECODE_H

#include <stdio.h>
#include "term.h"

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

struct Module;
/* Compiles a checked module. Returns NULL (after printing) on an internal limit. */
CodeModule *codegen_module(struct Module *m);
/* Prints the module's code readably, one instruction a line, labels on their own lines. */
void disasm_module(FILE *out, const CodeModule *cm);

#endif
