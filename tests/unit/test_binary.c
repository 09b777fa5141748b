/* test_binary.c — unit tests for binaries' memory management (binary.c with
 * gc.c, copy.c, heap.c and proc_signal.c): a large binary is shared by reference
 * count, never copied, when it is sent or passed to a new process; each
 * process's collector drops its references when it no longer reaches the
 * binary (minor and major collections, sub-binaries keeping their original
 * alive); a dying process or an unreceived message releases its references;
 * the bytes are freed when the last reference goes. Buffers up to 64 KiB
 * are blocks of the block pool, larger ones come from malloc, and buffers
 * made on one thread and released on another are recycled, not remapped
 * round after round. A binary built by appends grows in place while its
 * newest version is appended to, never touching an older version's bytes,
 * and stops growing in place once a copy of it exists. Also fuzzes
 * binary_to_term with mutated and random input: it must answer a term or
 * badarg, never crash (run under the ASan build to catch bad reads).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "atom.h"
#include "bif.h"
#include "binary.h"
#include "compare.h"
#include "copy.h"
#include "gc.h"
#include "pool.h"
#include "proc.h"

#ifndef GC_STRESS
#define GC_STRESS 0
#endif

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define MB ((size_t)1 << 20)
#define NPROC (GC_STRESS ? 100 : 1000)

static size_t refc_of(Term bin)
{
    Term *o = boxed_ptr(bin);
    if (header_subtag(o[0]) == BOXED_SUB_BIN) o = boxed_ptr(o[SB_ORIG]);
    return atomic_load(&((Binary *)o[PB_VAL])->refc);
}

/* Copies t into q's heap as spawn does. */
static Term give(Process *q, Term t)
{
    size_t n = copy_size(t);
    Term *hp = heap_alloc(q, n);
    Term c = copy_term(t, hp);
    binary_adopt(q, hp, hp + n);
    return c;
}

static void test_share_and_free(void)
{
    size_t base = binary_total_bytes();
    Process *a = process_new_memory(0);
    unsigned char *d;
    a->x[0] = bin_new(a, MB, &d);
    memset(d, 7, MB);
    CHECK(is_boxed_kind(a->x[0], BOXED_REFC_BIN));
    CHECK(refc_of(a->x[0]) == 1);
    CHECK(binary_total_bytes() == base + MB);

    /* a tuple holding it, so the copy has something around the ProcBin */
    Term *hp = heap_alloc(a, 3);
    hp[0] = make_tuple_header(2); hp[1] = make_small(1); hp[2] = a->x[0];
    a->x[1] = make_boxed(hp);

    Process **qs = malloc(NPROC * sizeof *qs);
    for (int i = 0; i < NPROC; i++) {
        qs[i] = process_new_memory(0);
        qs[i]->x[0] = give(qs[i], a->x[1]);
        size_t n;
        const unsigned char *s = bin_bytes(tuple_elems(qs[i]->x[0])[1], &n);
        CHECK(n == MB && s == d);          /* the very same bytes: shared */
    }
    CHECK(refc_of(a->x[0]) == 1 + NPROC);
    CHECK(binary_total_bytes() == base + MB);      /* nothing was copied */

    /* collections that still reach it keep the reference ... */
    for (int i = 0; i < NPROC; i++) gc_collect(qs[i], 0, 1, 0);
    for (int i = 0; i < NPROC; i++) gc_collect(qs[i], 0, 1, 1);
    CHECK(refc_of(a->x[0]) == 1 + NPROC);
    for (int i = 0; i < NPROC; i++) {
        size_t n;
        const unsigned char *s = bin_bytes(tuple_elems(qs[i]->x[0])[1], &n);
        CHECK(n == MB && s[MB - 1] == 7);
    }
    /* ... and the ones that do not drop it: half by collecting, half by dying */
    for (int i = 0; i < NPROC; i++) {
        if (i % 2) {
            gc_collect(qs[i], 0, 0, 0);
            CHECK(qs[i]->mso == NULL);
        }
        process_free_memory(qs[i]);
    }
    free(qs);
    CHECK(refc_of(a->x[0]) == 1);
    CHECK(binary_total_bytes() == base + MB);
    gc_full(a, 0);
    CHECK(binary_total_bytes() == base);           /* freed with the last reference */
    process_free_memory(a);
}

/* Survives promotion into the old heap through minor collections; a major
 * collection after it became garbage frees it. */
