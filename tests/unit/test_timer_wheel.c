/* test_timer_wheel.c — the timing wheel (vm/timer_wheel.c) as a data
 * structure: fire order (due time, then arming order), timers beyond one
 * turn and beyond level 1, removal before and after firing, the next due
 * time, long jumps of the clock; then a random run checked against a
 * brute-force model (every entry fires exactly once, never early, at the
 * first take at or after its due time, in order). */
#include <stdio.h>
#include <stdlib.h>

#include "timer_wheel.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

typedef struct { TwEntry e; int id; int in; } Item;

static TimerWheel w;

/* takes at now_us and writes the ids fired into out; returns how many */
static int take(uint64_t now_us, int *out, int max) {
    int n = 0;
    for (TwEntry *e = tw_take_due(&w, now_us), *next; e; e = next) {
        next = e->next;
        Item *it = (Item *)e;
        it->in = 0;
        if (n < max) out[n] = it->id;
        n++;
    }
    return n;
}

static void test_order(void) {
    Item it[6];
    tw_init(&w, 5000000);
    for (int i = 0; i < 6; i++) it[i] = (Item){ .id = i, .in = 1 };
    tw_add(&w, &it[0].e, 5003500);
    tw_add(&w, &it[1].e, 5001200);
    tw_add(&w, &it[2].e, 5003500);          /* same time as 0: after it */
    tw_add(&w, &it[3].e, 5003100);          /* same ms as 0 and 2, earlier */
    tw_add(&w, &it[4].e, 5000000);          /* due now */
    tw_add(&w, &it[5].e, 4000000);          /* in the past */
    CHECK(tw_next_due(&w) == 4000000, "next due %llu", (unsigned long long)tw_next_due(&w));
    int out[8];
    int n = take(5000000, out, 8);
    CHECK(n == 2 && out[0] == 5 && out[1] == 4, "due now: n=%d", n);
    CHECK(tw_next_due(&w) == 5001200, "next due after first take");
    n = take(5001199, out, 8);
    CHECK(n == 0, "never early: n=%d", n);
    n = take(5003499, out, 8);
    CHECK(n == 2 && out[0] == 1 && out[1] == 3, "partial slot: n=%d", n);
    n = take(5003500, out, 8);
    CHECK(n == 2 && out[0] == 0 && out[1] == 2, "equal times in arming order: n=%d", n);
    CHECK(w.count == 0 && tw_next_due(&w) == UINT64_MAX, "empty");
}

static void test_far(void) {
    /* one turn is TW_SLOTS0 ms, level 1 TW_SLOTS1 turns */
    uint64_t turn_us = (uint64_t)TW_SLOTS0 * 1000;
    uint64_t t0 = 123456789;
    tw_init(&w, t0);
    Item a = { .id = 1, .in = 1 }, b = { .id = 2, .in = 1 }, c = { .id = 3, .in = 1 }, d = { .id = 4, .in = 1 };
    tw_add(&w, &a.e, t0 + 3 * turn_us + 17);                  /* level 1 */
    tw_add(&w, &b.e, t0 + (TW_SLOTS1 + 5) * turn_us + 3);     /* far */
    tw_add(&w, &c.e, t0 + (3 * TW_SLOTS1 + 2) * turn_us);     /* farther */
    tw_add(&w, &d.e, t0 + 2 * turn_us);                       /* removed before firing */
    int out[4];
    /* walking the clock in coarse steps: nothing fires early */
    uint64_t now = t0;
    int fired[5] = {0};
    uint64_t when[5] = {0};
    tw_remove(&w, &d.e);
    while (w.count) {
        uint64_t next = tw_next_due(&w);
        CHECK(next > now - 1000, "next due %llu behind now %llu", (unsigned long long)next, (unsigned long long)now);
        now = next > now ? next : now + 1;
        int n = take(now, out, 4);
        for (int i = 0; i < n; i++) { fired[out[i]]++; when[out[i]] = now; }
    }
    CHECK(fired[1] == 1 && when[1] == a.e.due_us, "level-1 fired at %llu", (unsigned long long)when[1]);
    CHECK(fired[2] == 1 && when[2] == b.e.due_us, "far fired at %llu", (unsigned long long)when[2]);
    CHECK(fired[3] == 1 && when[3] == c.e.due_us, "farther fired at %llu", (unsigned long long)when[3]);
    CHECK(fired[4] == 0, "removed entry fired");
    /* one big jump of the clock fires everything due, in order */
    tw_init(&w, 0);
    Item m[3] = { { .id = 0 }, { .id = 1 }, { .id = 2 } };
    tw_add(&w, &m[2].e, (TW_SLOTS1 + 9) * turn_us);
    tw_add(&w, &m[1].e, 7 * turn_us + 5);
    tw_add(&w, &m[0].e, 999);
    int n = take(10 * (uint64_t)TW_SLOTS1 * turn_us, out, 4);
    CHECK(n == 3 && out[0] == 0 && out[1] == 1 && out[2] == 2, "jump: n=%d", n);
}

