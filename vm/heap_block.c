/* heap_block.c — where young blocks and old heaps come from.
 *
 * Every collection takes a fresh young block and frees the one it copied
 * from (gc.c), so a process's heap memory is allocated and freed over and
 * over, in three size ranges treated three ways:
 *
 * Small blocks (up to SPARE_MAX_WORDS). A process whose live data stays
 * small collects every few hundred words with the same block size each time
 * (a loop building garbage: 32,000 times in the allocating flood of 640,000
 * messages). Each thread keeps the last such block it freed and hands it out
 * again for the same size: the two blocks take turns, as a copying
 * collector's two spaces do, and malloc and free drop out of the collection.
 *
 * Middle sizes come from malloc's arenas, which keep freed memory for the
 * next request (heap.c sets malloc's thresholds so that they do). On the VMs
 * we run on, the first write to a fresh page costs 7-13 us (a trap into the
 * hypervisor's page tables; bench/pagetouch.c), so a block of a huge page
 * or more is marked for transparent huge pages on the whole 2 MiB pages
 * inside it: where the kernel leaves the choice to the program, a growing
 * heap then takes one trap per 2 MiB instead of one per 4 KiB.
 *
 * Big blocks (HEAP_BLOCK_BIG_BYTES and over, past the largest size malloc
 * would keep: it maps such blocks afresh at every call and unmaps them at
 * every free) are mappings of our own, on huge pages. lists_bench, a process
 * whose heap grows to 30 MB and falls back, again and again, met 7,000
 * fresh pages a round through malloc's. Each thread keeps the last BIG_KEEP
 * big blocks it freed, and a request of up to a kept block's size takes it
 * back with its pages still there (Erlang's mseg_alloc keeps a cache of
 * freed segments the same way). A kept block that goes unused for
 * BIG_KEEP_US is given back: by the next free or allocation on its thread,
 * or by the thread's scheduler before it sleeps (it wakes by then if it
 * would sleep longer), so an idle VM does not sit on memory a dead process
 * used. Under an address-space limit (ulimit -v) nothing is kept: there the
 * address space is what runs out.
 *
 * A big block starts with one header line that records its mapping's size
 * (a kept block may be bigger than the request it serves). Sanitizer and
 * stress builds use malloc for every size, so that a stale pointer into a
 * freed block is caught at once.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "heap_block.h"
#include "mem_limit.h"

#ifndef GC_STRESS
#define GC_STRESS 0
#endif
#if GC_STRESS || defined(__SANITIZE_ADDRESS__)
#define PLAIN_MALLOC 1
#else
#define PLAIN_MALLOC 0
#endif

#define SPARE_MAX_WORDS ((size_t)1 << 15)
static __thread Term *spare_block;
static __thread size_t spare_words;

#define BIG_HEADER_BYTES 64                /* one cache line: keeps alignment */
#define BIG_KEEP 4                         /* young blocks and old heaps */
#define BIG_KEEP_US 1000000                /* as Erlang's mseg cache check */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
#define HUGE_ADVISE_BYTES HUGE_PAGE_BYTES

typedef struct KeptBlock {
    char *map;                             /* NULL: an empty slot */
    size_t bytes;
    uint64_t freed_us;
} KeptBlock;
static __thread KeptBlock kept[BIG_KEEP];
static int keep_none;                      /* an address-space limit is set */

void heap_block_init(void)
{
    keep_none = mem_address_space_limit() != 0;
}

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void unmap_kept(KeptBlock *k)
{
    munmap(k->map, k->bytes);
    k->map = NULL;
    k->bytes = 0;
}

static Term *big_alloc(size_t bytes)
{
    heap_block_release_idle();
    KeptBlock *best = NULL;                /* the smallest kept block that fits */
    for (int i = 0; i < BIG_KEEP; i++)
        if (kept[i].map && kept[i].bytes >= bytes && (!best || kept[i].bytes < best->bytes))
            best = &kept[i];
    char *map;
    if (best) {
        map = best->map;
        best->map = NULL;
        best->bytes = 0;
    } else {
        size_t len = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
        map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {           /* what we keep may be what is missing */
            heap_block_release_all();
            map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (map == MAP_FAILED)
                return NULL;
        }
        madvise(map, len, MADV_HUGEPAGE);
        *(size_t *)map = len;
    }
    return (Term *)(map + BIG_HEADER_BYTES);
}

