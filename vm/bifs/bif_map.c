/* bif_map.c — BIFs on maps (erlang:map_size/1 ..., the C part of module
 * `maps`) and the record tests is_record/2,3.
 *
 * Errors are OTP's: a non-map argument raises {badmap, M}, a missing key
 * {badkey, K}, a malformed list argument badarg. The functions taking funs
 * (maps:fold/map/filter/update_with, iterators) are in stdlib/maps.mini. */
#include <stdlib.h>
#include <stdio.h>

#include "bif.h"
#include "fatal.h"
#include "term_build.h"
#include "atom.h"
#include "map.h"

#define CHECK_MAP(m) do { if (!is_map_term(m)) return bif_raise_tagged(p, ATOM_TERM(badmap), (m)); } while (0)

/* Length of a proper list, or -1. */
static long list_len(Term l) {
    long n = 0;
    for (; is_list(l); l = list_tail(l)) n++;
    return is_nil(l) ? n : -1;
}

/* ---- records ---- */

Term bif_is_record_2(Process *p, Term *args) {
    if (!is_atom(args[1])) BIF_ERROR(p, AM_badarg);
    Term t = args[0];
    return BOOL(is_tuple(t) && tuple_arity(t) >= 1 && tuple_elems(t)[0] == args[1]);
}

Term bif_is_record_3(Process *p, Term *args) {
    if (!is_atom(args[1]) || !is_small(args[2])) BIF_ERROR(p, AM_badarg);
    Term t = args[0];
    SWord n = small_val(args[2]);
    return BOOL(is_tuple(t) && n >= 1 && tuple_arity(t) == (UWord)n && tuple_elems(t)[0] == args[1]);
}

/* ---- erlang ---- */

Term bif_map_size_1(Process *p, Term *args) {
    CHECK_MAP(args[0]);
    return make_small(map_size(args[0]));
}

Term bif_is_map_key_2(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    return BOOL(map_index(args[1], args[0]) >= 0);
}

Term bif_map_get_2(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    Term v = map_get(args[1], args[0]);
    if (v == THE_NON_VALUE) return bif_raise_tagged(p, ATOM_TERM(badkey), args[0]);
    return v;
}

/* ---- maps ---- */

Term bif_maps_get_3(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    Term v = map_get(args[1], args[0]);
    return v == THE_NON_VALUE ? args[2] : v;
}

Term bif_maps_find_2(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    Term v = map_get(args[1], args[0]);
    return v == THE_NON_VALUE ? AM_error : tuple2(p, AM_ok, v);
}

Term bif_maps_is_key_2(Process *p, Term *args) { return bif_is_map_key_2(p, args); }

Term bif_maps_put_3(Process *p, Term *args) {
    CHECK_MAP(args[2]);
    return map_put_pairs(p, args[2], args, 1, 0, NULL);
}

Term bif_maps_update_3(Process *p, Term *args) {
    CHECK_MAP(args[2]);
    Term missing = THE_NON_VALUE;
    Term r = map_put_pairs(p, args[2], args, 1, 1, &missing);
    if (r == THE_NON_VALUE) return bif_raise_tagged(p, ATOM_TERM(badkey), missing);
    return r;
}

Term bif_maps_remove_2(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    return map_remove(p, args[1], args[0]);
}

Term bif_maps_take_2(Process *p, Term *args) {
    CHECK_MAP(args[1]);
    Term v = map_get(args[1], args[0]);
    if (v == THE_NON_VALUE) return AM_error;
    Term m = map_remove(p, args[1], args[0]);
    return tuple2(p, v, m);
}

Term bif_maps_size_1(Process *p, Term *args) { return bif_map_size_1(p, args); }

Term bif_maps_new_0(Process *p, Term *args) { (void)p; (void)args; return lit_map_empty(); }

/* keys (what 0), values (1) or {K, V} pairs (2), in OTP's order for
 * maps:to_list (map.h: key order up to 32 keys, hash-trie order above) */
static Term to_list_in(Process *p, Term m, int what, MapWalk how) {
    UWord n = map_size(m);
    if (n == 0) return NIL;
    Term *hp;
    BIF_ALLOC(p, hp, n * (what == 2 ? 5 : 2));
    MapView view;
    map_view(m, &view);
    const Term *k = view.keys, *v = view.vals;
    uint32_t *order = map_walk_order(m, how);
    Term l = NIL;
    for (UWord j = n; j-- > 0;) {
        UWord i = map_walk_at(order, j);
        Term x;
        if (what == 0) x = k[i];
        else if (what == 1) x = v[i];
        else {
            hp[0] = make_tuple_header(2); hp[1] = k[i]; hp[2] = v[i];
            x = make_boxed(hp);
            hp += 3;
        }
        hp[0] = x; hp[1] = l;
        l = make_list(hp);
        hp += 2;
    }
    free(order);
    map_view_free(&view);
    return l;
}

