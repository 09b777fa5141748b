/* async.c — the async threads (+A N): where drivers' blocking work runs.
 *
 * Each thread has its own job queue and its own futex word, and shares
 * nothing else with anyone:
 *
 *  - The queue is intrusive and lock-free, many producers and one
 *    consumer: a producer (a scheduler in driver_async) pushes the job's
 *    block with one CAS onto a LIFO head; the thread takes the whole list
 *    with one exchange and turns it round, so one port's jobs (all on the
 *    same thread: key mod N) run in the order given.
 *  - The futex word has three states. RUNNING: the thread is working
 *    through jobs; SPINNING: its queue was empty and it looks again for a
 *    little while; SLEEPING: it waits in futex_wait. A producer reads the
 *    word after its push and only if it says SLEEPING does it exchange it
 *    for RUNNING, and the one that swapped SLEEPING out calls futex_wake:
 *    at most one wake-up per sleep, and none while the thread is busy. The
 *    thread sets SLEEPING before its last look at the queue (both
 *    sequentially consistent), so a push is seen by the look or the
 *    producer sees SLEEPING.
 *  - A finished job goes back to its port's inbox (async_job_complete in
 *    port.c): the thread takes no lock of a port or a process.
 *  - A scheduler is woken for a completion only when every scheduler
 *    sleeps (an awake one takes it at its next pick), and a thread with
 *    more jobs queued puts that wake-up off (sched_external_settle): the
 *    completions of the next jobs ride on it, so one wake-up carries a
 *    batch. It is paid when the thread's queue runs dry (the thread never
 *    idles owing one), or when the completion that may wait least would be
 *    late by the end of the next job, foretold to take as long as the one
 *    just done (a job that takes longer than a completion may wait pays at
 *    once: long jobs predict long jobs). How long a completion may wait
 *    grows with how long its job queued (policy_external_lag_us).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "port.h"
#include "fatal.h"
#include "smp.h"
#include "sched.h"
#include "sched_policy.h"
#include "timer.h"

enum { RUNNING = 0, SPINNING = 1, SLEEPING = 2 };
#define SPIN_ROUNDS 2000       /* looks at an empty queue before sleeping
                                  (~20-50 us): a job submitted right after
                                  the last one finished needs no futex */

typedef struct AsyncThread {
    _Alignas(CACHE_LINE) _Atomic(Message *) head;   /* pushed jobs, newest first */
    _Atomic int state;                              /* RUNNING / SPINNING / SLEEPING */
    _Alignas(CACHE_LINE) pthread_t thread;
    UWord jobs;                                     /* done, for the curious */
} AsyncThread;

static AsyncThread *threads;
static int nthreads;
static _Atomic int stopping;
/* threads not asleep in futex_wait: an idle scheduler spins only while
 * the awake threads leave a core free (policy_spin_worth) */
static _Atomic int nawake;

int async_thread_count(void) { return nthreads; }
int async_awake_count(void) { return atomic_load_explicit(&nawake, memory_order_relaxed); }

static void futex_wait(_Atomic int *w, int val) {
#ifdef __SANITIZE_THREAD__
    /* ThreadSanitizer holds a signal back while its thread is in a raw
     * system call, and Boehm's collector stops the world with signals: an
     * idle async thread asleep in futex() would never answer ("Signals
     * delivery fails constantly"). Under TSan it naps in usleep, where
     * signals are delivered; its caller looks at the word again (sched.c
     * naps the same way). */
    (void)w;
    (void)val;
    usleep(200);
#else
    syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
#endif
}

static void futex_wake(_Atomic int *w) {
    syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The one who turned t's word from SLEEPING counts it awake, before the
 * wake-up: a scheduler that goes to sleep right after a submit must see an
 * async thread at work (sched.c, external_bound), not wait for the thread
 * to be scheduled and count itself. */
static void wake_thread(AsyncThread *t) {
    atomic_fetch_add_explicit(&nawake, 1, memory_order_seq_cst);
    futex_wake(&t->state);
}

void async_submit(unsigned key, Message *job) {
    AsyncThread *t = &threads[key % (unsigned)nthreads];
    async_job(job)->queued_us = timer_now_us();
    Message *old = atomic_load_explicit(&t->head, memory_order_relaxed);
    do job->next = old;
    while (!atomic_compare_exchange_weak(&t->head, &old, job));
    if (atomic_load(&t->state) == SLEEPING && atomic_exchange(&t->state, RUNNING) == SLEEPING)
        wake_thread(t);
}

static Message *take_all(AsyncThread *t) {
    if (!atomic_load_explicit(&t->head, memory_order_relaxed)) return NULL;
    return message_list_reversed(atomic_exchange(&t->head, NULL));
}

static void *async_main(void *arg) {
    AsyncThread *t = arg;
    for (;;) {
        Message *batch = take_all(t);
        if (batch) {
            for (Message *m = batch, *next; m; m = next) {
                next = m->next;
                uint64_t t0 = timer_now_us(), queued = t0 - async_job(m)->queued_us;
                async_job_complete(m);       /* m belongs to its port from here */
                t->jobs++;
                int more = next || atomic_load_explicit(&t->head, memory_order_relaxed);
                sched_external_settle(!more, policy_external_lag_us(queued), timer_now_us() - t0);
            }
            continue;
        }
        if (atomic_load(&stopping)) break;
        atomic_store(&t->state, SPINNING);
        int found = 0;
        for (int i = 0; i < SPIN_ROUNDS && !found; i++) {
            cpu_relax();
            found = atomic_load_explicit(&t->head, memory_order_relaxed) != NULL;
        }
        if (found) { atomic_store(&t->state, RUNNING); continue; }
        atomic_store(&t->state, SLEEPING);
        if (atomic_load(&t->head) || atomic_load(&stopping)) {
            /* a waker that swapped SLEEPING out first counted us awake,
             * and we never counted ourselves out: take its count back */
            if (atomic_exchange(&t->state, RUNNING) == RUNNING)
                atomic_fetch_sub_explicit(&nawake, 1, memory_order_relaxed);
            continue;
        }
        atomic_fetch_sub_explicit(&nawake, 1, memory_order_relaxed);
        /* whoever wakes us counted us awake again (wake_thread) */
        while (atomic_load(&t->state) == SLEEPING) futex_wait(&t->state, SLEEPING);
    }
    return NULL;
}

void async_init(int n) {
    if (n <= 0) return;
    threads = calloc((size_t)n, sizeof *threads);
    if (!threads) FATAL("out of memory for %d async threads", n);
    nthreads = n;
    atomic_store(&nawake, n);
    for (int i = 0; i < n; i++) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 256 * 1024);    /* jobs are small C functions */
        if (pthread_create(&threads[i].thread, &a, async_main, &threads[i]) != 0)
            FATAL("cannot start async thread %d", i);
        pthread_attr_destroy(&a);
    }
}

/* At exit: each thread finishes what it holds, then ends. */
void async_shutdown(void) {
    if (!nthreads) return;
    atomic_store(&stopping, 1);
    for (int i = 0; i < nthreads; i++)
        if (atomic_exchange(&threads[i].state, RUNNING) == SLEEPING) wake_thread(&threads[i]);
    for (int i = 0; i < nthreads; i++) pthread_join(threads[i].thread, NULL);
    free(threads);
    threads = NULL;
    nthreads = 0;
}
