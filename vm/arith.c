/* arith.c — term-level arithmetic (see arith.h): small-integer fast paths
 * first, then big integers through bignum.c, then floats. */
#include "arith.h"
#include "atom.h"
#include "bif.h"
#include "bignum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static Term raise_badarith(Process *p) { return bif_raise(p, EXC_ERROR, AM_badarith); }
static Term raise_badarg(Process *p) { return bif_raise(p, EXC_ERROR, AM_badarg); }
static Term raise_system_limit(Process *p)
{
    return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
}

/* Scratch digits: on the C stack when small, else malloc'ed. Only what a
 * result is computed from goes here (the other half of a division); the
 * result itself is computed in the heap (BigOut, below). */
#define TMP_STACK 64
typedef struct {
    uint64_t *p;
    uint64_t buf[TMP_STACK];
} Tmp;

static uint64_t *tmp_get(Tmp *t, size_t n)
{
    t->p = n <= TMP_STACK ? t->buf : malloc(n * sizeof(uint64_t));
    return t->p;
}

static void tmp_free(Tmp *t)
{
    if (t->p && t->p != t->buf)
        free(t->p);
    t->p = NULL;
}

/* The small integer of n normalised digits, if the value is one. */
static int digits_small(int neg, const uint64_t *d, size_t n, Term *out)
{
    if (n == 0) {
        *out = make_small(0);
        return 1;
    }
    if (n == 1) {
        uint64_t m = d[0];
        if (!neg && m <= (uint64_t)MAX_SMALL) {
            *out = make_small((SWord)m);
            return 1;
        }
        if (neg && m <= (uint64_t)MAX_SMALL + 1) {
            *out = make_small(-(SWord)(m - 1) - 1);
            return 1;
        }
    }
    return 0;
}

Term make_big_from_digits(Process *p, int neg, const uint64_t *d, size_t n)
{
    n = bn_norm(d, n);
    Term small;
    if (digits_small(neg, d, n, &small))
        return small;
    /* A result of up to 2^24 digits may be more than the system gives:
     * the process dies (bif_out_of_memory), not the VM. */
    Term *hp;
    BIF_ALLOC(p, hp, n + 1);
    hp[0] = make_header(n, neg ? BOXED_NEG_BIG : BOXED_POS_BIG);
    memcpy(hp + 1, d, n * sizeof(uint64_t));
    return make_boxed(hp);
}

/* A big result is computed where it will live: room for the most digits it
 * can have is taken from the process heap (big_open), the digits are
 * written there, and big_close writes the header and gives back the words
 * the result turned out not to need (heap_give_back). Computed in scratch
 * memory and then copied, a result needed twice its size at its peak, and a
 * number that fitted in the memory left could not be made. Memory refused
 * here, or to the scratch an operation needs besides, kills the process
 * (bif_out_of_memory), whichever allocation it was. */
typedef struct {
    Term *hp;
    size_t cap;
} BigOut;

static uint64_t *big_open(Process *p, BigOut *o, size_t cap)
{
    o->cap = cap;
    o->hp = heap_alloc_try(p, cap + 1);
    return o->hp ? (uint64_t *)(o->hp + 1) : NULL;
}

static Term big_close(Process *p, BigOut *o, int neg, size_t n)
{
    uint64_t *d = (uint64_t *)(o->hp + 1);
    Term *end = o->hp + o->cap + 1;
    n = bn_norm(d, n);
    Term small;
    if (digits_small(neg, d, n, &small)) {
        heap_give_back(p, end, o->cap + 1);
        return small;
    }
    o->hp[0] = make_header(n, neg ? BOXED_NEG_BIG : BOXED_POS_BIG);
    heap_give_back(p, end, o->cap - n);
    return make_boxed(o->hp);
}

/* The room goes back unused: the operation needed scratch it could not have. */
static Term big_refused(Process *p, BigOut *o)
{
    heap_give_back(p, o->hp + o->cap + 1, o->cap + 1);
    return bif_out_of_memory(p);
}

Term make_integer(Process *p, int64_t v)
{
    if (fits_small(v))
        return make_small(v);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    Term *hp = heap_alloc(p, 2);
    hp[0] = make_header(1, v < 0 ? BOXED_NEG_BIG : BOXED_POS_BIG);
    hp[1] = m;
    return make_boxed(hp);
}

Term make_uinteger(Process *p, uint64_t v)
{
    if (v <= (uint64_t)MAX_SMALL)
        return make_small((SWord)v);
    Term *hp = heap_alloc(p, 2);
    hp[0] = make_header(1, BOXED_POS_BIG);
    hp[1] = v;
    return make_boxed(hp);
}

