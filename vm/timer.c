/* timer.c — per-scheduler timers (see timer.h), on timer_wheel.c's wheels.
 *
 * Each scheduler has a TimerSet:
 *  - `tmo`: the receive timeouts its processes armed. Only the owner thread
 *    touches this wheel and its records, so arming, cancelling (the message
 *    came first: the common case) and firing take no lock and no atomic.
 *    A process that moved to another scheduler cannot reach its timer: its
 *    cancel is lazy (the timer fires later and the SIG_TIMEOUT is dropped,
 *    its ref matching no receive). Records come from a per-set pool and are
 *    never freed, so a moved process may still read a record's `set` (fixed
 *    for the record's life) to learn that it is not its own.
 *  - `msg`: send_after/start_timer timers, which any process may cancel or
 *    read by reference. The reference's tag names the set (unique.h); the
 *    set's lock guards this wheel and its reference index. The owner takes
 *    it uncontended; another scheduler only to cancel or read.
 * The owner fires both between slices; an idle scheduler sleeps until its
 * own next due time, so no scheduler wakes for another's timers, and a
 * timer wakes its process into the scheduler it last ran on.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

#include "timer.h"
#include "fatal.h"
#include "timer_wheel.h"
#include "unique.h"
#include "proc.h"
#include "sched.h"
#include "smp.h"

#define MAX_SETS MAX_SCHEDULERS   /* one timer set per scheduler */
#define REF_BUCKETS 1024

typedef struct TimerSet TimerSet;

typedef struct Timer {
    TwEntry e;                      /* first: a TwEntry * is a Timer * */
    TimerSet *set;                  /* the owner; never changes */
    struct Timer *ref_next;         /* msg: in the reference index; tmo: free list */
    uint64_t ref;
    Term dest;
    Message *msg;                   /* NULL for a receive timeout */
    int armed;                      /* tmo: in the wheel */
} Timer;

struct TimerSet {
    /* owner only */
    TimerWheel tmo;
    Timer *free_tmo;
    uint64_t next_us;               /* no timer of this set is due before this */
    _Atomic int tmo_count;          /* mirror of tmo.count for timer_any_pending */
    /* guarded by lock */
    _Alignas(CACHE_LINE) pthread_mutex_t lock;
    TimerWheel msg;
    Timer *by_ref[REF_BUCKETS];
    _Atomic int msg_count;          /* written under lock, read without */
};

static _Atomic(TimerSet *) sets[MAX_SETS];
static __thread TimerSet *my_set;
static struct timespec start;

uint64_t timer_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)(ts.tv_sec - start.tv_sec) * 1000000u + (uint64_t)((ts.tv_nsec - start.tv_nsec) / 1000) ;
}

void timer_init(void) {
    clock_gettime(CLOCK_MONOTONIC, &start);
    start.tv_sec -= 1;              /* so that times are never negative */
}

