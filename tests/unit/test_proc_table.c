/* test_proc_table.c — the pid table while lookups race exits. One thread
 * makes processes and ends them as spawn and exit do (into the table; out of
 * it, then the table's reference dropped), keeping the newest WINDOW alive,
 * while three threads look up the pids just made. A lookup must give NULL
 * or the process with the pid asked for, alive while the reference is held;
 * and a Process record must never be handed out while it is still in use.
 * Before lookups counted references only from above zero, a lookup that
 * read a slot just before its process was freed revived the record and
 * freed it a second time (big:bang(700) with +S 2 aborted on the double
 * free about once in 25 runs); here the record then comes back twice.
 *
 * Two more threads peek as schedulers do (proc_peek: no reference, safe
 * until their next quiescent point, qsbr.h): a record they found must keep
 * the pid they found it by for as long as they hold it, so a record is
 * never reused before every peeker has been quiescent. The maker is a
 * registered thread too, so the records it retires are recycled. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "gc.h"
#include "heap.h"
#include "proc.h"
#include "qsbr.h"

#define READERS 3
#define PEEKERS 2
#define ROUNDS 400000
#define WINDOW 64

static _Atomic Term recent[WINDOW];     /* pids of the newest processes */
static atomic_int done;
static int failures;
static atomic_long lookups_found, lookups_missed, wrong_pid;
static atomic_long peeks_found, peeks_changed;

#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, __VA_ARGS__); } } while (0)

static void *reader(void *arg) {
    unsigned seed = (unsigned)(long)arg;
    while (!atomic_load(&done)) {
        seed = seed * 1103515245 + 12345;
        Term pid = atomic_load_explicit(&recent[(seed >> 16) % WINDOW], memory_order_relaxed);
        if (!pid) continue;
        Process *p = proc_lookup(pid);
        if (!p) { atomic_fetch_add(&lookups_missed, 1); continue; }
        atomic_fetch_add(&lookups_found, 1);
        if (p->pid != pid || atomic_load(&p->refc) < 1)
            atomic_fetch_add(&wrong_pid, 1);
        proc_release(p);
    }
    return NULL;
}

/* Holds what it peeked over a few reads, as a send holds its receiver
 * between the lookup and the push; quiescent between two, and now and
 * then offline for a moment, as a scheduler between slices and asleep. */
static void *peeker(void *arg) {
    long id = (long)arg;
    unsigned seed = (unsigned)id * 7919u;
    qsbr_thread_start((int)id);
    for (unsigned long n = 0; !atomic_load(&done); n++) {
        qsbr_quiescent();
        if ((n & 1023) == 1023) { qsbr_offline(); qsbr_online(); }
        seed = seed * 1103515245 + 12345;
        Term pid = atomic_load_explicit(&recent[(seed >> 16) % WINDOW], memory_order_relaxed);
        if (!pid) continue;
        Process *p = proc_peek(pid);
        if (!p) continue;
        atomic_fetch_add(&peeks_found, 1);
        for (int i = 0; i < 32; i++)
            if (atomic_load_explicit((_Atomic Term *)&p->pid, memory_order_relaxed) != pid) {
                atomic_fetch_add(&peeks_changed, 1);
                break;
            }
    }
    qsbr_offline();
    return NULL;
}

static Process *make_process(void) {
    Process *p = process_new_memory(0);
    mailbox_init(&p->mbox);
    atomic_store_explicit(&p->refc, 1, memory_order_release);
    if (!proc_table_insert(p)) { fprintf(stderr, "table full\n"); exit(1); }
    return p;
}

static void end_process(Process *p) {
    proc_table_remove(p);
    proc_release(p);
}

int main(void) {
    pthread_t t[READERS], pk[PEEKERS];
    qsbr_init(PEEKERS + 1);
    qsbr_thread_start(0);
    for (long i = 0; i < READERS; i++) pthread_create(&t[i], NULL, reader, (void *)(i + 1));
    for (long i = 0; i < PEEKERS; i++) pthread_create(&pk[i], NULL, peeker, (void *)(i + 1));
    Process *live[WINDOW] = { 0 };
    int reused_live = 0;
    for (long r = 0; r < ROUNDS; r++) {
        int slot = (int)(r % WINDOW);
        if (live[slot]) end_process(live[slot]);
        Process *p = make_process();
        for (int i = 0; i < WINDOW; i++)
            if (i != slot && live[i] == p) reused_live++;
        live[slot] = p;
        atomic_store_explicit(&recent[slot], p->pid, memory_order_relaxed);
        qsbr_quiescent();
    }
    atomic_store(&done, 1);
    for (int i = 0; i < READERS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < PEEKERS; i++) pthread_join(pk[i], NULL);
    for (int i = 0; i < WINDOW; i++) end_process(live[i]);
    CHECK(reused_live == 0, "a live process's record was handed out again %d times\n", reused_live);
    CHECK(atomic_load(&wrong_pid) == 0, "%ld lookups gave the wrong process\n", atomic_load(&wrong_pid));
    CHECK(atomic_load(&lookups_found) > 0, "no lookup found its process\n");
    CHECK(atomic_load(&peeks_changed) == 0, "%ld peeked records were reused while held\n",
          atomic_load(&peeks_changed));
    CHECK(atomic_load(&peeks_found) > 0, "no peek found its process\n");
    CHECK(proc_count() == 0, "%lu processes left in the table\n", (unsigned long)proc_count());
    printf("test_proc_table: %ld lookups found, %ld missed, %ld peeks, %d failures\n",
           atomic_load(&lookups_found), atomic_load(&lookups_missed), atomic_load(&peeks_found),
           failures);
    return failures != 0;
}
