/* ets_lock.h — the reader-writer locks of ETS tables.
 *
 * Two kinds. ETS_LOCK_RW is a plain pthread rwlock: every reader writes the
 * same lock word, so readers on different schedulers bounce one cache line,
 * but a writer is cheap. ETS_LOCK_SLOTS (a table's read_concurrency, and the
 * table registry) gives each thread its own reader counter on its own cache
 * line: a reader only writes its slot and reads the writer flag, so readers
 * on different schedulers share no written memory; a writer raises the flag
 * and waits until every slot is zero, so writing costs a pass over the slots.
 * (This is the "big reader" lock; OTP's read_concurrency does the same.)
 */
#ifndef MINI_ETS_LOCK_H
#define MINI_ETS_LOCK_H

#include <pthread.h>
#include <stdatomic.h>

enum { ETS_LOCK_RW = 0, ETS_LOCK_SLOTS = 1 };

typedef struct EtsSlot {
    _Alignas(64) atomic_long readers;
    char pad[64 - sizeof(atomic_long)];
} EtsSlot;

typedef struct EtsLock {
    int kind;
    int nslots;
    pthread_rwlock_t rw;         /* ETS_LOCK_RW */
    pthread_mutex_t wmu;         /* ETS_LOCK_SLOTS: writers queue here ... */
    atomic_int writer;           /* ... and the one holding it raises this */
    EtsSlot *slots;
} EtsLock;

/* nslots: reader slots for ETS_LOCK_SLOTS (threads share a slot modulo it).
 * Returns 0, or -1 when out of memory. */
int ets_lock_init(EtsLock *l, int kind, int nslots);
void ets_lock_destroy(EtsLock *l);
void ets_rlock(EtsLock *l);
void ets_runlock(EtsLock *l);
void ets_wlock(EtsLock *l);
void ets_wunlock(EtsLock *l);

#endif
