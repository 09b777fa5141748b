/* codegen_bsm.c — one match state for a function's binary argument, handed
 * on to the recursive call that takes the rest (what BEAM's compiler calls
 * match context reuse).
 *
 * A parser written the Erlang way recurses on the rest of a binary:
 *
 *     parse(<<>>, A) -> A;
 *     parse(<<$\n, Rest/binary>>, A) -> parse(Rest, A + 1);
 *     parse(<<_, Rest/binary>>, A) -> parse(Rest, A).
 *
 * Compiled clause by clause, each clause starts its own match state (a
 * sub-binary on the heap) and the rest is one more: two or three objects a
 * byte, all garbage at once. Instead:
 *
 *  - A function whose first clauses (at least one) all match argument i with
 *    a binary pattern, not an alias (`<<...>> = B`) nor a variable, has a
 *    *state argument*. Its entry starts one state in x(i) itself, then (at
 *    its state label) saves the state's position in x(arity); every one of
 *    those clauses matches on x(i), a clause after one that may have moved
 *    it first setting the position back. When none of them matches, the
 *    position is set back and the clauses after them (or function_clause)
 *    see a binary equal to the argument: the state is a sub-binary of the
 *    same bits.
 *  - A variable bound to the tail of a binary pattern in a clause head
 *    (`Rest/binary` or `Rest/bits` last) whose one use in the guard and body
 *    is as the argument, at the callee's state position, of a local call
 *    that runs once (not in a fun nor in a comprehension's repeated part) is
 *    *handed on*: the head binds it to the match state itself (after a unit
 *    test for /binary), and the call enters the callee at its state label,
 *    so the callee goes on matching in the same object. Nothing else can see
 *    that object any more (its one use is the call), so moving it on in
 *    place is safe; every other use of a tail, and every call that enters
 *    at the function's entry, gets a state of its own as before.
 *
 * The parser above then makes no object a byte at all.
 */
#include <string.h>

#include "codegen.h"

static int is_tail_var(Field *fd)
{
    if (fd->size || fd->value->kind != E_VAR) return 0;
    for (int i = 0; i < fd->ntypes; i++)
        if (!strcmp(fd->types[i], "binary") || !strcmp(fd->types[i], "bytes") ||
            !strcmp(fd->types[i], "bits") || !strcmp(fd->types[i], "bitstring"))
            return 1;
    return 0;
}

int cg_state_arg(Gen *g, GenFun *gf)
{
    if (gf->state_known) return gf->state_arg;
    gf->state_known = 1;
    gf->state_arg = -1;
    if (gf->kind != GF_CLAUSES || gf->arity + 2 >= XMAX) return -1;
    for (int i = 0; i < gf->nparams; i++) {
        int k = 0;
        while (k < gf->nclauses && i < gf->clauses[k]->npat && gf->clauses[k]->patterns[i]->kind == E_BIN)
            k++;
        if (k > 0) {
            gf->state_arg = i;
            gf->state_clauses = k;
            gf->state_label = ++g->nlabels;
            return i;
        }
    }
    return -1;
}

/* ---- which tails are handed on ------------------------------------------ */

/* A head's tail variables: how often each is used in the guard and body,
 * and how many of those uses are a state argument of a call that runs once */
typedef struct Tail { const char *name; int uses, calls; } Tail;
typedef struct Uses { Tail *t; int n, cap; } Uses;

static void count_use(void *ctx, const char *name, int weak)
{
    (void)weak;
    Uses *u = ctx;
    for (int i = 0; i < u->n; i++)
        if (u->t[i].name == name) { u->t[i].uses++; return; }
}

/* The names bound to a binary pattern's tail anywhere in p. */
static void head_tails(Expr *p, Uses *u)
{
    if (!p) return;
    switch (p->kind) {
    case E_BIN:
        if (p->nfields > 0 && is_tail_var(&p->fields[p->nfields - 1])) {
            const char *v = p->fields[p->nfields - 1].value->name;
            if (v[0] == '_') return;                /* _ and _Rest: nothing to hand on */
            GROW(u->t, u->n, u->cap);
            u->t[u->n++] = (Tail){ v, 0, 0 };
        }
        return;
    case E_CONS: case E_MATCH: head_tails(p->a, u); head_tails(p->b, u); return;
    case E_TUPLE: for (int i = 0; i < p->n; i++) head_tails(p->elems[i], u); return;
    case E_MAP: for (int i = 0; i < p->nfields; i++) head_tails(p->fields[i].value, u); return;
    default: return;
    }
}

/* Local calls in e that run at most once each time e does: fun bodies and
 * the repeated parts of comprehensions are not walked. For each, a tail
 * name at the callee's state position counts a call: a tail whose one use
 * is such a call is handed on. */
static void mark_calls(Fn *f, Expr *e, Uses *u);

static void mark_body(Fn *f, Expr **es, int n, Uses *u)
{
    for (int i = 0; i < n; i++) mark_calls(f, es[i], u);
}

static void mark_clauses(Fn *f, Clause **cs, int n, Uses *u)
{
    for (int i = 0; i < n; i++) mark_body(f, cs[i]->body, cs[i]->nbody, u);
}

