/* codegen_float.c — float arithmetic in float registers.
 *
 * An arithmetic expression the type pass (types.c) marks as always yielding
 * a float is computed in float registers, as BEAM's compiler does: operands
 * that are known floats are unboxed (`fmove`), others converted (`fconv`,
 * which raises badarith for a non-number), then `fadd`/`fsub`/`fmul`/`fdiv`/
 * `fnegate` work on raw doubles, and only a value that leaves the arithmetic
 * is boxed (`fbox`, two heap words). A comparison (< > =< >=) of two known
 * floats, or of a known float and an integer literal a double holds exactly,
 * is a float test on the registers (`is_flt`, `is_fge`) and boxes nothing.
 *
 * Float variables. A variable whose every binding is `V = Expr` with a float
 * Expr (Expr.fvar) gets a float register of its own (its *fr home*) and, at
 * first, no x or y register: `Zr2 = Zr * Zr` writes the product there and
 * its float uses read it. Any other use (as a term: an argument, an element,
 * a message, a return value, a term comparison) needs a term home, and so
 * does a float use after a point where float registers die: a call (the
 * callee uses them too) or a receive (the process may be suspended, and the
 * registers are the emulator's, not the process's). When the generator meets
 * such a use of a variable that has no term home it records the variable in
 * the clause's BoxSet and the clause is compiled again; then the variable is
 * boxed once where it is bound, into an ordinary x or y home, and the float
 * uses still read the register while it is valid. So a float loop allocates
 * only what escapes.
 *
 * Validity of a home across control flow: `frgen` counts the points where
 * float registers die (calls, receives), and a home written at generation g
 * is valid while frgen == g. A branching construct during which frgen moved
 * bumps it once more at its end, so that a value written in one branch and a
 * call made in another never pass for valid after the merge.
 *
 * Order of evaluation is the generic path's: both operands are evaluated
 * (an operand that is itself float arithmetic completely) before either is
 * converted, so a non-number raises only after the other operand's side
 * effects, as with erlang:'+'/2. When the right operand may kill the float
 * registers (it calls a function), the left one is kept as a term.
 */
#include <string.h>

#include "codegen.h"
#include "types.h"

enum { FR_FREE, FR_TEMP, FR_HOME };

static int fr_alloc(Fn *f, int state) {
    for (int r = 0; r < MAX_FREG; r++)
        if (f->frs[r] == FR_FREE) { f->frs[r] = (unsigned char)state; return r; }
    return -1;
}

static int fr_temp(Fn *f) {
    int r = fr_alloc(f, FR_TEMP);
    if (r >= 0) return r;
    if (!f->g->errors) cg_error(f, f->gf->line, 1, "function too complex (out of float registers)");
    return 0;
}

static void fr_free(Fn *f, int r) {
    if (r >= 0 && f->frs[r] == FR_TEMP) f->frs[r] = FR_FREE;
}

/* ---- float variables ----------------------------------------------------- */

int cg_fboxed(Fn *f, int v) {
    BoxSet *b = f->boxset;
    for (int i = 0; b && i < b->n; i++)
        if (b->names[i] == f->vn[v]) return 1;
    return 0;
}

/* v lives in a float register and some use needs it as a term: give it a
 * term home on the next attempt. Returns a placeholder operand. */
int cg_fneeds_box(Fn *f, int v) {
    BoxSet *b = f->boxset;
    if (!b || cg_fboxed(f, v)) return 0;
    GROW(b->names, b->n, b->cap);
    b->names[b->n++] = f->vn[v];
    f->fretry = 1;
    return 1;
}

static void fvars_walk(Fn *f, Expr *e);

static void fvars_body(Fn *f, Expr **es, int n) {
    for (int i = 0; i < n; i++) fvars_walk(f, es[i]);
}

static void fvars_clauses(Fn *f, Clause **cs, int n) {
    for (int i = 0; i < n; i++) fvars_body(f, cs[i]->body, cs[i]->nbody);
}

/* Marks the variables of a body that may live in a float register alone:
 * those bound by `V = Expr` that the type pass calls float variables. Fun
 * bodies are other functions; comprehension bodies are too, but marking a
 * variable that this clause never binds changes nothing. */
