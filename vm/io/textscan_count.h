/* textscan_count.h — the textscan driver's counting loop (textscan_count.c). */
#ifndef TEXTSCAN_COUNT_H
#define TEXTSCAN_COUNT_H
#include <stddef.h>

/* Adds to *lines the newlines and to *words the word starts in buf[0..n):
 * a word is a maximal run of bytes other than space, tab, CR and LF.
 * *in_word says whether the byte before buf was inside a word (0 at the
 * start of a file) and is left saying it of the last byte. */
void textscan_count(const unsigned char *buf, size_t n, unsigned long *lines, unsigned long *words,
                    int *in_word);

#endif
