/* test_gc.c — unit tests for heap.c and gc.c: the collector keeps every live
 * value intact (checked by a structural hash and by walking), keeps sharing,
 * leaves literals, CPs and catch markers alone, merges fragments, promotes
 * and does not rescan the old heap, and sizes the heap sensibly.
 *
 * The tests build terms the way the emulator does: gc_ensure(p, n, live),
 * then bump htop; every value that must survive a collection sits in an x
 * register or a stack slot, never in a C variable across gc_ensure.
 * Built with -DGC_STRESS=1 every gc_ensure collects and heap_alloc always
 * uses fragments; sizes are then smaller, and the counts of copied words are
 * not checked (stress builds force a major collection every 64th time).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"
#include "module.h"
#include "process.h"
#include "proc_dict.h"

#ifndef GC_STRESS
#define GC_STRESS 0
#endif

#define BIG_N (GC_STRESS ? 20000 : 1000000)

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* ---- building terms ---------------------------------------------------- */

static Term *take(Process *p, size_t n, int live)
{
    gc_ensure(p, n, live);
    if (!gc_has_room(p, n)) {
        fprintf(stderr, "out of memory in test\n");
        exit(2);
    }
    Term *hp = p->htop;
    p->htop += n;
    return hp;
}

/* x[reg] = [value | x[reg]] with value = x[vreg]; live registers: live. */
static void push_cons_reg(Process *p, int reg, int vreg, int live)
{
    Term *h = take(p, 2, live);
    h[0] = p->x[vreg];
    h[1] = p->x[reg];
    p->x[reg] = make_list(h);
}

static void push_small(Process *p, int reg, SWord v, int live)
{
    Term *h = take(p, 2, live);
    h[0] = make_small(v);
    h[1] = p->x[reg];
    p->x[reg] = make_list(h);
}

static FunEntry test_fun = { .arity = 1, .nfree = 2, .uniq = 42 };
static Export test_export = { .arity = 3 };
static Instr code[64] __attribute__((aligned(16)));

/* A term of every kind the collector knows, built in `hp` (MIXED_WORDS). */
#define MIXED_WORDS 39
static Term build_mixed_at(Term *hp, SWord i)
{
    Term *start = hp;
    Term fl = make_float_at(hp, (double)i + 0.5); hp += 2;
    Term big = make_boxed(hp);
    hp[0] = make_header(2, BOXED_POS_BIG); hp[1] = (Term)i * 7u; hp[2] = 1; hp += 3;
    Term neg = make_boxed(hp);
    hp[0] = make_header(1, BOXED_NEG_BIG); hp[1] = ~(Term)i; hp += 2;   /* raw: tag bits anything */
    Term ref = make_boxed(hp);
    hp[0] = make_header(2, BOXED_REF); hp[1] = (Term)i; hp[2] = 0x12345678; hp += 3;
    Term fun = make_boxed(hp);
    hp[0] = make_header(3, BOXED_FUN); hp[1] = (Term)&test_fun; hp[2] = fl; hp[3] = big; hp += 4;
    Term exp = make_boxed(hp);
    hp[0] = make_header(1, BOXED_EXPORT); hp[1] = (Term)&test_export; hp += 2;
    Term bin = make_boxed(hp);
    hp[0] = make_header(2, BOXED_HEAP_BIN); hp[1] = 5; hp[2] = 0x0605040302010001ull; hp += 3;
    Term c2 = make_list(hp); hp[0] = fl; hp[1] = NIL; hp += 2;           /* shares fl */
    Term c1 = make_list(hp); hp[0] = make_small(i); hp[1] = c2; hp += 2;
    Term tup = make_boxed(hp);
    hp[0] = make_tuple_header(12);
    hp[1] = fl; hp[2] = big; hp[3] = neg; hp[4] = ref; hp[5] = fun; hp[6] = exp;
    hp[7] = bin; hp[8] = c1; hp[9] = make_atom(i % 100); hp[10] = make_pid(i);
    hp[11] = make_port(i); hp[12] = NIL;
    hp += 13;
    if (hp - start != MIXED_WORDS - 3) { fprintf(stderr, "MIXED_WORDS wrong: %td\n", hp - start); exit(2); }
    Term outer = make_boxed(hp);       /* {tup}: a boxed pointer to a boxed */
    hp[0] = make_tuple_header(2); hp[1] = tup; hp[2] = fun;
    return outer;
}

/* ---- checking terms ---------------------------------------------------- */

typedef struct { Term *v; size_t n, cap; } Stack;
static void spush(Stack *s, Term t)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = realloc(s->v, s->cap * sizeof(Term));
    }
    s->v[s->n++] = t;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* A hash of the structure, independent of addresses; iterative. */
