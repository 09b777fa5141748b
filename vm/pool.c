/* pool.c — the block pool (pool.h): size classes, per-thread free lists,
 * per-thread lock-free stacks of batches, slabs in the message arena.
 *
 * Why not malloc. A message is made on the sender's thread and freed on the
 * receiver's, after the receiver's next collection. glibc keeps a freed
 * block in the arena of the thread that made it, so the freeing thread takes
 * that arena's lock (the two schedulers fight over it), and blocks over its
 * small-block caches come from the top of the arena, whose fresh pages fault
 * one by one: with messages of 53 words (the {msg, lists:seq(1,25)} of the
 * fan-out benchmark), malloc and page faults took 30% of the time. A pool
 * with per-thread lists serves the common case from a list the thread alone
 * touches, and moves memory between threads in batches: a sender on thread A
 * and a receiver on thread B recycle the same blocks, B giving back a batch
 * every few dozen frees once it holds LOCAL_KEEP_BYTES, and A taking one
 * every few dozen sends.
 *
 * Batches of one class are a list linked through the blocks' `next`; a
 * batch holds about BATCH_BYTES of blocks (at most 256 blocks, at least one),
 * and a thread keeps at most LOCAL_KEEP_BYTES (or two batches) per class
 * on its own list; past that it gives batches to its own stack of the
 * class, which it takes from first and any thread may take from (see
 * batch_take). The stacks hold batches in cells: a cell is a slot in one static array (the batch's
 * first block and the index of the next cell), and a stack is a 64-bit word
 * with the top cell's index and a tag that every push and pop changes, so a
 * compare-and-swap cannot mistake a cell that was popped and pushed again
 * for the one it read (the ABA problem). Free cells are a stack of the same
 * kind. The cells live apart from the blocks so that the stale read a
 * losing compare-and-swap makes is of a word only ever accessed atomically,
 * never of a block that another thread is already filling.
 *
 * Slabs. A class's fresh blocks come from a slab with room for eight blocks,
 * at least one chunk (64 KiB) and at most 4 MiB unless one block is larger.
 * Its pages are populated by one madvise call, on huge pages where the
 * kernel has them (arena_reserve says why), and its blocks are handed out
 * one at a time, in rising addresses, as they are asked for. Blocks freed
 * in queue order come back in one run, so a long queue lies in memory in
 * the order it is walked (heap.c, heap_free_frags).
 */
#include <gc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fatal.h"
#include "pool.h"
#include "smp.h"

/* ---- size classes ---- */

/* Four classes per doubling past 128 bytes: a block wastes at most a
 * quarter of itself, an eighth on average. */
#define QUARTERS(e) ((size_t)1 << (e)), ((size_t)5 << ((e) - 2)), \
                    ((size_t)6 << ((e) - 2)), ((size_t)7 << ((e) - 2))
static const size_t class_bytes[] = {
    32, 48, 64, 80, 96,          /* a bare record; a cons, a small tuple, ... */
    QUARTERS(7), QUARTERS(8), QUARTERS(9), QUARTERS(10), QUARTERS(11), QUARTERS(12),
    QUARTERS(13), QUARTERS(14), QUARTERS(15), QUARTERS(16), QUARTERS(17), QUARTERS(18),
    QUARTERS(19), QUARTERS(20), QUARTERS(21), QUARTERS(22), QUARTERS(23), QUARTERS(24),
    QUARTERS(25), (size_t)1 << 26,
};
#define NCLASSES ((int)(sizeof class_bytes / sizeof class_bytes[0]))
_Static_assert(sizeof class_bytes / sizeof class_bytes[0] == 82, "the class table");
_Static_assert(sizeof(HeapFrag) == POOL_RECORD_BYTES, "a bare record is a HeapFrag");

/* The class of a block of `bytes` (record included); -1 past the largest. */
static int class_of_bytes(size_t bytes)
{
    if (bytes <= 128)
        return bytes <= 32 ? 0 : bytes <= 96 ? (int)((bytes - 17) / 16) : 5;
    if (bytes > POOL_MAX_BYTES)
        return -1;
    int e = 63 - __builtin_clzll(bytes - 1);            /* 2^e < bytes <= 2^(e+1) */
    int quarter = (int)((bytes - 1 - ((size_t)1 << e)) >> (e - 2));
    return 5 + (e - 7) * 4 + quarter + 1;
}