static Term to_list(Process *p, Term m, int what) { return to_list_in(p, m, what, MAP_WALK_LIST); }

/* erts_internal:maps_iterator_pairs/1: the pairs in the order OTP's map
 * iterator visits them (stdlib/maps.mini's fold, iterator, map, ...). */
Term bif_erts_internal_maps_iterator_pairs_1(Process *p, Term *args) {
    CHECK_MAP(args[0]);
    return to_list_in(p, args[0], 2, MAP_WALK_ITER);
}

Term bif_maps_keys_1(Process *p, Term *args) { CHECK_MAP(args[0]); return to_list(p, args[0], 0); }
Term bif_maps_values_1(Process *p, Term *args) { CHECK_MAP(args[0]); return to_list(p, args[0], 1); }
Term bif_maps_to_list_1(Process *p, Term *args) { CHECK_MAP(args[0]); return to_list(p, args[0], 2); }

/* A map of the pairs list l gives: [{K, V}...] when value is THE_NON_VALUE
 * (maps:from_list), else [K...] each with value (maps:from_keys). */
static Term map_from_list(Process *p, Term l, Term value) {
    long n = list_len(l);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    Term *kv = malloc(sizeof(Term) * 2 * (size_t)n + 1);
    if (!kv) return bif_out_of_memory(p);
    for (long i = 0; is_list(l); l = list_tail(l), i++) {
        Term t = list_head(l);
        if (value != THE_NON_VALUE) {
            kv[2 * i] = t;
            kv[2 * i + 1] = value;
        } else if (is_tuple(t) && tuple_arity(t) == 2) {
            kv[2 * i] = tuple_elems(t)[0];
            kv[2 * i + 1] = tuple_elems(t)[1];
        } else {
            free(kv);
            BIF_ERROR(p, AM_badarg);
        }
    }
    Term r = map_put_pairs(p, lit_map_empty(), kv, (size_t)n, 0, NULL);
    free(kv);
    p->reds -= n / 16;
    return r;
}

Term bif_maps_from_list_1(Process *p, Term *args) { return map_from_list(p, args[0], THE_NON_VALUE); }
Term bif_maps_from_keys_2(Process *p, Term *args) { return map_from_list(p, args[0], args[1]); }

Term bif_maps_merge_2(Process *p, Term *args) {
    CHECK_MAP(args[0]);
    CHECK_MAP(args[1]);
    Term a = args[0], b = args[1];
    UWord n = map_size(b);
    if (n == 0) return a;
    if (map_size(a) == 0) return b;
    Term *kv = malloc(sizeof(Term) * 2 * n);
    if (!kv) return bif_out_of_memory(p);
    MapView v;
    map_view(b, &v);
    for (UWord i = 0; i < n; i++) { kv[2 * i] = v.keys[i]; kv[2 * i + 1] = v.vals[i]; }
    map_view_free(&v);
    Term r = map_put_pairs(p, a, kv, n, 0, NULL);
    free(kv);
    p->reds -= (SWord)((map_size(a) + n) / 16);
    return r;
}

/* with/2 (keep listed keys) and without/2 (drop them) */
static Term select_keys(Process *p, Term *args, int with) {
    Term ks = args[0], m = args[1];
    CHECK_MAP(m);
    /* OTP walks the list in Erlang: an improper tail fails its clauses */
    if (list_len(ks) < 0) BIF_ERROR(p, is_list(ks) ? ATOM_TERM(function_clause) : AM_badarg);
    UWord n = map_size(m);
    unsigned char *keep = malloc(n + 1);
    if (!keep) return bif_out_of_memory(p);
    memset(keep, with ? 0 : 1, n);
    for (Term l = ks; is_list(l); l = list_tail(l)) {
        long i = map_index(m, list_head(l));
        if (i >= 0) keep[i] = (unsigned char)with;
    }
    Term r = map_select(p, m, keep);
    free(keep);
    return r;
}

Term bif_maps_with_2(Process *p, Term *args) { return select_keys(p, args, 1); }
Term bif_maps_without_2(Process *p, Term *args) { return select_keys(p, args, 0); }
