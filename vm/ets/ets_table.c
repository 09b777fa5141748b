/* ets_table.c — ETS storage: the registry of tables, objects copied out of
 * and into process heaps, the striped hash tables of set/bag/duplicate_bag,
 * the AVL tree of ordered_set, and what happens to a table when its owner
 * dies. The locking rules are in ets.h. */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "ets.h"
#include "atom.h"
#include "compare.h"
#include "copy.h"
#include "binary.h"
#include "heap.h"
#include "map.h"
#include "proc.h"
#include "sched.h"
#include "qsbr.h"

/* Stripes of a set or bag with write_concurrency: writers of keys in
 * different stripes run at once; 64 is OTP's lock count for the same option
 * and keeps an idle table small. */
#define ETS_WC_STRIPES 64
#define ETS_MIN_BUCKETS 8

/* ---- the registry ---- */

/* Statically initialised, so that the read path (every operation) needs
 * no once-check: one reader slot per possible scheduler, because every
 * lookup of every table takes this lock and it must not be a shared write. */
#define REG_MIN_BUCKETS 64
_Static_assert((MAX_SCHEDULERS & (MAX_SCHEDULERS - 1)) == 0, "the registry's slot mask needs a power of two");
static EtsSlot reg_slots[MAX_SCHEDULERS];
EtsLock ets_reg_lock = { .kind = ETS_LOCK_SLOTS, .nslots = MAX_SCHEDULERS,
                         .slot_mask = MAX_SCHEDULERS - 1,     /* (a power of two) */
                         .wmu = PTHREAD_MUTEX_INITIALIZER, .slots = reg_slots };
static EtsTable *by_id0[REG_MIN_BUCKETS], *by_name0[REG_MIN_BUCKETS];
static EtsTable **by_id = by_id0, **by_name = by_name0;
static size_t reg_buckets = REG_MIN_BUCKETS, reg_count;

/* The registry's arrays only grow: a new array is stored before its size,
 * so a lock-free reader that loads the size first never indexes past the
 * array it then loads. */
static inline size_t id_slot_in(uint64_t id, size_t nb) { return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 40) & (nb - 1); }
static inline size_t name_slot_in(Term name, size_t nb) { return (size_t)((atom_val(name) * 0x9E3779B97F4A7C15ull) >> 40) & (nb - 1); }
static inline size_t id_slot(uint64_t id) { return id_slot_in(id, reg_buckets); }
static inline size_t name_slot(Term name) { return name_slot_in(name, reg_buckets); }

static EtsTable *find_name(Term name)
{
    for (EtsTable *t = by_name[name_slot(name)]; t; t = t->next_name)
        if (t->name == name) return t;
    return NULL;
}

EtsTable *ets_find(Term tid)
{
    if (is_atom(tid)) return find_name(tid);
    if (!is_ref(tid) || header_arity(boxed_header(tid)) != 1) return NULL;
    uint64_t id = ref_number(tid);
    for (EtsTable *t = by_id[id_slot(id)]; t; t = t->next)
        if (t->id == id) return t;
    return NULL;
}

/* A walk of a registry chain longer than this is one a writer is
 * relinking (reg_grow): the reader gives up and takes the lock. */
#define LF_CHAIN_MAX 4096

EtsTable *ets_find_lockfree(Term tid)
{
    size_t nb = smp_load_acquire(&reg_buckets);
    int steps = 0;
    if (is_atom(tid)) {
        EtsTable **arr = smp_load_acquire(&by_name);
        for (EtsTable *t = smp_load_acquire(&arr[name_slot_in(tid, nb)]); t && steps < LF_CHAIN_MAX;
             t = smp_load_acquire(&t->next_name), steps++)
            if (smp_load_acquire(&t->name) == tid) return t;
        return NULL;
    }
    if (!is_ref(tid) || header_arity(boxed_header(tid)) != 1) return NULL;
    uint64_t id = ref_number(tid);
    EtsTable **arr = smp_load_acquire(&by_id);
    for (EtsTable *t = smp_load_acquire(&arr[id_slot_in(id, nb)]); t && steps < LF_CHAIN_MAX; t = smp_load_acquire(&t->next), steps++)
        if (t->id == id) return t;
    return NULL;
}

Term ets_tid(Process *p, EtsTable *t, Term *hp)
{
    if (t->named) return t->name;
    if (!hp) hp = heap_alloc(p, REF_WORDS);
    return make_ref_at(hp, t->id);
}

