/* ms_transform.c — ets:fun2ms/1 at compile time, as OTP's ms_transform parse
 * transform does it: a call ets:fun2ms(fun (Pattern) when Guard -> Body end)
 * with a literal fun becomes the expression that builds its match
 * specification. The fun's head variables become '$1', '$2', ... in order of
 * first appearance ('_' stays '_', a variable matched against the whole
 * object, as in fun({A, B} = X), becomes '$_'); a variable bound outside the
 * fun becomes {const, Var}, evaluated where the call is; tuples become
 * {{...}}, operators and guard BIF calls {Op, Args...}; each alternative of
 * a guard sequence (;) is a clause of its own. records_lower calls it after
 * lowering the fun, so records in it are already tuples. A fun that cannot
 * be translated (more than one argument, a non-guard call) is left alone:
 * the call then reaches ets:fun2ms/1 at run time, which exits as OTP's does.
 */
#include <stdio.h>
#include <string.h>
#include "ms_transform.h"

typedef struct Ms {
    const char *vars[64]; int nvars;   /* head variables: '$1' is vars[0]   */
    const char *whole;                 /* the variable bound to '$_', or NULL */
    int failed;
} Ms;

static const char *intern(const char *s) { return ast_intern(s, strlen(s)); }
static Expr **exprs(int n) { return ast_alloc(sizeof(Expr *) * (size_t)(n > 0 ? n : 1)); }

static Expr *atom(const char *name, const Expr *at)
{
    Expr *e = ast_expr(E_ATOM, at->line, at->col);
    e->name = intern(name);
    return e;
}

static Expr *tuple(Expr **el, int n, const Expr *at)
{
    Expr *e = ast_expr(E_TUPLE, at->line, at->col);
    e->elems = el; e->n = n;
    return e;
}

static Expr *cons(Expr *h, Expr *t, const Expr *at)
{
    Expr *e = ast_expr(E_CONS, at->line, at->col);
    e->a = h; e->b = t;
    return e;
}

static Expr *nil(const Expr *at) { return ast_expr(E_NIL, at->line, at->col); }

static Expr *list(Expr **el, int n, const Expr *at)
{
    Expr *l = nil(at);
    for (int i = n - 1; i >= 0; i--) l = cons(el[i], l, at);
    return l;
}

static int head_var(Ms *ms, const char *name)
{
    for (int i = 0; i < ms->nvars; i++) if (ms->vars[i] == name) return i;
    return -1;
}

static Expr *var_atom(int i, const Expr *at)
{
    char buf[16];
    snprintf(buf, sizeof buf, "$%d", i + 1);
    return atom(buf, at);
}

/* The head pattern: variables numbered, the rest as it is. */
static Expr *pat(Ms *ms, Expr *e)
{
    if (ms->failed || !e) return e;
    switch (e->kind) {
    case E_VAR: {
        if (!strcmp(e->name, "_")) return atom("_", e);
        int i = head_var(ms, e->name);
        if (i < 0) {
            if (ms->nvars == 64) { ms->failed = 1; return e; }
            i = ms->nvars;
            ms->vars[ms->nvars++] = e->name;
        }
        return var_atom(i, e);
    }
    case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: return e;
    case E_TUPLE: {
        Expr **el = exprs(e->n);
        for (int i = 0; i < e->n; i++) el[i] = pat(ms, e->elems[i]);
        return tuple(el, e->n, e);
    }
    case E_CONS: {
        /* head first: variables are numbered in the order they appear */
        Expr *h = pat(ms, e->a);
        return cons(h, pat(ms, e->b), e);
    }
    default: ms->failed = 1; return e;
    }
}

/* A match specification calls operators as guard BIFs; ++, -- and ! are none. */
static const char *op_name(Op op)
{
    return op == OP_APPEND || op == OP_SUBTRACT || op == OP_SEND ? NULL : ast_op_name(op);
}

/* {Name, Args...} */
static Expr *call(const char *name, Expr **args, int n, const Expr *at)
{
    Expr **el = exprs(n + 1);
    el[0] = atom(name, at);
    for (int i = 0; i < n; i++) el[i + 1] = args[i];
    return tuple(el, n + 1, at);
}

