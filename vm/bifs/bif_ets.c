/* bif_ets.c — the ETS BIFs: argument checks, access rights and OTP 25's
 * badarg cases, over the storage of vm/ets/. Every BIF holds the registry's
 * read lock from finding its table to returning (ets.h says why), and the
 * lock of each stripe it touches while it touches it — but lookups, which
 * first try without any lock (below, "lookups without locks"). Objects are copied
 * into the table before a stripe is locked, and out of it (onto the
 * caller's heap) while it is. */
#include <stdlib.h>
#include <string.h>
#include "bif.h"
#include "ets.h"
#include "arith.h"
#include "compare.h"
#include "proc.h"
#include "term_build.h"
#include "outbuf.h"
#include "dist.h"
#include "copy.h"
#include "binary.h"

#define A(name) atom_intern_cstr(name)

enum { NEED_READ, NEED_WRITE, NEED_OWNER };

/* The table tid names, with the registry read-locked, if p may use it as
 * `need` says; NULL (lock released) if not. */
static EtsTable *table_get(Process *p, Term tid, int need)
{
    ets_registry_rlock();
    EtsTable *t = ets_find(tid);
    if (t) {
        int own = t->owner == p->pid;
        if ((need == NEED_READ && t->access == ETS_PRIVATE && !own) ||
            (need == NEED_WRITE && t->access != ETS_PUBLIC && !own) ||
            (need == NEED_OWNER && !own))
            t = NULL;
    }
    if (!t) ets_registry_runlock();
    return t;
}

/* Whether this BIF holds the registry's read lock. A writer that found its
 * table without the lock (table_get_write) clears it, and its exit
 * (registry_done) sets it again, so every other BIF sees 1. */
static __thread int reg_held = 1;
static inline void registry_done(void)
{
    if (reg_held) ets_registry_runlock();
    else reg_held = 1;
}

/* The table tid names, for an operation on one key that writes (insert,
 * delete, take, update_counter, update_element), without the registry's
 * lock when it can be found so: the table cannot then be freed under the
 * writer (it is retired, qsbr.h), and if it is deleted meanwhile, the
 * writer finds its stripe marked dead once it holds the stripe's lock
 * (stripe_wlock_live). An ordered_set that splits moves its trees under
 * the registry's write lock, so its writers take the registry's read lock;
 * so does every writer when the lock-free walk misses (the locked path then
 * gives badarg or finds the table a registry resize hid). */
static EtsTable *table_get_write(Process *p, Term tid)
{
    EtsTable *t = ets_find_lockfree(tid);
    if (t && !t->oset_split && (smp_load_acquire(&t->access) == ETS_PUBLIC || smp_load_acquire(&t->owner) == p->pid)) {
        reg_held = 0;
        return t;
    }
    return table_get(p, tid, NEED_WRITE);
}

/* Write-locks s, unless its table was deleted since it was found (then
 * nothing is locked and the answer is 0: badarg, as for a missing table). */
static int stripe_wlock_live(EtsTable *t, EtsStripe *s)
{
    ets_stripe_wlock(t, s);
    if (!s->dead) return 1;
    ets_wunlock(&s->lock);
    return 0;
}

#define TABLE(p, tid, need) \
    EtsTable *t = table_get((p), (tid), (need)); \
    if (!t) BIF_ERROR((p), AM_badarg)
#define TABLE_WRITE(p, tid) \
    EtsTable *t = table_get_write((p), (tid)); \
    if (!t) BIF_ERROR((p), AM_badarg)
/* (the end of an operation on an ordered_set with write_concurrency is
 * where its contended stripes split: ets.h) */
#define DONE(v) do { Term r_ = (v); \
        if (t && atomic_load_explicit(&t->split_wanted, memory_order_relaxed)) ets_oset_split_wanted(t); \
        else registry_done(); \
        return r_; } while (0)
#define FAIL(p) do { registry_done(); BIF_ERROR((p), AM_badarg); } while (0)
/* a copy out of the table was refused memory: the process dies, not the VM */
#define OOM(p) do { registry_done(); return bif_out_of_memory(p); } while (0)
#define LIMIT(p) do { registry_done(); BIF_ERROR((p), ATOM_TERM(system_limit)); } while (0)
#define WLOCK_LIVE(t, s) do { if (!stripe_wlock_live((t), (s))) FAIL(p); } while (0)

static int obj_ok(const EtsTable *t, Term o) { return is_tuple(o) && (int)tuple_arity(o) >= t->keypos; }

static inline uint32_t key_hash(EtsTable *t, Term key) { return t->type == ETS_ORDERED_SET ? 0 : ets_hash(key); }


/* ---- ets:new/2 ---- */

