/* ets_match.c — match specifications: [{Pattern, Guards, Body}].
 *
 * ets_ms_compile checks a specification as OTP does (badarg for a variable
 * used but not bound by the pattern, an unknown guard function, a malformed
 * clause) and translates it into a private arena where every special atom
 * became a marker word: '$N' a variable number, '_' a wildcard, '$_' and
 * '$$', and a call {F, A...} a marker holding its BIF's index. A marker is a
 * word with primary tag 00, which no term element ever is, so running a
 * clause never looks at atom text. Guard calls run the VM's own guard BIFs
 * (bif_table): their results are built on the caller's heap, which is
 * garbage unless the body returns it; anything the body builds (tuples,
 * lists) goes into a scratch arena reset per object, and the caller copies
 * the result out. A guard that raises fails the clause; a body that raises
 * gives 'EXIT', as in OTP.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "ets.h"
#include "atom.h"
#include "bif.h"
#include "compare.h"
#include "print.h"

enum { M_VAR = 1, M_ANY, M_ALL, M_VARS, M_CALL, M_ANDALSO, M_ORELSE, M_CONST, M_TUPLE, M_SELF };
#define MARK(kind, val) (((Term)(val) << 8) | ((Term)(kind) << 2))
#define is_mark(t) (primary_tag(t) == TAG_HEADER)
#define mark_kind(t) (((t) >> 2) & 0x3F)
#define mark_val(t) ((t) >> 8)

/* A chunked bump allocator: objects never move. */
typedef struct Chunk { struct Chunk *next; size_t used, cap; Term w[]; } Chunk;
typedef struct Arena { Chunk *head; } Arena;

static Term *arena_alloc(Arena *a, size_t n)
{
    Chunk *c = a->head;
    if (!c || c->used + n > c->cap) {
        size_t cap = n > 1024 ? n : 1024;
        c = malloc(sizeof *c + cap * sizeof(Term));
        if (!c) return NULL;
        c->next = a->head; c->used = 0; c->cap = cap;
        a->head = c;
    }
    Term *r = c->w + c->used;
    c->used += n;
    return r;
}

static void arena_reset(Arena *a)
{
    /* keep the newest chunk, free the rest */
    Chunk *c = a->head;
    if (!c) return;
    for (Chunk *d = c->next, *nx; d; d = nx) { nx = d->next; free(d); }
    c->next = NULL;
    c->used = 0;
}

static void arena_free(Arena *a)
{
    for (Chunk *c = a->head, *nx; c; c = nx) { nx = c->next; free(c); }
    a->head = NULL;
}

typedef struct Clause { Term pat, guards, body; } Clause;

struct EtsMs {
    int nclauses, nvars;
    Clause *cl;
    Arena code, scratch;
    Term *vars;                  /* nvars bindings (THE_NON_VALUE: unbound) */
    int failed;                  /* compile error                           */
    int oom;                     /* ... because memory ran out              */
};

/* Compiling failed for want of memory, not for a malformed specification. */
static void comp_oom(EtsMs *ms)
{
    ms->failed = 1;
    ms->oom = 1;
}

/* ---- compiling ---- */

/* '$N' -> N, '_' -> -2, '$_' -> -3, '$$' -> -4, else -1 */
static long special_atom(Term a)
{
    size_t len;
    const char *s = atom_name(a, &len);
    if (len == 1 && s[0] == '_') return -2;
    if (len < 2 || s[0] != '$') return -1;
    if (len == 2 && s[1] == '_') return -3;
    if (len == 2 && s[1] == '$') return -4;
    long n = 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || n > 100000000) return -1;
        n = n * 10 + (s[i] - '0');
    }
    return n;
}

typedef struct Comp {
    EtsMs *ms;
    unsigned char *bound;        /* per variable number, in this clause    */
    long maxvar;
    OutBuf *why;                 /* NULL, or where OTP's message goes      */
} Comp;

/* Marks the compile failed, with erlang:match_spec_test's message (the
 * first failure's; printf-shaped, and a term printed as ~p when t is one). */
static void comp_fail(Comp *c, const char *msg, Term t)
{
    if (c->why && !c->ms->failed) {
        if (t != THE_NON_VALUE) {
            print_term(c->why, t, PRINT_PRINT);
            ob_puts(c->why, " is neither a function call, nor a tuple (tuples are written {{ ... }}).");
        } else {
            ob_puts(c->why, msg);
        }
    }
    c->ms->failed = 1;
}

