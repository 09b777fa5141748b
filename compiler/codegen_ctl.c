/* codegen_ctl.c — control constructs, funs and list comprehensions.
 *
 * Branching constructs compile their clauses one after another, each from the
 * same snapshot of the variable/register state, and merge the states of the
 * branches that fall through: a variable is bound after the construct if some
 * branch bound it (the checker rejects uses of the unsafe ones), and counts as
 * holding a value (for `live`) only if every branch bound it.
 *
 * A `fun` becomes a module function '-F/A-fun-N-' taking the fun's arguments
 * and then its free variables; a named fun rebuilds itself with make_fun when
 * its name is used as a value, and calls itself directly otherwise. A list
 * comprehension becomes one helper function per generator,
 * '-F/A-lc$^N/1-0-'(List, Free...), that builds [Expr | Rest] body-
 * recursively; filters compile in the helper (or the function) they run in.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* Clauses with one pattern each (case, try ... of) matched against s. */
static void case_clauses(Fn *f, Clause **cs, int n, UWord s, int tail, UWord dest,
                         int stubkind, int line, Merge *m, int lend, int jump_last) {
    Snap *pre = cg_snap(f);
    Clause *lc = cs[n - 1];
    int need = !(lc->npat > 0 && cg_irrefutable(f, lc->patterns[0]) && !lc->guard);
    int lstub = need ? cg_stub(f, stubkind, s, 0, line) : 0;
    for (int i = 0; i < n; i++) {
        Clause *c = cs[i];
        int last = i == n - 1;
        int next = last ? lstub : cg_new_label(f);
        if (i) cg_restore(f, pre);
        cg_match(f, c->patterns[0], s, next);
        cg_guard(f, c->guard, next);
        cg_free(f, s);
        cg_body(f, c->body, c->nbody, tail, dest);
        if (!tail) {
            cg_merge_add(f, m);
            if (!last || jump_last) cg_op(f, OP_jump, 1, (UWord)lend);
        }
        if (!last) cg_label(f, next);
    }
}

void cg_case(Fn *f, Expr *e, int tail, UWord dest) {
    UWord s = cg_operand(f, e->a, 0);
    Snap *pre = cg_snap(f);
    Merge m = {0};
    int lend = tail ? 0 : cg_new_label(f);
    case_clauses(f, e->clauses, e->nclauses, s, tail, dest, ST_CASE_END, e->line, &m, lend, 0);
    cg_merge_end(f, &m, pre);
    cg_free(f, s);
    if (!tail) cg_label(f, lend);
}

static int guard_is_true(Guard *g) {
    return !g || (g->nalts == 1 && g->alts[0].ntests == 1 && g->alts[0].tests[0]->kind == E_ATOM &&
                  !strcmp(g->alts[0].tests[0]->name, "true"));
}

void cg_if(Fn *f, Expr *e, int tail, UWord dest) {
    Snap *pre = cg_snap(f);
    Merge m = {0};
    int n = e->nclauses;
    int lend = tail ? 0 : cg_new_label(f);
    int need = !guard_is_true(e->clauses[n - 1]->guard);
    int lstub = need ? cg_stub(f, ST_IF_END, 0, 0, e->line) : 0;
    for (int i = 0; i < n; i++) {
        Clause *c = e->clauses[i];
        int last = i == n - 1;
        int next = last ? lstub : cg_new_label(f);
        if (i) cg_restore(f, pre);
        cg_guard(f, c->guard, next);
        cg_body(f, c->body, c->nbody, tail, dest);
        if (!tail) {
            cg_merge_add(f, &m);
            if (!last) cg_op(f, OP_jump, 1, (UWord)lend);
        }
        if (!last) cg_label(f, next);
    }
    cg_merge_end(f, &m, pre);
    if (!tail) cg_label(f, lend);
}

/* A andalso B / A orelse B: B's value unchecked (and in tail position when
 * the whole is); A must be a boolean, else error {badarg, A}. */
void cg_shortcircuit(Fn *f, Expr *e, int tail, UWord dest) {
    int isand = e->kind == E_ANDALSO;
    if (tail) dest = REG_X(0);
    UWord v = cg_operand(f, e->a, 0);
    int lrhs = cg_new_label(f), lend = tail ? 0 : cg_new_label(f);
    Term first = isand ? AM_true : AM_false, other = isand ? AM_false : AM_true;
    cg_op(f, OP_is_ne_exact, 3, (UWord)lrhs, v, first);
    int bad = f->bif_fail ? f->bif_fail : cg_stub(f, ST_ERROR_TUPLE, v, cg_atom("badarg"), e->line);
    cg_op(f, OP_is_eq_exact, 3, (UWord)bad, v, other);
    cg_free(f, v);
    Snap *pre = cg_snap(f);
    Merge m = {0};
    cg_move(f, other, dest);
    if (tail) cg_return(f);
    else { cg_merge_add(f, &m); cg_op(f, OP_jump, 1, (UWord)lend); }
    cg_label(f, lrhs);
    cg_expr(f, e->b, tail, dest);
    if (!tail) {
        cg_merge_add(f, &m);
        cg_merge_end(f, &m, pre);
        cg_label(f, lend);
    }
}

/* ---- receive ------------------------------------------------------------- */