static Term make_int128(Process *p, __int128 v)
{
    if (v >= MIN_SMALL && v <= MAX_SMALL)
        return make_small((SWord)v);
    int neg = v < 0;
    unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    uint64_t d[2] = {(uint64_t)m, (uint64_t)(m >> 64)};
    return make_big_from_digits(p, neg, d, 2);
}

Term make_float(Process *p, double d)
{
    Term *hp = heap_alloc(p, FLOAT_WORDS);
    return make_float_at(hp, d);
}

Term make_integer_from_double(Process *p, double d)
{
    d = trunc(d);
    if (d > -9.2e18 && d < 9.2e18)
        return make_integer(p, (int64_t)d);
    uint64_t r[BN_DOUBLE_DIGITS];
    size_t n = bn_from_double(r, d);
    return make_big_from_digits(p, d < 0, r, n);
}

int term_to_int64(Term t, int64_t *out)
{
    if (is_small(t)) {
        *out = small_val(t);
        return 1;
    }
    if (!is_big(t) || big_size(t) != 1)
        return 0;
    uint64_t m = big_digits(t)[0];
    if (big_is_neg(t)) {
        if (m > (uint64_t)INT64_MAX + 1)
            return 0;
        *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    } else {
        if (m > (uint64_t)INT64_MAX)
            return 0;
        *out = (int64_t)m;
    }
    return 1;
}

int term_to_double(Term t, double *out)
{
    if (is_small(t)) {
        *out = (double)small_val(t);
        return 1;
    }
    if (is_float(t)) {
        *out = float_val(t);
        return 1;
    }
    if (is_big(t)) {
        double d = bn_to_double(big_digits(t), big_size(t));
        if (!isfinite(d))
            return 0;
        *out = big_is_neg(t) ? -d : d;
        return 1;
    }
    return 0;
}

/* Float result: inf/nan raise badarith. */
static inline Term float_result(Process *p, double d)
{
    if (!isfinite(d))
        return raise_badarith(p);
    return make_float(p, d);
}

/* Both operands as doubles for a mixed/float operation; 0 raises badarith. */
static int float_operands(Term a, Term b, double *x, double *y)
{
    return term_to_double(a, x) && term_to_double(b, y);
}

/* ---- addition and subtraction ---- */

/* a + (bneg ? -|b| : |b|), with a and b integers. */
static Term big_addsub(Process *p, const IView *a, const IView *b, int bneg)
{
    BigOut o;
    uint64_t *r = big_open(p, &o, (a->n > b->n ? a->n : b->n) + 1);
    if (!r)
        return bif_out_of_memory(p);
    size_t rn;
    int neg;
    if (a->neg == bneg) {
        rn = bn_add(r, a->d, a->n, b->d, b->n);
        neg = a->neg;
    } else if (bn_cmp(a->d, a->n, b->d, b->n) >= 0) {
        rn = bn_sub(r, a->d, a->n, b->d, b->n);     /* 0 when equal */
        neg = a->neg;
    } else {
        rn = bn_sub(r, b->d, b->n, a->d, a->n);
        neg = bneg;
    }
    return big_close(p, &o, neg, rn);
}

Term arith_add(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b)) {
        SWord r = small_val(a) + small_val(b);     /* cannot overflow a word */
        if (fits_small(r))
            return make_small(r);
        return make_integer(p, r);
    }
    if (is_integer(a) && is_integer(b)) {
        IView x, y;
        iview(a, &x);
        iview(b, &y);
        return big_addsub(p, &x, &y, y.neg);
    }
    double x, y;
    if (!float_operands(a, b, &x, &y))
        return raise_badarith(p);
    return float_result(p, x + y);
}

Term arith_sub(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b)) {
        SWord r = small_val(a) - small_val(b);
        if (fits_small(r))
            return make_small(r);
        return make_integer(p, r);
    }
    if (is_integer(a) && is_integer(b)) {
        IView x, y;
        iview(a, &x);
        iview(b, &y);
        return big_addsub(p, &x, &y, !y.neg && y.n != 0);
    }
    double x, y;
    if (!float_operands(a, b, &x, &y))
        return raise_badarith(p);
    return float_result(p, x - y);
}

/* ---- multiplication ---- */

Term arith_mul(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b)) {
        int64_t r;
        if (!__builtin_mul_overflow((int64_t)small_val(a), (int64_t)small_val(b), &r)) {
            if (fits_small(r))
                return make_small(r);
            return make_integer(p, r);
        }
        return make_int128(p, (__int128)small_val(a) * small_val(b));
    }
    if (is_integer(a) && is_integer(b)) {
        IView x, y;
        iview(a, &x);
        iview(b, &y);
        if (x.n == 0 || y.n == 0)
            return make_small(0);
        size_t n = x.n + y.n;
        if (n > ARITH_MAX_BIG_DIGITS)
            return raise_system_limit(p);
        BigOut o;
        uint64_t *r = big_open(p, &o, n);
        if (!r)
            return bif_out_of_memory(p);
        size_t rn = bn_mul(r, x.d, x.n, y.d, y.n);
        if (rn == BN_NOMEM)
            return big_refused(p, &o);
        if (n > 64)
            p->reds -= (SWord)((x.n * y.n) >> 10);
        return big_close(p, &o, x.neg != y.neg, rn);
    }
    double x, y;
    if (!float_operands(a, b, &x, &y))
        return raise_badarith(p);
    return float_result(p, x * y);
}