static void fvars_walk(Fn *f, Expr *e) {
    while (e) {
        switch (e->kind) {
        case E_FUN: case E_FUNREF: return;
        case E_MATCH:
            if (e->a->kind == E_VAR && e->a->fvar) f->fcap[cg_var(f, e->a->name)] = 1;
            else fvars_walk(f, e->a);
            e = e->b;
            continue;
        case E_CONS:
            fvars_walk(f, e->a);
            e = e->b;
            continue;
        default:
            break;
        }
        if (e->mod) fvars_walk(f, e->mod);
        if (e->fun) fvars_walk(f, e->fun);
        fvars_body(f, e->elems, e->n);
        if (e->body != e->elems) fvars_body(f, e->body, e->nbody);
        fvars_clauses(f, e->clauses, e->nclauses);
        fvars_clauses(f, e->catches, e->ncatches);
        fvars_body(f, e->after, e->nafter);
        if (e->timeout) fvars_walk(f, e->timeout);
        for (int i = 0; i < e->nfields; i++) {
            if (e->fields[i].key) fvars_walk(f, e->fields[i].key);
            if (e->fields[i].value) fvars_walk(f, e->fields[i].value);
        }
        if (e->a) fvars_walk(f, e->a);
        e = e->b;
    }
}

void cg_fvars(Fn *f, Clause *c) { fvars_body(f, c->body, c->nbody); }

/* ---- what is float arithmetic ------------------------------------------- */

static int nonnumber_const(Fn *f, Expr *e) {
    Term t;
    return cg_const(f, e, &t) && !is_number(t);
}

int cg_is_farith(Fn *f, Expr *e) {
    if (e->ty != TY_FLOAT || cg_ops_as_calls(f)) return 0;
    if (e->kind == E_BINOP)
        return (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL || e->op == OP_FDIV) &&
               !nonnumber_const(f, e->a) && !nonnumber_const(f, e->b);
    if (e->kind == E_UNOP) return e->op == OP_NEG && e->a->ty == TY_FLOAT;
    return 0;
}

/* May evaluating e end the life of float registers (a call, a receive)? */
static int fr_clobber(Fn *f, Expr *e) {
    Term t;
    for (;;) {
        if (cg_const(f, e, &t)) return 0;
        switch (e->kind) {
        case E_VAR: case E_FUN: case E_FUNREF: return 0;
        case E_BINOP: if (fr_clobber(f, e->a)) return 1; e = e->b; continue;
        case E_UNOP: e = e->a; continue;
        case E_MATCH: e = e->b; continue;
        case E_CONS: if (fr_clobber(f, e->a)) return 1; e = e->b; continue;
        case E_TUPLE:
            for (int i = 0; i < e->n; i++) if (fr_clobber(f, e->elems[i])) return 1;
            return 0;
        case E_CALL: {
            CallInfo ci;
            cg_classify(f, e, &ci, 1);
            if (ci.kind != CK_BIF) return 1;
            for (int i = 0; i < e->n; i++) if (fr_clobber(f, e->elems[i])) return 1;
            return 0;
        }
        default: return 1;
        }
    }
}

/* ---- operands ------------------------------------------------------------ */

/* An operand after its evaluation: in a float register already, or a term
 * still to unbox (known float) or convert. */
typedef struct FOp { int fr; UWord term; int isfloat; } FOp;

static FOp fop_term(UWord t, int isfloat) { FOp o = { -1, t, isfloat }; return o; }

static int cg_fexpr(Fn *f, Expr *e, int target);

/* Evaluates e for a float operation. keep: what follows may kill float
 * registers, so leave the value as a term that survives calls. */
static FOp feval(Fn *f, Expr *e, int keep) {
    Term t;
    if (cg_const(f, e, &t)) {
        if (is_small(t)) return fop_term(lit_float((double)small_val(t)), 1);
        return fop_term(t, is_float(t));
    }
    if (e->kind == E_VAR && !cg_is_self(f, e)) {
        int v = cg_var_find(f, e->name);
        if (v >= 0 && f->vfr[v] >= 0 && f->bound[v]) {
            if (!keep && f->vfgen[v] == f->frgen) { FOp o = { f->vfr[v], NOOP, 1 }; return o; }
            if (f->vloc[v] != NOOP) return fop_term(f->vloc[v], 1);
            cg_fneeds_box(f, v);
            return fop_term(NIL, 1);
        }
        return fop_term(cg_operand(f, e, keep), e->ty == TY_FLOAT);
    }
    if (!keep && cg_is_farith(f, e)) { FOp o = { cg_fexpr(f, e, -1), NOOP, 1 }; return o; }
    return fop_term(cg_operand(f, e, keep), e->ty == TY_FLOAT);
}

/* The operand in a float register (target if >= 0, else a new temporary
 * unless it is in one already). */
