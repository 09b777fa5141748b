/* test_map.c — unit tests of maps (vm/map.c, vm/map_tree.c): random puts,
 * updates and removals checked against a simple reference (an array of
 * small keys), key order across term kinds, exact updates and their missing
 * key, the map order, maps surviving collections (gc.c walks them), the
 * walk orders of map_hamt.c (key order, or OTP's trie order), and the tree
 * layout of big maps: its shape invariants, old versions left intact by
 * updates, positions, and equality with flat maps of the same pairs. */
#include "atom.h"
#include "compare.h"
#include "gc.h"
#include "map.h"
#include "map_tree.h"

#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #c); } } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* keys are sorted, values match the reference, size is right */
static void check_against(Term m, const long *ref, int nkeys) {
    long n = 0;
    for (int k = 0; k < nkeys; k++) {
        Term v = map_get(m, make_small(k));
        if (ref[k] < 0) CHECK(v == THE_NON_VALUE);
        else { CHECK(v == make_small(ref[k])); n++; }
    }
    CHECK((long)map_size(m) == n);
    for (UWord i = 1; i < map_size(m); i++) CHECK(term_compare_exact(map_key_at(m, i - 1), map_key_at(m, i)) < 0);
}

static void test_random(Process *p) {
    enum { NK = 300 };
    long ref[NK];
    for (int k = 0; k < NK; k++) ref[k] = -1;
    Term m = lit_map_empty();
    for (int step = 0; step < 3000; step++) {
        int k = (int)(rnd() % NK);
        switch (rnd() % 4) {
        case 0: case 1: {                          /* put one or several pairs */
            Term kv[6];
            int np = 1 + (int)(rnd() % 3);
            for (int i = 0; i < np; i++) {
                int kk = i == 0 ? k : (int)(rnd() % NK);
                long v = (long)(rnd() % 1000);
                kv[2 * i] = make_small(kk); kv[2 * i + 1] = make_small(v);
                ref[kk] = v;                       /* a later pair wins */
            }
            m = map_put_pairs(p, m, kv, (size_t)np, 0, NULL);
            break;
        }
        case 2: {                                  /* exact update */
            Term kv[2] = { make_small(k), make_small(7) }, missing = NIL;
            Term r = map_put_pairs(p, m, kv, 1, 1, &missing);
            if (ref[k] < 0) { CHECK(r == THE_NON_VALUE); CHECK(missing == make_small(k)); }
            else { CHECK(r != THE_NON_VALUE); ref[k] = 7; m = r; }
            break;
        }
        default:
            m = map_remove(p, m, make_small(k));
            ref[k] = -1;
            break;
        }
        if (step % 100 == 0) {
            Term root = m;
            p->x[0] = root;
            gc_collect(p, 0, 1, step % 700 == 0);
            m = p->x[0];
        }
    }
    check_against(m, ref, NK);
}

static void test_key_order(Process *p) {
    double one = 1.0;
    Term f = make_float_at(heap_alloc(p, FLOAT_WORDS), one);
    Term tup = make_boxed(heap_alloc(p, 1));
    boxed_ptr(tup)[0] = make_tuple_header(0);
    Term kv[] = { f, make_small(1), make_small(1), make_small(2), atom_intern_cstr("a"), make_small(3),
                  NIL, make_small(4), tup, make_small(5), make_small(-3), make_small(6) };
    Term m = map_put_pairs(p, lit_map_empty(), kv, 6, 0, NULL);
    CHECK(map_size(m) == 6);
    /* integers, then floats, then atoms, tuples, [] */
    CHECK(map_key_at(m, 0) == make_small(-3));
    CHECK(map_key_at(m, 1) == make_small(1));
    CHECK(map_key_at(m, 2) == f);
    CHECK(map_key_at(m, 3) == atom_intern_cstr("a"));
    CHECK(map_key_at(m, 4) == tup);
    CHECK(map_key_at(m, 5) == NIL);
    CHECK(map_get(m, make_small(1)) == make_small(2));
    CHECK(map_get(m, f) == make_small(1));
    /* the smallest missing key is the one reported */
    Term up[] = { make_small(9), NIL, make_small(8), NIL, make_small(1), NIL }, missing = NIL;
    CHECK(map_put_pairs(p, m, up, 3, 1, &missing) == THE_NON_VALUE);
    CHECK(missing == make_small(8));
    /* an update that keeps the key set shares the keys tuple */
    Term same[] = { make_small(1), make_small(0) };
    Term m2 = map_put_pairs(p, m, same, 1, 0, NULL);
    CHECK(map_flat_keys_tuple(m2) == map_flat_keys_tuple(m));
    CHECK(map_get(m2, make_small(1)) == make_small(0));
}

