/* sched.c — scheduler threads, run queues, work stealing, sleeping and waking.
 * The rules that decide what runs where are in sched_policy.c; this file
 * keeps the mechanism (rings, atomics, locks, threads) and asks them.
 *
 * Every design choice here follows one ratio: a message hop that stays on
 * its core costs a fraction of a microsecond, one that must wake another
 * thread costs several. So:
 *
 *  - Each scheduler has its own run queue of normal-priority processes: a
 *    fixed ring that only its owner adds to and that thieves take from with
 *    one compare-and-swap (Go's runq); what does not fit waits in a backlog
 *    only the owner sees. Low, high and max priority processes go to one
 *    locked global queue (rare), max and high taken before anything else.
 *  - A new process starts on its parent's scheduler and, while the parent
 *    keeps spawning, stays there (policy_steal_count): spawning costs the same
 *    with one scheduler or several.
 *  - A process woken by a message goes into the `runnext` slot of the
 *    scheduler that sent it and runs next there, inheriting what is left of
 *    the sender's time slice: a ring's token stays on one core. Thieves
 *    leave a runnext alone until it has waited a few microseconds.
 *  - An idle scheduler steals; at most one scheduler spins looking for
 *    work, looking less and less often (each look costs the owners
 *    cache-line transfers); the others sleep on their own futex word. A thief whose steals keep it busy only briefly (a tightly
 *    coupled crowd it can only slow down) backs off and dozes. A busy
 *    scheduler wakes a sleeper only when it has surplus work (two processes
 *    queued behind the one it runs) and nobody is already spinning. The send path itself never takes a lock and never wakes a
 *    thread.
 *  - With `-smp disable` there is one scheduler and none of the idle
 *    machinery: it simply sleeps until the next timer.
 *
 * A process's memory is only touched by the scheduler running it. When it
 * wants to wait, the emulator returns, the scheduler finishes its accounting,
 * and only then marks the mailbox as waiting (mailbox_try_wait): from that
 * instant a sender may wake it and another scheduler may run it.
 */
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched.h"
#include "heap_block.h"
#include "ets_lock.h"
#include "qsbr.h"
#include "fatal.h"
#include "atom.h"
#include "proc.h"
#include "emulator.h"
#include "error_report.h"
#include "timer.h"
#include "gc.h"
#include "binary.h"
#include "sched_policy.h"
#include "smp.h"
#include "heap.h"
#include "port.h"

#define RUNQ_SIZE 256                /* a power of two */
#define SPIN_US 1000                 /* an idle scheduler spins this long, then sleeps */
/* the rules' constants (lone streak, grace periods, surplus, back-off) are
 * in sched_policy.h */
#define SPIN_PAUSES_MAX 256          /* pauses between two looks at the others' queues
                                        (~5 us here), reached by doubling from 16 */

/* Thieves read head, tail, ring and runnext; the owner writes runnext on
 * every wake-up. Each group gets its own cache line, so that a spinning
 * thief does not slow the owner down by pulling its lines away. */
struct Scheduler {
    _Alignas(CACHE_LINE) _Atomic uint32_t head; /* next slot to take (owner and thieves) */
    _Atomic uint32_t tail;           /* next free slot (owner only writes) */
    _Atomic int lone_streak;         /* picks from the ring in a row that left
                                        work queued behind (owner writes) */
    _Atomic uint64_t last_spawn_us;  /* when a slice that spawned last ended
                                        (owner writes, once per such slice) */
    uint64_t batch_since_us;         /* 0, or when the batch from outside it
                                        drains came in (owner only;
                                        policy_batch_wakes) ... */
    uint32_t batch_picks;            /* ... and the picks since */
    _Alignas(CACHE_LINE) _Atomic(Process *) runnext;
    _Alignas(CACHE_LINE) _Atomic(uintptr_t) ring[RUNQ_SIZE];   /* Process *, | FRESH, | BUSY */
    _Alignas(CACHE_LINE) int id;
    /* as a thief: the runnext it last saw, where, and since when (the owner
     * pays no clock reading per wake-up; the spinning thief does) */
    LoneWatch watch;
    /* as a thief: when its last steal was (0: it has run out of work since),
     * and how long to wait before the next (see policy_steal_outcome) */
    uint64_t steal_at;
    StealBackoff backoff;
    int low_skips;                   /* normal picks while low work waited */
    int global_skips;                /* ring picks while global normal work waited */
    SWord chain_reds;                /* reductions used by the runnext chain */
    int spawned;                     /* the running process spawned this slice */
    /* children spawned while the ring is full wait here, owner only (a
     * parent spawns up to ~2000 in one slice), and go into the ring as it
     * empties: no thief sees them, and no lock is taken */
    Process *backlog_head, *backlog_tail;
    _Atomic uint32_t backlog_len;
    pthread_t thread;
    Term xregs[MAX_REG];             /* the x registers of the running process */
    /* read by wakers on any thread: a line of their own */
    _Alignas(CACHE_LINE) _Atomic int sleep_word;  /* AWAKE / SLEEPING: the futex word */
    /* processes another scheduler handed this one (share_burst), pushed
     * newest first, taken into the ring by the owner at its next pick */
    _Atomic(Process *) handoff;
    _Atomic int dozing;              /* sleeping out a steal back-off: woken only
                                        for global work */
    _Atomic int in_poll;             /* asleep in the I/O poll set, not on
                                        sleep_word: woken by poll_interrupt */
    _Alignas(CACHE_LINE) int pad_;
    UWord context_switches;
    _Atomic UWord reductions;
    unsigned rand;
    uint64_t io_looked_us;           /* when it last looked at the poll set busy */
};

static Scheduler schedulers[MAX_SCHEDULERS];
static int nscheds = 1;
static int ncores = 1;               /* online cores, for policy_spin_worth */
static _Atomic int nonline = 1;
static int smp_enabled = 1;

/* the global queue: priorities other than normal, and what a scheduler
 * hands over (a backlog whose spawner stopped, a scheduler going offline) */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static Process *global_head[PRIO_LEVELS], *global_tail[PRIO_LEVELS];
static _Atomic int global_count;

/* idle bookkeeping: only on the idle path, never when sending. A sleeper
 * waits on its own futex word (sleep_word); no lock is shared. */
enum { AWAKE = 0, SLEEPING = 1 };
static _Atomic int nsleeping;        /* counted before the last look (idle) */
static _Atomic int nspinning;
static _Atomic int ndozing;          /* sleepers a local surplus does not wake */
/* threads outside the schedulers that may still send (the shell's reader):
 * while there are any, every process waiting is no deadlock */
static _Atomic int nexternal;
/* work outside the schedulers that will come back (async jobs in flight,
 * ports waiting for a file descriptor): while there is any, every process
 * waiting is no deadlock */
