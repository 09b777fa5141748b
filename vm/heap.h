/* heap.h — a process's memory (heap.c): creating and freeing it, and
 * allocation that never collects (heap_alloc, heap fragments). The layout is
 * in process.h; collecting is gc.h.
 */
#ifndef MINI_HEAP_H
#define MINI_HEAP_H

#include "process.h"

/* Sets the C allocator's policy for process memory; main() calls it first. */
void heap_init(void);

/* Creates and frees a process's memory (not its scheduling state). */
Process *process_new_memory(size_t heap_words);
void process_free_memory(Process *p);
/* Its heaps, fragments, binaries and dictionary only, leaving the record
 * (proc_exit: the memory goes back before the death is heard of); a second
 * call, or process_free_memory after it, frees nothing twice. */
void process_free_heap(Process *p);
/* process_free_memory for a process that was in the pid table: its heaps
 * go at once, its record only once no scheduler can still be holding it
 * (qsbr.h), because senders on schedulers find records without counting a
 * reference (proc_peek, proc.h) and a record reused for a new process at
 * once could take a message meant for the dead one. */
void process_retire_memory(Process *p);

/* Room for n saved x registers (spawn with many arguments); 0 if out of memory. */
int process_reserve_xsave(Process *p, int n);

/* Heap allocation that never collects: words from the young heap if they
 * fit below the stack, else from a fragment (process.h, "Heap fragments").
 * It never fails: out of memory, the process is marked to die and the words
 * come from the thread's reserve (heap.c says how that stays safe). */
Term *heap_alloc(Process *p, size_t words);
/* The same for a request in proportion to some input, which may be larger
 * than the reserve: NULL when the system refuses the memory (or p, already
 * out of memory, needs a new block), p then marked to die as heap_alloc
 * would. BIFs use it through BIF_ALLOC (bif.h). */
Term *heap_alloc_try_slow(Process *p, size_t words);
/* words on p's heap, else in its newest fragment, inline (a BIF's result
 * usually fits one or the other); heap_alloc_try_slow does the rest */
static inline Term *heap_alloc_try(Process *p, size_t words)
{
#if !GC_STRESS
    if ((size_t)(p->stop - p->htop) >= words) {
        Term *hp = p->htop;
        p->htop += words;
        return hp;
    }
#endif
    HeapFrag *f = p->mbuf;
    if (f && f->size - f->used >= words) {
        Term *hp = f->mem + f->used;
        f->used += words;
        return hp;
    }
    return heap_alloc_try_slow(p, words);
}

/* The newest allocation, ending at `end`, gives its last `words` words back
 * (a result shorter than the room made for it). */
void heap_give_back(Process *p, Term *end, size_t words);

/* The reserve: each thread that runs processes makes its own at start, and
 * empties it when no process holds words of it (after each time slice). */
void heap_reserve_init(void);
void heap_reserve_reset(void);
void heap_reserve_free(void);
/* A thread that ends hands its cached process records and first heaps on. */
void heap_caches_release(void);

/* Heap fragments outside a process (a message in flight is built in one).
 * heap_frag_new returns NULL when out of memory; the caller sets f->used.
 * heap_attach_frag hangs a fragment (or a chain linked by `next`) on a
 * process: from then on the process owns it, its terms may be stored in the
 * process's roots or heap, and the next collection copies what is live and
 * frees it. heap_frag_free frees a fragment and the rest of its chain, in
 * chain order; heap_free_frags frees all of a process's, oldest first
 * (heap.c says why). */
HeapFrag *heap_frag_new(size_t words);
void heap_attach_frag(Process *p, HeapFrag *f);
void heap_frag_free(HeapFrag *f);
void heap_free_frags(Process *p);

/* Every fragment is a block of the pool (pool.h), and most lie in its
 * message arena, where pool_arena_frag finds a block from an address.
 * During a collection, the fragments the process owns carry FRAG_IN_GC in
 * their size, so that a pointer into another block of the arena (a queued
 * message's, say) is told apart. */
#define FRAG_IN_GC ((uint32_t)1 << 31)

/* A pooled block of HEAP_BARE_BYTES, recycled like message fragments: a
 * Message record with no words of its own, for a message whose term is an
 * immediate (a flood of atoms is a million of them). The caller sets its
 * size to 0. NULL when out of memory. The size is that of the Message
 * record (proc_signal.c checks it). */
#define HEAP_BARE_BYTES 32
void *heap_bare_new(void);
void heap_bare_free(void *b);

#endif