static void test_order(Process *p) {
    Term a = atom_intern_cstr("a"), b = atom_intern_cstr("b");
    Term one = make_small(1);
    Term onef = make_float_at(heap_alloc(p, FLOAT_WORDS), 1.0);
    Term kv1[] = { a, one }, kv2[] = { a, onef }, kv3[] = { b, make_small(0) };
    Term m1 = map_put_pairs(p, lit_map_empty(), kv1, 1, 0, NULL);
    Term m2 = map_put_pairs(p, lit_map_empty(), kv2, 1, 0, NULL);
    Term m3 = map_put_pairs(p, lit_map_empty(), kv3, 1, 0, NULL);
    CHECK(term_compare(m1, m2) == 0);            /* values by == */
    CHECK(!term_eq_exact(m1, m2));               /* ... but not =:= */
    CHECK(term_compare(m1, m3) < 0);             /* keys before values */
    CHECK(term_compare(lit_map_empty(), m1) < 0);    /* size first */
    CHECK(term_compare(m1, NIL) < 0);            /* maps sort before [] ... */
    CHECK(term_compare(m1, tuple_elems(map_flat_keys_tuple(m1))[0]) > 0);   /* ... after atoms */
}

/* The map of 1..n => 0 built at once. */
static Term int_map(Process *p, int n) {
    Term *kv = malloc(2 * (size_t)n * sizeof *kv);
    for (int i = 0; i < n; i++) { kv[2 * i] = make_small(i + 1); kv[2 * i + 1] = make_small(0); }
    Term m = map_put_pairs(p, lit_map_empty(), kv, (size_t)n, 0, NULL);
    free(kv);
    return m;
}

/* Walk orders (map_hamt.c): key order up to 32 keys, at no cost; above,
 * OTP's trie order (maps:keys of 1..40 on erl), the iterator's being the
 * reverse of the list's, a permutation of the keys. */
static void test_walk(Process *p) {
    static const int otp_keys_1_40[40] = {
        33, 12, 23, 29, 30, 39, 26, 31, 11, 37, 9, 32, 34, 25, 28, 6, 38, 13, 40, 20,
        15, 14, 2, 7, 1, 8, 3, 17, 22, 21, 4, 36, 24, 10, 35, 27, 19, 5, 18, 16 };
    Term m32 = int_map(p, 32), m40 = int_map(p, 40), m5000 = int_map(p, 5000);
    CHECK(map_walk_order(m32, MAP_WALK_LIST) == NULL);
    CHECK(map_walk_order(lit_map_empty(), MAP_WALK_ITER) == NULL);
    CHECK(map_walk_at(NULL, 7) == 7);
    uint32_t *list = map_walk_order(m40, MAP_WALK_LIST), *iter = map_walk_order(m40, MAP_WALK_ITER);
    for (int i = 0; i < 40; i++) {
        CHECK(map_key_at(m40, list[i]) == make_small(otp_keys_1_40[i]));
        CHECK(iter[i] == list[39 - i]);
    }
    free(list);
    free(iter);
    uint32_t *big = map_walk_order(m5000, MAP_WALK_ITER);
    unsigned char *seen = calloc(5000, 1);
    for (int i = 0; i < 5000; i++) seen[big[i]]++;
    int all_once = 1;
    for (int i = 0; i < 5000; i++) all_once &= seen[i] == 1;
    CHECK(all_once);
    free(seen);
    free(big);
    /* salts change the hash; [] and 0 differ */
    CHECK(map_internal_hash(make_small(5), 0) != map_internal_hash(make_small(5), 1));
    CHECK(map_internal_hash(NIL, 0) != map_internal_hash(make_small(0), 0));
}

/* The tree invariants of map.h below m, whose keys must lie in [lo, hi)
 * (THE_NON_VALUE: unbounded); returns m's depth, 0 for a leaf. */
static int check_tree(Term m, Term lo, Term hi) {
    Term *w = boxed_ptr(m);
    if (map_is_flat(m)) {
        UWord n = map_size(m);
        const Term *k = tuple_elems(w[1]);
        for (UWord i = 0; i < n; i++) {
            if (lo != THE_NON_VALUE) CHECK(term_compare_exact(lo, k[i]) <= 0);
            if (hi != THE_NON_VALUE) CHECK(term_compare_exact(k[i], hi) < 0);
        }
        return 0;
    }
    UWord c = header_arity(w[0]) - 2, size = 0;
    CHECK(c >= 2 && c <= MAP_NODE_MAX);
    CHECK(tuple_arity(w[2]) == c - 1);
    const Term *sep = tuple_elems(w[2]);
    int depth = -1;
    for (UWord i = 0; i < c; i++) {
        Term kid = w[3 + i];
        CHECK(is_map_term(kid));
        if (map_is_flat(kid)) CHECK(map_size(kid) >= 1 && map_size(kid) <= MAP_LEAF_MAX);
        size += map_size(kid);
        int d = check_tree(kid, i == 0 ? lo : sep[i - 1], i + 1 == c ? hi : sep[i]);
        if (d + 1 > depth) depth = d + 1;
    }
    CHECK(size == map_size(m));
    return depth;
}

/* A map of 20000 keys put one at a time in random order: a tree of
 * bounded depth, whose old versions stay as they were; positions and
 * views agree; the same pairs built at once (a flat map) are equal to it
 * in both orders; collections keep it; removals in random order bring it
 * back to a flat map, then to #{}. */
