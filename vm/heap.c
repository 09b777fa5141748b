/* heap.c — a process's memory: creating and freeing it, and allocation that
 * never collects (heap fragments).
 *
 * A process owns three kinds of memory, none of it seen by Boehm: the young
 * block (heap growing up, stack growing down, see process.h) and the old
 * heap (survivors of two collections, made by the first promotion), both
 * malloc'ed, and heap fragments, blocks of the pool (pool.h). Fragments
 * exist because some code cannot collect where it stands: a BIF holds raw
 * pointers into its arguments, a sender copies into a receiver it does not
 * own. heap_alloc() bumps htop when the words fit below
 * the stack, else it takes them from the newest fragment, else it hangs a new
 * fragment on p->mbuf. The next collection (gc.c) copies the live part of
 * every fragment into the young heap and frees them all; the emulator calls
 * gc_ensure() at its next safe point, which also collects when the fragments
 * grow large relative to the heap (gc.c, frag_pressure).
 *
 * Out of memory in heap_alloc. Its callers (BIFs, error terms, a spawn's
 * arguments) cannot back out, so heap_alloc always returns words: when no
 * fragment can be had, the process is marked out of memory (gc.h: it dies
 * at its next check, and is never collected again) and gets the words from
 * its thread's reserve, a block set aside when the thread started, bumped
 * and never freed. The process runs on, at most to the end of its time
 * slice (heap_alloc also zeroes its reductions, so it stops at the next
 * call), with terms that stay valid memory; then it dies, and nothing else
 * points into the reserve (messages and spawn arguments are copies), so the
 * scheduler empties it for the next one (heap_reserve_reset). Only a single
 * request larger than the reserve is fatal for the VM: so code that asks
 * for words in proportion to its input (a BIF's result: binary_to_list of
 * a big binary, make_tuple, binary_to_term, ...) asks heap_alloc_try, which
 * returns NULL instead, the process marked to die, and gives up.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "gc.h"
#include "fatal.h"
#include "process.h"
#include "binary.h"
#include "pool.h"
#include "proc_dict.h"
#include "mem_limit.h"
#include "heap_block.h"
#include "qsbr.h"

/* A fresh fragment has at least this many words, so that a BIF building a
 * list cell by cell does not make one malloc per cell. */
#define FRAG_MIN_WORDS 64

/* Young blocks come and go with every collection, often megabytes at a
 * time. By default glibc maps blocks over 128 KiB (its threshold then
 * adapts) with mmap and unmaps them when freed, so a growing process met
 * fresh pages at every collection, and on the VMs we run on the first write
 * to a fresh page costs 7-13 us (bench/pagetouch.c): that was a third of
 * lists_bench's time. Blocks up to glibc's largest threshold (32 MiB) now
 * come from the arenas and stay there when freed, for the next collection
 * (as Erlang's allocators keep their carriers); bigger ones are mappings of
 * our own, which heap_block.c keeps for a while in the same spirit.
 *
 * Under an address-space limit (ulimit -v) every thread allocates from
 * malloc's main arena. A thread's own arena is a heap of 64 MiB of address
 * space, reserved whole; one that fills gets another; and with the trim
 * threshold above they are never given back. A malloc that fails in the
 * main arena even makes glibc open a new arena to try again. Under a
 * 200 MB limit with `+S 2`, what was left for processes after a few
 * refused allocations moved between 110 and 10 MB from run to run (a
 * process that needs 36 MB lived or died by it). The main arena grows and
 * shrinks at its top, and malloc_trim (proc.c, after a death for memory)
 * gives its free top back. One arena is one lock, so what the schedulers
 * allocate often comes from the block pool instead (pool.h): messages,
 * fragments, and binary buffers up to 64 KiB (binary.c says why that
 * bound); the young block is malloc'ed once a collection. Without a limit,
 * address space costs nothing and each thread keeps its arena.
 */
void heap_init(void)
{
    mallopt(M_MMAP_THRESHOLD, (int)HEAP_BLOCK_BIG_BYTES);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    if (mem_address_space_limit())
        mallopt(M_ARENA_MAX, 1);
    heap_block_init();
}

/* 1 MB a thread: room for what a BIF builds after its fragment was refused */
#define RESERVE_WORDS ((size_t)1 << 17)
static __thread Term *reserve;
static __thread size_t reserve_used;

