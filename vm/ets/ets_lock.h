/* ets_lock.h — the reader-writer locks of ETS tables.
 *
 * Two kinds. ETS_LOCK_RW is one 32-bit word (readers, a writer bit, the
 * count of writers waiting, a sleepers bit) taken with one compare-and-swap
 * and released with one atomic add: every reader writes that word, so
 * readers on different schedulers bounce one cache line, but a writer is
 * cheap. Writers go first: a reader does not enter while a writer waits, so
 * a stream of readers cannot starve one. A thread that cannot enter spins a
 * little, then sleeps in the kernel (futex) until the word changes, so a
 * lock whose holder was descheduled costs the waiters no processor.
 *
 * ETS_LOCK_SLOTS (a table's read_concurrency, and the table registry) gives
 * each thread its own reader counter on its own cache line: a reader only
 * writes its slot and reads the writer flag, so readers on different
 * schedulers share no written memory; a writer raises the flag and waits
 * until every slot is zero, so writing costs a pass over the slots. (This is
 * the "big reader" lock; OTP's read_concurrency does the same.)
 *
 * Both kinds count writers in seq, a sequence lock beside the lock itself:
 * odd while a writer is inside, stepped twice by each. A reader that takes
 * no lock at all (ets:lookup on a set, bif_ets.c) reads seq before and after
 * its walk, and trusts what it read only if seq was even and did not move.
 *
 * The uncontended paths are inline.
 */
#ifndef MINI_ETS_LOCK_H
#define MINI_ETS_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { ETS_LOCK_RW = 0, ETS_LOCK_SLOTS = 1 };

typedef struct EtsSlot {
    _Alignas(64) atomic_long readers;
    char pad[64 - sizeof(atomic_long)];
} EtsSlot;

typedef struct EtsLock {
    int kind;
    int nslots;                  /* ETS_LOCK_SLOTS: a power of two ...      */
    unsigned slot_mask;          /* ... less one: a thread's slot is its
                                    number & slot_mask (a % would divide,
                                    tens of cycles on every lock and unlock) */
    _Atomic uint32_t word;       /* ETS_LOCK_RW: the bits below             */
    _Atomic uint32_t seq;        /* both: odd while a writer is inside       */
    pthread_mutex_t wmu;         /* ETS_LOCK_SLOTS: writers queue here ... */
    atomic_int writer;           /* ... and the one holding it raises this */
    EtsSlot *slots;
} EtsLock;

/* ETS_LOCK_RW's word */
#define ETS_RW_READERS  0x000FFFFFu   /* readers inside                    */
#define ETS_RW_WRITER   0x00100000u   /* a writer inside                   */
#define ETS_RW_SLEEPERS 0x00200000u   /* someone sleeps on the word        */
#define ETS_RW_WWAIT1   0x00400000u   /* one writer waiting (count above)  */
#define ETS_RW_WWAIT    0xFFC00000u

/* nslots: reader slots for ETS_LOCK_SLOTS, rounded up to a power of two
 * (threads share a slot modulo it).
 * Returns 0, or -1 when out of memory. */
int ets_lock_init(EtsLock *l, int kind, int nslots);
void ets_lock_destroy(EtsLock *l);

/* the slow paths (ets_lock.c) */
void ets_slots_wait_readers(EtsLock *l);
void ets_rw_rlock_slow(EtsLock *l);
void ets_rw_runlock_wake(EtsLock *l);
void ets_rw_wlock_slow(EtsLock *l);
void ets_rw_wunlock_wake(EtsLock *l);
void ets_slots_rlock_slow(EtsLock *l, atomic_long *slot);
void ets_slots_wunlock(EtsLock *l);

/* This thread's reader slot (handed out in order of first use). */
extern __thread int ets_my_slot;
int ets_slot_assign(void);
/* A scheduler thread's slot is its index: set when the thread starts. */
void ets_slot_set(int slot);
static inline int ets_thread_slot(void) { return ets_my_slot >= 0 ? ets_my_slot : ets_slot_assign(); }

