/* codegen.h — private to the code generator (codegen*.c).
 *
 * Register discipline (the contract with the emulator and its collector):
 *  - arguments arrive in x0..x(A-1); a lambda's free variables follow its
 *    arguments; the result leaves in x0.
 *  - Each function clause is compiled in one of two modes. A clause whose body
 *    makes no call except in tail position is a *leaf*: it has no frame and
 *    keeps every variable in an x register (head matches leave variables where
 *    they were extracted, body variables get fixed x registers above them).
 *    Any other clause allocates one frame right after its head and guard
 *    matched (`allocate N, live`), gives every variable of its body its own y
 *    slot, and uses x registers only for short-lived temporaries between calls.
 *  - Every allocating instruction (test_heap, bif, add/sub, allocate) carries
 *    live = 1 + the highest x register still needed; registers below it that
 *    hold nothing are first set to [] so the collector never sees stale words.
 *  - Instructions read all their sources before writing their destination.
 */
#ifndef MINI_CODEGEN_H
#define MINI_CODEGEN_H

#include <gc.h>
#include <stdarg.h>
#include "ast.h"
#include "frontend.h"
#include "bytecode.h"                 /* the contract with the VM, and opcodes.h */
#include "literal.h"
#include "atom.h"

/* Compiles a checked module (compile.c calls it). Returns NULL (after
 * printing) on an internal limit. */
CodeModule *codegen_module(Module *m);

#define NOOP (~(UWord)0)              /* "no operand" */
#define XMAX (MAX_REG - 8)            /* x registers the generator hands out */

#define GROW(arr, n, cap) do {                                              \
        if ((n) >= (cap)) {                                                 \
            size_t nc_ = (cap) ? (size_t)(cap) * 2 : 16;                    \
            void *np_ = GC_MALLOC(nc_ * sizeof *(arr));                      \
            if ((n)) memcpy(np_, (arr), (size_t)(n) * sizeof *(arr));        \
            (arr) = np_; (cap) = nc_;                                       \
        }                                                                   \
    } while (0)

enum { R_FREE, R_TEMP, R_ARG, R_VAR };
enum { GF_CLAUSES, GF_FUNREF_LOCAL, GF_FUNREF_EXT };
enum { ST_BADMATCH, ST_CASE_END, ST_IF_END, ST_TRY_CASE_END, ST_ERROR_TUPLE };
enum { CK_LOCAL, CK_EXT, CK_BIF, CK_FUN, CK_APPLY };

typedef struct GenFun {
    const char *name; int arity;      /* arity counts the free variables   */
    int nparams;                      /* patterns per clause               */
    Clause **clauses; int nclauses;
    const char **free; int nfree;     /* bound after the head, from x(nparams+i) */
    const char *self; int self_lambda;/* named fun: its name and lambda    */
    int kind, target_label, target_import;
    int info_label, entry_label, index;
    int line;
    const char *top; int top_arity;   /* enclosing module function, for names */
    int exported;
    /* a state argument (codegen_bsm.c): its index, the clauses (from the
     * first) that match it as a binary, the label past the start of its
     * state; state_known once computed */
    int state_known, state_arg, state_clauses, state_label;
} GenFun;

typedef struct FunRef { const char *mod, *name; int arity, lambda; } FunRef;

typedef struct Gen {
    Module *m; Term modname;
    UWord *code; size_t ncode, capcode;
    size_t last_move;                 /* where cg_move last emitted a move (a peephole) */
    int nlabels;
    CodeImport *imports; int nimports, capimports;
    CodeLambda *lambdas; int nlambdas, caplambdas;
    GenFun **gfs; int ngfs, capgfs;
    FunRef *frefs; int nfrefs, capfrefs;
    int fun_counter, lc_counter;
    int cur_line;
    int errors;
    /* constant memo: Expr* -> literal (or THE_NON_VALUE when not constant) */
    struct ConstMemo { Expr *e; Term t; } *memo; size_t nmemo, capmemo;
} Gen;

typedef struct Stub { int label, kind, line; UWord op; Term tag; } Stub;