/* A receive whose clauses all match tuples starts with loop_rec_filter:
 * per clause the arity and the elements fixed before the receive
 * (literals, and variables bound already) as (index, value) pairs, so that
 * the emulator skips the messages no clause allows before running any
 * clause's tests. Other receives start with loop_rec. */
static void cg_loop_rec(Fn *f, Expr *e, int lwait, UWord mr) {
    int tuples = e->nclauses > 0;
    for (int k = 0; k < e->nclauses; k++)
        if (e->clauses[k]->patterns[0]->kind != E_TUPLE) tuples = 0;
    if (!tuples) {
        cg_op(f, OP_loop_rec, 2, (UWord)lwait, mr);
        return;
    }
    Gen *g = f->g;
    cg_op(f, OP_loop_rec_filter, 3, (UWord)lwait, mr, (UWord)0);
    size_t count_at = g->ncode - 1;             /* the operand count, set below */
    cg_emit(f, make_small(e->nclauses));
    for (int k = 0; k < e->nclauses; k++) {
        Expr *p = e->clauses[k]->patterns[0];
        cg_emit(f, make_small(p->n));
        size_t tests_at = g->ncode;
        cg_emit(f, make_small(0));
        int tests = 0;
        for (int i = 0; i < p->n; i++) {
            Expr *el = p->elems[i];
            Term lit;
            UWord v;
            if (cg_const(f, el, &lit)) v = lit;
            else if (el->kind == E_VAR && !cg_wild(el) && !cg_is_self(f, el) && cg_is_bound(f, el->name))
                v = cg_operand(f, el, 0);                  /* its home: no code */
            else continue;
            cg_emit(f, make_small(i));
            cg_emit(f, v);
            tests++;
        }
        g->code[tests_at] = make_small(tests);
    }
    g->code[count_at] = (UWord)(g->ncode - count_at - 1);
}

/* A receive needs no frame: the message goes to a free x register, and a
 * process that waits keeps its live x registers (wait's live operand), as a
 * preempted one does. So `loop(S) -> receive M -> ..., loop(S2) end` is a
 * leaf with no allocate and no y slots. */
void cg_receive(Fn *f, Expr *e, int tail, UWord dest) {
    UWord t = e->timeout ? cg_operand(f, e->timeout, 1) : NOOP;
    int marked = e == f->mark_receive;
    int lloop = marked ? f->mark_label : cg_new_label(f);
    int lwait = cg_new_label(f), lend = tail ? 0 : cg_new_label(f);
    UWord mr = REG_X(cg_alloc_x(f, R_TEMP));
    if (marked) {
        cg_op(f, OP_recv_set, 1, (UWord)lloop);    /* once: a wake-up goes to lloop */
        f->mark_receive = NULL;
    }
    cg_label(f, lloop);
    cg_loop_rec(f, e, lwait, mr);
    Snap *pre = cg_snap(f);
    Merge m = {0};
    for (int i = 0; i < e->nclauses; i++) {
        Clause *c = e->clauses[i];
        int next = cg_new_label(f);
        cg_restore(f, pre);
        cg_match(f, c->patterns[0], mr, next);
        cg_guard(f, c->guard, next);
        cg_op(f, OP_remove_message, 0);
        cg_free(f, mr);
        cg_body(f, c->body, c->nbody, tail, dest);
        if (!tail) { cg_merge_add(f, &m); cg_op(f, OP_jump, 1, (UWord)lend); }
        cg_label(f, next);
    }
    cg_restore(f, pre);
    cg_op(f, OP_loop_rec_end, 1, (UWord)lloop);
    cg_label(f, lwait);
    cg_free(f, mr);
    int live = cg_xlive(f);
    if (t != NOOP) {
        cg_line(f, e->timeout->line);
        cg_op(f, OP_wait_timeout, 3, (UWord)lloop, t, (UWord)live);
        cg_op(f, OP_timeout, 0);
        cg_free(f, t);
        cg_body(f, e->body, e->nbody, tail, dest);
        if (!tail) cg_merge_add(f, &m);
    } else {
        cg_op(f, OP_wait, 2, (UWord)lloop, (UWord)live);
    }
    cg_merge_end(f, &m, pre);
    cg_free(f, mr);
    cg_free(f, t);
    if (!tail) cg_label(f, lend);
}

/* ---- receives only a new reference can match ----------------------------- */

/* Ref = make_ref() (or monitor(process, P)), a few sends, then a receive
 * whose every clause needs Ref in the message: the messages queued before
 * Ref existed cannot match, so the receive may start where the queue ended
 * just before Ref was made (recv_mark there -- before, since monitoring a
 * dead process queues its 'DOWN' at once -- and recv_set before the
 * receive), and a call/reply in a process with a long queue stays O(1), as
 * in Erlang. The code in between may only build terms, send, and make
 * references: a call could run another marked receive, even this one
 * (recursion), and leave the mark somewhere later than Ref. */
static int erlang_bif(Fn *f, Expr *e, const char *name, int arity) {
    if (e->kind != E_CALL || e->n != arity) return 0;
    CallInfo ci;
    cg_classify(f, e, &ci, 1);
    return ci.kind == CK_BIF && !strcmp(ci.mod, "erlang") && !strcmp(ci.name, name);
}