static Expr *expr(Ms *ms, Expr *e)
{
    if (ms->failed || !e) return e;
    switch (e->kind) {
    case E_VAR: {
        int i = head_var(ms, e->name);
        if (i >= 0) return var_atom(i, e);
        if (ms->whole && e->name == ms->whole) return atom("$_", e);
        Expr *v[1] = { e };                     /* bound outside the fun */
        return call("const", v, 1, e);
    }
    case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: return e;
    case E_TUPLE: {
        Expr **el = exprs(e->n);
        for (int i = 0; i < e->n; i++) el[i] = expr(ms, e->elems[i]);
        Expr **one = exprs(1);
        one[0] = tuple(el, e->n, e);
        return tuple(one, 1, e);
    }
    case E_CONS: {
        Expr *h = expr(ms, e->a);
        return cons(h, expr(ms, e->b), e);
    }
    case E_BINOP: case E_UNOP: {
        const char *name = op_name(e->op);
        if (!name) { ms->failed = 1; return e; }
        Expr *a[2];
        a[0] = expr(ms, e->a);
        a[1] = e->kind == E_BINOP ? expr(ms, e->b) : NULL;
        return call(name, a, e->kind == E_BINOP ? 2 : 1, e);
    }
    case E_ANDALSO: case E_ORELSE: {
        Expr *a[2];
        a[0] = expr(ms, e->a);
        a[1] = expr(ms, e->b);
        return call(e->kind == E_ANDALSO ? "andalso" : "orelse", a, 2, e);
    }
    case E_CALL: {
        Expr *f = e->fun;
        const char *name = NULL;
        if (!e->mod && !f) name = e->name;
        else if (e->mod && e->mod->kind == E_ATOM && !strcmp(e->mod->name, "erlang") &&
                 f && f->kind == E_ATOM)
            name = f->name;
        if (!name) { ms->failed = 1; return e; }
        Expr **a = exprs(e->n);
        for (int i = 0; i < e->n; i++) a[i] = expr(ms, e->elems[i]);
        return call(name, a, e->n, e);
    }
    default: ms->failed = 1; return e;
    }
}

Expr *ms_transform_call(Expr *e)
{
    if (e->kind != E_CALL || !e->mod || e->mod->kind != E_ATOM || strcmp(e->mod->name, "ets") ||
        !e->fun || e->fun->kind != E_ATOM || strcmp(e->fun->name, "fun2ms") || e->n != 1)
        return e;
    Expr *f = e->elems[0];
    if (f->kind != E_FUN || f->name || f->nclauses == 0) return e;
    int cap = 0;
    for (int i = 0; i < f->nclauses; i++) {
        Clause *c = f->clauses[i];
        cap += c->guard && c->guard->nalts > 1 ? c->guard->nalts : 1;
    }
    Expr **out = exprs(cap);
    int n = 0;
    for (int i = 0; i < f->nclauses; i++) {
        Clause *c = f->clauses[i];
        if (c->npat != 1) return e;
        Ms ms;
        memset(&ms, 0, sizeof ms);
        Expr *head = c->patterns[0];
        if (head->kind == E_MATCH && head->b->kind == E_VAR) { ms.whole = head->b->name; head = head->a; }
        else if (head->kind == E_MATCH && head->a->kind == E_VAR) { ms.whole = head->a->name; head = head->b; }
        Expr *p = pat(&ms, head);
        Expr **body = exprs(c->nbody);
        for (int k = 0; k < c->nbody; k++) body[k] = expr(&ms, c->body[k]);
        Expr *bl = list(body, c->nbody, f);
        int nalts = c->guard ? c->guard->nalts : 1;
        for (int a = 0; a < nalts; a++) {
            Expr *gl = nil(f);
            if (c->guard) {
                struct GuardAlt *alt = &c->guard->alts[a];
                Expr **g = exprs(alt->ntests);
                for (int k = 0; k < alt->ntests; k++) g[k] = expr(&ms, alt->tests[k]);
                gl = list(g, alt->ntests, f);
            }
            Expr **cl = exprs(3);
            cl[0] = p; cl[1] = gl; cl[2] = bl;
            out[n++] = tuple(cl, 3, f);
        }
        if (ms.failed) return e;
    }
    return list(out, n, e);
}