static uint64_t hash_term(Term t)
{
    Stack s = {0};
    uint64_t h = 1;
    spush(&s, t);
    while (s.n) {
        t = s.v[--s.n];
        if (is_list(t)) {
            h = mix(h, 1);
            spush(&s, list_tail(t));
            spush(&s, list_head(t));
        } else if (is_boxed(t)) {
            Term hd = boxed_header(t);
            Term *o = boxed_ptr(t);
            size_t n = header_arity(hd);
            h = mix(h, hd);
            switch (header_subtag(hd)) {
            case BOXED_TUPLE:
                for (size_t i = n; i >= 1; i--) spush(&s, o[i]);
                break;
            case BOXED_FUN:
                h = mix(h, o[1]);
                for (size_t i = n; i >= 2; i--) spush(&s, o[i]);
                break;
            default:
                for (size_t i = 1; i <= n; i++) h = mix(h, o[i]);
            }
        } else {
            h = mix(h, t);
        }
    }
    free(s.v);
    return h;
}

static uint64_t mixed_hash(SWord i)
{
    Term buf[MIXED_WORDS];
    return hash_term(build_mixed_at(buf, i));
}

static int check_range_list(Term l, SWord from_high, SWord count)
{
    for (SWord k = 0; k < count; k++) {
        if (!is_list(l) || list_head(l) != make_small(from_high - k))
            return 0;
        l = list_tail(l);
    }
    return l == NIL;
}

/* ---- tests ------------------------------------------------------------- */

static void test_big_list(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < BIG_N; i++)
        push_small(p, 0, i, 1);
    CHECK(check_range_list(p->x[0], BIG_N - 1, BIG_N));
    CHECK(p->gc.minor > 0);
    gc_full(p, 1);
    CHECK(check_range_list(p->x[0], BIG_N - 1, BIG_N));
    CHECK(p->old_heap == NULL);
    gc_collect(p, 0, 1, 0);
    gc_collect(p, 0, 1, 0);
    CHECK(check_range_list(p->x[0], BIG_N - 1, BIG_N));
    /* drop it: a full collection gives the memory back */
    size_t big = gc_total_heap_size(p);
    p->x[0] = NIL;
    gc_full(p, 1);
    CHECK(gc_total_heap_size(p) < big / 100);
    CHECK(gc_heap_size(p) == p->min_heap_size);
    CHECK(p->gc.words_reclaimed >= (UWord)2 * BIG_N);
    process_free_memory(p);
}

static void test_mixed_and_sharing(void)
{
    enum { N = GC_STRESS ? 300 : 3000 };
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < N; i++) {
        Term *hp = take(p, MIXED_WORDS, 1);
        p->x[1] = build_mixed_at(hp, i);
        push_cons_reg(p, 0, 1, 2);
    }
    for (int round = 0; round < 4; round++) {
        if (round == 2)
            gc_full(p, 1);
        else
            gc_collect(p, 0, 1, 0);
        Term l = p->x[0];
        int ok = 1;
        for (SWord i = N - 1; i >= 0; i--, l = list_tail(l)) {
            Term m = list_head(l);
            if (hash_term(m) != mixed_hash(i)) ok = 0;
            /* sharing inside one item survives: fun is both {_, Fun} and inside tup */
            Term tup = tuple_elems(m)[0];
            if (tuple_elems(m)[1] != tuple_elems(tup)[4]) ok = 0;
            Term fl = tuple_elems(tup)[0];
            Term c2 = list_tail(tuple_elems(tup)[7]);
            if (list_head(c2) != fl) ok = 0;
            if (boxed_ptr(tuple_elems(tup)[4])[1] != (Term)&test_fun) ok = 0;
            if (boxed_ptr(tuple_elems(tup)[5])[1] != (Term)&test_export) ok = 0;
            if (float_val(fl) != (double)i + 0.5) ok = 0;
        }
        CHECK(ok);
        CHECK(l == NIL);
    }
    process_free_memory(p);
}

static void test_shared_roots(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < 1000; i++)
        push_small(p, 0, i, 1);
    Term *h = take(p, 4, 1);
    h[0] = make_tuple_header(3);
    h[1] = p->x[0]; h[2] = p->x[0]; h[3] = list_tail(p->x[0]);
    p->x[1] = make_boxed(h);
    p->x[2] = p->x[0];
    gc_ensure(p, 1, 3);
    p->stop -= 1;
    p->stop[0] = p->x[0];
    int failed;
    proc_dict_put(&p->dict, make_small(1), p->x[1], &failed);   /* the dictionary's pairs are roots */
    CHECK(!failed);
    gc_full(p, 3);
