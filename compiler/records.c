/* records.c — lowering records to tuples before code generation.
 *
 * A record is a tuple {Name, Field1, ..., FieldN} (Size = N + 1); everything
 * about records is decided here, at compile time, so the code generator and
 * the VM know nothing of them. The shapes follow OTP's erl_expand_records,
 * so that errors and evaluation order are Erlang's:
 *
 *   #r{f = V}            {r, ..., V, ...}; unset fields take their default,
 *                        or `undefined`; `_ = V` sets every unnamed field
 *   pattern #r{f = P}    {r, _, P, _}  (`_ = P` puts P in every unnamed field)
 *   #r.f                 the field's index (an integer), also in patterns
 *   R#r.f (body)         case R of {r,_,V,_} -> V; T -> error({badrecord,T}) end
 *   R#r{f = V} (body)    the new values are bound first (Erlang evaluates them
 *                        before R), then case R of {r,A,_,C} -> {r,A,V,C};
 *                        T -> error({badrecord,T}) end
 *   in a guard           R#r.f is element(I, R) and R#r{...} a tuple of
 *                        element() calls; the guard test containing them
 *                        (or the andalso/orelse operand) becomes
 *                        is_record(R, r, Size) andalso Test, so a non-record
 *                        makes that test false, as in OTP
 *   is_record(X, r)      is_record(X, r, Size);  record(X, r) likewise
 *   record_info(fields, r) / record_info(size, r)   constants
 *
 * The checker (check.c) has already reported unknown records and fields, so
 * lookups here cannot fail on a module that reached code generation. Nodes
 * are rewritten in place or replaced through the parent's slot; default
 * values are lowered once and then shared (the code generator never mutates
 * the tree). Long lists are walked along their tails iteratively.
 */
#include <stdio.h>
#include <string.h>

#include "records.h"
#include "ms_transform.h"

enum { C_EXPR, C_PAT, C_GUARD };

typedef struct Lower {
    Module *m;
    int fresh;                       /* counter for generated variable names */
    Expr **pending; int npending, cappending;   /* is_record tests of the current guard test */
} Lower;

static Expr *lower(Lower *L, Expr *e, int ctx);

/* ---- building nodes ---- */

static const char *intern(const char *s) { return ast_intern(s, strlen(s)); }

static Expr *mk_atom(const char *name, int line, int col) {
    Expr *e = ast_expr(E_ATOM, line, col);
    e->name = intern(name);
    return e;
}

static Expr *mk_int(int64_t v, int line, int col) {
    Expr *e = ast_expr(E_INT, line, col);
    e->ival = v;
    return e;
}

static Expr *mk_var(const char *name, int line, int col) {
    Expr *e = ast_expr(E_VAR, line, col);
    e->name = intern(name);
    return e;
}

/* A variable no source program can name (names never contain '%'). */
static Expr *fresh_var(Lower *L, int line, int col) {
    char buf[32];
    snprintf(buf, sizeof buf, "%%rec%d", ++L->fresh);
    return mk_var(buf, line, col);
}

static Expr **new_exprs(int n) { return ast_alloc(sizeof(Expr *) * (size_t)(n > 0 ? n : 1)); }

static Expr *mk_tuple(Expr **elems, int n, int line, int col) {
    Expr *e = ast_expr(E_TUPLE, line, col);
    e->elems = elems; e->n = n;
    return e;
}

static Expr *mk_tuple2(Expr *a, Expr *b, int line, int col) {
    Expr **el = new_exprs(2);
    el[0] = a; el[1] = b;
    return mk_tuple(el, 2, line, col);
}

/* erlang:Name(args) */
static Expr *mk_erl_call(const char *name, Expr **args, int n, int line, int col) {
    Expr *e = ast_expr(E_CALL, line, col);
    e->mod = mk_atom("erlang", line, col);
    e->fun = mk_atom(name, line, col);
    e->elems = args; e->n = n; e->arity = n;
    return e;
}

static Clause *mk_clause(Expr *pat, Expr *body, int line, int col) {
    Clause *c = ast_alloc(sizeof *c);
    c->line = line; c->col = col;
    c->patterns = new_exprs(1); c->patterns[0] = pat; c->npat = 1;
    c->body = new_exprs(1); c->body[0] = body; c->nbody = 1;
    return c;
}

static Expr *mk_andalso(Expr *a, Expr *b) {
    Expr *e = ast_expr(E_ANDALSO, a->line, a->col);
    e->a = a; e->b = b;
    return e;
}

/* ---- record definitions ---- */

static RecordDef *find_record(Lower *L, const char *name) {
    for (int i = 0; i < L->m->nrecords; i++)
        if (L->m->records[i].name == name) return &L->m->records[i];
    return NULL;
}

