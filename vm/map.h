/* map.h — the layout of a map and the operations on it.
 *
 * A map is a boxed object of kind BOXED_MAP with N + 1 payload words:
 *
 *     [header: arity N+1, BOXED_MAP][keys][v1][v2] ... [vN]
 *
 * `keys` is a tuple of the N keys in Erlang's map key order (the standard
 * term order, except that every integer sorts before every float, so 1 and
 * 1.0 are different keys: term_compare_exact); value i belongs to key i.
 * Every payload word is a term, so the collector and the message copier
 * treat a map like a tuple. This is BEAM's "flat map". BEAM switches to a
 * hash trie above 32 keys; Mini keeps every map flat: lookup is a binary
 * search (O(log n)), and an update copies the value words and, when the key
 * set changes, the keys tuple (O(n)). An update that keeps the key set
 * (`:=`, or `=>` on existing keys) shares the old keys tuple.
 *
 * Walking a map follows OTP. Up to 32 keys that is key order, the order
 * kept here. Above, OTP walks its trie in the order of each key's internal
 * hash: map_walk_order gives that order (map_hamt.c computes it from the
 * keys' hashes, O(n log n), and nothing is stored), and every walk uses it:
 * maps:to_list/keys/values, the fold and iterator funs of stdlib/maps.mini,
 * printing, term_to_binary. Lookup and term order only use the sorted keys.
 *
 * Operations that build maps allocate with heap_alloc (never collect), so
 * they may be called from BIFs and emulator instructions alike.
 */
#ifndef MINI_MAP_H
#define MINI_MAP_H

#include "heap.h"
#include "literal.h"

static inline int is_map_term(Term t) { return is_boxed_kind(t, BOXED_MAP); }
static inline UWord map_size(Term m) { return header_arity(boxed_header(m)) - 1; }
static inline Term map_keys_tuple(Term m) { return boxed_ptr(m)[1]; }
static inline Term *map_keys(Term m) { return tuple_elems(boxed_ptr(m)[1]); }
static inline Term *map_vals(Term m) { return boxed_ptr(m) + 2; }

/* The empty map is a literal: lit_map_empty() (literal.h). */

/* Index of key in m, or -1. */
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