#define BATCH_BYTES ((size_t)32 << 10)
#define BATCH_MAX 256
/* A thread's free list of a class may hold this much (and at least two
 * batches) before it gives a batch to its stack. Two batches were too few
 * when the stack was one for all threads (before each had its own, see
 * batch_take): a receiver's collection frees its taken messages in a
 * burst, the surplus went to that stack, and the thread's next sends took
 * a batch from there, as likely the other scheduler's as its own. Every
 * block of such a batch was last written on the other core, so its first
 * read there (the free list's link) and its filling missed in this core's
 * cache: in hackbench groups with the handshake, each core's groups on its
 * own, that miss took half of the time and `+S 2` ran 1.6x slower than
 * `+S 1` (0.7x with this bound). Memory still flows where it is needed
 * (a sender on one core, its receiver on the other) once the freeing
 * thread holds this much, and no thread keeps more than this much idle. */
#define LOCAL_KEEP_BYTES ((size_t)512 << 10)

/* Tables for the fast paths, filled before main: the class of every small
 * word count (most messages), and each class's words and batch. */
#define SMALL_WORDS 256
static uint8_t small_class[SMALL_WORDS + 1];
static uint32_t class_words[NCLASSES];
static uint16_t class_batch_n[NCLASSES];
static uint32_t class_keep_n[NCLASSES];   /* blocks a thread's list may hold */

__attribute__((constructor)) static void tables_init(void)
{
    for (int c = 0; c < NCLASSES; c++) {
        size_t n = BATCH_BYTES / class_bytes[c];
        class_batch_n[c] = n == 0 ? 1 : n > BATCH_MAX ? BATCH_MAX : (uint16_t)n;
        class_words[c] = (uint32_t)((class_bytes[c] - POOL_RECORD_BYTES) / sizeof(Term));
        size_t keep = LOCAL_KEEP_BYTES / class_bytes[c];
        class_keep_n[c] = (uint32_t)(keep > 2u * class_batch_n[c] ? keep : 2u * class_batch_n[c]);
    }
    for (size_t w = 0; w <= SMALL_WORDS; w++)
        small_class[w] = (uint8_t)class_of_bytes(POOL_RECORD_BYTES + w * sizeof(Term));
}

static inline int class_of_words(size_t words)
{
    return words <= SMALL_WORDS ? small_class[words]
                                : class_of_bytes(POOL_RECORD_BYTES + words * sizeof(Term));
}

static inline unsigned class_batch(int c) { return class_batch_n[c]; }

/* A slab has room for eight blocks, but is at least one chunk (64 KiB)
 * and at most 4 MiB unless one block is larger. */
static size_t class_slab(int c)
{
    size_t b = class_bytes[c], max = (size_t)4 << 20;
    size_t s = 8 * b < max ? 8 * b : b > max ? b : max;
    if (s < POOL_CHUNK_BYTES)
        s = POOL_CHUNK_BYTES;
    return (s + POOL_CHUNK_BYTES - 1) & ~(POOL_CHUNK_BYTES - 1);
}

/* ---- the arena ---- */

#define ARENA_BYTES ((size_t)16 << 30)          /* address space only: PROT_NONE */
#define ARENA_CHUNKS (ARENA_BYTES / POOL_CHUNK_BYTES)

uintptr_t pool_arena_lo, pool_arena_hi;         /* [lo, hi) reserved; set once */
static _Atomic size_t arena_used;               /* bytes handed out as slabs */
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static _Atomic size_t mapped_bytes, large_blocks;
/* Per chunk: the first chunk of its slab (high 32 bits) and the slab's
 * block size (low 32). Written before any block of the slab is handed out.
 * Mapped with the arena (2 MiB of address space, its pages made as the
 * arena grows), out of the collector Boehm runs for the compiler, which
 * scans static data. */
static uint64_t *chunk_info;

