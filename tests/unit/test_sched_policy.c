/* test_sched_policy.c — the scheduling rules of vm/sched_policy.c, table by
 * table: given what a scheduler sees (its queues, a victim's ring, its own
 * history), which process it runs next, what a thief takes, when a sleeper
 * is woken, when a thief backs off. No threads: every rule is a function. */
#include <stdio.h>
#include <stdint.h>

#include "sched_policy.h"

static int failures, checks;

#define CHECK_EQ(got, want, ...) do { checks++; long long g_ = (long long)(got), w_ = (long long)(want); \
    if (g_ != w_) { failures++; fprintf(stderr, "FAIL line %d: got %lld want %lld: ", __LINE__, g_, w_); \
        fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

/* ---- what runs next ---- */
static void test_pick(void) {
    static const struct { const char *what; PickView v; PickFrom want; } rows[] = {
        { "nothing anywhere",                      { 0 }, PICK_NONE },
        { "max before high before everything",     { .global_max = 1, .global_high = 1, .runnext = 1, .chain_left = 100, .ring = 5 }, PICK_MAX },
        { "high before a runnext",                 { .global_high = 1, .runnext = 1, .chain_left = 100, .ring = 5 }, PICK_HIGH },
        { "runnext before the ring",               { .runnext = 1, .chain_left = 100, .ring = 5 }, PICK_RUNNEXT },
        { "a chain that used its slice is queued", { .runnext = 1, .chain_left = 0, .ring = 5 }, PICK_REQUEUE_RUNNEXT },
        { "chain overdrawn",                       { .runnext = 1, .chain_left = -40 }, PICK_REQUEUE_RUNNEXT },
        { "the ring",                              { .ring = 3 }, PICK_RING },
        { "the ring before handed-over work",      { .ring = 3, .global_normal = 1 }, PICK_RING },
        { "handed-over work when the ring is empty", { .global_normal = 1 }, PICK_GLOBAL },
        { "normal before low",                     { .ring = 2, .global_low = 1, .low_skips = 0 }, PICK_RING },
        { "global normal before low",              { .global_normal = 1, .global_low = 1 }, PICK_GLOBAL },
        { "low when nothing else",                 { .global_low = 1 }, PICK_LOW },
        { "low before its turn",                    { .ring = 2, .global_low = 1, .low_skips = POLICY_LOW_EVERY - 2 }, PICK_RING },
        { "low after 7 skips",                     { .ring = 2, .global_low = 1, .low_skips = POLICY_LOW_EVERY - 1 }, PICK_LOW },
        { "low's turn does not beat high",         { .global_high = 1, .global_low = 1, .low_skips = 50 }, PICK_HIGH },
        { "global's turn comes after 60 ring picks", { .ring = 2, .global_normal = 1, .global_skips = POLICY_GLOBAL_EVERY - 1 }, PICK_GLOBAL },
        { "global before its turn",                 { .ring = 2, .global_normal = 1, .global_skips = POLICY_GLOBAL_EVERY - 2 }, PICK_RING },
        { "global's turn does not beat a runnext", { .runnext = 1, .chain_left = 10, .global_normal = 1, .global_skips = 500 }, PICK_RUNNEXT },
        { "low's turn does not beat a runnext",    { .runnext = 1, .chain_left = 10, .global_low = 1, .low_skips = 50 }, PICK_RUNNEXT },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ(policy_pick(&rows[i].v), rows[i].want, "pick: %s", rows[i].what);
}

/* A low process waiting behind a ring that never empties still runs, once
 * every POLICY_LOW_EVERY picks; with nothing low waiting, the count stays. */
static void test_low_not_starved(void) {
    int skips = 0, lows = 0;
    for (int pick = 0; pick < 80; pick++) {
        PickView v = { .ring = 10, .global_low = 1, .low_skips = skips };
        PickFrom f = policy_pick(&v);
        if (f == PICK_LOW) { lows++; skips = 0; }
        else { CHECK_EQ(f, PICK_RING, "pick %d", pick); skips++; }
    }
    CHECK_EQ(lows, 80 / POLICY_LOW_EVERY, "low processes run once every %d picks", POLICY_LOW_EVERY);
}

/* Normal work handed to the global queue behind a ring that never empties
 * (busy processes that yield go back into it) still runs, once every
 * POLICY_GLOBAL_EVERY picks; low work waiting too keeps its own turn. */
static void test_global_not_starved(void) {
    int skips = 0, low_skips = 0, gap = 0, max_gap = 0, globals = 0, lows = 0;
    for (int pick = 0; pick < 1000; pick++) {
        PickView v = { .ring = 10, .global_normal = 1, .global_low = 1,
                       .global_skips = skips, .low_skips = low_skips };
        PickFrom f = policy_pick(&v);
        gap++;
        if (f == PICK_GLOBAL) { globals++; skips = 0; if (gap > max_gap) max_gap = gap; gap = 0; }
        else if (f == PICK_LOW) { lows++; low_skips = 0; }
        else { CHECK_EQ(f, PICK_RING, "pick %d", pick); skips++; low_skips++; }
    }
    /* the low turns taken meanwhile lengthen the wait a little, never more */
    int bound = POLICY_GLOBAL_EVERY + POLICY_GLOBAL_EVERY / (POLICY_LOW_EVERY - 1) + 1;
    CHECK_EQ(max_gap <= bound, 1, "handed-over work waited %d picks (bound %d)", max_gap, bound);
    CHECK_EQ(globals > 0 && lows > 0, 1, "both ran (%d global, %d low)", globals, lows);
}

/* ---- where a runnable process goes ---- */
static void test_place(void) {
    static const struct { const char *what; int prio; RunnableWhy why; int online; Place want; } rows[] = {
        { "woken normal: the waker's runnext", PRIO_NORMAL, WHY_WOKEN,   1, PLACE_RUNNEXT },
        { "spawned normal: the parent's ring", PRIO_NORMAL, WHY_SPAWNED, 1, PLACE_RING },
        { "preempted normal: the back of the ring", PRIO_NORMAL, WHY_YIELDED, 1, PLACE_RING },
        { "handed over: global",               PRIO_NORMAL, WHY_HANDED,  1, PLACE_GLOBAL },
        { "woken high: global",                PRIO_HIGH,   WHY_WOKEN,   1, PLACE_GLOBAL },
        { "spawned max: global",               PRIO_MAX,    WHY_SPAWNED, 1, PLACE_GLOBAL },
        { "woken low: global",                 PRIO_LOW,    WHY_WOKEN,   1, PLACE_GLOBAL },
        { "woken by the shell's reader",       PRIO_NORMAL, WHY_WOKEN,   0, PLACE_GLOBAL },
        { "spawned by an offline scheduler",   PRIO_NORMAL, WHY_SPAWNED, 0, PLACE_GLOBAL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ(policy_place(rows[i].prio, rows[i].why, rows[i].online), rows[i].want, "place: %s", rows[i].what);
}

/* ---- waking sleepers ---- */
static void test_wakes(void) {
    CHECK_EQ(policy_queue_wakes(0), 0, "empty ring");
    CHECK_EQ(policy_queue_wakes(1), 0, "one queued behind the running one: a displaced LED");
    CHECK_EQ(policy_queue_wakes(2), 1, "two queued: surplus");
    /* one ring: the LED and the preempted head are left behind for two picks,
     * then the ring empties: no wake-up */
    int streak = 0;
    uint32_t one_ring[] = { 2, 1, 0, 2, 1, 0, 1, 0 };
    for (size_t i = 0; i < sizeof one_ring / sizeof one_ring[0]; i++) {
        streak = policy_lone_streak(streak, one_ring[i]);
        CHECK_EQ(policy_streak_wakes(streak), 0, "one ring, pick %zu", i);
    }
    /* two rings on one scheduler: one process always left behind */
    streak = 0;
    int woke_at = -1;
    for (int i = 0; i < 6 && woke_at < 0; i++) {
        streak = policy_lone_streak(streak, 1);
        if (policy_streak_wakes(streak)) woke_at = i;
    }
    CHECK_EQ(woke_at, POLICY_LONE_STREAK - 1, "two rings wake a sleeper at the third pick");
    CHECK_EQ(policy_lone_streak(POLICY_LONE_STREAK, 5), POLICY_LONE_STREAK, "the streak saturates");
    CHECK_EQ(policy_lone_streak(POLICY_LONE_STREAK, 0), 0, "an empty ring ends it");
}

/* ---- a batch taken in from outside ---- */
static void test_batch_wakes(void) {
    CHECK_EQ(policy_batch_wakes(100, 0, 0), 0, "no pick yet: no pace to judge by");
    CHECK_EQ(policy_batch_wakes(110, 6, 20), 0,
             "110 completions left at 3 us a pick: drained here before a woken scheduler would start");
    CHECK_EQ(policy_batch_wakes(2, 1, 1500), 1,
             "items that compute for 1.5 ms each: two left keep a second scheduler busy");
    CHECK_EQ(policy_batch_wakes(1000, 10, 30), 1, "a thousand short items: worth a second core");
    CHECK_EQ(policy_batch_wakes(0, 10, 30000), 0, "nothing left: nobody to wake");
    uint32_t left = 2 * POLICY_STEAL_PAYOFF_US;       /* at 1 us a pick */
    CHECK_EQ(policy_batch_wakes(left, 100, 100), 1, "the woken one's half pays exactly");
    CHECK_EQ(policy_batch_wakes(left - 1, 100, 100), 0, "one short of paying");
}

/* ---- what a thief takes ---- */
static void test_steal_count(void) {
    static const struct { const char *what; VictimView v; uint32_t want; } rows[] = {
        { "empty ring",                         { .len = 0, .since_spawn_us = UINT64_MAX }, 0 },
        { "half of an even ring",               { .len = 8, .since_spawn_us = UINT64_MAX }, 4 },
        { "the larger half of an odd ring",     { .len = 7, .since_spawn_us = UINT64_MAX }, 4 },
        { "two: one each",                      { .len = 2, .since_spawn_us = UINT64_MAX }, 1 },
        { "a lone process is left alone",       { .len = 1, .lone_streak = 0, .since_spawn_us = UINT64_MAX }, 0 },
        { "a lone process, streak 2",           { .len = 1, .lone_streak = POLICY_LONE_STREAK - 1, .since_spawn_us = UINT64_MAX }, 0 },
        { "a lone process after the streak",    { .len = 1, .lone_streak = POLICY_LONE_STREAK, .since_spawn_us = UINT64_MAX }, 1 },
        { "fresh children of a busy spawner",   { .len = 100, .head_fresh = 1, .since_spawn_us = 0 }, 0 },
        { "fresh, spawner preempted 4 ms ago",  { .len = 100, .head_fresh = 1, .since_spawn_us = POLICY_SPAWN_GRACE_US - 1000 }, 0 },
        { "fresh, spawner quiet for 5 ms",      { .len = 100, .head_fresh = 1, .since_spawn_us = POLICY_SPAWN_GRACE_US }, 50 },
        { "fresh, spawner waits",               { .len = 100, .head_fresh = 1, .since_spawn_us = UINT64_MAX }, 50 },
        { "run-before head of a spawner",       { .len = 100, .head_fresh = 0, .since_spawn_us = 0 }, 50 },
        { "woken pair, none busy: one",         { .len = 2, .since_spawn_us = UINT64_MAX, .first_busy = POLICY_NO_BUSY }, 1 },
        { "[LED, busy holder]: both",           { .len = 2, .since_spawn_us = UINT64_MAX, .first_busy = 1 }, 2 },
        { "busy within the half: the half",     { .len = 8, .since_spawn_us = UINT64_MAX, .first_busy = 2 }, 4 },
        { "busy past the half: up to it",       { .len = 8, .since_spawn_us = UINT64_MAX, .first_busy = 6 }, 7 },
        { "busy last of 8: all",                { .len = 8, .since_spawn_us = UINT64_MAX, .first_busy = 7 }, 8 },
        { "a lone busy process waits its streak", { .len = 1, .since_spawn_us = UINT64_MAX, .first_busy = 0 }, 0 },
        { "fresh children: busy changes nothing", { .len = 100, .head_fresh = 1, .since_spawn_us = 0, .first_busy = 60 }, 0 },
        /* after steals that did not pay: each halves the take, down to one */
        { "40 woken, one failure: a quarter",   { .len = 40, .since_spawn_us = UINT64_MAX, .first_busy = POLICY_NO_BUSY, .thief_failures = 1 }, 10 },
        { "40 woken, three failures",           { .len = 40, .since_spawn_us = UINT64_MAX, .first_busy = POLICY_NO_BUSY, .thief_failures = 3 }, 2 },
        { "40 woken, many failures: one",       { .len = 40, .since_spawn_us = UINT64_MAX, .first_busy = POLICY_NO_BUSY, .thief_failures = 16 }, 1 },
        { "failures, busy at 5: up to it",      { .len = 40, .since_spawn_us = UINT64_MAX, .first_busy = 5, .thief_failures = 16 }, 6 },
        { "failures, [LED, busy holder]: both", { .len = 2, .since_spawn_us = UINT64_MAX, .first_busy = 1, .thief_failures = 4 }, 2 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ(policy_steal_count(&rows[i].v), rows[i].want, "steal: %s", rows[i].what);
}

/* Only a process that used most of a slice is queued BUSY: one cut off by
 * the end of its runnext chain's slice is not. */
static void test_yield_busy(void) {
    CHECK_EQ(policy_yield_busy(4000, 4000), 1, "a whole slice used: busy");
    CHECK_EQ(policy_yield_busy(2000, 4000), 1, "half a slice: busy");
    CHECK_EQ(policy_yield_busy(1999, 4000), 0, "less than half: not busy");
    CHECK_EQ(policy_yield_busy(3, 4000), 0, "a relay on the chain's last reductions: not busy");
    CHECK_EQ(policy_yield_busy(0, 4000), 0, "nothing used: not busy");
}

/* A runnext moves only when the thief has seen the same process there, on
 * the same victim, for longer than the grace period. */
static void test_runnext(void) {
    int v1 = 0, v2 = 0, p1 = 0, p2 = 0;   /* only their addresses matter */
    LoneWatch w = { 0 };
    CHECK_EQ(policy_runnext_ready(&w, &v1, &p1, 1000), 0, "first sight");
    CHECK_EQ(policy_runnext_ready(&w, &v1, &p1, 1000 + POLICY_RUNNEXT_GRACE_US), 0, "just the grace");
    CHECK_EQ(policy_runnext_ready(&w, &v1, &p1, 1001 + POLICY_RUNNEXT_GRACE_US), 1, "stuck past the grace");
    /* a token passing round: a different process each look is never taken */
    LoneWatch t = { 0 };
    int ps[4];
    for (int i = 0; i < 40; i++)
        CHECK_EQ(policy_runnext_ready(&t, &v1, &ps[i % 4], (uint64_t)i * 1000), 0, "token look %d", i);
    /* the same process seen on another victim starts the clock again */
    LoneWatch u = { 0 };
    policy_runnext_ready(&u, &v1, &p2, 0);
    CHECK_EQ(policy_runnext_ready(&u, &v2, &p2, 5000), 0, "moved victim");
    CHECK_EQ(policy_runnext_ready(&u, &v2, &p2, 5000 + POLICY_RUNNEXT_GRACE_US + 1), 1, "then stuck there");
}

/* ---- a thief's back-off ---- */
static void test_backoff(void) {
    StealBackoff b = { 0 };
    CHECK_EQ(policy_may_steal(&b, 0), 1, "a new thief steals");
    /* steals that keep the thief busy 50 us each (a coupled crowd): the wait
     * doubles from the minimum to the maximum */
    uint64_t now = 10000, want = POLICY_BACKOFF_MIN_US;
    for (int i = 0; i < 12; i++) {
        policy_steal_outcome(&b, 50, now);
        CHECK_EQ(b.not_before - now, want, "failure %d", i + 1);
        CHECK_EQ(policy_may_steal(&b, now + want - 1), 0, "waiting, failure %d", i + 1);
        CHECK_EQ(policy_may_steal(&b, now + want), 1, "may try again, failure %d", i + 1);
        now += want;
        if (want < POLICY_BACKOFF_MAX_US) want *= 2;
        if (want > POLICY_BACKOFF_MAX_US) want = POLICY_BACKOFF_MAX_US;
    }
    /* one steal that pays resets it */
    policy_steal_outcome(&b, POLICY_STEAL_PAYOFF_US, now);
    CHECK_EQ(b.failures, 0, "reset");
    CHECK_EQ(policy_may_steal(&b, now), 1, "steals at once after a good steal");
    policy_steal_outcome(&b, POLICY_STEAL_PAYOFF_US - 1, now);
    CHECK_EQ(b.not_before - now, POLICY_BACKOFF_MIN_US, "one short steal: the minimum wait");
}

/* ---- spinning: only while a core is free ---- */
static void test_spin_worth(void) {
    /* two cores: +S 2 with one other scheduler at work leaves one core */
    CHECK_EQ(policy_spin_worth(0, 2), 1, "nothing else runs");
    CHECK_EQ(policy_spin_worth(1, 2), 1, "one other scheduler works, a core is free");
    /* +S 2 +A 2 with both async threads scanning: the spinner would take a
     * core from one of them */
    CHECK_EQ(policy_spin_worth(2, 2), 0, "two async threads at work");
    /* +S 4 on two cores, two other schedulers at work */
    CHECK_EQ(policy_spin_worth(3, 2), 0, "three schedulers at work");
    CHECK_EQ(policy_spin_worth(3, 4), 1, "four cores, three busy");
    /* one core: a second scheduler never spins while the first works */
    CHECK_EQ(policy_spin_worth(1, 1), 0, "one core, taken");
    CHECK_EQ(policy_spin_worth(0, 1), 1, "one core, free");
}

/* ---- how long a finished async job may wait for its wake-up ---- */
static void test_external_lag(void) {
    CHECK_EQ(policy_external_lag_us(0), POLICY_EXTERNAL_LAG_US, "no queueing: the minimum");
    CHECK_EQ(policy_external_lag_us(4000), POLICY_EXTERNAL_LAG_US, "a short queue: still the minimum");
    CHECK_EQ(policy_external_lag_us(40000), 10000, "40 ms queued: a quarter of it");
    CHECK_EQ(policy_external_lag_us(80000), POLICY_EXTERNAL_LAG_MAX_US, "80 ms queued: the cap");
    CHECK_EQ(policy_external_lag_us(UINT64_MAX / 2), POLICY_EXTERNAL_LAG_MAX_US, "never past the cap");
    /* never shorter for a job that queued longer */
    uint64_t last = 0;
    int monotone = 1;
    for (uint64_t q = 0; q < 200000; q += 997) {
        uint64_t l = policy_external_lag_us(q);
        if (l < last) monotone = 0;
        last = l;
    }
    CHECK_EQ(monotone, 1, "grows with the queueing");
}

/* A spawner that stopped: its queue is shared out in equal contiguous
 * shares, one per sleeper and one kept; a share under two is not worth a
 * wake-up, and with no sleeper nothing moves. */
static void test_burst_share(void) {
    static const struct { const char *what; uint32_t queued; int sleepers; uint32_t want; } rows[] = {
        { "nobody asleep",                    160, 0, 0 },
        { "one sleeper: half",                160, 1, 80 },
        { "three sleepers: a quarter each",   160, 3, 40 },
        { "an odd queue: the smaller half",   161, 1, 80 },
        { "four queued, one sleeper",         4, 1, 2 },
        { "three queued: a share of one",     3, 1, 0 },
        { "seven queued, two sleepers",       7, 2, 2 },
        { "more sleepers than work",          5, 4, 0 },
        { "nothing queued",                   0, 2, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ(policy_burst_share(rows[i].queued, rows[i].sleepers), rows[i].want, "burst: %s", rows[i].what);
}

int main(void) {
    test_external_lag();
    test_spin_worth();
    test_pick();
    test_low_not_starved();
    test_global_not_starved();
    test_place();
    test_wakes();
    test_batch_wakes();
    test_steal_count();
    test_yield_busy();
    test_runnext();
    test_backoff();
    test_burst_share();
    if (failures) { fprintf(stderr, "%d of %d checks failed\n", failures, checks); return 1; }
    printf("sched_policy: %d checks passed\n", checks);
    return 0;
}
