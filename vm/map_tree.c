/* map_tree.c — big maps as a persistent B+ tree of flat maps (map.h has
 * the layout; map.c calls these when a map is a tree).
 *
 * A put or a removal copies the nodes on one path from the root to a leaf
 * and shares every other node with the map it came from, as the old map
 * may still be in use. A leaf that grows past MAP_LEAF_MAX keys splits in
 * two halves, and the parent takes the right half's smallest key as a new
 * separator; a node past MAP_NODE_MAX children splits the same way, and a
 * root that splits gets a new root above it. Removal does not rebalance: a
 * leaf that empties leaves its parent, a node left with one child is
 * replaced by that child, and a map back down to MAP_LEAF_MAX / 2 keys is
 * made flat again. So depth stays that of the largest size the map had,
 * and leaves may be small after many removals; every operation still costs
 * O(depth * MAP_NODE_MAX) at most.
 *
 * Nothing here collects (heap_alloc only), so the node pointers read on the
 * way down stay valid while the path is rebuilt. The recursion is as deep
 * as the tree: about log base 16 of the size.
 */
#include <stdlib.h>
#include <string.h>

#include "map_tree.h"
#include "compare.h"
#include "fatal.h"
#include "literal.h"

static inline UWord node_count(Term m) { return header_arity(boxed_header(m)) - 2; }
static inline Term node_seps(Term m) { return boxed_ptr(m)[2]; }
static inline Term *node_kids(Term m) { return boxed_ptr(m) + 3; }

/* A node of c children (for the caller to fill) over size keys. */
static Term node_alloc(Process *p, UWord c, UWord size, Term seps, Term **kids) {
    Term *hp = heap_alloc(p, 3 + c);
    hp[0] = make_header(c + 2, BOXED_MAP);
    hp[1] = make_small(size);
    hp[2] = seps;
    *kids = hp + 3;
    return make_boxed(hp);
}

static Term tuple_of(Process *p, const Term *elems, UWord n) {
    Term *hp = heap_alloc(p, 1 + n);
    hp[0] = make_tuple_header(n);
    memcpy(hp + 1, elems, n * sizeof(Term));
    return make_boxed(hp);
}

/* A node of the c children kids, its separators their smallest keys. */
static Term node_of(Process *p, const Term *kids, UWord c);

static Term smallest_key(Term m) {
    while (!map_is_flat(m)) m = node_kids(m)[0];
    return map_flat_keys(m)[0];
}

