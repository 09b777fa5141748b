/* test_qsbr.c — quiescent-state-based reclamation (vm/qsbr.c) under load.
 *
 * Reader threads follow pointers out of a shared array of slots without any
 * lock, as a lock-free ETS lookup does, and check every node they reach is
 * alive; writer threads swap fresh nodes into the slots and retire the old
 * ones. A node is poisoned (its magic word overwritten) just before it is
 * freed, so a reader that reaches a freed node sees the poison, or trips
 * AddressSanitizer, or races with the poisoning store under ThreadSanitizer
 * (make check-tsan). Threads pass quiescent points between "slices", and
 * now and then go offline (asleep) and come back, as schedulers do. A
 * thread that never registers retires too. In the end every retired node
 * must have been freed, exactly once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qsbr.h"

#define SLOTS 64
#define READERS 3
#define WRITERS 2
#define ROUNDS 100000
#define LIVE 0x11FE11FEul
#define DEAD 0xDEADDEADul

typedef struct Node {
    unsigned long magic;
    long value;
} Node;

static Node *_Atomic slots[SLOTS];
static atomic_long made, freed, bad;
static atomic_int writers_left;

static void node_free(void *arg)
{
    Node *n = arg;
    n->magic = DEAD;
    atomic_fetch_add(&freed, 1);
    free(n);
}

static Node *node_new(long v)
{
    Node *n = malloc(sizeof *n);
    n->magic = LIVE;
    n->value = v;
    atomic_fetch_add(&made, 1);
    return n;
}

static void nap(void)
{
    struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
}

static void *reader(void *arg)
{
    qsbr_thread_start((int)(long)arg);
    unsigned r = (unsigned)(long)arg * 2654435761u + 1;
    for (long i = 0; atomic_load(&writers_left) > 0; i++) {
        /* a slice: a few lookups, each reading its node twice */
        for (int k = 0; k < 16; k++) {
            r = r * 1103515245u + 12345u;
            Node *n = atomic_load_explicit(&slots[r % SLOTS], memory_order_acquire);
            if (n->magic != LIVE) atomic_fetch_add(&bad, 1);
            volatile long v = 0;
            for (int j = 0; j < 32; j++) v += n->value;   /* stay on it a while */
            if (n->magic != LIVE) atomic_fetch_add(&bad, 1);
        }
        qsbr_quiescent();
        if (i % 997 == 0) { qsbr_offline(); nap(); qsbr_online(); }
    }
    qsbr_offline();
    return NULL;
}

static void *writer(void *arg)
{
    qsbr_thread_start((int)(long)arg);
    unsigned r = (unsigned)(long)arg * 40503u + 7;
    for (long i = 0; i < ROUNDS; i++) {
        r = r * 1103515245u + 12345u;
        Node *old = atomic_exchange_explicit(&slots[r % SLOTS], node_new(i), memory_order_acq_rel);
        qsbr_retire(old, node_free);
        if (i % 8 == 7) qsbr_quiescent();
        if (i % 1999 == 0) { qsbr_offline(); nap(); qsbr_online(); }
    }
    /* this thread's last quiescent points: later frees are others' or the
     * final sweep's */
    qsbr_quiescent();
    qsbr_offline();
    atomic_fetch_sub(&writers_left, 1);
    return NULL;
}

/* not registered: its retirements go to the shared list */
static void *stranger(void *arg)
{
    (void)arg;
    for (long i = 0; i < ROUNDS / 4; i++) {
        Node *old = atomic_exchange_explicit(&slots[(i * 7) % SLOTS], node_new(-i), memory_order_acq_rel);
        qsbr_retire(old, node_free);
    }
    atomic_fetch_sub(&writers_left, 1);
    return NULL;
}

static void *sweeper(void *arg)
{
    qsbr_thread_start((int)(long)arg);
    for (int i = 0; i < 1000 && qsbr_pending() > 0; i++) {
        qsbr_quiescent();
        qsbr_retire(node_new(0), node_free);     /* something of its own to scan for */
        qsbr_quiescent();
    }
    for (int i = 0; i < 200; i++) qsbr_quiescent();
    qsbr_offline();
    return NULL;
}

int main(void)
{
    int nthreads = READERS + WRITERS + 1;
    qsbr_init(nthreads);
    for (int i = 0; i < SLOTS; i++) atomic_store(&slots[i], node_new(i));
    atomic_store(&writers_left, WRITERS + 1);
    pthread_t th[READERS + WRITERS + 1];
    int n = 0;
    for (long i = 0; i < READERS; i++) pthread_create(&th[n++], NULL, reader, (void *)i);
    for (long i = 0; i < WRITERS; i++) pthread_create(&th[n++], NULL, writer, (void *)(READERS + i));
    pthread_create(&th[n++], NULL, stranger, NULL);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    /* every reader is offline: one more registered thread frees the rest */
    pthread_t sw;
    pthread_create(&sw, NULL, sweeper, (void *)(long)(READERS + WRITERS));
    pthread_join(sw, NULL);
    int failures = 0;
    long retired = atomic_load(&made) - SLOTS;
    if (atomic_load(&bad)) { printf("FAIL: %ld reads reached a freed node\n", atomic_load(&bad)); failures++; }
    if (qsbr_pending() != 0) { printf("FAIL: %ld retired nodes never freed\n", qsbr_pending()); failures++; }
    if (atomic_load(&freed) != retired) {
        printf("FAIL: %ld nodes retired, %ld freed\n", retired, atomic_load(&freed));
        failures++;
    }
    for (int i = 0; i < SLOTS; i++) free(atomic_load(&slots[i]));
    if (!failures) printf("qsbr: %ld nodes retired and freed, none read after its free\n", retired);
    return failures ? 1 : 0;
}