#if !GC_STRESS
    CHECK(p->gc_last_copied == 2000 + 4);
#endif
    Term t = p->x[1];
    CHECK(tuple_elems(t)[0] == tuple_elems(t)[1]);
    CHECK(tuple_elems(t)[0] == p->x[0]);
    CHECK(p->x[2] == p->x[0]);
    CHECK(p->stop[0] == p->x[0]);
    CHECK(p->dict->kv[2 * proc_dict_find(p->dict, make_small(1)) + 1] == p->x[1]);
    CHECK(tuple_elems(t)[2] == list_tail(p->x[0]));
    CHECK(check_range_list(p->x[0], 999, 1000));
    /* exception fields are roots too */
    p->exc_reason = p->x[0];
    p->exc_trace = p->x[1];
    p->x[0] = p->x[1] = p->x[2] = NIL;
    proc_dict_free(p->dict);
    p->dict = NULL;
    p->stop[0] = NIL;
    gc_collect(p, 0, 0, 0);
    gc_full(p, 0);
    CHECK(check_range_list(p->exc_reason, 999, 1000));
    CHECK(tuple_elems(p->exc_trace)[0] == p->exc_reason);
    process_free_memory(p);
}

/* Lists that share cells: a list whose tail is another root's list, a
 * root into the middle of a list, an improper tail; the collector must copy
 * every cell once and keep them shared. Roots: x0 = S = [999..0], x1 =
 * [b, a | S] (reaches S's first cell, moved before), x2 = [z | {t}] (a
 * boxed tail), x3 = the middle of S. (A collector that copies a spine in
 * one loop must stop at a moved cell; one was measured and not kept,
 * docs/internals.md, "The collector".) */
static void test_spines(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < 1000; i++)
        push_small(p, 0, i, 1);
    p->x[1] = p->x[0];
    p->x[2] = make_atom('a');
    push_cons_reg(p, 1, 2, 3);
    p->x[2] = make_atom('b');
    push_cons_reg(p, 1, 2, 3);
    Term *h = take(p, 4, 2);
    h[0] = make_tuple_header(1);
    h[1] = make_atom('t');
    h[2] = make_atom('z');
    h[3] = make_boxed(h);
    p->x[2] = make_list(h + 2);
    Term s = p->x[0];
    for (int i = 0; i < 500; i++)
        s = list_tail(s);
    p->x[3] = s;
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            gc_full(p, 4);
        else
            gc_collect(p, 0, 4, 0);
#if !GC_STRESS
        /* the full collection and the minor after it copy the live words
         * once each: nothing twice, the shared suffix and cell included */
        if (round > 0)
            CHECK(p->gc_last_copied == 2000 + 4 + 2 + 2);
#endif
        CHECK(check_range_list(p->x[0], 999, 1000));
        Term l1 = p->x[1];
        CHECK(list_head(l1) == make_atom('b'));
        CHECK(list_head(list_tail(l1)) == make_atom('a'));
        CHECK(list_tail(list_tail(l1)) == p->x[0]);
        Term l2 = p->x[2];
        CHECK(list_head(l2) == make_atom('z'));
        CHECK(is_boxed(list_tail(l2)) && tuple_elems(list_tail(l2))[0] == make_atom('t'));
        Term m = p->x[0];
        for (int i = 0; i < 500; i++)
            m = list_tail(m);
        CHECK(p->x[3] == m);
    }
    process_free_memory(p);
}

/* Frames [CP, y0 = [i], y1 = 0 (unset), y2 = catch, y3 = small] */
static void test_stack_frames(void)
{
    /* every collection scans the whole stack: keep stress builds quick */
    enum { DEPTH = GC_STRESS ? 3000 : 1000000 };
    Process *p = process_new_memory(0);
    p->x[0] = make_atom(3);
    for (SWord i = 0; i < DEPTH; i++) {
        gc_ensure(p, 5, 1);
        p->stop -= 5;
        p->stop[0] = make_cp(&code[i % 64]);
        p->stop[1] = NIL;
        p->stop[2] = THE_NON_VALUE;
        p->stop[3] = make_catch(&code[(i + 1) % 64]);
        p->stop[4] = make_small(i);
        Term *h = take(p, 2, 1);
        h[0] = make_small(i);
        h[1] = NIL;
        p->stop[1] = make_list(h);
    }
    CHECK(gc_stack_size(p) == (size_t)5 * DEPTH);
    gc_collect(p, 0, 1, 0);
    gc_full(p, 1);
    int ok = 1;
    for (SWord i = DEPTH - 1; i >= 0; i--) {
        Term *f = p->stop;
        if (f[0] != make_cp(&code[i % 64])) ok = 0;
        if (!is_list(f[1]) || list_head(f[1]) != make_small(i) || list_tail(f[1]) != NIL) ok = 0;
        if (f[2] != THE_NON_VALUE) ok = 0;
        if (f[3] != make_catch(&code[(i + 1) % 64])) ok = 0;
        if (f[4] != make_small(i)) ok = 0;
        p->stop += 5;
        if (i % 100000 == 0)
            gc_ensure(p, 1, 1);      /* unwinding with collections in between */
    }
    CHECK(ok);
    CHECK(p->stop == p->hend);
    CHECK(p->x[0] == make_atom(3));
    gc_full(p, 1);
    CHECK(gc_heap_size(p) == p->min_heap_size);
    process_free_memory(p);
}

