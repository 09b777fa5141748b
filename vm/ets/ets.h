/* ets.h — ETS tables inside the VM: storage, locking, the table registry and
 * owner death (ets_table.c), match specifications (ets_match.c). The BIFs
 * that Erlang code calls are in vm/bifs/bif_ets.c; the parts written in Mini
 * (folds, continuations, i/0) in stdlib/ets.mini.
 *
 * An object lives outside every process heap, in an EtsObj of its own: the
 * tuple copied by copy_term (copy.h), so its large binaries are shared by
 * reference count, and copied again onto the heap of whoever reads it.
 *
 * Locking (docs/internals.md, "ETS"): every operation (but the lock-free
 * lookups, below, and writes of one key, which find their table without
 * the lock and look for the stripe's dead mark under its lock) holds the
 * registry's read lock (a reader-slot lock: no shared cache line between schedulers)
 * for its whole length, so a table cannot be freed under it; deleting,
 * creating, renaming and giving away take it for writing. Inside, a table
 * of type set, bag or duplicate_bag is cut into stripes by key hash (one
 * stripe, or 64 with write_concurrency), each a hash table with its own
 * lock; an ordered_set is an AVL tree under one lock. With write_concurrency
 * an ordered_set starts as one tree and splits a tree whose lock is fought
 * over into two, by key range (the contention-adapting tree's rule; the
 * stripes stay in key order, split at bounds[]), up to ETS_OSET_MAX_STRIPES.
 * The lock kind is ETS_LOCK_SLOTS with read_concurrency, ETS_LOCK_RW
 * without.
 *
 * Reading without locks: ets:lookup, member and lookup_element on a set or
 * an ordered_set that has not split take no lock at all. They find the
 * table and walk the chain or tree as writers change them, and trust what
 * they read only if neither the registry's nor the stripe's sequence count
 * (ets_lock.h) moved meanwhile; else they take the locks as every other
 * operation does. For that: every link such a reader follows, and every word
 * of an object written in place (an immediate over an immediate), is stored
 * with smp_store_release and loaded with smp_load_acquire (smp.h; the
 * sequence count's check relies on both, ets_lock.h), and nothing a reader may stand on is freed while it can:
 * objects, chain arrays and tables are retired (qsbr.h) and freed once
 * every scheduler has been between two slices since.
 */
#ifndef MINI_ETS_H
#define MINI_ETS_H

#include "process.h"
#include "ets_lock.h"
#include "compare.h"
#include "smp.h"

enum { ETS_SET, ETS_ORDERED_SET, ETS_BAG, ETS_DUPLICATE_BAG };

enum { ETS_PUBLIC, ETS_PROTECTED, ETS_PRIVATE };

/* What a search reads of every object it passes comes first: a chain walk
 * reads next and ikey (or hash, for a boxed key), a tree walk left, right
 * and ikey, all in the first 36 bytes. malloc aligns to 16 bytes, so the
 * 32 bytes of next to ikey lie in one cache line for three objects in four
 * (with ikey at the end of the header, as it was, for one in four): each
 * object passed in a table bigger than the first-level cache is a line
 * brought in. */
typedef struct EtsObj {
    struct EtsObj *next;         /* hash chain (set and bags)                */
    struct EtsObj *left, *right; /* AVL children (ordered_set)               */
    Term ikey;                   /* the key when an immediate, else
                                    THE_NON_VALUE (set by ets_stripe_insert):
                                    a search compares it without reading
                                    data[], often the next cache line        */
    uint32_t hash;
    int height;
    Term term;                   /* the tuple, inside data[]                 */
    int flat;                    /* a tuple of immediates: data[] is just it */
    uint32_t bins;               /* ProcBins in data[] (0: a copy-out need not adopt) */
    size_t words;                /* of data[]: the copy size of the whole term */
    Term data[];
} EtsObj;

/* Cache-line aligned: the stripes of a write_concurrency table are written
 * by different schedulers, and must not share lines. */
typedef struct EtsStripe {
    _Alignas(64) EtsLock lock;
    EtsObj **buckets;            /* set, bags: chains; objects of one key are
                                    adjacent, in insertion order              */
    size_t nbuckets, count;
    EtsObj *root;                /* ordered_set                              */
    atomic_long size, words;     /* objects, words: changed under the write
                                    lock, read without it (ets:info)         */
    atomic_int contention;       /* ordered_set with write_concurrency: the
                                    split statistic (ets_oset_note)           */
    int dead;                    /* its table was deleted: set under the
                                    write lock, for writers that found the
                                    table without the registry's lock        */
} EtsStripe;

