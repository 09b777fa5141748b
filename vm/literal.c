/* literal.c — constant terms in Boehm memory (see literal.h).
 *
 * Floats, big integers and lit_alloc blocks hold no pointers and are
 * allocated atomic (never scanned). Tuples and cons cells are allocated
 * scanned, so that a literal keeps the literals it contains alive for as
 * long as anything (the module) points at the outer one; Boehm recognises
 * the tagged term words as interior pointers. */
#include "literal.h"
#include "fatal.h"
#include "bignum.h"
#include "term_sizes.h"

#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *oom(size_t words)
{
    FATAL("out of memory allocating %zu words of literals", words);
}

Term *lit_alloc(size_t words)
{
    Term *p = GC_MALLOC_ATOMIC(words * sizeof(Term));
    return p ? p : oom(words);
}

static Term *lit_alloc_scanned(size_t words)
{
    Term *p = GC_MALLOC(words * sizeof(Term));
    return p ? p : oom(words);
}

Term lit_tuple(const Term *elems, size_t n)
{
    Term *hp = lit_alloc_scanned(n + 1);
    hp[0] = make_tuple_header(n);
    if (n)
        memcpy(hp + 1, elems, n * sizeof(Term));
    return make_boxed(hp);
}

Term lit_cons(Term head, Term tail)
{
    Term *hp = lit_alloc_scanned(2);
    hp[0] = head;
    hp[1] = tail;
    return make_list(hp);
}

Term lit_float(double d)
{
    return make_float_at(lit_alloc(FLOAT_WORDS), d);
}

Term lit_string(const int *codes, size_t n)
{
    if (n == 0)
        return NIL;
    /* one block keeps the whole string alive through any of its cells */
    Term *hp = lit_alloc_scanned(2 * n);
    for (size_t k = 0; k < n; k++) {
        hp[2 * k] = make_small(codes[k]);
        hp[2 * k + 1] = k + 1 < n ? make_list(hp + 2 * (k + 1)) : NIL;
    }
    return make_list(hp);
}

/* Literal binaries are HEAP_BINs of any size: they live in no process heap,
 * so the 64-byte limit that sends larger binaries off-heap does not apply. */
Term lit_binary(const int *bytes, size_t n)
{
    size_t w = heap_bin_words(n);
    Term *hp = lit_alloc(w);
    hp[0] = make_header(w - 1, BOXED_HEAP_BIN);
    hp[1] = (Term)n;
    hp[w - 1] = 0;
    unsigned char *d = (unsigned char *)(hp + 2);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)bytes[i];
    return make_boxed(hp);
}

static Term empty_map;                  /* a root: keeps the map alive */
static pthread_once_t empty_once = PTHREAD_ONCE_INIT;

static void make_empty_map(void)
{
    /* scanned, so the map keeps its keys tuple alive */
    Term *t = lit_alloc_scanned(1);
    Term *m = lit_alloc_scanned(2);
    t[0] = make_tuple_header(0);
    m[0] = make_header(1, BOXED_MAP);
    m[1] = make_boxed(t);
    empty_map = make_boxed(m);
}

Term lit_map_empty(void)
{
    pthread_once(&empty_once, make_empty_map);
    return empty_map;
}

static Term lit_big(int neg, const uint64_t *d, size_t n)
{
    n = bn_norm(d, n);
    if (n == 0)
        return make_small(0);
    if (n == 1) {
        if (!neg && d[0] <= (uint64_t)MAX_SMALL)
            return make_small((SWord)d[0]);
        if (neg && d[0] <= (uint64_t)MAX_SMALL + 1)
            return make_small(-(SWord)(d[0] - 1) - 1);
    }
    Term *hp = lit_alloc(n + 1);
    hp[0] = make_header(n, neg ? BOXED_NEG_BIG : BOXED_POS_BIG);
    memcpy(hp + 1, d, n * sizeof(uint64_t));
    return make_boxed(hp);
}

Term lit_integer_text(const char *digits, int base, int negative)
{
    size_t len = strlen(digits);
    /* the lexer may keep Erlang's digit separators (1_000_000) */
    char *clean = malloc(len + 1);
    if (!clean)
        return oom(len), THE_NON_VALUE;
    size_t n = 0;
    for (size_t k = 0; k < len; k++)
        if (digits[k] != '_')
            clean[n++] = digits[k];
    size_t cap = bn_from_str_size(n, base);
    uint64_t *d = malloc(cap * sizeof *d);
    if (!d)
        return oom(cap), THE_NON_VALUE;
    size_t dn = bn_from_str(d, clean, n, base);
    Term r = dn == (size_t)-1 ? THE_NON_VALUE : lit_big(negative, d, dn);
    free(d);
    free(clean);
    return r;
}

Term lit_integer(int64_t v)
{
    if (fits_small(v))
        return make_small(v);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return lit_big(v < 0, &m, 1);
}

int lit_is_literal_ptr(const void *p)
{
    return GC_base((void *)p) != NULL;
}