static _Atomic long noutside;
/* processes made runnable by threads that are not schedulers (async
 * threads; the scheduler polling the I/O set): a lock-free stack any scheduler empties into its
 * own ring (inject_take) */
static _Atomic(Process *) inject_head;
/* by when work on the inject stack that waits for a wake-up a busy async
 * thread put off must be taken in (sched_external_settle); 0: none owed */
static _Atomic uint64_t owed_by;
/* The scheduler that sleeps in the I/O poll set (poll.c), if any: the first
 * to go to sleep takes it. While none sleeps there, every busy scheduler
 * looks at the set without waiting every POLL_CHECK_US: a packet waits at
 * most that long for a machine whose cores are all busy (BEAM's schedulers
 * also look between processes), and a look (one epoll_wait system call,
 * under a microsecond) every 200 us costs a busy scheduler under 0.5%. */
static _Atomic(Scheduler *) poll_sleeper;
#define POLL_CHECK_US 200

/* the end of the run */
static _Atomic int finished;
static int exit_status;
static _Atomic int deadlock_reported;
static Term main_pid;

static __thread Scheduler *self_sched;
static __thread Process *current;

Process *sched_current(void) { return current; }
int sched_count(void) { return nscheds; }
int sched_online(void) { return atomic_load(&nonline); }
int sched_self_id(void) { return self_sched ? self_sched->id + 1 : 0; }

UWord sched_context_switches(void) {
    UWord n = 0;
    for (int i = 0; i < nscheds; i++) n += schedulers[i].context_switches;
    return n;
}

UWord sched_total_reductions(void) {
    UWord n = 0;
    for (int i = 0; i < nscheds; i++) n += atomic_load(&schedulers[i].reductions);
    return n;
}

static uint32_t runq_length(Scheduler *s) {
    return atomic_load(&s->tail) - atomic_load(&s->head);
}

UWord sched_run_queue_length(void) {
    UWord n = (UWord)atomic_load(&global_count);
    for (int i = 0; i < nscheds; i++)
        n += runq_length(&schedulers[i]) + atomic_load(&schedulers[i].backlog_len);
    return n;
}

/* ---- the global queue ---- */

/* The heads are written under global_lock but read without it by
 * global_has (a hint, checked again under the lock): relaxed atomics. */
static void global_put(Process *p) {
    int pr = p->prio;
    pthread_mutex_lock(&global_lock);
    p->next_run = NULL;
    if (global_tail[pr]) global_tail[pr]->next_run = p;
    else smp_store_relaxed(&global_head[pr], p);
    global_tail[pr] = p;
    atomic_fetch_add(&global_count, 1);
    pthread_mutex_unlock(&global_lock);
}

/* Takes the first process of priority prio; global_lock held. */
static Process *global_take_locked(int prio) {
    Process *p = global_head[prio];
    if (p) {
        smp_store_relaxed(&global_head[prio], p->next_run);
        if (!p->next_run) global_tail[prio] = NULL;
        atomic_fetch_sub(&global_count, 1);
    }
    return p;
}

/* Takes the first process of priority >= min_prio, highest first. */
static Process *global_get(int min_prio) {
    if (atomic_load_explicit(&global_count, memory_order_relaxed) == 0) return NULL;
    Process *p = NULL;
    pthread_mutex_lock(&global_lock);
    for (int pr = PRIO_LEVELS - 1; pr >= min_prio && !p; pr--) p = global_take_locked(pr);
    pthread_mutex_unlock(&global_lock);
    return p;
}

/* Takes the first process of exactly this priority. */
static Process *global_take(int prio) {
    if (atomic_load_explicit(&global_count, memory_order_relaxed) == 0) return NULL;
    pthread_mutex_lock(&global_lock);
    Process *p = global_take_locked(prio);
    pthread_mutex_unlock(&global_lock);
    return p;
}

static int global_has(int prio) {
    return atomic_load_explicit(&global_count, memory_order_relaxed) > 0 &&
           smp_load_relaxed(&global_head[prio]) != NULL;
}

/* ---- the local ring (owner puts and gets, thieves steal) ---- */

/* A ring entry is a Process pointer with FRESH set when it was queued by
 * spawn and has not run yet (or came from the backlog), so that a thief can
 * tell without touching the process (see policy_steal_count). */
#define FRESH ((uintptr_t)1)
/* BUSY marks a process queued because its slice, or its chain's, ran out
 * (see policy_steal_count): the work most likely to keep a thief busy. */
#define BUSY ((uintptr_t)2)
static Process *entry_process(uintptr_t e) { return (Process *)(e & ~(FRESH | BUSY)); }

static void backlog_put(Scheduler *s, Process *p);

static void ring_put(Scheduler *s, Process *p, uintptr_t fresh) {
    uint32_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);
    atomic_store_explicit(&s->ring[t % RUNQ_SIZE], (uintptr_t)p | fresh, memory_order_relaxed);
    atomic_store_explicit(&s->tail, t + 1, memory_order_release);
}

/* Owner only. What does not fit the ring waits in the backlog, in order. */
static void runq_put_as(Scheduler *s, Process *p, uintptr_t fresh) {
    uint32_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);
    uint32_t h = atomic_load_explicit(&s->head, memory_order_acquire);
    if (t - h < RUNQ_SIZE && !s->backlog_head) ring_put(s, p, fresh);
    else backlog_put(s, p);
}

static void runq_put(Scheduler *s, Process *p) { runq_put_as(s, p, 0); }