static int makes_ref(Fn *f, Expr *e) {
    return erlang_bif(f, e, "make_ref", 0) || erlang_bif(f, e, "monitor", 2);
}

/* Code that runs no receive and no code of other functions. */
static int mark_safe(Fn *f, Expr *e) {
    switch (e->kind) {
    case E_VAR: case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: return 1;
    case E_CONS: return mark_safe(f, e->a) && mark_safe(f, e->b);
    case E_TUPLE:
        for (int i = 0; i < e->n; i++) if (!mark_safe(f, e->elems[i])) return 0;
        return 1;
    case E_MATCH: return mark_safe(f, e->b);
    case E_BINOP: return e->op == OP_SEND && mark_safe(f, e->a) && mark_safe(f, e->b);
    case E_CALL:
        if (!makes_ref(f, e) && !erlang_bif(f, e, "self", 0)) return 0;
        for (int i = 0; i < e->n; i++) if (!mark_safe(f, e->elems[i])) return 0;
        return 1;
    default: return 0;
    }
}

/* Whether matching pattern p needs the value of variable `name`. */
static int pattern_needs(Expr *p, const char *name) {
    switch (p->kind) {
    case E_VAR: return p->name == name;
    case E_CONS: case E_MATCH: return pattern_needs(p->a, name) || pattern_needs(p->b, name);
    case E_TUPLE:
        for (int i = 0; i < p->n; i++) if (pattern_needs(p->elems[i], name)) return 1;
        return 0;
    default: return 0;
    }
}

void cg_ref_mark(Fn *f, Expr **es, int n, int i) {
    Expr *e = es[i];
    if (e->kind != E_MATCH || e->a->kind != E_VAR || cg_wild(e->a) || !makes_ref(f, e->b)) return;
    const char *ref = e->a->name;
    for (int j = i + 1; j < n; j++) {
        Expr *r = es[j]->kind == E_RECEIVE ? es[j]
                : es[j]->kind == E_MATCH && es[j]->b->kind == E_RECEIVE ? es[j]->b : NULL;
        if (!r) {
            if (!mark_safe(f, es[j])) return;
            continue;
        }
        if (r->nclauses == 0) return;
        for (int k = 0; k < r->nclauses; k++)
            if (!pattern_needs(r->clauses[k]->patterns[0], ref)) return;
        if (f->mark_receive != r) {
            f->mark_receive = r;
            f->mark_label = cg_new_label(f);
        }
        cg_op(f, OP_recv_mark, 1, (UWord)f->mark_label);
        return;
    }
}

/* ---- try / catch --------------------------------------------------------- */

/* try Body [of Clauses] [catch CatchClauses] end, without `after`. */
static void try_inner(Fn *f, Expr *e, int tail, UWord dest) {
    if (tail) dest = REG_X(0);
    if (e->ncatches == 0) {            /* only with `after`: nothing to catch here */
        if (e->nclauses == 0) { cg_body(f, e->body, e->nbody, tail, dest); return; }
        Snap *pre = cg_snap(f);
        Merge m = {0};
        int lend = tail ? 0 : cg_new_label(f);
        cg_body(f, e->body, e->nbody, 0, REG_X(0));
        cg_mark(f, REG_X(0));
        case_clauses(f, e->clauses, e->nclauses, REG_X(0), tail, dest, ST_TRY_CASE_END, e->line, &m, lend, 0);
        cg_merge_end(f, &m, pre);
        if (!tail) cg_label(f, lend);
        return;
    }
    int yt = cg_marker(f);
    int lh = cg_new_label(f), lend = tail ? 0 : cg_new_label(f);
    Snap *pre = cg_snap(f);
    Merge m = {0};
    cg_op(f, OP_try, 2, REG_Y(yt), (UWord)lh);
    if (e->nclauses) {
        cg_body(f, e->body, e->nbody, 0, REG_X(0));
        cg_op(f, OP_try_end, 1, REG_Y(yt));
        cg_mark(f, REG_X(0));
        case_clauses(f, e->clauses, e->nclauses, REG_X(0), tail, dest, ST_TRY_CASE_END, e->line, &m, lend, 1);
    } else {
        cg_body(f, e->body, e->nbody, 0, dest);
        cg_op(f, OP_try_end, 1, REG_Y(yt));
        if (tail) cg_return(f);
        else { cg_merge_add(f, &m); cg_op(f, OP_jump, 1, (UWord)lend); }
    }
    /* the handler */
    cg_restore(f, pre);
    cg_label(f, lh);
    cg_op(f, OP_try_case, 1, REG_Y(yt));
    for (int r = 0; r < 3; r++) cg_mark(f, REG_X(r));
    Snap *hpre = cg_snap(f);
    Clause *lc = e->catches[e->ncatches - 1];
    int need = !(cg_irrefutable(f, lc->patterns[0]) && cg_irrefutable(f, lc->patterns[1]) &&
                 (!lc->patterns[2] || cg_irrefutable(f, lc->patterns[2])) && !lc->guard);
    int lre = need ? cg_new_label(f) : 0;
    for (int i = 0; i < e->ncatches; i++) {
        Clause *c = e->catches[i];
        int last = i == e->ncatches - 1;
        int next = last ? lre : cg_new_label(f);
        if (i) cg_restore(f, hpre);
        cg_match(f, c->patterns[0], REG_X(0), next);
        cg_match(f, c->patterns[1], REG_X(1), next);
        if (c->npat > 2 && c->patterns[2]) cg_match(f, c->patterns[2], REG_X(2), next);
        cg_guard(f, c->guard, next);
        for (int r = 0; r < 3; r++) cg_free(f, REG_X(r));
        cg_body(f, c->body, c->nbody, tail, dest);
        if (!tail) {
            cg_merge_add(f, &m);
            if (!last || need) cg_op(f, OP_jump, 1, (UWord)lend);
        }
        if (!last) cg_label(f, next);
    }
    if (need) {
        cg_restore(f, hpre);
        cg_label(f, lre);
        cg_line(f, e->line);
        cg_op(f, OP_raise, 3, REG_X(0), REG_X(1), REG_X(2));
    }
    cg_merge_end(f, &m, pre);
    cg_marker_end(f);
    if (!tail) cg_label(f, lend);
}