static void reg_grow(void)
{
    size_t nb = reg_buckets * 2;
    EtsTable **ni = calloc(nb, sizeof *ni), **nn = calloc(nb, sizeof *nn);
    if (!ni || !nn) { free(ni); free(nn); return; }
    size_t old = reg_buckets;
    EtsTable **oi = by_id, **on = by_name;
    /* (lock-free readers still walking the old chains give up or fail
     * their check of the registry's sequence count) */
    for (size_t i = 0; i < old; i++)
        for (EtsTable *t = oi[i], *nx; t; t = nx) {
            nx = t->next;
            size_t s = id_slot_in(t->id, nb);
            smp_store_release(&t->next, ni[s]); ni[s] = t;
            if (t->named) { s = name_slot_in(t->name, nb); smp_store_release(&t->next_name, nn[s]); nn[s] = t; }
        }
    smp_store_release(&by_id, ni);
    smp_store_release(&by_name, nn);
    smp_store_release(&reg_buckets, nb);
    if (oi != by_id0) { qsbr_retire(oi, free); qsbr_retire(on, free); }
}

static void unlink_name(EtsTable *t)
{
    for (EtsTable **pp = &by_name[name_slot(t->name)]; *pp; pp = &(*pp)->next_name)
        if (*pp == t) { smp_store_release(pp, t->next_name); return; }
}

EtsTable *ets_create(Process *owner, Term name, int named, int type, int access, int keypos,
                     int read_conc, int write_conc, Term heir, Term heir_data, int *why)
{
    EtsTable *t = calloc(1, sizeof *t);
    if (!t) { *why = 2; return NULL; }
    t->name = name; t->named = named; t->type = type; t->access = access; t->keypos = keypos;
    t->read_conc = read_conc; t->write_conc = write_conc;
    t->owner = owner->pid; t->heir = heir;
    if (heir != ATOM_TERM(none)) {
        Term tmp[3] = { make_tuple_header(1), heir_data, 0 };
        t->heir_data = ets_obj_new(make_boxed(tmp), 0);
    }
    t->nstripes = (type != ETS_ORDERED_SET && write_conc) ? ETS_WC_STRIPES : 1;
    /* an ordered_set with write_concurrency has room for all the stripes
     * it may split into: a split then moves no lock */
    t->oset_split = type == ETS_ORDERED_SET && write_conc;
    size_t room = t->oset_split ? ETS_OSET_MAX_STRIPES : (size_t)t->nstripes;
    t->stripes = aligned_alloc(64, ((sizeof(EtsStripe) * room + 63) / 64) * 64);
    if (t->oset_split) t->bounds = calloc(ETS_OSET_MAX_STRIPES, sizeof *t->bounds);
    if (!t->stripes || (t->oset_split && !t->bounds)) { free(t->stripes); free(t->bounds); free(t); *why = 2; return NULL; }
    memset(t->stripes, 0, sizeof(EtsStripe) * room);
    int nslots = sched_count();
    for (int i = 0; i < t->nstripes; i++)
        ets_lock_init(&t->stripes[i].lock, read_conc ? ETS_LOCK_SLOTS : ETS_LOCK_RW, nslots);
    t->id = proc_new_ref();

    ets_registry_wlock();
    if (named && find_name(name)) {
        ets_registry_wunlock();
        for (int i = 0; i < t->nstripes; i++) ets_lock_destroy(&t->stripes[i].lock);
        if (t->heir_data) ets_obj_free(t->heir_data);
        free(t->stripes); free(t->bounds); free(t);
        *why = 1;
        return NULL;
    }
    if (reg_count >= reg_buckets) reg_grow();
    size_t s = id_slot(t->id);
    t->next = by_id[s]; smp_store_release(&by_id[s], t);
    if (named) { s = name_slot(name); t->next_name = by_name[s]; smp_store_release(&by_name[s], t); }
    reg_count++;
    atomic_fetch_add(&owner->ets_owned, 1);
    ets_registry_wunlock();
    return t;
}

/* What is left of a table once its objects are retired: freed when no
 * lock-free reader can be inside it. */
static void table_free(void *arg)
{
    EtsTable *t = arg;
    for (int i = 0; i < t->nstripes; i++) {
        free(t->stripes[i].buckets);
        ets_lock_destroy(&t->stripes[i].lock);
    }
    for (int i = 0; i + 1 < t->nstripes && t->bounds; i++) ets_obj_free(t->bounds[i]);
    if (t->heir_data) ets_obj_free(t->heir_data);
    free(t->stripes);
    free(t->bounds);
    free(t);
}

void ets_destroy_locked(EtsTable *t)
{
    for (EtsTable **pp = &by_id[id_slot(t->id)]; *pp; pp = &(*pp)->next)
        if (*pp == t) { smp_store_release(pp, t->next); break; }
    if (t->named) unlink_name(t);
    reg_count--;
    Process *o = proc_lookup(t->owner);
    if (o) { atomic_fetch_sub(&o->ets_owned, 1); proc_release(o); }
    /* under each stripe's lock: a writer that found t without the
     * registry's lock may be inside one, or waiting for it (and then finds
     * it dead) */
    for (int i = 0; i < t->nstripes; i++) {
        EtsStripe *s = &t->stripes[i];
        ets_wlock(&s->lock);
        s->dead = 1;
        ets_stripe_clear(t, s);
        ets_wunlock(&s->lock);
    }
    qsbr_retire(t, table_free);
}