static int fconvert(Fn *f, FOp *o, int target) {
    if (o->fr >= 0) {
        if (target < 0 || target == o->fr) return o->fr;
        cg_op(f, OP_fcopy, 2, (UWord)o->fr, (UWord)target);
        return target;
    }
    int r = target >= 0 ? target : fr_temp(f);
    if (o->isfloat) cg_op(f, OP_fmove, 2, o->term, (UWord)r);
    else cg_op(f, OP_fconv, 3, (UWord)f->bif_fail, o->term, (UWord)r);
    cg_free(f, o->term);
    return r;
}

/* e (float arithmetic) into a float register: target if >= 0, else a
 * temporary the caller frees. */
static int cg_fexpr(Fn *f, Expr *e, int target) {
    if (!f->bif_fail) cg_line(f, e->line);      /* a conversion may raise */
    if (e->kind == E_UNOP) {
        FOp a = feval(f, e->a, 0);
        int ra = fconvert(f, &a, -1);
        int r = target >= 0 ? target : f->frs[ra] == FR_TEMP ? ra : fr_temp(f);
        cg_op(f, OP_fnegate, 2, (UWord)ra, (UWord)r);
        if (ra != r) fr_free(f, ra);
        return r;
    }
    FOp a = feval(f, e->a, fr_clobber(f, e->b));
    FOp b = feval(f, e->b, 0);
    int ra = fconvert(f, &a, -1);
    int rb = fconvert(f, &b, -1);
    if (!f->bif_fail) cg_line(f, e->line);
    int r = target >= 0 ? target : f->frs[ra] == FR_TEMP ? ra : f->frs[rb] == FR_TEMP ? rb : fr_temp(f);
    int op = e->op == OP_ADD ? OP_fadd : e->op == OP_SUB ? OP_fsub : e->op == OP_MUL ? OP_fmul : OP_fdiv;
    cg_op(f, op, 4, (UWord)f->bif_fail, (UWord)ra, (UWord)rb, (UWord)r);
    if (ra != r) fr_free(f, ra);
    if (rb != r) fr_free(f, rb);
    return r;
}

/* Float arithmetic whose value is wanted as a term in dest. */
void cg_farith(Fn *f, Expr *e, UWord dest) {
    int r = cg_fexpr(f, e, -1);
    int live = cg_xlive(f);
    cg_op(f, OP_fbox, 3, (UWord)r, (UWord)live, dest);
    fr_free(f, r);
}

/* `V = rhs` for an unbound variable v that may live in a float register.
 * Returns 0 when it may not after all (no register left): bind it as usual. */
int cg_fbind(Fn *f, int v, Expr *rhs, UWord dest) {
    if (f->vfr[v] < 0) {
        int r = fr_alloc(f, FR_HOME);
        if (r < 0) { f->fcap[v] = 0; return 0; }
        f->vfr[v] = (short)r;
    }
    int home = f->vfr[v];
    if (cg_fboxed(f, v)) {
        if (f->vloc[v] == NOOP) {
            if (f->frame) f->vloc[v] = REG_Y(cg_alloc_y(f, R_VAR));
            else { int r = cg_alloc_x(f, R_VAR); f->xvar[r] = (short)v; f->vloc[v] = REG_X(r); }
        }
        if (cg_is_farith(f, rhs)) {
            cg_fexpr(f, rhs, home);
            int live = cg_xlive(f);
            cg_op(f, OP_fbox, 3, (UWord)home, (UWord)live, f->vloc[v]);
        } else {
            cg_expr(f, rhs, 0, f->vloc[v]);
            cg_op(f, OP_fmove, 2, f->vloc[v], (UWord)home);
        }
    } else if (cg_is_farith(f, rhs)) {
        cg_fexpr(f, rhs, home);
    } else {
        FOp o = feval(f, rhs, 0);
        o.isfloat = 1;                      /* every binding of v is a float */
        fconvert(f, &o, home);
    }
    f->vfgen[v] = f->frgen;
    f->bound[v] = 1; f->def[v] = 1;
    if (dest != NOOP) {
        if (f->vloc[v] != NOOP) cg_move(f, f->vloc[v], dest);
        else cg_fneeds_box(f, v);
    }
    return 1;
}

/* ---- comparisons ---------------------------------------------------------- */

/* Can e be compared as a double without changing Erlang's answer? */
static int fcmp_operand(Fn *f, Expr *e) {
    Term t;
    if (cg_const(f, e, &t)) {
        if (is_float(t)) return 1;
        if (!is_small(t)) return 0;
        SWord v = small_val(t);
        return v >= -((SWord)1 << 53) && v <= ((SWord)1 << 53);   /* exact as a double */
    }
    return e->ty == TY_FLOAT;
}

/* A guard comparison of floats: jump to fail unless it holds. Returns 0
 * (and emits nothing) when e is not one. */