void cg_try(Fn *f, Expr *e, int tail, UWord dest) {
    if (!f->frame) { f->retry = 1; return; }
    if (e->nafter == 0) { try_inner(f, e, tail, dest); return; }
    if (tail) dest = REG_X(0);
    int yo = cg_marker(f);
    int lho = cg_new_label(f), lend = tail ? 0 : cg_new_label(f);
    Snap *pre = cg_snap(f);
    Merge m = {0};
    cg_op(f, OP_try, 2, REG_Y(yo), (UWord)lho);
    UWord r = REG_Y(cg_pick_y(f));
    try_inner(f, e, 0, r);
    cg_mark(f, r);
    cg_op(f, OP_try_end, 1, REG_Y(yo));
    for (int i = 0; i < e->nafter; i++) cg_effect(f, e->after[i]);
    cg_move(f, r, dest);
    if (tail) cg_return(f);
    else { cg_merge_add(f, &m); cg_op(f, OP_jump, 1, (UWord)lend); }
    cg_restore(f, pre);
    cg_label(f, lho);
    cg_op(f, OP_try_case, 1, REG_Y(yo));
    UWord yc = REG_Y(cg_alloc_y(f, R_TEMP)), yr = REG_Y(cg_alloc_y(f, R_TEMP)),
          ys = REG_Y(cg_alloc_y(f, R_TEMP));
    cg_move(f, REG_X(0), yc); cg_move(f, REG_X(1), yr); cg_move(f, REG_X(2), ys);
    for (int i = 0; i < e->nafter; i++) cg_effect(f, e->after[i]);
    cg_line(f, e->line);
    cg_op(f, OP_raise, 3, yc, yr, ys);
    cg_merge_end(f, &m, pre);
    cg_marker_end(f);
    if (!tail) cg_label(f, lend);
}

void cg_catch(Fn *f, Expr *e, UWord dest) {
    if (!f->frame) { f->retry = 1; return; }
    int yc = cg_marker(f);
    int lc = cg_new_label(f);
    Snap *pre = cg_snap(f);
    cg_op(f, OP_catch, 2, REG_Y(yc), (UWord)lc);
    cg_expr(f, e->a, 0, REG_X(0));
    cg_label(f, lc);
    cg_op(f, OP_catch_end, 1, REG_Y(yc));
    /* bound if bound inside (unsafe anyway); holding a value only if it did before */
    Merge m = {0};
    cg_merge_add(f, &m);
    for (int v = 0; v < m.nv; v++) m.def[v] = v < pre->nv ? (char)(m.def[v] & pre->def[v]) : 0;
    cg_merge_end(f, &m, pre);
    cg_marker_end(f);
    cg_move(f, REG_X(0), dest);
}

/* ---- funs ---------------------------------------------------------------- */

static int add_lambda(Gen *g, GenFun *h, int arity, int nfree) {
    GROW(g->lambdas, g->nlambdas, g->caplambdas);
    CodeLambda *l = &g->lambdas[g->nlambdas];
    l->function = h->index;
    l->arity = arity;
    l->nfree = nfree;
    l->name = cg_atom(h->name);
    return g->nlambdas++;
}

static const char *fun_name(Fn *f, const char *kind) {
    char buf[600];
    Gen *g = f->g;
    int n = !strcmp(kind, "fun") ? g->fun_counter++ : g->lc_counter++;
    if (!strcmp(kind, "fun")) snprintf(buf, sizeof buf, "-%s/%d-fun-%d-", f->gf->top, f->gf->top_arity, n);
    else snprintf(buf, sizeof buf, "-%s/%d-lc$^%d/1-0-", f->gf->top, f->gf->top_arity, n);
    return ast_intern(buf, strlen(buf));
}

typedef struct Names { const char **v; int n, cap; Fn *f; const char *skip; const char **excl; int nexcl; } Names;

static void add_free(void *ctx, const char *name, int weak) {
    (void)weak;
    Names *ns = ctx;
    if (name == ns->skip || !cg_is_bound(ns->f, name)) return;
    for (int i = 0; i < ns->nexcl; i++) if (ns->excl[i] == name) return;
    for (int i = 0; i < ns->n; i++) if (ns->v[i] == name) return;
    GROW(ns->v, ns->n, ns->cap);
    ns->v[ns->n++] = name;
}

