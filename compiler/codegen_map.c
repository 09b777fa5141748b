/* codegen_map.c — map expressions and map patterns.
 *
 *   #{K1 => V1, ...}        put_map_assoc on the empty map (a constant)
 *   M#{K => V, K2 := V2}    put_map_exact with the := pairs, then
 *                           put_map_assoc with the => pairs: every := key
 *                           must be in M itself, as in Erlang
 *   pattern #{K := P, ...}  is_map, then one get_map_elements that fetches
 *                           every value (failing if a key is missing), then
 *                           the value patterns matched one by one
 *
 * The put instructions raise {badmap, M} / {badkey, K}, or jump to the
 * BIF fail label inside guards. They allocate through heap_alloc, so they
 * need no test_heap and no live count (see map.h).
 */
#include "codegen.h"

/* Does evaluating the map expression need a frame (a call in it)? */
int cg_map_pred(Fn *f, Expr *e) {
    if (e->a && cg_has_call(f, e->a)) return 1;
    for (int i = 0; i < e->nfields; i++)
        if (cg_has_call(f, e->fields[i].key) || cg_has_call(f, e->fields[i].value)) return 1;
    return 0;
}

static void emit_put(Fn *f, int op, UWord src, UWord dest, UWord *kv, int npairs) {
    cg_op(f, op, 4, (UWord)f->bif_fail, src, dest, (UWord)(2 * npairs));
    for (int i = 0; i < 2 * npairs; i++) cg_emit(f, kv[i]);
}

void cg_map(Fn *f, Expr *e, UWord dest) {
    int upd = e->kind == E_MAP_UPDATE, n = e->nfields;
    if (!upd && n == 0) { cg_move(f, lit_map_empty(), dest); return; }
    /* the map (if any), then keys and values, in source order */
    int cnt = upd + 2 * n;
    Expr **es = GC_MALLOC(sizeof(Expr *) * (size_t)cnt);
    UWord *ops = GC_MALLOC(sizeof(UWord) * (size_t)cnt);
    if (upd) es[0] = e->a;
    for (int i = 0; i < n; i++) { es[upd + 2 * i] = e->fields[i].key; es[upd + 2 * i + 1] = e->fields[i].value; }
    cg_oplist(f, es, cnt, ops);
    UWord src = upd ? ops[0] : lit_map_empty();
    UWord *assoc = GC_MALLOC(sizeof(UWord) * (size_t)(2 * n + 1));
    UWord *exact = GC_MALLOC(sizeof(UWord) * (size_t)(2 * n + 1));
    int na = 0, nx = 0;
    for (int i = 0; i < n; i++) {
        UWord *to = e->fields[i].exact ? exact + 2 * nx++ : assoc + 2 * na++;
        to[0] = ops[upd + 2 * i]; to[1] = ops[upd + 2 * i + 1];
    }
    if (!f->bif_fail) cg_line(f, e->line);
    if (nx && na) {
        /* the intermediate map goes to a scratch register, so that dest may
         * be any register, even one an operand of the second step uses */
        UWord mid = REG_X(cg_alloc_x(f, R_TEMP));
        emit_put(f, OP_put_map_exact, src, mid, exact, nx);
        emit_put(f, OP_put_map_assoc, mid, dest, assoc, na);
        cg_free(f, mid);
    } else if (nx) {
        emit_put(f, OP_put_map_exact, src, dest, exact, nx);
    } else {
        emit_put(f, OP_put_map_assoc, src, dest, assoc, na);   /* na may be 0: M#{} checks M */
    }
    for (int i = 0; i < cnt; i++) cg_free(f, ops[i]);
}

void cg_match_map(Fn *f, Expr *p, UWord src, int fail) {
    int n = p->nfields;
    cg_op(f, OP_is_map, 2, (UWord)fail, src);
    if (n == 0) return;
    UWord *keys = GC_MALLOC(sizeof(UWord) * (size_t)n);
    UWord *dsts = GC_MALLOC(sizeof(UWord) * (size_t)n);
    for (int i = 0; i < n; i++) keys[i] = cg_operand(f, p->fields[i].key, 0);
    for (int i = 0; i < n; i++) dsts[i] = REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
    cg_op(f, OP_get_map_elements, 3, (UWord)fail, src, (UWord)(2 * n));
    for (int i = 0; i < n; i++) { cg_emit(f, keys[i]); cg_emit(f, dsts[i]); }
    for (int i = 0; i < n; i++) cg_free(f, keys[i]);
    for (int i = 0; i < n; i++) {
        cg_match(f, p->fields[i].value, dsts[i], fail);
        cg_free(f, dsts[i]);
    }
}
