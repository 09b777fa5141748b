/* check.c — the semantic checks erlc's linter makes, on a parsed module.
 *
 * check_module() reports, with Erlang's wording: unbound variables, unsafe
 * variables (bound in only some branches of a case/if/receive, or inside a
 * try or catch, and used afterwards), calls to undefined functions, exports
 * of undefined functions, duplicate functions and records, unknown records
 * and fields, patterns and guards that cannot be compiled, and a missing
 * -module. Code generation may then assume a tree in which every variable
 * use is bound and every local call has a target.
 *
 * Variable scoping follows erl_lint: an environment maps names to "bound"
 * or "unsafe (in what, where)". Sibling sub-expressions (call arguments,
 * tuple elements, operands) are checked against the same starting
 * environment and their new bindings merged afterwards, so `f(X = 1, X)`
 * is unbound as in Erlang. Errors are collected and printed sorted by
 * position, as erlc does.
 *
 * Recursion depth is bounded by the parser's nesting limit; long lists
 * (nested E_CONS) are walked with loops.
 */
#include <gc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "frontend.h"

typedef struct Var {
    const char *name;
    const char *what;          /* NULL when bound; else the construct that made it unsafe */
    int line, col;             /* ... and where that construct is */
    int next;                  /* the next var in its hash bucket, -1 at the end */
} Var;

/* A set of variables: an array with a hash index on the (interned) names,
 * and a journal of the changes made to existing entries while a group of
 * sibling expressions is being checked (see "Siblings" below). */
typedef struct EnvLog { int i; Var old; } EnvLog;
typedef struct Env {
    Var *v; int n, cap;
    int *bucket; int nbuckets;     /* a power of two, at least cap; -1: empty */
    EnvLog *log; int nlog, caplog;
    int logging;                   /* sibling groups open on this env */
} Env;

typedef struct Diag { int line, col, seq; const char *msg; } Diag;

typedef struct Checker {
    Module *m;
    int in_guard;              /* guard BIFs (also the old ones) are defined there */
    Diag *diags; int ndiags, capdiags;
} Checker;

static const struct { const char *name; int arity; } check_autoimports[] = {
#define AUTO(n, a) { #n, a },
#include "autoimport.def"
#undef AUTO
};

static void check_error(Checker *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void check_error(Checker *c, int line, int col, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c->ndiags == c->capdiags) {
        int ncap = c->capdiags ? c->capdiags * 2 : 16;
        Diag *nd = GC_MALLOC(sizeof *nd * (size_t)ncap);
        if (c->ndiags) memcpy(nd, c->diags, sizeof *nd * (size_t)c->ndiags);
        c->diags = nd;
        c->capdiags = ncap;
    }
    Diag *d = &c->diags[c->ndiags];
    d->line = line; d->col = col; d->seq = c->ndiags;
    d->msg = GC_STRDUP(buf);
    c->ndiags++;
}

static int check_diag_cmp(const void *a, const void *b)
{
    const Diag *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- environments ----
 *
 * Lookups are by hash (names are interned, so the pointer is the key), and
 * a group of siblings is checked in the environment itself, undoing each
 * one's changes from the journal afterwards, instead of copying the whole
 * environment per sibling: a function body with thousands of variables in
 * scope costs time in proportion to its size, not to its size times the
 * variables (a 50,000-line chain of `Xn = Xm + 1` took minutes). */

static unsigned env_hash(const char *name, int nbuckets)
{
    uintptr_t h = (uintptr_t)name;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 32) & (unsigned)(nbuckets - 1);
}

static void env_reindex(Env *e)
{
    for (int i = 0; i < e->nbuckets; i++) e->bucket[i] = -1;
    for (int i = 0; i < e->n; i++) {
        unsigned h = env_hash(e->v[i].name, e->nbuckets);
        e->v[i].next = e->bucket[h];
        e->bucket[h] = i;
    }
}

static int env_find(const Env *e, const char *name)
{
    if (!e->nbuckets) return -1;
    for (int i = e->bucket[env_hash(name, e->nbuckets)]; i >= 0; i = e->v[i].next)
        if (e->v[i].name == name) return i;
    return -1;
}

