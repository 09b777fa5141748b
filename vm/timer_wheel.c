/* timer_wheel.c — the hierarchical timing wheel of timer_wheel.h.
 *
 * Invariants, with T(ms) = ms >> TW_BITS0 the turn of a millisecond:
 *  - a level-0 entry is due in [now_ms, now_ms + TW_SLOTS0) (or earlier:
 *    one added late sits in now_ms's slot), so each slot holds at most one
 *    millisecond's entries and the first non-empty slot from now_ms on
 *    holds the earliest;
 *  - a level-1 entry's turn is in (T(now_ms), T(now_ms) + TW_SLOTS1): its
 *    slot cannot alias another turn's before it moves down, which happens
 *    when now_ms enters that turn;
 *  - a far entry's turn is T(now_ms) + TW_SLOTS1 or later; the far list is
 *    looked through whenever now_ms enters a turn that is a multiple of
 *    TW_SLOTS1, so an entry reaches level 1 at least a turn before it is due.
 */
#include "timer_wheel.h"

#define WHERE_FAR 0xffffffffu
#define WHERE_L1 0x80000000u

static uint64_t turn_of(uint64_t ms) { return ms >> TW_BITS0; }

static void list_append(TwList *l, TwEntry *e) {
    e->next = NULL;
    e->prev = l->tail;
    if (l->tail) l->tail->next = e;
    else l->head = e;
    l->tail = e;
}

static void list_unlink(TwList *l, TwEntry *e) {
    if (e->prev) e->prev->next = e->next;
    else l->head = e->next;
    if (e->next) e->next->prev = e->prev;
    else l->tail = e->prev;
}

/* After the last entry due no later than e: equal times keep arming order. */
static void list_insert_sorted(TwList *l, TwEntry *e) {
    TwEntry *after = l->tail;
    while (after && after->due_us > e->due_us) after = after->prev;
    e->prev = after;
    e->next = after ? after->next : l->head;
    if (e->next) e->next->prev = e;
    else l->tail = e;
    if (after) after->next = e;
    else l->head = e;
}

void tw_init(TimerWheel *w, uint64_t now_us) {
    *w = (TimerWheel){0};
    w->now_ms = now_us / 1000;
}

static void place(TimerWheel *w, TwEntry *e) {
    uint64_t ms = e->due_us / 1000;
    if (ms < w->now_ms) ms = w->now_ms;
    if (ms - w->now_ms < TW_SLOTS0) {
        uint32_t s = (uint32_t)(ms % TW_SLOTS0);
        e->where = s;
        list_insert_sorted(&w->l0[s], e);
        w->bits0[s / 64] |= 1ull << (s % 64);
        w->n0++;
    } else if (turn_of(ms) - turn_of(w->now_ms) < TW_SLOTS1) {
        uint32_t s = (uint32_t)(turn_of(ms) % TW_SLOTS1);
        e->where = WHERE_L1 | s;
        list_append(&w->l1[s], e);
        w->bits1[s / 64] |= 1ull << (s % 64);
    } else {
        e->where = WHERE_FAR;
        list_append(&w->far, e);
    }
}

void tw_add(TimerWheel *w, TwEntry *e, uint64_t due_us) {
    e->due_us = due_us;
    place(w, e);
    w->count++;
}

void tw_remove(TimerWheel *w, TwEntry *e) {
    if (e->where == WHERE_FAR) {
        list_unlink(&w->far, e);
    } else if (e->where & WHERE_L1) {
        uint32_t s = e->where & ~WHERE_L1;
        list_unlink(&w->l1[s], e);
        if (!w->l1[s].head) w->bits1[s / 64] &= ~(1ull << (s % 64));
    } else {
        uint32_t s = e->where;
        list_unlink(&w->l0[s], e);
        if (!w->l0[s].head) w->bits0[s / 64] &= ~(1ull << (s % 64));
        w->n0--;
    }
    e->prev = e->next = NULL;
    w->count--;
}