/* An ordered_set with write_concurrency splits into at most this many
 * trees. */
#define ETS_OSET_MAX_STRIPES 64

typedef struct EtsTable {
    uint64_t id;                 /* the reference number of its tid          */
    Term name;                   /* atom                                     */
    int named, type, access, keypos;
    int read_conc, write_conc;
    Term owner;                  /* pid; changes under the registry's write lock */
    Term heir;                   /* pid or ATOM_TERM(none)                           */
    EtsObj *heir_data;           /* copied HeirData (a 1-tuple), or NULL     */
    int nstripes;
    EtsStripe *stripes;
    /* ordered_set with write_concurrency: bounds[i] (a copied 1-tuple {Key})
     * is the least key of stripe i + 1; nstripes and bounds change only
     * under the registry's write lock, so a holder of its read lock may
     * route by them. split_wanted: a stripe's statistic asks for a split. */
    int oset_split;
    EtsObj **bounds;
    atomic_int split_wanted;
    struct EtsTable *next, *next_name;  /* registry chains: by id, by name  */
} EtsTable;

/* ---- the registry (ets_table.c) ---- */
/* Every operation brackets its work with these (shared, cheap). */
extern EtsLock ets_reg_lock;
static inline void ets_registry_rlock(void) { ets_rlock(&ets_reg_lock); }
static inline void ets_registry_runlock(void) { ets_runlock(&ets_reg_lock); }
static inline void ets_registry_wlock(void) { ets_wlock(&ets_reg_lock); }
static inline void ets_registry_wunlock(void) { ets_wunlock(&ets_reg_lock); }
/* The table that tid (a reference or a name) names, under the read lock;
 * NULL if none. */
EtsTable *ets_find(Term tid);
/* The tid Erlang sees: the name of a named table, else the reference
 * (built on p's heap, or at hp when p is NULL: REF_WORDS words). */
Term ets_tid(Process *p, EtsTable *t, Term *hp);

/* The same without the lock (a lock-free lookup, see above): the caller
 * checks the registry's sequence count afterwards. */
EtsTable *ets_find_lockfree(Term tid);

/* Creates and registers a table (takes the write lock). NULL with *why set:
 * 1 the name is taken, 2 out of memory. */
EtsTable *ets_create(Process *owner, Term name, int named, int type, int access, int keypos,
                     int read_conc, int write_conc, Term heir, Term heir_data, int *why);
/* Removes t from the registry and frees it: the caller holds the write lock. */
void ets_destroy_locked(EtsTable *t);
/* Renames (write lock held); -1 if the name is taken. */
int ets_rename_locked(EtsTable *t, Term name);
/* All tids, as a list on p's heap (read lock held). */
Term ets_all(Process *p);
/* A process that owns tables is exiting (proc_exit calls it): its tables
 * go to their heirs with an 'ETS-TRANSFER' message, or die. */
void ets_owner_exit(Process *p);
/* Gives t to pid with {'ETS-TRANSFER', Tid, From, Data} (write lock held);
 * if pid is dead or dying, t is deleted instead. */
void ets_transfer_locked(EtsTable *t, Term to, Term from, Term data);

/* Objects and words in t, summed over its stripes (no lock: a moment's
 * sum while writers work). */
long ets_table_size(EtsTable *t);
long ets_table_words(EtsTable *t);

/* ---- objects ---- */
/* The hash of a key: an immediate's (the usual key) is immed_hash (term.h
 * says why it is two rounds), inline; others take the term hash. */
uint32_t ets_hash_boxed(Term key);
static inline uint32_t ets_hash(Term key)
{
    if (is_immed(key)) return immed_hash(key);
    return ets_hash_boxed(key);
}
static inline Term ets_key(const EtsTable *t, Term obj) { return tuple_elems(obj)[t->keypos - 1]; }
/* Keys equal as the table compares them: == for ordered_set, =:= else. */
int ets_key_eq(const EtsTable *t, Term a, Term b);
/* ordered_set key order: term_compare, with two small integers compared
 * without the call */
static inline int ets_key_cmp(Term a, Term b)
{
    if (is_small(a) && is_small(b)) return (small_val(a) > small_val(b)) - (small_val(a) < small_val(b));
    return term_compare(a, b);
}
/* A tuple of immediates: copied into and out of a table word for word. */
static inline int ets_tuple_flat(Term tuple)
{
    UWord a = tuple_arity(tuple);
    const Term *e = tuple_elems(tuple);
    for (UWord i = 0; i < a; i++) if (!is_immed(e[i])) return 0;
    return 1;
}
EtsObj *ets_obj_new(Term obj, uint32_t hash);
/* Frees an object no reader can have seen (never in a table). */
void ets_obj_free(EtsObj *o);
/* Frees an object taken out of a table once no lock-free reader can stand
 * on it (qsbr.h). */
