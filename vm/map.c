/* map.c — the map operations of map.h, and the flat layout's own (the
 * tree layout's are map_tree.c's; the entry points here pick by layout).
 *
 * Flat updates sort the new pairs once (stable, so that the last of several
 * pairs with the same key wins), then merge them with the map's sorted keys
 * in one pass to count the result and a second to fill it, so exactly the
 * words needed are allocated. Nothing here collects or recurses on the
 * data (the order of two maps is compare.c's, on its work stack).
 */
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "fatal.h"
#include "compare.h"
#include "map_tree.h"

long map_flat_index(Term m, Term key) {
    const Term *k = map_flat_keys(m);
    long lo = 0, hi = (long)map_size(m) - 1;
    if (is_immed(key)) {
        /* an immediate key equals only the identical word: a short scan
         * beats comparisons for small maps */
        if (hi < 8) {
            for (long i = 0; i <= hi; i++) if (k[i] == key) return i;
            return -1;
        }
    }
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        int c = term_compare_exact(k[mid], key);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

long map_index(Term m, Term key) {
    return map_is_flat(m) ? map_flat_index(m, key) : map_tree_index(m, key);
}

Term map_get(Term m, Term key) {
    while (!map_is_flat(m)) m = map_tree_child_for(m, key);
    long i = map_flat_index(m, key);
    return i < 0 ? THE_NON_VALUE : map_flat_vals(m)[i];
}

Term map_key_at(Term m, UWord i) {
    if (!map_is_flat(m)) m = map_tree_leaf_at(m, &i);
    return map_flat_keys(m)[i];
}

Term map_val_at(Term m, UWord i) {
    if (!map_is_flat(m)) m = map_tree_leaf_at(m, &i);
    return map_flat_vals(m)[i];
}

void map_view(Term m, MapView *v) {
    v->n = map_size(m);
    if (map_is_flat(m)) {
        v->keys = map_flat_keys(m);
        v->vals = map_flat_vals(m);
        v->owned = NULL;
        return;
    }
    v->owned = malloc(2 * v->n * sizeof(Term));
    if (!v->owned) FATAL("out of memory for a view of a map of %lu keys", (unsigned long)v->n);
    map_tree_fill(m, v->owned, v->owned + v->n);
    v->keys = v->owned;
    v->vals = v->owned + v->n;
}

void map_view_free(MapView *v) {
    free(v->owned);
    v->owned = NULL;
}

typedef struct KV { Term k, v; size_t seq; } KV;

static int kv_cmp(const void *a, const void *b) {
    const KV *x = a, *y = b;
    int c = term_compare_exact(x->k, y->k);
    if (c) return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A new flat map of n keys with a keys tuple of its own, its key and value
 * words for the caller to fill (in key order) before p collects. */
static Term map_alloc(Process *p, size_t n, Term **keys, Term **vals)
{
    Term *kt = heap_alloc(p, 1 + n + 2 + n);
    Term *hp = kt + 1 + n;
    kt[0] = make_tuple_header(n);
    hp[0] = make_header(n + 1, BOXED_MAP);
    hp[1] = make_boxed(kt);
    *keys = kt + 1;
    *vals = hp + 2;
    return make_boxed(hp);
}

Term map_flat_build(Process *p, const Term *keys, const Term *vals, size_t n) {
    Term *nk, *nv;
    Term r = map_alloc(p, n, &nk, &nv);
    memcpy(nk, keys, n * sizeof(Term));
    memcpy(nv, vals, n * sizeof(Term));
    return r;
}

/* A map of the n sorted pairs: flat up to MAP_LEAF_MAX keys, else a tree,
 * so that the puts that follow cost O(log n). */
static Term map_from_sorted(Process *p, const Term *keys, const Term *vals, size_t n) {
    if (n <= MAP_LEAF_MAX) return map_flat_build(p, keys, vals, n);
    return map_tree_from_flat(p, keys, vals, n);
}

/* Where key is in m (*found set), or where it would go: one binary search. */
static size_t map_position(Term m, Term key, int *found) {
    const Term *k = map_flat_keys(m);
    size_t lo = 0, hi = map_size(m);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = term_compare_exact(k[mid], key);
        if (c == 0) { *found = 1; return mid; }
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    *found = 0;
    return lo;
}

/* One pair, the usual update (M#{K => V}, maps:put/3, a fold building a
 * map): a binary search and block copies, where the general merge below
 * compares every key twice. */
Term map_flat_put_one(Process *p, Term m, Term key, Term val, int exact, Term *missing) {
    size_t n = map_size(m);
    int found;
    size_t at = map_position(m, key, &found);
    const Term *ok = map_flat_keys(m), *ov = map_flat_vals(m);
    if (found) {                   /* same key set: share the keys tuple */
        if (ov[at] == val) return m;
        Term *hp = heap_alloc(p, 2 + n);
        hp[0] = make_header(n + 1, BOXED_MAP);
        hp[1] = map_flat_keys_tuple(m);
        memcpy(hp + 2, ov, n * sizeof(Term));
        hp[2 + at] = val;
        return make_boxed(hp);
    }
    if (exact) {
        *missing = key;
        return THE_NON_VALUE;
    }
    Term *nk, *nv;
    Term r = map_alloc(p, n + 1, &nk, &nv);
    memcpy(nk, ok, at * sizeof(Term));
    memcpy(nv, ov, at * sizeof(Term));
    nk[at] = key;
    nv[at] = val;
    memcpy(nk + at + 1, ok + at, (n - at) * sizeof(Term));
    memcpy(nv + at + 1, ov + at, (n - at) * sizeof(Term));
    return r;
}

/* One pair into any map. A flat map that would pass MAP_LEAF_MAX keys, or
 * is past it already (maps:from_list and literals build big flat maps),
 * becomes a tree first: one O(n) copy, after which puts are O(log n). */
static Term map_put_one(Process *p, Term m, Term key, Term val, int exact, Term *missing) {
    if (map_is_flat(m)) {
        size_t n = map_size(m);
        if (n < MAP_LEAF_MAX) return map_flat_put_one(p, m, key, val, exact, missing);
        long i = map_flat_index(m, key);
        if (i < 0 && exact) { *missing = key; return THE_NON_VALUE; }
        if (i >= 0 && map_flat_vals(m)[i] == val) return m;
        m = map_tree_from_flat(p, map_flat_keys(m), map_flat_vals(m), n);
    }
    return map_tree_put(p, m, key, val, exact, missing);
}

/* The smallest key of the npairs in kv that m lacks, or THE_NON_VALUE. */
static Term smallest_missing(Term m, const Term *kv, size_t npairs) {
    Term least = THE_NON_VALUE;
    for (size_t i = 0; i < npairs; i++)
        if (map_get(m, kv[2 * i]) == THE_NON_VALUE &&
            (least == THE_NON_VALUE || term_compare_exact(kv[2 * i], least) < 0))
            least = kv[2 * i];
    return least;
}

/* Merges the sorted pairs s (distinct keys) into the n pairs ok/ov of map
 * m: a flat map of the union that shares m's keys tuple when the key set
 * stays (m flat); else the union built from sorted arrays. */
static Term merge_sorted(Process *p, Term m, const Term *ok, const Term *ov, size_t n,
                         const KV *s, size_t ns, int exact, Term *missing) {
    size_t i = 0, j = 0, total = 0, fresh = 0;
    while (i < n || j < ns) {
        int c = i == n ? 1 : j == ns ? -1 : term_compare_exact(ok[i], s[j].k);
        if (c < 0) i++;
        else if (c > 0) { fresh++; j++; }
        else { i++; j++; }
        total++;
    }
    if (exact && fresh) {
        /* the smallest missing key, as OTP (its compiler sorts the keys) */
        for (size_t q = 0; q < ns; q++)
            if (map_index(m, s[q].k) < 0) { *missing = s[q].k; break; }
        return THE_NON_VALUE;
    }
    if (!fresh && map_is_flat(m) && n <= MAP_LEAF_MAX) {
        /* same key set: share the keys tuple, copy and patch the values */
        Term *hp = heap_alloc(p, 2 + n);
        hp[0] = make_header(n + 1, BOXED_MAP);
        hp[1] = map_flat_keys_tuple(m);
        memcpy(hp + 2, ov, n * sizeof(Term));
        for (i = 0, j = 0; j < ns; i++)
            if (term_compare_exact(ok[i], s[j].k) == 0) hp[2 + i] = s[j++].v;
        return make_boxed(hp);
    }
    Term *nk = malloc(2 * total * sizeof(Term)), *nv = nk + total;
    if (!nk) FATAL("out of memory merging %zu pairs into a map", total);
    size_t o = 0;
    i = j = 0;
    while (i < n || j < ns) {
        int c = i == n ? 1 : j == ns ? -1 : term_compare_exact(ok[i], s[j].k);
        if (c < 0) { nk[o] = ok[i]; nv[o] = ov[i]; i++; }
        else if (c > 0) { nk[o] = s[j].k; nv[o] = s[j].v; j++; }
        else { nk[o] = ok[i]; nv[o] = s[j].v; i++; j++; }
        o++;
    }
    Term result = map_from_sorted(p, nk, nv, total);
    free(nk);
    return result;
}

/* A tree takes a few pairs one at a time (O(log n) each); many, against
 * its size, merged into a flat map in one pass like a flat map's. */
#define TREE_PAIRS_ONE_BY_ONE 16

Term map_put_pairs(Process *p, Term m, const Term *kv, size_t npairs, int exact, Term *missing) {
    if (npairs == 0) return m;
    if (npairs == 1) return map_put_one(p, m, kv[0], kv[1], exact, missing);
    size_t n = map_size(m);
    if (!map_is_flat(m) && (npairs <= TREE_PAIRS_ONE_BY_ONE || npairs * 16 < n)) {
        if (exact) {
            Term least = smallest_missing(m, kv, npairs);
            if (least != THE_NON_VALUE) { *missing = least; return THE_NON_VALUE; }
        }
        for (size_t i = 0; i < npairs; i++)
            m = map_tree_put(p, m, kv[2 * i], kv[2 * i + 1], 0, NULL);
        return m;
    }
    KV buf[8];
    KV *s = npairs <= 8 ? buf : malloc(npairs * sizeof *s);
    if (!s) FATAL("out of memory for %zu pairs of a map update", npairs);
    for (size_t i = 0; i < npairs; i++) { s[i].k = kv[2 * i]; s[i].v = kv[2 * i + 1]; s[i].seq = i; }
    qsort(s, npairs, sizeof *s, kv_cmp);
    /* keep the last pair of each run of equal keys */
    size_t ns = 0;
    for (size_t i = 0; i < npairs; i++) {
        if (i + 1 < npairs && term_compare_exact(s[i].k, s[i + 1].k) == 0) continue;
        s[ns++] = s[i];
    }
    MapView v;
    map_view(m, &v);
    Term result = merge_sorted(p, m, v.keys, v.vals, n, s, ns, exact, missing);
    map_view_free(&v);
    if (s != buf) free(s);
    return result;
}

/* A map of the pairs of view v for which keep[i] is set. */
static Term select_view(Process *p, const MapView *v, const unsigned char *keep) {
    size_t total = 0;
    for (size_t i = 0; i < v->n; i++) total += keep[i] != 0;
    if (total == 0) return lit_map_empty();
    Term *nk = malloc(2 * total * sizeof(Term)), *nv = nk + total;
    if (!nk) FATAL("out of memory selecting %zu pairs of a map", total);
    size_t o = 0;
    for (size_t i = 0; i < v->n; i++)
        if (keep[i]) { nk[o] = v->keys[i]; nv[o] = v->vals[i]; o++; }
    Term r = map_from_sorted(p, nk, nv, total);
    free(nk);
    return r;
}

Term map_select(Process *p, Term m, const unsigned char *keep) {
    size_t n = map_size(m), total = 0;
    for (size_t i = 0; i < n; i++) total += keep[i] != 0;
    if (total == n) return m;
    MapView v;
    map_view(m, &v);
    Term r = select_view(p, &v, keep);
    map_view_free(&v);
    return r;
}

Term map_flat_remove(Process *p, Term m, Term key) {
    long idx = map_flat_index(m, key);
    if (idx < 0) return m;
    size_t n = map_size(m);
    unsigned char small[64];
    unsigned char *keep = n <= sizeof small ? small : malloc(n);
    if (!keep) FATAL("out of memory removing a key from a map of %zu pairs", n);
    memset(keep, 1, n);
    keep[idx] = 0;
    MapView v = { map_flat_keys(m), map_flat_vals(m), n, NULL };
    Term r = select_view(p, &v, keep);
    if (keep != small) free(keep);
    return r;
}

Term map_remove(Process *p, Term m, Term key) {
    return map_is_flat(m) ? map_flat_remove(p, m, key) : map_tree_remove(p, m, key);
}