static void env_add(Env *e, Var v)
{
    if (e->n == e->cap) {
        int ncap = e->cap ? e->cap * 2 : 8;
        Var *nv = GC_MALLOC(sizeof *nv * (size_t)ncap);
        if (e->n) memcpy(nv, e->v, sizeof *nv * (size_t)e->n);
        e->v = nv;
        e->cap = ncap;
    }
    if (e->nbuckets < e->cap) {
        int nb = e->nbuckets ? e->nbuckets : 8;
        while (nb < e->cap) nb *= 2;
        e->bucket = GC_MALLOC_ATOMIC(sizeof *e->bucket * (size_t)nb);
        e->nbuckets = nb;
        env_reindex(e);
    }
    unsigned h = env_hash(v.name, e->nbuckets);
    v.next = e->bucket[h];
    e->bucket[h] = e->n;
    e->v[e->n++] = v;
}

/* Changes entry i's safety, journaled while siblings are being checked. */
static void env_set_what(Env *e, int i, const char *what, int line, int col)
{
    if (e->logging) {
        if (e->nlog == e->caplog) {
            int ncap = e->caplog ? e->caplog * 2 : 16;
            EnvLog *nl = GC_MALLOC(sizeof *nl * (size_t)ncap);
            if (e->nlog) memcpy(nl, e->log, sizeof *nl * (size_t)e->nlog);
            e->log = nl;
            e->caplog = ncap;
        }
        e->log[e->nlog++] = (EnvLog){ i, e->v[i] };
    }
    e->v[i].what = what;
    e->v[i].line = line;
    e->v[i].col = col;
}

static void env_bind(Env *e, const char *name)
{
    int i = env_find(e, name);
    if (i >= 0) { if (e->v[i].what) env_set_what(e, i, NULL, 0, 0); return; }
    Var v = { name, NULL, 0, 0, -1 };
    env_add(e, v);
}

static Env env_copy(const Env *e)
{
    Env r = { 0 };
    for (int i = 0; i < e->n; i++) env_add(&r, e->v[i]);
    return r;
}

/* Only on an environment of its own (a clause's, a comprehension's), never
 * while siblings are being checked in it. */
static void env_remove(Env *e, const char *name)
{
    if (e->logging) abort();
    int j = 0;
    for (int i = 0; i < e->n; i++)
        if (e->v[i].name != name) e->v[j++] = e->v[i];
    e->n = j;
    if (e->nbuckets) env_reindex(e);
}

/* Variables of `after` that are new or changed relative to `before` become
 * unsafe in `what` (try, catch, andalso...). */
static void env_mark_unsafe(Env *after, const Env *before, const char *what, int line, int col)
{
    for (int i = 0; i < after->n; i++) {
        Var *v = &after->v[i];
        if (v->what) continue;
        int j = env_find(before, v->name);
        if (j >= 0 && !before->v[j].what) continue;
        env_set_what(after, i, what, line, col);
    }
}

/* Adds to env what a sibling added to its copy of base. */
static void env_merge_new(Env *env, const Env *base, const Env *sib)
{
    for (int i = 0; i < sib->n; i++) {
        const Var *v = &sib->v[i];
        int b = env_find(base, v->name);
        if (b >= 0 && base->v[b].what == v->what) continue;
        int k = env_find(env, v->name);
        if (k < 0) env_add(env, *v);
        else if (!v->what && env->v[k].what) env_set_what(env, k, NULL, 0, 0);
    }
}

/* After branches (case clauses, ...): bound in every branch means bound;
 * bound in some means unsafe. */
static void env_merge_branches(Env *env, Env *br, int nbr, const char *what, int line, int col)
{
    if (nbr == 0) return;
    Env base = env_copy(env);
    for (int b = 0; b < nbr; b++) {
        for (int i = 0; i < br[b].n; i++) {
            const Var *v = &br[b].v[i];
            int bi = env_find(&base, v->name);
            if (bi >= 0 && base.v[bi].what == v->what) continue;   /* not new */
            if (env_find(env, v->name) >= 0 && bi < 0) continue;    /* done already */
            int everywhere = 1;
            const Var *unsafe = v->what ? v : NULL;
            for (int o = 0; o < nbr; o++) {
                int k = env_find(&br[o], v->name);
                if (k < 0) { everywhere = 0; break; }
                if (br[o].v[k].what && !unsafe) unsafe = &br[o].v[k];
            }
            Var nv = { v->name, NULL, 0, 0, -1 };
            if (!everywhere) { nv.what = what; nv.line = line; nv.col = col; }
            else if (unsafe) nv = *unsafe;
            int k = env_find(env, v->name);
            if (k >= 0) env_set_what(env, k, nv.what, nv.line, nv.col);
            else env_add(env, nv);
        }
    }
}