Term bif_ets_new_2(Process *p, Term *args)
{
    Term name = args[0], opts = args[1];
    if (!is_atom(name)) BIF_ERROR(p, AM_badarg);
    int type = ETS_SET, access = ETS_PROTECTED, named = 0, keypos = 1, rc = 0, wc = 0;
    Term heir = ATOM_TERM(none), heir_data = AM_undefined;
    Term l = opts;
    for (; is_list(l); l = list_tail(l)) {
        Term o = list_head(l);
        if (o == A("set")) type = ETS_SET;
        else if (o == A("ordered_set")) type = ETS_ORDERED_SET;
        else if (o == A("bag")) type = ETS_BAG;
        else if (o == A("duplicate_bag")) type = ETS_DUPLICATE_BAG;
        else if (o == A("public")) access = ETS_PUBLIC;
        else if (o == A("protected")) access = ETS_PROTECTED;
        else if (o == A("private")) access = ETS_PRIVATE;
        else if (o == A("named_table")) named = 1;
        else if (o == ATOM_TERM(compressed)) ;
        else if (is_tuple(o) && tuple_arity(o) == 2) {
            Term k = tuple_elems(o)[0], v = tuple_elems(o)[1];
            int b = v == AM_true ? 1 : v == AM_false ? 0 : -1;
            if (k == A("keypos") && is_small(v) && small_val(v) >= 1) keypos = (int)small_val(v);
            else if (k == A("read_concurrency") && b >= 0) rc = b;
            else if (k == A("write_concurrency") && (b >= 0 || v == A("auto"))) wc = b != 0;
            else if (k == A("decentralized_counters") && b >= 0) ;
            else if (k == A("heir") && v == ATOM_TERM(none)) heir = ATOM_TERM(none);
            else BIF_ERROR(p, AM_badarg);
        } else if (is_tuple(o) && tuple_arity(o) == 3 && tuple_elems(o)[0] == A("heir") &&
                   is_pid(tuple_elems(o)[1])) {
            heir = tuple_elems(o)[1];
            heir_data = tuple_elems(o)[2];
        } else BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    int why = 0;
    EtsTable *t = ets_create(p, name, named, type, access, keypos, rc, wc, heir, heir_data, &why);
    if (!t) BIF_ERROR(p, why == 1 ? AM_badarg : ATOM_TERM(system_limit));
    return named ? name : ets_tid(p, t, NULL);
}

/* ---- insert ---- */

/* Inserts one object or a list of them; new_only: insert_new. */
static Term do_insert(Process *p, Term *args, int new_only)
{
    TABLE_WRITE(p, args[0]);
    Term x = args[1];
    long n = 0;
    if (is_tuple(x)) {
        if (!obj_ok(t, x)) FAIL(p);
        n = 1;
    } else {
        Term l = x;
        for (; is_list(l); l = list_tail(l), n++) if (!obj_ok(t, list_head(l))) FAIL(p);
        if (!is_nil(l)) FAIL(p);
    }
    if (n == 0) DONE(AM_true);
    if (n == 1 && !new_only && (t->type == ETS_SET || t->type == ETS_ORDERED_SET) && ets_tuple_flat(x)) {
        /* One record of immediates over a key of a set: written over the
         * stored object when it is one of the same size (the common update
         * of a record in place: no malloc, no free, no copy walk); else
         * made here, under the lock, since such a copy is as short as the
         * lock's own cost. */
        Term key = ets_key(t, x);
        uint32_t h = key_hash(t, key);
        EtsStripe *s = ets_key_stripe(t, key, h);
        WLOCK_LIVE(t, s);
        EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
        if (o && o->flat && o->words == tuple_arity(x) + 1) {
            /* word by word: a lock-free reader may be copying them (and
             * will see the sequence count move) */
            for (UWord i = 0; i < tuple_arity(x); i++)
                if (o->data[1 + i] != tuple_elems(x)[i]) smp_store_release(&o->data[1 + i], tuple_elems(x)[i]);
        } else if ((o = ets_obj_new(x, h)) != NULL) {
            ets_stripe_insert(t, s, o);
        }
        ets_wunlock(&s->lock);
        if (!o) LIMIT(p);
        DONE(AM_true);
    }
    EtsObj *one[1], **objs = n == 1 ? one : malloc(sizeof *objs * (size_t)n);
    if (!objs) FAIL(p);
    Term l = x;
    for (long i = 0; i < n; i++) {
        Term o = is_tuple(x) ? x : list_head(l);
        if (!is_tuple(x)) l = list_tail(l);
        uint32_t h = t->type == ETS_ORDERED_SET ? 0 : ets_hash(ets_key(t, o));
        objs[i] = ets_obj_new(o, h);
        if (!objs[i]) {
            while (i-- > 0) ets_obj_free(objs[i]);
            if (objs != one) free(objs);
            LIMIT(p);
        }
    }
    Term res = AM_true;
    if (n == 1) {
        EtsStripe *s = ets_key_stripe(t, ets_key(t, objs[0]->term), objs[0]->hash);
        if (!stripe_wlock_live(t, s)) { ets_obj_free(objs[0]); FAIL(p); }
        if (new_only && ets_stripe_find(t, s, ets_key(t, objs[0]->term), objs[0]->hash, NULL)) {
            ets_obj_free(objs[0]);
            res = AM_false;
        } else {
            ets_stripe_insert(t, s, objs[0]);
        }
        ets_wunlock(&s->lock);
    } else {
        /* a list goes in at once: every stripe locked, in order */
        for (int i = 0; i < t->nstripes; i++) ets_wlock(&t->stripes[i].lock);
        if (t->stripes[0].dead) {
            /* deleted since it was found (its deleter marks the stripes in
             * order, and waited for none of ours): nothing goes in */
            for (int i = t->nstripes - 1; i >= 0; i--) ets_wunlock(&t->stripes[i].lock);
            for (long i = 0; i < n; i++) ets_obj_free(objs[i]);
            free(objs);
            FAIL(p);
        }
        if (new_only)
            for (long i = 0; i < n && res == AM_true; i++)
                if (ets_stripe_find(t, ets_key_stripe(t, ets_key(t, objs[i]->term), objs[i]->hash), ets_key(t, objs[i]->term), objs[i]->hash, NULL))
                    res = AM_false;
        for (long i = 0; i < n; i++) {
            if (res == AM_true) ets_stripe_insert(t, ets_key_stripe(t, ets_key(t, objs[i]->term), objs[i]->hash), objs[i]);
            else ets_obj_free(objs[i]);
        }
        for (int i = t->nstripes - 1; i >= 0; i--) ets_wunlock(&t->stripes[i].lock);
        free(objs);
    }
    p->reds -= n / 4;
    DONE(res);
}

Term bif_ets_insert_2(Process *p, Term *args) { return do_insert(p, args, 0); }
Term bif_ets_insert_new_2(Process *p, Term *args) { return do_insert(p, args, 1); }

/* ---- lookups ---- */


static inline int same_key_next(EtsTable *t, EtsObj *o, Term key)
{
    return t->type != ETS_ORDERED_SET && o->next && o->next->hash == o->hash &&
           term_eq_exact(ets_key(t, o->next->term), key);
}

/* The objects of key, copied out, as a list in table order; THE_NON_VALUE
 * when the memory for them is refused (p marked to die). */
static Term lookup_list(Process *p, EtsTable *t, EtsStripe *s, Term key, uint32_t h)
{
    EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
    if (!o) return NIL;
    if (o->flat && !same_key_next(t, o, key)) {
        /* the common case, one record of immediates: the list cell and a
         * word-for-word copy in one allocation, no calls */
        size_t n = o->words;
        Term *hp = heap_alloc_try(p, 2 + n);
        if (!hp) return THE_NON_VALUE;
        for (size_t i = 0; i < n; i++) hp[2 + i] = o->data[i];
        hp[0] = make_boxed(hp + 2);
        hp[1] = NIL;
        return make_list(hp);
    }
    Term res = NIL, *tailp = &res;
    for (;;) {
        /* the cons cell and the object in one allocation */
        Term *hp = heap_alloc_try(p, 2 + o->words);
        if (!hp) return THE_NON_VALUE;
        hp[0] = ets_copy_out_obj(p, o, hp + 2);
        hp[1] = NIL;
        *tailp = make_list(hp);
        tailp = &hp[1];
        if (!same_key_next(t, o, key)) break;
        o = o->next;
    }
    return res;
}

/* ---- lookups without locks (ets.h, "Reading without locks") ----
 *
 * A lookup, member or lookup_element on a set or an ordered_set that has
 * not split finds its table, walks to its object and copies what it needs
 * onto the caller's heap with no lock and no write to shared memory; the
 * result stands if neither the registry's nor the stripe's sequence count
 * moved meanwhile. Anything else (a writer inside or in between, a bag, a
 * missing table or key where the answer is badarg, a refused heap) falls
 * back to the locked path, which gives the answer or the error; a copy
 * that did not stand is left on the heap as garbage. */

enum { LF_LOOKUP, LF_MEMBER, LF_ELEMENT };

/* Copies one top-level element of a stored tuple: a word written in place
 * is read once, atomically; a boxed element is never written in place. */
static Term lf_copy_elem(Process *p, Term *word, int *ok)
{
    Term e = smp_load_acquire(word);
    if (is_immed(e)) return e;
    size_t n = copy_size(e);
    Term *hp = heap_alloc_try(p, n);
    if (!hp) { *ok = 0; return NIL; }
    Term c = copy_term(e, hp);
    binary_adopt(p, hp, hp + n);
    return c;
}

/* The object as a list of one on p's heap. */
static Term lf_copy_obj(Process *p, const EtsObj *o, int *ok)
{
    Term *obj = tuple_elems(o->term);
    UWord a = tuple_arity(o->term);
    Term *hp = heap_alloc_try(p, 2 + 1 + a);
    if (!hp) { *ok = 0; return NIL; }
    hp[2] = make_tuple_header(a);
    if (o->flat) {
        for (UWord i = 0; i < a; i++) hp[3 + i] = smp_load_acquire(&obj[i]);
    } else {
        for (UWord i = 0; i < a && *ok; i++) hp[3 + i] = lf_copy_elem(p, &obj[i], ok);
        if (!*ok) return NIL;
    }
    hp[0] = make_boxed(hp + 2);
    hp[1] = NIL;
    return make_list(hp);
}

/* 1 and *res if the lock-free read stands; 0: take the locks. */
static inline __attribute__((always_inline)) int
lookup_lockfree(Process *p, Term tid, Term key, int what, SWord pos, Term *res)
{
    uint32_t rseq = ets_seq_begin(&ets_reg_lock);
    if (rseq & 1) return 0;
    EtsTable *t = ets_find_lockfree(tid);
    /* (type, the split flag, the stripes and, for a table that does not
     * split, their number never change; access and owner are loaded once) */
    if (!t || (t->type != ETS_SET && t->type != ETS_ORDERED_SET) || t->oset_split) return 0;
    if (smp_load_acquire(&t->access) == ETS_PRIVATE && smp_load_acquire(&t->owner) != p->pid) return 0;
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    uint32_t sseq = ets_seq_begin(&s->lock);
    if (sseq & 1) return 0;
    EtsObj *o = ets_stripe_find_lockfree(t, s, key, h);
    if (o == ETS_LF_GAVE_UP) return 0;
    Term r;
    int ok = 1;
    if (what == LF_MEMBER) {
        r = BOOL(o != NULL);
    } else if (what == LF_LOOKUP) {
        r = o ? lf_copy_obj(p, o, &ok) : NIL;
    } else {
        if (!o || (SWord)tuple_arity(o->term) < pos) return 0;      /* badarg */
        r = lf_copy_elem(p, &tuple_elems(o->term)[pos - 1], &ok);
    }
    if (!ok || !ets_seq_still(&s->lock, sseq) || !ets_seq_still(&ets_reg_lock, rseq)) return 0;
    *res = r;
    return 1;
}

/* (apart, so that the lock-free path does not pay this one's frame) */
static __attribute__((noinline)) Term lookup_locked(Process *p, Term *args)
{
    TABLE(p, args[0], NEED_READ);
    Term key = args[1];
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    ets_stripe_rlock(t, s);
    Term r = lookup_list(p, t, s, key, h);
    ets_runlock(&s->lock);
    if (r == THE_NON_VALUE) OOM(p);
    DONE(r);
}

Term bif_ets_lookup_2(Process *p, Term *args)
{
    Term lf;
    if (lookup_lockfree(p, args[0], args[1], LF_LOOKUP, 0, &lf)) return lf;
    return lookup_locked(p, args);
}

Term bif_ets_member_2(Process *p, Term *args)
{
    Term lf;
    if (lookup_lockfree(p, args[0], args[1], LF_MEMBER, 0, &lf)) return lf;
    TABLE(p, args[0], NEED_READ);
    uint32_t h = key_hash(t, args[1]);
    EtsStripe *s = ets_key_stripe(t, args[1], h);
    ets_stripe_rlock(t, s);
    int found = ets_stripe_find(t, s, args[1], h, NULL) != NULL;
    ets_runlock(&s->lock);
    DONE(BOOL(found));
}

Term bif_ets_lookup_element_3(Process *p, Term *args)
{
    Term key = args[1], pos = args[2], lf;
    if (is_small(pos) && small_val(pos) >= 1 && lookup_lockfree(p, args[0], key, LF_ELEMENT, small_val(pos), &lf))
        return lf;
    TABLE(p, args[0], NEED_READ);
    if (!is_small(pos) || small_val(pos) < 1) FAIL(p);
    SWord i = small_val(pos);
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    ets_stripe_rlock(t, s);
    EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
    Term res = THE_NON_VALUE;
    int oom = 0;
    if (o && t->type != ETS_SET && t->type != ETS_ORDERED_SET) {
        /* bags: the element of every object of the key, or badarg if one
         * is too short */
        Term l = NIL, *tailp = &l;
        for (;;) {
            if ((SWord)tuple_arity(o->term) < i) { l = THE_NON_VALUE; break; }
            Term *hp = heap_alloc(p, 2);
            hp[0] = ets_copy_out(p, tuple_elems(o->term)[i - 1]);
            if (hp[0] == THE_NON_VALUE) { hp[0] = NIL; oom = 1; break; }
            hp[1] = NIL;
            *tailp = make_list(hp); tailp = &hp[1];
            if (!same_key_next(t, o, key)) break;
            o = o->next;
        }
        res = l;
    } else if (o && (SWord)tuple_arity(o->term) >= i) {
        res = ets_copy_out(p, tuple_elems(o->term)[i - 1]);
        oom = res == THE_NON_VALUE;
    }
    ets_runlock(&s->lock);
    if (oom) OOM(p);
    if (res == THE_NON_VALUE) FAIL(p);
    DONE(res);
}

/* ---- deleting ---- */

Term bif_ets_delete_1(Process *p, Term *args)
{
    ets_registry_wlock();
    EtsTable *t = ets_find(args[0]);
    if (!t || (t->access != ETS_PUBLIC && t->owner != p->pid)) {
        ets_registry_wunlock();
        BIF_ERROR(p, AM_badarg);
    }
    ets_destroy_locked(t);
    ets_registry_wunlock();
    return AM_true;
}

Term bif_ets_delete_2(Process *p, Term *args)
{
    TABLE_WRITE(p, args[0]);
    uint32_t h = key_hash(t, args[1]);
    EtsStripe *s = ets_key_stripe(t, args[1], h);
    WLOCK_LIVE(t, s);
    ets_stripe_delete_key(t, s, args[1], h);
    ets_wunlock(&s->lock);
    DONE(AM_true);
}

Term bif_ets_delete_object_2(Process *p, Term *args)
{
    TABLE_WRITE(p, args[0]);
    Term obj = args[1];
    if (!obj_ok(t, obj)) FAIL(p);
    Term key = ets_key(t, obj);
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    WLOCK_LIVE(t, s);
    EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
    while (o) {
        EtsObj *nx = same_key_next(t, o, key) ? o->next : NULL;
        if (term_eq_exact(o->term, obj)) ets_stripe_remove(t, s, o);
        o = nx;
    }
    ets_wunlock(&s->lock);
    DONE(AM_true);
}

Term bif_ets_delete_all_objects_1(Process *p, Term *args)
{
    TABLE(p, args[0], NEED_WRITE);
    for (int i = 0; i < t->nstripes; i++) {
        ets_wlock(&t->stripes[i].lock);
        ets_stripe_clear(t, &t->stripes[i]);
        ets_wunlock(&t->stripes[i].lock);
    }
    DONE(AM_true);
}

Term bif_ets_take_2(Process *p, Term *args)
{
    TABLE_WRITE(p, args[0]);
    uint32_t h = key_hash(t, args[1]);
    EtsStripe *s = ets_key_stripe(t, args[1], h);
    WLOCK_LIVE(t, s);
    Term r = lookup_list(p, t, s, args[1], h);
    ets_stripe_delete_key(t, s, args[1], h);
    ets_wunlock(&s->lock);
    DONE(r);
}

/* ---- updating in place ---- */

/* Replaces o (of stripe s) by a tuple whose elements are vals (arity n). */
static void replace_obj(EtsTable *t, EtsStripe *s, EtsObj *o, Term *vals, UWord n, Process *p)
{
    int inplace = o != NULL;
    for (UWord i = 0; inplace && i < n; i++)
        if (vals[i] != tuple_elems(o->term)[i] && (!is_immed(vals[i]) || !is_immed(tuple_elems(o->term)[i])))
            inplace = 0;
    if (inplace) {
        /* an immediate over an immediate: written over the stored word,
         * under the write lock, so no reader sees half of it; the object's
         * size and binaries stay as they were */
        for (UWord i = 0; i < n; i++)       /* (only words that change: the key's is read lock-free) */
            if (tuple_elems(o->term)[i] != vals[i]) smp_store_release(&tuple_elems(o->term)[i], vals[i]);
        return;
    }
    Term *hp = heap_alloc(p, n + 1);
    hp[0] = make_tuple_header(n);
    memcpy(hp + 1, vals, n * sizeof(Term));
    EtsObj *no = ets_obj_new(make_boxed(hp), o ? o->hash : key_hash(t, vals[t->keypos - 1]));
    if (no) ets_stripe_insert(t, s, no);      /* replaces o (same key) */
}

typedef struct { SWord pos; Term incr, thr, setv; } CounterOp;

/* One op: Incr | {Pos, Incr} | {Pos, Incr, Threshold, SetValue}. */
static int counter_op(EtsTable *t, Term x, CounterOp *op)
{
    op->thr = op->setv = THE_NON_VALUE;
    if (is_integer(x)) { op->pos = t->keypos + 1; op->incr = x; return 1; }
    if (!is_tuple(x)) return 0;
    UWord n = tuple_arity(x);
    Term *e = tuple_elems(x);
    if ((n != 2 && n != 4) || !is_small(e[0]) || !is_integer(e[1])) return 0;
    op->pos = small_val(e[0]);
    op->incr = e[1];
    if (n == 4) {
        if (!is_integer(e[2]) || !is_integer(e[3])) return 0;
        op->thr = e[2]; op->setv = e[3];
    }
    return op->pos >= 1 && op->pos != t->keypos;
}

/* A small counter at position pos of o stepped by a small increment, the
 * result written over the stored word (as replace_obj would, with no copy
 * of the object): 1 and *res, or 0 when the counter or the result is not a
 * small integer (the general path then). The stripe is write-locked. */
static inline __attribute__((always_inline)) int counter_step_in_place(EtsObj *o, UWord pos, Term incr, Term *res)
{
    if (!is_small(incr) || pos > tuple_arity(o->term)) return 0;
    Term *w = &tuple_elems(o->term)[pos - 1];
    if (!is_small(*w)) return 0;
    SWord v = small_val(*w) + small_val(incr);
    if (!fits_small(v)) return 0;
    smp_store_release(w, make_small(v));
    *res = make_small(v);
    return 1;
}

static Term do_update_counter(Process *p, Term *args, Term deflt)
{
    TABLE_WRITE(p, args[0]);
    if (t->type != ETS_SET && t->type != ETS_ORDERED_SET) FAIL(p);
    Term key = args[1], spec = args[2];
    if (is_small(spec) && deflt == THE_NON_VALUE) {
        /* the usual call, update_counter(T, K, Incr) on the counter after
         * the key: stepped in place before any spec is parsed; anything
         * else takes the general path */
        uint32_t h = key_hash(t, key);
        EtsStripe *s = ets_key_stripe(t, key, h);
        if (!stripe_wlock_live(t, s)) FAIL(p);
        EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
        Term v;
        if (o && counter_step_in_place(o, (UWord)t->keypos + 1, spec, &v)) {
            ets_wunlock(&s->lock);
            DONE(v);
        }
        ets_wunlock(&s->lock);
    }
    int is_list_spec = is_list(spec) || is_nil(spec);
    long nops = 0;
    if (is_list_spec) {
        Term l = spec;
        for (; is_list(l); l = list_tail(l)) nops++;
        if (!is_nil(l)) FAIL(p);
    } else nops = 1;
    CounterOp opsbuf[4], *ops = nops <= 4 ? opsbuf : malloc(sizeof *ops * (size_t)nops);
    if (!ops) FAIL(p);
    Term l = spec;
    for (long i = 0; i < nops; i++) {
        Term x = is_list_spec ? list_head(l) : spec;
        if (is_list_spec) l = list_tail(l);
        if (!counter_op(t, x, &ops[i])) { if (ops != opsbuf) free(ops); FAIL(p); }
    }
    if (deflt != THE_NON_VALUE && !obj_ok(t, deflt)) { if (ops != opsbuf) free(ops); FAIL(p); }
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    if (!stripe_wlock_live(t, s)) { if (ops != opsbuf) free(ops); FAIL(p); }
    EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
    Term stepped;
    if (o && nops == 1 && !is_list_spec && ops[0].thr == THE_NON_VALUE &&
        counter_step_in_place(o, (UWord)ops[0].pos, ops[0].incr, &stepped)) {
        ets_wunlock(&s->lock);
        DONE(stepped);
    }
    Term base = o ? o->term : deflt;
    Term result = THE_NON_VALUE;
    if (base != THE_NON_VALUE) {
        UWord n = tuple_arity(base);
        Term vbuf[16], *vals = n <= 16 ? vbuf : malloc(sizeof(Term) * n);
        Term *rbuf = heap_alloc(p, 2 * (size_t)nops);
        int ok = vals != NULL;
        if (ok) memcpy(vals, tuple_elems(base), n * sizeof(Term));
        if (ok && !o) vals[t->keypos - 1] = key;
        for (long i = 0; ok && i < nops; i++) {
            CounterOp *op = &ops[i];
            if ((UWord)op->pos > n || !is_integer(vals[op->pos - 1])) { ok = 0; break; }
            Term v = arith_add(p, vals[op->pos - 1], op->incr);
            if (v == THE_NON_VALUE) { ok = 0; break; }
            if (op->thr != THE_NON_VALUE) {
                int neg = (is_small(op->incr) && small_val(op->incr) < 0) ||
                          (!is_small(op->incr) && big_is_neg(op->incr));
                int c = term_compare(v, op->thr);
                if ((!neg && c > 0) || (neg && c < 0)) v = op->setv;
            }
            if (!is_immed(v)) v = ets_copy_out(p, v);
            vals[op->pos - 1] = v;
            rbuf[2 * i] = v;
            rbuf[2 * i + 1] = i + 1 < nops ? make_list(rbuf + 2 * i + 2) : NIL;
        }
        if (ok) {
            replace_obj(t, s, o, vals, n, p);
            result = is_list_spec ? (nops ? make_list(rbuf) : NIL) : rbuf[0];
        }
        if (vals != vbuf) free(vals);
    }
    ets_wunlock(&s->lock);
    if (ops != opsbuf) free(ops);
    if (result == THE_NON_VALUE) { p->exc_class = 0; FAIL(p); }
    DONE(result);
}

Term bif_ets_update_counter_3(Process *p, Term *args) { return do_update_counter(p, args, THE_NON_VALUE); }
Term bif_ets_update_counter_4(Process *p, Term *args) { return do_update_counter(p, args, args[3]); }

Term bif_ets_update_element_3(Process *p, Term *args)
{
    TABLE_WRITE(p, args[0]);
    if (t->type != ETS_SET && t->type != ETS_ORDERED_SET) FAIL(p);
    Term key = args[1], spec = args[2];
    int one = is_tuple(spec);
    Term l = spec;
    for (; one || is_list(l); l = list_tail(l)) {
        Term e = one ? spec : list_head(l);
        if (!is_tuple(e) || tuple_arity(e) != 2 || !is_small(tuple_elems(e)[0]) ||
            small_val(tuple_elems(e)[0]) < 1 || small_val(tuple_elems(e)[0]) == t->keypos)
            FAIL(p);
        if (one) break;
    }
    if (!one && !is_nil(l)) FAIL(p);
    uint32_t h = key_hash(t, key);
    EtsStripe *s = ets_key_stripe(t, key, h);
    WLOCK_LIVE(t, s);
    EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
    Term res = AM_false;
    if (o) {
        UWord n = tuple_arity(o->term);
        Term vbuf[16], *vals = n <= 16 ? vbuf : malloc(sizeof(Term) * n);
        res = vals ? AM_true : THE_NON_VALUE;
        if (vals) memcpy(vals, tuple_elems(o->term), n * sizeof(Term));
        for (l = spec; res == AM_true && (one || is_list(l)); l = list_tail(l)) {
            Term e = one ? spec : list_head(l);
            SWord pos = small_val(tuple_elems(e)[0]);
            if ((UWord)pos > n) res = THE_NON_VALUE;
            else vals[pos - 1] = tuple_elems(e)[1];
            if (one) break;
        }
        if (res == AM_true) replace_obj(t, s, o, vals, n, p);
        if (vals && vals != vbuf) free(vals);
    }
    ets_wunlock(&s->lock);
    if (res == THE_NON_VALUE) FAIL(p);
    DONE(res);
}

/* ---- traversal ---- */

static Term step(Process *p, Term *args, int have_key, int back)
{
    TABLE(p, args[0], NEED_READ);
    Term r;
    if (t->type == ETS_ORDERED_SET) {
        /* from the stripe of the key on, in key order: every key of a later
         * stripe is past the key, so the same step goes on there */
        Term k = have_key ? args[1] : THE_NON_VALUE;
        int i = k != THE_NON_VALUE ? ets_oset_index(t, k) : back ? t->nstripes - 1 : 0;
        r = ATOM_TERM(infinity_);
        for (; i >= 0 && i < t->nstripes; i += back ? -1 : 1) {
            EtsStripe *s = &t->stripes[i];
            ets_rlock(&s->lock);
            EtsObj *o = ets_tree_step(t, s, k, back);
            if (o) r = ets_copy_out(p, ets_key(t, o->term));
            ets_runlock(&s->lock);
            if (o) break;
        }
    } else {
        int missing;
        r = ets_hash_next(p, t, have_key ? args[1] : THE_NON_VALUE, &missing);
        if (missing) FAIL(p);
        if (r == THE_NON_VALUE) r = ATOM_TERM(infinity_);
    }
    DONE(r);
}

Term bif_ets_first_1(Process *p, Term *args) { return step(p, args, 0, 0); }
Term bif_ets_last_1(Process *p, Term *args) { return step(p, args, 0, 1); }
Term bif_ets_next_2(Process *p, Term *args) { return step(p, args, 1, 0); }
Term bif_ets_prev_2(Process *p, Term *args) { return step(p, args, 1, 1); }

/* ---- select and its relatives ---- */

enum { SEL_LIST, SEL_COUNT, SEL_DELETE, SEL_REPLACE };

typedef struct SelCtx {
    Process *p;
    EtsMs *ms;
    int mode;
    Term *res; size_t n, cap;    /* SEL_LIST: results on p's heap, in order */
    long count;
    int oom, bad;                /* bad: a replacement changed the key    */
} SelCtx;

static int sel_visit(EtsTable *t, EtsStripe *s, EtsObj *o, void *vc)
{
    SelCtx *c = vc;
    Term r;
    c->p->reds -= 1;
    if (!ets_ms_run(c->p, c->ms, o->term, &r)) return 0;
    if (c->mode == SEL_LIST) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            Term *nr = realloc(c->res, cap * sizeof *nr);
            if (!nr) { c->oom = 1; return 1; }
            c->res = nr; c->cap = cap;
        }
        r = r == o->term ? ets_copy_out_obj(c->p, o, NULL) : ets_copy_out(c->p, r);
        if (r == THE_NON_VALUE) { c->oom = 1; return 1; }
        c->res[c->n++] = r;
    } else if (c->mode == SEL_REPLACE) {
        /* the body's object must keep the key (=:=): in place of o */
        if (!obj_ok(t, r) || !term_eq_exact(ets_key(t, r), ets_key(t, o->term))) { c->bad = 1; return 1; }
        EtsObj *no = ets_obj_new(r, o->hash);
        if (!no) { c->oom = 1; return 1; }
        ets_stripe_insert(t, s, no);
        c->count++;
    } else if (r == AM_true) {
        c->count++;
        if (c->mode == SEL_DELETE) ets_stripe_remove(t, s, o);
    }
    return 0;
}