int ets_rename_locked(EtsTable *t, Term name)
{
    EtsTable *o = find_name(name);
    if (o && o != t) return -1;
    if (t->named) unlink_name(t);
    smp_store_release(&t->name, name);
    if (t->named) { size_t s = name_slot(name); smp_store_release(&t->next_name, by_name[s]); smp_store_release(&by_name[s], t); }
    return 0;
}

Term ets_all(Process *p)
{
    Term l = NIL;
    for (size_t i = 0; i < reg_buckets; i++)
        for (EtsTable *t = by_id[i]; t; t = t->next) {
            Term *hp = heap_alloc(p, 2 + REF_WORDS);
            hp[0] = ets_tid(p, t, hp + 2);
            hp[1] = l;
            l = make_list(hp);
        }
    return l;
}

void ets_transfer_locked(EtsTable *t, Term to, Term from, Term data)
{
    Process *o = proc_lookup(t->owner);
    if (o) { atomic_fetch_sub(&o->ets_owned, 1); proc_release(o); }
    Process *n = proc_lookup(to);
    if (n) { atomic_fetch_add(&n->ets_owned, 1); proc_release(n); }
    smp_store_release(&t->owner, to);
    /* The receiver may be exiting: proc_exit removes it from the pid table,
     * then reads ets_owned. Counted first and looked up again after, either
     * its exit sees the count (and hands the table on under this lock,
     * later) or this lookup fails and the table dies here, as a table whose
     * owner died; both at once find the table only once. */
    Process *again = n ? proc_lookup(to) : NULL;
    if (!again) { ets_destroy_locked(t); return; }
    proc_release(again);
    Term hp[5 + REF_WORDS];
    hp[0] = make_tuple_header(4);
    hp[1] = ATOM_TERM(ETS_TRANSFER);
    hp[2] = t->named ? t->name : make_ref_at(hp + 5, t->id);
    hp[3] = from;
    hp[4] = data;
    Message *m = proc_message_copy(make_boxed(hp));
    if (m) proc_deliver(to, m);
}

void ets_owner_exit(Process *p)
{
    ets_registry_wlock();
    for (size_t i = 0; i < reg_buckets; i++)
        for (EtsTable *t = by_id[i], *nx; t; t = nx) {
            nx = t->next;
            if (t->owner != p->pid) continue;
            Process *h = t->heir != ATOM_TERM(none) && t->heir != p->pid ? proc_lookup(t->heir) : NULL;
            if (h) {
                proc_release(h);
                Term data = tuple_elems(t->heir_data->term)[0];
                ets_transfer_locked(t, t->heir, p->pid, data);
            } else {
                ets_destroy_locked(t);
            }
        }
    atomic_store(&p->ets_owned, 0);
    ets_registry_wunlock();
}

/* ---- objects ---- */

/* An immediate equals only itself under =:=, and never a boxed term, so
 * its word can be hashed directly (a multiply-shift, the top bits kept:
 * the stripe takes the top 6, the bucket the low ones); other keys take the
 * structural hash that maps use, which is consistent with =:=. */
uint32_t ets_hash_boxed(Term key) { return map_internal_hash(key, 0); }

int ets_key_eq(const EtsTable *t, Term a, Term b)
{
    if (a == b) return 1;
    return t->type == ETS_ORDERED_SET ? term_compare(a, b) == 0 : term_eq_exact(a, b);
}

EtsObj *ets_obj_new(Term obj, uint32_t hash)
{
    if (is_tuple(obj) && ets_tuple_flat(obj)) {
        /* a tuple of immediates (the common record of numbers and atoms):
         * its words are the copy, no walk needed */
        UWord a = tuple_arity(obj);
        EtsObj *o = malloc(sizeof *o + (a + 1) * sizeof(Term));
        if (!o) return NULL;
        o->next = o->left = o->right = NULL;
        o->height = 1;
        o->hash = hash;
        o->words = a + 1;
        o->bins = 0;
        o->flat = 1;
        o->data[0] = make_tuple_header(a);
        memcpy(o->data + 1, tuple_elems(obj), a * sizeof(Term));
        o->term = make_boxed(o->data);
        return o;
    }
    size_t n = copy_size(obj);
    EtsObj *o = malloc(sizeof *o + n * sizeof(Term));
    if (!o) return NULL;
    o->next = o->left = o->right = NULL;
    o->height = 1;
    o->hash = hash;
    o->words = n;
    size_t bins = 0;
    o->term = copy_term_bins(obj, o->data, &bins);
    o->bins = (uint32_t)(bins > UINT32_MAX ? UINT32_MAX : bins);
    o->flat = is_tuple(o->term) && n == tuple_arity(o->term) + 1 && o->term == make_boxed(o->data);
    return o;
}

