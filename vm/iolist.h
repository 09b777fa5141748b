/* iolist.h — one walk over an iolist-shaped term, for everything that
 * flattens one: iolist_to_binary and list_to_bitstring (binary.c) and the
 * character lists of io:format's ~s (format.c).
 *
 * The shape: a list whose elements are integers, binaries or such lists,
 * nested to any depth, with [] or a binary as the tail of any list (or the
 * whole term a binary). Nesting is followed with an explicit stack, so a
 * deep list costs no C stack. Each caller says which binaries count and what
 * an integer and a binary mean to it.
 */
#ifndef MINI_IOLIST_H
#define MINI_IOLIST_H

#include "term.h"

typedef struct IolistVisitor {
    int (*is_leaf)(Term t);              /* a binary this walk accepts     */
    int (*on_int)(void *ctx, SWord c);   /* an integer element; < 0: error */
    int (*on_leaf)(void *ctx, Term b);   /* an accepted binary; < 0: error */
    void *ctx;
} IolistVisitor;

/* 0, or -1 when t is not of the shape (or a callback said no): what was
 * visited before that stays visited. */
int iolist_visit(Term t, const IolistVisitor *v);

#endif