/* Runs ms over t (only the bound key's objects when every clause binds it). */
static Term run_select(Process *p, Term tid, Term spec, int mode, int reverse)
{
    int writes = mode == SEL_DELETE || mode == SEL_REPLACE;
    TABLE(p, tid, writes ? NEED_WRITE : NEED_READ);
    if (mode == SEL_REPLACE && t->type != ETS_SET && t->type != ETS_ORDERED_SET) FAIL(p);
    int oom;
    EtsMs *ms = ets_ms_compile(spec, &oom);
    if (!ms && oom) OOM(p);
    if (!ms) FAIL(p);
    SelCtx c = { p, ms, mode, NULL, 0, 0, 0, 0, 0 };
    Term key = ets_ms_bound_key(ms, t->keypos);
    if (key != THE_NON_VALUE) {
        uint32_t h = key_hash(t, key);
        EtsStripe *s = ets_key_stripe(t, key, h);
        if (writes) ets_stripe_wlock(t, s); else ets_stripe_rlock(t, s);
        EtsObj *o = ets_stripe_find(t, s, key, h, NULL);
        while (o && !c.bad && !c.oom) {
            EtsObj *nx = same_key_next(t, o, key) ? o->next : NULL;
            sel_visit(t, s, o, &c);
            o = nx;
        }
        if (writes) ets_wunlock(&s->lock); else ets_runlock(&s->lock);
    } else {
        /* (an ordered_set's stripes are in key order) */
        for (int k = 0; k < t->nstripes && !c.oom && !c.bad; k++) {
            EtsStripe *s = &t->stripes[reverse ? t->nstripes - 1 - k : k];
            if (writes) ets_wlock(&s->lock); else ets_rlock(&s->lock);
            ets_stripe_each(t, s, reverse, sel_visit, &c);
            if (writes) ets_wunlock(&s->lock); else ets_runlock(&s->lock);
        }
    }
    ets_ms_free(ms);
    Term r;
    if (mode == SEL_LIST) {
        r = NIL;
        Term *hp = c.n && !c.oom ? heap_alloc_try(p, 2 * c.n) : NULL;
        if (hp)
            for (size_t i = c.n; i-- > 0;) { hp[2 * i] = c.res[i]; hp[2 * i + 1] = r; r = make_list(hp + 2 * i); }
        else if (c.n)
            c.oom = 1;
        free(c.res);
    } else {
        r = make_small(c.count);
    }
    if (c.oom) OOM(p);
    if (c.bad) FAIL(p);
    DONE(r);
}

