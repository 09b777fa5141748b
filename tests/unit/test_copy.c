/* test_copy.c — unit tests for copy.c, the copy a send makes of a term.
 *
 * copy_size and copy_term walk a list's spine guessing that the next cell
 * lies as far from this one as this one from the last, and copy_term skips
 * the scan of a copied spine whose heads are all immediate (a queue of a
 * few such spans, small tuples of immediates too). Each guess is checked
 * against the real tail, so what must hold is: whatever the layout of the spine (each next cell after,
 * before, at a fixed step, at random, or changing step at every cell), and
 * however many clean spines a term holds (more than the queue keeps), the
 * size is exact and the copy equal to the original, laid out inside the
 * words it was given, sharing nothing with the original.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "copy.h"
#include "term.h"

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Words to build terms in, by hand, as a heap would hold them. */
#define ARENA_WORDS (1 << 20)
static Term *arena;
static size_t used;

static Term *words(size_t n) {
    if (used + n > ARENA_WORDS) { fprintf(stderr, "test arena full\n"); exit(2); }
    Term *w = arena + used;
    used += n;
    return w;
}

static Term tuple2(Term a, Term b) {
    Term *t = words(3);
    t[0] = make_tuple_header(2);
    t[1] = a;
    t[2] = b;
    return make_boxed(t);
}

static Term tuple1(Term a) {
    Term *t = words(2);
    t[0] = make_tuple_header(1);
    t[1] = a;
    return make_boxed(t);
}

/* The list heads[0..n) ending in tail, its cells placed in the slots
 * cells[order[i]] of a block of n cells (order NULL: in order). */
static Term list_placed(const Term *heads, size_t n, Term tail, const size_t *order) {
    if (n == 0) return tail;
    Term *cells = words(2 * n);
    Term rest = tail;
    for (size_t k = n; k-- > 0;) {
        Term *c = cells + 2 * (order ? order[k] : k);
        c[0] = heads[k];
        c[1] = rest;
        rest = make_list(c);
    }
    return rest;
}

/* Copies t into a block with a guard word on either side; checks the size
 * is exact, the copy equal, inside the block, sharing no word with the
 * original. */
static void check_copy(Term t, const char *what) {
    size_t n = copy_size(t);
    Term *block = malloc((n + 2) * sizeof(Term));
    const Term guard = make_small(0x5a5a);
    block[0] = block[n + 1] = guard;
    Term c = copy_term(t, block + 1);
    int ok = term_eq_exact(c, t) && block[0] == guard && block[n + 1] == guard;
    /* every pointer in the copy points into the copy */
    for (size_t i = 1; i <= n && ok; i++) {
        Term w = block[i];
        if (primary_tag(w) == TAG_HEADER) { i += copy_raw_words(w); continue; }
        if (is_list(w) || is_boxed(w)) {
            Term *at = (Term *)(w & ~(Term)3);
            if (at < block + 1 || at >= block + 1 + n) ok = 0;
        }
    }
    if (!ok) fprintf(stderr, "copy of %s differs\n", what);
    CHECK(ok);
    free(block);
}