/* ---- functions and records ---- */

static int check_fun_defined(Checker *c, const char *name, int arity)
{
    Module *m = c->m;
    for (int i = 0; i < m->nfunctions; i++)
        if (m->functions[i]->name == name && m->functions[i]->arity == arity) return 1;
    for (int i = 0; i < m->nimports; i++)
        if (m->imports[i].fn.name == name && m->imports[i].fn.arity == arity) return 1;
    for (size_t i = 0; i < sizeof check_autoimports / sizeof check_autoimports[0]; i++)
        if (check_autoimports[i].arity == arity && strcmp(check_autoimports[i].name, name) == 0)
            return 1;
    return 0;
}

static const RecordDef *check_record(Checker *c, const char *name, int line, int col)
{
    for (int i = 0; i < c->m->nrecords; i++)
        if (c->m->records[i].name == name) return &c->m->records[i];
    check_error(c, line, col, "record %s undefined", name);
    return NULL;
}

static void check_field(Checker *c, const RecordDef *r, const char *field, int line, int col)
{
    if (!r || strcmp(field, "_") == 0) return;
    for (int i = 0; i < r->nfields; i++)
        if (r->fields[i].name == field) return;
    check_error(c, line, col, "field %s undefined in record %s", field, r->name);
}

/* ---- expressions ---- */

static void check_expr(Checker *c, Env *env, Expr *e);
static void check_pat(Checker *c, Env *env, Expr *p);
static void check_guard(Checker *c, Env *env, Guard *g);
static void check_body(Checker *c, Env *env, Expr **body, int n);

static void check_var_use(Checker *c, Env *env, Expr *e)
{
    if (strcmp(e->name, "_") == 0) {
        check_error(c, e->line, e->col, "variable '_' is unbound");
        return;
    }
    int i = env_find(env, e->name);
    if (i < 0) {
        check_error(c, e->line, e->col, "variable '%s' is unbound", e->name);
        env_bind(env, e->name);      /* report each variable once */
    } else if (env->v[i].what) {
        check_error(c, e->line, e->col, "variable '%s' unsafe in '%s' (line %d, column %d)",
                    e->name, env->v[i].what, env->v[i].line, env->v[i].col);
        env_set_what(env, i, NULL, 0, 0);
    }
}

/* Sibling expressions: each sees env as it was before any of them, and
 * what each binds is added once all have been checked (sib_end). Each is
 * checked in env itself; then what it added (entries past base_n) and
 * changed (the journal) is kept in `delta` and undone. */
typedef struct Siblings { int base_n; Var *delta; int ndelta, capdelta; } Siblings;

static void sib_begin(Siblings *s, Env *env)
{
    s->base_n = env->n;
    s->delta = NULL;
    s->ndelta = s->capdelta = 0;
    env->logging++;
}

static void sib_keep(Siblings *s, Var v)
{
    if (s->ndelta == s->capdelta) {
        int ncap = s->capdelta ? s->capdelta * 2 : 8;
        Var *nd = GC_MALLOC(sizeof *nd * (size_t)ncap);
        if (s->ndelta) memcpy(nd, s->delta, sizeof *nd * (size_t)s->ndelta);
        s->delta = nd;
        s->capdelta = ncap;
    }
    s->delta[s->ndelta++] = v;
}

