/* sched_policy.c — the scheduling rules (see sched_policy.h), each with its
 * reason. Nothing here touches a thread, an atomic or a clock: sched.c reads
 * the state and passes it in, so tests/unit/test_sched_policy.c can drive
 * every rule from a table.
 *
 * The ratio behind every rule: a message hop that stays on its core costs a
 * fraction of a microsecond; one that crosses cores costs cache-line
 * transfers on both sides (the inbox, the message, the receiver's record),
 * about twice the whole local cost; one that must wake a sleeping thread
 * costs several microseconds.
 */
#include "sched_policy.h"

/* Priority first: max, then high, are taken before anything normal (they are
 * few and short by contract: Erlang's rule). Then the runnext chain, on what
 * is left of its slice — a woken process runs next where it was woken, so a
 * conversation stays on one core; a chain that used a whole slice goes to the
 * back of the ring, or two processes passing a token would starve the ring.
 * Then the ring, then normal work handed to the global queue (a spawner's
 * backlog, what an offline scheduler held): local work first, as its memory
 * is in this core's cache. Low priority work runs when nothing normal is
 * here, and at least every POLICY_LOW_EVERY-th pick from the ring while it
 * waits (Erlang's low processes also get a turn after 8 skips), so it is
 * slowed, never starved. Normal work in the global queue (a waiting
 * spawner's backlog, what an offline scheduler held) is served at least every
 * POLICY_GLOBAL_EVERY-th ring pick for the same reason: a ring of busy
 * processes that yield and go back into it never empties, and with every
 * scheduler in that state the handed-over processes would never run (a
 * worker waiting for a message from one of them would poll forever). */
PickFrom policy_pick(const PickView *v) {
    if (v->global_max) return PICK_MAX;
    if (v->global_high) return PICK_HIGH;
    if (v->runnext) return v->chain_left > 0 ? PICK_RUNNEXT : PICK_REQUEUE_RUNNEXT;
    if (v->global_low && v->low_skips >= POLICY_LOW_EVERY - 1) return PICK_LOW;
    if (v->global_normal && v->global_skips >= POLICY_GLOBAL_EVERY - 1) return PICK_GLOBAL;
    if (v->ring) return PICK_RING;
    if (v->global_normal) return PICK_GLOBAL;
    if (v->global_low) return PICK_LOW;
    return PICK_NONE;
}

/* Normal work stays on the deciding scheduler: woken into its runnext (the
 * waker's core has the message in its cache, and the waker often waits
 * next), spawned or preempted into its ring. Other priorities go to the one
 * global queue every scheduler looks at first: they are rare, and a high
 * process must not wait behind one scheduler's ring while another is free.
 * A thread that is no online scheduler hands everything to the global queue. */
Place policy_place(int prio, RunnableWhy why, int here_online) {
    if (prio != PRIO_NORMAL || !here_online || why == WHY_HANDED) return PLACE_GLOBAL;
    return why == WHY_WOKEN ? PLACE_RUNNEXT : PLACE_RING;
}

/* What is left behind at a pick is often about to run here anyway (a ring's
 * LED, displaced from runnext, and its preempted head run in a moment); only
 * work left behind pick after pick (two rings taking turns, a crowd) is
 * surplus. */
int policy_lone_streak(int streak, uint32_t left) {
    if (left == 0) return 0;
    return streak >= POLICY_LONE_STREAK ? POLICY_LONE_STREAK : streak + 1;
}

int policy_streak_wakes(int streak) { return streak >= POLICY_LONE_STREAK; }

/* Completions of async jobs and I/O readiness come in batches (async.c
 * puts off a wake-up so that one carries many), often of a few
 * microseconds' work an item: a port hands a result to its owner, which
 * takes it and waits again. A second scheduler woken for such a batch paid
 * a futex wake and then its own sleep, for a share of work its waker would
 * have finished before it was running. So while a batch is drained, a
 * streak wakes a sleeper only if what is queued, at the pace of the picks
 * so far, would keep the woken scheduler busy for POLICY_STEAL_PAYOFF_US
 * with its half: the rule a thief's steal must pay by. Items that compute
 * for long show it at the first picks and wake at once; a batch of short
 * ones is drained here. */
int policy_batch_wakes(uint32_t left, uint32_t picks, uint64_t elapsed_us) {
    if (picks == 0) return 0;
    return (uint64_t)left * elapsed_us / picks >= 2 * (uint64_t)POLICY_STEAL_PAYOFF_US;
}

