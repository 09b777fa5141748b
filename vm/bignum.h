/* bignum.h — magnitude arithmetic on arrays of 64-bit digits.
 *
 * A magnitude is an array of uint64_t digits, least significant first, with
 * a length. "Normalized" means no leading (most significant) zero digit; the
 * value 0 is the empty array (length 0). Functions return the normalized
 * length of their result. Nothing here allocates terms or knows about
 * processes: arith.c builds terms from these results (term.h's bignum layout
 * is exactly [header][these digits]).
 *
 * Output buffers must not overlap inputs unless a function says so.
 */
#ifndef MINI_BIGNUM_H
#define MINI_BIGNUM_H

#include <stdint.h>
#include <stddef.h>

/* Length without leading zero digits. */
size_t bn_norm(const uint64_t *a, size_t n);
/* Compare normalized magnitudes: <0, 0, >0. */
int bn_cmp(const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r = a + b; r has room for max(an,bn)+1 digits; r may be a or b. */
size_t bn_add(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r = a - b, requires a >= b; r has room for an digits; r may be a or b. */
size_t bn_sub(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r = a * b; r has room for an+bn digits; no overlap. BN_NOMEM when the
 * scratch of a Karatsuba product could not be had: the quadratic method
 * instead would take hours at the sizes where that happens. */
#define BN_NOMEM ((size_t)-1)
size_t bn_mul(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r = a * m + c; r has room for an+1 digits; r may be a. */
size_t bn_mul_1(uint64_t *r, const uint64_t *a, size_t an, uint64_t m, uint64_t c);
/* q = a / d, returns a % d; q has room for an digits (may be a, or NULL);
 * *qn gets q's length (qn may be NULL). d != 0. */
uint64_t bn_divrem_1(uint64_t *q, size_t *qn, const uint64_t *a, size_t an, uint64_t d);
/* Knuth algorithm D: q = a / b, r = a % b (b normalized, bn >= 1).
 * q has room for an-bn+1 digits (or NULL), r for bn digits (or NULL).
 * Returns 0, or -1 if temporary memory could not be had. */
int bn_divrem(uint64_t *q, size_t *qn, uint64_t *r, size_t *rn,
              const uint64_t *a, size_t an, const uint64_t *b, size_t bn);
/* r = a << shift; r has room for an + shift/64 + 1 digits; no overlap. */
size_t bn_shl(uint64_t *r, const uint64_t *a, size_t an, size_t shift);
/* r = a >> shift (logical on the magnitude); r has room for an digits;
 * *lost (if not NULL) is set to 1 if any 1 bit was shifted out. r may be a. */
size_t bn_shr(uint64_t *r, const uint64_t *a, size_t an, size_t shift, int *lost);
/* Number of significant bits (0 for zero). */
size_t bn_bitlen(const uint64_t *a, size_t an);

/* Bitwise operations on signed values (sign + magnitude), with Erlang's
 * (infinite two's complement) semantics. r has room for max(an,bn)+1
 * digits; *rneg gets the sign of the result. */
enum { BN_AND, BN_OR, BN_XOR };
size_t bn_bitop(int op, uint64_t *r, int *rneg,
                int aneg, const uint64_t *a, size_t an,
                int bneg, const uint64_t *b, size_t bn);

/* Text: digits only (no sign), base 2..36, upper-case letters.
 * bn_str_size is an upper bound of the characters (without NUL). */
size_t bn_str_size(size_t an, int base);
/* Writes the digits of a (normalized) and a NUL; returns the length.
 * buf has room for bn_str_size(an, base) + 1 chars. "0" for zero. */
size_t bn_to_str(char *buf, const uint64_t *a, size_t an, int base);
/* Digits needed for a text of len characters in base. */
size_t bn_from_str_size(size_t len, int base);
/* Parses len digit characters (0-9, a-z, A-Z) in base into r (room for
 * bn_from_str_size(len, base) digits). Returns the length, or (size_t)-1
 * if a character is not a digit of that base. */
size_t bn_from_str(uint64_t *r, const char *s, size_t len, int base);

/* Value of the magnitude as a double, correctly rounded (round to nearest,
 * ties to even); +inf when too large. */
double bn_to_double(const uint64_t *a, size_t an);
/* The integer part of |d| (d finite) as a magnitude; r has room for
 * BN_DOUBLE_DIGITS digits. */
#define BN_DOUBLE_DIGITS 17
size_t bn_from_double(uint64_t *r, double d);
/* Exact comparison of the integer (neg, a) with the finite double d. */
int bn_cmp_double(int neg, const uint64_t *a, size_t an, double d);

#endif
