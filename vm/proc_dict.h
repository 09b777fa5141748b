/* proc_dict.h — the process dictionary's table (put/get/erase in
 * bifs/bif_dict.c): Key/Value pairs in an open-addressing hash table
 * malloc'ed beside the process. The terms themselves live on the process's
 * heap; the table's pairs are roots of every collection (gc.c). */
#ifndef MINI_PROC_DICT_H
#define MINI_PROC_DICT_H

#include <stdint.h>
#include "term.h"

typedef struct ProcDict {
    uint32_t mask;             /* slots - 1; slots is a power of two */
    uint32_t used;             /* pairs held */
    Term kv[];                 /* 2 * slots terms: key, value; key THE_NON_VALUE = empty */
} ProcDict;

/* The slot of key in d (keys match with =:=), or -1. d may be NULL. */
int64_t proc_dict_find(const ProcDict *d, Term key);
/* Stores key => value, growing *dp (which may be NULL) as needed; returns
 * the old value or THE_NON_VALUE when key was new; -1 in *failed (and
 * nothing stored) when memory is refused. */
Term proc_dict_put(ProcDict **dp, Term key, Term value, int *failed);
/* Removes key; returns its value or THE_NON_VALUE. */
Term proc_dict_erase(ProcDict *d, Term key);
void proc_dict_free(ProcDict *d);

/* Walks the pairs: for (i = 0; proc_dict_next(d, &i); i++) kv = d->kv + 2*i. */
static inline int proc_dict_next(const ProcDict *d, uint32_t *i) {
    if (!d) return 0;
    for (; *i <= d->mask; (*i)++)
        if (d->kv[2 * *i] != THE_NON_VALUE) return 1;
    return 0;
}

#endif
