/* warnings.c — erlc's warnings on a module that compiled: variables bound
 * and never used, variables of a fun head or a generator pattern that
 * shadow a variable bound outside, and functions that no exported function
 * reaches. Printed as erlc prints them, sorted by position:
 *
 *     file:4:3: Warning: variable 'X' is unused
 *     %    4| f(X) ->
 *     %     |   ^
 *
 * (then an empty line). Unsafe variables are errors, reported by check.c.
 *
 * Variables follow erl_lint's scoping closely enough for these warnings:
 * each binding is an instance (name, position, used); a name in a pattern
 * that is already visible is a use, not a new binding (`{Y, Y}` uses Y).
 * The clauses of a case, if, receive or try are checked from the same
 * starting scope; what they bind is afterwards one visible name standing
 * for every branch's instance, so a use after the construct marks them all.
 * A fun's clauses and a comprehension's qualifiers open a scope that is
 * dropped at their end. Lookups go through a hash on the interned name
 * pointers, so a function with thousands of variables costs time in
 * proportion to its size.
 */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frontend.h"

typedef struct Inst { const char *name; int line, col, used; } Inst;
/* a visible name: the instances it stands for, and the binding of the
 * same name it hides (-1: none) */
typedef struct Bind { const char *name; int *ids; int nids; int prev; } Bind;
typedef struct Warn { int line, col, seq; const char *msg; } Warn;

typedef struct W {
    Module *m;
    Inst *inst; int ninst, capinst;
    Bind *sc; int nsc, capsc;
    const char **hkey; int *hval; int hcap, hused;  /* name -> top Bind index */
    Warn *w; int nw, capw;
    /* local calls of the function being walked: (name, arity) */
    NameArity *calls; int ncalls, capcalls;
} W;

static void *grow(void *p, int n, int *cap, size_t elem) {
    if (n < *cap) return p;
    int ncap = *cap ? *cap * 2 : 16;
    void *np = GC_MALLOC(elem * (size_t)ncap);
    if (n) memcpy(np, p, elem * (size_t)n);
    *cap = ncap;
    return np;
}

/* fmt takes a string and then an int (either may be unused) */
static void warn(W *w, int line, int col, const char *fmt, const char *a, int n) {
    char buf[600];
    if (strstr(fmt, "%d")) snprintf(buf, sizeof buf, fmt, a, n);
    else snprintf(buf, sizeof buf, fmt, a);
    w->w = grow(w->w, w->nw, &w->capw, sizeof *w->w);
    w->w[w->nw] = (Warn){ line, col, w->nw, GC_STRDUP(buf) };
    w->nw++;
}

/* ---- the name index ---- */

static unsigned hslot(const W *w, const char *name) {
    uintptr_t h = (uintptr_t)name;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    unsigned i = (unsigned)(h >> 32) & (unsigned)(w->hcap - 1);
    while (w->hkey[i] && w->hkey[i] != name) i = (i + 1) & (unsigned)(w->hcap - 1);
    return i;
}

static void hset(W *w, const char *name, int v);

static void hgrow(W *w) {
    const char **ok = w->hkey; int *ov = w->hval; int oc = w->hcap;
    w->hcap = oc ? oc * 2 : 64;
    w->hkey = GC_MALLOC(sizeof *w->hkey * (size_t)w->hcap);
    w->hval = GC_MALLOC_ATOMIC(sizeof *w->hval * (size_t)w->hcap);
    for (int i = 0; i < oc; i++) if (ok[i]) hset(w, ok[i], ov[i]);
}

static void hset(W *w, const char *name, int v) {
    /* keys are never removed: a name's slot holds -1 once out of scope */
    if (w->hcap == 0 || 2 * (w->hused + 1) > w->hcap) { w->hused = 0; hgrow(w); }
    unsigned i = hslot(w, name);
    if (!w->hkey[i]) { w->hkey[i] = name; w->hused++; }
    w->hval[i] = v;
}

static int hget(const W *w, const char *name) {
    if (!w->hcap) return -1;
    unsigned i = hslot(w, name);
    return w->hkey[i] ? w->hval[i] : -1;
}

/* ---- scopes ---- */

static int new_inst(W *w, const Expr *v) {
    w->inst = grow(w->inst, w->ninst, &w->capinst, sizeof *w->inst);
    w->inst[w->ninst] = (Inst){ v->name, v->line, v->col, 0 };
    return w->ninst++;
}