void ets_obj_retire(EtsObj *o);
/* A copy of the stored term on p's heap (its binaries adopted by p), or
 * THE_NON_VALUE when the system refuses the words (p is then marked to die
 * for want of memory; the caller unlocks and returns bif_out_of_memory). */
Term ets_copy_out(Process *p, Term t);
/* The same for a whole object, with its size and binaries known, into hp
 * (o->words free words; NULL: allocated here). */
Term ets_copy_out_obj(Process *p, const EtsObj *o, Term *hp);

/* The stripe a key lives in. */
static inline EtsStripe *ets_stripe(EtsTable *t, uint32_t hash)
{
    return &t->stripes[t->nstripes == 1 ? 0 : (hash >> 26) % (uint32_t)t->nstripes];
}
/* ordered_set: the stripe whose key range holds key (binary search of the
 * bounds; stripe 0 while the table has not split). */
int ets_oset_index(const EtsTable *t, Term key);
/* The stripe of a key, any table type (hash: the key's hash). */
static inline EtsStripe *ets_key_stripe(EtsTable *t, Term key, uint32_t hash)
{
    if (t->type != ETS_ORDERED_SET) return ets_stripe(t, hash);
    return &t->stripes[t->nstripes == 1 ? 0 : ets_oset_index(t, key)];
}

/* The contention-adapting statistic of an ordered_set with
 * write_concurrency (docs/internals.md, "ETS"): a lock taken only after
 * waiting adds ETS_OSET_CONTENDED, a write lock taken at once takes 1
 * away; past ETS_OSET_SPLIT_AT the table asks for a split, done by
 * ets_oset_split_wanted once the operation has let go of every lock. */
#define ETS_OSET_CONTENDED 250
#define ETS_OSET_SPLIT_AT 1000
#define ETS_OSET_FLOOR (-1000)
#define ETS_OSET_GAVE_UP (-1000000)
static inline void ets_oset_note(EtsTable *t, EtsStripe *s, int waited)
{
    int c = atomic_load_explicit(&s->contention, memory_order_relaxed);
    if (waited) {
        c += ETS_OSET_CONTENDED;
        if (c > ETS_OSET_SPLIT_AT && t->nstripes < ETS_OSET_MAX_STRIPES)
            atomic_store_explicit(&t->split_wanted, 1, memory_order_relaxed);
    } else if (c > ETS_OSET_FLOOR) {
        c--;                     /* (a stripe that gave up stays below) */
    } else {
        return;
    }
    atomic_store_explicit(&s->contention, c, memory_order_relaxed);
}
/* The stripe locks every operation on one key takes: for an ordered_set
 * with write_concurrency they keep the statistic (readers only count
 * waits, so that a lookup writes nothing of the stripe's but its lock). */
static inline void ets_stripe_wlock(EtsTable *t, EtsStripe *s)
{
    if (!t->oset_split) { ets_wlock(&s->lock); return; }
    ets_oset_note(t, s, !ets_wlock_noted(&s->lock));
}
static inline void ets_stripe_rlock(EtsTable *t, EtsStripe *s)
{
    if (!t->oset_split) { ets_rlock(&s->lock); return; }
    if (!ets_rlock_noted(&s->lock)) ets_oset_note(t, s, 1);
}
/* Called with the registry read lock held, at the end of an operation on
 * t: releases the lock and, if t asked for it, splits its contended
 * stripes under the write lock. */
void ets_oset_split_wanted(EtsTable *t);

/* Within a locked stripe: the first object of a key (set and bags: and
 * *prevp the link that points to it), NULL if none. */
EtsObj *ets_stripe_find_any(EtsTable *t, EtsStripe *s, Term key, uint32_t hash, EtsObj ***prevp);
/* (a hash table searched for an immediate key, the usual case, inline: such
 * a key is =:= only to the same word, so no compare call) */
