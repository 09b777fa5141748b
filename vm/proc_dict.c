/* proc_dict.c — the process dictionary's table (see proc_dict.h).
 *
 * Why a table beside the heap, not a list on it: terms on the heap are
 * immutable (and an old-generation cell may not point to a younger one), so
 * a dictionary kept as a list of {K,V} had to copy every cell in front of
 * the entry put/2 replaced: a process that kept a counter among a few
 * hundred keys spent its time copying (480K messages/s with an empty
 * dictionary, 3K with 500 keys). A table outside the heap can be updated in
 * place; its pairs are roots that each collection, minor or major, updates
 * (Erlang/OTP keeps its process dictionary the same way). A process with a
 * big dictionary pays for it at each collection, as in Erlang/OTP.
 *
 * Open addressing with linear probing, at most 3/4 full; erase shifts the
 * following run back (no tombstones), so a lookup ends at the first empty
 * slot. The hash agrees with =:= (slot_of). */
#include <stdlib.h>

#include "proc_dict.h"
#include "compare.h"
#include "map.h"

#define MIN_SLOTS 8

/* An immediate (atom, small integer, local pid) is =:= only to the same
 * word, and to no compound term, so its word, mixed (immed_hash), is its
 * hash: the common keys skip the term walk. */
static uint32_t slot_of(const ProcDict *d, Term key) {
    uint32_t h = is_immed(key) ? immed_hash(key) : map_internal_hash(key, 0);
    return h & d->mask;
}

int64_t proc_dict_find(const ProcDict *d, Term key) {
    if (!d || !d->used) return -1;
    for (uint32_t i = slot_of(d, key);; i = (i + 1) & d->mask) {
        Term k = d->kv[2 * i];
        if (k == THE_NON_VALUE) return -1;
        if (terms_exactly_equal(k, key)) return i;
    }
}

static ProcDict *table_new(uint32_t slots) {
    ProcDict *d = malloc(sizeof *d + 2 * (size_t)slots * sizeof(Term));
    if (!d) return NULL;
    d->mask = slots - 1;
    d->used = 0;
    for (uint32_t i = 0; i < slots; i++) d->kv[2 * i] = THE_NON_VALUE;
    return d;
}

/* Places a key known to be absent (no growing). */
static void insert_new(ProcDict *d, Term key, Term value) {
    uint32_t i = slot_of(d, key);
    while (d->kv[2 * i] != THE_NON_VALUE) i = (i + 1) & d->mask;
    d->kv[2 * i] = key;
    d->kv[2 * i + 1] = value;
    d->used++;
}

Term proc_dict_put(ProcDict **dp, Term key, Term value, int *failed) {
    *failed = 0;
    ProcDict *d = *dp;
    int64_t at = proc_dict_find(d, key);
    if (at >= 0) {
        Term old = d->kv[2 * at + 1];
        d->kv[2 * at + 1] = value;
        return old;
    }
    uint32_t slots = d ? d->mask + 1 : 0;
    if (!d || 4 * ((uint64_t)d->used + 1) > 3 * (uint64_t)slots) {
        ProcDict *bigger = table_new(slots ? 2 * slots : MIN_SLOTS);
        if (!bigger) { *failed = 1; return THE_NON_VALUE; }
        for (uint32_t i = 0; proc_dict_next(d, &i); i++)
            insert_new(bigger, d->kv[2 * i], d->kv[2 * i + 1]);
        free(d);
        *dp = d = bigger;
    }
    insert_new(d, key, value);
    return THE_NON_VALUE;
}

Term proc_dict_erase(ProcDict *d, Term key) {
    int64_t at = proc_dict_find(d, key);
    if (at < 0) return THE_NON_VALUE;
    Term old = d->kv[2 * at + 1];
    /* shift back the run after the hole: each entry moves into the hole
     * unless its home slot lies cyclically in (hole, its slot] */
    uint32_t hole = (uint32_t)at;
    for (uint32_t j = (hole + 1) & d->mask; d->kv[2 * j] != THE_NON_VALUE; j = (j + 1) & d->mask) {
        uint32_t home = slot_of(d, d->kv[2 * j]);
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        d->kv[2 * hole] = d->kv[2 * j];
        d->kv[2 * hole + 1] = d->kv[2 * j + 1];
        hole = j;
    }
    d->kv[2 * hole] = THE_NON_VALUE;
    d->used--;
    return old;
}

void proc_dict_free(ProcDict *d) { free(d); }