static TimerSet *set_new(void) {
    TimerSet *s = aligned_alloc(CACHE_LINE, (sizeof(TimerSet) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE);
    if (!s) FATAL("out of memory for a scheduler's timer wheel");
    uint64_t now = timer_now_us();
    tw_init(&s->tmo, now);
    tw_init(&s->msg, now);
    s->free_tmo = NULL;
    s->next_us = 0;                 /* the first look finds out */
    atomic_init(&s->tmo_count, 0);
    atomic_init(&s->msg_count, 0);
    pthread_mutex_init(&s->lock, NULL);
    for (int i = 0; i < REF_BUCKETS; i++) s->by_ref[i] = NULL;
    return s;
}

void timer_sched_start(int id) {
    ASSERT(id >= 0 && id < MAX_SETS);
    TimerSet *s = atomic_load(&sets[id]);
    if (!s) {
        s = set_new();
        atomic_store(&sets[id], s);
    }
    my_set = s;
    unique_thread_start(id + 1);
    /* An idle scheduler sleeps until its next timer: let the kernel wake it
     * then, not up to 50 us later (the default slack, which it uses to
     * batch wake-ups) */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}

/* A thread that is no scheduler (none arms timers today) uses set 0, whose
 * message timers are locked anyway; its references carry tag 0. */
static TimerSet *here(void) {
    if (my_set) return my_set;
    TimerSet *s = atomic_load(&sets[0]);
    if (!s) {
        TimerSet *fresh = set_new();
        if (atomic_compare_exchange_strong(&sets[0], &s, fresh)) s = fresh;
        else free(fresh);
    }
    return s;
}

static TimerSet *set_of_ref(uint64_t ref) {
    int tag = unique_tag(ref);
    return atomic_load_explicit(&sets[tag ? tag - 1 : 0], memory_order_acquire);
}

static uint64_t due_after(uint64_t ms) { return timer_now_us() + ms * 1000; }

static void note_due(TimerSet *s, uint64_t due) { if (due < s->next_us) s->next_us = due; }

/* ---- receive timeouts: the owner only ---- */

Timer *timer_add_timeout(uint64_t ms, Term pid, uint64_t ref) {
    TimerSet *s = here();
    Timer *t = s->free_tmo;
    if (t) s->free_tmo = t->ref_next;
    else {
        if (!(t = malloc(sizeof *t))) FATAL("out of memory for a receive timeout");
        t->set = s;
    }
    t->ref = ref;
    t->dest = pid;
    t->msg = NULL;
    t->armed = 1;
    uint64_t due = due_after(ms);
    tw_add(&s->tmo, &t->e, due);
    atomic_store_explicit(&s->tmo_count, (int)s->tmo.count, memory_order_relaxed);
    note_due(s, due);
    return t;
}

static void tmo_free(TimerSet *s, Timer *t) {
    t->armed = 0;
    t->ref_next = s->free_tmo;
    s->free_tmo = t;
}

void timer_cancel_timeout(Timer *t, uint64_t ref) {
    TimerSet *s = my_set;
    if (!t || t->set != s || t->ref != ref || !t->armed) return;
    tw_remove(&s->tmo, &t->e);
    atomic_store_explicit(&s->tmo_count, (int)s->tmo.count, memory_order_relaxed);
    tmo_free(s, t);
    /* next_us stays: a bound that is early only costs one look */
}

/* ---- message timers: under their set's lock ---- */

void timer_add_message(uint64_t ms, Term dest, Message *m, uint64_t ref) {
    TimerSet *s = here();
    Timer *t = malloc(sizeof *t);
    if (!t) FATAL("out of memory for a timer (send_after/start_timer)");
    t->set = s;
    t->ref = ref;
    t->dest = dest;
    t->msg = m;
    t->armed = 1;
    uint64_t due = due_after(ms);
    pthread_mutex_lock(&s->lock);
    tw_add(&s->msg, &t->e, due);
    Timer **b = &s->by_ref[ref % REF_BUCKETS];
    t->ref_next = *b;
    *b = t;
    atomic_store_explicit(&s->msg_count, (int)s->msg.count, memory_order_relaxed);
    pthread_mutex_unlock(&s->lock);
    if (s == my_set) note_due(s, due);
}

static void index_remove(TimerSet *s, Timer *t) {
    Timer **b = &s->by_ref[t->ref % REF_BUCKETS];
    while (*b != t) b = &(*b)->ref_next;
    *b = t->ref_next;
}

static Timer *index_find(TimerSet *s, uint64_t ref) {
    Timer *t = s->by_ref[ref % REF_BUCKETS];
    while (t && t->ref != ref) t = t->ref_next;
    return t;
}

/* Milliseconds left, rounded up as Erlang does (read at once, a timer of
 * T ms has T left) */
static int64_t ms_left(const Timer *t) {
    uint64_t now = timer_now_us();
    return t->e.due_us > now ? (int64_t)((t->e.due_us - now + 999) / 1000) : 0;
}

int64_t timer_read(uint64_t ref) {
    TimerSet *s = set_of_ref(ref);
    if (!s || atomic_load_explicit(&s->msg_count, memory_order_relaxed) == 0) return -1;
    pthread_mutex_lock(&s->lock);
    Timer *t = index_find(s, ref);
    int64_t left = t ? ms_left(t) : -1;
    pthread_mutex_unlock(&s->lock);
    return left;
}

int64_t timer_cancel(uint64_t ref) {
    TimerSet *s = set_of_ref(ref);
    if (!s || atomic_load_explicit(&s->msg_count, memory_order_relaxed) == 0) return -1;
    pthread_mutex_lock(&s->lock);
    Timer *t = index_find(s, ref);
    int64_t left = -1;
    if (t) {
        left = ms_left(t);
        tw_remove(&s->msg, &t->e);
        index_remove(s, t);
        atomic_store_explicit(&s->msg_count, (int)s->msg.count, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->lock);
    if (t) {
        proc_message_free(t->msg);
        free(t);
    }
    return left;
}

/* ---- firing: the owner, between slices ---- */

int timer_pending(void) {
    TimerSet *s = my_set;
    return s && (s->tmo.count > 0 || atomic_load_explicit(&s->msg_count, memory_order_relaxed) > 0);
}

int timer_any_pending(void) {
    for (int i = 0; i < MAX_SETS; i++) {
        TimerSet *s = atomic_load(&sets[i]);
        if (s && (atomic_load(&s->tmo_count) > 0 || atomic_load(&s->msg_count) > 0)) return 1;
    }
    return 0;
}

static void deliver(Timer *t) {
    Term dest = t->dest;
    if (is_atom(dest)) dest = proc_whereis(dest);
    if (dest != THE_NON_VALUE) proc_deliver(dest, t->msg);
    else proc_message_free(t->msg);
}

int timer_fire_due(void) {
    TimerSet *s = my_set;
    if (!s || s->next_us == UINT64_MAX) return 0;
    uint64_t now = timer_now_us();
    if (now < s->next_us) return 0;
    int n = 0;
    /* receive timeouts: ours alone */
    TwEntry *due = tw_take_due(&s->tmo, now);
    atomic_store_explicit(&s->tmo_count, (int)s->tmo.count, memory_order_relaxed);
    /* one alone wakes as a message would (into runnext: it runs next);
     * several queue in the order they were due (sched_wake_timeout) */
    int in_order = due && due->next;
    for (TwEntry *e = due, *next; e; e = next, n++) {
        next = e->next;
        Timer *t = (Timer *)e;
        uint64_t ref = t->ref;
        Term pid = t->dest;
        tmo_free(s, t);
        proc_timeout(pid, ref, in_order);
    }
    uint64_t next_us = tw_next_due(&s->tmo);
    /* message timers: taken under the lock, delivered outside it
     * (delivering may wake processes) */
    if (atomic_load_explicit(&s->msg_count, memory_order_relaxed) > 0) {
        pthread_mutex_lock(&s->lock);
        due = tw_take_due(&s->msg, now);
        for (TwEntry *e = due; e; e = e->next) index_remove(s, (Timer *)e);
        atomic_store_explicit(&s->msg_count, (int)s->msg.count, memory_order_relaxed);
        uint64_t m = tw_next_due(&s->msg);
        pthread_mutex_unlock(&s->lock);
        if (m < next_us) next_us = m;
        for (TwEntry *e = due, *next; e; e = next, n++) {
            next = e->next;
            deliver((Timer *)e);
            free(e);
        }
    }
    s->next_us = next_us;
    return n;
}

/* A timed sleep ends 55-130 us late on a quiet machine (p10-p90, with the
 * slack set to 1 us; 100-190 us with the default 50 us): an idle scheduler
 * wakes this much before its next timer and polls the clock for the rest,
 * so a timer fires on time whether its scheduler spun or slept. */
#define WAKE_EARLY_US 100
/* Spin-wait hints between two clock reads while polling a near timer: a
 * timer still fires within about a microsecond, and the loop does not call
 * the clock every few nanoseconds. */
#define POLL_PAUSES 16

int64_t timer_sleep_limit(void) {
    int64_t w = timer_next_due();
    if (w < 0) return -1;
    return w > WAKE_EARLY_US ? w - WAKE_EARLY_US : 0;
}

int timer_poll_near(void) {
    int64_t w = timer_next_due();
    if (w <= 0 || w > WAKE_EARLY_US) return 0;
    uint64_t due = timer_now_us() + (uint64_t)w;
    while (timer_now_us() < due)
        for (int i = 0; i < POLL_PAUSES; i++) cpu_relax();
    return 1;
}

int64_t timer_next_due(void) {
    TimerSet *s = my_set;
    if (!s || s->next_us == UINT64_MAX) return -1;
    uint64_t now = timer_now_us();
    return s->next_us > now ? (int64_t)(s->next_us - now) : 0;
}