/* One queued behind the running process is no surplus (a displaced LED runs
 * in a moment); two are. */
int policy_queue_wakes(uint32_t len) { return len >= POLICY_SURPLUS; }

/* A completion put off rides on a later one's wake-up, so a batch of them
 * costs one wake-up (async.c). The delay is latency added to the job, and
 * what it may be is set against the latency the job already had: a job that
 * queued for 80 ms behind others' work loses little by waiting 20 ms more
 * (the async threads, not the schedulers, are the bottleneck then, and they
 * stay busy: a thread whose queue runs dry pays the wake-up at once). So a
 * completion may wait a quarter of its queueing time, at least the 2 ms any
 * completion may wait and never more than 20 ms. At 0.3 ms a job, 2 ms alone
 * made batches of ~25 jobs and ~0.1 wake-up calls a job for a deep queue;
 * the share lets the batches grow with the queue. A lone job (no queue)
 * never waits: its thread's queue is empty when it ends. */
uint64_t policy_external_lag_us(uint64_t queued_us) {
    uint64_t lag = queued_us / POLICY_EXTERNAL_LAG_SHARE;
    if (lag < POLICY_EXTERNAL_LAG_US) lag = POLICY_EXTERNAL_LAG_US;
    if (lag > POLICY_EXTERNAL_LAG_MAX_US) lag = POLICY_EXTERNAL_LAG_MAX_US;
    return lag;
}

/* Spinning buys a quick start when work comes within a millisecond, at the
 * price of a core. That price is nothing while a core is free and a whole
 * core's work when none is: with more threads that want to run than cores
 * (async threads scanning files beside two schedulers, +S 4 on two cores),
 * the spinner took its core's time from a thread with work, and the kernel
 * shared the cores out among them (+A 2 gave 1.4x the throughput of +A 1
 * on two cores instead of nearly 2x; +S 4 ran cells up to 1.5x slower than
 * +S 2). Sleeping instead costs a futex wake when work comes, which the
 * working threads' schedulers pay only when every scheduler sleeps. */
int policy_spin_worth(int working, int cores) { return working < cores; }

/* A thief takes half, leaving the owner the other half (Go's rule). It
 * leaves alone:
 *  - a single queued process until its owner has left work behind
 *    POLICY_LONE_STREAK picks in a row: lone work is about to run where it
 *    is, and moving it breaks up a conversation;
 *  - children while their parent keeps spawning (the head is fresh and the
 *    spawning slice runs or ended less than POLICY_SPAWN_GRACE_US ago): a
 *    parent spawning short-lived children runs them itself, on the core
 *    where their memory was just written.
 * The half reaches at least to the first busy process: one queued because
 * its slice ran out, or its chain's (a ring's token holder left behind when
 * the chain's slice ended). The thief runs the last one it takes, and what
 * used a whole slice is the best predictor of what keeps a thief busy; the
 * rest of a queue is mostly processes displaced from runnext or woken, which
 * wait again within microseconds. Two rings sharing a core queue exactly
 * [displaced LED, other ring's holder]: half of that is the LED, a steal
 * that never pays (measured: hundreds of such steals before the rings
 * spread). A crowd, all woken, has no busy entry and keeps the plain half.
 * Each steal in a row that did not pay (policy_steal_outcome) halves the
 * take, down to one process: a failed steal is evidence of a crowd, and the
 * thief's next tries, before its back-off has grown, split less of it (40
 * processes all to all: 20, then 10, 5, 2, 1, instead of 20 at every try).
 * Work that does keep a thief busy resets the count, and what is busy is
 * still taken up to the first busy entry. */
uint32_t policy_steal_count(const VictimView *v) {
    if (v->len == 0) return 0;
    if (v->len == 1 && v->lone_streak < POLICY_LONE_STREAK) return 0;
    if (v->head_fresh && v->since_spawn_us < POLICY_SPAWN_GRACE_US) return 0;
    uint32_t half = v->len - v->len / 2;
    int f = v->thief_failures < 31 ? v->thief_failures : 31;
    uint32_t take = half >> f;
    if (take == 0) take = 1;
    if (v->first_busy != POLICY_NO_BUSY && v->first_busy < v->len && v->first_busy >= take)
        take = v->first_busy + 1;
    return take;
}