static void test_generations(void)
{
    size_t base = binary_total_bytes();
    Process *p = process_new_memory(0);
    unsigned char *d;
    p->x[0] = bin_new(p, 1000, &d);
    memset(d, 1, 1000);
    for (int i = 0; i < 5; i++) gc_collect(p, 0, 1, 0);
    CHECK(p->old_heap != NULL || GC_STRESS);
    CHECK(refc_of(p->x[0]) == 1);
    CHECK(bin_size(p->x[0]) == 1000 && bin_bytes(p->x[0], &(size_t){0})[999] == 1);
    gc_collect(p, 0, 0, 0);                        /* a minor leaves the old heap alone */
    gc_full(p, 0);
    CHECK(binary_total_bytes() == base);
    CHECK(p->mso == NULL);
    process_free_memory(p);
}

/* A sub-binary keeps its original alive; the original goes with the last
 * sub-binary. */
static void test_sub_binary(void)
{
    size_t base = binary_total_bytes();
    Process *p = process_new_memory(0);
    unsigned char *d;
    Term b = bin_new(p, 4096, &d);
    for (int i = 0; i < 4096; i++) d[i] = (unsigned char)i;
    p->x[0] = bin_sub(p, b, 100, 1000);
    CHECK(is_boxed_kind(p->x[0], BOXED_SUB_BIN));
    gc_full(p, 1);
    CHECK(binary_total_bytes() == base + 4096);
    size_t n;
    const unsigned char *s = bin_bytes(p->x[0], &n);
    CHECK(n == 1000 && s[0] == 100 && s[999] == (unsigned char)1099);
    Term small = bin_sub(p, p->x[0], 10, 20);     /* small slices are copies */
    CHECK(is_boxed_kind(small, BOXED_HEAP_BIN));
    p->x[1] = small;
    gc_full(p, 2);
    p->x[0] = p->x[1];
    gc_full(p, 1);
    CHECK(binary_total_bytes() == base);
    s = bin_bytes(p->x[0], &n);
    CHECK(n == 20 && s[0] == 110);
    process_free_memory(p);
}

/* A message holds a reference until received or freed unreceived. */
static void test_messages(void)
{
    size_t base = binary_total_bytes();
    Process *a = process_new_memory(0), *b = process_new_memory(0);
    unsigned char *d;
    a->x[0] = bin_new(a, 100000, &d);
    memset(d, 3, 100000);
    Message *m1 = proc_message_copy(a->x[0]);
    Message *m2 = proc_message_copy(a->x[0]);
    CHECK(refc_of(a->x[0]) == 3);
    proc_message_free(m1);                         /* never received */
    CHECK(refc_of(a->x[0]) == 2);
    heap_attach_frag(b, m2);                       /* received by b */
    b->x[0] = m2->term;
    gc_collect(b, 0, 1, 0);
    CHECK(refc_of(a->x[0]) == 2);
    CHECK(bin_bytes(b->x[0], &(size_t){0}) == d);
    gc_collect(b, 0, 0, 0);
    CHECK(refc_of(a->x[0]) == 1);
    process_free_memory(a);                        /* the last holder dies */
    CHECK(binary_total_bytes() == base);
    process_free_memory(b);
}

