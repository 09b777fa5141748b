/* bif_dict.c — the process dictionary's BIFs: put/get/erase and friends
 * over p->dict, the hash table of proc_dict.c (keys match with =:=).
 * get/0 and get_keys/0 list in table order (Erlang's order is its own
 * table's, documented as undefined). */
#include "bif.h"
#include "atom.h"
#include "gc.h"
#include "proc_dict.h"
#include "compare.h"
#include "mem_limit.h"

Term bif_put_2(Process *p, Term *args) {
    int failed;
    Term old = proc_dict_put(&p->dict, args[0], args[1], &failed);
    if (failed) {                  /* the table could not grow: as a heap that cannot */
        gc_out_of_memory(p, OOM_NOMEM);
        p->reds = 0;
        return AM_undefined;
    }
    return old == THE_NON_VALUE ? AM_undefined : old;
}

Term bif_get_1(Process *p, Term *args) {
    int64_t at = proc_dict_find(p->dict, args[0]);
    return at < 0 ? AM_undefined : p->dict->kv[2 * at + 1];
}

/* The pairs as a list of {Key, Value}. */
static Term dict_list(Process *p) {
    const ProcDict *d = p->dict;
    if (!d || !d->used) return NIL;
    Term *hp, res = NIL;
    BIF_ALLOC(p, hp, 5 * (size_t)d->used);
    for (uint32_t i = 0; proc_dict_next(d, &i); i++, hp += 5) {
        hp[0] = make_tuple_header(2);
        hp[1] = d->kv[2 * i];
        hp[2] = d->kv[2 * i + 1];
        hp[3] = make_boxed(hp);
        hp[4] = res;
        res = make_list(hp + 3);
    }
    return res;
}

Term bif_get_0(Process *p, Term *args) {
    (void)args;
    return dict_list(p);
}

Term bif_erase_1(Process *p, Term *args) {
    Term old = p->dict ? proc_dict_erase(p->dict, args[0]) : THE_NON_VALUE;
    return old == THE_NON_VALUE ? AM_undefined : old;
}

Term bif_erase_0(Process *p, Term *args) {
    (void)args;
    Term all = dict_list(p);
    if (all == THE_NON_VALUE)                  /* no memory for the list */
        return all;
    proc_dict_free(p->dict);
    p->dict = NULL;
    return all;
}

/* The keys, or with `value` given (not THE_NON_VALUE) those whose value is
 * exactly it. */
static Term dict_keys(Process *p, Term value) {
    const ProcDict *d = p->dict;
    Term res = NIL, *hp;
    size_t n = 0;                      /* one allocation, counted first */
    for (uint32_t i = 0; proc_dict_next(d, &i); i++)
        n += value == THE_NON_VALUE || terms_exactly_equal(d->kv[2 * i + 1], value);
    if (!n)
        return NIL;
    BIF_ALLOC(p, hp, 2 * n);
    for (uint32_t i = 0; proc_dict_next(d, &i); i++) {
        if (value != THE_NON_VALUE && !terms_exactly_equal(d->kv[2 * i + 1], value)) continue;
        hp += 2;
        hp[-2] = d->kv[2 * i];
        hp[-1] = res;
        res = make_list(hp - 2);
    }
    return res;
}

Term bif_get_keys_0(Process *p, Term *args) {
    (void)args;
    return dict_keys(p, THE_NON_VALUE);
}

Term bif_get_keys_1(Process *p, Term *args) { return dict_keys(p, args[0]); }