static void test_deep_tuple_chain(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < BIG_N; i++) {
        Term *h = take(p, 3, 1);
        h[0] = make_tuple_header(2);
        h[1] = make_small(i);
        h[2] = p->x[0];
        p->x[0] = make_boxed(h);
    }
    gc_full(p, 1);
    gc_collect(p, 0, 1, 0);
    Term t = p->x[0];
    int ok = 1;
    for (SWord i = BIG_N - 1; i >= 0; i--) {
        if (!is_tuple(t) || tuple_elems(t)[0] != make_small(i)) { ok = 0; break; }
        t = tuple_elems(t)[1];
    }
    CHECK(ok && t == NIL);
    process_free_memory(p);
}

static void test_fragments(void)
{
    enum { N = GC_STRESS ? 5000 : 100000, MSGS = 3000 };
    Process *p = process_new_memory(0);
    /* a list built only with heap_alloc: heap first, then many fragments */
    p->x[0] = NIL;
    for (SWord i = 0; i < N; i++) {
        Term *h = heap_alloc(p, 2);
        h[0] = make_small(i);
        h[1] = p->x[0];
        p->x[0] = make_list(h);
    }
    CHECK(p->mbuf != NULL);
    CHECK(p->mbuf_words >= (size_t)2 * N - gc_heap_size(p));
    /* messages in flight, built in their own fragments, then attached;
     * each points to nothing outside itself; x1 collects them */
    p->x[1] = NIL;
    for (SWord i = 0; i < MSGS; i++) {
        HeapFrag *f = heap_frag_new(MIXED_WORDS + 2);
        Term m = build_mixed_at(f->mem, i);
        f->mem[MIXED_WORDS] = m;                  /* a cons [m | x1] in the fragment */
        f->mem[MIXED_WORDS + 1] = p->x[1];
        f->used = MIXED_WORDS + 2;
        heap_attach_frag(p, f);
        p->x[1] = make_list(f->mem + MIXED_WORDS);
    }
    /* a fragment object pointing at a heap object and at fragment objects */
    Term *h = heap_alloc(p, 3);
    h[0] = make_tuple_header(2);
    h[1] = p->x[0];
    h[2] = p->x[1];
    p->x[2] = make_boxed(h);
    UWord gcs = p->gc.minor + p->gc.major;
    gc_ensure(p, 0, 3);                           /* fragments are too big: collects */
    CHECK(p->gc.minor + p->gc.major == gcs + 1);
    CHECK(p->mbuf == NULL && p->mbuf_words == 0);
    CHECK(check_range_list(p->x[0], N - 1, N));
    Term l = p->x[1];
    int ok = 1;
    for (SWord i = MSGS - 1; i >= 0; i--, l = list_tail(l))
        if (hash_term(list_head(l)) != mixed_hash(i)) ok = 0;
    CHECK(ok && l == NIL);
    CHECK(tuple_elems(p->x[2])[0] == p->x[0]);
    CHECK(tuple_elems(p->x[2])[1] == p->x[1]);
    process_free_memory(p);
}