/* Which child of m holds key: the number of separators at or below it. */
static UWord child_index(Term m, Term key) {
    Term st = node_seps(m);
    const Term *s = tuple_elems(st);
    UWord lo = 0, hi = tuple_arity(st);
    while (lo < hi) {
        UWord mid = lo + (hi - lo) / 2;
        if (term_compare_exact(s[mid], key) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

Term map_tree_child_for(Term m, Term key) { return node_kids(m)[child_index(m, key)]; }

Term map_tree_leaf_at(Term m, UWord *i) {
    while (!map_is_flat(m)) {
        const Term *k = node_kids(m);
        UWord c = 0;
        for (UWord s; *i >= (s = map_size(k[c])); c++) *i -= s;
        m = k[c];
    }
    return m;
}

long map_tree_index(Term m, Term key) {
    long before = 0;
    while (!map_is_flat(m)) {
        UWord ci = child_index(m, key);
        for (UWord c = 0; c < ci; c++) before += (long)map_size(node_kids(m)[c]);
        m = node_kids(m)[ci];
    }
    long i = map_flat_index(m, key);
    return i < 0 ? -1 : before + i;
}

static void fill(Term m, Term *keys, Term *vals, UWord *at) {
    if (map_is_flat(m)) {
        UWord n = map_size(m);
        memcpy(keys + *at, map_flat_keys(m), n * sizeof(Term));
        memcpy(vals + *at, map_flat_vals(m), n * sizeof(Term));
        *at += n;
        return;
    }
    for (UWord c = 0; c < node_count(m); c++) fill(node_kids(m)[c], keys, vals, at);
}

void map_tree_fill(Term m, Term *keys, Term *vals) {
    UWord at = 0;
    fill(m, keys, vals, &at);
}

static Term node_of(Process *p, const Term *kids, UWord c) {
    Term seps[MAP_NODE_MAX + 1];
    UWord size = map_size(kids[0]);
    for (UWord i = 1; i < c; i++) {
        seps[i - 1] = smallest_key(kids[i]);
        size += map_size(kids[i]);
    }
    Term *k;
    Term r = node_alloc(p, c, size, tuple_of(p, seps, c - 1), &k);
    memcpy(k, kids, c * sizeof(Term));
    return r;
}

/* Cuts n things into groups of at most max, as even as they come (n > max,
 * so at least two groups): group g starts at n * g / groups. */
static UWord groups_for(UWord n, UWord max) { return (n + max - 1) / max; }

/* Bulk loading fills leaves and nodes three quarters: the next puts into
 * them do not split at once. */
#define FILL(max) ((max) * 3 / 4)

Term map_tree_from_flat(Process *p, const Term *keys, const Term *vals, size_t n) {
    UWord count = groups_for(n, FILL(MAP_LEAF_MAX));
    Term *level = malloc(count * sizeof(Term));
    if (!level) FATAL("out of memory building a map of %zu keys", n);
    for (UWord g = 0; g < count; g++) {
        size_t from = n * g / count, to = n * (g + 1) / count;
        level[g] = map_flat_build(p, keys + from, vals + from, to - from);
    }
    while (count > 1) {
        UWord parents = count <= MAP_NODE_MAX ? 1 : groups_for(count, FILL(MAP_NODE_MAX));
        for (UWord g = 0; g < parents; g++) {
            UWord from = count * g / parents, to = count * (g + 1) / parents;
            level[g] = node_of(p, level + from, to - from);
        }
        count = parents;
    }
    Term root = level[0];
    free(level);
    return root;
}

enum { PUT_MISSING, PUT_SAME, PUT_REPLACED, PUT_ADDED };

/* key => val into the subtree m: *out is the new subtree, and *right a
 * second one beside it when it split (else THE_NON_VALUE). */
static int put_rec(Process *p, Term m, Term key, Term val, int exact, Term *missing,
                   Term *out, Term *right) {
    *right = THE_NON_VALUE;
    if (map_is_flat(m)) {
        UWord n = map_size(m);
        Term r = map_flat_put_one(p, m, key, val, exact, missing);
        if (r == THE_NON_VALUE) return PUT_MISSING;
        *out = r;
        if (r == m) return PUT_SAME;
        UWord rn = map_size(r);
        if (rn > MAP_LEAF_MAX) {
            const Term *k = map_flat_keys(r), *v = map_flat_vals(r);
            UWord h = rn / 2;
            *out = map_flat_build(p, k, v, h);
            *right = map_flat_build(p, k + h, v + h, rn - h);
        }
        return rn > n ? PUT_ADDED : PUT_REPLACED;
    }
    UWord c = node_count(m), ci = child_index(m, key);
    const Term *kids = node_kids(m);
    Term child, sibling;
    int rc = put_rec(p, kids[ci], key, val, exact, missing, &child, &sibling);
    if (rc == PUT_MISSING || rc == PUT_SAME) { *out = m; return rc; }
    if (sibling == THE_NON_VALUE) {          /* same shape: copy this node */
        Term *k;
        *out = node_alloc(p, c, map_size(m) + (rc == PUT_ADDED), node_seps(m), &k);
        memcpy(k, kids, c * sizeof(Term));
        k[ci] = child;
        return rc;
    }
    Term grown[MAP_NODE_MAX + 1];
    memcpy(grown, kids, ci * sizeof(Term));
    grown[ci] = child;
    grown[ci + 1] = sibling;
    memcpy(grown + ci + 2, kids + ci + 1, (c - ci - 1) * sizeof(Term));
    if (c + 1 <= MAP_NODE_MAX) {
        *out = node_of(p, grown, c + 1);
    } else {
        UWord h = (c + 1) / 2;
        *out = node_of(p, grown, h);
        *right = node_of(p, grown + h, c + 1 - h);
    }
    return rc;
}

Term map_tree_put(Process *p, Term m, Term key, Term val, int exact, Term *missing) {
    Term out, right;
    int rc = put_rec(p, m, key, val, exact, missing, &out, &right);
    if (rc == PUT_MISSING) return THE_NON_VALUE;
    if (right == THE_NON_VALUE) return out;
    Term two[2] = { out, right };
    return node_of(p, two, 2);
}

/* The subtree m without key: m when key is absent, THE_NON_VALUE when
 * nothing is left. */
static Term remove_rec(Process *p, Term m, Term key) {
    if (map_is_flat(m)) {
        Term r = map_flat_remove(p, m, key);
        return r != m && map_size(r) == 0 ? THE_NON_VALUE : r;
    }
    UWord c = node_count(m), ci = child_index(m, key);
    const Term *kids = node_kids(m);
    Term child = remove_rec(p, kids[ci], key);
    if (child == kids[ci]) return m;
    Term *k;
    if (child != THE_NON_VALUE) {
        Term r = node_alloc(p, c, map_size(m) - 1, node_seps(m), &k);
        memcpy(k, kids, c * sizeof(Term));
        k[ci] = child;
        return r;
    }
    if (c == 2) return kids[1 - ci];        /* one child left: it replaces m */
    /* drop the child and the separator at its left (at its right for the
     * first child, whose range then goes to the next one) */
    const Term *s = tuple_elems(node_seps(m));
    UWord drop = ci == 0 ? 0 : ci - 1;
    Term seps[MAP_NODE_MAX];
    memcpy(seps, s, drop * sizeof(Term));
    memcpy(seps + drop, s + drop + 1, (c - 2 - drop) * sizeof(Term));
    Term r = node_alloc(p, c - 1, map_size(m) - 1, tuple_of(p, seps, c - 2), &k);
    memcpy(k, kids, ci * sizeof(Term));
    memcpy(k + ci, kids + ci + 1, (c - ci - 1) * sizeof(Term));
    return r;
}

Term map_tree_remove(Process *p, Term m, Term key) {
    Term r = remove_rec(p, m, key);
    if (r == THE_NON_VALUE) return lit_map_empty();
    if (r == m || map_is_flat(r) || map_size(r) > MAP_LEAF_MAX / 2) return r;
    MapView v;
    map_view(r, &v);
    Term flat = map_flat_build(p, v.keys, v.vals, v.n);
    map_view_free(&v);
    return flat;
}
