/* ets_lock.c — the slow paths of the ETS reader-writer locks (ets_lock.h
 * has the two kinds, their fast paths and why). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <limits.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include "ets_lock.h"
#include "sched.h"

/* Each thread's slot number: a scheduler's is its index (ets_slot_set,
 * when its thread starts), so with nslots >= schedulers every scheduler has
 * a slot of its own whichever threads touched ETS first; any other thread
 * is handed one in order of first use, after the schedulers' numbers. More
 * threads than slots share, which is still correct (a slot is a counter,
 * not a flag). */
static atomic_int next_slot = MAX_SCHEDULERS;
__thread int ets_my_slot = -1;

void ets_slot_set(int slot) { ets_my_slot = slot; }

int ets_slot_assign(void)
{
    ets_my_slot = atomic_fetch_add(&next_slot, 1);
    return ets_my_slot;
}

int ets_lock_init(EtsLock *l, int kind, int nslots)
{
    l->kind = kind;
    l->nslots = 1;
    while (l->nslots < nslots) l->nslots *= 2;
    l->slot_mask = (unsigned)l->nslots - 1;
    l->slots = NULL;
    atomic_init(&l->writer, 0);
    atomic_init(&l->word, 0);
    atomic_init(&l->seq, 0);
    if (kind == ETS_LOCK_RW) return 0;
    pthread_mutex_init(&l->wmu, NULL);
    l->slots = aligned_alloc(64, sizeof(EtsSlot) * (size_t)l->nslots);
    if (!l->slots) return -1;
    for (int i = 0; i < l->nslots; i++) atomic_init(&l->slots[i].readers, 0);
    return 0;
}

void ets_lock_destroy(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) return;
    pthread_mutex_destroy(&l->wmu);
    free(l->slots);
}

/* ---- ETS_LOCK_RW ----
 *
 * Every decision is taken on the one word, so a thread that goes to sleep
 * sleeps on the very value that made it wait (futex compares it first) and
 * cannot miss the change it waits for. Who sleeps sets SLEEPERS; whoever
 * makes a change that lets a sleeper in (the last reader out, a writer out)
 * clears it and wakes every sleeper, and those that still cannot enter set
 * it again. A writer taking the lock keeps the bit, so the sleepers are
 * woken when it leaves. */

/* Spins before sleeping: a holder that is running leaves within a few
 * hundred nanoseconds; one that is descheduled does not, and waiting on it
 * with the processor would keep it from running. */
#define ETS_SPINS 100

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Sleeps while the word is v (v has SLEEPERS set). */
static void rw_sleep(EtsLock *l, uint32_t v)
{
#ifdef __SANITIZE_THREAD__
    /* ThreadSanitizer holds signals back in raw system calls and Boehm's
     * collector stops the world with signals (sched.c naps the same way) */
    (void)v;
    (void)l;
    usleep(50);
#else
    syscall(SYS_futex, (uint32_t *)&l->word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
#endif
}

static void rw_wake(EtsLock *l)
{
#ifndef __SANITIZE_THREAD__
    syscall(SYS_futex, (uint32_t *)&l->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)l;
#endif
}

/* Sets SLEEPERS in *v's word if missing; 1 if the word is still *v (now
 * with the bit) and the caller may sleep on it, 0 if it changed (*v is the
 * new value: look again). */
static int rw_mark_sleeper(EtsLock *l, uint32_t *v)
{
    if (*v & ETS_RW_SLEEPERS) return 1;
    if (!atomic_compare_exchange_weak_explicit(&l->word, v, *v | ETS_RW_SLEEPERS, memory_order_relaxed, memory_order_relaxed))
        return 0;
    *v |= ETS_RW_SLEEPERS;
    return 1;
}

void ets_rw_rlock_slow(EtsLock *l)
{
    int spins = 0;
    uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
    for (;;) {
        if (!(v & (ETS_RW_WRITER | ETS_RW_WWAIT))) {
            if (atomic_compare_exchange_weak_explicit(&l->word, &v, v + 1, memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (spins++ < ETS_SPINS) {
            cpu_relax();
            v = atomic_load_explicit(&l->word, memory_order_relaxed);
            continue;
        }
        if (rw_mark_sleeper(l, &v)) {
            rw_sleep(l, v);
            v = atomic_load_explicit(&l->word, memory_order_relaxed);
        }
    }
}

void ets_rw_wlock_slow(EtsLock *l)
{
    /* counted as waiting: no new reader enters from now on */
    uint32_t v = atomic_fetch_add_explicit(&l->word, ETS_RW_WWAIT1, memory_order_relaxed) + ETS_RW_WWAIT1;
    int spins = 0;
    for (;;) {
        if (!(v & (ETS_RW_WRITER | ETS_RW_READERS))) {
            if (atomic_compare_exchange_weak_explicit(&l->word, &v, (v - ETS_RW_WWAIT1) | ETS_RW_WRITER,
                                                      memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (spins++ < ETS_SPINS) {
            cpu_relax();
            v = atomic_load_explicit(&l->word, memory_order_relaxed);
            continue;
        }
        if (rw_mark_sleeper(l, &v)) {
            rw_sleep(l, v);
            v = atomic_load_explicit(&l->word, memory_order_relaxed);
        }
    }
}

/* Clears `drop` (and SLEEPERS) from the word; wakes the sleepers if the bit
 * was set. */
static void rw_release(EtsLock *l, uint32_t drop)
{
    uint32_t v = atomic_load_explicit(&l->word, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&l->word, &v, v & ~(drop | ETS_RW_SLEEPERS),
                                                  memory_order_release, memory_order_relaxed))
        ;
    if (v & ETS_RW_SLEEPERS) rw_wake(l);
}

void ets_rw_runlock_wake(EtsLock *l)
{
    /* the reader already left; others may have come and gone since, and
     * then the one that left last clears the bit (clearing twice is only an
     * extra wake-up) */
    rw_release(l, 0);
}

void ets_rw_wunlock_wake(EtsLock *l) { rw_release(l, ETS_RW_WRITER); }

/* ---- ETS_LOCK_SLOTS ---- */

void ets_slots_rlock_slow(EtsLock *l, atomic_long *s)
{
    for (;;) {
        atomic_fetch_sub(s, 1);
        while (atomic_load_explicit(&l->writer, memory_order_relaxed)) sched_yield();
        atomic_fetch_add(s, 1);
        if (!atomic_load(&l->writer)) return;
    }
}

/* With wmu held: raises the writer flag and waits for the readers inside
 * to leave. */
void ets_slots_wait_readers(EtsLock *l)
{
    atomic_store(&l->writer, 1);
    for (int i = 0; i < l->nslots; i++) {
        int spins = 0;
        while (atomic_load(&l->slots[i].readers) != 0)
            if (++spins > 64) sched_yield();
    }
}

void ets_slots_wunlock(EtsLock *l)
{
    atomic_store(&l->writer, 0);
    pthread_mutex_unlock(&l->wmu);
}
