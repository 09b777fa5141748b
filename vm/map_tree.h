/* map_tree.h — the tree layout of big maps (map.h), for map.c: the flat
 * operations map_tree.c builds its leaves with, and the tree operations
 * map.c's entry points call when a map is a tree. */
#ifndef MINI_MAP_TREE_H
#define MINI_MAP_TREE_H

#include "map.h"

/* flat maps (map.c) */
long map_flat_index(Term m, Term key);
Term map_flat_build(Process *p, const Term *keys, const Term *vals, size_t n);
/* m with key => val; never a tree (callers split what grows too big) */
Term map_flat_put_one(Process *p, Term m, Term key, Term val, int exact, Term *missing);
Term map_flat_remove(Process *p, Term m, Term key);

/* trees (map_tree.c); m is a tree node */
/* The child of m whose key range holds key. */
Term map_tree_child_for(Term m, Term key);
/* The leaf holding position *i of m's key order; *i becomes the position
 * in that leaf. */
Term map_tree_leaf_at(Term m, UWord *i);
long map_tree_index(Term m, Term key);
/* m's keys and values in key order into keys[] and vals[]. */
void map_tree_fill(Term m, Term *keys, Term *vals);
/* A tree of the n sorted pairs keys/vals (n >= MAP_LEAF_MAX: two leaves at least). */
Term map_tree_from_flat(Process *p, const Term *keys, const Term *vals, size_t n);
Term map_tree_put(Process *p, Term m, Term key, Term val, int exact, Term *missing);
/* m without key: m itself when key is absent; a flat map once small. */
Term map_tree_remove(Process *p, Term m, Term key);

#endif
