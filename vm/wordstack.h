/* wordstack.h — a stack of words that starts on the C stack and grows on
 * the malloc heap: the explicit work stack of the iterative term walks
 * (copy_size, phash2, the map hash, the iolist walk), so that a long or
 * deep term needs no C recursion and a small one no malloc.
 *
 *     WordStack s;
 *     ws_init(&s);
 *     ws_push(&s, t);
 *     while (s.n) { Term t = ws_pop(&s); ... }
 *     ws_free(&s);
 *
 * The stack points into itself until it grows: initialise it where it
 * lives and do not copy it. Out of memory aborts the VM (the walks that
 * use it cannot back out). */
#ifndef MINI_WORDSTACK_H
#define MINI_WORDSTACK_H

#include <stddef.h>
#include <stdlib.h>
#include "term.h"

typedef struct {
    UWord *w;
    size_t n, cap;
    UWord small[64];
} WordStack;

/* Doubles the capacity (wordstack.c). */
void ws_grow(WordStack *s);

static inline void ws_init(WordStack *s)
{
    s->w = s->small;
    s->n = 0;
    s->cap = sizeof s->small / sizeof s->small[0];
}

static inline void ws_push(WordStack *s, UWord x)
{
    if (s->n == s->cap)
        ws_grow(s);
    s->w[s->n++] = x;
}

static inline UWord ws_pop(WordStack *s) { return s->w[--s->n]; }

static inline void ws_free(WordStack *s)
{
    if (s->w != s->small)
        free(s->w);
}

#endif