/* ---- division ---- */

Term arith_fdiv(Process *p, Term a, Term b)
{
    double x, y;
    if (!float_operands(a, b, &x, &y) || y == 0.0)
        return raise_badarith(p);
    return float_result(p, x / y);
}

/* Big division: quotient (want_q) or remainder. */
static Term big_divrem(Process *p, Term a, Term b, int want_q)
{
    IView x, y;
    iview(a, &x);
    iview(b, &y);
    if (y.n == 0)
        return raise_badarith(p);
    if (bn_cmp(x.d, x.n, y.d, y.n) < 0)
        return want_q ? make_small(0) : a;
    /* the half that is wanted is computed in the heap, the other in scratch */
    size_t qcap = x.n - y.n + 1, cap = want_q ? qcap : y.n;
    BigOut o;
    uint64_t *res = big_open(p, &o, cap);
    if (!res)
        return bif_out_of_memory(p);
    Tmp t;
    uint64_t *other = tmp_get(&t, want_q ? y.n : qcap);
    int failed = !other || bn_divrem(want_q ? res : other, NULL, want_q ? other : res, NULL,
                                     x.d, x.n, y.d, y.n) != 0;
    tmp_free(&t);
    if (failed)
        return big_refused(p, &o);
    if (x.n > 64)
        p->reds -= (SWord)((qcap * y.n) >> 10);
    return big_close(p, &o, want_q ? x.neg != y.neg : x.neg, cap);
}

Term arith_idiv(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b)) {
        SWord y = small_val(b);
        if (y == 0)
            return raise_badarith(p);
        SWord r = small_val(a) / y;               /* C truncates, like div */
        if (fits_small(r))
            return make_small(r);
        return make_integer(p, r);                /* MIN_SMALL div -1 */
    }
    if (is_integer(a) && is_integer(b))
        return big_divrem(p, a, b, 1);
    return raise_badarith(p);
}

Term arith_rem(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b)) {
        SWord y = small_val(b);
        if (y == 0)
            return raise_badarith(p);
        return make_small(small_val(a) % y);      /* sign of the dividend */
    }
    if (is_integer(a) && is_integer(b))
        return big_divrem(p, a, b, 0);
    return raise_badarith(p);
}

/* ---- unary ---- */

Term arith_neg(Process *p, Term a)
{
    if (is_small(a))
        return make_integer(p, -(int64_t)small_val(a));
    if (is_big(a))
        return make_big_from_digits(p, !big_is_neg(a), big_digits(a), big_size(a));
    if (is_float(a))
        return make_float(p, -float_val(a));
    return raise_badarith(p);
}

Term arith_plus(Process *p, Term a)
{
    if (is_number(a))
        return a;
    return raise_badarith(p);
}

Term arith_abs(Process *p, Term a)
{
    if (is_small(a)) {
        SWord x = small_val(a);
        return x >= 0 ? a : make_integer(p, -(int64_t)x);
    }
    if (is_big(a))
        return big_is_neg(a) ? make_big_from_digits(p, 0, big_digits(a), big_size(a)) : a;
    if (is_float(a)) {
        double d = float_val(a);
        return signbit(d) ? make_float(p, -d) : a;
    }
    return raise_badarg(p);
}

/* ---- bitwise ---- */

static Term bitop(Process *p, int op, Term a, Term b)
{
    if (!is_integer(a) || !is_integer(b))
        return raise_badarith(p);
    IView x, y;
    iview(a, &x);
    iview(b, &y);
    BigOut o;
    uint64_t *r = big_open(p, &o, (x.n > y.n ? x.n : y.n) + 1);
    if (!r)
        return bif_out_of_memory(p);
    int neg;
    size_t rn = bn_bitop(op, r, &neg, x.neg, x.d, x.n, y.neg, y.d, y.n);
    return big_close(p, &o, neg, rn);
}

Term arith_band(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b))
        return make_small(small_val(a) & small_val(b));
    return bitop(p, BN_AND, a, b);
}

Term arith_bor(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b))
        return make_small(small_val(a) | small_val(b));
    return bitop(p, BN_OR, a, b);
}

Term arith_bxor(Process *p, Term a, Term b)
{
    if (is_small(a) && is_small(b))
        return make_small(small_val(a) ^ small_val(b));
    return bitop(p, BN_XOR, a, b);
}

