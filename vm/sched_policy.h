/* sched_policy.h — the scheduling rules, as pure functions over plain state.
 *
 * sched.c owns the threads, the rings and the atomics; every decision about
 * *what* to do — what a scheduler runs next, whom a thief takes from and how
 * much, when lone work may move, when a sleeper is woken, when a thief should
 * stop trying — is made here, from numbers sched.c reads for it. So the rules
 * can be driven by a unit test without threads (tests/unit/
 * test_sched_policy.c), and each is written down once with its reason
 * (docs/internals.md, "Schedulers").
 */
#ifndef MINI_SCHED_POLICY_H
#define MINI_SCHED_POLICY_H

#include <stdint.h>

/* Priorities, lowest first (process_flag(priority, P), spawn_opt). */
enum { PRIO_LOW = 0, PRIO_NORMAL = 1, PRIO_HIGH = 2, PRIO_MAX = 3, PRIO_LEVELS = 4 };

#define POLICY_LONE_STREAK 3         /* picks leaving work behind before lone work moves */
#define POLICY_SURPLUS 2             /* queued processes that make a wake-up worth it */
#define POLICY_SPAWN_GRACE_US 5000   /* children stay with a scheduler spawning this recently */
#define POLICY_RUNNEXT_GRACE_US 200  /* a runnext seen this long may be stolen */
#define POLICY_LOW_EVERY 8           /* a waiting low process runs at least every 8th pick */
#define POLICY_GLOBAL_EVERY 61       /* the global queue is served at least every 61st pick
                                        (prime, as Go's: no lockstep with periodic work) */
#define POLICY_STEAL_PAYOFF_US 1000  /* a steal must keep the thief busy this long */
#define POLICY_BACKOFF_MIN_US 100    /* first wait after a steal that did not pay */
#define POLICY_BACKOFF_MAX_US 25600  /* the longest (after 9 in a row): each try splits a
                                        crowd again (sched_policy.c) */
#define POLICY_EXTERNAL_LAG_US 2000  /* a finished async job may wait this long for the
                                        wake-up that takes it in, whatever its queueing */
#define POLICY_EXTERNAL_LAG_MAX_US 20000  /* and never longer than this */
#define POLICY_EXTERNAL_LAG_SHARE 4  /* past the minimum: up to 1/4 of its time in the queue */

/* ---- picking: what a scheduler runs next ---- */

typedef struct {
    int global_max, global_high;  /* max / high priority processes wait globally */
    int global_normal;            /* normal ones handed to the global queue */
    int global_low;               /* low priority processes wait globally */
    int runnext;                  /* something in this scheduler's runnext */
    int64_t chain_left;           /* reductions left of the slice its runnext chain shares */
    uint32_t ring;                /* processes in this scheduler's ring (and backlog) */
    int low_skips;                /* picks of normal work since a low process last ran
                                     while one was waiting */
    int global_skips;             /* ring picks since the global queue was last served
                                     while normal work waited there */
} PickView;

typedef enum {
    PICK_MAX, PICK_HIGH,          /* the global queue of that priority */
    PICK_RUNNEXT,                 /* runnext, on what is left of the chain's slice */
    PICK_REQUEUE_RUNNEXT,         /* its chain used a whole slice: to the back of the ring */
    PICK_RING,                    /* the head of the ring */
    PICK_GLOBAL,                  /* normal work handed to the global queue */
    PICK_LOW,                     /* the global low queue */
    PICK_NONE                     /* nothing here: go idle (steal, spin, sleep) */
} PickFrom;

PickFrom policy_pick(const PickView *v);

/* While a scheduler drains a batch it took in from outside (async
 * completions, I/O readiness): may its streak wake a sleeper, with `left`
 * processes queued, `picks` made and `elapsed_us` spent since the batch
 * came in (sched_policy.c)? */
int policy_batch_wakes(uint32_t left, uint32_t picks, uint64_t elapsed_us);

/* ---- where a process made runnable goes ---- */

typedef enum { WHY_WOKEN, WHY_SPAWNED, WHY_YIELDED, WHY_HANDED } RunnableWhy;
typedef enum { PLACE_RUNNEXT, PLACE_RING, PLACE_GLOBAL } Place;

/* here_online: the deciding thread is an online scheduler (not the shell's
 * reader, not one taken offline). */
Place policy_place(int prio, RunnableWhy why, int here_online);

/* ---- waking sleepers ---- */

/* After a pick from the ring that left `left` queued behind: the new streak
 * of such picks (0 when the ring emptied). */
int policy_lone_streak(int streak, uint32_t left);
/* Does this streak mean surplus worth waking a sleeper for? */
int policy_streak_wakes(int streak);
/* A process was queued in a ring that now holds `len`: wake a sleeper? */
int policy_queue_wakes(uint32_t len);
/* How long the wake-up for a finished async job may be put off while every
 * scheduler sleeps and its thread has more jobs queued, given how long the
 * job waited in that queue before it ran (sched_external_settle). */
uint64_t policy_external_lag_us(uint64_t queued_us);

/* ---- spinning ---- */

/* An idle scheduler may spin (look at the others' queues for a while
 * before it sleeps) only while the threads doing work leave a core free:
 * `working` counts the other awake schedulers and the awake async threads,
 * `cores` the processor's online cores. */
int policy_spin_worth(int working, int cores);

/* ---- stealing ---- */

typedef struct {
    uint32_t len;             /* processes in the victim's ring */
    int head_fresh;           /* its head was spawned and has not run yet */
    uint64_t since_spawn_us;  /* since the victim's last spawning slice ended
                                 (UINT64_MAX: its spawner waits or ended) */
    int lone_streak;          /* the victim's policy_lone_streak */
    uint32_t first_busy;      /* position from the head of the first process
                                 queued because its slice (or its chain's)
                                 ran out; POLICY_NO_BUSY if none is seen */
    int thief_failures;       /* the thief's steals in a row that did not
                                 pay (StealBackoff.failures) */
} VictimView;
#define POLICY_NO_BUSY UINT32_MAX
#define POLICY_BUSY_LOOK 16   /* how far from the head a thief looks for one */

/* A process preempted after using `used` reductions of its run, out of a
 * full slice of `slice`: is it queued BUSY (the work a thief should take)? */
int policy_yield_busy(int64_t used, int64_t slice);

/* How many of the victim's ring a thief takes (0: leave it alone). */
uint32_t policy_steal_count(const VictimView *v);

/* A thief's memory of the runnext it last saw. */
typedef struct { const void *seen, *where; uint64_t since; } LoneWatch;

/* May the thief take p from victim's runnext now? Updates the watch. */
int policy_runnext_ready(LoneWatch *w, const void *victim, const void *p, uint64_t now);

/* A thief's back-off: a steal whose work kept it busy for less than
 * POLICY_STEAL_PAYOFF_US did not pay, and each such steal in a row doubles
 * the wait before the next. */
typedef struct { int failures; uint64_t not_before; } StealBackoff;

void policy_steal_outcome(StealBackoff *b, uint64_t busy_us, uint64_t now);
int policy_may_steal(const StealBackoff *b, uint64_t now);

/* ---- sharing a spawner's burst ---- */

/* A spawner's slice ended in a wait or an exit with `queued` processes
 * left in its scheduler's ring, and `sleepers` other online schedulers
 * asleep (not dozing out a back-off): how many processes each sleeper is
 * handed now, from the head of the ring (0: none). */
uint32_t policy_burst_share(uint32_t queued, int sleepers);

#endif