/* now_ms has just entered a new turn: bring down what is due in it. */
static void enter_turn(TimerWheel *w) {
    uint64_t t = turn_of(w->now_ms);
    if (t % TW_SLOTS1 == 0 && w->far.head) {
        TwList far = w->far;
        w->far = (TwList){0};
        for (TwEntry *e = far.head, *next; e; e = next) { next = e->next; place(w, e); }
    }
    uint32_t s = (uint32_t)(t % TW_SLOTS1);
    TwList l = w->l1[s];
    if (!l.head) return;
    w->l1[s] = (TwList){0};
    w->bits1[s / 64] &= ~(1ull << (s % 64));
    for (TwEntry *e = l.head, *next; e; e = next) { next = e->next; place(w, e); }
}

/* The first non-empty level-0 slot at or after slot `from` and before
 * `end` (end <= TW_SLOTS0), or end. */
static uint32_t scan0(const TimerWheel *w, uint32_t from, uint32_t end) {
    while (from < end) {
        uint64_t word = w->bits0[from / 64] >> (from % 64);
        if (word) {
            uint32_t s = from + (uint32_t)__builtin_ctzll(word);
            return s < end ? s : end;
        }
        from = (from / 64 + 1) * 64;
    }
    return end;
}

TwEntry *tw_take_due(TimerWheel *w, uint64_t now_us) {
    uint64_t target = now_us / 1000;
    TwList due = {0};
    if (w->count == 0) {
        if (target > w->now_ms) w->now_ms = target;
        return NULL;
    }
    while (w->now_ms <= target) {
        uint32_t s = (uint32_t)(w->now_ms % TW_SLOTS0);
        TwList *slot = &w->l0[s];
        while (slot->head && slot->head->due_us <= now_us) {
            TwEntry *e = slot->head;
            list_unlink(slot, e);
            w->n0--;
            w->count--;
            list_append(&due, e);
        }
        if (!slot->head) w->bits0[s / 64] &= ~(1ull << (s % 64));
        if (w->now_ms == target) break;      /* the current ms may still get entries */
        /* on to the next non-empty slot of this turn, the turn's end, or target */
        uint64_t turn_end = (turn_of(w->now_ms) + 1) << TW_BITS0;
        uint64_t limit = target + 1 < turn_end ? target + 1 : turn_end;
        uint32_t from = s + 1;
        uint32_t end = (uint32_t)(from + (limit - w->now_ms - 1));
        uint32_t next = w->n0 ? scan0(w, from, end) : end;
        if (next == end && limit == target + 1) { w->now_ms = target; break; }
        w->now_ms += next - s;
        if (w->now_ms == turn_end) enter_turn(w);
        if (w->count == 0) { if (target > w->now_ms) w->now_ms = target; break; }
    }
    return due.head;
}

uint64_t tw_next_due(const TimerWheel *w) {
    if (w->count == 0) return UINT64_MAX;
    uint64_t best = UINT64_MAX;
    if (w->n0) {
        uint32_t s = (uint32_t)(w->now_ms % TW_SLOTS0);
        uint32_t found = scan0(w, s, TW_SLOTS0);
        if (found == TW_SLOTS0) found = scan0(w, 0, s);
        best = w->l0[found].head->due_us;
        if (w->count == w->n0) return best;
    }
    /* entries above level 0 may be due before those in it (a level-1 slot
     * of the next turn, say): wake when the next turn that brings some
     * down begins (a level-1 slot's, or the far list's next look) */
    uint64_t t = turn_of(w->now_ms), turn = UINT64_MAX;
    for (uint64_t k = 1; k < TW_SLOTS1; k++) {
        uint32_t s = (uint32_t)((t + k) % TW_SLOTS1);
        if (w->bits1[s / 64] == 0) { k += 63 - s % 64; continue; }
        if (w->bits1[s / 64] & (1ull << (s % 64))) { turn = t + k; break; }
    }
    if (w->far.head) {
        uint64_t far_turn = (t / TW_SLOTS1 + 1) * TW_SLOTS1;
        if (far_turn < turn) turn = far_turn;
    }
    if (turn != UINT64_MAX && (turn << TW_BITS0) * 1000 < best) best = (turn << TW_BITS0) * 1000;
    return best;
}
