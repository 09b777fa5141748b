/* wordstack.c — growing a WordStack (wordstack.h). */
#include <stdio.h>
#include <string.h>

#include "wordstack.h"
#include "fatal.h"

void ws_grow(WordStack *s)
{
    size_t cap = s->cap * 2;
    UWord *w = s->w == s->small ? malloc(cap * sizeof *w) : realloc(s->w, cap * sizeof *w);
    if (!w) FATAL("out of memory for the work stack of a term walk (%zu words)", cap);
    if (s->w == s->small)
        memcpy(w, s->small, s->n * sizeof *w);
    s->w = w;
    s->cap = cap;
}