/* BUSY marks a process preempted because it used most of a slice: it is
 * likely to run long again, so it is what keeps a thief busy. One that ran
 * on the last few reductions of a runnext chain's slice (policy_pick gives
 * a woken process what the chain left) was cut off by the chain, not by
 * its own work: a ring's relay stopped just after passing the token on is
 * the usual case, with nothing left to do but reach its receive. Marked
 * BUSY, such relays were the first BUSY entry thieves found, took, ran in a
 * microsecond and backed off for, while the other ring's token holder,
 * requeued BUSY behind them, stayed: two rings kept sharing a core (0.85 of
 * one scheduler's time instead of 0.5; measured, docs/benchmarks.md). */
int policy_yield_busy(int64_t used, int64_t slice) { return used >= slice / 2; }

/* A runnext is taken only after the thief has seen the same process there
 * for POLICY_RUNNEXT_GRACE_US — longer than a hop takes, so a token passed
 * round a ring is never taken from its core, but a process stuck behind a
 * long slice is. The thief keeps the clock, so the owner pays nothing. */
int policy_runnext_ready(LoneWatch *w, const void *victim, const void *p, uint64_t now) {
    if (w->seen != p || w->where != victim) {
        w->seen = p;
        w->where = victim;
        w->since = now;
        return 0;
    }
    return now - w->since > POLICY_RUNNEXT_GRACE_US;
}

/* A steal moves processes, and the messages they then exchange with the
 * victim's processes cross cores both ways. When the processes are a tightly
 * coupled crowd (all talk to all, request/reply to one server, a group
 * handshaking with its senders), the stolen ones wait again within
 * microseconds, are woken back onto the victim's core and leave the thief
 * idle: every such steal made both cores slower than one (measured: 40
 * processes all-to-all ran 1.7x longer with two schedulers, the thief's
 * steals keeping it busy 2-500 us each, hundreds of times). Independent work
 * keeps a thief busy for milliseconds after one steal (two rings, groups that
 * do not talk to each other, CPU-bound workers). So a steal that kept the
 * thief busy less than POLICY_STEAL_PAYOFF_US counts as a failure, and
 * failures in a row double the thief's wait before it steals again, from
 * POLICY_BACKOFF_MIN_US up to POLICY_BACKOFF_MAX_US; one steal that pays
 * resets it. The cost when a crowd turns into independent work: at most the
 * longest wait before the thief tries again. The longest wait bounds how
 * often a crowd is split again: every try costs the crowd a millisecond or
 * more of conversations across cores, and with a cap of 400 us the tries
 * came so often that 20 senders to one collector, or 40 processes all to
 * all, ran 1.5-2.6x longer with +S 2 than with +S 1 (1.0-1.1x with this
 * cap). Independent work spreads at the first try (the busy-first take),
 * so a long cap does not keep two rings on one core. */
void policy_steal_outcome(StealBackoff *b, uint64_t busy_us, uint64_t now) {
    if (busy_us >= POLICY_STEAL_PAYOFF_US) {
        b->failures = 0;
        b->not_before = 0;
        return;
    }
    if (b->failures < 16) b->failures++;
    uint64_t wait = POLICY_BACKOFF_MIN_US;
    for (int i = 1; i < b->failures && wait < POLICY_BACKOFF_MAX_US; i++) wait *= 2;
    if (wait > POLICY_BACKOFF_MAX_US) wait = POLICY_BACKOFF_MAX_US;
    b->not_before = now + wait;
}

int policy_may_steal(const StealBackoff *b, uint64_t now) { return now >= b->not_before; }

/* A spawner that waits or ends has made its work, and its children are
 * anyone's at once (policy_steal_count). Left to thieves, the first steal
 * came when a sleeper had woken, tens of microseconds later, and by then
 * the owner had run the first children, which sent, woke others into its
 * runnext and waited: the thief's half of what was still queued was a
 * third of the work or less (48 to 78 of 160 hackbench processes in ten
 * runs, and the run as slow as its busiest core: 35-58 ms). So the owner
 * hands the queue out itself, at the moment the spawner stops, in equal
 * contiguous shares, one to each sleeper and one kept: spawn order is the
 * best guess of who belongs together (a group spawned together stays
 * together but for the cut between two shares). A share of less than two
 * is not worth a wake-up; a dozing thief gets none, as it gets no surplus. */
uint32_t policy_burst_share(uint32_t queued, int sleepers)
{
    if (sleepers <= 0) return 0;
    uint32_t share = queued / (uint32_t)(sleepers + 1);
    return share >= 2 ? share : 0;
}
