/* smp.h — what code shared between scheduler threads needs beyond C11's
 * <stdatomic.h>, in one place and portable.
 *
 * cpu_relax(): the hint for one turn of a spin-wait loop. It lets the other
 * hardware thread of the core run and keeps the loop from flooding the
 * memory system: `pause` on x86, `yield` on AArch64, nothing elsewhere (the
 * loop is still correct, only less polite).
 *
 * The publish/read pairs are for plain words (not _Atomic) that one thread
 * fills in once and others read without a lock: the writer stores every
 * field first and the pointer (or the word that says "ready") last with
 * smp_store_release; a reader loads that word with smp_load_acquire and then
 * sees every field written before it. A relaxed load of such a word is a
 * bug: the reader may see the word and stale fields. smp_load_relaxed and
 * smp_store_relaxed are for words that publish nothing (hints, counters read
 * for statistics, fields already covered by an acquire).
 */
#ifndef MINI_SMP_H
#define MINI_SMP_H

#include <stdatomic.h>

/* The unit the caches share data in on the machines Mini runs on (x86-64
 * and AArch64 cores): data written by different threads is kept this far
 * apart, so that a write by one does not steal the line from another. */
#define CACHE_LINE 64

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define smp_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#endif