static void big_free(Term *mem)
{
    char *map = (char *)mem - BIG_HEADER_BYTES;
    size_t len = *(size_t *)map;
    heap_block_release_idle();
    uint64_t now = monotonic_us();
    if (keep_none) {
        munmap(map, len);
        return;
    }
    KeptBlock *slot = &kept[0];            /* an empty slot, else the oldest */
    for (int i = 0; i < BIG_KEEP; i++) {
        if (!kept[i].map) {
            slot = &kept[i];
            break;
        }
        if (kept[i].freed_us < slot->freed_us)
            slot = &kept[i];
    }
    if (slot->map)
        unmap_kept(slot);
    slot->map = map;
    slot->bytes = len;
    slot->freed_us = now;
}

/* Asks for transparent huge pages on the whole 2 MiB pages inside a block
 * that malloc gave (madvise marks the range; the pages come at first touch) */
static void advise_huge_pages(Term *m, size_t bytes)
{
    uintptr_t lo = ((uintptr_t)m + HUGE_PAGE_BYTES - 1) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    uintptr_t hi = ((uintptr_t)m + bytes) & ~(uintptr_t)(HUGE_PAGE_BYTES - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

static int is_big_block(size_t words)
{
    return !PLAIN_MALLOC && words >= (HEAP_BLOCK_BIG_BYTES - BIG_HEADER_BYTES) / sizeof(Term);
}

Term *heap_block_alloc(size_t words)
{
    if (words == 0 || words > HEAP_BLOCK_MAX_WORDS)
        return NULL;
    if (is_big_block(words))
        return big_alloc(words * sizeof(Term) + BIG_HEADER_BYTES);
    if (words == spare_words && spare_block) {
        Term *b = spare_block;
        spare_block = NULL;
        spare_words = 0;
        return b;
    }
    Term *m = malloc(words * sizeof(Term));
    if (m && words * sizeof(Term) >= HUGE_ADVISE_BYTES)
        advise_huge_pages(m, words * sizeof(Term));
    return m;
}

void heap_block_free(Term *mem, size_t words)
{
    if (!mem)
        return;
    if (is_big_block(words)) {
        big_free(mem);
        return;
    }
#if GC_STRESS
    /* freed process memory is overwritten, so a stale pointer reads a
     * boxed pointer to a non-canonical address and crashes at once */
    for (size_t i = 0; i < words; i++)
        mem[i] = (Term)0xDEADBEEFDEADBEEEull;
#endif
#if !PLAIN_MALLOC
    if (words <= SPARE_MAX_WORDS) {
        free(spare_block);
        spare_block = mem;
        spare_words = words;
        return;
    }
#endif
    free(mem);
}

int64_t heap_block_release_idle(void)
{
    uint64_t now_us = 0;                   /* read only if something is kept */
    int64_t next = -1;
    for (int i = 0; i < BIG_KEEP; i++) {
        if (!kept[i].map)
            continue;
        if (!now_us)
            now_us = monotonic_us();
        uint64_t age = now_us > kept[i].freed_us ? now_us - kept[i].freed_us : 0;
        if (age >= BIG_KEEP_US) {
            unmap_kept(&kept[i]);
        } else if (next < 0 || (int64_t)(BIG_KEEP_US - age) < next) {
            next = (int64_t)(BIG_KEEP_US - age);
        }
    }
    return next;
}

void heap_block_release_all(void)
{
    for (int i = 0; i < BIG_KEEP; i++)
        if (kept[i].map)
            unmap_kept(&kept[i]);
    free(spare_block);
    spare_block = NULL;
    spare_words = 0;
}

size_t heap_block_kept_bytes(void)
{
    size_t bytes = 0;
    for (int i = 0; i < BIG_KEEP; i++)
        bytes += kept[i].bytes;
    return bytes;
}