void heap_reserve_init(void)
{
    if (!reserve && !(reserve = malloc(RESERVE_WORDS * sizeof(Term))))
        FATAL("out of memory for a thread's reserve of %zu heap words", RESERVE_WORDS);
}

/* A thread that ends gives its reserve back (a leak to LeakSanitizer otherwise). */
void heap_reserve_free(void)
{
    free(reserve);
    reserve = NULL;
    reserve_used = 0;
}

void heap_reserve_reset(void)
{
    reserve_used = 0;
}

static Term *out_of_memory(Process *p, size_t words)
{
    gc_out_of_memory(p, OOM_NOMEM);
    p->reds = 0;
    if (!reserve || RESERVE_WORDS - reserve_used < words)
        FATAL("out of memory allocating %zu heap words", words);
    Term *hp = reserve + reserve_used;
    reserve_used += words;
    return hp;
}

/* Every fragment, a message's or a BIF's, comes from the block pool
 * (pool.c): a message is made on one thread and freed on another, millions
 * of times a second, and malloc, its arena locks and its fresh pages cost
 * more than the rest of a send. */
void *heap_bare_new(void)
{
    return pool_frag_new(0);
}

void heap_bare_free(void *b)
{
    pool_frag_free(b);
}

HeapFrag *heap_frag_new(size_t words)
{
    HeapFrag *f = pool_frag_new(words);
    if (!f)
        return NULL;
    f->next = NULL;
    f->used = 0;
    f->bins = 1;                   /* a message's copier says when there are none */
    return f;
}

void heap_frag_free(HeapFrag *f)
{
    while (f) {
        HeapFrag *next = f->next;
        f->size &= ~FRAG_IN_GC;
        pool_frag_free(f);
        f = next;
    }
}

/* A process's fragments are freed oldest first, so that the blocks go back
 * to this thread's list in the order the process received them: the list is
 * a stack, so the next flood takes them back in one run of addresses (the
 * other way round) and walks its queue as a stream. Freed newest first (the
 * order of p->mbuf), each collection's share came back as a run, but the
 * runs in the opposite order: after a few floods of different lengths a long
 * queue jumped to another place every hundred messages or so, and the
 * hardware prefetchers, which follow runs, stopped hiding the misses. */
void heap_free_frags(Process *p)
{
    heap_frag_free(message_list_reversed(p->mbuf));
    p->mbuf = NULL;
    p->mbuf_words = 0;
}

void heap_attach_frag(Process *p, HeapFrag *f)
{
    /* The fragment keeps its place as the newest one only if it is a single
     * fragment; a chain is appended in front as it is. */
    HeapFrag *last = f;
    size_t words = last->size;
    /* binaries: the fragment's ProcBins (copy_term output) join p's list;
     * a message whose copier saw none is not walked (mailbox.h) */
    for (HeapFrag *q = f; q; q = q->next)
        if (q->bins)
            binary_adopt(p, q->mem, q->mem + q->used);
    while (last->next) {
        last = last->next;
        words += last->size;
    }
    last->next = p->mbuf;
    p->mbuf = f;
    p->mbuf_words += words;
}

Term *heap_alloc_try_slow(Process *p, size_t words)
{
    /* (heap.h tried the heap and the newest fragment) No new block for a
     * process already marked to die for memory; a size no block can have (a
     * word count past the address space) is refused as the system would
     * refuse it. */
    HeapFrag *f = p->out_of_memory || words > FRAG_MAX_WORDS ? NULL
        : heap_frag_new(words > FRAG_MIN_WORDS ? words : FRAG_MIN_WORDS);
    if (!f) {
        gc_out_of_memory(p, OOM_NOMEM);
        p->reds = 0;
        return NULL;
    }
    f->used = words;
    f->next = p->mbuf;
    p->mbuf = f;
    p->mbuf_words += f->size;
    return f->mem;
}

/* The newest allocation, which ends at `end`, gives back its last `words`
 * words: a big-integer result is computed into the room its largest length
 * needs and is often a digit shorter (arith.c). The room came from the young
 * heap's top or from the newest fragment, so one of the two ends there. */