static void sib_expr(Checker *c, Siblings *s, Env *env, Expr *e)
{
    if (!e) return;
    int mark = env->nlog;
    check_expr(c, env, e);
    for (int i = s->base_n; i < env->n; i++) sib_keep(s, env->v[i]);
    int first_changed = s->ndelta;
    for (int j = mark; j < env->nlog; j++)
        if (env->log[j].i < s->base_n) sib_keep(s, env->v[env->log[j].i]);
    /* undo: the journal backwards, then the new entries (each is the head
     * of its bucket, newest first) */
    for (int j = env->nlog - 1; j >= mark; j--) {
        Var *v = &env->v[env->log[j].i];
        v->what = env->log[j].old.what;
        v->line = env->log[j].old.line;
        v->col = env->log[j].old.col;
    }
    env->nlog = mark;
    for (int i = env->n - 1; i >= s->base_n; i--)
        env->bucket[env_hash(env->v[i].name, env->nbuckets)] = env->v[i].next;
    env->n = s->base_n;
    /* a changed entry counts only if it differs from before the siblings */
    int k = first_changed;
    for (int i = first_changed; i < s->ndelta; i++) {
        int b = env_find(env, s->delta[i].name);
        if (b < 0 || env->v[b].what != s->delta[i].what) s->delta[k++] = s->delta[i];
    }
    s->ndelta = k;
}

static void sib_end(Siblings *s, Env *env)
{
    env->logging--;
    if (env->logging == 0) env->nlog = 0;
    for (int i = 0; i < s->ndelta; i++) {
        const Var *v = &s->delta[i];
        int k = env_find(env, v->name);
        if (k < 0) env_add(env, *v);
        else if (!v->what && env->v[k].what) env_set_what(env, k, NULL, 0, 0);
    }
}

static void check_fields(Checker *c, Siblings *s, Env *env, Expr *e, const RecordDef *r)
{
    for (int i = 0; i < e->nfields; i++) {
        Field *f = &e->fields[i];
        if (e->kind == E_RECORD || e->kind == E_RECORD_UPDATE) check_field(c, r, f->name, f->line, f->col);
        sib_expr(c, s, env, f->key);
        sib_expr(c, s, env, f->value);
        sib_expr(c, s, env, f->size);
    }
}

/* Clause heads of funs and generators: their variables are new, shadowing
 * any outer variable of the same name. */
static void check_shadow_vars(Env *env, Expr *p)
{
    while (p) {
        switch (p->kind) {
        case E_VAR: env_remove(env, p->name); return;
        case E_CONS: check_shadow_vars(env, p->a); p = p->b; continue;
        case E_TUPLE: for (int i = 0; i < p->n; i++) check_shadow_vars(env, p->elems[i]); return;
        case E_MATCH: case E_BINOP: check_shadow_vars(env, p->a); p = p->b; continue;
        case E_UNOP: p = p->a; continue;
        case E_RECORD: case E_MAP: case E_BIN:
            for (int i = 0; i < p->nfields; i++) check_shadow_vars(env, p->fields[i].value);
            return;
        default: return;
        }
    }
}

static Env check_clause(Checker *c, const Env *outer, Clause *cl, int shadow, const char *fun_name)
{
    Env env = env_copy(outer);
    if (shadow)
        for (int i = 0; i < cl->npat; i++) check_shadow_vars(&env, cl->patterns[i]);
    if (fun_name) { env_remove(&env, fun_name); env_bind(&env, fun_name); }
    for (int i = 0; i < cl->npat; i++)
        if (cl->patterns[i]) check_pat(c, &env, cl->patterns[i]);
    check_guard(c, &env, cl->guard);
    check_body(c, &env, cl->body, cl->nbody);
    return env;
}

static void check_clauses_merge(Checker *c, Env *env, Clause **cls, int n, Expr **extra_body,
                                int nextra, const char *what, int line, int col)
{
    Env *br = GC_MALLOC(sizeof *br * (size_t)(n + 1));
    int nbr = 0;
    for (int i = 0; i < n; i++) br[nbr++] = check_clause(c, env, cls[i], 0, NULL);
    if (extra_body) {
        br[nbr] = env_copy(env);
        check_body(c, &br[nbr], extra_body, nextra);
        nbr++;
    }
    env_merge_branches(env, br, nbr, what, line, col);
}

static void check_quals(Checker *c, Env *env, Expr **q, int n)
{
    for (int i = 0; i < n; i++) {
        if (q[i]->kind == E_GENERATOR) {
            check_expr(c, env, q[i]->b);
            check_shadow_vars(env, q[i]->a);
            check_pat(c, env, q[i]->a);
        } else
            check_expr(c, env, q[i]);
    }
}