static void mark_calls(Fn *f, Expr *e, Uses *u)
{
    if (!e) return;
    switch (e->kind) {
    case E_CALL:
        if (!e->mod && !e->fun) {
            GenFun *callee = cg_find_local(f->g, e->name, e->n);
            int sa = callee ? cg_state_arg(f->g, callee) : -1;
            if (sa >= 0 && sa < e->n && e->elems[sa]->kind == E_VAR)
                for (int i = 0; i < u->n; i++)
                    if (u->t[i].name == e->elems[sa]->name) u->t[i].calls++;
        }
        if (e->mod) mark_calls(f, e->mod, u);
        if (e->fun) mark_calls(f, e->fun, u);
        for (int i = 0; i < e->n; i++) mark_calls(f, e->elems[i], u);
        return;
    case E_FUN: case E_FUNREF: return;
    case E_LC: case E_BIN_LC:
        for (int i = 0; i < e->n; i++)
            if (e->elems[i]->kind == E_GENERATOR) return;   /* a and b repeat */
        mark_calls(f, e->a, u); mark_calls(f, e->b, u);
        return;
    case E_CASE: case E_RECEIVE: case E_IF:
        mark_calls(f, e->a, u); mark_calls(f, e->timeout, u);
        mark_clauses(f, e->clauses, e->nclauses, u);
        mark_body(f, e->body, e->nbody, u);
        return;
    case E_TRY:
        mark_body(f, e->body, e->nbody, u);
        mark_clauses(f, e->clauses, e->nclauses, u);
        mark_clauses(f, e->catches, e->ncatches, u);
        mark_body(f, e->after, e->nafter, u);
        return;
    case E_BLOCK: mark_body(f, e->body, e->nbody, u); return;
    default:
        mark_calls(f, e->a, u); mark_calls(f, e->b, u);
        if (e->kind == E_TUPLE) for (int i = 0; i < e->n; i++) mark_calls(f, e->elems[i], u);
        for (int i = 0; i < e->nfields; i++) {
            mark_calls(f, e->fields[i].key, u);
            mark_calls(f, e->fields[i].value, u);
            mark_calls(f, e->fields[i].size, u);
        }
        return;
    }
}

void cg_bsm_clause(Fn *f, Clause *c)
{
    Uses u = { 0 };
    for (int i = 0; i < c->npat; i++) head_tails(c->patterns[i], &u);
    f->donate = NULL; f->ndonate = 0;
    if (!u.n) return;
    if (c->guard)
        for (int a = 0; a < c->guard->nalts; a++)
            for (int t = 0; t < c->guard->alts[a].ntests; t++)
                cg_collect_vars(c->guard->alts[a].tests[t], count_use, &u, 0);
    for (int i = 0; i < c->nbody; i++) cg_collect_vars(c->body[i], count_use, &u, 0);
    mark_body(f, c->body, c->nbody, &u);
    f->donate = GC_MALLOC(sizeof *f->donate * (size_t)u.n);
    for (int i = 0; i < u.n; i++)
        if (u.t[i].uses == 1 && u.t[i].calls == 1) f->donate[f->ndonate++] = u.t[i].name;
}

int cg_bsm_donated(Fn *f, const char *name)
{
    for (int i = 0; i < f->ndonate; i++)
        if (f->donate[i] == name) return 1;
    return 0;
}

int cg_bsm_call_label(Fn *f, Expr *call, GenFun *callee)
{
    int sa = cg_state_arg(f->g, callee);
    if (sa >= 0 && sa < call->n && call->elems[sa]->kind == E_VAR && cg_bsm_donated(f, call->elems[sa]->name))
        return callee->state_label;
    return callee->entry_label;
}

/* ---- a run of clauses told apart by their first byte -------------------- */

/* The byte a state clause's pattern starts with, when it starts with a
 * plain byte (<<$h, ...>>, <<"GIF8", ...>>: no type, no size); else -1. */
static int first_byte(Expr *p)
{
    if (p->nfields == 0) return -1;
    Field *fd = &p->fields[0];
    if (fd->ntypes || fd->size) return -1;
    Expr *v = fd->value;
    if (v->kind == E_INT && !v->big && v->ival >= 0 && v->ival <= 255) return (int)v->ival;
    if (v->kind == E_STRING && v->len > 0 && v->str[0] >= 0 && v->str[0] <= 255) return v->str[0];
    return -1;
}

int cg_bsm_byte_run(GenFun *gf, int from)
{
    char seen[256] = { 0 };
    int n = 0;
    for (int i = from; i < gf->state_clauses; i++, n++) {
        int b = first_byte(gf->clauses[i]->patterns[gf->state_arg]);
        if (b < 0 || seen[b]) break;
        seen[b] = 1;
    }
    return n;
}

Expr *cg_bsm_var_byte(GenFun *gf, int i)
{
    Expr *p = gf->clauses[i]->patterns[gf->state_arg];
    if (p->nfields == 0) return NULL;
    Field *fd = &p->fields[0];
    if (fd->ntypes || fd->size || fd->value->kind != E_VAR) return NULL;
    return fd->value;
}

int cg_bsm_run_byte(GenFun *gf, int i)
{
    return first_byte(gf->clauses[i]->patterns[gf->state_arg]);
}

Clause *cg_bsm_after_byte(GenFun *gf, int i)
{
    Clause *c = gf->clauses[i], *r = ast_alloc(sizeof *r);
    *r = *c;
    r->patterns = ast_alloc(sizeof(Expr *) * (size_t)c->npat);
    memcpy(r->patterns, c->patterns, sizeof(Expr *) * (size_t)c->npat);
    Expr *p = c->patterns[gf->state_arg], *q = ast_alloc(sizeof *q);
    *q = *p;
    Expr *v = p->fields[0].value;
    if (v->kind == E_STRING && v->len > 1) {    /* the string's other bytes stay */
        q->fields = ast_alloc(sizeof(Field) * (size_t)p->nfields);
        memcpy(q->fields, p->fields, sizeof(Field) * (size_t)p->nfields);
        Expr *s = ast_alloc(sizeof *s);
        *s = *v;
        s->str = v->str + 1;
        s->len = v->len - 1;
        q->fields[0].value = s;
    } else {
        q->fields = p->fields + 1;
        q->nfields = p->nfields - 1;
    }
    r->patterns[gf->state_arg] = q;
    return r;
}