static void note_var(Comp *c, long n)
{
    if (n > c->maxvar) {
        unsigned char *b = realloc(c->bound, (size_t)n + 1);
        if (!b) { comp_oom(c->ms); return; }
        memset(b + c->maxvar + 1, 0, (size_t)(n - c->maxvar));
        c->bound = b;
        c->maxvar = n;
    }
    c->bound[n] = 1;
}

/* The pattern with its variables marked; binds them. */
static Term comp_pat(Comp *c, Term t)
{
    if (c->ms->failed) return t;
    if (is_atom(t)) {
        long n = special_atom(t);
        if (n >= 0) { note_var(c, n); return MARK(M_VAR, n); }
        if (n == -2) return MARK(M_ANY, 0);
        return t;
    }
    if (is_list(t)) {
        Term *hp = arena_alloc(&c->ms->code, 2);
        if (!hp) { comp_oom(c->ms); return t; }
        hp[0] = comp_pat(c, list_head(t));
        hp[1] = comp_pat(c, list_tail(t));
        return make_list(hp);
    }
    if (is_tuple(t)) {
        UWord n = tuple_arity(t);
        Term *hp = arena_alloc(&c->ms->code, n + 1);
        if (!hp) { comp_oom(c->ms); return t; }
        hp[0] = make_tuple_header(n);
        for (UWord i = 0; i < n; i++) hp[i + 1] = comp_pat(c, tuple_elems(t)[i]);
        return make_boxed(hp);
    }
    return t;
}

/* A guard or body expression, with calls resolved. */
static Term comp_expr(Comp *c, Term t)
{
    EtsMs *ms = c->ms;
    if (ms->failed) return t;
    if (is_atom(t)) {
        long n = special_atom(t);
        if (n >= 0) {
            if (n > c->maxvar || !c->bound[n]) {
                char m[64];
                snprintf(m, sizeof m, "Variable $%ld is unbound.", n);
                comp_fail(c, m, THE_NON_VALUE);
                return t;
            }
            return MARK(M_VAR, n);
        }
        if (n == -3) return MARK(M_ALL, 0);
        if (n == -4) return MARK(M_VARS, 0);
        return t;
    }
    if (is_list(t)) {
        Term *hp = arena_alloc(&ms->code, 2);
        if (!hp) { comp_oom(ms); return t; }
        hp[0] = comp_expr(c, list_head(t));
        hp[1] = comp_expr(c, list_tail(t));
        return make_list(hp);
    }
    if (!is_tuple(t)) return t;
    UWord n = tuple_arity(t);
    Term *e = tuple_elems(t);
    if (n == 0) { comp_fail(c, NULL, t); return t; }
    Term *hp = arena_alloc(&ms->code, n + 1);
    if (!hp) { comp_oom(ms); return t; }
    hp[0] = make_tuple_header(n);
    if (n == 1 && is_tuple(e[0])) {                  /* {{...}}: a tuple */
        UWord m = tuple_arity(e[0]);
        Term *tp = arena_alloc(&ms->code, m + 2);
        if (!tp) { comp_oom(ms); return t; }
        tp[0] = make_tuple_header(m + 1);
        tp[1] = MARK(M_TUPLE, 0);
        for (UWord i = 0; i < m; i++) tp[i + 2] = comp_expr(c, tuple_elems(e[0])[i]);
        return make_boxed(tp);
    }
    if (!is_atom(e[0])) { comp_fail(c, NULL, t); return t; }
    size_t len;
    const char *name = atom_name(e[0], &len);
    if (n == 2 && !strcmp(name, "const")) {
        hp[1] = MARK(M_CONST, 0);
        hp[2] = e[1];
        return make_boxed(hp);
    }
    int arity = (int)n - 1;
    if (!strcmp(name, "andalso") || !strcmp(name, "orelse")) {
        if (arity < 1) { comp_fail(c, "Function andalso/0 does_not_exist.", THE_NON_VALUE); return t; }
        hp[1] = MARK(name[0] == 'a' ? M_ANDALSO : M_ORELSE, 0);
    } else if (!strcmp(name, "self") && arity == 0) {
        hp[1] = MARK(M_SELF, 0);
    } else {
        int b = bif_lookup("erlang", name, arity);
        if (b < 0 || !bif_table[b].guard) {
            char m[300];
            snprintf(m, sizeof m, "Function %.*s/%d does_not_exist.", (int)len, name, arity);
            comp_fail(c, m, THE_NON_VALUE);
            return t;
        }
        hp[1] = MARK(M_CALL, b);
    }
    for (UWord i = 1; i < n; i++) hp[i + 1] = comp_expr(c, e[i]);
    return make_boxed(hp);
}