void ets_obj_free(EtsObj *o)
{
    if (o->bins) binary_release_region(o->data, o->data + o->words);
    free(o);
}

static void obj_free_cb(void *o) { ets_obj_free(o); }

void ets_obj_retire(EtsObj *o) { qsbr_retire(o, obj_free_cb); }

Term ets_copy_out(Process *p, Term t)
{
    if (is_immed(t)) return t;
    size_t n = copy_size(t);
    Term *hp = heap_alloc_try(p, n);
    if (!hp) return THE_NON_VALUE;             /* refused: p is marked to die */
    Term c = copy_term(t, hp);
    binary_adopt(p, hp, hp + n);
    return c;
}

Term ets_copy_out_obj(Process *p, const EtsObj *o, Term *hp)
{
    if (!hp && !(hp = heap_alloc_try(p, o->words))) return THE_NON_VALUE;
    /* the common small record of immediates: one block copy */
    if (o->flat) {
        memcpy(hp, o->data, o->words * sizeof(Term));
        return make_boxed(hp);
    }
    Term c = copy_term(o->term, hp);
    if (o->bins) binary_adopt(p, hp, hp + o->words);
    return c;
}

/* ---- the hash stripes (set, bag, duplicate_bag) ---- */

static inline size_t bucket_of(const EtsStripe *s, uint32_t h) { return h & (s->nbuckets - 1); }

static void stripe_grow(EtsStripe *s)
{
    size_t nb = s->nbuckets ? s->nbuckets * 2 : ETS_MIN_BUCKETS;
    EtsObj **b = calloc(nb, sizeof *b);
    if (!b) return;
    /* keep each key's run of objects together and in order: move runs */
    for (size_t i = 0; i < s->nbuckets; i++) {
        EtsObj *o = s->buckets[i];
        while (o) {
            EtsObj *last = o;
            while (last->next && last->next->hash == o->hash) last = last->next;
            EtsObj *rest = last->next;
            size_t j = o->hash & (nb - 1);
            /* append the run at the tail of its new chain */
            EtsObj **pp = &b[j];
            while (*pp) pp = &(*pp)->next;
            smp_store_release(pp, o);
            smp_store_release(&last->next, NULL);
            o = rest;
        }
    }
    /* the array before its size: a lock-free reader loads the size first,
     * so it never indexes past the array it loads after */
    if (s->buckets) qsbr_retire(s->buckets, free);
    smp_store_release(&s->buckets, b);
    smp_store_release(&s->nbuckets, nb);
}

/* key against a tree node's key, as ets_key_cmp; two small integers (the
 * node's from its header) without a call. */
static inline int node_cmp(const EtsTable *t, Term key, const EtsObj *n)
{
    Term nk = n->ikey;
    /* a small integer is its value shifted over a tag that is the same for
     * all: the words compare as the values do, with no shift */
    if (is_small(key) && is_small(nk)) return ((SWord)key > (SWord)nk) - ((SWord)key < (SWord)nk);
    return ets_key_cmp(key, nk != THE_NON_VALUE ? nk : ets_key(t, n->term));
}

/* Lock-free walks give up past these lengths: a consistent AVL tree of
 * any size that fits in memory is under 96 levels deep (a set's chain:
 * ETS_LF_HASH_MAX, ets.h); a longer walk is one a writer is reshaping under
 * the reader (whose check of the sequence count would fail anyway). */
#define LF_TREE_MAX 96

/* The search for a small integer key, the commonest ordered_set key: one
 * word compare per level while the nodes' keys are small integers too
 * (a level of the general search took about 25 instructions, this one 6).
 * One walk for both kinds of caller, inlined into each: links are read
 * with acquire loads, and without the lock (lockfree) a walk deeper than
 * LF_TREE_MAX gives up (ETS_LF_GAVE_UP); under the lock the tree is
 * consistent and the depth is not counted. */
static inline __attribute__((always_inline)) EtsObj *tree_find_small(const EtsTable *t, EtsObj *n, Term key,
                                                                     int lockfree)
{
    for (int depth = 0; n; depth++) {
        Term nk = n->ikey;
        if (nk == key) return n;
        if (lockfree && depth > LF_TREE_MAX) return ETS_LF_GAVE_UP;
        int less;
        if (is_small(nk)) less = (SWord)key < (SWord)nk;
        else {
            int c = node_cmp(t, key, n);    /* a float may equal it: 1 == 1.0 */
            if (c == 0) return n;
            less = c < 0;
        }
        n = less ? smp_load_acquire(&n->left) : smp_load_acquire(&n->right);
    }
    return NULL;
}

