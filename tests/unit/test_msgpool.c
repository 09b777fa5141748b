/* test_msgpool.c — the block pool (vm/pool.c) across threads, as messages
 * use it: made on one thread, freed on another.
 *
 *  - every size class (and a block past the largest): thread A allocates a
 *    few batches' worth, writes them, hands them to thread B, which checks
 *    and frees them; after two rounds the pool has mapped all it will ever
 *    need for this traffic: later rounds reuse the same memory (the mapped
 *    bytes, the tests' hook, stay put), so the steady state takes no fresh
 *    page and no malloc; a block past the largest class is unmapped again;
 *  - a ring of threads, each sending blocks of mixed sizes to the next
 *    through a bounded queue and freeing what the previous one sent: far
 *    more memory passes through than the pool maps, and every block arrives
 *    intact (under ThreadSanitizer this is the race test of the lock-free
 *    batch stacks: make check-tsan runs it);
 *  - a thread whose frees overflow what it keeps takes those batches back
 *    before any other thread's (its core's cache last held them);
 *  - the arena lookup: every address inside a pooled block of any class
 *    leads back to that block (the collector relies on it).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "gc.h"
#include "pool.h"

static int failures, checks;
#define CHECK(c) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

/* ---- every class, A allocates and B frees ---- */

#define MAX_BLOCKS 1024
static HeapFrag *handed[MAX_BLOCKS];
static size_t handed_n, handed_words;
static sem_t to_a, to_b;
static int done;

static void fill(HeapFrag *f, size_t words, Term seed)
{
    f->used = (uint32_t)words;
    if (words)
        f->mem[0] = seed;
    if (words > 1)
        f->mem[words - 1] = ~seed;
}

static int intact(const HeapFrag *f, size_t words, Term seed)
{
    return f->used == words && f->size >= words &&
           (!words || f->mem[0] == seed) && (words < 2 || f->mem[words - 1] == ~seed);
}

static void *thread_b(void *arg)
{
    (void)arg;
    for (;;) {
        sem_wait(&to_b);
        if (done)
            return NULL;
        int ok = 1;
        for (size_t i = 0; i < handed_n; i++) {
            if (!intact(handed[i], handed_words, (Term)i * 7 + handed_words))
                ok = 0;
            heap_frag_free(handed[i]);
        }
        CHECK(ok);
        sem_post(&to_a);
    }
}

/* Blocks per round for blocks of `words`: a few batches of small ones
 * (and never a whole number of batches), one of the largest, about 512 KiB
 * at most. */
static size_t blocks_for(size_t words)
{
    size_t bytes = POOL_RECORD_BYTES + words * sizeof(Term);
    size_t n = ((size_t)512 << 10) / bytes;
    return n < 1 ? 1 : n > 700 ? 700 : n;
}

static void round_trip(size_t words, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        handed[i] = heap_frag_new(words);
        fill(handed[i], words, (Term)i * 7 + words);
    }
    handed_n = n;
    handed_words = words;
    sem_post(&to_b);
    sem_wait(&to_a);
}