static void test_promotion(void)
{
    /* a minimum heap that holds the 100 young cells below without collecting */
    Process *p = process_new_memory(1000);
    p->x[0] = NIL;
    for (SWord i = 0; i < 10000; i++)
        push_small(p, 0, i, 1);
    gc_full(p, 1);
    CHECK(p->old_heap == NULL);
    CHECK(p->high_water == p->htop);
    UWord minors = p->gc.minor;
    (void)minors;
    gc_collect(p, 0, 1, 0);                 /* survivors of the last one: promoted */
    CHECK(p->old_heap != NULL);
    CHECK((size_t)(p->old_htop - p->old_heap) >= 20000);
    CHECK(p->htop == p->heap);               /* nothing young left */
#if !GC_STRESS
    CHECK(p->gc.minor == minors + 1);
    CHECK(p->gc_last_copied == 20000);
#endif
    /* new young data on top of the old list */
    for (SWord i = 10000; i < 10100; i++)
        push_small(p, 0, i, 1);
    gc_collect(p, 0, 1, 0);
#if !GC_STRESS
    /* the old heap's 20000 words are not copied (200 words, twice if the
     * young block had to grow) */
    CHECK(p->gc_last_copied == 200 || p->gc_last_copied == 400);
#endif
    gc_collect(p, 0, 1, 0);
#if !GC_STRESS
    CHECK(p->gc_last_copied == 200);         /* the 100 cells are promoted... */
    gc_collect(p, 0, 1, 0);
    CHECK(p->gc_last_copied == 0);           /* ...and then nothing is copied */
    CHECK(p->gc.minor == minors + 4);
#endif
    CHECK(check_range_list(p->x[0], 10099, 10100));
    UWord majors = p->gc.major;
    gc_full(p, 1);
    CHECK(p->gc.major == majors + 1);
    CHECK(p->old_heap == NULL);
    CHECK(check_range_list(p->x[0], 10099, 10100));
    /* fullsweep_after 0: every collection is major */
    p->max_gen_gcs = 0;
    majors = p->gc.major;
    gc_collect(p, 0, 1, 0);
    gc_collect(p, 0, 1, 0);
    CHECK(p->gc.major == majors + 2);
    CHECK(p->old_heap == NULL);
    CHECK(check_range_list(p->x[0], 10099, 10100));
    process_free_memory(p);
}

/* Old-heap growth through many minors: a list that keeps growing, with
 * frequent majors when the old heap fills. */
static void test_growing_generations(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    p->x[1] = NIL;
    for (SWord i = 0; i < BIG_N / 2; i++) {
        push_small(p, 0, i, 2);
        Term *g = take(p, 3, 2);               /* garbage */
        g[0] = make_tuple_header(2); g[1] = make_small(i); g[2] = p->x[0];
        if (i % 1000 == 0)
            p->x[1] = make_boxed(g);          /* ... sometimes kept */
    }
    CHECK(check_range_list(p->x[0], BIG_N / 2 - 1, BIG_N / 2));
    CHECK(tuple_elems(p->x[1])[1] == p->x[0] || is_list(tuple_elems(p->x[1])[1]));
#if !GC_STRESS
    CHECK(p->gc.major >= 1);
    CHECK(p->gc.minor > p->gc.major);
#endif
    process_free_memory(p);
}

static void test_garbage_loop(void)
{
    const SWord iters = GC_STRESS ? 200000 : 10000000;
    Process *p = process_new_memory(0);
    Term *h = take(p, 3, 0);
    h[0] = make_tuple_header(2); h[1] = make_small(1); h[2] = make_small(2);
    p->x[0] = make_boxed(h);
    size_t max_heap = 0;
    for (SWord i = 0; i < iters; i++) {
        Term *g = take(p, 3, 1);
        g[0] = make_tuple_header(2); g[1] = make_small(i); g[2] = p->x[0];
        if (gc_total_heap_size(p) > max_heap)
            max_heap = gc_total_heap_size(p);
    }
    CHECK(max_heap <= 1000);
    CHECK(p->gc.words_reclaimed > (UWord)(iters * 3) / 2);
    CHECK(tuple_elems(p->x[0])[0] == make_small(1));
    process_free_memory(p);
}

/* A process with a big dictionary: every collection scans its table, so
 * the young block is at least the table's words and the collections come
 * at most once per that many words allocated; unless a max_heap_size would
 * be passed, when the dictionary asks for nothing. */
static void garbage_beside_dict(Process *p, SWord iters)
{
    for (SWord i = 0; i < iters; i++) {
        Term *g = take(p, 11, 0);
        g[0] = make_tuple_header(10);
        for (int k = 1; k <= 10; k++) g[k] = make_small(i);
    }
}