EtsObj *ets_stripe_find_any(EtsTable *t, EtsStripe *s, Term key, uint32_t hash, EtsObj ***prevp)
{
    if (t->type == ETS_ORDERED_SET) {
        if (is_small(key)) return tree_find_small(t, s->root, key, 0);
        EtsObj *n = s->root;
        while (n) {
            int c = node_cmp(t, key, n);
            if (c == 0) return n;
            n = c < 0 ? n->left : n->right;
        }
        return NULL;
    }
    /* a boxed key (ets.h walks a chain for an immediate one) */
    if (!s->nbuckets) return NULL;
    EtsObj **pp = &s->buckets[bucket_of(s, hash)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == hash && term_eq_exact(ets_key(t, (*pp)->term), key)) break;
    if (!*pp) return NULL;
    if (prevp) *prevp = pp;
    return *pp;
}

EtsObj *ets_stripe_find_lockfree_any(EtsTable *t, EtsStripe *s, Term key, uint32_t hash)
{
    if (t->type == ETS_ORDERED_SET) {
        EtsObj *n = smp_load_acquire(&s->root);
        if (is_small(key)) return tree_find_small(t, n, key, 1);
        for (int depth = 0; n; depth++) {
            if (depth > LF_TREE_MAX) return ETS_LF_GAVE_UP;
            /* (the key of a stored object is never written in place) */
            int c = node_cmp(t, key, n);
            if (c == 0) return n;
            n = c < 0 ? smp_load_acquire(&n->left) : smp_load_acquire(&n->right);
        }
        return NULL;
    }
    size_t nb = smp_load_acquire(&s->nbuckets);
    if (!nb) return NULL;
    EtsObj **b = smp_load_acquire(&s->buckets);
    EtsObj *o = smp_load_acquire(&b[hash & (nb - 1)]);
    /* a boxed key (ets.h walks a chain for an immediate one): an object
     * whose key is an immediate cannot match it, and its words may be
     * written in place meanwhile, so only boxed keys are read from objects */
    int steps = 0;
    for (; o; o = smp_load_acquire(&o->next)) {
        if (o->ikey == THE_NON_VALUE && o->hash == hash && term_eq_exact(ets_key(t, o->term), key))
            return o;
        if (++steps > ETS_LF_HASH_MAX) return ETS_LF_GAVE_UP;
    }
    return NULL;
}

/* ---- the AVL tree (ordered_set) ---- */


static inline int ht(EtsObj *n) { return n ? n->height : 0; }
static inline void fix(EtsObj *n) { int a = ht(n->left), b = ht(n->right); n->height = (a > b ? a : b) + 1; }

/* (every link is stored with smp_store_release: lock-free readers walk the tree
 * as it turns) */
static EtsObj *rot_right(EtsObj *n)
{
    EtsObj *l = n->left;
    smp_store_release(&n->left, l->right);
    smp_store_release(&l->right, n);
    fix(n); fix(l);
    return l;
}
static EtsObj *rot_left(EtsObj *n)
{
    EtsObj *r = n->right;
    smp_store_release(&n->right, r->left);
    smp_store_release(&r->left, n);
    fix(n); fix(r);
    return r;
}

static EtsObj *balance(EtsObj *n)
{
    fix(n);
    int b = ht(n->left) - ht(n->right);
    if (b > 1) {
        if (ht(n->left->left) < ht(n->left->right)) smp_store_release(&n->left, rot_left(n->left));
        return rot_right(n);
    }
    if (b < -1) {
        if (ht(n->right->right) < ht(n->right->left)) smp_store_release(&n->right, rot_right(n->right));
        return rot_left(n);
    }
    return n;
}

/* Inserts o; an object of an equal key is replaced (and freed). */
static EtsObj *tree_insert(EtsTable *t, EtsObj *n, EtsObj *o, EtsObj **replaced)
{
    if (!n) return o;
    int c = node_cmp(t, ets_key(t, o->term), n);
    if (c == 0) {
        o->left = n->left; o->right = n->right; o->height = n->height;
        *replaced = n;
        return o;
    }
    if (c < 0) smp_store_release(&n->left, tree_insert(t, n->left, o, replaced));
    else smp_store_release(&n->right, tree_insert(t, n->right, o, replaced));
    return balance(n);
}

static EtsObj *tree_pop_min(EtsObj *n, EtsObj **min)
{
    if (!n->left) { *min = n; return n->right; }
    smp_store_release(&n->left, tree_pop_min(n->left, min));
    return balance(n);
}

static EtsObj *tree_delete(EtsTable *t, EtsObj *n, Term key, EtsObj **gone)
{
    if (!n) return NULL;
    int c = node_cmp(t, key, n);
    if (c < 0) smp_store_release(&n->left, tree_delete(t, n->left, key, gone));
    else if (c > 0) smp_store_release(&n->right, tree_delete(t, n->right, key, gone));
    else {
        *gone = n;
        if (!n->left) return n->right;
        if (!n->right) return n->left;
        EtsObj *m;
        EtsObj *r = tree_pop_min(n->right, &m);
        smp_store_release(&m->left, n->left); smp_store_release(&m->right, r);
        return balance(m);
    }
    return balance(n);
}