Term bif_ets_select_2(Process *p, Term *args) { return run_select(p, args[0], args[1], SEL_LIST, 0); }
Term bif_ets_select_reverse_2(Process *p, Term *args) { return run_select(p, args[0], args[1], SEL_LIST, 1); }
Term bif_ets_select_count_2(Process *p, Term *args) { return run_select(p, args[0], args[1], SEL_COUNT, 0); }
Term bif_ets_select_delete_2(Process *p, Term *args) { return run_select(p, args[0], args[1], SEL_DELETE, 0); }
Term bif_ets_select_replace_2(Process *p, Term *args) { return run_select(p, args[0], args[1], SEL_REPLACE, 0); }

/* [{Pattern, [], [Body]}] on p's heap */
static Term pattern_ms(Process *p, Term pat, Term body)
{
    Term bl = cons(p, body, NIL);
    return cons(p, tuple3(p, pat, NIL, bl), NIL);
}

Term bif_ets_match_2(Process *p, Term *args)
{
    return run_select(p, args[0], pattern_ms(p, args[1], A("$$")), SEL_LIST, 0);
}

Term bif_ets_match_object_2(Process *p, Term *args)
{
    return run_select(p, args[0], pattern_ms(p, args[1], A("$_")), SEL_LIST, 0);
}

