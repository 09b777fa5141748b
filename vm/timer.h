/* timer.h — timers: receive ... after, erlang:send_after/3, start_timer/3.
 *
 * A hashed timing wheel of one-millisecond slots. Adding and cancelling are
 * O(1); the schedulers call timer_fire_due() between time slices, and an
 * idle scheduler sleeps until timer_next_due(). One mutex guards the wheel:
 * timers are set far less often than messages are sent.
 */
#ifndef MINI_TIMER_H
#define MINI_TIMER_H

#include <stdint.h>
#include "term.h"
#include "mailbox.h"

void timer_init(void);
uint64_t timer_now_us(void);          /* monotonic microseconds since start */

/* After ms milliseconds: end the receive `ref` of pid (SIG_TIMEOUT). */
void timer_add_timeout(uint64_t ms, Term pid, uint64_t ref);
/* After ms milliseconds: deliver message m to dest (a pid, or a registered
 * name resolved then). The timer is known by ref for timer_cancel. */
void timer_add_message(uint64_t ms, Term dest, Message *m, uint64_t ref);
/* Cancels timer ref: returns the milliseconds that were left, or -1 if it
 * already fired or never existed. */
int64_t timer_cancel(uint64_t ref);
/* Milliseconds left on timer ref, or -1. */
int64_t timer_read(uint64_t ref);

/* Fires every timer that is due. Returns how many fired. */
int timer_fire_due(void);
/* Microseconds until the next timer is due (0 if one is due now), or -1
 * if there are no timers. */
int64_t timer_next_due(void);
int timer_pending(void);

#endif
