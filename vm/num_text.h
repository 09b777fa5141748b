/* num_text.h — numbers as text and text as numbers, with Erlang's formats.
 *
 * The BIFs integer_to_list/1,2, list_to_integer/1,2, float_to_list/1 and
 * list_to_float/1 (bifs.def) live in num_text.c.
 */
#ifndef MINI_NUM_TEXT_H
#define MINI_NUM_TEXT_H

#include "process.h"

/* The text io_lib:write / ~p / ~w print for a float (OTP 25): the shortest
 * digits that read back as the same double, in fixed notation ("0.1",
 * "100.0", "0.0001") or scientific ("1.0e16", "1.5e-4", "1.0e3"), whichever
 * is shorter (fixed on a tie), and scientific whenever |d| >= 2^53 has no
 * fraction digits. Writes a NUL; returns the length, or -1 if n is too
 * small (32 bytes always suffice). */
#define FLOAT_SHORTEST_MAX 32
int float_format_shortest(double d, char *buf, size_t n);
/* float_to_list/1's text: "%.20e" ("1.50000000000000000000e+00"). */
int float_format_default(double d, char *buf, size_t n);
/* float_to_list/2's and float_to_binary/2's text for the option list opts
 * ({decimals, 0..253}, {scientific, 0..249}, short, compact; the last of
 * decimals/scientific/short wins): its length, or -1 for badarg (a bad
 * option, or a result longer than 255 characters, as OTP's buffer). buf
 * needs FLOAT_OPTIONS_MAX bytes. */
#define FLOAT_OPTIONS_MAX 2048
int float_format_options(double d, Term opts, char *buf);

/* Text of an integer term (small or big) in base 2..36, upper-case
 * letters, '-' for negatives. Returns a malloc'ed NUL-terminated string
 * (*len set if len is not NULL), or NULL if out of memory. */
char *integer_to_chars(Term i, int base, size_t *len);
/* The integer as a list of character codes (integer_to_list/2). i must be
 * an integer and base 2..36. */
Term integer_to_term_list(Process *p, Term i, int base);
/* A list of character codes from bytes. */
Term chars_to_term_list(Process *p, const char *s, size_t n);

/* Parses [+-]digits in base (2..36, letters either case) into an integer
 * term; THE_NON_VALUE (without raising) if the text is not one (or is
 * too long to represent). */
Term chars_to_integer(Process *p, const char *s, size_t n, int base);
/* Parses Erlang float syntax [+-]D+.D+([eE][+-]?D+)?; 0 if not valid or
 * out of range (underflow gives 0.0 as Erlang does). */
int chars_to_double(const char *s, size_t n, double *out);

#endif