typedef struct Fn {
    Gen *g; GenFun *gf;
    int nv, capv;
    const char **vn; UWord *vloc; char *bound, *def, *inbody;
    int *vhead, nvhead, *vnext;       /* hash index on vn (names are interned) */
    unsigned char xs[MAX_REG]; short xvar[MAX_REG]; int xhi;
    unsigned char *ys; int capys; int ymax;
    int yfree;                        /* no y slot below it is free */
    int frame, head, retry;
    int cmax, cdepth;                 /* catch markers: y(cmax-1-depth) */
    int bif_fail;                     /* fail label for BIFs: guard context */
    size_t *patch; int npatch, cappatch;
    Stub *stubs; int nstubs, capstubs;
    Expr *mark_receive; int mark_label;   /* a receive a new reference marked (cg_ref_mark) */
    /* float registers (codegen_float.c) */
    unsigned char frs[MAX_FREG];      /* FR_FREE, FR_TEMP, FR_HOME         */
    short *vfr;                       /* per variable: its fr home, or -1  */
    int *vfgen;                       /* frgen when the home was written   */
    char *fcap;                       /* may live in fr alone (cg_fvars)   */
    int frgen;                        /* bumped where fr values die        */
    struct BoxSet *boxset;            /* float variables that need a term home too */
    int fretry;                       /* one was added: compile the clause again */
    /* match states (codegen_bsm.c): the clause's pattern on the function's
     * state argument, whether to set its position back first; the tails
     * this clause hands on to a call */
    Expr *state_pat; int state_reset;
    Expr *state_key;                  /* the pattern of a first byte read already, in x(arity + 1) */
    const char **donate; int ndonate;
} Fn;

/* Float variables of a clause that some use needs as a term: they get a
 * term home too. Kept across the attempts at compiling one clause. */
typedef struct BoxSet { const char **names; int n, cap; } BoxSet;

typedef struct Snap {
    int nv; char *bound, *def;
    unsigned char xs[MAX_REG];
    int capys; unsigned char *ys;
} Snap;

typedef struct Merge { int n, nv; char *bound, *def; } Merge;

typedef struct CallInfo {
    int kind, label, bif; const char *mod, *name;
    int arity;                        /* of the call instruction */
    Expr **args; int nargs;           /* all values to put in x0..   */
} CallInfo;