/* ---- binary_to_term never crashes ---------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static void test_fuzz(void)
{
    Process *p = process_new_memory(0);
    /* a term with every kind of encoding */
    Term *hp = heap_alloc(p, 40);
    Term l = NIL;
    for (int i = 0; i < 5; i++) { hp[2 * i] = make_small(i * 1000); hp[2 * i + 1] = l; l = make_list(hp + 2 * i); }
    Term s = NIL;
    for (int i = 0; i < 3; i++) { hp[10 + 2 * i] = make_small('a' + i); hp[11 + 2 * i] = s; s = make_list(hp + 10 + 2 * i); }
    Term bin = bin_from_bytes(p, "hello", 5);
    Term big = make_integer(p, INT64_MAX);
    Term fl = make_float(p, 2.5);
    hp[16] = make_tuple_header(8);
    hp[17] = l; hp[18] = s; hp[19] = bin; hp[20] = big; hp[21] = fl;
    hp[22] = ATOM_TERM(ok); hp[23] = make_pid(5); hp[24] = NIL;
    Term t = make_boxed(hp + 16);
    Term enc = bif_term_to_binary_1(p, &t);
    CHECK(enc != THE_NON_VALUE);
    size_t n;
    const unsigned char *e = bin_bytes(enc, &n);
    unsigned char *buf = malloc(n + 64);
    memcpy(buf, e, n);
    Term dec = bif_binary_to_term_1(p, &enc);
    CHECK(dec != THE_NON_VALUE);
    int ok = 0, bad = 0;
    int rounds = GC_STRESS ? 3000 : 30000;
    for (int r = 0; r < rounds; r++) {
        unsigned char tmp[256];
        size_t len = n;
        memcpy(tmp, buf, n);
        int kind = (int)(next_rand() % 4);
        if (kind == 0) {                          /* flip bytes */
            int k = 1 + (int)(next_rand() % 4);
            for (int j = 0; j < k; j++) tmp[next_rand() % n] = (unsigned char)next_rand();
        } else if (kind == 1) {                   /* truncate */
            len = next_rand() % n;
        } else if (kind == 2) {                   /* random bytes after the version */
            len = 1 + next_rand() % 64;
            tmp[0] = 131;
            for (size_t j = 1; j < len; j++) tmp[j] = (unsigned char)next_rand();
        } else {                                  /* plausible tags, random lengths */
            len = 1 + next_rand() % 32;
            tmp[0] = 131;
            static const unsigned char tags[] = { 97, 98, 100, 104, 105, 106, 107, 108, 109, 110, 111, 116, 118, 119, 70, 88, 90, 113 };
            for (size_t j = 1; j < len; j++)
                tmp[j] = next_rand() % 2 ? tags[next_rand() % sizeof tags] : (unsigned char)next_rand();
        }
        Term arg = bin_from_bytes(p, tmp, len);
        Term res = bif_binary_to_term_1(p, &arg);
        if (res == THE_NON_VALUE) {
            bad++;
            CHECK(p->exc_reason == AM_badarg);
        } else {
            ok++;
        }
        if (r % 256 == 0) gc_full(p, 0);          /* the fragments would grow */
    }
    CHECK(bad > 0 && ok > 0);
    free(buf);
    process_free_memory(p);
}

/* Bitstrings: a large one shares its buffer through collections, a small
 * slice of it is a copy with its unused bits zero, and they compare bit by
 * bit. */
static void test_bitstrings(void)
{
    size_t base = binary_total_bytes();
    Process *p = process_new_memory(0);
    unsigned char *d;
    Term b = bits_new(p, 8 * 1000 + 3, &d);
    CHECK(is_bitstring(b) && !is_binary(b) && bin_bit_size(b) == 8003);
    memset(d, 0xFF, 1001);
    p->x[0] = b;
    p->x[1] = bits_sub(p, b, 8 * 998, 19);       /* 2 bytes and 3 bits */
    CHECK(is_boxed_kind(p->x[1], BOXED_SUB_BIN) && bin_bit_size(p->x[1]) == 19);
    gc_full(p, 2);
    CHECK(binary_total_bytes() == base + 1001);
    size_t n;
    const unsigned char *s = bin_bytes(p->x[1], &n);
    CHECK(n == 2 && s[0] == 0xFF && s[2] == 0xE0);  /* the copy's unused bits are 0 */
    CHECK(term_compare_binaries(p->x[1], bits_sub(p, p->x[0], 0, 19)) == 0);
    CHECK(term_compare_binaries(p->x[1], bits_sub(p, p->x[0], 0, 18)) > 0);
    p->x[0] = p->x[1];
    gc_full(p, 1);
    CHECK(binary_total_bytes() == base);
    CHECK(bin_bit_size(p->x[0]) == 19);
    process_free_memory(p);
}

/* <<B/binary, Byte>> as the bs_create instruction builds it */
static Term append_byte(Process *p, Term b, unsigned byte)
{
    Term ops[6] = { make_small(BS_BINARY | (8 << BS_UNIT_SHIFT)), b, ATOM_TERM(all),
                    make_small(BS_INTEGER | (1 << BS_UNIT_SHIFT)), make_small(byte), make_small(8) };
    return bs_create(p, ops, 6);
}

static const Binary *bytes_of(Term b) { return (const Binary *)boxed_ptr(b)[PB_VAL]; }

