/* map.c — flat sorted maps: lookup, update, removal, order (layout: map.h).
 *
 * Updates sort the new pairs once (stable, so that the last of several
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

long map_index(Term m, Term key) {
    const Term *k = map_keys(m);
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

Term map_get(Term m, Term key) {
    long i = map_index(m, key);
    return i < 0 ? THE_NON_VALUE : map_vals(m)[i];
}

typedef struct KV { Term k, v; size_t seq; } KV;

static int kv_cmp(const void *a, const void *b) {
    const KV *x = a, *y = b;
    int c = term_compare_exact(x->k, y->k);
    if (c) return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A new map of n keys with a keys tuple of its own, its key and value words
 * for the caller to fill (in key order) before p collects. */
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

/* Where key is in m (*found set), or where it would go: one binary search. */
static size_t map_position(Term m, Term key, int *found) {
    const Term *k = map_keys(m);
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
static Term map_put_one(Process *p, Term m, Term key, Term val, int exact, Term *missing) {
    size_t n = map_size(m);
    int found;
    size_t at = map_position(m, key, &found);
    const Term *ok = map_keys(m), *ov = map_vals(m);
    if (found) {                   /* same key set: share the keys tuple */
        if (ov[at] == val) return m;
        Term *hp = heap_alloc(p, 2 + n);
        hp[0] = make_header(n + 1, BOXED_MAP);
        hp[1] = map_keys_tuple(m);
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

Term map_put_pairs(Process *p, Term m, const Term *kv, size_t npairs, int exact, Term *missing) {
    size_t n = map_size(m);
    if (npairs == 0) return m;
    if (npairs == 1) return map_put_one(p, m, kv[0], kv[1], exact, missing);
    KV buf[8];
    KV *s = npairs <= 8 ? buf : malloc(npairs * sizeof *s);
    if (!s) FATAL("out of memory for %zu pairs of a map update", npairs);
    for (size_t i = 0; i < npairs; i++) { s[i].k = kv[2 * i]; s[i].v = kv[2 * i + 1]; s[i].seq = i; }
    if (npairs > 1) qsort(s, npairs, sizeof *s, kv_cmp);
    /* keep the last pair of each run of equal keys */
    size_t ns = 0;
    for (size_t i = 0; i < npairs; i++) {
        if (i + 1 < npairs && term_compare_exact(s[i].k, s[i + 1].k) == 0) continue;
        s[ns++] = s[i];
    }
    const Term *ok = map_keys(m), *ov = map_vals(m);
    size_t i = 0, j = 0, total = 0, fresh = 0;
    while (i < n || j < ns) {
        int c = i == n ? 1 : j == ns ? -1 : term_compare_exact(ok[i], s[j].k);
        if (c < 0) i++;
        else if (c > 0) { fresh++; j++; }
        else { i++; j++; }
        total++;
    }
    Term result;
    if (exact && fresh) {
        /* the smallest missing key, as OTP (its compiler sorts the keys) */
        for (size_t q = 0; q < ns; q++)
            if (map_index(m, s[q].k) < 0) { *missing = s[q].k; break; }
        result = THE_NON_VALUE;
    } else if (!fresh) {
        /* same key set: share the keys tuple, copy and patch the values */
        Term *hp = heap_alloc(p, 2 + n);
        hp[0] = make_header(n + 1, BOXED_MAP);
        hp[1] = map_keys_tuple(m);
        memcpy(hp + 2, ov, n * sizeof(Term));
        for (i = 0, j = 0; j < ns; i++)
            if (term_compare_exact(ok[i], s[j].k) == 0) hp[2 + i] = s[j++].v;
        result = make_boxed(hp);
    } else {
        Term *nk, *nv;
        result = map_alloc(p, total, &nk, &nv);
        size_t o = 0;
        i = j = 0;
        while (i < n || j < ns) {
            int c = i == n ? 1 : j == ns ? -1 : term_compare_exact(ok[i], s[j].k);
            if (c < 0) { nk[o] = ok[i]; nv[o] = ov[i]; i++; }
            else if (c > 0) { nk[o] = s[j].k; nv[o] = s[j].v; j++; }
            else { nk[o] = ok[i]; nv[o] = s[j].v; i++; j++; }
            o++;
        }
    }
    if (s != buf) free(s);
    return result;
}

Term map_select(Process *p, Term m, const unsigned char *keep) {
    size_t n = map_size(m), total = 0;
    for (size_t i = 0; i < n; i++) total += keep[i] != 0;
    if (total == n) return m;
    if (total == 0) return lit_map_empty();
    const Term *ok = map_keys(m), *ov = map_vals(m);
    Term *nk, *nv;
    Term r = map_alloc(p, total, &nk, &nv);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i]) { nk[o] = ok[i]; nv[o] = ov[i]; o++; }
    return r;
}

Term map_remove(Process *p, Term m, Term key) {
    long idx = map_index(m, key);
    if (idx < 0) return m;
    size_t n = map_size(m);
    unsigned char small[64];
    unsigned char *keep = n <= sizeof small ? small : malloc(n);
    if (!keep) FATAL("out of memory removing a key from a map of %zu pairs", n);
    memset(keep, 1, n);
    keep[idx] = 0;
    Term r = map_select(p, m, keep);
    if (keep != small) free(keep);
    return r;
}
