/* test_async.c — the async threads and the completion path under load: 4
 * producer threads give 20,000 jobs each, spread over 8 fake ports, to 3
 * async threads (+A 3); each port's record is a Process whose inbox
 * receives the completions, drained by a consumer that waits on it the way
 * a port does (mailbox_try_wait). Checks that every job's work ran exactly
 * once, off the producer's thread, that every completion reached its
 * port's inbox, and that one producer's jobs to one port complete in the
 * order given (one port's jobs all go to one thread). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "port.h"
#include "sched.h"

#define PRODUCERS 4
#define PER_PRODUCER 20000
#define PORTS 8

static Process ports[PORTS];
static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, __VA_ARGS__); } } while (0)

typedef struct Job { long producer, seq; int port; int runs; pthread_t by; } Job;

static void work(void *data) {
    Job *j = data;
    j->runs++;
    j->by = pthread_self();
}

static Job *jobs[PRODUCERS];

static void *producer(void *arg) {
    long id = (long)arg;
    for (long i = 0; i < PER_PRODUCER; i++) {
        Job *j = &jobs[id][i];
        j->producer = id; j->seq = i; j->port = (int)((i * 7 + id) % PORTS);
        Message *m = calloc(1, sizeof(Message) + sizeof(AsyncJob));
        m->kind = SIG_PORT_ASYNC;
        AsyncJob *aj = async_job(m);
        aj->work = work; aj->data = j; aj->port = &ports[j->port];
        async_submit((unsigned)j->port, m);
    }
    return NULL;
}

int main(void) {
    for (int i = 0; i < PORTS; i++) { mailbox_init(&ports[i].mbox); mailbox_try_wait(&ports[i].mbox); }
    for (int i = 0; i < PRODUCERS; i++) jobs[i] = calloc(PER_PRODUCER, sizeof(Job));
    async_init(3);
    CHECK(async_thread_count() == 3, "thread count %d\n", async_thread_count());
    pthread_t th[PRODUCERS];
    for (long i = 0; i < PRODUCERS; i++) pthread_create(&th[i], NULL, producer, (void *)i);
    long got = 0, last[PORTS][PRODUCERS];
    for (int p = 0; p < PORTS; p++) for (int q = 0; q < PRODUCERS; q++) last[p][q] = -1;
    while (got < (long)PRODUCERS * PER_PRODUCER) {
        int any = 0;
        for (int p = 0; p < PORTS; p++) {
            for (Message *m = mailbox_take_inbox(&ports[p].mbox), *nx; m; m = nx) {
                nx = m->next;
                Job *j = async_job(m)->data;
                CHECK(j->port == p, "job for port %d reached port %d\n", j->port, p);
                CHECK(j->seq > last[p][j->producer], "port %d producer %ld: seq %ld after %ld\n", p,
                      j->producer, j->seq, last[p][j->producer]);
                last[p][j->producer] = j->seq;
                free(m);
                got++; any = 1;
            }
            mailbox_try_wait(&ports[p].mbox);   /* the next completion wakes it */
        }
        if (!any) sched_yield();
    }
    for (int i = 0; i < PRODUCERS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < PRODUCERS; i++)
        for (long k = 0; k < PER_PRODUCER; k++) {
            CHECK(jobs[i][k].runs == 1, "job %d/%ld ran %d times\n", i, k, jobs[i][k].runs);
            for (int t = 0; t < PRODUCERS; t++)
                CHECK(!pthread_equal(jobs[i][k].by, th[t]), "job ran on a producer\n");
        }
    async_shutdown();
    CHECK(async_thread_count() == 0, "threads left\n");
    if (failures) { fprintf(stderr, "test_async: %d failures\n", failures); return 1; }
    printf("test_async: %d jobs ok\n", PRODUCERS * PER_PRODUCER);
    return 0;
}