Term arith_bnot(Process *p, Term a)
{
    if (is_small(a))
        return make_small(~small_val(a));         /* -a-1 always fits */
    if (is_big(a))
        return arith_sub(p, make_small(-1), a);
    return raise_badarith(p);
}

/* a << n for an integer a != 0 and n >= 0. */
static Term shift_left(Process *p, Term a, uint64_t n)
{
    if (is_small(a) && n < 64)
        return make_int128(p, (__int128)small_val(a) * ((__int128)1 << n));
    IView x;
    iview(a, &x);
    if (n / 64 + x.n + 1 > ARITH_MAX_BIG_DIGITS)
        return raise_system_limit(p);
    size_t cap = x.n + n / 64 + 1;
    BigOut o;
    uint64_t *r = big_open(p, &o, cap);
    if (!r)
        return bif_out_of_memory(p);
    size_t rn = bn_shl(r, x.d, x.n, (size_t)n);
    if (cap > 64)
        p->reds -= (SWord)(cap >> 6);
    return big_close(p, &o, x.neg, rn);
}

/* a >> n (arithmetic: rounds toward minus infinity) for n >= 0. */
static Term shift_right(Process *p, Term a, uint64_t n)
{
    if (is_small(a))
        return make_small(n >= 63 ? (small_val(a) < 0 ? -1 : 0) : small_val(a) >> n);
    IView x;
    iview(a, &x);
    if (n >= (uint64_t)x.n * 64)
        return make_small(x.neg ? -1 : 0);
    BigOut o;
    uint64_t *r = big_open(p, &o, x.n + 1);
    if (!r)
        return bif_out_of_memory(p);
    int lost;
    size_t rn = bn_shr(r, x.d, x.n, (size_t)n, &lost);
    if (x.neg && lost) {
        uint64_t one = 1;
        rn = bn_add(r, r, rn, &one, 1);
    }
    return big_close(p, &o, x.neg, rn);
}

static inline int is_zero(Term a) { return a == make_small(0); }

Term arith_bsl(Process *p, Term a, Term b)
{
    if (!is_integer(a) || !is_integer(b))
        return raise_badarith(p);
    if (is_small(b)) {
        SWord n = small_val(b);
        if (is_small(a) && n >= 0 && n < 64) {
            SWord x = small_val(a);
            if (n < SMALL_BITS && x >= (MIN_SMALL >> n) && x <= (MAX_SMALL >> n))
                return make_small(x * ((SWord)1 << n));
        }
        if (is_zero(a))
            return a;
        return n >= 0 ? shift_left(p, a, (uint64_t)n) : shift_right(p, a, (uint64_t)0 - (uint64_t)n);
    }
    /* a shift by a big integer */
    if (is_zero(a))
        return a;
    if (big_is_neg(b))
        return is_small(a) ? make_small(small_val(a) < 0 ? -1 : 0)
                           : make_small(big_is_neg(a) ? -1 : 0);
    return raise_system_limit(p);
}

Term arith_bsr(Process *p, Term a, Term b)
{
    if (!is_integer(a) || !is_integer(b))
        return raise_badarith(p);
    if (is_small(b)) {
        SWord n = small_val(b);
        if (is_small(a) && n >= 0)
            return make_small(n >= 63 ? (small_val(a) < 0 ? -1 : 0) : small_val(a) >> n);
        if (is_zero(a))
            return a;
        return n >= 0 ? shift_right(p, a, (uint64_t)n) : shift_left(p, a, (uint64_t)0 - (uint64_t)n);
    }
    if (is_zero(a))
        return a;
    if (!big_is_neg(b))
        return is_small(a) ? make_small(small_val(a) < 0 ? -1 : 0)
                           : make_small(big_is_neg(a) ? -1 : 0);
    return raise_system_limit(p);
}

/* ---- conversions ---- */

Term arith_float(Process *p, Term a)
{
    if (is_float(a))
        return a;
    if (is_small(a))
        return make_float(p, (double)small_val(a));
    double d;
    if (is_big(a) && term_to_double(a, &d))
        return make_float(p, d);
    return raise_badarg(p);
}

static Term float_to_int(Process *p, Term a, double (*fn)(double))
{
    if (is_integer(a))
        return a;
    if (is_float(a))
        return make_integer_from_double(p, fn(float_val(a)));
    return raise_badarg(p);
}

Term arith_round(Process *p, Term a) { return float_to_int(p, a, round); }
Term arith_trunc(Process *p, Term a) { return float_to_int(p, a, trunc); }
Term arith_ceil(Process *p, Term a) { return float_to_int(p, a, ceil); }
Term arith_floor(Process *p, Term a) { return float_to_int(p, a, floor); }