static void add_any(void *ctx, const char *name, int weak) {
    (void)weak;
    Names *ns = ctx;
    for (int i = 0; i < ns->n; i++) if (ns->v[i] == name) return;
    GROW(ns->v, ns->n, ns->cap);
    ns->v[ns->n++] = name;
}

void cg_fun(Fn *f, Expr *e, UWord dest) {
    Gen *g = f->g;
    Names ns;
    memset(&ns, 0, sizeof ns);
    ns.f = f; ns.skip = e->name;
    for (int i = 0; i < e->nclauses; i++) {
        Clause *c = e->clauses[i];
        if (c->guard)
            for (int a = 0; a < c->guard->nalts; a++)
                for (int t = 0; t < c->guard->alts[a].ntests; t++)
                    cg_collect_vars(c->guard->alts[a].tests[t], add_free, &ns, 0);
        for (int j = 0; j < c->nbody; j++) cg_collect_vars(c->body[j], add_free, &ns, 0);
    }
    GenFun *h = cg_new_genfun(g);
    h->name = fun_name(f, "fun");
    h->nparams = e->nclauses ? e->clauses[0]->npat : 0;
    h->nfree = ns.n; h->free = ns.v;
    h->arity = h->nparams + h->nfree;
    h->self = e->name;
    h->clauses = e->clauses; h->nclauses = e->nclauses;
    h->line = e->line;
    h->top = f->gf->top; h->top_arity = f->gf->top_arity;
    h->kind = GF_CLAUSES;
    int li = add_lambda(g, h, h->nparams, h->nfree);
    h->self_lambda = li;
    if (h->arity > XMAX) { cg_error(f, e->line, e->col, "fun has too many free variables"); return; }
    UWord *ops = GC_MALLOC(sizeof(UWord) * ((size_t)ns.n + 1));
    for (int i = 0; i < ns.n; i++) ops[i] = cg_operand(f, cg_mkvar(ns.v[i], e->line), 0);
    int live = cg_xlive(f);
    cg_op(f, OP_test_heap, 2, (UWord)(2 + ns.n), (UWord)live);
    cg_op(f, OP_make_fun, 3, (UWord)li, dest, (UWord)ns.n);
    for (int i = 0; i < ns.n; i++) cg_emit(f, ops[i]);
    for (int i = 0; i < ns.n; i++) cg_free(f, ops[i]);
}

void cg_funref(Fn *f, Expr *e, UWord dest) {
    Gen *g = f->g;
    const char *mod = e->mod ? e->mod->name : NULL;
    if (mod) {
        /* fun M:F/A is an export fun, as in Erlang (it prints as itself,
         * equals erlang:make_fun(M, F, A), calls the latest code): made by
         * that BIF, two heap words, as a closure would take */
        int live = cg_xlive(f);
        cg_op(f, OP_bif, 4, (UWord)0, (UWord)bif_lookup("erlang", "make_fun", 3), (UWord)live, dest);
        cg_emit(f, 3);
        cg_emit(f, cg_atom(mod));
        cg_emit(f, cg_atom(e->name));
        cg_emit(f, make_small(e->arity));
        return;
    }
    int li = -1;
    for (int i = 0; i < g->nfrefs; i++)
        if (g->frefs[i].mod == mod && g->frefs[i].name == e->name && g->frefs[i].arity == e->arity)
            li = g->frefs[i].lambda;
    if (li < 0) {
        GenFun *h = cg_new_genfun(g);
        h->name = fun_name(f, "fun");
        h->nparams = h->arity = e->arity;
        h->line = e->line;
        h->top = f->gf->top; h->top_arity = f->gf->top_arity;
        GenFun *t = mod ? NULL : cg_find_local(g, e->name, e->arity);
        if (t) { h->kind = GF_FUNREF_LOCAL; h->target_label = t->entry_label; }
        else {
            const char *m = mod;
            if (!m) {
                m = "erlang";
                for (int i = 0; i < g->m->nimports; i++)
                    if (g->m->imports[i].fn.name == e->name && g->m->imports[i].fn.arity == e->arity)
                        m = g->m->imports[i].module;
            }
            h->kind = GF_FUNREF_EXT;
            h->target_import = cg_import(g, m, e->name, e->arity);
        }
        li = add_lambda(g, h, e->arity, 0);
        GROW(g->frefs, g->nfrefs, g->capfrefs);
        g->frefs[g->nfrefs].mod = mod; g->frefs[g->nfrefs].name = e->name;
        g->frefs[g->nfrefs].arity = e->arity; g->frefs[g->nfrefs].lambda = li;
        g->nfrefs++;
    }
    int live = cg_xlive(f);
    cg_op(f, OP_test_heap, 2, (UWord)2, (UWord)live);
    cg_op(f, OP_make_fun, 3, (UWord)li, dest, (UWord)0);
}

/* ---- list comprehensions ------------------------------------------------- */

static Expr *mk(ExprKind k, int line) { return ast_expr(k, line, 1); }

static Expr *mk_call(const char *name, Expr **args, int n, int line) {
    Expr *c = mk(E_CALL, line);
    c->name = name; c->elems = args; c->n = n;
    return c;
}