/* codegen.c */
void cg_error(Fn *f, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void cg_op(Fn *f, int op, int n, ...);
void cg_emit(Fn *f, UWord w);
int cg_new_label(Fn *f);
void cg_label(Fn *f, int l);
void cg_line(Fn *f, int line);
void cg_fs(Fn *f);
int cg_stub(Fn *f, int kind, UWord op, Term tag, int line);
void cg_move(Fn *f, UWord src, UWord dst);
int cg_xlive(Fn *f);
int cg_alloc_x(Fn *f, int state);
int cg_pick_x(Fn *f);
int cg_alloc_y(Fn *f, int state);
int cg_pick_y(Fn *f);
void cg_free(Fn *f, UWord op);
void cg_mark(Fn *f, UWord op);
int cg_var(Fn *f, const char *name);
int cg_var_find(Fn *f, const char *name);
int cg_is_bound(Fn *f, const char *name);
int cg_is_self(Fn *f, Expr *e);
void cg_bind(Fn *f, int v, UWord src);
Snap *cg_snap(Fn *f);
void cg_restore(Fn *f, Snap *s);
void cg_merge_add(Fn *f, Merge *m);
void cg_merge_end(Fn *f, Merge *m, Snap *pre);
int cg_const(Fn *f, Expr *e, Term *out);
Term cg_atom(const char *name);
int cg_import(Gen *g, const char *mod, const char *name, int arity);
GenFun *cg_find_local(Gen *g, const char *name, int arity);
GenFun *cg_new_genfun(Gen *g);
void cg_classify(Fn *f, Expr *e, CallInfo *ci, int dry);
int cg_has_call(Fn *f, Expr *e);
int cg_pred(Fn *f, Expr *e, int tail);
UWord cg_operand(Fn *f, Expr *e, int safe);
void cg_oplist(Fn *f, Expr **es, int n, UWord *ops);
void cg_expr(Fn *f, Expr *e, int tail, UWord dest);
void cg_body(Fn *f, Expr **es, int n, int tail, UWord dest);
void cg_effect(Fn *f, Expr *e);
void cg_return(Fn *f);
int cg_marker(Fn *f);
void cg_marker_end(Fn *f);
void cg_call(Fn *f, Expr *e, int tail, UWord dest);
void cg_call_info(Fn *f, CallInfo *ci, int tail, UWord dest, int line);
void cg_make_self(Fn *f, UWord dest);
Expr *cg_mkvar(const char *name, int line);
void cg_collect_vars(Expr *e, void (*fn)(void *, const char *, int), void *ctx, int mode);
int cg_wild(Expr *p);

/* codegen_match.c */
void cg_match(Fn *f, Expr *p, UWord src, int fail);
void cg_guard(Fn *f, Guard *g, int fail);
void cg_test(Fn *f, Expr *e, int fail);
int cg_type_test(Fn *f, Expr *call);
int cg_irrefutable(Fn *f, Expr *p);
int cg_is_guard_expr(Fn *f, Expr *e);

/* codegen_bsm.c */
int cg_state_arg(Gen *g, GenFun *gf);
void cg_bsm_clause(Fn *f, Clause *c);
int cg_bsm_donated(Fn *f, const char *name);
int cg_bsm_call_label(Fn *f, Expr *call, GenFun *callee);
/* Clauses from `from` on that start with distinct plain bytes, how many;
 * the byte of clause i; clause i with that byte taken off its pattern. */
int cg_bsm_byte_run(GenFun *gf, int from);
int cg_bsm_run_byte(GenFun *gf, int i);
Clause *cg_bsm_after_byte(GenFun *gf, int i);
/* Clause i's pattern starts with a plain byte variable (<<C, ...>>): it. */
Expr *cg_bsm_var_byte(GenFun *gf, int i);

/* codegen_map.c */
void cg_map(Fn *f, Expr *e, UWord dest);
void cg_match_map(Fn *f, Expr *p, UWord src, int fail);
int cg_map_pred(Fn *f, Expr *e);

/* codegen_ctl.c */
void cg_case(Fn *f, Expr *e, int tail, UWord dest);
void cg_if(Fn *f, Expr *e, int tail, UWord dest);
void cg_receive(Fn *f, Expr *e, int tail, UWord dest);
/* Before es[i] of a body: if it makes a reference that a receive soon after
 * needs in every clause, mark the queue's end for that receive. */
void cg_ref_mark(Fn *f, Expr **es, int n, int i);
void cg_try(Fn *f, Expr *e, int tail, UWord dest);
void cg_catch(Fn *f, Expr *e, UWord dest);
void cg_lc(Fn *f, Expr *e, int tail, UWord dest);
void cg_fun(Fn *f, Expr *e, UWord dest);
void cg_funref(Fn *f, Expr *e, UWord dest);
void cg_shortcircuit(Fn *f, Expr *e, int tail, UWord dest);

/* codegen_float.c (float registers) */
/* Operators in code typed at the shell go through their BIFs (codegen.c). */
int cg_ops_as_calls(Fn *f);
int cg_is_farith(Fn *f, Expr *e);
void cg_farith(Fn *f, Expr *e, UWord dest);
int cg_fbind(Fn *f, int v, Expr *rhs, UWord dest);
int cg_ftest(Fn *f, Expr *e, int fail);
void cg_fvars(Fn *f, Clause *c);
void cg_fpreload(Fn *f, Clause *c);
int cg_fneeds_box(Fn *f, int v);
int cg_fboxed(Fn *f, int v);

/* codegen_bin.c (binaries) */
void cg_bin_construct(Fn *f, Expr *e, UWord dest);
void cg_bin_match(Fn *f, Expr *p, UWord src, int fail);
int cg_bin_pred(Fn *f, Expr *e);
int cg_bin_guard_expr(Fn *f, Expr *e);

#endif