static void test_dictionary_nursery(void)
{
    enum { KEYS = 100000 };
    Process *p = process_new_memory(0);
    int failed = 0;
    for (SWord k = 0; k < KEYS; k++) proc_dict_put(&p->dict, make_small(k), make_small(k), &failed);
    CHECK(!failed);
    size_t table_words = 2 * ((size_t)p->dict->mask + 1);
    const SWord iters = GC_STRESS ? 20000 : 200000;
    garbage_beside_dict(p, iters);
    CHECK(gc_heap_size(p) >= table_words);
    /* (GC_STRESS collects at every allocation: only the floor holds there) */
    UWord collections = p->gc.minor + p->gc.major;
    if (!GC_STRESS) CHECK(collections <= (UWord)(iters * 11) / table_words + 2);
    CHECK(proc_dict_find(p->dict, make_small(KEYS - 1)) >= 0);
    process_free_memory(p);

    Process *q = process_new_memory(0);
    q->max_heap_size = 4096;
    for (SWord k = 0; k < KEYS; k++) proc_dict_put(&q->dict, make_small(k), make_small(k), &failed);
    garbage_beside_dict(q, 20000);
    CHECK(gc_heap_size(q) < 4096);
    process_free_memory(q);
}

/* Holds a tuple of n elements in x0, made at once (a young block that big,
 * none of it promoted yet). */
static void hold_tuple(Process *p, size_t n)
{
    Term *t = take(p, n + 1, 0);
    t[0] = make_tuple_header(n);
    for (size_t i = 1; i <= n; i++) t[i] = make_small((SWord)i);
    p->x[0] = make_boxed(t);
}

/* OTP's rule: a young block of 3,000 words or fewer is never made smaller,
 * so a process whose live data is tiny but which once needed a couple of
 * thousand words does not go back to collecting every few hundred words
 * allocated (n-body did: 11,400 collections, now 2,100 and a third of the
 * time). A bigger block still shrinks when its live data falls. */
static void test_small_blocks_kept(void)
{
    Process *p = process_new_memory(0);
    hold_tuple(p, 1800);
    size_t grown = gc_heap_size(p);
    CHECK(grown >= 1800 && grown <= 3000);
    p->x[0] = NIL;
    UWord before = p->gc.minor + p->gc.major;
    garbage_beside_dict(p, 20000);           /* 220,000 words of garbage */
    CHECK(gc_heap_size(p) == grown);
    if (!GC_STRESS) CHECK(p->gc.minor + p->gc.major - before <= 220000 / (grown - 100) + 2);
    hold_tuple(p, 40000);
    CHECK(gc_heap_size(p) > 40000);
    p->x[0] = NIL;
    garbage_beside_dict(p, 20000);
    CHECK(gc_heap_size(p) < 10000);
    process_free_memory(p);
}

static Term lit_tuple[3] __attribute__((aligned(16))) = {
    make_tuple_header(2), make_small(7), NIL
};
static Term lit_cons[2] __attribute__((aligned(16))) = { make_small(8), NIL };

static void test_literals(void)
{
    Process *p = process_new_memory(0);
    lit_tuple[2] = make_list(lit_cons);
    Term *h = take(p, 3, 0);
    h[0] = make_tuple_header(2); h[1] = make_boxed(lit_tuple); h[2] = make_list(lit_cons);
    p->x[0] = make_boxed(h);
    p->x[1] = make_boxed(lit_tuple);
    gc_collect(p, 0, 2, 0);
    gc_collect(p, 0, 2, 0);
    gc_full(p, 2);
    CHECK(p->x[1] == make_boxed(lit_tuple));
    CHECK(tuple_elems(p->x[0])[0] == make_boxed(lit_tuple));
    CHECK(tuple_elems(p->x[0])[1] == make_list(lit_cons));
    CHECK(lit_tuple[0] == make_tuple_header(2));      /* never forwarded */
    CHECK(lit_cons[0] == make_small(8));
    process_free_memory(p);
}

static void test_out_of_memory(void)
{
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < 100; i++)
        push_small(p, 0, i, 1);
    size_t huge = (size_t)1 << 58;
    gc_ensure(p, huge, 1);
    CHECK(!gc_has_room(p, huge));
    CHECK(check_range_list(p->x[0], 99, 100));
    push_small(p, 0, 100, 1);                          /* still usable */
    CHECK(check_range_list(p->x[0], 100, 101));
    process_free_memory(p);
}