static void test_every_class(void)
{
    /* The memory a class needs for this traffic grows until the freeing
     * thread's own list (up to what it may keep, LOCAL_KEEP_BYTES in
     * pool.c, less one batch) has been at its longest, which takes at most
     * a batch's count of rounds (256) once it is full, and filling it takes
     * at most 512 KiB / (32 bytes x 700 blocks a round) = 24 rounds;
     * from then on nothing is mapped. */
    enum { WARM = 2 + 24 + 256, STEADY = 8 };
    sem_init(&to_a, 0, 0);
    sem_init(&to_b, 0, 0);
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    /* one size in every class up to 4 MiB (the classes above differ only
     * in size, and the test would keep hundreds of megabytes): from 0
     * words, each next size the smallest the previous block's class does
     * not hold */
    int classes = 0, steady = 1;
    size_t words = 0;
    while (POOL_RECORD_BYTES + words * sizeof(Term) <= ((size_t)4 << 20)) {
        size_t n = blocks_for(words);
        for (int r = 0; r < WARM; r++)
            round_trip(words, n);
        size_t mapped = pool_mapped_bytes();
        for (int r = 0; r < STEADY; r++)
            round_trip(words, n);
        if (pool_mapped_bytes() != mapped) {
            steady = 0;
            fprintf(stderr, "class of %zu words: %zu bytes mapped after %d rounds, %zu after %d\n",
                    words, mapped, WARM, pool_mapped_bytes(), WARM + STEADY);
        }
        HeapFrag *f = heap_frag_new(words);
        size_t cap = f->size;
        CHECK(cap >= words && (cap - words) * 4 <= (POOL_RECORD_BYTES / sizeof(Term) + cap));
        heap_frag_free(f);
        classes++;
        words = cap + 1;
    }
    CHECK(classes == 66);       /* 32..96 bytes, four per doubling to 4 MiB */
    CHECK(steady);
    /* the largest class: its whole block, and it comes back */
    size_t top = (POOL_MAX_BYTES - POOL_RECORD_BYTES) / sizeof(Term);
    HeapFrag *t = heap_frag_new(top - 100);
    CHECK(t && t->size == top);
    heap_frag_free(t);
    size_t mapped = pool_mapped_bytes();
    CHECK(heap_frag_new(top) == t);
    heap_frag_free(t);
    CHECK(pool_mapped_bytes() == mapped);
    /* past the largest class: mapped alone, unmapped when freed */
    size_t large = POOL_MAX_BYTES / sizeof(Term) + 1;
    CHECK(pool_large_blocks() == 0);
    round_trip(large, 1);
    CHECK(pool_large_blocks() == 0);
    HeapFrag *f = heap_frag_new(large);
    CHECK(f && f->size == large && pool_large_blocks() == 1);
    heap_frag_free(f);
    CHECK(pool_large_blocks() == 0);
    done = 1;
    sem_post(&to_b);
    pthread_join(b, NULL);
}

/* ---- a ring of threads ---- */

#define RING 4
#define QCAP 256
#define PER_THREAD 200000

typedef struct {
    _Atomic size_t head, tail;               /* single producer, single consumer */
    HeapFrag *slot[QCAP];
} Queue;

static Queue queues[RING];                   /* queue i: thread i -> thread i+1 */

static size_t ring_words(size_t k)           /* mostly small, now and then large */
{
    static const size_t sizes[] = { 0, 1, 2, 3, 5, 12, 13, 40, 53, 100, 300, 2000 };
    return sizes[k % (sizeof sizes / sizeof sizes[0])];
}

static int try_push(Queue *q, HeapFrag *f)
{
    size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    if (t - atomic_load_explicit(&q->head, memory_order_acquire) == QCAP)
        return 0;
    q->slot[t % QCAP] = f;
    atomic_store_explicit(&q->tail, t + 1, memory_order_release);
    return 1;
}

static HeapFrag *try_pop(Queue *q)
{
    size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    if (h == atomic_load_explicit(&q->tail, memory_order_acquire))
        return NULL;
    HeapFrag *f = q->slot[h % QCAP];
    atomic_store_explicit(&q->head, h + 1, memory_order_release);
    return f;
}

static _Atomic long ring_bad;

static void *ring_thread(void *arg)
{
    long id = (long)arg;
    Queue *out = &queues[id], *in = &queues[(id + RING - 1) % RING];
    size_t sent = 0, got = 0;
    HeapFrag *pending = NULL;
    while (sent < PER_THREAD || got < PER_THREAD) {
        if (sent < PER_THREAD) {
            if (!pending) {
                size_t words = ring_words(sent);
                pending = heap_frag_new(words);
                fill(pending, words, (Term)(id << 32 | sent));
            }
            if (try_push(out, pending)) {
                pending = NULL;
                sent++;
            }
        }
        HeapFrag *f = try_pop(in);
        if (f) {
            long from = (id + RING - 1) % RING;
            if (!intact(f, ring_words(got), (Term)(from << 32 | got)))
                atomic_fetch_add(&ring_bad, 1);
            heap_frag_free(f);
            got++;
        }
    }
    return NULL;
}

static void test_ring(void)
{
    size_t before = pool_mapped_bytes();
    pthread_t th[RING];
    for (long i = 0; i < RING; i++)
        pthread_create(&th[i], NULL, ring_thread, (void *)i);
    for (int i = 0; i < RING; i++)
        pthread_join(th[i], NULL);
    CHECK(atomic_load(&ring_bad) == 0);
    /* about 1.7 GB passed through; what was mapped for it is bounded by
     * what can be in flight and kept per thread */
    size_t grew = pool_mapped_bytes() - before;
    CHECK(grew <= (size_t)RING * 32 << 20);
}

