/* test_ets_lock.c — the two ETS reader-writer locks under load: 4 reader
 * threads and 2 writer threads share a pair of plain (non-atomic) words that
 * writers keep equal; a reader holding the read lock must always see them
 * equal, and the writers' increments must all count. Run under
 * ThreadSanitizer too (make check-tsan), where a missing happens-before edge
 * between a writer and a reader is a data race report. A second round has
 * writers now and then hold the lock for 0.2 ms, so that waiters give up
 * spinning and sleep, and must all be woken. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "ets_lock.h"

#define READERS 4
#define WRITERS 2
#define WRITES 20000
#define READS 100000

static EtsLock lock;
static long a, b;
static int failures;
static atomic_int torn;

static void *reader(void *arg) {
    (void)arg;
    for (int i = 0; i < READS; i++) {
        ets_rlock(&lock);
        if (a != b) atomic_fetch_add(&torn, 1);
        ets_runlock(&lock);
    }
    return NULL;
}

static int slow_holders;

static void *writer(void *arg) {
    (void)arg;
    for (int i = 0; i < WRITES; i++) {
        ets_wlock(&lock);
        a++;
        /* sometimes hold the lock long enough that the others stop
         * spinning and sleep (the futex path of ETS_LOCK_RW) */
        if (slow_holders && i % 500 == 0) nanosleep(&(struct timespec){ 0, 200000 }, NULL);
        b++;
        ets_wunlock(&lock);
    }
    return NULL;
}

static void run(int kind, const char *name) {
    a = b = 0;
    atomic_store(&torn, 0);
    if (ets_lock_init(&lock, kind, 3)) { printf("FAIL %s: init\n", name); failures++; return; }
    pthread_t th[READERS + WRITERS];
    for (long i = 0; i < READERS; i++) pthread_create(&th[i], NULL, reader, NULL);
    for (long i = 0; i < WRITERS; i++) pthread_create(&th[READERS + i], NULL, writer, NULL);
    for (int i = 0; i < READERS + WRITERS; i++) pthread_join(th[i], NULL);
    ets_lock_destroy(&lock);
    if (atomic_load(&torn) || a != (long)WRITERS * WRITES || b != a) {
        printf("FAIL %s: torn reads %d, a=%ld b=%ld\n", name, atomic_load(&torn), a, b);
        failures++;
    }
}

int main(void) {
    /* 3 slots for 6 threads: threads share slots, as more threads than
     * schedulers would */
    run(ETS_LOCK_RW, "rwlock");
    run(ETS_LOCK_SLOTS, "reader slots");
    slow_holders = 1;
    run(ETS_LOCK_RW, "rwlock, slow holders");
    run(ETS_LOCK_SLOTS, "reader slots, slow holders");
    printf("test_ets_lock: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