static void check_expr(Checker *c, Env *env, Expr *e)
{
    if (!e) return;
    Siblings s;
    switch (e->kind) {
    case E_VAR: check_var_use(c, env, e); break;
    case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: break;
    case E_CONS:
        sib_begin(&s, env);
        for (; e->kind == E_CONS; e = e->b) sib_expr(c, &s, env, e->a);
        sib_expr(c, &s, env, e);     /* the tail, unless [] */
        sib_end(&s, env);
        break;
    case E_TUPLE:
        sib_begin(&s, env);
        for (int i = 0; i < e->n; i++) sib_expr(c, &s, env, e->elems[i]);
        sib_end(&s, env);
        break;
    case E_MATCH:
        check_expr(c, env, e->b);
        check_pat(c, env, e->a);
        break;
    case E_BINOP:
        sib_begin(&s, env);
        sib_expr(c, &s, env, e->a);
        sib_expr(c, &s, env, e->b);
        sib_end(&s, env);
        break;
    case E_UNOP: check_expr(c, env, e->a); break;
    case E_ANDALSO: case E_ORELSE: {
        check_expr(c, env, e->a);
        Env before = env_copy(env);
        check_expr(c, env, e->b);
        env_mark_unsafe(env, &before, e->kind == E_ANDALSO ? "andalso" : "orelse", e->line, e->col);
        break;
    }
    case E_CALL:
        if (e->arity < 0) {
            check_error(c, e->line, e->col, "illegal expression");
            break;
        }
        if (!e->mod && !e->fun && !c->in_guard && !check_fun_defined(c, e->name, e->n))
            check_error(c, e->line, e->col, "function %s/%d undefined", e->name, e->n);
        sib_begin(&s, env);
        sib_expr(c, &s, env, e->mod);
        sib_expr(c, &s, env, e->fun);
        for (int i = 0; i < e->n; i++) sib_expr(c, &s, env, e->elems[i]);
        sib_end(&s, env);
        break;
    case E_FUNREF:
        if (!e->mod && !check_fun_defined(c, e->name, e->arity))
            check_error(c, e->line, e->col, "function %s/%d undefined", e->name, e->arity);
        if (e->mod) check_expr(c, env, e->mod);
        break;
    case E_FUN:
        for (int i = 0; i < e->nclauses; i++)
            check_clause(c, env, e->clauses[i], 1, e->name);
        break;
    case E_BLOCK: check_body(c, env, e->body, e->nbody); break;
    case E_CASE:
        check_expr(c, env, e->a);
        check_clauses_merge(c, env, e->clauses, e->nclauses, NULL, 0, "case", e->line, e->col);
        break;
    case E_IF:
        check_clauses_merge(c, env, e->clauses, e->nclauses, NULL, 0, "if", e->line, e->col);
        break;
    case E_RECEIVE:
        if (e->timeout) check_expr(c, env, e->timeout);
        check_clauses_merge(c, env, e->clauses, e->nclauses, e->timeout ? e->body : NULL,
                            e->nbody, "receive", e->line, e->col);
        break;
    case E_TRY: {
        /* everything bound inside a try is unsafe after it; the of clauses
         * see the body's variables, the catch clauses and after do not */
        Env before = env_copy(env);
        Env body = env_copy(env);
        check_body(c, &body, e->body, e->nbody);
        Env *br = GC_MALLOC(sizeof *br * (size_t)(e->nclauses + e->ncatches + 1));
        int nbr = 0;
        for (int i = 0; i < e->nclauses; i++) br[nbr++] = check_clause(c, &body, e->clauses[i], 0, NULL);
        Env unsafe_body = env_copy(&body);
        env_mark_unsafe(&unsafe_body, &before, "try", e->line, e->col);
        for (int i = 0; i < e->ncatches; i++) br[nbr++] = check_clause(c, &unsafe_body, e->catches[i], 0, NULL);
        Env after = env_copy(&unsafe_body);
        for (int b = 0; b < nbr; b++) env_merge_new(&after, &unsafe_body, &br[b]);
        env_mark_unsafe(&after, &before, "try", e->line, e->col);
        check_body(c, &after, e->after, e->nafter);
        env_mark_unsafe(&after, &before, "try", e->line, e->col);
        *env = after;
        break;
    }
    case E_CATCH: {
        Env before = env_copy(env);
        check_expr(c, env, e->a);
        env_mark_unsafe(env, &before, "catch", e->line, e->col);
        break;
    }
    case E_LC: case E_BIN_LC: {
        Env lc = env_copy(env);
        check_quals(c, &lc, e->elems, e->n);
        check_expr(c, &lc, e->a);
        break;
    }
    case E_GENERATOR:
        check_error(c, e->line, e->col, "illegal expression");
        break;
    case E_RECORD: case E_RECORD_UPDATE: {
        const RecordDef *r = check_record(c, e->name, e->line, e->col);
        sib_begin(&s, env);
        sib_expr(c, &s, env, e->a);
        check_fields(c, &s, env, e, r);
        sib_end(&s, env);
        break;
    }
    case E_RECORD_FIELD: {
        const RecordDef *r = check_record(c, e->name, e->line, e->col);
        if (e->nfields) check_field(c, r, e->fields[0].name, e->fields[0].line, e->fields[0].col);
        check_expr(c, env, e->a);
        break;
    }
    case E_MAP: case E_MAP_UPDATE:
        sib_begin(&s, env);
        sib_expr(c, &s, env, e->a);
        check_fields(c, &s, env, e, NULL);
        sib_end(&s, env);
        if (e->kind == E_MAP)
            for (int i = 0; i < e->nfields; i++)
                if (e->fields[i].exact)
                    check_error(c, e->fields[i].line, e->fields[i].col, "only association operators '=>' are allowed in map construction");
        break;
    case E_BIN:
        sib_begin(&s, env);
        check_fields(c, &s, env, e, NULL);
        sib_end(&s, env);
        break;
    }
}

