/* atom.h — the global atom table: text <-> index, shared by all threads.
 * Atom names live in Boehm memory and are never freed (as in Erlang). */
#ifndef MINI_ATOM_H
#define MINI_ATOM_H

#include "term.h"

enum {
#define ATOM(id, text) ATOM_INDEX_##id,
#include "atoms.def"
#undef ATOM
    ATOM__PRELOADED
};
#define ATOM_TERM(id) make_atom(ATOM_INDEX_##id)
#define AM_false ATOM_TERM(false)
#define AM_true ATOM_TERM(true)
#define AM_ok ATOM_TERM(ok)
#define AM_error ATOM_TERM(error)
#define AM_undefined ATOM_TERM(undefined)
#define AM_badarg ATOM_TERM(badarg)
#define AM_badarith ATOM_TERM(badarith)

#define MAX_ATOM_LENGTH 255         /* characters, as Erlang's limit */

void atom_init(void);
/* The atom with this text, created if new; THE_NON_VALUE if len is too long
 * or the table is full (atom_limit). */
Term atom_intern(const char *name, size_t len);
Term atom_intern_cstr(const char *name);
/* The atom with this text if it exists, else THE_NON_VALUE. */
Term atom_lookup(const char *name, size_t len);
/* The text of an atom (not NUL-terminated unless *len is ignored: it is). */
const char *atom_name(Term atom, size_t *len);
UWord atom_count(void);
/* The most atoms there may be (+t N, 8192 .. 2^26; default 1,048,576, as
 * Erlang's); atom_intern returns THE_NON_VALUE beyond it. Set it before the
 * VM starts. */
void atom_set_limit(size_t n);
UWord atom_limit(void);
/* The character at *i of an atom's text, advancing *i past it. An atom's
 * text is UTF-8, every character above 127 included, so that one text is
 * one atom (when characters below 256 were single bytes, the Latin-1 atom
 * [16#F0, 16#A2, 16#A2, 16#A2] and [16#228A2] had the same bytes and were
 * the same atom), and byte order is character order (atom comparison).
 * Every maker of an atom's text encodes so (atom_intern takes UTF-8). A
 * byte that does not start a valid sequence reads as itself. */
UWord atom_text_char(const unsigned char *s, size_t n, size_t *i);

#endif