void heap_give_back(Process *p, Term *end, size_t words)
{
    if (p->htop == end) {
        p->htop -= words;
        return;
    }
    HeapFrag *f = p->mbuf;
    if (f && f->mem + f->used == end)
        f->used -= (uint32_t)words;
}

/* heap_alloc_try's words, or when the system refuses them the thread's
 * reserve (the process is marked to die at its next check). */
Term *heap_alloc(Process *p, size_t words)
{
    Term *hp = heap_alloc_try(p, words);
    return hp ? hp : out_of_memory(p, words);
}

/* Process records and first heaps are recycled through per-thread caches of
 * individually malloc'ed blocks, balanced through a shared pool in batches,
 * like message blocks. A process is made on its parent's thread and often
 * dies on another: handing its memory back to malloc there made the two
 * threads fight over malloc's arena lock (futex calls) and fault in fresh
 * pages at every spawn. The blocks stay ordinary malloc blocks, so the
 * collector may free a cached first heap with free() when it replaces it.
 * Process records, though, are never freed: a sender may still count a
 * reference on a record after its process exited (proc_table.c, slot_acquire),
 * so a record stays a record, its refc at zero until it is reused; and a
 * record is reused only once no scheduler can still hold it from a lookup
 * that counted nothing (process_retire_memory, proc_peek). */
enum { CACHE_PROCESS, CACHE_HEAP, NCACHES };
#define BLOCK_BATCH 64

/* The shared pools are the lock-free batch stacks of pool.h. */
static PoolStack block_pools[NCACHES];
static __thread void *block_free[NCACHES];      /* linked through their first word */
static __thread int block_nfree[NCACHES];

/* A thread that ends hands its cached blocks on: first heaps go back to
 * malloc; process records, which are never freed (see above), join one list
 * of records left by ended threads, where the next thread short of records
 * takes them. Otherwise they would be lost with the thread's variables. */
static void *orphan_records;
static pthread_mutex_t orphan_lock = PTHREAD_MUTEX_INITIALIZER;

static void *orphan_record_take(void)
{
    pthread_mutex_lock(&orphan_lock);
    void *b = orphan_records;
    if (b)
        orphan_records = *(void **)b;
    pthread_mutex_unlock(&orphan_lock);
    return b;
}

static size_t cache_bytes(int c)
{
    return c == CACHE_PROCESS ? sizeof(Process) : MIN_HEAP_SIZE * sizeof(Term);
}

static void *cache_alloc(int c)
{
    if (!block_free[c]) {
        if ((block_free[c] = pool_stack_pop(&block_pools[c])))
            block_nfree[c] = BLOCK_BATCH;
        else if (c == CACHE_HEAP)
            return malloc(cache_bytes(c));
        else {                          /* a record starts with refc 0 */
            void *b = orphan_record_take();
            return b ? b : calloc(1, cache_bytes(c));
        }
    }
    void *b = block_free[c];
    block_free[c] = *(void **)b;
    block_nfree[c]--;
    return b;
}

static void cache_free(int c, void *b)
{
    *(void **)b = block_free[c];
    block_free[c] = b;
    if (++block_nfree[c] < 2 * BLOCK_BATCH)
        return;
    void *batch = block_free[c], *last = batch;
    for (int i = 1; i < BLOCK_BATCH; i++)
        last = *(void **)last;
    block_free[c] = *(void **)last;
    *(void **)last = NULL;
    block_nfree[c] -= BLOCK_BATCH;
    if (pool_stack_push(&block_pools[c], batch))
        batch = NULL;
    if (batch && c == CACHE_PROCESS) {  /* the pool is full: keep them here */
        *(void **)last = block_free[c];
        block_free[c] = batch;
        block_nfree[c] += BLOCK_BATCH;
        return;
    }
    while (batch) {                 /* the pool is full: back to malloc */
        void *next = *(void **)batch;
        free(batch);
        batch = next;
    }
}

void heap_caches_release(void)
{
    for (void *b = block_free[CACHE_HEAP], *next; b; b = next) {
        next = *(void **)b;
        free(b);
    }
    block_free[CACHE_HEAP] = NULL;
    block_nfree[CACHE_HEAP] = 0;
    void *last = block_free[CACHE_PROCESS];
    if (last) {
        while (*(void **)last)
            last = *(void **)last;
        pthread_mutex_lock(&orphan_lock);
        *(void **)last = orphan_records;
        orphan_records = block_free[CACHE_PROCESS];
        pthread_mutex_unlock(&orphan_lock);
    }
    block_free[CACHE_PROCESS] = NULL;
    block_nfree[CACHE_PROCESS] = 0;
}

