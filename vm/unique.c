/* unique.c — unique numbers without a shared counter (see unique.h). */
#include <stdatomic.h>

#include "unique.h"
#include "smp.h"

static __thread int tag;                 /* 0 until unique_thread_start */
static __thread uint64_t seq;            /* this thread's last sequence */
static _Atomic uint64_t shared_seq;      /* tag 0's: threads outside the schedulers */
static _Alignas(CACHE_LINE) _Atomic uint64_t monotonic_counter;

void unique_thread_start(int t) { tag = t; }

uint64_t unique_next(void) {
    uint64_t s = tag ? ++seq : atomic_fetch_add_explicit(&shared_seq, 1, memory_order_relaxed) + 1;
    return (s << UNIQUE_TAG_BITS) | (uint64_t)tag;
}

uint64_t unique_monotonic(void) {
    return atomic_fetch_add_explicit(&monotonic_counter, 1, memory_order_relaxed) + 1;
}