EtsObj *ets_tree_step(EtsTable *t, EtsStripe *s, Term k, int back)
{
    EtsObj *n = s->root, *best = NULL;
    while (n) {
        int c = k == THE_NON_VALUE ? (back ? 1 : -1) : -node_cmp(t, k, n);
        if (!back) {
            if (k == THE_NON_VALUE || c > 0) { best = n; n = n->left; } else n = n->right;
        } else {
            if (k == THE_NON_VALUE || c < 0) { best = n; n = n->right; } else n = n->left;
        }
    }
    return best;
}

/* ---- insert and delete, both structures ---- */

/* The stripe's counts: in its own cache line, which its writer holds
 * already (a count per table would be one line written by the writers of
 * every stripe, and read by every reader of the table's header). */
static void account(EtsStripe *s, EtsObj *o, long sign)
{
    atomic_store_explicit(&s->size, atomic_load_explicit(&s->size, memory_order_relaxed) + sign, memory_order_relaxed);
    atomic_store_explicit(&s->words, atomic_load_explicit(&s->words, memory_order_relaxed) +
                          sign * (long)(o->words + sizeof *o / sizeof(Term)), memory_order_relaxed);
}

/* The link to the first object of key in its chain, or the chain's end. */
static inline EtsObj **chain_point(EtsTable *t, EtsStripe *s, uint32_t hash, Term key)
{
    EtsObj **pp = &s->buckets[bucket_of(s, hash)];
    if (is_immed(key)) {                /* =:= only to the same word */
        while (*pp && (*pp)->ikey != key) pp = &(*pp)->next;
        return pp;
    }
    while (*pp && !((*pp)->hash == hash && term_eq_exact(ets_key(t, (*pp)->term), key)))
        pp = &(*pp)->next;
    return pp;
}

void ets_stripe_insert(EtsTable *t, EtsStripe *s, EtsObj *o)
{
    if (t->type == ETS_ORDERED_SET) {
        /* a key already there (the common overwrite): the new node takes
         * the old one's place, and the tree's shape does not change */
        Term key = ets_key(t, o->term);
        o->ikey = is_immed(key) ? key : THE_NON_VALUE;
        for (EtsObj **link = &s->root; *link;) {
            EtsObj *n = *link;
            int c = node_cmp(t, key, n);
            if (c == 0) {
                o->left = n->left; o->right = n->right; o->height = n->height;
                smp_store_release(link, o);
                account(s, o, 1);
                account(s, n, -1); ets_obj_retire(n);
                return;
            }
            link = c < 0 ? &n->left : &n->right;
        }
        EtsObj *rep = NULL;
        smp_store_release(&s->root, tree_insert(t, s->root, o, &rep));
        account(s, o, 1);
        if (rep) { account(s, rep, -1); ets_obj_retire(rep); }
        return;
    }
    if (!s->nbuckets) stripe_grow(s);
    if (!s->nbuckets) { ets_obj_free(o); return; }      /* out of memory */
    Term key = ets_key(t, o->term);
    o->ikey = is_immed(key) ? key : THE_NON_VALUE;
    EtsObj **pp = chain_point(t, s, o->hash, key);
    if (*pp && t->type == ETS_SET) {            /* replace */
        EtsObj *old = *pp;
        o->next = old->next;
        smp_store_release(pp, o);
        account(s, old, -1); ets_obj_retire(old);
        account(s, o, 1);
        return;
    }
    /* bags: after the key's last object (insertion order); a bag keeps no
     * two objects that are exactly equal */
    while (*pp && (*pp)->hash == o->hash && term_eq_exact(ets_key(t, (*pp)->term), key)) {
        if (t->type == ETS_BAG && term_eq_exact((*pp)->term, o->term)) { ets_obj_free(o); return; }
        pp = &(*pp)->next;
    }
    /* only a new object grows the chain array: a replacement must not move
     * the chains under a walk that replaces as it goes (select_replace) */
    if (s->count >= s->nbuckets) {
        stripe_grow(s);
        pp = chain_point(t, s, o->hash, key);
        while (*pp && (*pp)->hash == o->hash && term_eq_exact(ets_key(t, (*pp)->term), key))
            pp = &(*pp)->next;
    }
    o->next = *pp;
    smp_store_release(pp, o);
    s->count++;
    account(s, o, 1);
}