static Process *runq_get(Scheduler *s) {
    for (;;) {
        uint32_t h = atomic_load_explicit(&s->head, memory_order_acquire);
        uint32_t t = atomic_load_explicit(&s->tail, memory_order_relaxed);
        if (t == h) return NULL;
        Process *p = entry_process(atomic_load_explicit(&s->ring[h % RUNQ_SIZE], memory_order_relaxed));
        if (atomic_compare_exchange_weak_explicit(&s->head, &h, h + 1, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return p;
    }
}

static void backlog_put(Scheduler *s, Process *p) {
    p->next_run = NULL;
    if (s->backlog_tail) s->backlog_tail->next_run = p;
    else s->backlog_head = p;
    s->backlog_tail = p;
    atomic_store_explicit(&s->backlog_len, atomic_load_explicit(&s->backlog_len, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static Process *backlog_get(Scheduler *s) {
    Process *p = s->backlog_head;
    if (!p) return NULL;
    s->backlog_head = p->next_run;
    if (!s->backlog_head) s->backlog_tail = NULL;
    atomic_store_explicit(&s->backlog_len, atomic_load_explicit(&s->backlog_len, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    return p;
}

/* Moves backlog into the ring while it is less than half full. */
static void backlog_refill(Scheduler *s) {
    while (s->backlog_head && runq_length(s) < RUNQ_SIZE / 2)
        ring_put(s, backlog_get(s), FRESH);
}

/* What a thief sees of a victim (policy_steal_count decides from it). */
static VictimView victim_view(Scheduler *thief, Scheduler *v, uint32_t h, uint32_t n, uint64_t now) {
    VictimView vv = { .len = n, .lone_streak = atomic_load_explicit(&v->lone_streak, memory_order_relaxed),
                      .since_spawn_us = UINT64_MAX, .thief_failures = thief->backoff.failures };
    vv.head_fresh = (atomic_load_explicit(&v->ring[h % RUNQ_SIZE], memory_order_relaxed) & FRESH) != 0;
    if (vv.head_fresh) {
        uint64_t last = atomic_load_explicit(&v->last_spawn_us, memory_order_relaxed);
        vv.since_spawn_us = now - last;
    }
    vv.first_busy = POLICY_NO_BUSY;
    for (uint32_t i = 0; i < n && i < POLICY_BUSY_LOOK; i++)
        if (atomic_load_explicit(&v->ring[(h + i) % RUNQ_SIZE], memory_order_relaxed) & BUSY) {
            vv.first_busy = i;
            break;
        }
    return vv;
}

/* Takes what policy_steal_count allows of victim's ring into thief's ring;
 * returns one to run now. With take_lone, a runnext that has waited past its
 * grace period (policy_runnext_ready) too. */
static Process *runq_steal(Scheduler *thief, Scheduler *victim, int take_lone) {
    for (;;) {
        uint32_t h = atomic_load_explicit(&victim->head, memory_order_acquire);
        uint32_t t = atomic_load_explicit(&victim->tail, memory_order_acquire);
        uint32_t n = t - h;
        if (n == 0 || n > RUNQ_SIZE) {
            if (n == 0) break;
            continue;                            /* inconsistent snapshot */
        }
        VictimView vv = victim_view(thief, victim, h, n, timer_now_us());
        n = policy_steal_count(&vv);
        if (n == 0) return NULL;
        uint32_t tt = atomic_load_explicit(&thief->tail, memory_order_relaxed);
        for (uint32_t i = 0; i < n; i++) {
            uintptr_t e = atomic_load_explicit(&victim->ring[(h + i) % RUNQ_SIZE], memory_order_relaxed);
            atomic_store_explicit(&thief->ring[(tt + i) % RUNQ_SIZE], e & ~FRESH, memory_order_relaxed);
        }
        if (!atomic_compare_exchange_weak_explicit(&victim->head, &h, h + n, memory_order_acq_rel,
                                                   memory_order_relaxed))
            continue;
        /* the last one is run at once, the others queued here */
        Process *run = entry_process(atomic_load_explicit(&thief->ring[(tt + n - 1) % RUNQ_SIZE], memory_order_relaxed));
        atomic_store_explicit(&thief->tail, tt + n - 1, memory_order_release);
        thief->watch.seen = NULL;
        thief->steal_at = timer_now_us();
        return run;
    }
    /* only a runnext left */
    if (!take_lone) return NULL;
    Process *p = atomic_load(&victim->runnext);
    if (!p || !policy_runnext_ready(&thief->watch, victim, p, timer_now_us())) return NULL;
    if (atomic_compare_exchange_strong(&victim->runnext, &p, NULL)) {
        thief->watch.seen = NULL;
        thief->steal_at = timer_now_us();
        return p;
    }
    return NULL;
}

/* ---- waking sleepers ---- */

static void futex_wake_one(_Atomic int *w) {
    syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wakes s if it sleeps: the one waker that turns its word from SLEEPING
 * to AWAKE makes the system call; a word already AWAKE costs nothing. */
/* The system call that wakes s once its word is AWAKE: s sleeps either on
 * the word or in the poll set. s sets in_poll before its last look at the
 * word, the waker turns the word before reading in_poll (both sequentially
 * consistent): either s sees AWAKE and does not wait, or the waker sees
 * in_poll and interrupts the poll. */
static void kick(Scheduler *s) {
    if (atomic_load(&s->in_poll)) poll_interrupt();
    else futex_wake_one(&s->sleep_word);
}

static int wake_sched(Scheduler *s) {
    int expect = SLEEPING;
    if (atomic_load_explicit(&s->sleep_word, memory_order_relaxed) != SLEEPING ||
        !atomic_compare_exchange_strong(&s->sleep_word, &expect, AWAKE))
        return 0;
    kick(s);
    return 1;
}

/* Wakes one sleeping online scheduler, if any sleeps and nobody spins. A
 * scheduler dozing out a steal back-off is woken only for global work (with
 * `global`): local surplus is what it just failed to use. */
static void wake_idle_for(int global) {
    if (!smp_enabled) {
        /* one scheduler: only work from other threads can find it asleep */
        if (global) wake_sched(&schedulers[0]);
        return;
    }
    if (atomic_load(&nspinning) > 0) return;
    int n = atomic_load(&nsleeping);
    if (!global) n -= atomic_load(&ndozing);
    if (n <= 0) return;
    int online = atomic_load(&nonline);
    for (int i = 0; i < online; i++) {
        Scheduler *s = &schedulers[i];
        if (!global && atomic_load_explicit(&s->dozing, memory_order_relaxed)) continue;
        if (wake_sched(s)) break;
    }
}

static void wake_idle(void) { wake_idle_for(0); }

static void wake_all(void) {
    for (int i = 0; i < nscheds; i++)
        if (atomic_exchange(&schedulers[i].sleep_word, AWAKE) == SLEEPING) kick(&schedulers[i]);
}

void sched_poll_started(void) { wake_all(); }

/* ---- making processes runnable ---- */

static int is_online(const Scheduler *s) {
    return s->id < atomic_load_explicit(&nonline, memory_order_relaxed);
}

/* Where p goes (policy_place): s is the deciding scheduler, NULL for a
 * thread that is none. */
static Place place_of(Scheduler *s, Process *p, RunnableWhy why) {
    return policy_place(p->prio, why, s && is_online(s));
}

static void make_global(Process *p) {
    global_put(p);
    wake_idle_for(1);
}

static int spin_worth(void);

/* While s drains a batch it took in from outside, surplus wakes a sleeper
 * only if a core is free for it (spin_worth: the awake schedulers and async
 * threads leave one) or the batch is worth a core taken from a thread at
 * work (policy_batch_wakes); 1 otherwise. */
static int batch_worth_a_wake(Scheduler *s, uint32_t left) {
    if (!s->batch_since_us || spin_worth()) return 1;
    if (!policy_batch_wakes(left, s->batch_picks, timer_now_us() - s->batch_since_us)) return 0;
    s->batch_since_us = 0;               /* worth it: an ordinary queue again */
    return 1;
}

/* Queues p in s's ring, or the global queue if it belongs there; wakes a
 * sleeper when that makes surplus (policy_queue_wakes). */
static void make_runnable(Scheduler *s, Process *p) {
    if (place_of(s, p, WHY_YIELDED) == PLACE_GLOBAL) { make_global(p); return; }
    runq_put(s, p);
    uint32_t len = runq_length(s);
    if (policy_queue_wakes(len) && batch_worth_a_wake(s, len)) wake_idle();
}

/* Like make_runnable, but it wakes nobody when p stays here (work that is
 * no reason for a wake-up: a child a thief would leave alone, a process
 * whose slice ran out). FRESH marks a child that has not run yet. */
static void make_runnable_quietly(Scheduler *s, Process *p, uintptr_t fresh, RunnableWhy why) {
    if (place_of(s, p, why) == PLACE_GLOBAL) make_global(p);
    else runq_put_as(s, p, fresh);
}

/* What did not fit s's ring goes where every scheduler takes from. */
static void backlog_hand_over(Scheduler *s) {
    Process *q;
    while ((q = backlog_get(s))) global_put(q);
}

void sched_wake(Process *p) {
    Scheduler *s = self_sched;
    if (place_of(s, p, WHY_WOKEN) != PLACE_RUNNEXT) { make_global(p); return; }
    /* runnext: the woken process runs next here; the one it displaces is
     * surplus work that another scheduler may take */
    Process *old = atomic_exchange(&s->runnext, p);
    if (old) make_runnable(s, old);
}

/* Receive timeouts that one look at the wheel (timer.c, on the scheduler
 * whose wheel held them) finds due together: each goes to the back of the
 * ring, as a preempted process does, so they run in the order they were
 * due. Into runnext, last in first out, the later of two ran first (a
 * gen_server call's 10 ms timeout lost to its server's 100 ms sleep when a
 * loaded machine kept the scheduler from its wheel past both). A timeout
 * found due alone still wakes into runnext, as a message does: at the
 * back of a ring of processes passing messages it ran 850 us late instead
 * of at once (bench/timeout_latency.mini pairs). */
void sched_wake_timeout(Process *p) {
    Scheduler *s = self_sched;
    if (!s) { sched_wake(p); return; }
    make_runnable(s, p);
}

void sched_spawned(Process *parent, Process *child) {
    (void)parent;
    Scheduler *s = self_sched;
    if (s && !s->spawned) {
        /* the first spawn of this slice: a thief must see it at once (the
         * slice may run long); the end of the slice records it again */
        s->spawned = 1;
        atomic_store_explicit(&s->last_spawn_us, timer_now_us(), memory_order_relaxed);
    }
    /* no wake-up: a thief would leave the child alone anyway (see
     * policy_steal_count); if the spawning stops and work piles up, find_local's
     * streak wakes someone */
    make_runnable_quietly(s, child, FRESH, WHY_SPAWNED);
}

/* ---- stacks of processes handed between threads ---- */

/* The inject stack and each scheduler's handoff stack are lock-free LIFO
 * lists linked through next_run. A chain newest -> ... -> oldest (already
 * linked) goes on in one compare-and-swap. */
static void pstack_push(_Atomic(Process *) *top, Process *newest, Process *oldest) {
    Process *old = atomic_load_explicit(top, memory_order_relaxed);
    do oldest->next_run = old;
    while (!atomic_compare_exchange_weak(top, &old, newest));
}

/* Takes the whole stack, oldest first (NULL if it is empty). */
static Process *pstack_take(_Atomic(Process *) *top) {
    if (!atomic_load_explicit(top, memory_order_relaxed)) return NULL;
    Process *p = atomic_exchange(top, NULL), *order = NULL;
    while (p) { Process *next = p->next_run; p->next_run = order; order = p; p = next; }
    return order;
}

/* ---- a spawner's burst, shared out ---- */

/* Moves what other schedulers handed s into its ring, oldest first. */
static void handoff_take(Scheduler *s) {
    for (Process *p = pstack_take(&s->handoff), *next; p; p = next) {
        next = p->next_run;
        runq_put(s, p);
    }
}

/* s's spawner stopped spawning (it waits or ended): the children it left
 * queued go out now in contiguous shares from the head of the ring, one to
 * each online scheduler asleep and not dozing (policy_burst_share says
 * why), each share pushed onto that scheduler's handoff stack in one
 * compare-and-swap, and the sleeper woken. */
static void share_burst(Scheduler *s) {
    if (!smp_enabled) return;
    int online = atomic_load_explicit(&nonline, memory_order_relaxed), k = 0;
    Scheduler *to[MAX_SCHEDULERS];
    for (int i = 0; i < online; i++) {
        Scheduler *o = &schedulers[i];
        if (o != s && atomic_load_explicit(&o->sleep_word, memory_order_relaxed) == SLEEPING &&
            !atomic_load_explicit(&o->dozing, memory_order_relaxed))
            to[k++] = o;
    }
    uint32_t share = policy_burst_share(runq_length(s), k);
    for (int j = 0; share && j < k; j++) {
        Process *newest = NULL, *oldest = NULL, *p;
        for (uint32_t i = 0; i < share && (p = runq_get(s)); i++) {
            p->next_run = newest;
            newest = p;
            if (!oldest) oldest = p;
        }
        if (!newest) break;
        pstack_push(&to[j]->handoff, newest, oldest);
        wake_sched(to[j]);
    }
}

/* ---- work made runnable outside the schedulers ---- */

/* Moves what other threads made runnable into s's ring; 1 if there was any. */
static int inject_take(Scheduler *s) {
    Process *order = pstack_take(&inject_head);     /* oldest first */
    if (!order) return 0;
    /* no wake-up for the batch: find_local's streak wakes a sleeper if it
     * is worth one (policy_batch_wakes) */
    if (order->next_run && !s->batch_since_us) {
        s->batch_since_us = timer_now_us();
        s->batch_picks = 0;
    }
    while (order) {
        Process *next = order->next_run;
        make_runnable_quietly(s, order, 0, WHY_YIELDED);
        order = next;
    }
    return 1;
}

static void inject_push(Process *p) { pstack_push(&inject_head, p, p); }

/* Is every scheduler asleep (or on its way, past its last look)? Only then
 * does work on the inject stack need a wake-up: an awake scheduler takes
 * the stack at its next pick, a spinning one in its spin loop, and one on
 * its way to sleep counted itself in nsleeping before its last look at the
 * stack (idle), so either it sees a push or the pusher sees the count. An
 * offline scheduler that is awake looks too, and hands it on (idle). */
static int all_asleep(void) { return atomic_load(&nsleeping) >= nscheds; }

void sched_wake_external(Process *p) {
    inject_push(p);
    if (all_asleep()) wake_idle_for(1);
}

void sched_inject(Process *p) { inject_push(p); }

void sched_external_settle(int now, uint64_t lag_us, uint64_t job_us) {
    if (!atomic_load(&inject_head) || !all_asleep()) {
        /* nothing waits, or an awake scheduler will take it: nothing owed */
        if (atomic_load_explicit(&owed_by, memory_order_relaxed))
            atomic_store_explicit(&owed_by, 0, memory_order_relaxed);
        return;
    }
    if (!now) {
        /* the earliest deadline of the completions that wait rules; async
         * threads race here, so it is lowered with a CAS */
        uint64_t t = timer_now_us(), due = t + lag_us;
        uint64_t by = atomic_load_explicit(&owed_by, memory_order_relaxed);
        while ((!by || due < by) &&
               !atomic_compare_exchange_weak_explicit(&owed_by, &by, due, memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
        if (by && due > by) due = by;
        /* the thread looks again only when its next job ends: pay now if
         * that end, foretold by this job's length, would come too late */
        if (t + job_us < due) return;
    }
    atomic_store_explicit(&owed_by, 0, memory_order_relaxed);
    wake_idle_for(1);
}

void sched_outside_work(int delta) { atomic_fetch_add_explicit(&noutside, delta, memory_order_relaxed); }

/* ---- picking work ---- */

static int global_waits(int prio) {
    return atomic_load_explicit(&global_count, memory_order_relaxed) > 0 && global_has(prio);
}

/* Picks what s runs next (policy_pick decides from what s sees). */
static Process *find_local(Scheduler *s, SWord *budget) {
    *budget = REDUCTIONS_PER_SLICE;
    if (s->backlog_head) backlog_refill(s);
    inject_take(s);
    handoff_take(s);
    for (;;) {
        PickView v = {
            .global_max = global_waits(PRIO_MAX), .global_high = global_waits(PRIO_HIGH),
            .global_normal = global_waits(PRIO_NORMAL), .global_low = global_waits(PRIO_LOW),
            .runnext = atomic_load_explicit(&s->runnext, memory_order_relaxed) != NULL,
            .chain_left = REDUCTIONS_PER_SLICE - s->chain_reds,
            .ring = runq_length(s), .low_skips = s->low_skips, .global_skips = s->global_skips,
        };
        Process *p = NULL;
        switch (policy_pick(&v)) {
        case PICK_MAX: case PICK_HIGH:
            /* another scheduler may have taken it meanwhile: look again */
            if ((p = global_get(PRIO_HIGH))) return p;
            continue;
        case PICK_RUNNEXT:
            if ((p = atomic_exchange(&s->runnext, NULL))) {
                *budget = REDUCTIONS_PER_SLICE - s->chain_reds;
                return p;
            }
            continue;                        /* a thief took it */
        case PICK_REQUEUE_RUNNEXT:
            if ((p = atomic_exchange(&s->runnext, NULL))) runq_put_as(s, p, BUSY);
            s->chain_reds = 0;
            continue;
        case PICK_RING: {
            s->chain_reds = 0;
            if (!(p = runq_get(s))) continue;     /* stolen meanwhile */
            if (v.global_low) s->low_skips++;
            if (v.global_normal) s->global_skips++;
            /* More is queued behind it: work another core could be doing?
             * Only when work is left behind pick after pick
             * (policy_lone_streak); new work queued in numbers wakes a
             * sleeper at once (make_runnable). */
            int streak = policy_lone_streak(atomic_load_explicit(&s->lone_streak, memory_order_relaxed),
                                            runq_length(s));
            atomic_store_explicit(&s->lone_streak, streak, memory_order_relaxed);
            uint32_t left = runq_length(s);
            if (s->batch_since_us) {
                s->batch_picks++;
                if (!left) s->batch_since_us = 0;            /* drained */
            }
            if (policy_streak_wakes(streak) && batch_worth_a_wake(s, left)) wake_idle();
            return p;
        }
        case PICK_GLOBAL:
            s->chain_reds = 0;
            s->global_skips = 0;
            if ((p = global_get(PRIO_NORMAL))) return p;
            continue;
        case PICK_LOW:
            s->chain_reds = 0;
            s->low_skips = 0;
            if ((p = global_take(PRIO_LOW))) return p;
            continue;
        case PICK_NONE:
            s->chain_reds = 0;
            s->batch_since_us = 0;           /* a batch from outside is gone too */
            return NULL;
        }
    }
}

static Process *steal(Scheduler *s, int take_lone) {
    int online = atomic_load(&nonline);
    if (online <= 1) return NULL;
    s->rand = s->rand * 1103515245u + 12345u;
    int start = (int)((s->rand >> 8) % (unsigned)online);
    for (int i = 0; i < online; i++) {
        Scheduler *v = &schedulers[(start + i) % online];
        if (v == s) continue;
        Process *p = runq_steal(s, v, take_lone);
        if (p) return p;
    }
    return NULL;
}

/* Work that s could take: queued anywhere, or in s's own runnext (a timer
 * fired on this thread may have put it there). Another scheduler's runnext
 * is not: its owner is awake and runs it next, and counting it kept an idle
 * scheduler spinning for as long as a ring's token circled on another. */
static int any_work(Scheduler *s, int rings) {
    if (atomic_load(&global_count) > 0 || atomic_load(&s->runnext) || s->backlog_head ||
        atomic_load(&inject_head) || atomic_load(&s->handoff))
        return 1;
    for (int i = 0; i < nscheds && rings; i++)
        if (runq_length(&schedulers[i]) > 0) return 1;
    return 0;
}

/* Work handed to a scheduler that was woken for it but is still counted
 * asleep (it uncounts itself before it takes its handoff stack): no
 * deadlock while any stack holds some. */
static int any_handoff(void) {
    for (int i = 0; i < nscheds; i++)
        if (atomic_load(&schedulers[i].handoff)) return 1;
    return 0;
}

/* Sleeps on s's futex word, which s set to SLEEPING before its last look
 * at the queues, until a waker turns it AWAKE or for `wait` microseconds
 * (negative: no limit; 0: not at all). */
static void futex_sleep(Scheduler *s, int64_t wait);

/* Sleeps as futex_sleep does, but in the I/O poll set if no other
 * scheduler sleeps there: then an fd that becomes ready wakes s, which
 * hands it to its port (poll_deliver) once it counts as awake again.
 * Returns 1 if it fetched readiness to deliver. */
static int sched_sleep_quietly(Scheduler *s, int64_t wait);
static int sched_sleep(Scheduler *s, int64_t wait) {
    /* asleep it holds no pointer into a lock-free structure (qsbr.h) */
    if (wait == 0) return sched_sleep_quietly(s, 0);      /* (no sleep) */
    /* big heap blocks kept for the next collection go back to the system
     * once unused for a while (heap_block.c); it wakes when the next is due */
    int64_t keep = heap_block_release_idle();
    if (keep >= 0 && (wait < 0 || wait > keep)) wait = keep > 0 ? keep : 1;
    qsbr_offline();
    int io = sched_sleep_quietly(s, wait);
    qsbr_online();
    return io;
}

static int sched_sleep_quietly(Scheduler *s, int64_t wait) {
    Scheduler *none = NULL;
    if (wait == 0 || !poll_active() || atomic_load_explicit(&poll_sleeper, memory_order_relaxed) ||
        !atomic_compare_exchange_strong(&poll_sleeper, &none, s)) {
        futex_sleep(s, wait);
        return 0;
    }
    atomic_store(&s->in_poll, 1);
    int fetched = 0;
    uint64_t deadline = wait > 0 ? timer_now_us() + (uint64_t)wait : 0;
    while (!fetched && atomic_load(&s->sleep_word) == SLEEPING) {
        int64_t left = -1;
        if (wait > 0) {
            uint64_t now = timer_now_us();
            if (now >= deadline) break;
            left = (int64_t)(deadline - now);
        }
        fetched = poll_wait(left);
    }
    atomic_store(&s->in_poll, 0);
    atomic_store(&poll_sleeper, NULL);
    atomic_store(&s->sleep_word, AWAKE);
    return fetched;
}

static void futex_sleep(Scheduler *s, int64_t wait) {
    uint64_t deadline = wait > 0 ? timer_now_us() + (uint64_t)wait : 0;
    while (wait != 0 && atomic_load(&s->sleep_word) == SLEEPING) {
        struct timespec ts, *tp = NULL;
        if (wait > 0) {
            uint64_t now = timer_now_us();
            if (now >= deadline) break;
            uint64_t left = deadline - now;
            ts.tv_sec = (time_t)(left / 1000000);
            ts.tv_nsec = (long)(left % 1000000) * 1000;
            tp = &ts;
        }
#ifdef __SANITIZE_THREAD__
        /* ThreadSanitizer holds a signal back while its thread is in a raw
         * system call it does not know, and Boehm's collector stops the
         * world with signals: a scheduler asleep in futex() would never
         * answer ("Signals delivery fails constantly"). Under TSan it naps
         * in usleep, a call TSan delivers signals in, and looks again. */
        (void)tp;
        usleep(wait > 0 && ts.tv_sec == 0 && ts.tv_nsec < 200000 ? (useconds_t)(ts.tv_nsec / 1000) + 1 : 200);
#else
        syscall(SYS_futex, (int *)&s->sleep_word, FUTEX_WAIT_PRIVATE, SLEEPING, tp, NULL, 0);
#endif
    }
    atomic_store(&s->sleep_word, AWAKE);
}

/* Set by init under -noshell: its waiting alone is the end of the run. */
static _Atomic int main_may_wait_alone;

void sched_main_may_wait_alone(void) { atomic_store(&main_may_wait_alone, 1); }

static void report_deadlock(void) {
    if (atomic_exchange(&deadlock_reported, 1)) return;
    if (atomic_load(&main_may_wait_alone) && proc_count() == 1) {
        /* every process but init has ended: nothing can happen any more */
        exit_status = 0;
        atomic_store(&finished, 1);
        return;
    }
    fprintf(stderr, "mini: deadlock: every process waits in receive and no timer is set\n");
    exit_status = 2;
    atomic_store(&finished, 1);
}

/* Is spinning worth a core now (policy_spin_worth)? The other awake
 * schedulers and the awake async threads are the ones that want a core. */
static int spin_worth(void) {
    int others = nscheds - atomic_load_explicit(&nsleeping, memory_order_relaxed) - 1;
    return policy_spin_worth(others + async_awake_count(), ncores);
}

/* How long a scheduler may sleep (wait: microseconds, negative for no
 * limit) while async threads are at work. A completion whose wake-up its
 * thread put off (sched_external_settle) is paid for when a job of that
 * thread ends; a job that blocks (a read from a pipe nobody writes to yet,
 * a slow disk) would leave the completions before it undelivered for as
 * long, and their process may be the one that would unblock it. So while an
 * async thread is awake, the last scheduler to fall asleep (a debt is only
 * put off while all sleep, and one look is enough) sleeps no longer than
 * the longest a completion may wait: at worst a look every 20 ms for
 * nothing. */
static int64_t external_bound(int64_t wait) {
    if (async_awake_count() > 0 && (wait < 0 || wait > POLICY_EXTERNAL_LAG_MAX_US))
        return POLICY_EXTERNAL_LAG_MAX_US;
    return wait;
}

/* No work here: steal, spin (one scheduler at most, and only while a core
 * is free for it), then sleep. */
static Process *idle(Scheduler *s, SWord *budget) {
    *budget = REDUCTIONS_PER_SLICE;
    s->chain_reds = 0;
    if (!smp_enabled) {
        if (timer_poll_near()) return NULL;
        int64_t wait = timer_sleep_limit();
        /* the shell's reader may send at any time: look every 20 ms */
        if (atomic_load(&nexternal) > 0 && (wait < 0 || wait > 20000)) wait = 20000;
        if (wait < 0 && !timer_any_pending() && atomic_load(&noutside) == 0) {
            report_deadlock();
            return NULL;
        }
        if (wait == 0) return NULL;
        /* timers pending but none dated: look again soon, as before */
        if (wait < 0 && timer_any_pending()) wait = 1000;
        wait = external_bound(wait);
        /* asleep on its futex word, so that an async thread's completion
         * (sched_wake_external) can wake it */
        atomic_store(&s->sleep_word, SLEEPING);
        atomic_fetch_add(&nsleeping, 1);
        int io = 0;
        if (!atomic_load(&inject_head)) io = sched_sleep(s, wait);
        else atomic_store(&s->sleep_word, AWAKE);
        atomic_fetch_sub(&nsleeping, 1);
        if (io) poll_deliver();      /* counted awake: delivering wakes nobody */
        return NULL;
    }
    /* an offline scheduler takes no work (what it took would wake into its
     * own runnext, where no online scheduler looks): it only sleeps */
    int offline = s->id >= atomic_load(&nonline);
    if (offline) {
        /* what this scheduler still holds goes where online ones look */
        Process *q;
        handoff_take(s);
        while ((q = runq_get(s))) global_put(q);
        backlog_hand_over(s);
        if ((q = atomic_exchange(&s->runnext, NULL))) global_put(q);
        wake_idle();
    }
    /* a thief whose steals did not pay waits out its back-off asleep,
     * neither looking at the others' rings nor woken for their surplus */
    int may_steal = !offline && policy_may_steal(&s->backoff, timer_now_us());
    int spinning = 0, worth = may_steal && spin_worth();
    if (worth && atomic_load(&nspinning) == 0) {
        atomic_fetch_add(&nspinning, 1);
        spinning = 1;
    } else if (may_steal && !worth) {
        /* every core is wanted: one look, then sleep (a queue it may not
         * take from does not keep it awake below) */
        Process *p = steal(s, 0);
        if (p) return p;
    }
    /* Each look reads the cache lines the owners write on every put and
     * pick; looking every 0.3 us made a busy owner pay a transfer of its
     * queue's line at nearly every spawn. So the pause between looks
     * doubles up to SPIN_PAUSES_MAX, and the spin lasts SPIN_US. */
    int pauses = 16;
    uint64_t spin_start = spinning ? timer_now_us() : 0;
    for (int round = 0; spinning && !atomic_load(&finished); round++) {
        if ((round & 7) == 7 && (timer_now_us() - spin_start > SPIN_US || !spin_worth())) break;
        /* a spinner holds nothing (qsbr.h): saying so now and then lets
         * the others free what they retire while it spins */
        if ((round & 7) == 7) qsbr_quiescent();
        /* lone work is looked at only now and then: reading a runnext pulls
         * the owner's cache line, which it writes on every wake-up */
        if (inject_take(s)) {
            atomic_fetch_sub(&nspinning, 1);
            return NULL;                     /* find_local runs it */
        }
        /* while no scheduler sleeps in the I/O poll set, the spinner looks
         * at it too (one system call every other round): a packet that
         * comes while it spins is read at once, with no wake-up at all */
        if ((round & 1) && poll_active() && !atomic_load_explicit(&poll_sleeper, memory_order_relaxed) &&
            poll_wait(0)) {
            atomic_fetch_sub(&nspinning, 1);
            poll_deliver();
            return NULL;                     /* find_local runs the ports */
        }
        Process *p = steal(s, (round & 3) == 3);
        if (!p) p = global_get(PRIO_LOW);
        if (p) {
            atomic_fetch_sub(&nspinning, 1);
            /* we found work while others may sleep: let one more look */
            wake_idle();
            return p;
        }
        if (timer_pending() && timer_next_due() == 0) break;
        for (int i = 0; i < pauses; i++) cpu_relax();
        if (pauses < SPIN_PAUSES_MAX) pauses *= 2;
    }
    if (spinning) atomic_fetch_sub(&nspinning, 1);
    if (atomic_load(&finished)) return NULL;
    if (timer_fire_due() > 0) return NULL;
    if (timer_poll_near()) return NULL;

    /* counted as sleeping (and the word SLEEPING, for a waker to find)
     * before the last look, so that a thread that is no scheduler and
     * makes work (sched_wake_external) either is seen by this look or sees
     * the count */
    int dozing = !offline && !may_steal;
    if (dozing) {
        atomic_store(&s->dozing, 1);
        atomic_fetch_add(&ndozing, 1);
    }
    atomic_store(&s->sleep_word, SLEEPING);
    int last_asleep = atomic_fetch_add(&nsleeping, 1) + 1 >= nscheds;
    int stay_awake = (!offline && any_work(s, worth)) || atomic_load(&finished);
    /* an offline scheduler takes nothing: what arrived for the inject
     * stack while it was awake goes to an online one */
    if (offline && atomic_load(&inject_head)) wake_idle_for(1);
    /* Only an online scheduler decides that every process waits (below).
     * An offline one that is the last to fall asleep (a thread started
     * late, +S 64 on two cores) wakes an online one to look again: else
     * the online ones, asleep without a limit, never see the count full
     * and a finished run never ends. */
    if (offline && atomic_load(&nsleeping) >= nscheds) wake_idle_for(1);
    int64_t wait = timer_sleep_limit();
    if (!stay_awake && dozing) {
        int64_t left = (int64_t)(s->backoff.not_before - timer_now_us());
        if (left < 1) left = 1;
        if (wait < 0 || wait > left) wait = left;
    }
    /* the last one to count itself, finding nothing: every process waits.
     * Only shared queues can hold work now (a scheduler on its way to sleep
     * has an empty ring and runnext), and it looked at them after its count;
     * a scheduler that found work uncounted itself before taking it. Timers
     * are per scheduler: a sleeper may hold some (it wakes for them). */
    if (!stay_awake && wait < 0 && atomic_load(&nsleeping) >= nscheds && s->id < atomic_load(&nonline) &&
        atomic_load(&nexternal) == 0 && atomic_load(&noutside) == 0 && !timer_any_pending() &&
        !any_handoff()) {
        report_deadlock();
        wake_all();
        stay_awake = 1;
    }
    if (last_asleep) wait = external_bound(wait);
    int io = 0;
    if (stay_awake) atomic_store(&s->sleep_word, AWAKE);
    else io = sched_sleep(s, wait);
    atomic_fetch_sub(&nsleeping, 1);
    if (io) poll_deliver();          /* counted awake: delivering wakes nobody */
    if (dozing) {
        atomic_fetch_sub(&ndozing, 1);
        atomic_store(&s->dozing, 0);
    }
    return NULL;
}

/* ---- senders outside the schedulers (the shell's reader) ---- */

/* When the last source ends, every sleeper is woken to look again: one that
 * went to sleep while the source was still counted (the stdin reader counts
 * itself until after its reply is sent) sleeps without a time limit, and
 * would otherwise never see that every process now waits for nothing. */
void sched_external_source(int delta) {
    if (atomic_fetch_add(&nexternal, delta) + delta == 0 && delta < 0 && smp_enabled) wake_all();
}

/* After such a thread delivered a message: wake every sleeper (a sleeper
 * between its last look and its wait finds its word AWAKE and does not
 * wait). */
void sched_external_wake(void) { if (smp_enabled) wake_all(); }

/* ---- running ---- */

static void finish(int status) {
    exit_status = status;
    atomic_store(&finished, 1);
    wake_all();
}

/* A busy scheduler's look at the poll set while no scheduler sleeps there
 * (see poll_sleeper), at most every POLL_CHECK_US. Not after every port's
 * turn as well: that read a busy connection in smaller pieces, a read, an
 * epoll_wait and an epoll_ctl for every message or two, and one-way
 * messages between two nodes ran at 0.75x. */
static void io_look(Scheduler *s) {
    if (!poll_active() || atomic_load_explicit(&poll_sleeper, memory_order_relaxed)) return;
    uint64_t now = timer_now_us();
    if (now - s->io_looked_us < POLL_CHECK_US) return;
    s->io_looked_us = now;
    if (poll_wait(0)) poll_deliver();
}

/* Runs p for one slice and deals with how it stopped. */
static void run_one(Scheduler *s, Process *p, SWord budget) {
    p->sched = s;
    if (p->port) {
        /* a port's turn: its native code, not the emulator (vm/io/port.c) */
        if (port_task_run(p) && !mailbox_try_wait(&p->mbox)) make_runnable(s, p);
        return;
    }
    proc_drain(p);
    if (p->gc_requested) {
        int major = p->gc_requested == GC_REQUEST_FULL;
        p->gc_requested = 0;
        gc_collect(p, 0, p->arity, major);
    }
    RunResult r;
    SWord used = 0;
    if (p->exiting) r = RUN_EXIT;
    else {
        current = p;
        p->reds = budget;
        /* the process runs on this scheduler's registers; between slices it
         * keeps only the live ones (see process.h) */
        memcpy(s->xregs, p->xsave, sizeof(Term) * (size_t)p->arity);
        p->x = s->xregs;
        r = emulator_run(p);
        int live = r == RUN_YIELD || r == RUN_WAIT ? p->arity : 0;
        if (live > p->xsave_cap && !process_reserve_xsave(p, live))
            FATAL("out of memory saving %d registers of a descheduled process", live);
        memcpy(p->xsave, s->xregs, sizeof(Term) * (size_t)live);
        p->x = p->xsave;
        current = NULL;
        used = budget - (p->reds > 0 ? p->reds : 0);
        s->chain_reds += used;
        atomic_fetch_add_explicit(&s->reductions, (UWord)used, memory_order_relaxed);
        p->total_reds += (UWord)used;
        s->context_switches++;
        p->context_switches++;
        if (s->spawned) {
            /* a spawner that is only preempted will spawn more: its children
             * stay here; one that waits or ends has made its work, and the
             * children are anyone's at once */
            s->spawned = 0;
            atomic_store_explicit(&s->last_spawn_us, r == RUN_YIELD ? timer_now_us() : 0,
                                  memory_order_relaxed);
            if (r != RUN_YIELD && s->backlog_head) {
                backlog_hand_over(s);
                wake_idle();
            }
            if (r != RUN_YIELD) share_burst(s);
        }
    }
    if (p->out_of_memory) {
        /* out of memory or over a limit (gc.h): killed, whatever it was doing;
         * its binaries are let go now, while the thread's reserve it may
         * point into is still as it left it */
        binary_release_all(p);
        p->exit_reason = ATOM_TERM(killed);
        r = RUN_EXIT;
    }
    heap_reserve_reset();
    int is_main = p->pid == main_pid;
    p->waiting = r == RUN_WAIT;
    switch (r) {
    case RUN_YIELD:
        /* back in the queue, but no new work: it was running a moment ago,
         * so it is no reason to wake anyone (find_local's streak is); BUSY
         * only if it used most of a slice (policy_yield_busy) */
        make_runnable_quietly(s, p, policy_yield_busy(used, REDUCTIONS_PER_SLICE) ? BUSY : 0, WHY_YIELDED);
        break;
    case RUN_WAIT:
        /* the last touch: after this another scheduler may own p */
        if (!mailbox_try_wait(&p->mbox)) make_runnable(s, p);
        break;
    case RUN_DONE:
        proc_exit(p, ATOM_TERM(normal), 0);
        if (is_main) finish(0);
        break;
    case RUN_EXIT: {
        if (is_main) {
            p->exc_class = EXC_EXIT;
            p->exc_reason = p->exit_reason;
            p->exc_trace = NIL;
            report_uncaught(p);
        }
        proc_exit(p, p->exit_reason, 0);   /* gives its memory back (proc.c) */
        if (is_main) finish(1);
        break;
    }
    case RUN_EXCEPTION: {
        if (is_main) report_uncaught(p);
        Term reason = proc_exception_reason(p);
        proc_exit(p, reason, !is_main && p->exc_class != EXC_EXIT);
        if (is_main) finish(1);
        break;
    }
    }
}


static void scheduler_loop(Scheduler *s) {
    self_sched = s;
    timer_sched_start(s->id);       /* this thread's timers and reference tag */
    ets_slot_set(s->id);            /* its own reader slot in every ETS lock */
    qsbr_thread_start(s->id);       /* it reads ETS tables without locks */
    /* take the first page faults of this thread's message blocks now, not
     * in the middle of the first send */
    heap_frag_free(heap_frag_new(1));
    heap_reserve_init();
    unsigned ticks = 0;
    while (!atomic_load_explicit(&finished, memory_order_relaxed)) {
        /* between two slices: no pointer into a lock-free structure is held */
        qsbr_quiescent();
        if ((++ticks & 15) == 0 || s->chain_reds == 0) {
            timer_fire_due();
            io_look(s);
        }
        SWord budget;
        Process *p = NULL;
        if (s->id < atomic_load_explicit(&nonline, memory_order_relaxed)) p = find_local(s, &budget);
        if (!p && s->steal_at) {
            /* out of work: did the last steal pay for itself? */
            uint64_t now = timer_now_us();
            policy_steal_outcome(&s->backoff, now - s->steal_at, now);
            s->steal_at = 0;
        }
        if (!p) p = idle(s, &budget);
        if (p) run_one(s, p, budget);
    }
    qsbr_offline();
}

static void *scheduler_thread(void *arg) {
    scheduler_loop(arg);
    heap_reserve_free();
    heap_caches_release();
    return NULL;
}

void sched_init(int n, int smp) {
    if (n < 1) n = 1;
    if (n > MAX_SCHEDULERS) n = MAX_SCHEDULERS;
    if (!smp) n = 1;
    smp_enabled = smp;
    nscheds = n;
    qsbr_init(n);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ncores = cores > 0 ? (int)cores : 1;
    atomic_store(&nonline, n);
    for (int i = 0; i < n; i++) {
        schedulers[i].id = i;
        schedulers[i].rand = (unsigned)i * 2654435761u + 1;
    }
}

void sched_set_online(int n) {
    if (n < 1) n = 1;
    if (n > nscheds) n = nscheds;
    atomic_store(&nonline, n);
    /* processes queued on schedulers going offline move to the global queue */
    for (int i = n; i < nscheds; i++) {
        Process *p;
        while ((p = runq_get(&schedulers[i]))) global_put(p);
    }
    wake_all();
}

int sched_run(Term main) {
    main_pid = main;
    for (int i = 1; i < nscheds; i++)
        pthread_create(&schedulers[i].thread, NULL, scheduler_thread, &schedulers[i]);
    scheduler_loop(&schedulers[0]);
    for (int i = 1; i < nscheds; i++) pthread_join(schedulers[i].thread, NULL);
    return exit_status;
}
