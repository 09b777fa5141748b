/* types.c — the type pass: which expressions always yield a float (types.h).
 *
 * The code generator keeps float arithmetic in float registers only where it
 * knows an operation's result is a float, so this pass finds those places.
 * The lattice has three points, BOT < FLOAT < ANY; BOT means the expression
 * never yields a value (erlang:error/1, or a parameter of a function nothing
 * calls), so joining with it changes nothing.
 *
 * Rules, for an expression:
 *   - a float literal is FLOAT; `/` is always FLOAT; `+ - *` are FLOAT when
 *     either operand is (a mixed integer/float operation yields a float, and
 *     a non-number operand raises, yielding nothing); unary minus and plus of
 *     a FLOAT are FLOAT;
 *   - float/1 and every math BIF are FLOAT; erlang:error/exit/throw are BOT;
 *   - case, if, receive and try join their clauses' values;
 *   - a call to a function of this module yields that function's return
 *     type (the join of its clauses' last expressions);
 *   - everything else is ANY.
 * For a variable, the join of everything that binds it in its function
 * clause: `V = E` contributes E's type; a pattern contributes ANY, except a
 * function's parameter written as a plain variable (the parameter's type)
 * and a variable that the clause's guard tests with is_float/1 in every
 * alternative (FLOAT). Joining over the whole clause, without following the
 * control flow, is coarser than needed but never wrong: every binding that
 * can reach a use is among those joined. A fun's body is its own scope; the
 * variables it may see from outside count as ANY there.
 *
 * Parameters: an exported function's parameters are ANY (anyone may call it
 * with anything), and so are those of a function whose name is taken as a
 * value (`fun f/1`). Any other function can only be called from this module,
 * so its parameter i is the join of argument i at every call site (OTP's
 * beam_ssa_type does the same): the module is analysed until nothing
 * changes, re-analysing a function when its parameter types grow or when a
 * function it calls returns something new. Everything only grows and the
 * lattice is three points high, so this ends. Remote calls, even to this
 * module, are ANY: they may reach a newer version of the module.
 */
#include <gc.h>
#include <string.h>

#include "types.h"
#include "codegen.h"

/* ---- variables of one clause: name -> (type, bound by a pattern) -------- */

typedef struct VarTy { const char *name; unsigned char ty, pat; } VarTy;

typedef struct Env {
    VarTy *v; size_t cap, n;
    int changed;
} Env;

static size_t name_hash(const char *s, size_t cap) {
    return ((size_t)(uintptr_t)s >> 4) * 0x9E3779B97F4A7C15ULL & (cap - 1);
}

static VarTy *env_slot(Env *env, const char *name, int add) {
    if (add && (env->n + 1) * 2 > env->cap) {
        VarTy *old = env->v;
        size_t oc = env->cap;
        env->cap = oc ? oc * 2 : 32;
        env->v = GC_MALLOC(sizeof(VarTy) * env->cap);
        env->n = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i].name) {
                VarTy *s = env_slot(env, old[i].name, 1);
                *s = old[i];
            }
    }
    if (!env->cap) return NULL;
    for (size_t i = name_hash(name, env->cap);; i = (i + 1) & (env->cap - 1)) {
        if (env->v[i].name == name) return &env->v[i];
        if (!env->v[i].name) {
            if (!add) return NULL;
            env->v[i].name = name;
            env->v[i].ty = TY_BOT;
            env->v[i].pat = 0;
            env->n++;
            env->changed = 1;
            return &env->v[i];
        }
    }
}

static void env_bind(Env *env, const char *name, unsigned char ty, int pat) {
    VarTy *s = env_slot(env, name, 1);
    if (ty > s->ty) { s->ty = ty; env->changed = 1; }
    if (pat && !s->pat) { s->pat = 1; env->changed = 1; }
}

/* An unknown name (a variable from outside a fun) is ANY. */
static unsigned char env_type(Env *env, const char *name) {
    VarTy *s = env_slot(env, name, 0);
    return s ? s->ty : TY_ANY;
}