long ets_stripe_delete_key(EtsTable *t, EtsStripe *s, Term key, uint32_t hash)
{
    if (t->type == ETS_ORDERED_SET) {
        EtsObj *gone = NULL;
        smp_store_release(&s->root, tree_delete(t, s->root, key, &gone));
        if (!gone) return 0;
        account(s, gone, -1); ets_obj_retire(gone);
        return 1;
    }
    EtsObj **pp;
    if (!ets_stripe_find(t, s, key, hash, &pp)) return 0;
    long n = 0;
    while (*pp && (*pp)->hash == hash && term_eq_exact(ets_key(t, (*pp)->term), key)) {
        EtsObj *o = *pp;
        smp_store_release(pp, o->next);
        account(s, o, -1); ets_obj_retire(o);
        s->count--;
        n++;
    }
    return n;
}

void ets_stripe_remove(EtsTable *t, EtsStripe *s, EtsObj *o)
{
    if (t->type == ETS_ORDERED_SET) {
        EtsObj *gone = NULL;
        smp_store_release(&s->root, tree_delete(t, s->root, ets_key(t, o->term), &gone));
        if (gone) { account(s, gone, -1); ets_obj_retire(gone); }
        return;
    }
    for (EtsObj **pp = &s->buckets[bucket_of(s, o->hash)]; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            smp_store_release(pp, o->next);
            account(s, o, -1); ets_obj_retire(o);
            s->count--;
            return;
        }
}

static void tree_free(EtsStripe *s, EtsObj *n)
{
    while (n) {
        tree_free(s, n->left);
        EtsObj *r = n->right;
        account(s, n, -1); ets_obj_retire(n);
        n = r;
    }
}

void ets_stripe_clear(EtsTable *t, EtsStripe *s)
{
    /* (retired before they are unlinked, both in this one call: they are
     * tagged at the next quiescent point, after it) */
    if (t->type == ETS_ORDERED_SET) { tree_free(s, s->root); smp_store_release(&s->root, NULL); return; }
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (EtsObj *o = s->buckets[i], *nx; o; o = nx) { nx = o->next; account(s, o, -1); ets_obj_retire(o); }
        smp_store_release(&s->buckets[i], NULL);
    }
    s->count = 0;
}

/* ---- walking ---- */

int ets_stripe_each(EtsTable *t, EtsStripe *s, int reverse, EtsVisit fn, void *ctx)
{
    if (t->type == ETS_ORDERED_SET) {
        /* a visitor may delete the node it is given, which rebalances the
         * tree: walk by key instead of by node then */
        EtsObj *n = ets_tree_step(t, s, THE_NON_VALUE, reverse);
        while (n) {
            Term k = ets_key(t, n->term);
            EtsObj *nx = ets_tree_step(t, s, k, reverse);
            if (fn(t, s, n, ctx)) return 1;
            n = nx;
        }
        return 0;
    }
    for (size_t i = 0; i < s->nbuckets; i++)
        for (EtsObj *o = s->buckets[i], *nx; o; o = nx) {
            nx = o->next;
            if (fn(t, s, o, ctx)) return 1;
        }
    return 0;
}

Term ets_hash_next(Process *p, EtsTable *t, Term key, int *missing)
{
    int si = 0;
    size_t bi = 0;
    *missing = 0;
    if (key != THE_NON_VALUE) {
        uint32_t h = ets_hash(key);
        EtsStripe *s = ets_stripe(t, h);
        si = (int)(s - t->stripes);
        ets_rlock(&s->lock);
        EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
        if (!o) { ets_runlock(&s->lock); *missing = 1; return THE_NON_VALUE; }
        while (o->next && o->next->hash == h && term_eq_exact(ets_key(t, o->next->term), key)) o = o->next;
        if (o->next) {
            Term r = ets_copy_out(p, ets_key(t, o->next->term));
            ets_runlock(&s->lock);
            return r;
        }
        bi = bucket_of(s, h) + 1;
        ets_runlock(&s->lock);
    }
    for (; si < t->nstripes; si++, bi = 0) {
        EtsStripe *s = &t->stripes[si];
        ets_rlock(&s->lock);
        for (; bi < s->nbuckets; bi++)
            if (s->buckets[bi]) {
                Term r = ets_copy_out(p, ets_key(t, s->buckets[bi]->term));
                ets_runlock(&s->lock);
                return r;
            }
        ets_runlock(&s->lock);
    }
    return THE_NON_VALUE;
}

long ets_table_size(EtsTable *t)
{
    long n = 0;
    for (int i = 0; i < t->nstripes; i++) n += atomic_load_explicit(&t->stripes[i].size, memory_order_relaxed);
    return n;
}

long ets_table_words(EtsTable *t)
{
    long n = 0;
    for (int i = 0; i < t->nstripes; i++) n += atomic_load_explicit(&t->stripes[i].words, memory_order_relaxed);
    return n;
}

/* ---- ordered_set with write_concurrency: splitting by key range ---- */

static inline Term bound_key(const EtsTable *t, int i) { return tuple_elems(t->bounds[i]->term)[0]; }

