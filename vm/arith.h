/* arith.h — arithmetic on terms: small integers, big integers and floats,
 * with Erlang's rules.
 *
 * Every operation returns the result term, or THE_NON_VALUE after raising
 * the Erlang exception in p (error:badarith for the operators, error:badarg
 * for float/round/trunc/ceil/floor of a non-number, error:system_limit for
 * a result too large to represent). Results that fit a small integer are
 * always small; big integers are built with heap_alloc (never collects), so
 * operands stay valid during the call. Small-integer cases allocate nothing.
 */
#ifndef MINI_ARITH_H
#define MINI_ARITH_H

#include "heap.h"

/* Largest big integer, in 64-bit digits (about 2^30 bits): beyond it an
 * operation raises system_limit instead of exhausting memory. */
#define ARITH_MAX_BIG_DIGITS ((size_t)1 << 24)

/* ---- building and reading numbers ---- */
Term make_integer(Process *p, int64_t v);            /* small or big */
Term make_uinteger(Process *p, uint64_t v);          /* small or big */
/* Integer from a magnitude (need not be normalized) and sign: small if it
 * fits, else a copy on the heap. */
Term make_big_from_digits(Process *p, int neg, const uint64_t *d, size_t n);
Term make_float(Process *p, double d);                /* no finiteness check */
/* The integer part of a finite double as an integer term. */
Term make_integer_from_double(Process *p, double d);
/* 1 and *out set if t is an integer that fits int64_t, else 0. */
int term_to_int64(Term t, int64_t *out);
/* 1 and *out set if t is a number whose value is a finite double (a big
 * integer too large for a double gives 0), else 0. */
int term_to_double(Term t, double *out);

/* ---- operators (error:badarith on bad operands) ---- */
Term arith_add(Process *p, Term a, Term b);
Term arith_sub(Process *p, Term a, Term b);
Term arith_mul(Process *p, Term a, Term b);
Term arith_fdiv(Process *p, Term a, Term b);         /* '/': always a float  */
Term arith_idiv(Process *p, Term a, Term b);         /* div: truncates       */
Term arith_rem(Process *p, Term a, Term b);          /* rem: dividend's sign */
Term arith_neg(Process *p, Term a);                  /* unary -              */
Term arith_plus(Process *p, Term a);                 /* unary +: a number    */
Term arith_band(Process *p, Term a, Term b);
Term arith_bor(Process *p, Term a, Term b);
Term arith_bxor(Process *p, Term a, Term b);
Term arith_bsl(Process *p, Term a, Term b);
Term arith_bsr(Process *p, Term a, Term b);
Term arith_bnot(Process *p, Term a);

/* ---- BIF-style functions (error:badarg on non-numbers) ---- */
Term arith_abs(Process *p, Term a);
Term arith_float(Process *p, Term a);
Term arith_round(Process *p, Term a);                /* half away from zero  */
Term arith_trunc(Process *p, Term a);
Term arith_ceil(Process *p, Term a);
Term arith_floor(Process *p, Term a);

/* An integer seen as sign + magnitude, without allocating. */
typedef struct {
    const uint64_t *d;
    size_t n;
    int neg;
    uint64_t one;                 /* storage for a small's magnitude */
} IView;

static inline void iview(Term t, IView *v)
{
    if (is_small(t)) {
        SWord x = small_val(t);
        v->neg = x < 0;
        v->one = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        v->d = &v->one;
        v->n = v->one != 0;
    } else {
        v->d = big_digits(t);
        v->n = big_size(t);
        v->neg = big_is_neg(t);
    }
}

#endif