/* ---- random run against a model ---- */

#define NITEMS 3000
static Item items[NITEMS];
static uint64_t due_of[NITEMS];

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rnd_state ^= rnd_state << 13; rnd_state ^= rnd_state >> 7; rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void test_random(void) {
    uint64_t now = 7777777;
    tw_init(&w, now);
    long fired = 0, removed = 0, added = 0;
    for (int step = 0; step < 200000; step++) {
        int i = (int)(rnd() % NITEMS);
        Item *it = &items[i];
        uint64_t r = rnd() % 100;
        if (r < 45 && !it->in) {
            /* mostly short delays, some beyond a turn, a few beyond level 1 */
            uint64_t k = rnd() % 100, d;
            if (k < 70) d = rnd() % 5000;
            else if (k < 95) d = rnd() % (20ull * TW_SLOTS0 * 1000);
            else d = rnd() % (3ull * TW_SLOTS1 * TW_SLOTS0 * 1000);
            it->id = i;
            it->in = 1;
            due_of[i] = now + d;
            tw_add(&w, &it->e, now + d);
            added++;
        } else if (r < 75 && it->in) {
            tw_remove(&w, &it->e);
            it->in = 0;
            removed++;
        } else if (r < 80) {
            /* the clock moves: small steps mostly, sometimes far */
            uint64_t k = rnd() % 100;
            uint64_t before = now;
            if (k < 80) now += rnd() % 300;
            else if (k < 98) now += rnd() % 5000000;
            else now += rnd() % (2ull * TW_SLOTS1 * TW_SLOTS0 * 1000);
            /* what the model says is due */
            int expect = 0;
            for (int j = 0; j < NITEMS; j++) if (items[j].in && due_of[j] <= now) expect++;
            uint64_t last_due = 0;
            int n = 0;
            for (TwEntry *e = tw_take_due(&w, now), *next; e; e = next) {
                next = e->next;
                Item *x = (Item *)e;
                CHECK(x->in, "fired twice or after removal: %d", x->id);
                CHECK(due_of[x->id] <= now, "early: due %llu now %llu", (unsigned long long)due_of[x->id], (unsigned long long)now);
                CHECK(due_of[x->id] >= last_due, "out of order");
                last_due = due_of[x->id];
                x->in = 0;
                n++;
            }
            CHECK(n == expect, "take at %llu (from %llu): %d fired, model %d", (unsigned long long)now, (unsigned long long)before, n, expect);
            fired += n;
            /* next due: no entry is due before it */
            uint64_t next = tw_next_due(&w);
            for (int j = 0; j < NITEMS; j++)
                if (items[j].in) CHECK(due_of[j] >= next || due_of[j] <= now, "next due %llu after entry due %llu", (unsigned long long)next, (unsigned long long)due_of[j]);
        }
        if (failures > 20) break;
    }
    size_t in = 0;
    for (int j = 0; j < NITEMS; j++) in += items[j].in;
    CHECK(in == w.count, "count %zu, model %zu", w.count, in);
    printf("random: %ld added, %ld removed, %ld fired\n", added, removed, fired);
}

int main(void) {
    test_order();
    test_far();
    test_random();
    if (failures) { printf("test_timer_wheel: %d failures\n", failures); return 1; }
    printf("test_timer_wheel: ok\n");
    return 0;
}
