/* print.h — Erlang-style text for terms: ~w (io_lib:write) and ~p
 * (io_lib_pretty:print, same line-breaking algorithm as OTP).
 *
 * Characters are written as bytes: codes 0..255 as one byte (Latin-1, as
 * Erlang writes to a Latin-1 standard output), larger codes as UTF-8.
 * Every walk keeps its pending work on a heap-allocated task stack, never
 * on the C stack, so a term nested a million deep prints in full, as in
 * OTP. */
#ifndef MINI_PRINT_H
#define MINI_PRINT_H

#include "term.h"
#include "outbuf.h"

enum { PRINT_WRITE = 0, PRINT_PRINT = 1 };

/* ~w (mode PRINT_WRITE) or ~p at column 1, line length 80 (PRINT_PRINT). */
void print_term(OutBuf *b, Term t, int mode);
/* ~W: io_lib:write(T, Depth); depth < 0 means unlimited. */
void print_write_depth(OutBuf *b, Term t, long depth);
/* ~p/~P: io_lib_pretty:print(T, Col, LineLength, Depth) with strings on or
 * off (~lp); col is 1-based as in OTP, depth < 0 is unlimited. strings may
 * add PRINT_UNICODE (~tp): binaries that are UTF-8 print as text. */
enum { PRINT_STRINGS = 1, PRINT_UNICODE = 2 };

void print_pretty(OutBuf *b, Term t, long col, long line_len, long depth, int strings);
/* The same with io_lib_pretty's line_max_chars: a term (or element) longer
 * than max_chars characters is laid out on lines of its own even where it
 * would fit the line (max_chars < 0: no such limit, as print_pretty); and
 * with the records recs ([{Name, [Field]}], NIL for none) printed as
 * #name{field = Value,...}, as the shell's record_print_fun has
 * io_lib_pretty print them. The shell prints its values with 60, as erl's
 * shell does. */
void print_pretty_max(OutBuf *b, Term t, long col, long line_len, long depth, int strings,
                      long max_chars, Term recs);

void print_atom(OutBuf *b, Term atom);               /* quoted if needed        */
int print_atom_needs_quotes(const char *s, size_t n);
/* An atom's characters, unquoted, as print_char writes them (~s of an atom). */
void print_atom_text(OutBuf *b, Term atom);
/* Integer (small or big) in base 2..36; '-' for negatives; letters upper
 * case unless lowercase. */
void print_integer(OutBuf *b, Term i, int base, int lowercase);
void print_float(OutBuf *b, double d);                /* Erlang's shortest form  */
/* io_lib:printable_latin1_list/1 (true for []). */
int print_is_printable_list(Term t);
/* Writes one character code: a byte if < 256, else UTF-8. */
void print_char(OutBuf *b, UWord c);
/* io_lib's printable Latin-1 character (the set ~p prints as a string). */
int print_printable_latin1(long c);
/* io_lib string_char/4 in latin1 mode: c as written inside quotes q
 * (escaped: q, backslash, control characters, octal below 0xA0). */
void print_quoted_char(OutBuf *b, UWord c, int q);

#endif
