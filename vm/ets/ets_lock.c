/* ets_lock.c — reader-writer locks for ETS (see ets_lock.h for the two kinds
 * and why the reader-slot kind lets readers on different schedulers proceed
 * without writing a shared cache line). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include "ets_lock.h"

/* Each thread's slot number, handed out in order of first use: schedulers
 * are threads, so with nslots >= schedulers every scheduler has a slot of
 * its own; more threads than slots share, which is still correct (a slot is
 * a counter, not a flag). */
static atomic_int next_slot;
static __thread int my_slot = -1;

static inline int thread_slot(void)
{
    if (my_slot < 0) my_slot = atomic_fetch_add(&next_slot, 1);
    return my_slot;
}

int ets_lock_init(EtsLock *l, int kind, int nslots)
{
    l->kind = kind;
    l->nslots = nslots < 1 ? 1 : nslots;
    l->slots = NULL;
    atomic_init(&l->writer, 0);
    if (kind == ETS_LOCK_RW) {
        /* writers first: glibc's default lets a stream of readers starve
         * them (no reader here ever takes the same lock twice) */
        pthread_rwlockattr_t a;
        pthread_rwlockattr_init(&a);
        pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        int r = pthread_rwlock_init(&l->rw, &a);
        pthread_rwlockattr_destroy(&a);
        return r ? -1 : 0;
    }
    pthread_mutex_init(&l->wmu, NULL);
    l->slots = aligned_alloc(64, sizeof(EtsSlot) * (size_t)l->nslots);
    if (!l->slots) return -1;
    for (int i = 0; i < l->nslots; i++) atomic_init(&l->slots[i].readers, 0);
    return 0;
}

void ets_lock_destroy(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) { pthread_rwlock_destroy(&l->rw); return; }
    pthread_mutex_destroy(&l->wmu);
    free(l->slots);
}

void ets_rlock(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) { pthread_rwlock_rdlock(&l->rw); return; }
    atomic_long *s = &l->slots[thread_slot() % l->nslots].readers;
    for (;;) {
        /* sequentially consistent on both sides: either the writer sees our
         * count, or we see its flag (the Dekker pattern) */
        atomic_fetch_add(s, 1);
        if (!atomic_load(&l->writer)) return;
        atomic_fetch_sub(s, 1);
        while (atomic_load_explicit(&l->writer, memory_order_relaxed)) sched_yield();
    }
}

void ets_runlock(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) { pthread_rwlock_unlock(&l->rw); return; }
    atomic_fetch_sub_explicit(&l->slots[thread_slot() % l->nslots].readers, 1, memory_order_release);
}

void ets_wlock(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) { pthread_rwlock_wrlock(&l->rw); return; }
    pthread_mutex_lock(&l->wmu);
    atomic_store(&l->writer, 1);
    for (int i = 0; i < l->nslots; i++) {
        int spins = 0;
        while (atomic_load(&l->slots[i].readers) != 0)
            if (++spins > 64) sched_yield();
    }
}

void ets_wunlock(EtsLock *l)
{
    if (l->kind == ETS_LOCK_RW) { pthread_rwlock_unlock(&l->rw); return; }
    atomic_store(&l->writer, 0);
    pthread_mutex_unlock(&l->wmu);
}
