/* codegen_match.c — patterns and guards.
 *
 * A pattern is matched against one operand (register or literal) by a series
 * of tests that jump to the fail label; sub-terms are extracted into x
 * registers (kept for the clause while matching a function head, released
 * after use in the body) or straight into the home of the variable they bind.
 * Guards are tests too: comparisons and type tests become test instructions,
 * anything else is evaluated with the BIFs' fail label set to the guard's
 * fail label (so exceptions make the guard fail) and compared with `true`.
 */
#include <string.h>

#include "codegen.h"

/* Where to extract a sub-term matched by pattern sp. */
static UWord sub_dest(Fn *f, Expr *sp) {
    if (!f->head && sp->kind == E_VAR && !cg_wild(sp) && !cg_is_bound(f, sp->name)) {
        int v = cg_var(f, sp->name);
        if (f->vloc[v] != NOOP) return f->vloc[v];
    }
    return REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
}

static void unsupported(Fn *f, Expr *e, const char *what) {
    cg_error(f, e->line, e->col, "not supported yet: %s", what);
}

void cg_match(Fn *f, Expr *p, UWord src, int fail) {
    Term t;
    UWord owned = NOOP;   /* an extracted tail we are walking: ours to free */
    for (;;) {
        if (cg_const(f, p, &t)) {
            if (t == NIL) cg_op(f, OP_is_nil, 2, (UWord)fail, src);
            else cg_op(f, OP_is_eq_exact, 3, (UWord)fail, src, t);
            goto done;
        }
        switch (p->kind) {
        case E_VAR: {
            if (cg_wild(p)) goto done;
            if (cg_is_bound(f, p->name)) {
                UWord o = cg_operand(f, p, 0);
                cg_op(f, OP_is_eq_exact, 3, (UWord)fail, src, o);
                cg_free(f, o);
                goto done;
            }
            cg_bind(f, cg_var(f, p->name), src);
            goto done;
        }
        case E_MATCH:
            cg_match(f, p->a, src, fail);
            p = p->b;
            continue;
        case E_CONS: {
            Expr *h = p->a, *tl = p->b;
            int wh = cg_wild(h), wt = cg_wild(tl);
            cg_op(f, OP_is_nonempty_list, 2, (UWord)fail, src);
            if (wh && wt) goto done;
            UWord dh = NOOP, dt = NOOP;
            if (wt) {
                dh = sub_dest(f, h);
                cg_op(f, OP_get_hd, 2, src, dh);
            } else if (wh) {
                dt = sub_dest(f, tl);
                cg_op(f, OP_get_tl, 2, src, dt);
            } else {
                dh = sub_dest(f, h);
                dt = sub_dest(f, tl);
                if (dt == dh) dt = REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
                cg_op(f, OP_get_list, 3, src, dh, dt);
            }
            if (dh != NOOP) { cg_match(f, h, dh, fail); cg_free(f, dh); }
            if (dt == NOOP) goto done;
            /* continue with the tail (iteratively: long list patterns) */
            cg_free(f, owned);
            owned = src = dt;
            p = tl;
            continue;
        }
        case E_TUPLE: {
            /* {tag, ...} with an atom tag, as most messages and records
             * are: one test instead of three (arity, fetch, compare), which
             * a selective receive pays again for every message it skips */
            Term tag;
            int first = 0;
            if (p->n >= 1 && cg_const(f, p->elems[0], &tag) && is_atom(tag)) {
                cg_op(f, OP_is_tagged_tuple, 4, (UWord)fail, src, (UWord)p->n, tag);
                first = 1;
            } else {
                cg_op(f, OP_is_tuple_of_arity, 3, (UWord)fail, src, (UWord)p->n);
            }
            for (int i = first; i < p->n; i++) {
                Expr *el = p->elems[i];
                if (cg_wild(el)) continue;
                UWord d = sub_dest(f, el);
                cg_op(f, OP_get_tuple_element, 3, src, (UWord)i, d);
                cg_match(f, el, d, fail);
                cg_free(f, d);
            }
            goto done;
        }
        case E_BINOP:
            if (p->op == OP_APPEND) {
                Term l;
                if (!cg_const(f, p->a, &l)) { unsupported(f, p, "non-constant prefix in ++ pattern"); goto done; }
                while (is_list(l)) {
                    UWord h = REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
                    UWord tl = REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
                    cg_op(f, OP_is_nonempty_list, 2, (UWord)fail, src);
                    cg_op(f, OP_get_list, 3, src, h, tl);
                    cg_op(f, OP_is_eq_exact, 3, (UWord)fail, h, list_head(l));
                    cg_free(f, h);
                    cg_free(f, owned);
                    owned = src = tl;
                    l = list_tail(l);
                }
                p = p->b;
                continue;
            }
            unsupported(f, p, "this operator in a pattern");
            goto done;
        case E_RECORD: case E_RECORD_FIELD: case E_RECORD_UPDATE: unsupported(f, p, "records"); goto done;
        case E_MAP: cg_match_map(f, p, src, fail); goto done;         /* codegen_map.c */
        case E_MAP_UPDATE: unsupported(f, p, "map update in a pattern"); goto done;
        case E_BIN: cg_bin_match(f, p, src, fail); goto done;   /* codegen_bin.c */
        default:
            cg_error(f, p->line, p->col, "illegal pattern");
            goto done;
        }
    }
done:
    cg_free(f, owned);
}