static void check_body(Checker *c, Env *env, Expr **body, int n)
{
    for (int i = 0; i < n; i++) check_expr(c, env, body[i]);
}

/* ---- patterns ---- */

static int check_is_const(Expr *e)
{
    switch (e->kind) {
    case E_INT: case E_FLOAT: return 1;
    case E_UNOP: return check_is_const(e->a);
    case E_BINOP: return e->op != OP_SEND && check_is_const(e->a) && check_is_const(e->b);
    default: return 0;
    }
}

static int check_is_string_prefix(Expr *e)
{
    if (e->kind == E_STRING || e->kind == E_NIL) return 1;
    for (; e->kind == E_CONS; e = e->b)
        if (e->a->kind != E_INT) return 0;
    return e->kind == E_NIL;
}

static void check_pat(Checker *c, Env *env, Expr *p)
{
    while (p) {
        switch (p->kind) {
        case E_VAR: {
            if (strcmp(p->name, "_") == 0) return;
            int i = env_find(env, p->name);
            if (i < 0) env_bind(env, p->name);
            else if (env->v[i].what) check_var_use(c, env, p);
            return;
        }
        case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: return;
        case E_CONS: check_pat(c, env, p->a); p = p->b; continue;
        case E_TUPLE:
            for (int i = 0; i < p->n; i++) check_pat(c, env, p->elems[i]);
            return;
        case E_MATCH: check_pat(c, env, p->a); p = p->b; continue;
        case E_BINOP:
            if (p->op == OP_APPEND && check_is_string_prefix(p->a)) { p = p->b; continue; }
            if (check_is_const(p)) return;
            check_error(c, p->line, p->col, "illegal pattern");
            return;
        case E_UNOP:
            if (!check_is_const(p)) check_error(c, p->line, p->col, "illegal pattern");
            return;
        case E_RECORD: {
            const RecordDef *r = check_record(c, p->name, p->line, p->col);
            for (int i = 0; i < p->nfields; i++) {
                check_field(c, r, p->fields[i].name, p->fields[i].line, p->fields[i].col);
                check_pat(c, env, p->fields[i].value);
            }
            return;
        }
        case E_RECORD_FIELD:
            if (p->a) break;
            check_field(c, check_record(c, p->name, p->line, p->col), p->fields[0].name,
                        p->fields[0].line, p->fields[0].col);
            return;
        case E_MAP:
            for (int i = 0; i < p->nfields; i++) {
                Env keys = env_copy(env);
                check_expr(c, &keys, p->fields[i].key);
                if (!p->fields[i].exact)
                    check_error(c, p->fields[i].line, p->fields[i].col, "illegal pattern");
                check_pat(c, env, p->fields[i].value);
            }
            return;
        case E_BIN:
            for (int i = 0; i < p->nfields; i++) {
                Field *f = &p->fields[i];
                if (f->size) {
                    Env sz = env_copy(env);
                    check_expr(c, &sz, f->size);
                }
                Expr *v = f->value;
                if (v->kind == E_VAR || v->kind == E_INT || v->kind == E_FLOAT ||
                    v->kind == E_STRING || check_is_const(v))
                    check_pat(c, env, v);
                else
                    check_error(c, v->line, v->col, "illegal pattern");
            }
            return;
        default:
            break;
        }
        check_error(c, p->line, p->col, "illegal pattern");
        return;
    }
}

