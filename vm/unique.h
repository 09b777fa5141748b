/* unique.h — unique numbers without a shared counter: references and
 * erlang:unique_integer/0,1.
 *
 * A number is (sequence << UNIQUE_TAG_BITS) | tag, where tag is the thread's
 * (a scheduler's id + 1; 0 for every other thread, which share one atomic
 * sequence) and sequence counts up in that thread alone. So numbers never
 * repeat, making one touches no cache line another scheduler writes, and a
 * reference tells which scheduler made it (timer.c finds a timer's owner
 * that way).
 */
#ifndef MINI_UNIQUE_H
#define MINI_UNIQUE_H

#include <stdint.h>

#define UNIQUE_TAG_BITS 7            /* tags 0..127: 64 schedulers fit */

void unique_thread_start(int tag);
uint64_t unique_next(void);          /* never 0 */
static inline int unique_tag(uint64_t n) { return (int)(n & ((1u << UNIQUE_TAG_BITS) - 1)); }
/* Strictly increasing across the whole VM: one shared counter, as a total
 * order across threads needs (erlang:unique_integer([monotonic])). */
uint64_t unique_monotonic(void);

#endif