static void test_sizes_and_reductions(void)
{
    CHECK(gc_next_heap_size(0) == MIN_HEAP_SIZE);
    CHECK(gc_next_heap_size(55) == 55);
    CHECK(gc_next_heap_size(56) == 89);
    CHECK(gc_next_heap_size(233) == 233);
    CHECK(gc_next_heap_size(234) == 377);
    CHECK(gc_next_heap_size(1000) == 1597);
    CHECK(gc_next_heap_size(1346269) == 1346269);
    CHECK(gc_next_heap_size(1346270) == 1346269 + 1346269 / 5);
    Process *p = process_new_memory(1000);
    CHECK(gc_heap_size(p) == 1597 && p->min_heap_size == 1597);
    CHECK(p->dict == NULL && p->exc_reason == THE_NON_VALUE && p->max_gen_gcs == 65535);
    CHECK(p->mbuf == NULL && p->old_heap == NULL && p->high_water == p->heap);
#if !GC_STRESS
    CHECK(gc_ensure(p, 10, 0) == 0);                   /* room: no collection */
    CHECK(p->gc.minor == 0);
#endif
    enum { N = GC_STRESS ? 5000 : 50000 };
    p->x[0] = NIL;
    for (SWord i = 0; i < N; i++)
        push_small(p, 0, i, 1);
    UWord reds = gc_collect(p, 0, 1, 1);
    CHECK(reds >= 2 * N / 10);
    /* a big request grows the heap at once */
    gc_ensure(p, 500000, 1);
    CHECK(gc_has_room(p, 500000));
    CHECK(check_range_list(p->x[0], N - 1, N));
    process_free_memory(p);
}

/* Small fragments come from the message arena (heap.h): the collector finds
 * their blocks from addresses and copies only the process's own (marked)
 * ones. A block not attached to the process -- a message still queued, whose
 * term a receive is matching -- is left as it is, even if a root points in. */
/* A block holding {-1, []} as a message still queued would: in the pool's
 * arena but not the process's, so a collection must leave it alone. */
static HeapFrag *queued_block(void)
{
    HeapFrag *queued = heap_frag_new(3);          /* not attached */
    Term *q = queued->mem;
    q[0] = make_tuple_header(2);
    q[1] = make_small(-1);
    q[2] = NIL;
    queued->used = 3;
    return queued;
}

static void test_arena_fragments(void)
{
    enum { MSGS = GC_STRESS ? 2000 : 20000 };
    Process *p = process_new_memory(0);
    p->x[0] = NIL;
    for (SWord i = 0; i < MSGS; i++) {            /* received: {i, x0} */
        HeapFrag *f = heap_frag_new(3);
        Term *t = f->mem;
        t[0] = make_tuple_header(2);
        t[1] = make_small(i);
        t[2] = p->x[0];
        f->used = 3;
        heap_attach_frag(p, f);
        p->x[0] = make_boxed(t);
    }
    CHECK(pool_arena_lo != 0);
    HeapFrag *queued = queued_block();
    Term *q = queued->mem;
    p->x[1] = make_boxed(q);
    CHECK((uintptr_t)q - pool_arena_lo < pool_arena_hi - pool_arena_lo);
    CHECK(pool_arena_frag((uintptr_t)(q + 2)) == queued);
    gc_full(p, 2);
    CHECK(p->mbuf == NULL);
    Term t = p->x[0];
    int ok = 1;
    for (SWord i = MSGS - 1; i >= 0; i--) {
        if (!is_tuple(t) || tuple_elems(t)[0] != make_small(i)) { ok = 0; break; }
        Term *at = boxed_ptr(t);
        if ((uintptr_t)at - pool_arena_lo < pool_arena_hi - pool_arena_lo) ok = 0;
        t = tuple_elems(t)[1];
    }
    CHECK(ok && t == NIL);
    CHECK(p->x[1] == make_boxed(q));              /* left where it is, intact */
    CHECK(q[0] == make_tuple_header(2) && q[1] == make_small(-1) && q[2] == NIL);
    CHECK(!(queued->size & FRAG_IN_GC));
    heap_frag_free(queued);
    process_free_memory(p);
}

/* The collector remembers the last fragment a pointer led it to (pointers
 * come in runs into one message). Here they never do: every received tuple
 * points at the one received before it and at one queued block that is
 * not the process's, so the lookups alternate between fragments to move
 * and one to leave, and a remembered answer given for the wrong fragment
 * would move the queued block or leave a received one behind. */
static void test_fragment_lookups_alternate(void)
{
    enum { MSGS = GC_STRESS ? 500 : 5000 };
    Process *p = process_new_memory(0);
    HeapFrag *queued = queued_block();
    Term *q = queued->mem;
    Term queued_tuple = make_boxed(q);
    p->x[0] = NIL;
    for (SWord i = 0; i < MSGS; i++) {            /* received: {i, queued, x0} */
        HeapFrag *f = heap_frag_new(4);
        Term *t = f->mem;
        t[0] = make_tuple_header(3);
        t[1] = make_small(i);
        t[2] = queued_tuple;
        t[3] = p->x[0];
        f->used = 4;
        heap_attach_frag(p, f);
        p->x[0] = make_boxed(t);
    }
    gc_collect(p, 0, 1, 0);
    CHECK(p->mbuf == NULL);
    Term t = p->x[0];
    int ok = 1;
    for (SWord i = MSGS - 1; i >= 0 && ok; i--) {
        if (!is_tuple(t) || tuple_elems(t)[0] != make_small(i) || tuple_elems(t)[1] != queued_tuple)
            ok = 0;
        else if ((uintptr_t)boxed_ptr(t) - pool_arena_lo < pool_arena_hi - pool_arena_lo)
            ok = 0;                               /* still in a received block */
        else
            t = tuple_elems(t)[2];
    }
    CHECK(ok && t == NIL);
    CHECK(q[0] == make_tuple_header(2) && q[1] == make_small(-1) && q[2] == NIL);
    heap_frag_free(queued);
    process_free_memory(p);
}

