/* etf.h — the external term format (etf.c) for C callers: distribution
 * encodes messages and decodes what arrives with the same code as
 * term_to_binary/binary_to_term. */
#ifndef MINI_ETF_H
#define MINI_ETF_H

#include <stddef.h>
#include "term.h"
#include "outbuf.h"

struct Process;
/* Appends t's encoding (no leading 131); 0 if t has no external form. */
int etf_encode(OutBuf *b, Term t);
/* Decodes "131 Term" from s onto p's heap (heap_alloc: no collection);
 * *used is the bytes read. THE_NON_VALUE (badarg set on p) if malformed. */
Term etf_decode(struct Process *p, const unsigned char *s, size_t n, size_t *used);

#endif