/* The writer's side of seq: after taking the lock, before letting go.
 * No fences: every store a lock-free reader may load is a release store
 * (smp_store_release, ets.h says which) and every such load an acquire
 * load, so a reader that loads anything this writer stored afterwards also
 * sees the odd count on its second look (and the loads before that look
 * cannot pass it). */
static inline void ets_seq_enter(EtsLock *l)
{
    atomic_store_explicit(&l->seq, atomic_load_explicit(&l->seq, memory_order_relaxed) + 1, memory_order_relaxed);
}
static inline void ets_seq_leave(EtsLock *l)
{
    atomic_store_explicit(&l->seq, atomic_load_explicit(&l->seq, memory_order_relaxed) + 1, memory_order_release);
}
/* A lock-free reader's side: the value to check against (odd: a writer is
 * inside, do not start), and whether nothing was written since. */
static inline uint32_t ets_seq_begin(EtsLock *l) { return atomic_load_explicit(&l->seq, memory_order_acquire); }
static inline int ets_seq_still(EtsLock *l, uint32_t seq)
{
    return atomic_load_explicit(&l->seq, memory_order_relaxed) == seq;
}

static inline void ets_runlock(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) {
        uint32_t v = atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) - 1;
        if ((v & (ETS_RW_READERS | ETS_RW_SLEEPERS)) == ETS_RW_SLEEPERS) ets_rw_runlock_wake(l);
        return;
    }
    atomic_fetch_sub_explicit(&l->slots[ets_thread_slot() & l->slot_mask].readers, 1, memory_order_release);
}

/* Taking the two locks, telling whether they were taken without waiting
 * (1) or only after another thread let go (0): the contention an
 * ordered_set with write_concurrency splits on (ets_rlock and ets_wlock,
 * below, are these with the answer dropped). */
static inline int ets_wlock_noted(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) {
        uint32_t v = 0;
        if (atomic_compare_exchange_strong_explicit(&l->word, &v, ETS_RW_WRITER, memory_order_acquire, memory_order_relaxed)) {
            ets_seq_enter(l);
            return 1;
        }
        ets_rw_wlock_slow(l);
        ets_seq_enter(l);
        return 0;
    }
    int at_once = pthread_mutex_trylock(&l->wmu) == 0;
    if (!at_once) pthread_mutex_lock(&l->wmu);
    ets_slots_wait_readers(l);
    ets_seq_enter(l);
    return at_once;
}

static inline int ets_rlock_noted(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) {
        uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
        if (!(v & (ETS_RW_WRITER | ETS_RW_WWAIT)) &&
            atomic_compare_exchange_strong_explicit(&l->word, &v, v + 1, memory_order_acquire, memory_order_relaxed))
            return 1;
        ets_rw_rlock_slow(l);
        return 0;
    }
    atomic_long *s = &l->slots[ets_thread_slot() & l->slot_mask].readers;
    /* sequentially consistent on both sides: either the writer sees our
     * count, or we see its flag (the Dekker pattern) */
    atomic_fetch_add(s, 1);
    if (!atomic_load(&l->writer)) return 1;
    ets_slots_rlock_slow(l, s);
    return 0;
}

static inline void ets_rlock(EtsLock *l) { (void)ets_rlock_noted(l); }
static inline void ets_wlock(EtsLock *l) { (void)ets_wlock_noted(l); }

static inline void ets_wunlock(EtsLock *l)
{
    ets_seq_leave(l);
    if (l->kind == ETS_LOCK_RW) {
        uint32_t v = ETS_RW_WRITER;
        if (atomic_compare_exchange_strong_explicit(&l->word, &v, 0, memory_order_release, memory_order_relaxed))
            return;
        ets_rw_wunlock_wake(l);
        return;
    }
    ets_slots_wunlock(l);
}

#endif