/* ---- a thread takes back its own batches first ---- */

/* Past what a thread keeps on its own list (512 KiB: 16,384 bare records),
 * its frees go to stacks any thread may take from; the thread that made
 * them takes them first, so a core reuses memory its own cache last held
 * (pool.c, batch_take). Thread B takes as many blocks as A will (so it
 * needs none of A's later); A frees more than it keeps; then B frees its
 * blocks, its batches pushed after A's. When A allocates as much again,
 * every block must be one A freed itself. With one stack shared by every
 * thread, B's batches are on top and A takes them. */
#define OWN_N (16384 + 4 * 256)
static HeapFrag *own_a[OWN_N], *own_b[OWN_N], *own_again[OWN_N];
static sem_t own_b_holds, own_a_freed, own_b_freed;
static int own_ok;

static int cmp_ptr(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t)*(HeapFrag *const *)x, b = (uintptr_t)*(HeapFrag *const *)y;
    return a < b ? -1 : a > b;
}

static void *own_thread_a(void *arg)
{
    (void)arg;
    sem_wait(&own_b_holds);
    for (int i = 0; i < OWN_N; i++)
        own_a[i] = pool_frag_new(0);
    for (int i = 0; i < OWN_N; i++)
        pool_frag_free(own_a[i]);
    qsort(own_a, OWN_N, sizeof own_a[0], cmp_ptr);
    sem_post(&own_a_freed);
    sem_wait(&own_b_freed);
    int mine = 0;
    for (int i = 0; i < OWN_N; i++) {
        own_again[i] = pool_frag_new(0);
        mine += bsearch(&own_again[i], own_a, OWN_N, sizeof own_a[0], cmp_ptr) != NULL;
    }
    for (int i = 0; i < OWN_N; i++)
        pool_frag_free(own_again[i]);
    own_ok = mine == OWN_N;
    if (!own_ok)
        fprintf(stderr, "own batches: %d of %d blocks were the thread's own\n", mine, OWN_N);
    return NULL;
}

static void *own_thread_b(void *arg)
{
    (void)arg;
    for (int i = 0; i < OWN_N; i++)
        own_b[i] = pool_frag_new(0);
    sem_post(&own_b_holds);
    sem_wait(&own_a_freed);
    for (int i = 0; i < OWN_N; i++)
        pool_frag_free(own_b[i]);
    sem_post(&own_b_freed);
    return NULL;
}

static void test_own_batches_first(void)
{
    sem_init(&own_b_holds, 0, 0);
    sem_init(&own_a_freed, 0, 0);
    sem_init(&own_b_freed, 0, 0);
    pthread_t a, b;
    pthread_create(&a, NULL, own_thread_a, NULL);
    pthread_create(&b, NULL, own_thread_b, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(own_ok);
}

/* ---- the arena lookup ---- */

static void test_arena_lookup(void)
{
    int ok = 1;
    for (size_t words = 0; POOL_RECORD_BYTES + words * sizeof(Term) <= ((size_t)1 << 22);
         words = words * 5 / 4 + 1) {
        HeapFrag *a = heap_frag_new(words), *b = heap_frag_new(words);
        HeapFrag *fs[2] = { a, b };
        for (int k = 0; k < 2; k++) {
            HeapFrag *f = fs[k];
            uintptr_t lo = (uintptr_t)f, hi = (uintptr_t)(f->mem + f->size);
            if (lo - pool_arena_lo >= pool_arena_hi - pool_arena_lo)
                continue;                        /* outside the arena */
            uintptr_t probe[] = { lo, lo + 8, hi - 8, lo + (hi - lo) / 2 };
            for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++)
                if (pool_arena_frag(probe[i] & ~(uintptr_t)7) != f)
                    ok = 0;
        }
        heap_frag_free(a);
        heap_frag_free(b);
    }
    CHECK(pool_arena_lo != 0);
    CHECK(ok);
}

int main(void)
{
    test_every_class();
    test_ring();
    test_own_batches_first();
    test_arena_lookup();
    printf("test_msgpool: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