Term bif_ets_match_delete_2(Process *p, Term *args)
{
    Term r = run_select(p, args[0], pattern_ms(p, args[1], AM_true), SEL_DELETE, 0);
    return r == THE_NON_VALUE ? r : AM_true;
}

Term bif_ets_tab2list_1(Process *p, Term *args)
{
    return run_select(p, args[0], pattern_ms(p, A("_"), A("$_")), SEL_LIST, 0);
}

/* ---- the table itself ---- */

static Term info_item(Process *p, EtsTable *t, Term item)
{
    static const char *types[] = { "set", "ordered_set", "bag", "duplicate_bag" };
    static const char *acc[] = { "public", "protected", "private" };
    if (item == ATOM_TERM(id)) return ets_tid(p, t, NULL);
    if (item == A("decentralized_counters")) return AM_false;
    if (item == A("read_concurrency")) return BOOL(t->read_conc);
    if (item == A("write_concurrency")) return BOOL(t->write_conc);
    if (item == ATOM_TERM(compressed)) return AM_false;
    if (item == ATOM_TERM(memory))
        return make_small(ets_table_words(t) + (long)(sizeof *t + sizeof(EtsStripe) * (size_t)t->nstripes) / 8);
    if (item == A("owner")) return t->owner;
    if (item == A("heir")) return t->heir;
    if (item == ATOM_TERM(name)) return t->name;
    if (item == ATOM_TERM(size)) return make_small(ets_table_size(t));
    if (item == A("node")) return dist_this_node();
    if (item == A("named_table")) return BOOL(t->named);
    if (item == A("type")) return A(types[t->type]);
    if (item == A("keypos")) return make_small(t->keypos);
    if (item == A("protection")) return A(acc[t->access]);
    if (item == A("fixed") || item == A("safe_fixed") || item == A("safe_fixed_monotonic_time"))
        return AM_false;
    return THE_NON_VALUE;
}

