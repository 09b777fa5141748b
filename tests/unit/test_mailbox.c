/* test_mailbox.c — the lock-free inbox under load: 8 producer threads push
 * 200,000 messages each to one consumer, which drains, receives selectively,
 * sleeps when empty and is woken only through mailbox_push's return value.
 * Checks every message arrives exactly once and in order per sender. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <semaphore.h>

#include "mailbox.h"

#define PRODUCERS 8
#define PER_PRODUCER 200000

static Mailbox mb;
static sem_t wake;
static int failures;

#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, __VA_ARGS__); } } while (0)

static void *producer(void *arg) {
    long id = (long)arg;
    Message *ms = malloc(sizeof(Message) * PER_PRODUCER);
    for (long i = 0; i < PER_PRODUCER; i++) {
        ms[i].term = (Term)(id << 32 | i);
        ms[i].size = 0;
        if (mailbox_push(&mb, &ms[i])) sem_post(&wake);
    }
    return ms;
}

static void test_threads(void) {
    mailbox_init(&mb);
    sem_init(&wake, 0, 0);
    pthread_t th[PRODUCERS];
    for (long i = 0; i < PRODUCERS; i++) pthread_create(&th[i], NULL, producer, (void *)i);
    long next[PRODUCERS] = {0};
    long got = 0, sleeps = 0;
    while (got < (long)PRODUCERS * PER_PRODUCER) {
        Message *m = mailbox_current(&mb);
        if (!m) { mailbox_drain(&mb); m = mailbox_current(&mb); }
        if (!m) {
            if (mailbox_try_wait(&mb)) { sem_wait(&wake); sleeps++; }
            continue;
        }
        mailbox_remove(&mb);
        long id = (long)(m->term >> 32), seq = (long)(m->term & 0xffffffff);
        CHECK(id >= 0 && id < PRODUCERS, "bad sender %ld\n", id);
        CHECK(seq == next[id], "sender %ld: got %ld, expected %ld\n", id, seq, next[id]);
        next[id] = seq + 1;
        got++;
    }
    for (int i = 0; i < PRODUCERS; i++) {
        void *ms;
        pthread_join(th[i], &ms);
        free(ms);
    }
    CHECK(mailbox_current(&mb) == NULL, "messages left over\n");
    int pending;
    sem_getvalue(&wake, &pending);
    CHECK(pending == 0, "%d wake-ups never consumed\n", pending);
    printf("threads: %ld messages, %ld sleeps\n", got, sleeps);
}

/* Selective receive: skipping, removing from the middle, rewinding, marks. */
static void test_selective(void) {
    Message m[6];
    mailbox_init(&mb);
    for (int i = 0; i < 5; i++) { m[i].term = (Term)i; m[i].size = 0; mailbox_push(&mb, &m[i]); }
    /* take message 2 first */
    Message *c;
    mailbox_drain(&mb);
    while ((c = mailbox_current(&mb)) && c->term != 2) mailbox_advance(&mb);
    CHECK(c && c->term == 2, "did not find 2\n");
    mailbox_remove(&mb);
    CHECK(mb.len == 4, "len %zu\n", mb.len);
    /* take the last one (4): the tail link must follow */
    while ((c = mailbox_current(&mb)) && c->term != 4) mailbox_advance(&mb);
    mailbox_remove(&mb);
    CHECK(mb.last == &m[3].next, "tail link not moved back\n");
    m[5].term = 5; m[5].size = 0;
    mailbox_push(&mb, &m[5]);
    /* mark at the end: only newer messages are seen from it */
    mailbox_drain(&mb);
    mb.mark = mb.last;
    Message extra = { .term = 99 };
    mailbox_push(&mb, &extra);
    mb.save = mb.mark;
    mailbox_drain(&mb);
    c = mailbox_current(&mb);
    CHECK(c && c->term == 99, "mark: got %ld\n", c ? (long)c->term : -1L);
    mailbox_rewind(&mb);
    long order[] = {0, 1, 3, 5, 99};
    for (int i = 0; i < 5; i++) {
        c = mailbox_current(&mb);
        CHECK(c && (long)c->term == order[i], "order %d: %ld\n", i, c ? (long)c->term : -1L);
        if (c) mailbox_remove(&mb);
    }
    CHECK(mailbox_current(&mb) == NULL && mb.len == 0, "queue not empty\n");
    CHECK(mailbox_try_wait(&mb) == 1, "try_wait on empty failed\n");
    Message late = { .term = 7 };
    CHECK(mailbox_push(&mb, &late) == 1, "push did not report a waiting owner\n");
    CHECK(mailbox_try_wait(&mb) == 0, "try_wait with a message succeeded\n");
    mailbox_drain(&mb);
    CHECK(mailbox_current(&mb) == &late, "late message lost\n");
    Message closed = { .term = 8 };
    Message *all = mailbox_close(&mb);
    CHECK(all == &late && all->next == NULL, "close did not return the queue\n");
    CHECK(mailbox_push(&mb, &closed) == -1, "push to a closed mailbox succeeded\n");
}

/* Batches: the inbox taken at once comes oldest first, counted, with its
 * newest as `last` (ending the list), and says whether a signal is in it;
 * spliced after what the queue holds, the order is the order sent. */
static void test_batch(void) {
    Message m[5];
    InboxBatch b;
    mailbox_init(&mb);
    CHECK(mailbox_take_batch(&mb, &b) == 0, "batch from an empty inbox\n");
    for (int i = 0; i < 5; i++) { m[i].term = (Term)i; m[i].size = 0; m[i].kind = MSG_PLAIN; }
    mailbox_push(&mb, &m[0]);
    mailbox_push(&mb, &m[1]);
    CHECK(mailbox_drain(&mb) == 2, "drain count\n");
    for (int i = 2; i < 5; i++) mailbox_push(&mb, &m[i]);
    CHECK(mailbox_take_batch(&mb, &b) == 1, "no batch\n");
    CHECK(b.n == 3 && b.first == &m[2] && b.last == &m[4] && m[4].next == NULL && !b.signals,
          "plain batch: n %zu signals %d\n", b.n, b.signals);
    mailbox_append_batch(&mb, &b);
    CHECK(mb.len == 5 && mb.last == &m[4].next, "splice: len %zu\n", mb.len);
    for (int i = 0; i < 5; i++) {
        Message *c = mailbox_current(&mb);
        CHECK(c == &m[i], "batch order %d\n", i);
        if (c) mailbox_remove(&mb);
    }
    /* one signal among messages is noticed */
    for (int i = 0; i < 3; i++) { m[i].kind = i == 1 ? SIG_LINK : MSG_PLAIN; mailbox_push(&mb, &m[i]); }
    CHECK(mailbox_take_batch(&mb, &b) == 1 && b.signals && b.n == 3 && b.first == &m[0],
          "signal batch: signals %d\n", b.signals);
    CHECK(mailbox_take_batch(&mb, &b) == 0, "inbox not emptied by the batch\n");
}

int main(void) {
    test_selective();
    test_batch();
    test_threads();
    if (failures) { printf("test_mailbox: %d failures\n", failures); return 1; }
    printf("test_mailbox: ok\n");
    return 0;
}