/* ---- functions of the module ------------------------------------------- */

typedef struct FnTy {
    Function *fn;
    int exported;
    unsigned char *param;
    unsigned char ret;
    int *callers; int ncallers, capcallers;
    int queued;
} FnTy;

typedef struct Ctx {
    Module *m;
    FnTy *fns; int nfns;
    int *fidx; size_t fcap;           /* (name, arity) -> index + 1, open addressing */
    int *queue; int qhead, qtail, qcap;
    int cur;                          /* the function being analysed */
    int annotate;
    int skip_funs;                    /* inside a fixed-point round: see fun_clauses */
} Ctx;

static size_t fn_hash(const char *name, int arity, size_t cap) {
    return (((size_t)(uintptr_t)name >> 4) * 31 + (size_t)arity) * 0x9E3779B97F4A7C15ULL & (cap - 1);
}

static FnTy *fn_find(Ctx *c, const char *name, int arity) {
    for (size_t i = fn_hash(name, arity, c->fcap);; i = (i + 1) & (c->fcap - 1)) {
        int k = c->fidx[i];
        if (!k) return NULL;
        Function *fn = c->fns[k - 1].fn;
        if (fn->name == name && fn->arity == arity) return &c->fns[k - 1];
    }
}

static void push(Ctx *c, FnTy *t) {
    if (t->queued) return;
    t->queued = 1;
    c->queue[c->qtail] = (int)(t - c->fns);
    c->qtail = (c->qtail + 1) % c->qcap;
}

static void add_caller(Ctx *c, FnTy *callee) {
    for (int i = 0; i < callee->ncallers; i++)
        if (callee->callers[i] == c->cur) return;
    if (callee->ncallers == callee->capcallers) {
        int nc = callee->capcallers ? callee->capcallers * 2 : 4;
        int *n = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)nc);
        if (callee->ncallers) memcpy(n, callee->callers, sizeof(int) * (size_t)callee->ncallers);
        callee->callers = n; callee->capcallers = nc;
    }
    callee->callers[callee->ncallers++] = c->cur;
}

static void param_join(Ctx *c, FnTy *t, int i, unsigned char ty) {
    if (ty > t->param[i]) { t->param[i] = ty; push(c, t); }
}

/* ---- expressions --------------------------------------------------------- */

static unsigned char expr(Ctx *c, Env *env, Expr *e);

static unsigned char join(unsigned char a, unsigned char b) { return a > b ? a : b; }

static unsigned char body(Ctx *c, Env *env, Expr **es, int n) {
    unsigned char t = TY_ANY;
    for (int i = 0; i < n; i++) t = expr(c, env, es[i]);
    return t;
}

/* Is `name` tested with is_float/1 in every alternative of g? */
static int guard_floats(Guard *g, const char *name) {
    if (!g || g->nalts == 0) return 0;
    for (int a = 0; a < g->nalts; a++) {
        int found = 0;
        for (int t = 0; t < g->alts[a].ntests && !found; t++) {
            Expr *e = g->alts[a].tests[t];
            if (e->kind != E_CALL || e->n != 1 || (e->fun && !e->mod)) continue;
            const char *fname;
            if (e->mod) {
                if (e->mod->kind != E_ATOM || strcmp(e->mod->name, "erlang") || !e->fun ||
                    e->fun->kind != E_ATOM) continue;
                fname = e->fun->name;
                if (strcmp(fname, "is_float")) continue;
            } else {
                fname = e->name;
                if (strcmp(fname, "is_float") && strcmp(fname, "float")) continue;  /* float/1: the old guard test */
            }
            found = e->elems[0]->kind == E_VAR && e->elems[0]->name == name;
        }
        if (!found) return 0;
    }
    return 1;
}

typedef struct PatCtx { Env *env; Guard *g; } PatCtx;

static void pat_var(void *ctx, const char *name, int weak) {
    (void)weak;
    PatCtx *pc = ctx;
    env_bind(pc->env, name, guard_floats(pc->g, name) ? TY_FLOAT : TY_ANY, 1);
}