static void push_bind(W *w, const char *name, int *ids, int nids) {
    w->sc = grow(w->sc, w->nsc, &w->capsc, sizeof *w->sc);
    w->sc[w->nsc] = (Bind){ name, ids, nids, hget(w, name) };
    hset(w, name, w->nsc);
    w->nsc++;
}

static void pop_to(W *w, int mark) {
    while (w->nsc > mark) {
        w->nsc--;
        hset(w, w->sc[w->nsc].name, w->sc[w->nsc].prev);
    }
}

static void use(W *w, int b) {
    for (int i = 0; i < w->sc[b].nids; i++) w->inst[w->sc[b].ids[i]].used = 1;
}

static void bind_new(W *w, const Expr *v) {
    int *ids = GC_MALLOC_ATOMIC(sizeof *ids);
    ids[0] = new_inst(w, v);
    push_bind(w, v->name, ids, 1);
}

/* ---- walking ---- */

static void expr(W *w, const Expr *e);
static void exprs(W *w, Expr *const *es, int n) { for (int i = 0; i < n; i++) expr(w, es[i]); }

/* A pattern. Names bound at or above `fresh` are this pattern's own; a
 * name visible from below it is a use, except in a fun head or a generator
 * (shadow != NULL), where it is a new binding that hides the outer one. */
static void pat(W *w, const Expr *p, int fresh, const char *shadow) {
    if (!p) return;
    switch (p->kind) {
    case E_VAR: {
        if (strcmp(p->name, "_") == 0) return;
        int b = hget(w, p->name);
        if (b >= 0 && (b >= fresh || !shadow)) { use(w, b); return; }
        if (b >= 0 && p->name[0] != '_') {
            char msg[600];
            snprintf(msg, sizeof msg, "variable '%s' shadowed in %s", p->name, shadow);
            warn(w, p->line, p->col, "%s", msg, 0);
        }
        bind_new(w, p);
        return;
    }
    case E_CONS: case E_MATCH: case E_BINOP:
        pat(w, p->a, fresh, shadow); pat(w, p->b, fresh, shadow); return;
    case E_TUPLE:
        for (int i = 0; i < p->n; i++) pat(w, p->elems[i], fresh, shadow);
        return;
    case E_RECORD:
        for (int i = 0; i < p->nfields; i++) pat(w, p->fields[i].value, fresh, shadow);
        return;
    case E_MAP:
        for (int i = 0; i < p->nfields; i++) {
            expr(w, p->fields[i].key);
            pat(w, p->fields[i].value, fresh, shadow);
        }
        return;
    case E_BIN:
        for (int i = 0; i < p->nfields; i++) {
            if (p->fields[i].size) expr(w, p->fields[i].size);   /* a use */
            pat(w, p->fields[i].value, fresh, shadow);
        }
        return;
    default:
        expr(w, p);   /* literals, `?`-free arithmetic: nothing binds */
        return;
    }
}

static void guard(W *w, const Guard *g) {
    if (!g) return;
    for (int i = 0; i < g->nalts; i++) exprs(w, g->alts[i].tests, g->alts[i].ntests);
}

/* One clause in the current scope: patterns, guard, body. */
static void clause_in_scope(W *w, const Clause *c, int fresh, const char *shadow) {
    for (int i = 0; i < c->npat; i++) pat(w, c->patterns[i], fresh, shadow);
    guard(w, c->guard);
    exprs(w, c->body, c->nbody);
}

/* Alternatives (case/if/receive/try clauses, or bodies): each from the
 * same scope; afterwards every name some branch bound is visible once,
 * standing for all of the branches' instances of it. */
typedef struct Alt { const Clause *c; Expr *const *body; int nbody; } Alt;

static void branches(W *w, const Alt *alts, int n) {
    int mark = w->nsc;
    Bind *got = NULL; int ngot = 0, capgot = 0;
    for (int k = 0; k < n; k++) {
        if (alts[k].c) clause_in_scope(w, alts[k].c, mark, NULL);
        else exprs(w, alts[k].body, alts[k].nbody);
        for (int i = mark; i < w->nsc; i++) {
            int j = 0;
            while (j < ngot && got[j].name != w->sc[i].name) j++;
            if (j == ngot) {
                got = grow(got, ngot, &capgot, sizeof *got);
                got[ngot++] = (Bind){ w->sc[i].name, NULL, 0, -1 };
            }
            int *ids = GC_MALLOC_ATOMIC(sizeof *ids * (size_t)(got[j].nids + w->sc[i].nids));
            if (got[j].nids) memcpy(ids, got[j].ids, sizeof *ids * (size_t)got[j].nids);
            if (w->sc[i].nids) memcpy(ids + got[j].nids, w->sc[i].ids, sizeof *ids * (size_t)w->sc[i].nids);
            got[j].ids = ids;
            got[j].nids += w->sc[i].nids;
        }
        pop_to(w, mark);
    }
    for (int j = 0; j < ngot; j++) push_bind(w, got[j].name, got[j].ids, got[j].nids);
}