static inline EtsObj *ets_stripe_find(EtsTable *t, EtsStripe *s, Term key, uint32_t hash, EtsObj ***prevp)
{
    if (t->type == ETS_ORDERED_SET || !is_immed(key) || !s->nbuckets)
        return ets_stripe_find_any(t, s, key, hash, prevp);
    EtsObj **pp = &s->buckets[hash & (s->nbuckets - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->ikey == key) {
            if (prevp) *prevp = pp;
            return *pp;
        }
    return NULL;
}
/* Without any lock: the object of key in a set or an ordered_set that has
 * not split, NULL if none, or ETS_LF_GAVE_UP when the walk went on for
 * longer than a consistent chain or tree allows (a writer is reshaping
 * it). Valid only if the stripe's sequence count did not move. */
#define ETS_LF_GAVE_UP ((EtsObj *)1)
/* A set's chain holds about one key; a longer walk is one a writer is
 * reshaping under the reader (whose check of the sequence count would
 * fail anyway). */
#define ETS_LF_HASH_MAX 4096
EtsObj *ets_stripe_find_lockfree_any(EtsTable *t, EtsStripe *s, Term key, uint32_t hash);
/* The usual case, a set searched for an immediate key, inline: such a key
 * is =:= only to the same word, compared without reading the object's
 * data (whose words may be written in place meanwhile). */
static inline EtsObj *ets_stripe_find_lockfree(EtsTable *t, EtsStripe *s, Term key, uint32_t hash)
{
    if (t->type == ETS_ORDERED_SET || !is_immed(key))
        return ets_stripe_find_lockfree_any(t, s, key, hash);
    size_t nb = smp_load_acquire(&s->nbuckets);
    if (!nb) return NULL;
    EtsObj **b = smp_load_acquire(&s->buckets);
    int steps = 0;
    for (EtsObj *o = smp_load_acquire(&b[hash & (nb - 1)]); o; o = smp_load_acquire(&o->next)) {
        if (o->ikey == key) return o;
        if (++steps > ETS_LF_HASH_MAX) return ETS_LF_GAVE_UP;
    }
    return NULL;
}

/* Inserts o into a write-locked stripe as the table's type says (replacing
 * an object of the same key in a set or ordered_set, skipping an exact
 * duplicate in a bag). */
void ets_stripe_insert(EtsTable *t, EtsStripe *s, EtsObj *o);
/* Unlinks and frees every object of a key; returns how many. */
long ets_stripe_delete_key(EtsTable *t, EtsStripe *s, Term key, uint32_t hash);
/* Unlinks and frees one object (found by address). */
void ets_stripe_remove(EtsTable *t, EtsStripe *s, EtsObj *o);
/* Frees every object of a write-locked stripe. */
void ets_stripe_clear(EtsTable *t, EtsStripe *s);

/* Calls fn on every object of a read-locked (or write-locked) stripe, in
 * key order for an ordered_set (reverse: descending); fn returns 0 to go on,
 * 1 to stop. fn may remove the object it is given (with ets_stripe_remove)
 * when the stripe is write-locked. */
typedef int (*EtsVisit)(EtsTable *t, EtsStripe *s, EtsObj *o, void *ctx);
int ets_stripe_each(EtsTable *t, EtsStripe *s, int reverse, EtsVisit fn, void *ctx);

/* ordered_set neighbours within a locked stripe: the first object with
 * key > k (or < k when back), or the first/last when k is THE_NON_VALUE;
 * NULL if none. */
EtsObj *ets_tree_step(EtsTable *t, EtsStripe *s, Term k, int back);
/* set and bags: the first key after key's objects, in stripe and chain
 * order (THE_NON_VALUE: the first of all); NULL at the end; *missing when
 * key is not in the table. Takes the stripes' read locks itself. The key is
 * copied to p's heap. */
Term ets_hash_next(Process *p, EtsTable *t, Term key, int *missing);

/* ---- match specifications (ets_match.c) ---- */
typedef struct EtsMs EtsMs;
/* Checks and prepares a match specification (a term on p's heap); NULL if
 * it is malformed (badarg) or memory ran out, which *oom (when not NULL)
 * tells apart: the caller then dies of it as any BIF without memory does
 * (bif_out_of_memory), not of a badarg. */
EtsMs *ets_ms_compile(Term ms, int *oom);
/* The same; any_pattern lets a clause's pattern be any term (test_ms,
 * match_spec_run: the objects need not be tuples); why (NULL or a buffer)
 * receives erlang:match_spec_test's message for a malformed one. */
struct OutBuf;
EtsMs *ets_ms_compile_ex(Term ms, int any_pattern, struct OutBuf *why, int *oom);
void ets_ms_free(EtsMs *ms);
/* Runs ms on one object: 1 and *result (which may point into the object:
 * the caller copies it out) if a clause matched, 0 if none. */
int ets_ms_run(Process *p, EtsMs *ms, Term obj, Term *result);
/* The key the ms's every clause requires bound to a constant, or
 * THE_NON_VALUE (then every object is visited). */
Term ets_ms_bound_key(EtsMs *ms, int keypos);

#endif