/* The variables a pattern binds; a plain variable gets `ty`. */
static void pattern(Env *env, Expr *p, unsigned char ty, Guard *g) {
    if (!p) return;
    if (p->kind == E_VAR) {
        if (p->name[0] == '_' && p->name[1] == 0) return;
        env_bind(env, p->name, guard_floats(g, p->name) ? TY_FLOAT : ty, 1);
        return;
    }
    PatCtx pc = { env, g };
    cg_collect_vars(p, pat_var, &pc, 0);
}

static void guard(Ctx *c, Env *env, Guard *g) {
    if (!g) return;
    for (int a = 0; a < g->nalts; a++)
        for (int t = 0; t < g->alts[a].ntests; t++) expr(c, env, g->alts[a].tests[t]);
}

/* The join of clause values; each clause's patterns are matched against
 * something unknown. */
static unsigned char clauses(Ctx *c, Env *env, Clause **cs, int n) {
    unsigned char t = TY_BOT;
    for (int i = 0; i < n; i++) {
        Clause *cl = cs[i];
        for (int j = 0; j < cl->npat; j++) pattern(env, cl->patterns[j], TY_ANY, cl->guard);
        guard(c, env, cl->guard);
        t = join(t, body(c, env, cl->body, cl->nbody));
    }
    return t;
}

/* A fun: each clause in a scope of its own, to a fixed point. Funs inside
 * it are skipped until that point is reached, then walked once: what they
 * find never flows back into this scope, so walking them at every round
 * would only multiply the work by the depth of nesting. */
static void fun_clauses(Ctx *c, Env *outer, Expr *e) {
    int annotate = c->annotate;
    for (int i = 0; i < e->nclauses; i++) {
        Clause *cl = e->clauses[i];
        Env env = {0};
        /* the names the fun may see from outside are ANY inside it */
        for (size_t k = 0; k < outer->cap; k++)
            if (outer->v[k].name) env_bind(&env, outer->v[k].name, TY_ANY, 1);
        if (e->name) env_bind(&env, e->name, TY_ANY, 1);
        c->annotate = 0;
        c->skip_funs++;
        do {
            env.changed = 0;
            for (int j = 0; j < cl->npat; j++) pattern(&env, cl->patterns[j], TY_ANY, cl->guard);
            guard(c, &env, cl->guard);
            body(c, &env, cl->body, cl->nbody);
        } while (env.changed);
        c->skip_funs--;
        c->annotate = annotate;
        guard(c, &env, cl->guard);
        body(c, &env, cl->body, cl->nbody);
    }
}

static int is_erlang_bottom(const char *name, int n) {
    return (!strcmp(name, "error") && (n == 1 || n == 2)) ||
           (!strcmp(name, "exit") && n == 1) || (!strcmp(name, "throw") && n == 1);
}

/* The value of a call to mod:name/n (not of this module's functions). */
static unsigned char remote_type(const char *mod, const char *name, int n) {
    if (!strcmp(mod, "erlang")) {
        if (!strcmp(name, "float") && n == 1) return TY_FLOAT;
        if (is_erlang_bottom(name, n)) return TY_BOT;
        return TY_ANY;
    }
    if (!strcmp(mod, "math") && bif_lookup("math", name, n) >= 0) return TY_FLOAT;
    return TY_ANY;
}

static unsigned char call(Ctx *c, Env *env, Expr *e) {
    unsigned char targs[64];
    if (e->mod) expr(c, env, e->mod);
    if (e->fun) expr(c, env, e->fun);
    for (int i = 0; i < e->n; i++) {
        unsigned char t = expr(c, env, e->elems[i]);
        if (i < 64) targs[i] = t;
    }
    if (e->mod) {
        if (e->mod->kind == E_ATOM && e->fun && e->fun->kind == E_ATOM)
            return remote_type(e->mod->name, e->fun->name, e->n);
        return TY_ANY;
    }
    if (e->fun) return TY_ANY;                       /* F(Args) */
    FnTy *t = fn_find(c, e->name, e->n);
    if (t) {
        add_caller(c, t);
        if (!t->exported)
            for (int i = 0; i < e->n; i++) param_join(c, t, i, i < 64 ? targs[i] : TY_ANY);
        return t->ret;
    }
    for (int i = 0; i < c->m->nimports; i++)
        if (c->m->imports[i].fn.name == e->name && c->m->imports[i].fn.arity == e->n)
            return remote_type(c->m->imports[i].module, e->name, e->n);
    return remote_type("erlang", e->name, e->n);
}