static void test_tree(Process *p) {
    enum { N = 20000 };
    int *perm = malloc(N * sizeof *perm);
    for (int i = 0; i < N; i++) perm[i] = i;
    for (int i = N - 1; i > 0; i--) { int j = (int)(rnd() % (uint64_t)(i + 1)); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    Term m = lit_map_empty(), snap = THE_NON_VALUE;
    for (int i = 0; i < N; i++) {
        Term kv[2] = { make_small(perm[i]), make_small(perm[i] * 3) };
        m = map_put_pairs(p, m, kv, 1, 0, NULL);
        if (i == 999) snap = m;
        if (i % 4000 == 3999) {
            p->x[0] = m; p->x[1] = snap;
            gc_collect(p, 0, 2, i % 8000 == 7999);
            m = p->x[0]; snap = p->x[1];
        }
    }
    CHECK(!map_is_flat(m));
    CHECK(map_size(m) == N);
    int depth = check_tree(m, THE_NON_VALUE, THE_NON_VALUE);
    CHECK(depth >= 2 && depth <= 4);
    /* the version of 1000 keys is untouched by the 19000 puts after it */
    CHECK(map_size(snap) == 1000);
    check_tree(snap, THE_NON_VALUE, THE_NON_VALUE);
    for (int i = 0; i < 1000; i++) CHECK(map_get(snap, make_small(perm[i])) == make_small(perm[i] * 3));
    CHECK(map_get(snap, make_small(perm[1000])) == THE_NON_VALUE);
    /* positions, views, values */
    MapView v;
    map_view(m, &v);
    CHECK(v.n == N);
    int in_order = 1;
    for (int i = 0; i < N; i++) {
        in_order &= v.keys[i] == make_small(i) && v.vals[i] == make_small(3 * i);
        in_order &= map_index(m, make_small(i)) == i;
        if (i % 97 == 0) in_order &= map_key_at(m, (UWord)i) == make_small(i) && map_val_at(m, (UWord)i) == make_small(3 * i);
    }
    CHECK(in_order);
    CHECK(map_index(m, make_small(N)) < 0);
    map_view_free(&v);
    /* the same pairs at once: as a tree (maps:from_list) and flat (what a
     * literal or a decoded term is), all equal; one value changed: bigger */
    Term *kv = malloc(2 * N * sizeof *kv);
    for (int i = 0; i < N; i++) { kv[2 * i] = make_small(i); kv[2 * i + 1] = make_small(3 * i); }
    Term at_once = map_put_pairs(p, lit_map_empty(), kv, N, 0, NULL);
    CHECK(!map_is_flat(at_once));
    check_tree(at_once, THE_NON_VALUE, THE_NON_VALUE);
    CHECK(term_eq_exact(m, at_once));
    Term keys[N], vals[N];
    for (int i = 0; i < N; i++) { keys[i] = kv[2 * i]; vals[i] = kv[2 * i + 1]; }
    free(kv);
    Term flat = map_flat_build(p, keys, vals, N);
    CHECK(map_is_flat(flat));
    CHECK(map_get(flat, make_small(777)) == make_small(3 * 777));
    CHECK(term_eq_exact(m, flat) && term_eq_exact(flat, m));
    CHECK(term_compare(m, flat) == 0);
    Term bump[2] = { make_small(N - 1), make_small(0) };
    Term m2 = map_put_pairs(p, m, bump, 1, 0, NULL);
    CHECK(term_compare(m2, flat) < 0 && term_compare(flat, m2) > 0);
    CHECK(map_get(m, make_small(N - 1)) == make_small(3 * (N - 1)));
    /* exact update of a missing key */
    Term miss[2] = { make_small(-5), NIL }, missing = NIL;
    CHECK(map_put_pairs(p, m, miss, 1, 1, &missing) == THE_NON_VALUE && missing == make_small(-5));
    /* removals */
    for (int i = 0; i < N; i++) {
        m = map_remove(p, m, make_small(perm[i]));
        UWord left = (UWord)(N - 1 - i);
        CHECK(map_size(m) == left);
        if (left <= MAP_LEAF_MAX / 2) CHECK(map_is_flat(m));
        if (i % 5000 == 0 && !map_is_flat(m)) check_tree(m, THE_NON_VALUE, THE_NON_VALUE);
        if (left == 100) for (int j = i + 1; j < N; j++) CHECK(map_get(m, make_small(perm[j])) == make_small(perm[j] * 3));
    }
    CHECK(map_size(m) == 0);
    free(perm);
}

int main(void) {
    GC_INIT();
    atom_init();
    Process *p = process_new_memory(0);
    test_random(p);
    test_key_order(p);
    test_order(p);
    test_walk(p);
    test_tree(p);
    process_free_memory(p);
    if (failures) { fprintf(stderr, "test_map: %d failures\n", failures); return 1; }
    printf("test_map: ok\n");
    return 0;
}
