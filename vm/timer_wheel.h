/* timer_wheel.h — a hierarchical timing wheel: the data structure alone.
 *
 * One thread uses a wheel at a time (timer.c gives each scheduler its own,
 * and says who may touch which); nothing here locks or allocates. An entry
 * is embedded in the caller's record and is due at a time in microseconds.
 *
 *   level 0: TW_SLOTS0 slots of one millisecond, for entries due within one
 *            turn (~1 s): slot = due_ms % TW_SLOTS0, each slot kept sorted
 *            by due time (arming order among equal times), so the entries
 *            of a slot fire in order and the first one is its earliest;
 *   level 1: TW_SLOTS1 slots of one turn each (~4.4 min), unsorted; the slot
 *            of a turn moves into level 0 as the wheel enters that turn;
 *   far:     beyond that, one list, looked through once per TW_SLOTS1 turns.
 *
 * So adding and removing are O(1) (plus the sorted insert, O(1) when
 * entries arrive in due order, as timers of one length do), every entry
 * moves down at most twice, and the next due time is found with a bitmap
 * scan of level 0 (16 words) rather than a walk over the entries.
 */
#ifndef MINI_TIMER_WHEEL_H
#define MINI_TIMER_WHEEL_H

#include <stddef.h>
#include <stdint.h>

#define TW_BITS0 10
#define TW_SLOTS0 (1u << TW_BITS0)       /* ms per turn */
#define TW_SLOTS1 256u                   /* turns in level 1 */

typedef struct TwEntry {
    struct TwEntry *prev, *next;
    uint64_t due_us;
    uint32_t where;                      /* level and slot (timer_wheel.c) */
} TwEntry;

typedef struct { TwEntry *head, *tail; } TwList;

typedef struct TimerWheel {
    uint64_t now_ms;                     /* everything due before this ms was taken */
    size_t count;                        /* entries in the wheel */
    size_t n0;                           /* of which in level 0 */
    TwList l0[TW_SLOTS0];
    uint64_t bits0[TW_SLOTS0 / 64];      /* non-empty level-0 slots */
    TwList l1[TW_SLOTS1];
    uint64_t bits1[TW_SLOTS1 / 64];
    TwList far;
} TimerWheel;

void tw_init(TimerWheel *w, uint64_t now_us);
/* Adds e, due at due_us (a time already past fires at the next take). */
void tw_add(TimerWheel *w, TwEntry *e, uint64_t due_us);
/* Removes e, which is in w. */
void tw_remove(TimerWheel *w, TwEntry *e);
/* Takes every entry due at or before now_us out of w: a list linked by
 * `next`, in due order (arming order among equal times). */
TwEntry *tw_take_due(TimerWheel *w, uint64_t now_us);
/* When w next needs a take: the earliest due time in level 0, or the start
 * of the turn whose entries move down next if sooner; UINT64_MAX when
 * empty. No entry is due before it. */
uint64_t tw_next_due(const TimerWheel *w);

#endif