static unsigned char expr_kind(Ctx *c, Env *env, Expr *e) {
    switch (e->kind) {
    case E_VAR:
        if (e->name[0] == '_' && e->name[1] == 0) return TY_ANY;
        return env_type(env, e->name);
    case E_FLOAT: return TY_FLOAT;
    case E_MATCH: {
        unsigned char t = expr(c, env, e->b);
        Expr *p = e->a;
        if (p->kind == E_VAR) {
            if (!(p->name[0] == '_' && p->name[1] == 0)) env_bind(env, p->name, t, 0);
            expr(c, env, p);                         /* annotates the variable */
        } else {
            pattern(env, p, TY_ANY, NULL);
        }
        return t;
    }
    case E_BINOP: {
        unsigned char a = expr(c, env, e->a), b = expr(c, env, e->b);
        switch (e->op) {
        case OP_ADD: case OP_SUB: case OP_MUL:
            if (a == TY_FLOAT || b == TY_FLOAT) return TY_FLOAT;
            return a == TY_BOT || b == TY_BOT ? TY_BOT : TY_ANY;
        case OP_FDIV: return TY_FLOAT;
        default: return TY_ANY;
        }
    }
    case E_UNOP: {
        unsigned char a = expr(c, env, e->a);
        if (e->op == OP_NEG || e->op == OP_PLUS) return a;
        return TY_ANY;
    }
    case E_ANDALSO: case E_ORELSE:
        expr(c, env, e->a);
        expr(c, env, e->b);
        return TY_ANY;
    case E_CALL: return call(c, env, e);
    case E_FUNREF:
        if (!e->mod) {
            FnTy *t = fn_find(c, e->name, e->arity);
            if (t) for (int i = 0; i < e->arity; i++) param_join(c, t, i, TY_ANY);
        }
        return TY_ANY;
    case E_FUN:
        if (!c->skip_funs) fun_clauses(c, env, e);
        return TY_ANY;
    case E_BLOCK: return body(c, env, e->body, e->nbody);
    case E_CASE:
        expr(c, env, e->a);
        return clauses(c, env, e->clauses, e->nclauses);
    case E_IF: return clauses(c, env, e->clauses, e->nclauses);
    case E_RECEIVE: {
        unsigned char t = clauses(c, env, e->clauses, e->nclauses);
        if (e->timeout) {
            expr(c, env, e->timeout);
            t = join(t, body(c, env, e->body, e->nbody));
        }
        return t;
    }
    case E_TRY: {
        unsigned char t = body(c, env, e->body, e->nbody);
        if (e->nclauses) t = clauses(c, env, e->clauses, e->nclauses);
        t = join(t, clauses(c, env, e->catches, e->ncatches));
        body(c, env, e->after, e->nafter);
        return t;
    }
    case E_CATCH: expr(c, env, e->a); return TY_ANY;
    case E_LC: case E_BIN_LC:
        for (int i = 0; i < e->n; i++) {
            Expr *q = e->elems[i];
            if (q->kind == E_GENERATOR) {
                expr(c, env, q->b);
                pattern(env, q->a, TY_ANY, NULL);
            } else {
                expr(c, env, q);
            }
        }
        expr(c, env, e->a);
        if (e->b) expr(c, env, e->b);
        return TY_ANY;
    case E_CONS:
        for (; e->kind == E_CONS; e = e->b) {
            expr(c, env, e->a);
            if (c->annotate) e->ty = TY_ANY;
        }
        expr(c, env, e);
        return TY_ANY;
    default:
        /* tuples, maps, binaries, records (lowered by now) and literals */
        if (e->a) expr(c, env, e->a);
        if (e->b) expr(c, env, e->b);
        for (int i = 0; i < e->n; i++) expr(c, env, e->elems[i]);
        for (int i = 0; i < e->nfields; i++) {
            if (e->fields[i].key) expr(c, env, e->fields[i].key);
            if (e->fields[i].value) expr(c, env, e->fields[i].value);
            if (e->fields[i].size) expr(c, env, e->fields[i].size);
        }
        return TY_ANY;
    }
}

