/* test_heap_block.c — where heap blocks come from (vm/heap_block.c).
 *
 *  - every size range gives writable blocks of the size asked for, and
 *    refuses no words and more than any machine has;
 *  - a small block freed is handed out again for the same size;
 *  - a big block freed is kept by the thread that freed it and serves the
 *    next request of up to its size on that thread, with its memory
 *    intact; a bigger request gets a new block; no more than a handful are
 *    kept; the idle check says when the next one goes, and giving them all
 *    back leaves none;
 *  - a block made on one thread and freed on another is kept by the other.
 * Sanitizer and stress builds use malloc for every size (a stale pointer
 * is then caught at once): there the reuse checks do not apply.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "heap_block.h"

static int failures, checks;
#define CHECK(c) do { checks++; if (!(c)) { failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

#if defined(GC_STRESS) || defined(__SANITIZE_ADDRESS__)
#define KEEPS 0
#else
#define KEEPS 1
#endif

#define BIG_WORDS (HEAP_BLOCK_BIG_BYTES / sizeof(Term))

/* writes every 512th word and the last, then reads them back */
static int fill_and_check(Term *b, size_t words, Term seed)
{
    for (size_t i = 0; i < words - 1; i += 512)
        b[i] = seed + i;
    b[words - 1] = ~seed;
    for (size_t i = 0; i < words - 1; i += 512)
        if (b[i] != seed + i)
            return 0;
    return b[words - 1] == ~seed;
}

static void sizes(void)
{
    size_t each[] = {55, 233, 1 << 15, (1 << 15) + 1, 300000, BIG_WORDS - 8, BIG_WORDS,
                     BIG_WORDS + BIG_WORDS / 2};
    for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
        Term *b = heap_block_alloc(each[i]);
        CHECK(b != NULL);
        if (b) {
            CHECK(fill_and_check(b, each[i], (Term)i * 1000003));
            heap_block_free(b, each[i]);
        }
    }
    CHECK(heap_block_alloc(0) == NULL);
    CHECK(heap_block_alloc(HEAP_BLOCK_MAX_WORDS + 1) == NULL);
    heap_block_free(NULL, 100);            /* nothing to do */
    heap_block_release_all();
}

static void small_spare(void)
{
    Term *a = heap_block_alloc(377);
    CHECK(a != NULL);
    heap_block_free(a, 377);
    Term *b = heap_block_alloc(377);
    if (KEEPS)
        CHECK(b == a);
    heap_block_free(b, 377);
    heap_block_release_all();
}

static void big_kept(void)
{
    size_t w = BIG_WORDS + BIG_WORDS / 4;
    Term *a = heap_block_alloc(w);
    CHECK(a != NULL && fill_and_check(a, w, 77));
    CHECK(heap_block_kept_bytes() == 0);
    CHECK(heap_block_release_idle() == -1);
    heap_block_free(a, w);
    if (!KEEPS) {
        CHECK(heap_block_kept_bytes() == 0);
        heap_block_release_all();
        return;
    }
    CHECK(heap_block_kept_bytes() >= w * sizeof(Term));
    int64_t left = heap_block_release_idle();   /* freed just now: kept on */
    CHECK(left > 0 && left <= 1000000);
    CHECK(heap_block_kept_bytes() >= w * sizeof(Term));

    /* a smaller big request takes it back, its words as they were */
    Term *b = heap_block_alloc(BIG_WORDS);
    CHECK(b == a);
    CHECK(heap_block_kept_bytes() == 0);
    CHECK(b[512] == 77 + 512);
    heap_block_free(b, BIG_WORDS);

    /* a bigger one cannot: a new block, the kept one stays */
    size_t kept = heap_block_kept_bytes();
    Term *c = heap_block_alloc(2 * w);
    CHECK(c != NULL && c != a);
    CHECK(heap_block_kept_bytes() == kept);
    heap_block_free(c, 2 * w);

    /* many freed: only a few are kept */
    Term *many[10];
    for (int i = 0; i < 10; i++)
        many[i] = heap_block_alloc(BIG_WORDS);
    for (int i = 0; i < 10; i++)
        heap_block_free(many[i], BIG_WORDS);
    CHECK(heap_block_kept_bytes() > 0);
    CHECK(heap_block_kept_bytes() <= 8 * (2 * w * sizeof(Term) + (4u << 20)));

    heap_block_release_all();
    CHECK(heap_block_kept_bytes() == 0);
    CHECK(heap_block_release_idle() == -1);
}

/* made here, freed on another thread: kept there, not here */
static Term *handed;
static size_t other_kept;
static void *free_elsewhere(void *arg)
{
    (void)arg;
    heap_block_free(handed, BIG_WORDS);
    other_kept = heap_block_kept_bytes();
    heap_block_release_all();
    return NULL;
}

static void across_threads(void)
{
    handed = heap_block_alloc(BIG_WORDS);
    CHECK(handed != NULL && fill_and_check(handed, BIG_WORDS, 5));
    pthread_t t;
    pthread_create(&t, NULL, free_elsewhere, NULL);
    pthread_join(t, NULL);
    CHECK(heap_block_kept_bytes() == 0);
    if (KEEPS)
        CHECK(other_kept >= BIG_WORDS * sizeof(Term));
}

int main(void)
{
    heap_block_init();
    sizes();
    small_spare();
    big_kept();
    across_threads();
    printf("test_heap_block: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