EtsMs *ets_ms_compile(Term spec, int *oom) { return ets_ms_compile_ex(spec, 0, NULL, oom); }

EtsMs *ets_ms_compile_ex(Term spec, int any_pattern, OutBuf *why, int *oom)
{
    if (oom) *oom = 0;
    long len = 0;
    Term l = spec;
    for (; is_list(l); l = list_tail(l)) len++;
    if (!is_nil(l)) { if (why) ob_puts(why, "Match programs are not in a list."); return NULL; }
    EtsMs *ms = calloc(1, sizeof *ms);
    if (!ms) { if (oom) *oom = 1; return NULL; }
    ms->cl = calloc((size_t)(len ? len : 1), sizeof *ms->cl);
    Comp c = { ms, NULL, -1, why };
    if (!ms->cl) comp_oom(ms);
    long maxvar = -1;
    for (l = spec; !ms->failed && is_list(l); l = list_tail(l)) {
        Term cl = list_head(l);
        if (!is_tuple(cl) || tuple_arity(cl) != 3) {
            comp_fail(&c, "Match program part is not a tuple of arity 3.", THE_NON_VALUE);
            break;
        }
        Term pat = tuple_elems(cl)[0], g = tuple_elems(cl)[1], b = tuple_elems(cl)[2];
        /* a table's objects are tuples: another pattern is an error in a
         * select, and matches nothing in test_ms and match_spec_run */
        if (!any_pattern && !(is_tuple(pat) || is_atom(pat))) { ms->failed = 1; break; }
        if (c.bound) memset(c.bound, 0, (size_t)c.maxvar + 1);
        Clause *k = &ms->cl[ms->nclauses++];
        k->pat = comp_pat(&c, pat);
        Term x;
        for (x = g; is_list(x); x = list_tail(x)) ;
        if (!is_nil(x)) { comp_fail(&c, "Match expression is not a list.", THE_NON_VALUE); break; }
        for (x = b; is_list(x); x = list_tail(x)) ;
        if (!is_nil(x) || is_nil(b)) { comp_fail(&c, "Body clause does not return anything.", THE_NON_VALUE); break; }
        k->guards = comp_expr(&c, g);
        k->body = comp_expr(&c, b);
        if (c.maxvar > maxvar) maxvar = c.maxvar;
    }
    free(c.bound);
    if (ms->failed) {
        if (oom) *oom = ms->oom;
        ets_ms_free(ms);
        return NULL;
    }
    ms->nvars = (int)maxvar + 1;
    ms->vars = malloc(sizeof(Term) * (size_t)(ms->nvars ? ms->nvars : 1));
    if (!ms->vars) {
        if (oom) *oom = 1;
        ets_ms_free(ms);
        return NULL;
    }
    return ms;
}

void ets_ms_free(EtsMs *ms)
{
    if (!ms) return;
    arena_free(&ms->code);
    arena_free(&ms->scratch);
    free(ms->cl);
    free(ms->vars);
    free(ms);
}

/* ---- running ---- */

static int match(EtsMs *ms, Term pat, Term t)
{
    for (;;) {
        if (is_mark(pat)) {
            if (mark_kind(pat) == M_ANY) return 1;
            Term *v = &ms->vars[mark_val(pat)];
            if (*v == THE_NON_VALUE) { *v = t; return 1; }
            return term_eq_exact(*v, t);
        }
        if (is_list(pat)) {
            if (!is_list(t)) return 0;
            if (!match(ms, list_head(pat), list_head(t))) return 0;
            pat = list_tail(pat); t = list_tail(t);
            continue;
        }
        if (is_tuple(pat)) {
            if (!is_tuple(t) || tuple_arity(t) != tuple_arity(pat)) return 0;
            UWord n = tuple_arity(pat);
            if (n == 0) return 1;
            for (UWord i = 0; i + 1 < n; i++)
                if (!match(ms, tuple_elems(pat)[i], tuple_elems(t)[i])) return 0;
            pat = tuple_elems(pat)[n - 1]; t = tuple_elems(t)[n - 1];
            continue;
        }
        return pat == t || term_eq_exact(pat, t);
    }
}

