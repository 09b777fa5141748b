/* gc.h — the per-process garbage collector.
 *
 * THE INVARIANT. At every call of gc_ensure()/gc_full()/gc_collect(), every
 * term the process will use again is reachable from the roots, and the roots
 * are exactly:
 *   - x0 .. x(live-1)                        (the `live` argument)
 *   - every word of the stack, stop .. hend-1, whose primary tag is not 00
 *     (words with tag 00 are CPs and catch markers and are skipped; so is
 *     THE_NON_VALUE, which is 0)
 *   - the pairs of p->dict (a table beside the heap), p->exc_reason, p->exc_trace, p->initial_call, p->group_leader
 * The collector moves objects and rewrites the roots in place: a C variable
 * holding a Term (or a Term *) into the heap across a collection is stale
 * afterwards. Registers at or above `live` are garbage after a collection.
 * A new Process field that holds terms must be added to for_each_root() in
 * gc.c.
 *
 * Terms are immutable once built: an object may only point to objects that
 * existed when it was built. That is why an old-heap object never points to a
 * young one and minor collections need no write barrier. Code that fills in
 * a freshly allocated object (setelement on a new tuple, building a list
 * front to back) must finish before the next collection point.
 *
 * A collection can fail (malloc refused the new block, or the VM's memory
 * ceiling did, mem_limit.h). The process's data is then left intact but the
 * free space may be smaller than asked for, and p->out_of_memory is set:
 * after gc_ensure(p, need, live), if p->out_of_memory or !gc_has_room(p,
 * need), the process must die (the VM goes on); it must not allocate. A
 * collection that finds the process over its max_heap_size (with kill) sets
 * p->out_of_memory too. From then on the process is never collected again:
 * heap_alloc may have handed it memory outside its heap (heap.h). The
 * emulator checks at each of its collection points, the scheduler after
 * every time slice (sched.c), and the process dies with reason `killed`.
 */
#ifndef MINI_GC_H
#define MINI_GC_H

/* Include this one as "gc.h"; <gc.h> is Boehm's (the Makefile passes our
 * directories with -iquote, so they never shadow system headers). */
#include "heap.h"
#include "pool.h"

/* Makes sure `need` words are free between htop and stop, collecting (with
 * x0..x(live-1) as roots) if not. Returns reductions spent (for the budget). */
UWord gc_ensure(Process *p, size_t need, int live);

/* A full collection now (erlang:garbage_collect/0). */
void gc_full(Process *p, int live);

/* Collects now, even if there is room: a minor collection, unless a major
 * one is due (old heap full, max_gen_gcs minors since the last major) or
 * `major` is set. Afterwards at least `need` words are free (unless the
 * collection failed, see above). Returns the reductions spent. */
UWord gc_collect(Process *p, size_t need, int live, int major);

/* The smallest heap size of the growth sequence (233, 377, 610, ... then
 * +20% steps) that is at least `words`. */
size_t gc_next_heap_size(size_t words);

/* Marks p to die for want of memory (an OOM_* of mem_limit.h) and prints
 * the error report naming it; the first reason stays. */
void gc_out_of_memory(Process *p, int why);

static inline int gc_has_room(const Process *p, size_t need)
{
    return (size_t)(p->stop - p->htop) >= need;
}

/* Collections and words reclaimed by all processes, for statistics/1. */
extern _Atomic UWord gc_total_collections, gc_total_reclaimed;

/* Sizes in words, for process_info and statistics. */
static inline size_t gc_heap_size(const Process *p)      /* young block, stack included */
{
    return (size_t)(p->hend - p->heap);
}
static inline size_t gc_old_heap_size(const Process *p)
{
    return p->old_heap ? (size_t)(p->old_hend - p->old_heap) : 0;
}
static inline size_t gc_total_heap_size(const Process *p)
{
    return gc_heap_size(p) + gc_old_heap_size(p) + p->mbuf_words;
}
static inline size_t gc_stack_size(const Process *p)
{
    return (size_t)(p->hend - p->stop);
}

#endif