/* ---- guards ---- */

static int check_guard_bif(const char *name, int arity)
{
    static const struct { const char *name; int arity; } bifs[] = {
        {"abs",1},{"bit_size",1},{"byte_size",1},{"ceil",1},{"element",2},{"float",1},
        {"floor",1},{"hd",1},{"length",1},{"map_size",1},{"map_get",2},{"is_map_key",2},
        {"node",0},{"node",1},{"round",1},{"self",0},{"size",1},{"tl",1},{"trunc",1},
        {"tuple_size",1},{"binary_part",2},{"binary_part",3},{"max",2},{"min",2},
        {"is_atom",1},{"is_binary",1},{"is_bitstring",1},{"is_boolean",1},{"is_float",1},
        {"is_function",1},{"is_function",2},{"is_integer",1},{"is_list",1},{"is_map",1},
        {"is_number",1},{"is_pid",1},{"is_port",1},{"is_record",2},{"is_record",3},
        {"is_reference",1},{"is_tuple",1},
        /* the old type tests, still accepted by Erlang in guards */
        {"atom",1},{"binary",1},{"float",1},{"function",1},{"integer",1},{"list",1},
        {"number",1},{"pid",1},{"port",1},{"reference",1},{"tuple",1},{"record",2},
    };
    for (size_t i = 0; i < sizeof bifs / sizeof bifs[0]; i++)
        if (bifs[i].arity == arity && strcmp(bifs[i].name, name) == 0) return 1;
    return 0;
}

/* Is e allowed in a guard? Reports the first offending node. */
static int check_guard_expr(Checker *c, Expr *e)
{
    while (e) {
        switch (e->kind) {
        case E_VAR: case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL:
            return 1;
        case E_CONS:
            if (!check_guard_expr(c, e->a)) return 0;
            e = e->b; continue;
        case E_TUPLE:
            for (int i = 0; i < e->n; i++) if (!check_guard_expr(c, e->elems[i])) return 0;
            return 1;
        case E_BINOP:
            if (e->op == OP_SEND) break;
            /* fallthrough */
        case E_ANDALSO: case E_ORELSE:
            if (!check_guard_expr(c, e->a)) return 0;
            e = e->b; continue;
        case E_UNOP: e = e->a; continue;
        case E_CALL: {
            int ok;
            if (e->arity < 0) ok = 0;
            else if (!e->mod && !e->fun) ok = check_guard_bif(e->name, e->n);
            else if (e->mod && e->mod->kind == E_ATOM && strcmp(e->mod->name, "erlang") == 0 &&
                     e->fun->kind == E_ATOM)
                ok = check_guard_bif(e->fun->name, e->n);
            else ok = 0;
            if (!ok) break;
            for (int i = 0; i < e->n; i++) if (!check_guard_expr(c, e->elems[i])) return 0;
            return 1;
        }
        case E_RECORD: case E_RECORD_FIELD: case E_RECORD_UPDATE: case E_MAP: case E_MAP_UPDATE: case E_BIN:
            if (e->a && !check_guard_expr(c, e->a)) return 0;
            for (int i = 0; i < e->nfields; i++) {
                Field *f = &e->fields[i];
                if ((f->key && !check_guard_expr(c, f->key)) ||
                    (f->value && !check_guard_expr(c, f->value)) ||
                    (f->size && !check_guard_expr(c, f->size)))
                    return 0;
            }
            return 1;
        default:
            break;
        }
        check_error(c, e->line, e->col, "illegal guard expression");
        return 0;
    }
    return 1;
}

