/* timer.c — a hashed timing wheel (see timer.h).
 *
 * WHEEL_SLOTS slots of one millisecond; a timer due at millisecond T sits in
 * slot T % WHEEL_SLOTS, in a doubly linked list, and fires when the wheel's
 * clock passes T (a timer further than one turn away waits out the extra
 * turns in its slot). A small hash table from reference to timer makes
 * cancel_timer O(1).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "timer.h"
#include "proc.h"

#define WHEEL_SLOTS 4096            /* power of two: a little over 4 s per turn */
#define REF_BUCKETS 4096

typedef struct Timer {
    struct Timer *prev, *next;      /* in its wheel slot */
    struct Timer *ref_next;         /* in its reference bucket */
    uint64_t due_ms;
    uint64_t ref;
    Term dest;
    Message *msg;                   /* NULL for a receive timeout */
} Timer;

static Timer *slots[WHEEL_SLOTS];
static Timer *by_ref[REF_BUCKETS];
static uint64_t wheel_ms;           /* every slot before this has been fired */
static int count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec start;

uint64_t timer_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)(ts.tv_sec - start.tv_sec) * 1000000u + (uint64_t)((ts.tv_nsec - start.tv_nsec) / 1000) ;
}

void timer_init(void) {
    clock_gettime(CLOCK_MONOTONIC, &start);
    start.tv_sec -= 1;              /* so that times are never negative */
    wheel_ms = timer_now_us() / 1000;
}

static void insert(Timer *t) {
    Timer **slot = &slots[t->due_ms % WHEEL_SLOTS];
    t->prev = NULL;
    t->next = *slot;
    if (*slot) (*slot)->prev = t;
    *slot = t;
    Timer **b = &by_ref[t->ref % REF_BUCKETS];
    t->ref_next = *b;
    *b = t;
    __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);   /* read without the lock */
}

static void unlink_timer(Timer *t) {
    if (t->prev) t->prev->next = t->next;
    else slots[t->due_ms % WHEEL_SLOTS] = t->next;
    if (t->next) t->next->prev = t->prev;
    Timer **b = &by_ref[t->ref % REF_BUCKETS];
    while (*b != t) b = &(*b)->ref_next;
    *b = t->ref_next;
    __atomic_sub_fetch(&count, 1, __ATOMIC_RELAXED);
}

static void add(uint64_t ms, Term dest, Message *m, uint64_t ref) {
    Timer *t = malloc(sizeof *t);
    t->due_ms = timer_now_us() / 1000 + ms + (ms > 0);   /* never early */
    t->ref = ref;
    t->dest = dest;
    t->msg = m;
    pthread_mutex_lock(&lock);
    if (t->due_ms < wheel_ms) t->due_ms = wheel_ms;
    insert(t);
    pthread_mutex_unlock(&lock);
}

void timer_add_timeout(uint64_t ms, Term pid, uint64_t ref) { add(ms, pid, NULL, ref); }

void timer_add_message(uint64_t ms, Term dest, Message *m, uint64_t ref) { add(ms, dest, m, ref); }

static Timer *find(uint64_t ref) {
    Timer *t = by_ref[ref % REF_BUCKETS];
    while (t && t->ref != ref) t = t->ref_next;
    return t;
}

int64_t timer_read(uint64_t ref) {
    pthread_mutex_lock(&lock);
    Timer *t = find(ref);
    int64_t left = -1;
    if (t) {
        uint64_t now = timer_now_us() / 1000;
        left = t->due_ms > now + 1 ? (int64_t)(t->due_ms - now - 1) : 0;
    }
    pthread_mutex_unlock(&lock);
    return left;
}

int64_t timer_cancel(uint64_t ref) {
    pthread_mutex_lock(&lock);
    Timer *t = find(ref);
    int64_t left = -1;
    if (t) {
        uint64_t now = timer_now_us() / 1000;
        /* due_ms has one extra millisecond so that timers never fire early */
        left = t->due_ms > now + 1 ? (int64_t)(t->due_ms - now - 1) : 0;
        unlink_timer(t);
    }
    pthread_mutex_unlock(&lock);
    if (t) {
        if (t->msg) proc_message_free(t->msg);
        free(t);
    }
    return left;
}

int timer_pending(void) {
    return __atomic_load_n(&count, __ATOMIC_RELAXED) > 0;
}

int timer_fire_due(void) {
    if (!timer_pending()) return 0;
    uint64_t now = timer_now_us() / 1000;
    Timer *due = NULL;
    pthread_mutex_lock(&lock);
    uint64_t end = now;
    /* after a long sleep, one turn of the wheel visits every slot */
    if (end - wheel_ms >= WHEEL_SLOTS) wheel_ms = end - WHEEL_SLOTS + 1;
    for (; wheel_ms <= end; wheel_ms++) {
        Timer *t = slots[wheel_ms % WHEEL_SLOTS], *next;
        for (; t; t = next) {
            next = t->next;
            if (t->due_ms > now) continue;
            unlink_timer(t);
            t->next = due;
            due = t;
        }
    }
    wheel_ms = end;     /* the current millisecond may still get timers */
    pthread_mutex_unlock(&lock);
    int n = 0;
    /* deliver outside the lock: delivering may wake processes */
    Timer *fifo = NULL;
    while (due) { Timer *next = due->next; due->next = fifo; fifo = due; due = next; }
    for (Timer *t = fifo, *next; t; t = next, n++) {
        next = t->next;
        if (!t->msg) proc_timeout(t->dest, t->ref);
        else {
            Term dest = t->dest;
            if (is_atom(dest)) dest = proc_whereis(dest);
            if (dest != THE_NON_VALUE) proc_deliver(dest, t->msg);
            else proc_message_free(t->msg);
        }
        free(t);
    }
    return n;
}

int64_t timer_next_due(void) {
    if (!timer_pending()) return -1;
    pthread_mutex_lock(&lock);
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < WHEEL_SLOTS; i++)
        for (Timer *t = slots[i]; t; t = t->next)
            if (t->due_ms < best) best = t->due_ms;
    pthread_mutex_unlock(&lock);
    if (best == UINT64_MAX) return -1;
    uint64_t now = timer_now_us();
    return best * 1000 > now ? (int64_t)(best * 1000 - now) : 0;
}