int cg_irrefutable(Fn *f, Expr *p) {
    if (p->kind == E_VAR) return cg_wild(p) || !cg_is_bound(f, p->name);
    if (p->kind == E_MATCH) return cg_irrefutable(f, p->a) && cg_irrefutable(f, p->b);
    return 0;
}

/* ---- guards -------------------------------------------------------------- */

static const struct { const char *name; int arity, op, old; } type_tests[] = {
    {"is_integer", 1, OP_is_integer, 0}, {"integer", 1, OP_is_integer, 1},
    {"is_float", 1, OP_is_float, 0}, {"float", 1, OP_is_float, 1},
    {"is_number", 1, OP_is_number, 0}, {"number", 1, OP_is_number, 1},
    {"is_atom", 1, OP_is_atom, 0}, {"atom", 1, OP_is_atom, 1},
    {"is_boolean", 1, OP_is_boolean, 0},
    {"is_pid", 1, OP_is_pid, 0}, {"pid", 1, OP_is_pid, 1},
    {"is_port", 1, OP_is_port, 0}, {"port", 1, OP_is_port, 1},
    {"is_reference", 1, OP_is_reference, 0}, {"reference", 1, OP_is_reference, 1},
    {"is_list", 1, OP_is_list, 0}, {"list", 1, OP_is_list, 1},
    {"is_tuple", 1, OP_is_tuple, 0}, {"tuple", 1, OP_is_tuple, 1},
    {"is_function", 1, OP_is_function, 0}, {"function", 1, OP_is_function, 1},
    {"is_function", 2, OP_is_function2, 0},
    {"is_binary", 1, OP_is_binary, 0}, {"binary", 1, OP_is_binary, 1},
    {"is_bitstring", 1, OP_is_bitstring, 0},
    {"is_map", 1, OP_is_map, 0},
};

/* The type test a call names, or -1 (is_record/3 is an ordinary guard BIF:
 * records.c lowers is_record/2 and record/2 to it). */
static int type_test_of(Fn *f, Expr *e, int *old) {
    if (e->kind != E_CALL) return -1;
    const char *name;
    int remote = 0;
    if (e->mod) {
        if (e->mod->kind != E_ATOM || !e->fun || e->fun->kind != E_ATOM || strcmp(e->mod->name, "erlang"))
            return -1;
        name = e->fun->name;
        remote = 1;
    } else {
        if (e->fun) return -1;
        name = e->name;
        if (cg_find_local(f->g, name, e->n)) return -1;
    }
    for (size_t i = 0; i < sizeof type_tests / sizeof type_tests[0]; i++)
        if (!strcmp(type_tests[i].name, name) && type_tests[i].arity == e->n && !(remote && type_tests[i].old)) {
            if (old) *old = type_tests[i].old;
            return type_tests[i].op;
        }
    return -1;
}

/* Emits the type test that call e names, jumping to fail when false.
 * Returns 0 when e is no type test. */
int cg_type_test(Fn *f, Expr *e) {
    int op = type_test_of(f, e, NULL);
    if (op == -1) return 0;
    int fail = f->bif_fail;
    if (op == OP_is_function2) {
        UWord ops[2];
        cg_oplist(f, e->elems, 2, ops);
        cg_op(f, OP_is_function2, 3, (UWord)fail, ops[0], ops[1]);
        cg_free(f, ops[0]); cg_free(f, ops[1]);
        return 1;
    }
    UWord v = cg_operand(f, e->elems[0], 0);
    cg_op(f, op, 2, (UWord)fail, v);
    cg_free(f, v);
    return 1;
}

static int is_compare(Op op) {
    return op == OP_EQ || op == OP_NE || op == OP_EXACT_EQ || op == OP_EXACT_NE ||
           op == OP_LT || op == OP_GT || op == OP_LE || op == OP_GE;
}

/* Does e always evaluate to a boolean (or fail)? */
static int boolean_valued(Fn *f, Expr *e) {
    switch (e->kind) {
    case E_ATOM: return !strcmp(e->name, "true") || !strcmp(e->name, "false");
    case E_BINOP: return is_compare(e->op) || e->op == OP_AND || e->op == OP_OR || e->op == OP_XOR;
    case E_UNOP: return e->op == OP_NOT;
    case E_CALL: return type_test_of(f, e, NULL) >= 0;
    default: return 0;
    }
}

