/* copy.h — copying a term out of one heap into a block of words, as a send
 * does (into a message fragment) and as spawn does (the arguments). */
#ifndef MINI_COPY_H
#define MINI_COPY_H

#include "term.h"

/* Words needed to copy t (0 for an immediate). Sharing is not preserved:
 * a subterm reachable twice is counted (and copied) twice, as in Erlang. */
size_t copy_size(Term t);
/* Copies t into hp, which has copy_size(t) free words; returns the copy. */
Term copy_term(Term t, Term *hp);

#endif
