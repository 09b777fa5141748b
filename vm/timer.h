/* timer.h — timers: receive ... after, erlang:send_after/3, start_timer/3.
 *
 * Each scheduler owns a set of timers (timer.c): a timer belongs to the
 * scheduler that armed it, which fires it between time slices and sleeps,
 * when idle, until its own next due timer. Receive timeouts are touched by
 * their owner only (no lock, no atomic); message timers, which any process
 * may cancel or read by reference, take their set's lock, which only the
 * rare cross-scheduler cancel contends.
 */
#ifndef MINI_TIMER_H
#define MINI_TIMER_H

#include <stdint.h>
#include "term.h"
#include "mailbox.h"

struct Timer;

void timer_init(void);
uint64_t timer_now_us(void);          /* monotonic microseconds since start */
/* The calling thread is scheduler `id` (0-based) from now on: it gets its
 * timer set and its tag in references (unique.h). */
void timer_sched_start(int id);

/* After ms milliseconds: end the receive `ref` of pid (SIG_TIMEOUT). The
 * handle is for timer_cancel_timeout. */
struct Timer *timer_add_timeout(uint64_t ms, Term pid, uint64_t ref);
/* The receive `ref` got its message: drop its timer. Free when this
 * scheduler armed it; otherwise (the process moved) the timer is left to
 * fire, and its SIG_TIMEOUT is ignored (its ref no longer matches). */
void timer_cancel_timeout(struct Timer *t, uint64_t ref);

/* After ms milliseconds: deliver message m to dest (a pid, or a registered
 * name resolved then). The timer is known by ref, which must come from
 * proc_new_ref on this thread (it names the owning set). */
void timer_add_message(uint64_t ms, Term dest, Message *m, uint64_t ref);
/* Cancels timer ref: returns the milliseconds that were left, or -1 if it
 * already fired or never existed. */
int64_t timer_cancel(uint64_t ref);
/* Milliseconds left on timer ref, or -1. */
int64_t timer_read(uint64_t ref);

/* The calling scheduler's own timers: */
/* Fires every timer of this scheduler that is due. Returns how many. */
int timer_fire_due(void);
/* Microseconds until this scheduler must next fire timers (0 if now), or
 * -1 if it has none. */
int64_t timer_next_due(void);
int timer_pending(void);
/* How long an idle scheduler may sleep (us): until a little before its next
 * timer, since a sleep ends late; -1 if it has none. */
int64_t timer_sleep_limit(void);
/* If this scheduler's next timer is due within that margin, waits for it
 * polling the clock and returns 1; else returns 0 at once. */
int timer_poll_near(void);
/* Does any scheduler hold a timer? (the deadlock check) */
int timer_any_pending(void);

#endif