/* 1-based position of the field in the record's fields, or 0. */
static int field_pos(const RecordDef *r, const char *field) {
    for (int i = 0; i < r->nfields; i++)
        if (r->fields[i].name == field) return i + 1;
    return 0;
}

static int is_wild_field(const Field *f) { return f->name[0] == '_' && f->name[1] == 0; }

/* The value given to field i (0-based) in a record expression, or NULL. */
static Expr *given(Expr *e, const RecordDef *r, int i, Expr **all) {
    *all = NULL;
    Expr *v = NULL;
    for (int k = 0; k < e->nfields; k++) {
        Field *f = &e->fields[k];
        if (is_wild_field(f)) *all = f->value;
        else if (f->name == r->fields[i].name) v = f->value;
    }
    return v;
}

/* ---- the forms ---- */

static void add_pending(Lower *L, Expr *test) {
    if (L->npending == L->cappending) {
        int nc = L->cappending ? L->cappending * 2 : 8;
        Expr **n = new_exprs(nc);
        if (L->npending) memcpy(n, L->pending, sizeof(Expr *) * (size_t)L->npending);
        L->pending = n; L->cappending = nc;
    }
    L->pending[L->npending++] = test;
}

static Expr *is_record3(Expr *x, const RecordDef *r, int line, int col) {
    Expr **args = new_exprs(3);
    args[0] = x;
    args[1] = mk_atom(r->name, line, col);
    args[2] = mk_int(r->nfields + 1, line, col);
    return mk_erl_call("is_record", args, 3, line, col);
}

/* error({badrecord, T}) */
static Expr *badrecord(Expr *t, int line, int col) {
    Expr **args = new_exprs(1);
    args[0] = mk_tuple2(mk_atom("badrecord", line, col), t, line, col);
    return mk_erl_call("error", args, 1, line, col);
}

/* #r{...} (construction or pattern) */
static Expr *lower_record(Lower *L, Expr *e, const RecordDef *r, int ctx) {
    int n = r->nfields;
    Expr **el = new_exprs(n + 1);
    el[0] = mk_atom(r->name, e->line, e->col);
    for (int i = 0; i < n; i++) {
        Expr *all, *v = given(e, r, i, &all);
        if (v) v = lower(L, v, ctx);
        else if (all) v = lower(L, all, ctx);
        else if (ctx == C_PAT) v = mk_var("_", e->line, e->col);
        else if (r->fields[i].value) v = r->fields[i].value;     /* lowered up front */
        else v = mk_atom("undefined", e->line, e->col);
        el[i + 1] = v;
    }
    return mk_tuple(el, n + 1, e->line, e->col);
}

static int simple(Expr *e) {
    switch (e->kind) {
    case E_VAR: case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: return 1;
    default: return 0;
    }
}

/* R#r{f = V, ...} */
static Expr *lower_update(Lower *L, Expr *e, const RecordDef *r, int ctx) {
    int n = r->nfields, line = e->line, col = e->col;
    Expr *rec = lower(L, e->a, ctx);
    Expr **vals = new_exprs(n);
    Expr **pre = new_exprs(e->nfields + 1);
    int npre = 0;
    for (int i = 0; i < n; i++) {
        Expr *all, *v = given(e, r, i, &all);
        if (!v) continue;
        v = lower(L, v, ctx);
        if (ctx != C_GUARD && !simple(v)) {           /* evaluated before R, in field order */
            Expr *t = fresh_var(L, v->line, v->col);
            Expr *m = ast_expr(E_MATCH, v->line, v->col);
            m->a = t; m->b = v;
            pre[npre++] = m;
            v = t;
        }
        vals[i] = v;
    }
    Expr **out = new_exprs(n + 1);
    out[0] = mk_atom(r->name, line, col);
    if (ctx == C_GUARD) {
        for (int i = 0; i < n; i++) {
            if (vals[i]) { out[i + 1] = vals[i]; continue; }
            Expr **args = new_exprs(2);
            args[0] = mk_int(i + 2, line, col); args[1] = rec;
            out[i + 1] = mk_erl_call("element", args, 2, line, col);
        }
        add_pending(L, is_record3(rec, r, line, col));
        return mk_tuple(out, n + 1, line, col);
    }
    Expr **pat = new_exprs(n + 1);
    pat[0] = mk_atom(r->name, line, col);
    for (int i = 0; i < n; i++) {
        if (vals[i]) { pat[i + 1] = mk_var("_", line, col); out[i + 1] = vals[i]; continue; }
        Expr *v = fresh_var(L, line, col);
        pat[i + 1] = v; out[i + 1] = v;
    }
    Expr *other = fresh_var(L, line, col);
    Expr *c = ast_expr(E_CASE, line, col);
    c->a = rec;
    c->clauses = ast_alloc(sizeof(Clause *) * 2); c->nclauses = 2;
    c->clauses[0] = mk_clause(mk_tuple(pat, n + 1, line, col), mk_tuple(out, n + 1, line, col), line, col);
    c->clauses[1] = mk_clause(other, badrecord(other, line, col), line, col);
    if (!npre) return c;
    pre[npre++] = c;
    Expr *b = ast_expr(E_BLOCK, line, col);
    b->body = b->elems = pre; b->nbody = b->n = npre;
    return b;
}