static void test_append(void)
{
    enum { N = 100000 };
    size_t base = binary_total_bytes();
    Process *p = process_new_memory(0);
    Term b = bin_from_bytes(p, "", 0);
    const Binary *last = NULL;
    int buffers = 0, sizes_ok = 1;
    for (unsigned i = 0; i < N; i++) {
        b = append_byte(p, b, i & 255);
        sizes_ok &= bin_bit_size(b) == 8 * (size_t)(i + 1);
        if (is_boxed_kind(b, BOXED_REFC_BIN) && bytes_of(b) != last) { last = bytes_of(b); buffers++; }
        if (i % 20000 == 0) { p->x[0] = b; gc_collect(p, 0, 1, 0); b = p->x[0]; }
    }
    CHECK(sizes_ok);
    /* room doubles: a new buffer about every doubling, not one per append */
    CHECK(buffers > 5 && buffers < 20);
    size_t n;
    const unsigned char *s = bin_bytes(b, &n);
    int bytes_ok = n == N;
    for (unsigned i = 0; i < N; i++) bytes_ok &= s[i] == (i & 255);
    CHECK(bytes_ok);
    /* two appends to one version: the first in place, the second copies;
     * the version itself keeps its length and bytes */
    Term v = b;
    Term x = append_byte(p, v, 1), y = append_byte(p, v, 2);
    CHECK(bytes_of(x) == bytes_of(v) && bytes_of(y) != bytes_of(v));
    CHECK(bin_bytes(x, &n)[N] == 1 && bin_bytes(y, &n)[N] == 2);
    CHECK(bin_bit_size(v) == 8 * (size_t)N);
    /* a copy (a message, a spawn, ETS) freezes it: no more appends in
     * place, in the process it went to or in this one */
    Process *q = process_new_memory(0);
    Term xq = give(q, x);
    Term x2 = append_byte(p, x, 3), xq2 = append_byte(q, xq, 4);
    CHECK(bytes_of(x2) != bytes_of(x) && bytes_of(xq2) != bytes_of(x));
    CHECK(bin_bytes(x2, &n)[N + 1] == 3 && bin_bytes(xq2, &n)[N + 1] == 4);
    CHECK(bin_bytes(x, &n)[N] == 1 && n == N + 1);
    process_free_memory(q);
    /* the old versions' references go with the collection */
    p->x[0] = x2;
    gc_full(p, 1);
    CHECK(refc_of(p->x[0]) == 1);
    process_free_memory(p);
    CHECK(binary_total_bytes() == base);
}

/* <<B/bitstring, V:Bits>>, private (BS_PRIVATE: a comprehension's
 * accumulator) or not */
static Term append_bits(Process *p, Term b, unsigned v, unsigned bits, int private)
{
    Term ops[6] = { make_small(BS_BINARY | (private ? BS_PRIVATE : 0) | (1 << BS_UNIT_SHIFT)), b,
                    ATOM_TERM(all), make_small(BS_INTEGER | (1 << BS_UNIT_SHIFT)),
                    make_small(v), make_small(bits) };
    return bs_create(p, ops, 6);
}

/* The buffer under a binary or a bitstring from the start of one. */
static const Binary *buffer_of(Term b)
{
    Term *o = boxed_ptr(b);
    if (header_subtag(o[0]) == BOXED_SUB_BIN) o = boxed_ptr(o[SB_ORIG]);
    return header_subtag(o[0]) == BOXED_REFC_BIN ? (const Binary *)o[PB_VAL] : NULL;
}

/* n bits of b from bit pos, as a number */
static unsigned bits_at(Term b, size_t pos, unsigned n)
{
    size_t len;
    const unsigned char *d = bin_bytes(b, &len);
    unsigned v = 0;
    for (size_t bit = pos; bit < pos + n; bit++) v = v << 1 | ((d[bit / 8] >> (7 - bit % 8)) & 1);
    return v;
}

/* Appends of 3 bits (sizes in and out of whole bytes) write in place too,
 * and an append to an older version never writes over a newer one's bits.
 * A private append makes its argument longer instead of a new term: no
 * new ProcBin, no reference counted. */