Term bif_ets_info_1(Process *p, Term *args)
{
    if (!is_atom(args[0]) && !is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    ets_registry_rlock();
    EtsTable *t = ets_find(args[0]);
    if (!t) DONE(AM_undefined);
    static const char *items[] = { "id", "decentralized_counters", "read_concurrency",
        "write_concurrency", "compressed", "memory", "owner", "heir", "name", "size", "node",
        "named_table", "type", "keypos", "protection" };
    int n = (int)(sizeof items / sizeof *items);
    Term l = NIL;
    for (int i = n - 1; i >= 0; i--) {
        Term k = A(items[i]);
        l = cons(p, tuple2(p, k, info_item(p, t, k)), l);
    }
    DONE(l);
}

Term bif_ets_info_2(Process *p, Term *args)
{
    if (!is_atom(args[0]) && !is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    ets_registry_rlock();
    EtsTable *t = ets_find(args[0]);
    if (!t) DONE(AM_undefined);
    Term r = info_item(p, t, args[1]);
    if (r == THE_NON_VALUE) FAIL(p);
    DONE(r);
}

Term bif_ets_give_away_3(Process *p, Term *args)
{
    Term to = args[1];
    if (!is_pid(to) || to == p->pid) BIF_ERROR(p, AM_badarg);
    Process *q = proc_lookup(to);
    if (!q) BIF_ERROR(p, AM_badarg);
    proc_release(q);
    ets_registry_wlock();
    EtsTable *t = ets_find(args[0]);
    if (!t || t->owner != p->pid) { ets_registry_wunlock(); BIF_ERROR(p, AM_badarg); }
    ets_transfer_locked(t, to, p->pid, args[2]);
    ets_registry_wunlock();
    return AM_true;
}

Term bif_ets_rename_2(Process *p, Term *args)
{
    if (!is_atom(args[1])) BIF_ERROR(p, AM_badarg);
    ets_registry_wlock();
    EtsTable *t = ets_find(args[0]);
    if (!t || (t->access != ETS_PUBLIC && t->owner != p->pid) || ets_rename_locked(t, args[1]) < 0) {
        ets_registry_wunlock();
        BIF_ERROR(p, AM_badarg);
    }
    ets_registry_wunlock();
    return args[1];
}

Term bif_ets_whereis_1(Process *p, Term *args)
{
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    ets_registry_rlock();
    EtsTable *t = ets_find(args[0]);
    Term r = AM_undefined;
    if (t) r = make_ref_at(heap_alloc(p, REF_WORDS), t->id);
    DONE(r);
}

Term bif_ets_all_0(Process *p, Term *args)
{
    (void)args;
    ets_registry_rlock();
    Term r = ets_all(p);
    ets_registry_runlock();
    return r;
}

Term bif_ets_safe_fixtable_2(Process *p, Term *args)
{
    if (args[1] != AM_true && args[1] != AM_false) BIF_ERROR(p, AM_badarg);
    TABLE(p, args[0], NEED_READ);
    DONE(AM_true);
}

/* ---- slot, setopts ---- */

/* A hash stripe counts as at least ETS_MIN_SLOTS slots, so that slot 0 of
 * an empty table is [] (OTP's tables start with buckets too). */
#define ETS_MIN_SLOTS 8

typedef struct { long want, at; EtsObj *found; } NthCtx;

static int nth_visit(EtsTable *t, EtsStripe *s, EtsObj *o, void *vc)
{
    (void)t; (void)s;
    NthCtx *c = vc;
    if (c->at++ == c->want) { c->found = o; return 1; }
    return 0;
}

Term bif_ets_slot_2(Process *p, Term *args)
{
    TABLE(p, args[0], NEED_READ);
    if (!is_small(args[1]) || small_val(args[1]) < 0) FAIL(p);
    long i = (long)small_val(args[1]);
    if (t->type == ETS_ORDERED_SET) {
        /* the I'th object in key order, the stripes one after the other */
        NthCtx c = { i, 0, NULL };
        Term r = THE_NON_VALUE;
        int oom = 0;
        for (int si = 0; si < t->nstripes && !c.found; si++) {
            EtsStripe *s = &t->stripes[si];
            ets_rlock(&s->lock);
            ets_stripe_each(t, s, 0, nth_visit, &c);
            if (c.found) {
                Term obj = ets_copy_out_obj(p, c.found, NULL);
                if (obj == THE_NON_VALUE) oom = 1;
                else r = cons(p, obj, NIL);
            }
            ets_runlock(&s->lock);
        }
        if (!c.found && c.at == i) r = ATOM_TERM(infinity_);
        if (oom) OOM(p);
        if (r == THE_NON_VALUE) FAIL(p);
        DONE(r);
    }
    /* the buckets of the stripes, one after the other */
    for (int si = 0; si < t->nstripes; si++) {
        EtsStripe *s = &t->stripes[si];
        ets_rlock(&s->lock);
        long n = (long)(s->nbuckets > ETS_MIN_SLOTS ? s->nbuckets : ETS_MIN_SLOTS);
        if (i < n) {
            Term r = NIL, *tailp = &r;
            if ((size_t)i < s->nbuckets)
                for (EtsObj *o = s->buckets[i]; o; o = o->next) {
                    Term *hp = heap_alloc_try(p, 2 + o->words);
                    if (!hp) { ets_runlock(&s->lock); OOM(p); }
                    hp[0] = ets_copy_out_obj(p, o, hp + 2);
                    hp[1] = NIL;
                    *tailp = make_list(hp);
                    tailp = &hp[1];
                }
            ets_runlock(&s->lock);
            DONE(r);
        }
        i -= n;
        ets_runlock(&s->lock);
    }
    if (i == 0) DONE(ATOM_TERM(infinity_));
    FAIL(p);
}

/* One option of setopts/2 checked: 1 heir, 2 protection, 0 bad. */
static int setopt_kind(Term o, int *access)
{
    if (!is_tuple(o)) return 0;
    UWord n = tuple_arity(o);
    Term *e = tuple_elems(o);
    if (e[0] == A("heir") && n == 2 && e[1] == ATOM_TERM(none)) return 1;
    if (e[0] == A("heir") && n == 3 && is_pid(e[1])) return 1;
    if (e[0] == A("protection") && n == 2) {
        if (e[1] == A("public")) *access = ETS_PUBLIC;
        else if (e[1] == A("protected")) *access = ETS_PROTECTED;
        else if (e[1] == A("private")) *access = ETS_PRIVATE;
        else return 0;
        return 2;
    }
    return 0;
}

/* The owner changes the heir or the access of its table. Both are read
 * under the registry's read lock (table_get, ets_owner_exit), so they
 * change under its write lock; every option is checked before any is
 * applied. */
Term bif_ets_setopts_2(Process *p, Term *args)
{
    Term opts = args[1];
    int one = is_tuple(opts), access = -1;
    Term l = opts;
    for (; one || is_list(l); l = list_tail(l)) {
        if (!setopt_kind(one ? opts : list_head(l), &access)) BIF_ERROR(p, AM_badarg);
        if (one) break;
    }
    if (!one && !is_nil(l)) BIF_ERROR(p, AM_badarg);
    ets_registry_wlock();
    EtsTable *t = ets_find(args[0]);
    if (!t || t->owner != p->pid) { ets_registry_wunlock(); BIF_ERROR(p, AM_badarg); }
    for (l = opts; one || is_list(l); l = list_tail(l)) {
        Term o = one ? opts : list_head(l);
        if (setopt_kind(o, &access) == 2) smp_store_release(&t->access, access);
        else {
            if (t->heir_data) { ets_obj_free(t->heir_data); t->heir_data = NULL; }
            t->heir = ATOM_TERM(none);
            if (tuple_arity(o) == 3) {
                Term tmp[2] = { make_tuple_header(1), tuple_elems(o)[2] };
                t->heir_data = ets_obj_new(make_boxed(tmp), 0);
                if (t->heir_data) t->heir = tuple_elems(o)[1];
            }
        }
        if (one) break;
    }
    ets_registry_wunlock();
    return AM_true;
}

/* ---- match specifications outside tables ---- */

/* A charlist of the bytes of s, on p's heap. */
static Term charlist(Process *p, const char *s, size_t n)
{
    Term l = NIL;
    for (size_t i = n; i-- > 0;) l = cons(p, make_small((unsigned char)s[i]), l);
    return l;
}

/* ets:test_ms(Tuple, MatchSpec) (erlang:match_spec_test/3 for a table):
 * {ok, Result} (false if no clause matched) or {error, [{error, Text}]}. */
Term bif_ets_test_ms_2(Process *p, Term *args)
{
    OutBuf why;
    ob_init(&why);
    int oom;
    EtsMs *ms = ets_ms_compile_ex(args[1], 1, &why, &oom);
    if (!ms && oom) { ob_free(&why); return bif_out_of_memory(p); }
    if (!ms) {
        if (!why.len) ob_puts(&why, "Match program is not well formed.");
        Term text = charlist(p, why.buf, why.len);
        ob_free(&why);
        return tuple2(p, A("error"), cons(p, tuple2(p, A("error"), text), NIL));
    }
    ob_free(&why);
    Term r;
    if (ets_ms_run(p, ms, args[0], &r)) r = r == args[0] ? r : ets_copy_out(p, r);
    else r = AM_false;
    ets_ms_free(ms);
    return tuple2(p, AM_ok, r);
}

/* A compiled match specification is {'$ets_compiled_ms', Spec}: the spec,
 * checked. Running it compiles it again (the compiled form points into the
 * caller's heap and cannot outlive one call). */
Term bif_ets_match_spec_compile_1(Process *p, Term *args)
{
    int oom;
    EtsMs *ms = ets_ms_compile_ex(args[0], 1, NULL, &oom);
    if (!ms && oom) return bif_out_of_memory(p);
    if (!ms) BIF_ERROR(p, AM_badarg);
    ets_ms_free(ms);
    return tuple2(p, A("$ets_compiled_ms"), args[0]);
}

/* match_spec_run_r(List, Compiled, Acc): the results of the terms of List
 * that match, prepended to Acc in reverse. */
Term bif_ets_match_spec_run_r_3(Process *p, Term *args)
{
    Term cm = args[1];
    if (!is_tuple(cm) || tuple_arity(cm) != 2 || tuple_elems(cm)[0] != A("$ets_compiled_ms"))
        BIF_ERROR(p, AM_badarg);
    Term l = args[0];
    for (; is_list(l); l = list_tail(l)) ;
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    int oom;
    EtsMs *ms = ets_ms_compile_ex(tuple_elems(cm)[1], 1, NULL, &oom);
    if (!ms && oom) return bif_out_of_memory(p);
    if (!ms) BIF_ERROR(p, AM_badarg);
    Term acc = args[2];
    for (l = args[0]; is_list(l); l = list_tail(l)) {
        Term x = list_head(l), r;
        p->reds -= 1;
        if (!ets_ms_run(p, ms, x, &r)) continue;
        acc = cons(p, r == x ? r : ets_copy_out(p, r), acc);
    }
    ets_ms_free(ms);
    return acc;
}
