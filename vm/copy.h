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
/* The same, and *bins is the number of ProcBins copied: a message records
 * whether it has any, so that its receiver need not look (mailbox.h). */
Term copy_term_bins(Term t, Term *hp, size_t *bins);
/* Payload words of a boxed object with this header that are not terms (they
 * follow the header; the rest of the payload is terms). Copied ProcBins are
 * on no MSO list yet: whoever takes ownership calls binary_adopt (binary.h). */
size_t copy_raw_words(Term header);

#endif