/* R#r.f and #r.f */
static Expr *lower_field(Lower *L, Expr *e, const RecordDef *r, int ctx) {
    int line = e->line, col = e->col;
    int pos = field_pos(r, e->fields[0].name);
    if (!e->a) return mk_int(pos + 1, line, col);
    Expr *rec = lower(L, e->a, ctx);
    if (ctx == C_GUARD) {
        Expr **args = new_exprs(2);
        args[0] = mk_int(pos + 1, line, col); args[1] = rec;
        add_pending(L, is_record3(rec, r, line, col));
        return mk_erl_call("element", args, 2, line, col);
    }
    int n = r->nfields;
    Expr **pat = new_exprs(n + 1);
    pat[0] = mk_atom(r->name, line, col);
    Expr *v = fresh_var(L, line, col);
    for (int i = 0; i < n; i++) pat[i + 1] = i + 1 == pos ? v : mk_var("_", line, col);
    Expr *other = fresh_var(L, line, col);
    Expr *c = ast_expr(E_CASE, line, col);
    c->a = rec;
    c->clauses = ast_alloc(sizeof(Clause *) * 2); c->nclauses = 2;
    c->clauses[0] = mk_clause(mk_tuple(pat, n + 1, line, col), v, line, col);
    c->clauses[1] = mk_clause(other, badrecord(other, line, col), line, col);
    return c;
}

/* record_info/2, is_record/2 and record/2 (guard) with a known record. */
static Expr *lower_call(Lower *L, Expr *e, int ctx) {
    /* ets:fun2ms(fun ... end): the fun's records are lowered by now */
    Expr *ms = ms_transform_call(e);
    if (ms != e) return ms;
    const char *name = NULL;
    if (!e->mod && !e->fun) name = e->name;
    else if (e->mod && e->mod->kind == E_ATOM && !strcmp(e->mod->name, "erlang") &&
             e->fun && e->fun->kind == E_ATOM)
        name = e->fun->name;
    if (!name || e->n != 2) return e;
    Expr *a0 = e->elems[0], *a1 = e->elems[1];
    if (!e->mod && !strcmp(name, "record_info") && a0->kind == E_ATOM && a1->kind == E_ATOM) {
        RecordDef *r = find_record(L, a1->name);
        if (!r) return e;
        if (!strcmp(a0->name, "size")) return mk_int(r->nfields + 1, e->line, e->col);
        if (!strcmp(a0->name, "fields")) {
            Expr *l = ast_expr(E_NIL, e->line, e->col);
            for (int i = r->nfields - 1; i >= 0; i--) {
                Expr *c = ast_expr(E_CONS, e->line, e->col);
                c->a = mk_atom(r->fields[i].name, e->line, e->col);
                c->b = l;
                l = c;
            }
            return l;
        }
        return e;
    }
    if ((!strcmp(name, "is_record") || (!e->mod && ctx == C_GUARD && !strcmp(name, "record"))) &&
        a1->kind == E_ATOM) {
        RecordDef *r = find_record(L, a1->name);
        if (r) return is_record3(a0, r, e->line, e->col);
    }
    return e;
}

/* ---- walking the tree ---- */

static void lower_clause(Lower *L, Clause *c);
static Expr *lower_guard_test(Lower *L, Expr *t);

static void lower_clauses(Lower *L, Clause **cs, int n) {
    for (int i = 0; i < n; i++) lower_clause(L, cs[i]);
}

static void lower_list(Lower *L, Expr **es, int n, int ctx) {
    for (int i = 0; i < n; i++) if (es[i]) es[i] = lower(L, es[i], ctx);
}

/* One guard test: is_record checks found inside come first (andalso). */
static Expr *lower_guard_test(Lower *L, Expr *t) {
    int save = L->npending;
    t = lower(L, t, C_GUARD);
    for (int i = L->npending - 1; i >= save; i--) t = mk_andalso(L->pending[i], t);
    L->npending = save;
    return t;
}