/* erlang:name(args) */
static Expr *mk_erlang_call(const char *name, Expr **args, int n, int line) {
    Expr *c = mk(E_CALL, line);
    c->mod = mk(E_ATOM, line); c->mod->name = ast_intern("erlang", 6);
    c->fun = mk(E_ATOM, line); c->fun->name = ast_intern(name, strlen(name));
    c->elems = args; c->n = n;
    return c;
}

static Clause *mk_clause(Expr *p0, Expr *body, int line) {
    Clause *c = ast_alloc(sizeof *c);
    c->line = line; c->col = 1;
    c->patterns = ast_alloc(sizeof(Expr *));
    c->patterns[0] = p0; c->npat = 1;
    c->body = ast_alloc(sizeof(Expr *));
    c->body[0] = body; c->nbody = 1;
    return c;
}

static int pat_irrefutable(Expr *p) {
    if (p->kind == E_VAR) return 1;
    if (p->kind == E_MATCH) return pat_irrefutable(p->a) && pat_irrefutable(p->b);
    return 0;
}

static Expr *mk_var(const char *name, int line) { return cg_mkvar(ast_intern(name, strlen(name)), line); }

/* <<Segments..., Tail/bitstring>> for the binary pattern p of a bit-string
 * generator: the pattern of the clause that takes one element. With skip,
 * every segment value that is not a variable becomes _ (a string, one _ of
 * the same type per character), as OTP does: the clause that steps over an
 * element the pattern does not match. Tail NULL: just <<_/bitstring>>. */
static Expr *bitgen_pattern(Expr *p, const char *tail, int skip, int line) {
    static const char *bits_type[] = { "bitstring" };
    Expr *b = mk(E_BIN, line);
    int n = 0, cap = 1;
    for (int i = 0; tail && i < p->nfields; i++)
        cap += p->fields[i].value->kind == E_STRING && skip ? p->fields[i].value->len : 1;
    b->fields = ast_alloc(sizeof(Field) * (size_t)cap);
    for (int i = 0; tail && i < p->nfields; i++) {
        Field *fd = &p->fields[i];
        if (!skip || fd->value->kind == E_VAR) { b->fields[n++] = *fd; continue; }
        int k = fd->value->kind == E_STRING ? fd->value->len : 1;
        for (int c = 0; c < k; c++) {
            b->fields[n] = *fd;
            b->fields[n++].value = mk_var("_", fd->line);
        }
    }
    Field *t = &b->fields[n++];
    t->line = line; t->col = 1;
    t->value = mk_var(tail ? tail : "_", line);
    t->types = bits_type; t->ntypes = 1;
    b->nfields = n;
    return b;
}

/* Does a bit-string generator's pattern need the clause that skips
 * elements (has it a segment that is not a variable)? */
static int bitgen_refutable(Expr *p) {
    for (int i = 0; i < p->nfields; i++)
        if (p->fields[i].value->kind != E_VAR) return 1;
    return 0;
}

/* [A || P <- L, Rest] with tail Tl (what follows this generator's elements,
 * an expression of the enclosing helper, evaluated only when L is exhausted so
 * that side effects happen in order):
 *   h([P | T], Free...) -> [A || Rest] with tail h(T, Free...);
 *   h([_ | T], Free...) -> h(T, Free...);
 *   h([], Free...) -> Tl;
 *   h(X, Free...) -> erlang:error({bad_generator, X}).
 * A bit-string generator <<Segs>> <= B takes elements off the front:
 *   h(<<Segs, T/bitstring>>, Free...) -> [A || Rest] with tail h(T, Free...);
 *   h(<<Segs with _ for values that are not variables, T/bitstring>>, Free...) -> h(T, Free...);
 *   h(<<_/bitstring>>, Free...) -> Tl;       (what is left is too short)
 *   h(X, Free...) -> erlang:error({bad_generator, X}).
 * A binary comprehension (E_BIN_LC, after bin_lc) accumulates instead: Tl
 * is the binary built so far, which the helper takes as a last argument,
 * Acc, and the clauses become
 *   h([P | T], Free..., Acc) -> h(T, Free..., <<A || Rest>> with Acc);
 *   h([_ | T], Free..., Acc) -> h(T, Free..., Acc);
 *   h([], Free..., Acc) -> Acc;
 * a tail recursion whose every step is <<Acc/bitstring, A...>>, which
 * binary.c appends in place: O(n) bytes written in all, and no list. */
static void note_any(void *ctx, const char *name, int weak) {
    (void)name; (void)weak;
    *(int *)ctx = 1;
}

