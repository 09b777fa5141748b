/* heap.c — a process's memory: creating and freeing it, and allocation that
 * never collects (heap fragments).
 *
 * A process owns three kinds of memory, all malloc'ed and never seen by Boehm:
 * the young block (heap growing up, stack growing down, see process.h), the
 * old heap (survivors of two collections, made by the first promotion), and
 * heap fragments. Fragments exist because some code cannot collect where it
 * stands: a BIF holds raw pointers into its arguments, a sender copies into a
 * receiver it does not own. heap_alloc() bumps htop when the words fit below
 * the stack, else it takes them from the newest fragment, else it hangs a new
 * fragment on p->mbuf. The next collection (gc.c) copies the live part of
 * every fragment into the young heap and frees them all; the emulator calls
 * gc_ensure() at its next safe point, which also collects when the fragments
 * grow large relative to the heap (gc.c, frag_pressure).
 *
 * Out of memory in heap_alloc is fatal for the VM: a caller that cannot
 * collect has no way to back out (the emulator's gc_ensure, by contrast,
 * reports a failed collection by leaving too little room, see gc.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"
#include "process.h"
#include "binary.h"

/* A fresh fragment has at least this many words, so that a BIF building a
 * list cell by cell does not make one malloc per cell. */
#define FRAG_MIN_WORDS 64

static void out_of_memory(size_t words)
{
    fprintf(stderr, "mini: out of memory allocating %zu heap words\n", words);
    abort();
}

/* Small fragments (most messages: the term and its Message record) have an
 * allocator of their own, because a message is made on one thread and freed
 * on another, millions of times a second, and malloc and free cost more than
 * the rest of a send. All small blocks have one size (FRAG_SMALL_WORDS). A
 * thread takes blocks from its own free list, else a batch from the shared
 * pool, else carves a fresh chunk of FRAG_BATCH blocks; a thread that frees
 * keeps blocks on its own list and gives a batch back to the pool when the
 * list grows past two batches, so a producer and a consumer on different
 * threads recycle the same memory. Chunks are never returned to malloc (like
 * Erlang's allocator carriers, the memory stays for the next flood). */
#define FRAG_SMALL_WORDS 16
#define FRAG_BATCH 256

static __thread HeapFrag *frag_free;          /* this thread's list */
static __thread int frag_nfree;
static pthread_mutex_t frag_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static HeapFrag *pool_batches[1 << 16];
static int pool_nbatches;

#define SMALL_BLOCK_BYTES (sizeof(HeapFrag) + FRAG_SMALL_WORDS * sizeof(Term))

static int refill_small(void)
{
    pthread_mutex_lock(&frag_pool_lock);
    if (pool_nbatches > 0) {
        frag_free = pool_batches[--pool_nbatches];
        pthread_mutex_unlock(&frag_pool_lock);
        frag_nfree = FRAG_BATCH;
        return 1;
    }
    pthread_mutex_unlock(&frag_pool_lock);
    char *chunk = malloc(SMALL_BLOCK_BYTES * FRAG_BATCH);
    if (!chunk)
        return 0;
    for (int i = FRAG_BATCH - 1; i >= 0; i--) {
        HeapFrag *f = (HeapFrag *)(chunk + (size_t)i * SMALL_BLOCK_BYTES);
        f->next = frag_free;
        frag_free = f;
    }
    frag_nfree += FRAG_BATCH;
    return 1;
}

static void free_small(HeapFrag *f)
{
    f->next = frag_free;
    frag_free = f;
    if (++frag_nfree < 2 * FRAG_BATCH)
        return;
    /* give one batch back to the pool */
    HeapFrag *batch = frag_free, *last = batch;
    for (int i = 1; i < FRAG_BATCH; i++)
        last = last->next;
    frag_free = last->next;
    last->next = NULL;
    frag_nfree -= FRAG_BATCH;
    pthread_mutex_lock(&frag_pool_lock);
    if (pool_nbatches < (int)(sizeof pool_batches / sizeof pool_batches[0])) {
        pool_batches[pool_nbatches++] = batch;
        batch = NULL;
    }
    pthread_mutex_unlock(&frag_pool_lock);
    if (batch) {                    /* the pool is full: keep them here */
        last->next = frag_free;
        frag_free = batch;
        frag_nfree += FRAG_BATCH;
    }
}

HeapFrag *heap_frag_new(size_t words)
{
    if (words > (SIZE_MAX - sizeof(HeapFrag)) / sizeof(Term))
        return NULL;
    HeapFrag *f;
    if (words <= FRAG_SMALL_WORDS) {
        if (!frag_free && !refill_small())
            return NULL;
        f = frag_free;
        frag_free = f->next;
        frag_nfree--;
        words = FRAG_SMALL_WORDS;
    } else {
        f = malloc(sizeof(HeapFrag) + words * sizeof(Term));
        if (!f)
            return NULL;
    }
    f->next = NULL;
    f->size = words;
    f->used = 0;
    return f;
}

void heap_frag_free(HeapFrag *f)
{
    while (f) {
        HeapFrag *next = f->next;
        if (f->size == FRAG_SMALL_WORDS)
            free_small(f);
        else
            free(f);
        f = next;
    }
}

void heap_attach_frag(Process *p, HeapFrag *f)
{
    /* The fragment keeps its place as the newest one only if it is a single
     * fragment; a chain is appended in front as it is. */
    HeapFrag *last = f;
    size_t words = last->size;
    /* binaries: the fragment's ProcBins (copy_term output) join p's list */
    for (HeapFrag *q = f; q; q = q->next)
        binary_adopt(p, q->mem, q->mem + q->used);
    while (last->next) {
        last = last->next;
        words += last->size;
    }
    last->next = p->mbuf;
    p->mbuf = f;
    p->mbuf_words += words;
}

Term *heap_alloc(Process *p, size_t words)
{
#if !GC_STRESS
    /* In GC_STRESS builds everything goes to fragments, so that every
     * collection has fragments to merge. */
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
    f = heap_frag_new(words > FRAG_MIN_WORDS ? words : FRAG_MIN_WORDS);
    if (!f)
        out_of_memory(words);
    f->used = words;
    f->next = p->mbuf;
    p->mbuf = f;
    p->mbuf_words += f->size;
    return f->mem;
}

Process *process_new_memory(size_t heap_words)
{
    Process *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    size_t size = gc_next_heap_size(heap_words > MIN_HEAP_SIZE ? heap_words : MIN_HEAP_SIZE);
    p->heap = malloc(size * sizeof(Term));
    if (!p->heap) {
        free(p);
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
    p->dict = NIL;
    p->exc_reason = THE_NON_VALUE;
    p->exc_trace = NIL;
    p->initial_call = NIL;
    p->group_leader = NIL;
    p->pid = make_pid(0);
    return p;
}

void process_free_memory(Process *p)
{
    if (!p)
        return;
    binary_release_all(p);         /* binaries: drop this heap's references */
    free(p->heap);
    free(p->old_heap);
    heap_frag_free(p->mbuf);
    if (p->xsave != p->xsave_inline) free(p->xsave);
    free(p);
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