/* THE_NON_VALUE when it raised (p's exception is cleared). */
static Term eval(Process *p, EtsMs *ms, Term e, Term obj)
{
    if (is_mark(e)) {
        switch (mark_kind(e)) {
        case M_VAR: return ms->vars[mark_val(e)];
        case M_ALL: return obj;
        case M_VARS: {
            Term l = NIL;
            for (int i = ms->nvars - 1; i >= 0; i--) {
                if (ms->vars[i] == THE_NON_VALUE) continue;
                Term *hp = arena_alloc(&ms->scratch, 2);
                if (!hp) return THE_NON_VALUE;
                hp[0] = ms->vars[i]; hp[1] = l;
                l = make_list(hp);
            }
            return l;
        }
        default: return e;
        }
    }
    if (is_list(e)) {
        Term h = eval(p, ms, list_head(e), obj);
        if (h == THE_NON_VALUE) return h;
        Term tl = eval(p, ms, list_tail(e), obj);
        if (tl == THE_NON_VALUE) return tl;
        Term *hp = arena_alloc(&ms->scratch, 2);
        if (!hp) return THE_NON_VALUE;
        hp[0] = h; hp[1] = tl;
        return make_list(hp);
    }
    if (!is_tuple(e) || tuple_arity(e) == 0 || !is_mark(tuple_elems(e)[0])) return e;
    Term *el = tuple_elems(e);
    UWord n = tuple_arity(e);
    Term head = el[0];
    switch (mark_kind(head)) {
    case M_CONST: return el[1];
    case M_SELF: return p->pid;
    case M_TUPLE: {
        Term *hp = arena_alloc(&ms->scratch, n);
        if (!hp) return THE_NON_VALUE;
        hp[0] = make_tuple_header(n - 1);
        for (UWord i = 1; i < n; i++) {
            hp[i] = eval(p, ms, el[i], obj);
            if (hp[i] == THE_NON_VALUE) return THE_NON_VALUE;
        }
        return make_boxed(hp);
    }
    case M_ANDALSO:
    case M_ORELSE: {
        int and = mark_kind(head) == M_ANDALSO;
        for (UWord i = 1; i < n; i++) {
            Term v = eval(p, ms, el[i], obj);
            if (v == THE_NON_VALUE) return v;
            if (v == (and ? AM_false : AM_true)) return v;
            if (v != (and ? AM_true : AM_false)) return THE_NON_VALUE;
        }
        return and ? AM_true : AM_false;
    }
    case M_CALL: {
        Term args[8];
        if (n - 1 > 8) return THE_NON_VALUE;
        for (UWord i = 1; i < n; i++) {
            args[i - 1] = eval(p, ms, el[i], obj);
            if (args[i - 1] == THE_NON_VALUE) return THE_NON_VALUE;
        }
        Term r = bif_table[mark_val(head)].fn(p, args);
        if (r == THE_NON_VALUE) { p->exc_class = 0; p->exc_reason = THE_NON_VALUE; p->exc_trace = THE_NON_VALUE; }
        return r;
    }
    default: return e;
    }
}

int ets_ms_run(Process *p, EtsMs *ms, Term obj, Term *result)
{
    arena_reset(&ms->scratch);
    for (int c = 0; c < ms->nclauses; c++) {
        Clause *k = &ms->cl[c];
        for (int i = 0; i < ms->nvars; i++) ms->vars[i] = THE_NON_VALUE;
        if (!match(ms, k->pat, obj)) continue;
        int ok = 1;
        for (Term g = k->guards; ok && is_list(g); g = list_tail(g))
            if (eval(p, ms, list_head(g), obj) != AM_true) ok = 0;
        if (!ok) continue;
        Term r = AM_true;
        for (Term b = k->body; is_list(b); b = list_tail(b)) {
            r = eval(p, ms, list_head(b), obj);
            if (r == THE_NON_VALUE) { r = ATOM_TERM(EXIT); break; }
        }
        *result = r;
        return 1;
    }
    return 0;
}

/* A pattern term with no marker in it: a constant. */
static int ground(Term t)
{
    for (;;) {
        if (is_mark(t)) return 0;
        if (is_list(t)) { if (!ground(list_head(t))) return 0; t = list_tail(t); continue; }
        if (is_tuple(t)) {
            for (UWord i = 0; i < tuple_arity(t); i++) if (!ground(tuple_elems(t)[i])) return 0;
            return 1;
        }
        return 1;
    }
}

Term ets_ms_bound_key(EtsMs *ms, int keypos)
{
    Term key = THE_NON_VALUE;
    for (int c = 0; c < ms->nclauses; c++) {
        Term pat = ms->cl[c].pat;
        if (!is_tuple(pat) || (int)tuple_arity(pat) < keypos) return THE_NON_VALUE;
        Term k = tuple_elems(pat)[keypos - 1];
        if (!ground(k)) return THE_NON_VALUE;
        if (key != THE_NON_VALUE && !term_eq_exact(key, k)) return THE_NON_VALUE;
        key = k;
    }
    return key;
}
