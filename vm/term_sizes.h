/* term_sizes.h — the sizes of term layouts that more than one layer builds.
 *
 * The binary code (binary.c) and the literal builder (literal.c, which the
 * compiler uses for constant binaries) both lay out HEAP_BINs; the size
 * lives here rather than in binary.h so that building a literal needs
 * nothing of the process heap or the off-heap binary machinery. Layouts:
 * term.h and binary.h.
 */
#ifndef MINI_TERM_SIZES_H
#define MINI_TERM_SIZES_H

#include <stddef.h>

/* A HEAP_BIN of `bytes` bytes: header, byte size, the bytes in whole words. */
static inline size_t heap_bin_words(size_t bytes) { return 2 + (bytes + 7) / 8; }

#endif