static unsigned char expr(Ctx *c, Env *env, Expr *e) {
    unsigned char t = expr_kind(c, env, e);
    if (c->annotate) {
        e->ty = t;
        if (e->kind == E_VAR) {
            VarTy *s = env_slot(env, e->name, 0);
            e->fvar = s && s->ty == TY_FLOAT && !s->pat;
        }
    }
    return t;
}

/* One clause of a module function, to a fixed point of its variables
 * (funs skipped until then, as in fun_clauses); returns the clause's value. */
static unsigned char function_clause(Ctx *c, FnTy *t, Clause *cl, int annotate) {
    Env env = {0};
    c->annotate = 0;
    c->skip_funs = 1;
    do {
        env.changed = 0;
        for (int j = 0; j < cl->npat; j++) pattern(&env, cl->patterns[j], t->param[j], cl->guard);
        guard(c, &env, cl->guard);
        body(c, &env, cl->body, cl->nbody);
    } while (env.changed);
    c->skip_funs = 0;
    c->annotate = annotate;
    guard(c, &env, cl->guard);
    unsigned char r = body(c, &env, cl->body, cl->nbody);
    c->annotate = 0;
    return r;
}

static int is_exported(Module *m, const char *name, int arity) {
    if (m->export_all) return 1;
    for (int i = 0; i < m->nexports; i++)
        if (m->exports[i].name == name && m->exports[i].arity == arity) return 1;
    return 0;
}

void types_infer(Module *m) {
    Ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.nfns = m->nfunctions;
    c.fns = GC_MALLOC(sizeof(FnTy) * ((size_t)c.nfns + 1));
    c.fcap = 16;
    while (c.fcap < (size_t)c.nfns * 2 + 2) c.fcap *= 2;
    c.fidx = GC_MALLOC_ATOMIC(sizeof(int) * c.fcap);
    memset(c.fidx, 0, sizeof(int) * c.fcap);
    c.qcap = c.nfns + 1;
    c.queue = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)c.qcap);
    for (int i = 0; i < c.nfns; i++) {
        Function *fn = m->functions[i];
        FnTy *t = &c.fns[i];
        t->fn = fn;
        t->exported = is_exported(m, fn->name, fn->arity);
        t->param = GC_MALLOC_ATOMIC((size_t)fn->arity + 1);
        memset(t->param, t->exported ? TY_ANY : TY_BOT, (size_t)fn->arity + 1);
        t->ret = TY_BOT;
        size_t k = fn_hash(fn->name, fn->arity, c.fcap);
        while (c.fidx[k]) k = (k + 1) & (c.fcap - 1);
        c.fidx[k] = i + 1;
        push(&c, t);
    }
    while (c.qhead != c.qtail) {
        FnTy *t = &c.fns[c.queue[c.qhead]];
        c.qhead = (c.qhead + 1) % c.qcap;
        t->queued = 0;
        c.cur = (int)(t - c.fns);
        unsigned char r = TY_BOT;
        for (int i = 0; i < t->fn->nclauses; i++) r = join(r, function_clause(&c, t, t->fn->clauses[i], 0));
        if (r > t->ret) {
            t->ret = r;
            for (int i = 0; i < t->ncallers; i++) push(&c, &c.fns[t->callers[i]]);
        }
    }
    for (int i = 0; i < c.nfns; i++) {
        FnTy *t = &c.fns[i];
        c.cur = i;
        for (int j = 0; j < t->fn->nclauses; j++) function_clause(&c, t, t->fn->clauses[j], 1);
    }
}