int ets_oset_index(const EtsTable *t, Term key)
{
    int lo = 0, hi = t->nstripes - 1;   /* stripe i holds bound(i-1) <= key < bound(i) */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ets_key_cmp(key, bound_key(t, mid)) < 0) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static void tree_collect(EtsObj *n, EtsObj **v, long *at)
{
    while (n) {
        tree_collect(n->left, v, at);
        v[(*at)++] = n;
        n = n->right;
    }
}

/* A balanced tree of v[lo, hi), in order. */
static EtsObj *tree_build(EtsObj **v, long lo, long hi)
{
    if (lo >= hi) return NULL;
    long mid = lo + (hi - lo) / 2;
    EtsObj *n = v[mid];
    smp_store_release(&n->left, tree_build(v, lo, mid));
    smp_store_release(&n->right, tree_build(v, mid + 1, hi));
    fix(n);
    return n;
}

static void stripe_fill(EtsStripe *s, EtsObj **v, long lo, long hi)
{
    long words = 0;
    for (long i = lo; i < hi; i++) words += (long)(v[i]->words + sizeof *v[i] / sizeof(Term));
    smp_store_release(&s->root, tree_build(v, lo, hi));
    atomic_store_explicit(&s->size, hi - lo, memory_order_relaxed);
    atomic_store_explicit(&s->words, words, memory_order_relaxed);
    atomic_store_explicit(&s->contention, 0, memory_order_relaxed);
}

/* Splits stripe i in two at its middle key (the registry write-locked, so
 * no operation is inside t and no stripe lock is held or waited on: the
 * trees move between stripes, the locks stay where they are). 0 if it
 * cannot (too few objects, no room, no memory). */
static int oset_split(EtsTable *t, int i)
{
    int n_st = t->nstripes;
    EtsStripe *s = &t->stripes[i];
    long n = atomic_load_explicit(&s->size, memory_order_relaxed);
    if (n < 2 || n_st >= ETS_OSET_MAX_STRIPES) return 0;
    EtsObj **v = malloc(sizeof *v * (size_t)n);
    if (!v) return 0;
    long at = 0;
    tree_collect(s->root, v, &at);
    long m = n / 2;
    Term tup[3] = { make_tuple_header(1), ets_key(t, v[m]->term), 0 };
    EtsObj *bound = ets_obj_new(make_boxed(tup), 0);
    if (!bound || ets_lock_init(&t->stripes[n_st].lock, t->read_conc ? ETS_LOCK_SLOTS : ETS_LOCK_RW,
                                sched_count()) < 0) {
        if (bound) ets_obj_free(bound);
        free(v);
        return 0;
    }
    /* stripes i+1.. move up one place, their trees and counts with them */
    for (int j = n_st; j > i + 1; j--) {
        EtsStripe *to = &t->stripes[j], *from = &t->stripes[j - 1];
        smp_store_release(&to->root, from->root);
        atomic_store_explicit(&to->size, atomic_load_explicit(&from->size, memory_order_relaxed), memory_order_relaxed);
        atomic_store_explicit(&to->words, atomic_load_explicit(&from->words, memory_order_relaxed), memory_order_relaxed);
        atomic_store_explicit(&to->contention, atomic_load_explicit(&from->contention, memory_order_relaxed),
                              memory_order_relaxed);
    }
    for (int j = n_st - 1; j > i; j--) t->bounds[j] = t->bounds[j - 1];
    t->bounds[i] = bound;
    stripe_fill(&t->stripes[i], v, 0, m);
    stripe_fill(&t->stripes[i + 1], v, m, n);
    t->nstripes = n_st + 1;
    free(v);
    return 1;
}

void ets_oset_split_wanted(EtsTable *t)
{
    uint64_t id = t->id;
    ets_registry_runlock();
    ets_registry_wlock();
    /* the table may be gone, or another process may have split it */
    EtsTable *u;
    for (u = by_id[id_slot(id)]; u && u->id != id; u = u->next) ;
    if (u && atomic_load_explicit(&u->split_wanted, memory_order_relaxed)) {
        atomic_store_explicit(&u->split_wanted, 0, memory_order_relaxed);
        for (int i = 0; i < u->nstripes && u->nstripes < ETS_OSET_MAX_STRIPES; i++) {
            if (atomic_load_explicit(&u->stripes[i].contention, memory_order_relaxed) <= ETS_OSET_SPLIT_AT) continue;
            if (oset_split(u, i)) { i++; continue; }   /* its right half is not contended yet */
            /* one hot key (or no memory): a split would not help, and
             * asking again at every wait would take this write lock at
             * every wait; thousands of waits must come first */
            atomic_store_explicit(&u->stripes[i].contention, ETS_OSET_GAVE_UP, memory_order_relaxed);
        }
    }
    ets_registry_wunlock();
}