static void lc_generator(Fn *f, Expr *e, int tail, UWord dest) {
    Gen *g = f->g;
    int line = e->line;
    Expr *q0 = e->elems[0], *pat = q0->a;
    Names pv, ns;
    memset(&pv, 0, sizeof pv);
    memset(&ns, 0, sizeof ns);
    ns.f = f;
    if (q0->bitgen) {                  /* the segments bind their values */
        for (int i = 0; i < pat->nfields; i++) cg_collect_vars(pat->fields[i].value, add_any, &pv, 0);
    } else {
        cg_collect_vars(pat, add_any, &pv, 0);
    }
    ns.excl = pv.v; ns.nexcl = pv.n;
    /* a segment size may also name a variable from outside, which the
     * helper then takes as a free variable */
    for (int i = 0; q0->bitgen && i < pat->nfields; i++)
        if (pat->fields[i].size) cg_collect_vars(pat->fields[i].size, add_free, &ns, 0);
    for (int i = 1; i < e->n; i++) cg_collect_vars(e->elems[i], add_free, &ns, 0);
    cg_collect_vars(e->a, add_free, &ns, 0);
    ns.nexcl = 0;
    int bin = e->kind == E_BIN_LC;
    int k = g->lc_counter;
    char buf[32];
    const char *A = NULL;
    if (bin) {                         /* the accumulator: the last argument */
        snprintf(buf, sizeof buf, "%%A%d", k);
        A = ast_intern(buf, strlen(buf));
        add_any(&ns, A, 0);
    } else if (e->b) {
        cg_collect_vars(e->b, add_free, &ns, 0);
    }

    GenFun *h = cg_new_genfun(g);
    h->name = fun_name(f, "lc");
    h->nparams = 1; h->nfree = ns.n; h->free = ns.v; h->arity = 1 + ns.n;
    h->line = line;
    h->top = f->gf->top; h->top_arity = f->gf->top_arity;
    h->kind = GF_CLAUSES;
    if (h->arity > XMAX) { cg_error(f, e->line, e->col, "list comprehension has too many variables"); return; }

    snprintf(buf, sizeof buf, "%%T%d", k);
    const char *T = ast_intern(buf, strlen(buf));
    snprintf(buf, sizeof buf, "%%X%d", k);
    const char *X = ast_intern(buf, strlen(buf));
    Expr **rargs = ast_alloc(sizeof(Expr *) * (size_t)(1 + ns.n));
    rargs[0] = cg_mkvar(T, line);
    for (int i = 0; i < ns.n; i++) rargs[1 + i] = cg_mkvar(ns.v[i], line);
    Expr *recur = mk_call(h->name, rargs, 1 + ns.n, line);

    Expr *rest = mk(e->kind, line);
    rest->a = e->a; rest->elems = e->elems + 1; rest->n = e->n - 1; rest->b = recur;
    Expr *done = e->b ? e->b : mk(E_NIL, line);
    if (bin) {
        /* the next element's bits go on the accumulator, then the helper
         * goes on with the longer binary */
        rest->b = cg_mkvar(A, line);
        Expr **nargs = ast_alloc(sizeof(Expr *) * (size_t)(1 + ns.n));
        memcpy(nargs, rargs, sizeof(Expr *) * (size_t)ns.n);
        nargs[ns.n] = rest;
        rest = mk_call(h->name, nargs, 1 + ns.n, line);
        done = cg_mkvar(A, line);
    }

    Clause **cs = ast_alloc(sizeof(Clause *) * 4);
    int nc = 0;
    if (q0->bitgen) {
        cs[nc++] = mk_clause(bitgen_pattern(pat, T, 0, line), rest, line);
        if (bitgen_refutable(pat)) cs[nc++] = mk_clause(bitgen_pattern(pat, T, 1, line), recur, line);
        cs[nc++] = mk_clause(bitgen_pattern(pat, NULL, 0, line), done, line);
    } else {
        Expr *c1 = mk(E_CONS, line); c1->a = pat; c1->b = cg_mkvar(T, line);
        cs[nc++] = mk_clause(c1, rest, line);
        if (!pat_irrefutable(pat)) {
            Expr *c2 = mk(E_CONS, line); c2->a = cg_mkvar(ast_intern("_", 1), line); c2->b = cg_mkvar(T, line);
            cs[nc++] = mk_clause(c2, recur, line);
        }
        cs[nc++] = mk_clause(mk(E_NIL, line), done, line);
    }
    Expr *tup = mk(E_TUPLE, line);
    tup->elems = ast_alloc(sizeof(Expr *) * 2); tup->n = 2;
    tup->elems[0] = mk(E_ATOM, line); tup->elems[0]->name = ast_intern("bad_generator", 13);
    tup->elems[1] = cg_mkvar(X, line);
    Expr **eargs = ast_alloc(sizeof(Expr *)); eargs[0] = tup;
    Expr *err = mk_erlang_call("error", eargs, 1, line);
    cs[nc++] = mk_clause(cg_mkvar(X, line), err, line);
    int sized_by_var = 0;
    for (int i = 0; q0->bitgen && i < pat->nfields; i++)
        if (pat->fields[i].size) cg_collect_vars(pat->fields[i].size, note_any, &sized_by_var, 0);
    if (q0->bitgen && sized_by_var) {
        /* h(B, Free...) -> case B of the clauses above end: a segment size
         * may name a free variable, which a function head cannot use (the
         * free variables are bound after the head is matched). Otherwise
         * the clauses stay the function's own, which match the binary with
         * one state, handed from step to step (codegen_bsm.c). */
        snprintf(buf, sizeof buf, "%%B%d", k);
        const char *B = ast_intern(buf, strlen(buf));
        Expr *c = mk(E_CASE, line);
        c->a = cg_mkvar(B, line);
        c->clauses = cs; c->nclauses = nc;
        cs = ast_alloc(sizeof(Clause *));
        cs[0] = mk_clause(cg_mkvar(B, line), c, line);
        nc = 1;
    }
    h->clauses = cs; h->nclauses = nc;

    Expr **args = ast_alloc(sizeof(Expr *) * (size_t)(1 + ns.n));
    args[0] = q0->b;
    for (int i = 0; i < ns.n; i++) args[1 + i] = cg_mkvar(ns.v[i], line);
    if (bin) args[ns.n] = e->b;        /* the binary built so far */
    cg_call(f, mk_call(h->name, args, 1 + ns.n, line), tail, dest);
}