static void clauses_as_branches(W *w, Clause *const *cs, int n, Expr *const *extra, int nextra) {
    Alt *alts = GC_MALLOC(sizeof *alts * (size_t)(n + 1));
    for (int i = 0; i < n; i++) alts[i] = (Alt){ cs[i], NULL, 0 };
    if (nextra) alts[n++] = (Alt){ NULL, extra, nextra };
    branches(w, alts, n);
}

static void note_call(W *w, const char *name, int arity) {
    w->calls = grow(w->calls, w->ncalls, &w->capcalls, sizeof *w->calls);
    w->calls[w->ncalls++] = (NameArity){ name, arity, 0, 0 };
}

static void comprehension(W *w, const Expr *e) {
    int mark = w->nsc;
    for (int i = 0; i < e->n; i++) {
        const Expr *q = e->elems[i];
        if (q->kind == E_GENERATOR) {
            expr(w, q->b);
            pat(w, q->a, w->nsc, "generate");
        } else {
            expr(w, q);
        }
    }
    expr(w, e->a);
    pop_to(w, mark);
}

static int is_fun2ms(const Expr *e) {
    return e->mod && e->mod->kind == E_ATOM && e->fun && e->fun->kind == E_ATOM &&
           (strcmp(e->mod->name, "ets") == 0 || strcmp(e->mod->name, "dbg") == 0) &&
           strcmp(e->fun->name, "fun2ms") == 0 && e->n == 1 && e->elems[0]->kind == E_FUN;
}

static void expr(W *w, const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case E_VAR: {
        int b = hget(w, e->name);
        if (b >= 0) use(w, b);
        return;
    }
    case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL:
        return;
    case E_MATCH:
        expr(w, e->b);
        pat(w, e->a, w->nsc, NULL);
        return;
    case E_CONS: case E_BINOP: case E_ANDALSO: case E_ORELSE: case E_GENERATOR:
        expr(w, e->a); expr(w, e->b);
        return;
    case E_UNOP: case E_CATCH:
        expr(w, e->a);
        return;
    case E_TUPLE:
        exprs(w, e->elems, e->n);
        return;
    case E_CALL:
        if (is_fun2ms(e)) {
            /* the fun becomes a match specification (ms_transform.c): its
             * variables are not variables, as erlc sees it after the
             * parse transform; the outer ones it names are still used */
            int first = w->ninst;
            expr(w, e->elems[0]);
            for (int i = first; i < w->ninst; i++) w->inst[i].used = 1;
            return;
        }
        if (e->fun) expr(w, e->fun);
        if (e->mod) expr(w, e->mod);
        if (!e->mod && !e->fun && e->name) note_call(w, e->name, e->n);
        exprs(w, e->elems, e->n);
        return;
    case E_FUNREF:
        if (!e->mod && e->name) note_call(w, e->name, e->arity);
        else expr(w, e->mod);
        return;
    case E_FUN:
        for (int i = 0; i < e->nclauses; i++) {
            int mark = w->nsc;
            if (e->name) {
                Expr self = *e;
                self.kind = E_VAR;
                pat(w, &self, mark, "'fun'");
                w->inst[w->ninst - 1].used = 1;   /* erlc does not ask a fun to call itself */
            }
            clause_in_scope(w, e->clauses[i], w->nsc, "'fun'");
            pop_to(w, mark);
        }
        return;
    case E_BLOCK:
        exprs(w, e->body ? e->body : e->elems, e->body ? e->nbody : e->n);
        return;
    case E_CASE:
        expr(w, e->a);
        clauses_as_branches(w, e->clauses, e->nclauses, NULL, 0);
        return;
    case E_IF:
        clauses_as_branches(w, e->clauses, e->nclauses, NULL, 0);
        return;
    case E_RECEIVE:
        expr(w, e->timeout);
        clauses_as_branches(w, e->clauses, e->nclauses, e->body, e->timeout ? e->nbody : 0);
        return;
    case E_TRY: {
        exprs(w, e->body, e->nbody);
        int n = e->nclauses + e->ncatches;
        Clause **cs = GC_MALLOC(sizeof *cs * (size_t)(n + 1));
        for (int i = 0; i < e->nclauses; i++) cs[i] = e->clauses[i];
        for (int i = 0; i < e->ncatches; i++) cs[e->nclauses + i] = e->catches[i];
        clauses_as_branches(w, cs, n, NULL, 0);
        exprs(w, e->after, e->nafter);
        return;
    }
    case E_LC: case E_BIN_LC:
        comprehension(w, e);
        return;
    case E_RECORD: case E_RECORD_UPDATE: case E_MAP: case E_MAP_UPDATE: case E_BIN:
        expr(w, e->a);
        for (int i = 0; i < e->nfields; i++) {
            expr(w, e->fields[i].key);
            expr(w, e->fields[i].value);
            expr(w, e->fields[i].size);
        }
        return;
    case E_RECORD_FIELD:
        expr(w, e->a);
        return;
    }
}

