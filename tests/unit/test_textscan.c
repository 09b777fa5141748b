/* test_textscan.c — the textscan driver's counting loop (textscan_count)
 * against a byte-at-a-time count: random buffers over an alphabet heavy in
 * space, tab, CR and LF, of every length around the 64-byte blocks, split
 * into chunks at random points (the in-word state carried across), and
 * starting inside or outside a word. */
#include <stdio.h>
#include <stdlib.h>

#include "textscan_count.h"

static int failures;

static void reference(const unsigned char *b, size_t n, unsigned long *lines, unsigned long *words,
                      int *in_word) {
    for (size_t i = 0; i < n; i++) {
        int sp = b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r';
        *lines += b[i] == '\n';
        *words += !sp && !*in_word;
        *in_word = !sp;
    }
}

int main(void) {
    static const unsigned char alphabet[] = " \t\n\rab\0\xff\x0b\x0c" "zz";
    unsigned seed = 12345;
    unsigned char buf[700];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 700);
        int sparse = round % 3;              /* long words, long spaces, or mixed */
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 16;
            buf[i] = sparse == 0 ? alphabet[r % (sizeof alphabet - 1)]
                   : sparse == 1 ? (r % 17 ? 'x' : alphabet[r % 4]) : (r % 17 ? ' ' : 'y');
        }
        int start = round & 1;
        unsigned long l0 = 0, w0 = 0, l1 = 0, w1 = 0;
        int in0 = start, in1 = start;
        reference(buf, n, &l0, &w0, &in0);
        /* the same bytes in up to three chunks */
        seed = seed * 1103515245u + 12345u;
        size_t a = n ? (seed >> 8) % (n + 1) : 0, b = n ? (seed >> 4) % (n + 1) : 0;
        if (a > b) { size_t t = a; a = b; b = t; }
        textscan_count(buf, a, &l1, &w1, &in1);
        textscan_count(buf + a, b - a, &l1, &w1, &in1);
        textscan_count(buf + b, n - b, &l1, &w1, &in1);
        if (l0 != l1 || w0 != w1 || in0 != in1) {
            failures++;
            if (failures < 5)
                fprintf(stderr, "round %d (n %zu, chunks %zu %zu): lines %lu/%lu words %lu/%lu in %d/%d\n",
                        round, n, a, b, l0, l1, w0, w1, in0, in1);
        }
    }
    if (failures) { fprintf(stderr, "test_textscan: %d failures\n", failures); return 1; }
    printf("test_textscan: ok\n");
    return 0;
}
