/* textscan_count.c — the counting loop of the textscan driver
 * (drv_textscan.c): newlines and words of a buffer, carried across chunks.
 * Kept apart so that tests/unit/test_textscan.c can hold it against a
 * byte-at-a-time count. */
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "textscan_count.h"

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Counts newlines and word starts (a byte that is no space after one that
 * is, or first with *in_word clear) in buf[0..n); *in_word carries across
 * chunks. Jobs are mostly this loop, and a shorter job is a completion
 * sooner: 64 bytes at a time as bit masks (bit i: byte i is a space), a word
 * start being a clear bit above a set one, then the rest a byte at a time.
 * Both loops give the same counts. */
void textscan_count(const unsigned char *buf, size_t n, unsigned long *lines, unsigned long *words,
                    int *in_word) {
    size_t i = 0;
    unsigned long nl = 0, w = 0;
    uint64_t carry = !*in_word;               /* bit 0: the byte before was a space */
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'),
                  cr = _mm_set1_epi8('\r');
    for (; i + 64 <= n; i += 64) {
        uint64_t spaces = 0, nls = 0;
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(buf + i + 16 * k));
            __m128i isnl = _mm_cmpeq_epi8(v, lf);
            __m128i issp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)),
                                        _mm_or_si128(isnl, _mm_cmpeq_epi8(v, cr)));
            spaces |= (uint64_t)(uint16_t)_mm_movemask_epi8(issp) << (16 * k);
            nls |= (uint64_t)(uint16_t)_mm_movemask_epi8(isnl) << (16 * k);
        }
        nl += (unsigned long)__builtin_popcountll(nls);
        w += (unsigned long)__builtin_popcountll(~spaces & ((spaces << 1) | carry));
        carry = spaces >> 63;
    }
#endif
    int inw = !carry;
    for (; i < n; i++) {
        unsigned char c = buf[i];
        nl += c == '\n';
        int s = is_space(c);
        w += !s && !inw;
        inw = !s;
    }
    *in_word = inw;
    *lines += nl;
    *words += w;
}
