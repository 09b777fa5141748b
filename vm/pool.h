/* pool.h — the block pool: the memory of every message and heap fragment,
 * of any size, and of binary buffers up to 64 KiB (binary.c), made on one
 * thread and freed on any other without a lock, a call to malloc or a
 * fresh page in the steady state.
 *
 * A block is a HeapFrag (process.h): the 32-byte record, then its words.
 * Sizes come in classes: 32 bytes (a bare record, a message whose term is an
 * immediate), then 48, 64, 80, 96 and 128 bytes, then four classes per
 * doubling (160, 192, 224, 256, 320, ...) up to POOL_MAX_BYTES; a block's
 * `size` is its class's words, so the class is known again when it is
 * freed. Larger blocks are mapped and unmapped one by one.
 *
 * Each thread keeps a free list per class (the threads that send are
 * long-lived: the schedulers and the shell's reader); a thread whose list
 * holds more than it may keep (512 KiB, at least two batches; pool.c says
 * why so much) gives one batch to its own stack for the class, and a thread
 * whose list is empty takes one from its own stack, else from another
 * thread's, else carves a fresh slab. The stacks are lock-free (pool.c says
 * how). Slabs live
 * in the message arena, one range of reserved address space, in chunks of
 * POOL_CHUNK_BYTES; a table beside it gives each chunk's slab and block
 * size, so the collector finds the block an address lies in with one lookup
 * and one division (pool_arena_frag). Slabs are never given back, nor given to another
 * class: like Erlang's carriers, the memory stays for the next flood, so a
 * program keeps, per class, the most it ever had in flight at once.
 */
#ifndef MINI_POOL_H
#define MINI_POOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "process.h"

#define POOL_CHUNK_BYTES ((size_t)64 << 10)
#define POOL_MAX_BYTES ((size_t)1 << 26)            /* the largest class: 64 MiB */
#define POOL_RECORD_BYTES 32                        /* sizeof(Message) */

/* A block with room for at least `words` words, its size set to its
 * capacity (used and next are the caller's); NULL when out of memory or
 * words >= FRAG_MAX_WORDS. Any thread. */
HeapFrag *pool_frag_new(size_t words);
/* Gives one block back (its size tells its class; the FRAG_IN_GC mark must
 * be clear). Any thread. */
void pool_frag_free(HeapFrag *f);

/* The arena: [pool_arena_lo, pool_arena_hi) once the first slab is made (0
 * before, or for good if the range could not be reserved; slabs then come
 * from plain mmap, and the collector looks them up as it does other
 * fragments). pool_arena_frag: the block an arena address lies in. */
extern uintptr_t pool_arena_lo, pool_arena_hi;
HeapFrag *pool_arena_frag(uintptr_t a);

/* A lock-free stack of batches, each batch a list of blocks the caller
 * links (pool.c says how it avoids locks and the ABA problem); the pool's
 * classes use them, and so do the caches of process records and first
 * heaps (heap.c). Zero-initialized is empty. push returns 0 when there is
 * no cell left for the batch (65,536 batches are held in all), and pop
 * NULL when the stack is empty. */
typedef struct {
    _Atomic uint64_t top;        /* tag << 32 | (cell index + 1); low half 0: empty */
    char pad[64 - sizeof(uint64_t)];
} PoolStack;
int pool_stack_push(PoolStack *s, void *batch);
/* Tells Boehm not to scan the pool's static cells (after GC_INIT). */
void pool_unscanned(void);
void *pool_stack_pop(PoolStack *s);

/* Statistics, and the tests' hook: bytes of slabs and large blocks mapped
 * so far (never less: slabs are kept), and large blocks now mapped. */
size_t pool_mapped_bytes(void);
size_t pool_large_blocks(void);

#endif