/* Guard test: jump to fail unless e is true. */
void cg_test(Fn *f, Expr *e, int fail) {
    int save = f->bif_fail;
    f->bif_fail = fail;
    switch (e->kind) {
    case E_ATOM:
        if (strcmp(e->name, "true")) cg_op(f, OP_jump, 1, (UWord)fail);
        goto out;
    case E_ANDALSO:
        cg_test(f, e->a, fail);
        cg_test(f, e->b, fail);
        goto out;
    case E_ORELSE: {
        int lb = cg_new_label(f), lok = cg_new_label(f);
        if (boolean_valued(f, e->a)) {
            cg_test(f, e->a, lb);
        } else {
            f->bif_fail = fail;
            UWord v = cg_operand(f, e->a, 0);
            int lchk = cg_new_label(f);
            cg_op(f, OP_is_eq_exact, 3, (UWord)lchk, v, AM_true);
            cg_op(f, OP_jump, 1, (UWord)lok);
            cg_label(f, lchk);
            cg_op(f, OP_is_eq_exact, 3, (UWord)fail, v, AM_false);
            cg_free(f, v);
            cg_test(f, e->b, fail);
            cg_label(f, lok);
            goto out;
        }
        cg_op(f, OP_jump, 1, (UWord)lok);
        cg_label(f, lb);
        cg_test(f, e->b, fail);
        cg_label(f, lok);
        goto out;
    }
    case E_BINOP:
        if (e->op == OP_AND) {
            cg_test(f, e->a, fail);
            cg_test(f, e->b, fail);
            goto out;
        }
        if (cg_ftest(f, e, fail)) goto out;      /* floats: codegen_float.c */
        if (is_compare(e->op)) {
            UWord ops[2];
            Expr *es[2] = { e->a, e->b };
            cg_oplist(f, es, 2, ops);
            UWord a = ops[0], b = ops[1];
            int op = 0;
            switch (e->op) {
            case OP_LT: op = OP_is_lt; break;
            case OP_GT: op = OP_is_lt; a = ops[1]; b = ops[0]; break;
            case OP_LE: op = OP_is_ge; a = ops[1]; b = ops[0]; break;
            case OP_GE: op = OP_is_ge; break;
            case OP_EQ: op = OP_is_eq; break;
            case OP_NE: op = OP_is_ne; break;
            case OP_EXACT_EQ: op = OP_is_eq_exact; break;
            default: op = OP_is_ne_exact; break;
            }
            cg_op(f, op, 3, (UWord)fail, a, b);
            cg_free(f, ops[0]); cg_free(f, ops[1]);
            goto out;
        }
        break;
    case E_UNOP:
        if (e->op == OP_NOT) {
            UWord v = cg_operand(f, e->a, 0);
            cg_op(f, OP_is_eq_exact, 3, (UWord)fail, v, AM_false);
            cg_free(f, v);
            goto out;
        }
        break;
    case E_CALL:
        if (cg_type_test(f, e)) goto out;
        break;
    default:
        break;
    }
    {
        UWord v = cg_operand(f, e, 0);
        cg_op(f, OP_is_eq_exact, 3, (UWord)fail, v, AM_true);
        cg_free(f, v);
    }
out:
    f->bif_fail = save;
}

void cg_guard(Fn *f, Guard *g, int fail) {
    if (!g || g->nalts == 0) return;
    int save = f->bif_fail;
    if (g->nalts == 1) {
        for (int t = 0; t < g->alts[0].ntests; t++) cg_test(f, g->alts[0].tests[t], fail);
    } else {
        int lok = cg_new_label(f);
        for (int a = 0; a < g->nalts; a++) {
            int last = a == g->nalts - 1;
            int next = last ? fail : cg_new_label(f);
            for (int t = 0; t < g->alts[a].ntests; t++) cg_test(f, g->alts[a].tests[t], next);
            if (!last) {
                cg_op(f, OP_jump, 1, (UWord)lok);
                cg_label(f, next);
            }
        }
        cg_label(f, lok);
    }
    f->bif_fail = save;
}

/* Could e be a guard expression? (list comprehension filters that are
 * guards fail quietly instead of raising) */
int cg_is_guard_expr(Fn *f, Expr *e) {
    Term t;
    if (cg_const(f, e, &t)) return 1;
    switch (e->kind) {
    case E_VAR: return 1;
    case E_CONS:
        for (; e->kind == E_CONS; e = e->b)
            if (!cg_is_guard_expr(f, e->a)) return 0;
        return cg_is_guard_expr(f, e);
    case E_TUPLE:
        for (int i = 0; i < e->n; i++) if (!cg_is_guard_expr(f, e->elems[i])) return 0;
        return 1;
    case E_BINOP:
        if (e->op == OP_SEND || e->op == OP_APPEND || e->op == OP_SUBTRACT) return 0;
        return cg_is_guard_expr(f, e->a) && cg_is_guard_expr(f, e->b);
    case E_UNOP: return cg_is_guard_expr(f, e->a);
    case E_BIN: return cg_bin_guard_expr(f, e);
    case E_ANDALSO: case E_ORELSE: return cg_is_guard_expr(f, e->a) && cg_is_guard_expr(f, e->b);
    case E_CALL: {
        int op = type_test_of(f, e, NULL);
        if (op < 0) {
            CallInfo ci;
            cg_classify(f, e, &ci, 1);
            if (ci.kind != CK_BIF || !bif_names[ci.bif].guard) return 0;
        }
        for (int i = 0; i < e->n; i++) if (!cg_is_guard_expr(f, e->elems[i])) return 0;
        return 1;
    }
    default: return 0;
    }
}