/* The order the pool hands out blocks is the order a flood's queue lies in
 * memory, and a queue walked in address order streams through the caches
 * where one that jumps back every few kilobytes does not (walking 640,000
 * queued messages took five times as long when a chunk's batches came out
 * last-first). So a fresh chunk gives its blocks in rising addresses, and
 * blocks freed in queue order come back in one falling run, apart from the
 * seam where the thread's own list meets the pool's batches. */
static void test_pool_order(void)
{
    enum { N = 4096 };
    static char *b[N];
    int steps_up = 0, steps_down = 0;
    for (int i = 0; i < N; i++) {
        b[i] = heap_bare_new();
        if (i && b[i] - b[i - 1] == HEAP_BARE_BYTES) steps_up++;
    }
    CHECK(steps_up == N - 1);
    for (int i = 0; i < N; i++)
        heap_bare_free(b[i]);
    for (int i = 0; i < N; i++) {
        b[i] = heap_bare_new();
        if (i && b[i - 1] - b[i] == HEAP_BARE_BYTES) steps_down++;
    }
    CHECK(steps_down >= N - 3);
    for (int i = 0; i < N; i++)
        heap_bare_free(b[i]);
}

/* A process's received blocks go back to the pool oldest first, so that they
 * come out again in one run of addresses: freed newest first, every
 * collection's share came back as a run but the runs in the opposite order,
 * and a long queue built from them jumped between runs (after a few floods
 * of different lengths, every hundred messages or so). Here a process
 * receives blocks in address order, collecting every EVERY of them and
 * freeing the rest when it ends, and the next N blocks taken must lie in
 * one run again, apart from the seams where the thread's own list meets the
 * pool's batches. */
static int address_order(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(HeapFrag *const *)a, y = (uintptr_t)*(HeapFrag *const *)b;
    return (x > y) - (x < y);
}

static void test_received_order(void)
{
    enum { N = 8192, EVERY = 1000 };
    static HeapFrag *f[N];
    for (int i = 0; i < N; i++)
        f[i] = heap_frag_new(2);
    qsort(f, N, sizeof f[0], address_order);
    Process *p = process_new_memory(0);
    for (int i = 0; i < N; i++) {
        heap_attach_frag(p, f[i]);
        if (i % EVERY == EVERY - 1)
            gc_collect(p, 0, 0, 0);
    }
    process_free_memory(p);
    /* one run: each block the neighbour (in address order) of the one
     * before, apart from a few seams (slabs hold 64 KiB, so the run crosses
     * from one slab to the next as it goes) */
    static HeapFrag *sorted[N];
    memcpy(sorted, f, sizeof sorted);
    int jumps = 0;
    size_t prev = 0;
    for (int i = 0; i < N; i++) {
        f[i] = heap_frag_new(2);
        HeapFrag **at = bsearch(&f[i], sorted, N, sizeof sorted[0], address_order);
        size_t k = at ? (size_t)(at - sorted) : (size_t)-1;
        if (i && (!at || (k != prev + 1 && k + 1 != prev))) jumps++;
        prev = k;
    }
    CHECK(jumps <= 3);
    for (int i = 0; i < N; i++)
        heap_frag_free(f[i]);
}

int main(void)
{
    test_sizes_and_reductions();
    test_big_list();
    test_mixed_and_sharing();
    test_shared_roots();
    test_spines();
    test_stack_frames();
    test_deep_tuple_chain();
    test_fragments();
    test_arena_fragments();
    test_fragment_lookups_alternate();
    test_pool_order();
    test_received_order();
    test_promotion();
    test_growing_generations();
    test_garbage_loop();
    test_small_blocks_kept();
    test_dictionary_nursery();
    test_literals();
    test_out_of_memory();
    printf("test_gc%s: %d checks, %d failures\n", GC_STRESS ? " (GC_STRESS)" : "",
           checks, failures);
    return failures != 0;
}