static void lc_inner(Fn *f, Expr *e, int tail, UWord dest) {
    int line = e->line;
    Expr *tl = e->b ? e->b : mk(E_NIL, line);
    if (tail) dest = REG_X(0);
    if (e->n == 0 && e->kind == E_BIN_LC) {
        /* <<Acc/bitstring, the element's segments...>>; the accumulator is
         * private (BS_PRIVATE in opcodes.h): the helpers never use it again */
        static const char *bits_type[] = { "bitstring", "%private" };
        Expr *el = e->a, *b = mk(E_BIN, line);
        b->nfields = 1 + el->nfields;
        b->fields = ast_alloc(sizeof(Field) * (size_t)b->nfields);
        b->fields[0].line = line; b->fields[0].col = e->col;
        b->fields[0].value = tl;
        b->fields[0].types = bits_type; b->fields[0].ntypes = 2;
        if (el->nfields)                /* << <<>> || ... >>: no fields at all */
            memcpy(b->fields + 1, el->fields, sizeof(Field) * (size_t)el->nfields);
        cg_expr(f, b, tail, dest);
        return;
    }
    if (e->n == 0) {
        Expr *cons = mk(E_CONS, line);
        cons->a = e->a; cons->b = tl;
        cg_expr(f, cons, tail, dest);
        return;
    }
    Expr *q0 = e->elems[0];
    if (q0->kind == E_GENERATOR) { lc_generator(f, e, tail, dest); return; }
    Expr *rest = mk(e->kind, line);
    rest->a = e->a; rest->elems = e->elems + 1; rest->n = e->n - 1; rest->b = e->b;
    int lfalse = cg_new_label(f), lend = tail ? 0 : cg_new_label(f);
    Merge m = {0};
    Snap *pre;
    UWord s = NOOP;
    if (cg_is_guard_expr(f, q0)) {
        cg_test(f, q0, lfalse);
        pre = cg_snap(f);
    } else {
        s = cg_operand(f, q0, 0);
        cg_op(f, OP_is_eq_exact, 3, (UWord)lfalse, s, AM_true);
        pre = cg_snap(f);
        cg_free(f, s);
    }
    lc_inner(f, rest, tail, dest);
    if (!tail) { cg_merge_add(f, &m); cg_op(f, OP_jump, 1, (UWord)lend); }
    cg_restore(f, pre);
    cg_label(f, lfalse);
    if (s != NOOP) {
        int bad = cg_stub(f, ST_ERROR_TUPLE, s, cg_atom("bad_filter"), q0->line);
        cg_op(f, OP_is_eq_exact, 3, (UWord)bad, s, AM_false);
        cg_free(f, s);
    }
    cg_expr(f, tl, tail, dest);
    if (!tail) {
        cg_merge_add(f, &m);
        cg_merge_end(f, &m, pre);
        cg_free(f, s);
        cg_label(f, lend);
    }
}

/* <<A || Quals>>: the comprehension's node again, its element a binary
 * expression (<<A/bitstring>> when A is not one: each element must be a
 * bitstring, badarg otherwise, as in OTP) and its tail <<>>, the empty
 * accumulator (lc_generator says how it grows). Returns the new node. */
static Expr *bin_lc(Expr *e) {
    static const char *bits_type[] = { "bitstring" };
    int line = e->line;
    Expr *el = e->a;
    if (el->kind != E_BIN) {
        Expr *b = mk(E_BIN, line);
        b->fields = ast_alloc(sizeof(Field));
        b->nfields = 1;
        b->fields[0].line = el->line; b->fields[0].col = el->col;
        b->fields[0].value = el;
        b->fields[0].types = bits_type; b->fields[0].ntypes = 1;
        el = b;
    }
    Expr *bc = mk(E_BIN_LC, line);
    bc->a = el; bc->elems = e->elems; bc->n = e->n;
    bc->b = mk(E_BIN, line);
    return bc;
}

void cg_lc(Fn *f, Expr *e, int tail, UWord dest) {
    if (e->kind == E_BIN_LC && !e->b) e = bin_lc(e);
    int nv = f->nv;
    char *b = GC_MALLOC_ATOMIC((size_t)nv + 1), *d = GC_MALLOC_ATOMIC((size_t)nv + 1);
    if (nv) {                       /* no variables yet: the arrays may be NULL */
        memcpy(b, f->bound, (size_t)nv);
        memcpy(d, f->def, (size_t)nv);
    }
    lc_inner(f, e, tail, dest);
    /* variables bound inside the comprehension are local to it */
    for (int v = 0; v < f->nv; v++) {
        f->bound[v] = v < nv ? b[v] : 0;
        f->def[v] = v < nv ? d[v] : 0;
    }
}
