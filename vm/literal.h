/* literal.h — building constant terms outside any process heap.
 *
 * The code generator builds each constant of a module (strings, constant
 * tuples and lists, floats, big integers) once, in Boehm memory owned by the
 * module; instructions then refer to it directly. Process heaps may point at
 * literals but never own them: the collector copies only what lies in a
 * process's own heap or fragments, and the module table keeps literals alive
 * (current and old version, as Erlang does).
 */
#ifndef MINI_LITERAL_H
#define MINI_LITERAL_H

#include "term.h"

Term *lit_alloc(size_t words);          /* Boehm memory, never scanned for pointers */
Term lit_tuple(const Term *elems, size_t n);
Term lit_cons(Term head, Term tail);
Term lit_float(double d);
Term lit_string(const int *codes, size_t n);      /* a list of character codes */
Term lit_binary(const int *bytes, size_t n);      /* a binary of n bytes (a HEAP_BIN of any size) */
Term lit_map_empty(void);                         /* #{}, one shared constant */
/* A literal integer from digits in a base (2..36); small or big. */
Term lit_integer_text(const char *digits, int base, int negative);
Term lit_integer(int64_t v);                       /* small or big */
/* Is this word a pointer into literal (Boehm) memory? */
int lit_is_literal_ptr(const void *p);

#endif