static void lower_clause(Lower *L, Clause *c) {
    for (int i = 0; i < c->npat; i++) if (c->patterns[i]) c->patterns[i] = lower(L, c->patterns[i], C_PAT);
    if (c->guard)
        for (int a = 0; a < c->guard->nalts; a++) {
            struct GuardAlt *alt = &c->guard->alts[a];
            for (int t = 0; t < alt->ntests; t++) alt->tests[t] = lower_guard_test(L, alt->tests[t]);
        }
    lower_list(L, c->body, c->nbody, C_EXPR);
}

static Expr *lower(Lower *L, Expr *e, int ctx) {
    if (!e) return e;
    int sub = ctx == C_PAT ? C_PAT : ctx;        /* context of ordinary children */
    switch (e->kind) {
    case E_VAR: case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL: case E_FUNREF:
        return e;
    case E_CONS: {
        Expr *c = e;
        for (;;) {
            c->a = lower(L, c->a, sub);
            if (c->b && c->b->kind == E_CONS) { c = c->b; continue; }
            c->b = lower(L, c->b, sub);
            break;
        }
        return e;
    }
    case E_TUPLE: lower_list(L, e->elems, e->n, sub); return e;
    case E_MATCH:
        e->a = lower(L, e->a, C_PAT);
        e->b = lower(L, e->b, sub);
        return e;
    case E_ANDALSO: case E_ORELSE:
        if (ctx == C_GUARD) {            /* each operand is a test of its own */
            e->a = lower_guard_test(L, e->a);
            e->b = lower_guard_test(L, e->b);
            return e;
        }
        /* fall through */
    case E_BINOP: case E_UNOP:
        e->a = lower(L, e->a, sub);
        e->b = lower(L, e->b, sub);
        return e;
    case E_CALL:
        e->mod = lower(L, e->mod, sub);
        e->fun = lower(L, e->fun, sub);
        lower_list(L, e->elems, e->n, sub);
        return lower_call(L, e, ctx);
    case E_FUN: lower_clauses(L, e->clauses, e->nclauses); return e;
    case E_BLOCK:
        lower_list(L, e->body, e->nbody, C_EXPR);
        if (e->elems && e->elems != e->body) lower_list(L, e->elems, e->n, C_EXPR);
        return e;
    case E_CASE: case E_IF: case E_RECEIVE: case E_TRY: case E_CATCH:
        e->a = lower(L, e->a, C_EXPR);
        lower_clauses(L, e->clauses, e->nclauses);
        lower_clauses(L, e->catches, e->ncatches);
        lower_list(L, e->body, e->nbody, C_EXPR);
        lower_list(L, e->after, e->nafter, C_EXPR);
        e->timeout = lower(L, e->timeout, C_EXPR);
        return e;
    case E_LC: case E_BIN_LC:
        e->a = lower(L, e->a, C_EXPR);
        e->b = lower(L, e->b, C_EXPR);
        lower_list(L, e->elems, e->n, C_EXPR);
        return e;
    case E_GENERATOR:
        e->a = lower(L, e->a, C_PAT);
        e->b = lower(L, e->b, C_EXPR);
        return e;
    case E_MAP: case E_MAP_UPDATE: case E_BIN:
        e->a = lower(L, e->a, sub);
        for (int i = 0; i < e->nfields; i++) {
            Field *f = &e->fields[i];
            f->key = lower(L, f->key, ctx == C_PAT ? C_GUARD : sub);
            f->value = lower(L, f->value, sub);
            f->size = lower(L, f->size, ctx == C_PAT ? C_GUARD : sub);
        }
        return e;
    case E_RECORD: case E_RECORD_UPDATE: case E_RECORD_FIELD: {
        RecordDef *r = find_record(L, e->name);
        if (!r) return e;                        /* the checker reported it */
        if (e->kind == E_RECORD) return lower_record(L, e, r, ctx);
        if (e->kind == E_RECORD_UPDATE) return lower_update(L, e, r, ctx);
        return lower_field(L, e, r, ctx);
    }
    }
    return e;
}

void records_lower(Module *m) {
    Lower L;
    memset(&L, 0, sizeof L);
    L.m = m;
    /* defaults first: they may use other records, and are then shared */
    for (int i = 0; i < m->nrecords; i++)
        for (int k = 0; k < m->records[i].nfields; k++)
            m->records[i].fields[k].value = lower(&L, m->records[i].fields[k].value, C_EXPR);
    for (int i = 0; i < m->nfunctions; i++) {
        Function *f = m->functions[i];
        lower_clauses(&L, f->clauses, f->nclauses);
    }
}