static void test_append_bits(void)
{
    enum { N = 3000 };
    size_t base = binary_total_bytes();
    Process *p = process_new_memory(0);
    for (int private = 0; private <= 1; private++) {
        Term b = bin_from_bytes(p, "", 0);
        const Binary *last = NULL;
        int buffers = 0, sizes_ok = 1, same_term = 0;
        for (unsigned i = 0; i < N; i++) {
            Term nb = append_bits(p, b, i & 7, 3, private);
            same_term += nb == b;
            b = nb;
            sizes_ok &= bin_bit_size(b) == 3 * (size_t)(i + 1);
            if (buffer_of(b) && buffer_of(b) != last) { last = buffer_of(b); buffers++; }
        }
        CHECK(sizes_ok);
        CHECK(buffers > 3 && buffers < 12);
        /* a private append returns its argument, made longer, whenever
         * both sizes are not whole bytes (a sub-binary grown in place) */
        CHECK(private ? same_term > N / 2 : same_term == 0);
        int bits_ok = 1;
        for (unsigned i = 0; i < N; i++) bits_ok &= bits_at(b, 3 * (size_t)i, 3) == (i & 7);
        CHECK(bits_ok);
        if (!private) {
            /* an older version, appended to again, copies; the newer
             * version's bits stay as they were */
            Term older = b, newer = append_bits(p, b, 5, 3, 0);
            Term fork = append_bits(p, older, 2, 3, 0);
            CHECK(buffer_of(newer) == buffer_of(older) && buffer_of(fork) != buffer_of(older));
            CHECK(bits_at(newer, 3 * (size_t)N, 3) == 5 && bits_at(fork, 3 * (size_t)N, 3) == 2);
            CHECK(bin_bit_size(older) == 3 * (size_t)N);
        } else {
            CHECK(refc_of(b) == 1);
        }
    }
    gc_full(p, 0);
    process_free_memory(p);
    CHECK(binary_total_bytes() == base);
}

static int in_pool_arena(const void *b)
{
    uintptr_t a = (uintptr_t)b;
    return pool_arena_lo && a - pool_arena_lo < pool_arena_hi - pool_arena_lo;
}

/* Buffers passed from the main thread to this one, which checks their
 * bytes and releases them, round after round. */
#define PASSED 4000
static Binary *passed[PASSED];
static pthread_barrier_t round_start, round_end;
static int rounds_left, bad_bytes;

static void *releaser(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&round_start);
        if (rounds_left == 0)
            return NULL;
        for (int i = 0; i < PASSED; i++) {
            Binary *b = passed[i];
            for (size_t k = 0; k < b->size; k += 97)
                bad_bytes += b->data[k] != (unsigned char)(i + k);
            binary_release(b);
        }
        pthread_barrier_wait(&round_end);
    }
}

static void test_buffers_from_the_pool(void)
{
    size_t base = binary_total_bytes();
    Binary *small = binary_alloc(1000), *edge = binary_alloc((64 << 10) - sizeof(Binary));
    Binary *big = binary_alloc(MB);
#ifdef __SANITIZE_ADDRESS__
    CHECK(!in_pool_arena(small));            /* every buffer from malloc, for ASan */
#else
    CHECK(pool_arena_lo != 0);
    CHECK(in_pool_arena(small) && in_pool_arena(edge));
#endif
    CHECK(!in_pool_arena(big));
    CHECK(binary_total_bytes() - base == 1000 + (64 << 10) - sizeof(Binary) + MB);
    memset(small->data, 1, 1000);
    memset(edge->data, 2, edge->size);
    memset(big->data, 3, MB);
    binary_release(small);
    binary_release(edge);
    binary_release(big);
    CHECK(binary_total_bytes() == base);

    /* made here, released there: after the first rounds the pool maps no more */
    pthread_t t;
    pthread_barrier_init(&round_start, NULL, 2);
    pthread_barrier_init(&round_end, NULL, 2);
    rounds_left = 1;
    pthread_create(&t, NULL, releaser, NULL);
    size_t mapped_after_warmup = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < PASSED; i++) {
            size_t size = 65 + (size_t)(i * 7919 % 4000);  /* 65 bytes to 4 KB */
            Binary *b = passed[i] = binary_alloc(size);
            for (size_t k = 0; k < size; k++)
                b->data[k] = (unsigned char)(i + k);
        }
        pthread_barrier_wait(&round_start);
        pthread_barrier_wait(&round_end);
        if (round == 4)
            mapped_after_warmup = pool_mapped_bytes();
    }
    rounds_left = 0;
    pthread_barrier_wait(&round_start);
    pthread_join(t, NULL);
    CHECK(bad_bytes == 0);
    CHECK(binary_total_bytes() == base);
    /* rounds 5-19 recycle what the first made (slack: one slab per class) */
    CHECK(pool_mapped_bytes() <= mapped_after_warmup + 4 * MB);
    pthread_barrier_destroy(&round_start);
    pthread_barrier_destroy(&round_end);
}

int main(void)
{
    atom_init();
    test_share_and_free();
    test_generations();
    test_sub_binary();
    test_bitstrings();
    test_append();
    test_append_bits();
    test_messages();
    test_buffers_from_the_pool();
    test_fuzz();
    printf("test_binary%s: %d checks, %d failures\n", GC_STRESS ? " (GC_STRESS)" : "", checks, failures);
    return failures != 0;
}
