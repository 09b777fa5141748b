/* module.h — loaded modules, export entries and fun entries.
 *
 * The module table maps a module name to its current (and old) loaded
 * version. Every Module:Function/Arity that anybody has referred to has one
 * Export entry, made on first reference and never moved, so code can point
 * at it: calling it runs `code` if the module is loaded, the C function `bif`
 * if it is a BIF, or else asks the loader to find and load the module first.
 * All of this lives in Boehm memory.
 */
#ifndef MINI_MODULE_H
#define MINI_MODULE_H

#include "smp.h"
#include "term.h"

struct BifEntry;

typedef struct Export {
    Term module, name;             /* atoms */
    int arity;
    const Instr *code;             /* entry point, or NULL when not loaded   */
    const struct BifEntry *bif;    /* set for BIFs (code is then NULL)        */
    int special;                   /* EXPORT_APPLY2/3, _HIBERNATE: handled by the emulator */
    Instr start_code[3];           /* `call_ext_only arity, this`: where a new
                                      process starts when it runs this function */
} Export;

enum { EXPORT_PLAIN = 0, EXPORT_APPLY2 = 2, EXPORT_APPLY3 = 3, EXPORT_HIBERNATE = 4 };

/* An export's entry point, or NULL. The loader may publish it on another
 * scheduler at any time (a module loaded on first call): an acquire read,
 * which on x86 is a plain load. */
static inline const Instr *export_code(const Export *e) {
    return smp_load_acquire(&e->code);
}

/* A fun's code: one per `fun` expression of a loaded module. A closure on a
 * process heap is [header][FunEntry *][free variables...]. */
typedef struct FunEntry {
    Term module;                   /* atom */
    Term name;                     /* atom, e.g. '-main/0-fun-0-' */
    int index;                     /* its number in the module */
    int arity;                     /* arguments, without the free variables */
    int nfree;
    UWord uniq;                    /* a hash of the code, as Erlang prints it */
    const Instr *code;
} FunEntry;

typedef struct LineEntry {         /* code offset -> source line */
    UWord offset;
    int line;
    int function;                  /* index into functions */
} LineEntry;

typedef struct FunctionInfo {
    Term name; int arity;
    const Instr *info;             /* the func_info instruction */
    const Instr *entry;
} FunctionInfo;

typedef struct LoadedModule {
    Term name;
    const char *file;
    Instr *code; size_t ncode;
    FunctionInfo *functions; int nfunctions;
    FunEntry *lambdas; int nlambdas;
    LineEntry *lines; int nlines;
    Term file_term;                /* the file name as a literal string, for traces */
} LoadedModule;

/* The export entry for M:F/A, created if needed (thread-safe). */
Export *export_get(Term module, Term name, int arity);
/* The loaded module of that name, or NULL. */
LoadedModule *module_find(Term name);
/* Finds, compiles and loads a module from the code path; 0 if not found or
 * it did not compile (errors printed). Loading twice at once loads once. */
int module_ensure_loaded(Term name);
/* Where pc lies: function info and source line; 0 if not in any module. */
int module_locate(const Instr *pc, LoadedModule **mod, const FunctionInfo **fn, int *line);
/* Adds a directory to the code path (after the defaults). */
void module_add_path(const char *dir);

#endif