/* ---- functions no export reaches ---- */

static int find_fn(const Module *m, const char *name, int arity) {
    for (int i = 0; i < m->nfunctions; i++)
        if (m->functions[i]->name == name && m->functions[i]->arity == arity) return i;
    return -1;
}

static void unused_functions(W *w, NameArity **calls, int *ncalls) {
    Module *m = w->m;
    if (m->export_all) return;
    char *seen = GC_MALLOC_ATOMIC((size_t)m->nfunctions + 1);
    memset(seen, 0, (size_t)m->nfunctions + 1);
    int *stack = GC_MALLOC_ATOMIC(sizeof *stack * ((size_t)m->nfunctions + 1));
    int sp = 0;
    for (int i = 0; i < m->nexports; i++) {
        int f = find_fn(m, m->exports[i].name, m->exports[i].arity);
        if (f >= 0 && !seen[f]) { seen[f] = 1; stack[sp++] = f; }
    }
    while (sp) {
        int f = stack[--sp];
        for (int j = 0; j < ncalls[f]; j++) {
            int g = find_fn(m, calls[f][j].name, calls[f][j].arity);
            if (g >= 0 && !seen[g]) { seen[g] = 1; stack[sp++] = g; }
        }
    }
    for (int i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        if (seen[i] || f->name[0] == '-' || f->name[0] == '$') continue;
        warn(w, f->line, f->col, "function %s/%d is unused", f->name, f->arity);
    }
}

/* ---- printing ---- */

static int warn_cmp(const void *a, const void *b) {
    const Warn *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_warning(const Module *m, const Warn *x, FILE *to) {
    const char *p = m->src, *end = m->src ? m->src + m->srclen : NULL;
    int l = 1;
    while (p && p < end && l < x->line) if (*p++ == '\n') l++;
    const char *q = p;
    while (q && q < end && *q != '\n') q++;
    flockfile(to);
    fprintf(to, "%s:%d:%d: Warning: %s\n", m->file ? m->file : "nofile", x->line, x->col, x->msg);
    if (p && l == x->line) {
        fprintf(to, "%% %4d| %.*s\n%%     | ", x->line, (int)(q - p), p);
        for (int i = 1; i < x->col; i++) fputc(p[i - 1] == '\t' ? '\t' : ' ', to);
        fputs("^\n", to);
    }
    fputc('\n', to);
    fflush(to);
    funlockfile(to);
}

int warnings_module(Module *m, FILE *to) {
    W w;
    memset(&w, 0, sizeof w);
    w.m = m;
    NameArity **calls = GC_MALLOC(sizeof *calls * ((size_t)m->nfunctions + 1));
    int *ncalls = GC_MALLOC_ATOMIC(sizeof *ncalls * ((size_t)m->nfunctions + 1));
    for (int i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        w.calls = NULL; w.ncalls = w.capcalls = 0;
        for (int k = 0; k < f->nclauses; k++) {
            int first = w.ninst;
            clause_in_scope(&w, f->clauses[k], 0, NULL);
            pop_to(&w, 0);
            for (int j = first; j < w.ninst; j++) {
                const Inst *v = &w.inst[j];
                if (!v->used && v->name[0] != '_')
                    warn(&w, v->line, v->col, "variable '%s' is unused", v->name, 0);
            }
        }
        calls[i] = w.calls;
        ncalls[i] = w.ncalls;
    }
    unused_functions(&w, calls, ncalls);
    if (w.nw > 1) qsort(w.w, (size_t)w.nw, sizeof *w.w, warn_cmp);   /* w.w is NULL when there are none */
    for (int i = 0; i < w.nw; i++) print_warning(m, &w.w[i], to);
    return w.nw;
}
