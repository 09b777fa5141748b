/* heap_block.h — the memory of process heaps: young blocks and old heaps.
 *
 * Every young block and old heap is taken with heap_block_alloc and given
 * back with heap_block_free, with the same word count: the size decides
 * where a block comes from (heap_block.c says how and why), so both ends
 * must agree on it. Threads that allocate blocks must call
 * heap_block_release_idle from time to time when idle (the scheduler does,
 * before it sleeps), or the biggest freed blocks stay mapped.
 */
#ifndef MINI_HEAP_BLOCK_H
#define MINI_HEAP_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "term.h"

/* Blocks this big and over are mappings of our own (heap_block.c); heap.c
 * sets malloc's own mapping threshold to the same size. */
#define HEAP_BLOCK_BIG_BYTES ((size_t)32 << 20)

/* No block is bigger than this (1 TiB): more than any machine has, and
 * absurd requests fail here instead of in malloc (which sanitizers treat as
 * an error rather than returning NULL). */
#define HEAP_BLOCK_MAX_WORDS ((size_t)1 << 37)

void heap_block_init(void);                /* once, before any thread allocates */
Term *heap_block_alloc(size_t words);      /* NULL when there is no memory */
void heap_block_free(Term *mem, size_t words);

/* Gives back the big blocks this thread has kept unused for a while;
 * returns the microseconds until the next one it still keeps may go (a
 * sleeping thread wakes by then to give it back), or -1 if it keeps none. */
int64_t heap_block_release_idle(void);

/* Gives back every block this thread keeps (after a death for memory). */
void heap_block_release_all(void);

/* The bytes of the big blocks this thread keeps (tests/unit/test_heap_block.c) */
size_t heap_block_kept_bytes(void);

#endif