/* The arena is mapped writable at once (address space only: MAP_NORESERVE,
 * and no page exists before it is touched) and marked for huge pages, on
 * 2 MiB boundaries. The first write to a fresh 4 KiB page costs 5-13 us on
 * the VMs we run on (bench/pagetouch.c), more than a send, and a flood of
 * mid-sized messages touched a fresh page every eight messages; a 2 MiB
 * page is one fault for 512 of them (0.3 us per 4 KiB). Where the kernel
 * refuses such a mapping (strict overcommit), the range is reserved
 * PROT_NONE and each slab mapped into it. */
#define HUGE_PAGE ((size_t)2 << 20)
static int arena_mapped;

static void arena_reserve(void)
{
    size_t len = ARENA_BYTES + HUGE_PAGE;
    int mapped = 1;
    char *r = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) {
        mapped = 0;
        r = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED)
            return;                             /* no arena: plain slabs */
    }
    void *info = mmap(NULL, ARENA_CHUNKS * sizeof *chunk_info, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (info == MAP_FAILED) {
        munmap(r, len);
        return;
    }
    chunk_info = info;
    uintptr_t lo = ((uintptr_t)r + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (mapped)
        madvise((void *)lo, ARENA_BYTES, MADV_HUGEPAGE);
    arena_mapped = mapped;
    smp_store_relaxed(&pool_arena_hi, lo + ARENA_BYTES);
    smp_store_release(&pool_arena_lo, lo);      /* publishes hi and chunk_info */
}

/* A fresh slab of `len` bytes for blocks of `bytes`, its pages populated
 * (one system call rather than a trap per page), from the arena while it
 * has room. */
static char *slab_map(size_t len, size_t bytes)
{
    pthread_once(&arena_once, arena_reserve);
    uintptr_t lo = smp_load_acquire(&pool_arena_lo);
    void *s = MAP_FAILED;
    if (lo) {
        size_t off = atomic_fetch_add(&arena_used, len);
        if (off <= ARENA_BYTES - len) {
            s = (void *)(lo + off);
            if (arena_mapped)                   /* (old kernels: faults on use) */
                madvise(s, len, MADV_POPULATE_WRITE);
            else
                s = mmap(s, len, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);
            if (s != MAP_FAILED) {
                size_t first = off / POOL_CHUNK_BYTES;
                for (size_t i = 0; i < len / POOL_CHUNK_BYTES; i++)
                    chunk_info[first + i] = (uint64_t)first << 32 | bytes;
            }
        }
    }
    if (s == MAP_FAILED)
        s = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (s == MAP_FAILED)
        return NULL;
    atomic_fetch_add_explicit(&mapped_bytes, len, memory_order_relaxed);
    return s;
}

HeapFrag *pool_arena_frag(uintptr_t a)
{
    size_t off = a - pool_arena_lo;
    uint64_t info = chunk_info[off / POOL_CHUNK_BYTES];
    size_t slab = (size_t)(info >> 32) * POOL_CHUNK_BYTES, bytes = (uint32_t)info;
    return (HeapFrag *)(pool_arena_lo + slab + (off - slab) / bytes * bytes);
}

size_t pool_mapped_bytes(void) { return atomic_load_explicit(&mapped_bytes, memory_order_relaxed); }
size_t pool_large_blocks(void) { return atomic_load_explicit(&large_blocks, memory_order_relaxed); }

/* ---- lock-free stacks of batches ---- */

#define NCELLS ((uint32_t)1 << 16)

typedef struct {
    _Atomic uint32_t next;       /* index + 1 of the cell below; 0: none */
    void *batch;                 /* only its owner (who popped it) touches it */
} Cell;

typedef PoolStack Stack;

static Cell cells[NCELLS];
static _Atomic uint32_t cells_made;     /* cells never used yet start here */
static Stack free_cells;

/* Each thread gives its surplus batches to stacks of its own, one per
 * class, and takes from them first; only when its own are empty does it
 * take another thread's, before it touches fresh memory. With one stack
 * per class for all, whatever a thread gave back past LOCAL_KEEP_BYTES was
 * as likely taken by the other scheduler as by itself, and each of its
 * blocks missed in the taker's cache: with hackbench groups each kept on
 * one core, `+S 2` ran at 0.71x the time of `+S 1`, and at 0.51x taking
 * its own first (docs/internals.md). Threads past POOL_SLOTS share the
 * last slot (the stacks take any number of pushers and poppers). */
#define POOL_SLOTS 64
static Stack *_Atomic slot_stacks[POOL_SLOTS];   /* NCLASSES stacks each */
static _Atomic int slots_made;
static __thread Stack *my_stacks;               /* this thread's */

static Stack *own_stacks(void)
{
    if (!my_stacks) {
        int n = atomic_fetch_add_explicit(&slots_made, 1, memory_order_relaxed);
        if (n >= POOL_SLOTS) {
            my_stacks = atomic_load_explicit(&slot_stacks[POOL_SLOTS - 1], memory_order_acquire);
            while (!my_stacks)                  /* its maker is publishing it */
                my_stacks = atomic_load_explicit(&slot_stacks[POOL_SLOTS - 1], memory_order_acquire);
        } else {
            Stack *st = calloc(NCLASSES, sizeof *st);
            if (!st) FATAL("out of memory for the pool's stacks");
            atomic_store_explicit(&slot_stacks[n], st, memory_order_release);
            my_stacks = st;
        }
    }
    return my_stacks;
}

/* The cells point only at our own batches: Boehm need not scan their
 * megabyte of static memory (see proc_table_unscanned). */
void pool_unscanned(void) { GC_exclude_static_roots(cells, cells + NCELLS); }

static void stack_push(Stack *s, uint32_t i)
{
    uint64_t old = atomic_load_explicit(&s->top, memory_order_relaxed), new;
    do {
        atomic_store_explicit(&cells[i].next, (uint32_t)old, memory_order_relaxed);
        new = ((old >> 32) + 1) << 32 | (i + 1);
    } while (!atomic_compare_exchange_weak_explicit(&s->top, &old, new, memory_order_release,
                                                    memory_order_relaxed));
}

/* The index of the cell popped, or -1 if the stack is empty. */
static int64_t stack_pop(Stack *s)
{
    uint64_t old = atomic_load_explicit(&s->top, memory_order_acquire), new;
    do {
        uint32_t top = (uint32_t)old;
        if (!top)
            return -1;
        uint32_t next = atomic_load_explicit(&cells[top - 1].next, memory_order_relaxed);
        new = ((old >> 32) + 1) << 32 | next;
    } while (!atomic_compare_exchange_weak_explicit(&s->top, &old, new, memory_order_acquire,
                                                    memory_order_acquire));
    return (int64_t)(uint32_t)old - 1;
}

int pool_stack_push(PoolStack *s, void *batch)
{
    int64_t i = stack_pop(&free_cells);
    if (i < 0) {
        uint32_t n = atomic_load_explicit(&cells_made, memory_order_relaxed);
        do {
            if (n >= NCELLS)
                return 0;
        } while (!atomic_compare_exchange_weak_explicit(&cells_made, &n, n + 1,
                                                        memory_order_relaxed,
                                                        memory_order_relaxed));
        i = n;
    }
    cells[i].batch = batch;
    stack_push(s, (uint32_t)i);
    return 1;
}

void *pool_stack_pop(PoolStack *s)
{
    int64_t i = stack_pop(s);
    if (i < 0)
        return NULL;
    void *batch = cells[i].batch;
    stack_push(&free_cells, (uint32_t)i);
    return batch;
}

/* To this thread's stack of class c: 0 if there is no cell left. */
static int batch_give(int c, HeapFrag *batch) { return pool_stack_push(&own_stacks()[c], batch); }

/* A batch of class c: this thread's own first (blocks it freed itself,
 * likely still in its core's cache), then any other thread's. */
static HeapFrag *batch_take(int c)
{
    Stack *mine = own_stacks();
    HeapFrag *got = pool_stack_pop(&mine[c]);
    if (got)
        return got;
    int n = atomic_load_explicit(&slots_made, memory_order_relaxed);
    if (n > POOL_SLOTS)
        n = POOL_SLOTS;
    for (int i = 0; i < n; i++) {
        Stack *other = atomic_load_explicit(&slot_stacks[i], memory_order_acquire);
        if (other && other != mine && (got = pool_stack_pop(&other[c])))
            return got;
    }
    return NULL;
}

/* ---- per-thread lists ---- */

/* Per class: the free list, its length, and the untouched rest of the
 * thread's newest slab. A slab is handed out block by block, in rising
 * addresses, as blocks are asked for: cutting it into a list at once wrote
 * a word into every block of a megabyte of memory that was not in any
 * cache, only for the sender to miss on the same lines again when it
 * filled them (in a flood of 512-byte messages that cutting took a third of
 * the time). */
static __thread HeapFrag *local_list[NCLASSES];
static __thread unsigned local_n[NCLASSES];
static __thread char *fresh[NCLASSES], *fresh_end[NCLASSES];

/* A block for this thread's empty list of class c: a batch from the shared
 * stack (its first block; the rest become the list), else the next block of
 * the thread's fresh slab, else a new slab. Blocks freed by any thread come
 * back before fresh memory is touched. NULL when out of memory. */
static HeapFrag *refill(int c)
{
    HeapFrag *got = batch_take(c);
    if (got) {
        local_list[c] = got->next;
        local_n[c] = class_batch(c) - 1;
        return got;
    }
    size_t bytes = class_bytes[c];
    if ((size_t)(fresh_end[c] - fresh[c]) < bytes) {
        size_t len = class_slab(c);
        char *slab = slab_map(len, bytes);
        if (!slab)
            return NULL;
        fresh[c] = slab;
        fresh_end[c] = slab + len / bytes * bytes;
    }
    got = (HeapFrag *)fresh[c];
    fresh[c] += bytes;
    return got;
}

/* This thread's list for class c has grown to what it may keep
 * (LOCAL_KEEP_BYTES): the newest batch goes to its stack of the class. */
static void give_back(int c)
{
    unsigned batch = class_batch(c);
    HeapFrag *head = local_list[c], *last = head;
    for (unsigned i = 1; i < batch; i++)
        last = last->next;
    HeapFrag *rest = last->next;
    last->next = NULL;
    if (batch_give(c, head)) {
        local_list[c] = rest;
        local_n[c] -= batch;
    } else {
        last->next = rest;                  /* no cell: keep it here */
    }
}

/* ---- blocks past the largest class ---- */

static size_t large_len(size_t words)
{
    size_t page = 4096;
    return (POOL_RECORD_BYTES + words * sizeof(Term) + page - 1) & ~(page - 1);
}

static HeapFrag *large_new(size_t words)
{
    void *m = mmap(NULL, large_len(words), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    atomic_fetch_add_explicit(&large_blocks, 1, memory_order_relaxed);
    HeapFrag *f = m;
    f->size = (uint32_t)words;
    return f;
}

/* ---- the interface ---- */

HeapFrag *pool_frag_new(size_t words)
{
    if (words >= FRAG_MAX_WORDS)
        return NULL;
    int c = class_of_words(words);
    if (c < 0)
        return large_new(words);
    HeapFrag *f = local_list[c];
    if (f) {
        HeapFrag *next = f->next;
        local_list[c] = next;
        local_n[c]--;
        /* the next call takes `next`: start its cache miss now, so that it
         * overlaps this block's use instead of waiting at that call (a
         * flood's free list is hundreds of thousands of cold blocks long) */
        if (next) __builtin_prefetch(next, 1);
    } else if (!(f = refill(c))) {
        return NULL;
    }
    f->size = class_words[c];
    return f;
}

void pool_frag_free(HeapFrag *f)
{
    int c = class_of_words(f->size);
    if (c < 0) {
        munmap(f, large_len(f->size));
        atomic_fetch_sub_explicit(&large_blocks, 1, memory_order_relaxed);
        return;
    }
    f->next = local_list[c];
    local_list[c] = f;
    if (++local_n[c] >= class_keep_n[c])
        give_back(c);
}
