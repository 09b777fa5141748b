/* copy.c — copying terms between heaps.
 *
 * Both passes are iterative, so a million-element list or a deeply nested
 * term needs no C recursion. copy_size walks with an explicit stack.
 * copy_term copies Cheney-style without forwarding: the root object is copied
 * to the start of the destination, then a scan pointer walks the words
 * already copied and, for every pointer it finds that still points outside,
 * appends a copy of the object pointed to and redirects the pointer. The
 * destination itself is the work queue. A list's spine is copied whole when
 * its first cell is (the cells in a row, each tail pointing at the next), so
 * a string or a list of numbers costs one tight loop and a scan that finds
 * nothing to do, not a trip through the queue per cell.
 */
#include <string.h>

#include "copy.h"
#include "binary.h"
#include "wordstack.h"

/* Words of payload that are not terms, for a boxed object's header. Funs
 * keep their FunEntry pointer raw and their free variables as terms. */
static size_t raw_words(Term header) {
    switch (header_subtag(header)) {
    case BOXED_TUPLE: return 0;
    case BOXED_FUN: return 1;
    case BOXED_MAP: return 0;
    case BOXED_SUB_BIN: return 2;   /* binaries: [bit size][bit offset][orig term] */
    default: return header_arity(header);
    }
}

size_t copy_raw_words(Term header) { return raw_words(header); }

size_t copy_size(Term t) {
    if (is_immed(t)) return 0;
    WordStack stack;                    /* on the C stack: most messages are small */
    ws_init(&stack);
    size_t words = 0;
    for (;;) {
        while (!is_immed(t)) {
            if (is_list(t)) {
                words += 2;
                if (!is_immed(list_head(t))) ws_push(&stack, list_head(t));
                t = list_tail(t);
            } else {
                Term *p = boxed_ptr(t);
                size_t n = header_arity(p[0]), raw = raw_words(p[0]);
                words += 1 + n;
                for (size_t i = raw + 1; i <= n; i++)
                    if (!is_immed(p[i])) ws_push(&stack, p[i]);
                break;
            }
        }
        if (stack.n == 0) break;
        t = ws_pop(&stack);
    }
    ws_free(&stack);
    return words;
}

/* Copies the object t points to at *top and returns the new tagged pointer;
 * counts a copied ProcBin in *bins. */
static inline Term copy_one(Term t, Term **top, size_t *bins) {
    Term *dst = *top;
    if (is_list(t)) {
        Term *d = dst;
        for (;;) {
            d[0] = list_head(t);
            t = list_tail(t);
            if (!is_list(t)) break;
            d[1] = make_list(d + 2);
            d += 2;
        }
        d[1] = t;
        *top = d + 2;
        return make_list(dst);
    }
    Term *src = boxed_ptr(t);
    size_t n = header_arity(src[0]) + 1;
    memcpy(dst, src, n * sizeof(Term));
    *top = dst + n;
    /* binaries: a copied ProcBin is one more reference to the shared bytes */
    if (header_subtag(src[0]) == BOXED_REFC_BIN) {
        binary_copied(dst);
        ++*bins;
    }
    return make_boxed(dst);
}

Term copy_term(Term t, Term *hp) {
    size_t bins;
    return copy_term_bins(t, hp, &bins);
}

Term copy_term_bins(Term t, Term *hp, size_t *bins) {
    *bins = 0;
    if (is_immed(t)) return t;
    Term *top = hp;
    Term root = copy_one(t, &top, bins);
    Term *scan = hp;
    /* Every object in [hp, top) was copied whole; walk them in order. Cons
     * cells have no header: a word with tag 00 can only be a header here.
     * A pointer into [hp, top) is a spine's link, already in place. */
    while (scan < top) {
        Term w = *scan;
        if (primary_tag(w) == TAG_HEADER) {
            size_t raw = raw_words(w);
            scan += 1 + raw;
            continue;
        }
        if (!is_immed(w)) {
            Term *at = (Term *)(w & ~(Term)3);
            if (at < hp || at >= top) *scan = copy_one(w, &top, bins);
        }
        scan++;
    }
    return root;
}