Process *process_new_memory(size_t heap_words)
{
    Process *p = cache_alloc(CACHE_PROCESS);
    if (!p)
        return NULL;
    /* everything but refc, which a late lookup may be reading (it is 0) */
    size_t after_refc = offsetof(Process, refc) + sizeof p->refc;
    memset(p, 0, offsetof(Process, refc));
    memset((char *)p + after_refc, 0, sizeof *p - after_refc);
    size_t size = gc_next_heap_size(heap_words > MIN_HEAP_SIZE ? heap_words : MIN_HEAP_SIZE);
    p->heap = size == MIN_HEAP_SIZE ? cache_alloc(CACHE_HEAP) : heap_block_alloc(size);
    if (!p->heap) {
        cache_free(CACHE_PROCESS, p);
        return NULL;
    }
    p->htop = p->heap;
    p->hend = p->heap + size;
    p->stop = p->hend;
    p->high_water = p->heap;
    p->old_heap = p->old_htop = p->old_hend = NULL;
    p->mbuf = NULL;
    p->mbuf_words = 0;
    p->gen_gcs = 0;
    p->max_gen_gcs = 65535;        /* Erlang's fullsweep_after default */
    p->min_heap_size = size;
    p->xsave = p->xsave_inline;
    p->xsave_cap = XSAVE_INLINE;
    p->x = p->xsave;
    p->dict = NULL;
    p->exc_reason = THE_NON_VALUE;
    p->exc_trace = NIL;
    p->initial_call = NIL;
    p->group_leader = NIL;
    p->pid = make_pid(0);
    /* the smallest heaps are not counted until they first collect: a spawn
     * storm on many schedulers would fight over the shared counter for
     * 55 words a process (mem_limit.c) */
    if (size > MIN_HEAP_SIZE) mem_publish(p);
    return p;
}

void process_free_heap(Process *p)
{
    binary_release_all(p);         /* binaries: drop this heap's references */
    size_t counted = atomic_load_explicit(&p->mem_words, memory_order_relaxed);
    if (counted) {
        atomic_fetch_sub_explicit(&mem_process_words, counted, memory_order_relaxed);
        atomic_store_explicit(&p->mem_words, 0, memory_order_relaxed);
    }
    if (p->heap) {
        if ((size_t)(p->hend - p->heap) == MIN_HEAP_SIZE) cache_free(CACHE_HEAP, p->heap);
        else heap_block_free(p->heap, (size_t)(p->hend - p->heap));
    }
    p->heap = p->htop = p->hend = p->stop = p->high_water = NULL;
    heap_block_free(p->old_heap, (size_t)(p->old_hend - p->old_heap));
    p->old_heap = p->old_htop = p->old_hend = NULL;
    heap_free_frags(p);
    proc_dict_free(p->dict);
    p->dict = NULL;
}

/* Everything a process owns but its record. */
static void process_free_all_but_record(Process *p)
{
    process_free_heap(p);
    if (p->xsave != p->xsave_inline) free(p->xsave);
    p->xsave = p->x = NULL;
}

static void record_recycle(void *p)
{
    cache_free(CACHE_PROCESS, p);
}

void process_free_memory(Process *p)
{
    if (!p)
        return;
    process_free_all_but_record(p);
    record_recycle(p);
}

void process_retire_memory(Process *p)
{
    process_free_all_but_record(p);
    qsbr_retire(p, record_recycle);
}

int process_reserve_xsave(Process *p, int n)
{
    if (n <= p->xsave_cap)
        return 1;
    Term *a = malloc(sizeof(Term) * (size_t)n);
    if (!a)
        return 0;
    memcpy(a, p->xsave, sizeof(Term) * (size_t)p->xsave_cap);
    if (p->xsave != p->xsave_inline) free(p->xsave);
    if (p->x == p->xsave) p->x = a;
    p->xsave = a;
    p->xsave_cap = n;
    return 1;
}