int cg_ftest(Fn *f, Expr *e, int fail) {
    if (e->kind != E_BINOP || !(e->op == OP_LT || e->op == OP_GT || e->op == OP_LE || e->op == OP_GE))
        return 0;
    if (!fcmp_operand(f, e->a) || !fcmp_operand(f, e->b) ||
        (e->a->ty != TY_FLOAT && e->b->ty != TY_FLOAT))
        return 0;
    FOp a = feval(f, e->a, fr_clobber(f, e->b));
    FOp b = feval(f, e->b, 0);
    int ra = fconvert(f, &a, -1), rb = fconvert(f, &b, -1);
    switch (e->op) {
    case OP_LT: cg_op(f, OP_is_flt, 3, (UWord)fail, (UWord)ra, (UWord)rb); break;
    case OP_GT: cg_op(f, OP_is_flt, 3, (UWord)fail, (UWord)rb, (UWord)ra); break;
    case OP_LE: cg_op(f, OP_is_fge, 3, (UWord)fail, (UWord)rb, (UWord)ra); break;
    default: cg_op(f, OP_is_fge, 3, (UWord)fail, (UWord)ra, (UWord)rb); break;
    }
    fr_free(f, ra);
    fr_free(f, rb);
    return 1;
}

/* ---- float parameters ----------------------------------------------------- */

typedef struct Uses { Fn *f; int *n; } Uses;

static void count_operand(Uses *u, Expr *e) {
    if (e->kind != E_VAR || e->ty != TY_FLOAT) return;
    int v = cg_var_find(u->f, e->name);
    if (v >= 0) u->n[v]++;
}

/* Counts, per variable, the float operations that take it as an operand. */
static void count_uses(Uses *u, Expr *e) {
    while (e) {
        switch (e->kind) {
        case E_FUN: case E_FUNREF: case E_LC: case E_BIN_LC: return;
        case E_BINOP:
            if (cg_is_farith(u->f, e) || ((e->op == OP_LT || e->op == OP_GT || e->op == OP_LE ||
                                          e->op == OP_GE) && (e->a->ty == TY_FLOAT || e->b->ty == TY_FLOAT))) {
                count_operand(u, e->a);
                count_operand(u, e->b);
            }
            break;
        case E_UNOP:
            if (cg_is_farith(u->f, e)) count_operand(u, e->a);
            break;
        case E_CONS:
            count_uses(u, e->a);
            e = e->b;
            continue;
        default:
            break;
        }
        if (e->mod) count_uses(u, e->mod);
        if (e->fun) count_uses(u, e->fun);
        for (int i = 0; i < e->n; i++) count_uses(u, e->elems[i]);
        if (e->body != e->elems)
            for (int i = 0; i < e->nbody; i++) count_uses(u, e->body[i]);
        for (int k = 0; k < e->nclauses; k++) {
            Clause *c = e->clauses[k];
            if (c->guard)
                for (int a = 0; a < c->guard->nalts; a++)
                    for (int t = 0; t < c->guard->alts[a].ntests; t++) count_uses(u, c->guard->alts[a].tests[t]);
            for (int i = 0; i < c->nbody; i++) count_uses(u, c->body[i]);
        }
        for (int k = 0; k < e->ncatches; k++)
            for (int i = 0; i < e->catches[k]->nbody; i++) count_uses(u, e->catches[k]->body[i]);
        for (int i = 0; i < e->nafter; i++) count_uses(u, e->after[i]);
        if (e->timeout) count_uses(u, e->timeout);
        if (e->a) count_uses(u, e->a);
        e = e->b;
    }
}

/* At the start of a clause body: a float variable bound by the head (a
 * parameter whose type the call sites give, or one the guard tests with
 * is_float) that at least two float operations use is unboxed once, into
 * a float register of its own, instead of at each use. Its term home stays
 * (a call or a use as a term needs it). */
void cg_fpreload(Fn *f, Clause *c) {
    if (!f->nv) return;
    Uses u = { f, GC_MALLOC_ATOMIC(sizeof(int) * (size_t)f->nv) };
    memset(u.n, 0, sizeof(int) * (size_t)f->nv);
    for (int i = 0; i < c->nbody; i++) count_uses(&u, c->body[i]);
    for (int v = 0; v < f->nv; v++) {
        if (u.n[v] < 2 || !f->bound[v] || f->vloc[v] == NOOP || f->vfr[v] >= 0) continue;
        int r = fr_alloc(f, FR_HOME);
        if (r < 0) return;
        cg_op(f, OP_fmove, 2, f->vloc[v], (UWord)r);
        f->vfr[v] = (short)r;
        f->vfgen[v] = f->frgen;
    }
}
