/* map.h — the layout of a map and the operations on it.
 *
 * A map is a boxed object of kind BOXED_MAP in one of two layouts, told
 * apart by its first payload word. A flat map (a tuple there):
 *
 *     [header: arity N+1, BOXED_MAP][keys][v1][v2] ... [vN]
 *
 * `keys` is a tuple of the N keys in Erlang's map key order (the standard
 * term order, except that every integer sorts before every float, so 1 and
 * 1.0 are different keys: term_compare_exact); value i belongs to key i.
 * This is BEAM's "flat map": lookup is a binary search, an update copies
 * the value words and, when the key set changes, the keys tuple (O(n)). An
 * update that keeps the key set shares the old keys tuple.
 *
 * A map that an update grows past MAP_LEAF_MAX keys becomes a tree (a small
 * integer there), a persistent B+ tree whose leaves are flat maps:
 *
 *     [header: arity C+2, BOXED_MAP][size N][separators][child1] ... [childC]
 *
 * N is the number of keys under the node, the C children are maps (flat
 * leaves or tree nodes) in key order, and `separators` is a tuple of C-1
 * keys: every key of child i+1 and after is >= separator i, every key
 * before it is below. An update copies one path from the root to a leaf
 * (O(log n) nodes of at most MAP_NODE_MAX words) and shares the rest, so a
 * map grown one key at a time costs O(n log n), not O(n^2) (map_tree.c).
 * BEAM's answer is a hash trie; a tree in key order keeps lookups and term
 * order on term_compare_exact, as for flat maps, and walks without sorting.
 *
 * Both layouts hold only terms in their payload, so the collector and the
 * message copier treat a map like a tuple. Either layout may hold any
 * number of keys (maps:from_list, literals and decoded terms build flat
 * maps of any size), so nothing but map.c and map_tree.c reads the layout:
 * everything else goes through map_size, map_get, map_index, map_key_at /
 * map_val_at, or a MapView of the keys and values in key order. Two maps
 * with the same pairs are equal whatever their layouts (compare.c).
 *
 * Walking a map follows OTP. Up to 32 keys that is key order, the order
 * kept here. Above, OTP walks its trie in the order of each key's internal
 * hash: map_walk_order gives that order (map_hamt.c computes it from the
 * keys' hashes, O(n log n), and nothing is stored), and every walk uses it:
 * maps:to_list/keys/values, the fold and iterator funs of stdlib/maps.mini,
 * printing, term_to_binary. Lookup and term order only use key order.
 *
 * Operations that build maps allocate with heap_alloc (never collect), so
 * they may be called from BIFs and emulator instructions alike.
 */
#ifndef MINI_MAP_H
#define MINI_MAP_H

#include "heap.h"
#include "literal.h"

static inline int is_map_term(Term t) { return is_boxed_kind(t, BOXED_MAP); }
/* A tree node has its size where a flat map has its keys tuple. */
static inline int map_is_flat(Term m) { return !is_small(boxed_ptr(m)[1]); }
static inline UWord map_size(Term m) {
    Term w = boxed_ptr(m)[1];
    return is_small(w) ? (UWord)small_val(w) : header_arity(boxed_header(m)) - 1;
}
/* The keys tuple, keys and values of a flat map (map.c and map_tree.c) */
static inline Term map_flat_keys_tuple(Term m) { return boxed_ptr(m)[1]; }
static inline Term *map_flat_keys(Term m) { return tuple_elems(boxed_ptr(m)[1]); }
static inline Term *map_flat_vals(Term m) { return boxed_ptr(m) + 2; }

/* Most keys in a flat map that is a tree's leaf, and most children of a
 * tree node: a put that grows a map past MAP_LEAF_MAX makes it a tree. */
#define MAP_LEAF_MAX 32
#define MAP_NODE_MAX 32

/* The empty map is a literal: lit_map_empty() (literal.h). */

/* The position of key in m's key order, or -1. */
long map_index(Term m, Term key);
/* The value of key in m, or THE_NON_VALUE. */
Term map_get(Term m, Term key);

/* m with the npairs pairs kv[0]=>kv[1], kv[2]=>kv[3], ... put in (a later
 * pair wins over an earlier one with the same key). With `exact`, every key
 * must already be in m: otherwise returns THE_NON_VALUE and sets *missing to
 * the smallest such key (OTP's choice). m must be a map. */
Term map_put_pairs(Process *p, Term m, const Term *kv, size_t npairs, int exact, Term *missing);
/* m without key (m itself when key is absent). */
Term map_remove(Process *p, Term m, Term key);
/* A map of the keys for which keep[i] is set (in m's order). */
Term map_select(Process *p, Term m, const unsigned char *keep);

/* Key and value at position i of m's key order (i < map_size(m)): a load
 * for a flat map, a walk down the tree for a tree. */
Term map_key_at(Term m, UWord i);
Term map_val_at(Term m, UWord i);

/* m's keys and values in key order as two arrays: a flat map's own words,
 * or, for a tree, arrays malloc'ed here (map_view_free frees them). Valid
 * while nothing collects. */
typedef struct MapView {
    const Term *keys, *vals;
    UWord n;
    Term *owned;
} MapView;
void map_view(Term m, MapView *v);
void map_view_free(MapView *v);

/* OTP keeps a map of up to MAP_FLAT_LIMIT keys flat and sorted, a larger
 * one as a hash trie, and walks the two differently (map_hamt.c). */
#define MAP_FLAT_LIMIT 32

typedef enum MapWalk {
    MAP_WALK_ITER,  /* OTP's iterator: maps:fold, iterator/next, printing */
    MAP_WALK_LIST   /* maps:to_list, keys, values, term_to_binary */
} MapWalk;

/* The positions of m's keys in the order OTP walks m that way: NULL when
 * that is key order (at most MAP_FLAT_LIMIT keys, nothing to pay), else a
 * malloc'ed array of map_size(m) indices for the caller to free. Above the
 * limit the two walks are each other's reverse. */
uint32_t *map_walk_order(Term m, MapWalk how);
/* The same, for a walk that meets many maps (term_to_binary, printing):
 * *cache (NULL at first) keeps the sorted keys of every big map met, so
 * that big maps nested in each other's keys are sorted once each, not
 * once per enclosing map. Valid while nothing collects; the walk ends with
 * map_order_cache_free(*cache). */
typedef struct MapOrderCache MapOrderCache;
uint32_t *map_walk_order_cached(Term m, MapWalk how, MapOrderCache **cache);
void map_order_cache_free(MapOrderCache *cache);
/* Position i of a walk: order[i], or i when order is NULL. */
static inline UWord map_walk_at(const uint32_t *order, UWord i) { return order ? order[i] : i; }

/* OTP 25's make_internal_hash(term, salt), the hash that places a key in
 * the trie (map_hamt.c says which kinds of terms match OTP exactly). */
uint32_t map_internal_hash(Term term, uint32_t salt);

#endif