static void check_guard(Checker *c, Env *env, Guard *g)
{
    if (!g) return;
    for (int a = 0; a < g->nalts; a++)
        for (int t = 0; t < g->alts[a].ntests; t++) {
            Expr *e = g->alts[a].tests[t];
            if (!check_guard_expr(c, e)) continue;
            Env tmp = env_copy(env);
            c->in_guard++;
            check_expr(c, &tmp, e);
            c->in_guard--;
            /* a guard binds nothing, but one report per variable is enough */
            for (int i = 0; i < tmp.n; i++)
                if (env_find(env, tmp.v[i].name) < 0) env_add(env, tmp.v[i]);
        }
}

/* ---- the module ---- */

int check_module(Module *m)
{
    Checker c = { .m = m };
    if (!m->name) check_error(&c, 1, 1, "no module definition");

    for (int i = 0; i < m->nrecords; i++) {
        RecordDef *r = &m->records[i];
        for (int j = 0; j < i; j++)
            if (m->records[j].name == r->name) {
                check_error(&c, r->line, r->col, "record %s already defined", r->name);
                break;
            }
        for (int f = 0; f < r->nfields; f++) {
            for (int g = 0; g < f; g++)
                if (r->fields[g].name == r->fields[f].name) {
                    check_error(&c, r->fields[f].line, r->fields[f].col,
                                "field %s already defined in record %s", r->fields[f].name, r->name);
                    break;
                }
            if (r->fields[f].value) {
                Env env = { 0 };
                check_expr(&c, &env, r->fields[f].value);
            }
        }
    }

    for (int i = 0; i < m->nexports; i++) {
        NameArity *x = &m->exports[i];
        int found = 0;
        for (int j = 0; j < m->nfunctions && !found; j++)
            found = m->functions[j]->name == x->name && m->functions[j]->arity == x->arity;
        if (!found) check_error(&c, x->line, x->col, "function %s/%d undefined", x->name, x->arity);
    }

    for (int i = 0; i < m->nfunctions; i++) {
        Function *f = m->functions[i];
        for (int j = 0; j < i; j++)
            if (m->functions[j]->name == f->name && m->functions[j]->arity == f->arity) {
                check_error(&c, f->line, f->col, "function %s/%d already defined", f->name, f->arity);
                break;
            }
        Env empty = { 0 };
        for (int k = 0; k < f->nclauses; k++)
            check_clause(&c, &empty, f->clauses[k], 0, NULL);
    }

    if (c.ndiags) qsort(c.diags, (size_t)c.ndiags, sizeof *c.diags, check_diag_cmp);
    for (int i = 0; i < c.ndiags; i++)
        diag_error(m->file, m->src, m->srclen, c.diags[i].line, c.diags[i].col, "%s", c.diags[i].msg);
    return c.ndiags;
}

/* The shell (vm/shell/shell_eval.c): checks a body of expressions against a module
 * holding no functions, with `bound` already bound. Prints the errors like
 * check_module; returns their number. On return, after and nafter give the names bound
 * (and safe) once the body has run, so the shell can keep them. */
int check_exprs(Module *m, Expr **body, int n, const char **bound, int nbound,
                const char ***after, int *nafter)
{
    Checker c = { .m = m };
    Env env = { 0 };
    for (int i = 0; i < nbound; i++) env_bind(&env, bound[i]);
    check_body(&c, &env, body, n);
    if (c.ndiags) qsort(c.diags, (size_t)c.ndiags, sizeof *c.diags, check_diag_cmp);
    for (int i = 0; i < c.ndiags; i++)
        diag_error(m->file, m->src, m->srclen, c.diags[i].line, c.diags[i].col, "%s", c.diags[i].msg);
    const char **names = GC_MALLOC(sizeof *names * (size_t)(env.n + 1));
    int k = 0;
    for (int i = 0; i < env.n; i++)
        if (!env.v[i].what && strcmp(env.v[i].name, "_") != 0) names[k++] = env.v[i].name;
    *after = names;
    *nafter = k;
    return c.ndiags;
}