static void test_spine_layouts(void) {
    enum { N = 1000 };
    static Term heads[N];
    static size_t order[N];
    for (size_t i = 0; i < N; i++) heads[i] = make_small((SWord)i * 3);
    check_copy(list_placed(heads, N, NIL, NULL), "a spine in order");
    for (size_t i = 0; i < N; i++) order[i] = N - 1 - i;
    check_copy(list_placed(heads, N, NIL, order), "a consed spine");
    for (size_t i = 0; i < N; i++) order[i] = (i * 7) % N;       /* 7 is prime to 1000 */
    check_copy(list_placed(heads, N, NIL, order), "a spine at a fixed step");
    for (size_t i = 0; i < N; i++) order[i] = i;
    for (size_t i = N - 1; i > 0; i--) {                         /* shuffled */
        size_t j = (size_t)rand() % (i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    check_copy(list_placed(heads, N, NIL, order), "a shuffled spine");
    /* the step changes at every cell: 1, 2, 1, 2 cells on */
    size_t at = 0;
    for (size_t i = 0; i < N / 2; i++) { order[i] = at; at += (i & 1) ? 2 : 1; }
    for (size_t i = N / 2; i < N; i++) order[i] = at++ % N;
    check_copy(list_placed(heads, N / 2, NIL, order), "a spine whose step changes");
    /* one cell, two cells, an improper list, a list ending in a tuple */
    check_copy(list_placed(heads, 1, NIL, NULL), "one cell");
    check_copy(list_placed(heads, 2, make_small(7), NULL), "an improper list");
    check_copy(list_placed(heads, 5, tuple2(make_small(1), NIL), NULL),
               "a list ending in a tuple");
}

/* Lists of tuples, lists of lists, and more clean spines than the queue
 * holds (a tuple of 40 strings), each at the root and inside. */
static void test_clean_spans(void) {
    enum { N = 200, S = 40 };
    static Term heads[N], strings[S], tuples[N];
    for (size_t i = 0; i < N; i++) heads[i] = make_small((SWord)i + 'a');
    for (size_t i = 0; i < N; i++) tuples[i] = tuple2(make_small((SWord)i), heads[i]);
    check_copy(list_placed(tuples, N, NIL, NULL), "a list of pairs");
    for (size_t s = 0; s < S; s++) strings[s] = list_placed(heads, 1 + s % 17, NIL, NULL);
    check_copy(list_placed(strings, S, NIL, NULL), "a list of strings");
    Term *t = words(1 + S);
    t[0] = make_tuple_header(S);
    for (size_t s = 0; s < S; s++) t[1 + s] = strings[s];
    check_copy(make_boxed(t), "a tuple of 40 strings");
    /* clean and unclean spines in turn, nested: [[1-tuple | string] ...] */
    static Term mixed[S];
    for (size_t s = 0; s < S; s++)
        mixed[s] = (s & 1) ? strings[s] : list_placed(&tuples[s], 1, strings[s], NULL);
    check_copy(tuple1(list_placed(mixed, S, NIL, NULL)), "clean and unclean spines in turn");
    /* small tuples of immediates are clean too: alone, nested in one that
     * is not, beside a string, and more of them than the queue holds */
    check_copy(tuple2(make_small(1), NIL), "a clean pair alone");
    check_copy(tuple2(tuple1(make_small(2)), strings[3]), "a clean tuple beside a string");
    static Term many[3 * S];
    for (size_t i = 0; i < 3 * S; i++)
        many[i] = (i % 3 == 0) ? tuple1(make_small((SWord)i)) : (i % 3 == 1) ? strings[i % S] : heads[i % N];
    Term *big = words(1 + 3 * S);
    big[0] = make_tuple_header(3 * S);
    for (size_t i = 0; i < 3 * S; i++) big[1 + i] = many[i];
    check_copy(make_boxed(big), "a big tuple of clean tuples, strings and integers");
    check_copy(list_placed(many, 3 * S, NIL, NULL), "a list of clean tuples, strings and integers");
    /* past the first element clean, the first a pointer (as a flat map's
     * keys tuple is): the scan must still copy what the first points to,
     * at the root, inside a list, and with a pointer after the first */
    Term *ft = words(5);
    ft[0] = make_tuple_header(4);
    ft[1] = strings[5];
    ft[2] = make_small(2); ft[3] = make_small(3); ft[4] = NIL;
    check_copy(make_boxed(ft), "a tuple whose first element alone points");
    Term firsts[3] = { make_boxed(ft), tuple2(strings[7], make_small(9)), tuple2(make_small(1), strings[2]) };
    check_copy(list_placed(firsts, 3, NIL, NULL), "tuples pointing first, last and not at all");
    check_copy(tuple2(strings[4], NIL), "a pair whose first element points");
}

int main(void) {
    arena = calloc(ARENA_WORDS, sizeof(Term));
    srand(12345);
    test_spine_layouts();
    test_clean_spans();
    printf("test_copy: %d checks, %d failures\n", checks, failures);
    free(arena);
    return failures != 0;
}
