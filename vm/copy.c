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
 * a string or a list of numbers costs one tight loop, not a trip through
 * the queue per cell. Both passes walk a spine guessing where its next cell
 * is (copy_size says how), and what was copied with nothing in it to
 * redirect (a spine of immediates, a small tuple or map of them) is noted
 * so that the scan jumps over it (CleanSpans).
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

/* Words of the boxed object t; its elements that are not immediate go on
 * the stack to be sized in turn. */
static inline size_t boxed_size(Term t, WordStack *stack) {
    Term *p = boxed_ptr(t);
    size_t n = header_arity(p[0]), raw = raw_words(p[0]);
    for (size_t i = raw + 1; i <= n; i++)
        if (!is_immed(p[i])) ws_push(stack, p[i]);
    return 1 + n;
}

/* A spine is walked with a guess at where each next cell is: as far from
 * this one as this one was from the one before (first guess: right after
 * it). Spines are laid out at a fixed step more often than not: a copy
 * puts each cell right after the last, consing in a loop right before it,
 * a collection a list of pairs every five words. Checked against the
 * tail, a good guess lets the processor load the next cells without
 * waiting for each tail to arrive from memory: sending a 1,000-integer
 * list took 40% less time (bench/list_shapes.mini). A wrong guess costs a
 * comparison. The elements of a list of small tuples are sized on the
 * way, not stacked. */
size_t copy_size(Term t) {
    if (is_immed(t)) return 0;
    WordStack stack;                    /* on the C stack: most messages are small */
    ws_init(&stack);
    size_t words = 0;
    for (;;) {
        if (is_list(t)) {
            Term *c = list_ptr(t);
            ptrdiff_t stride = 2;
            for (;;) {
                words += 2;
                Term head = c[0], tail = c[1];
                if (!is_immed(head)) {
                    if (is_boxed(head)) words += boxed_size(head, &stack);
                    else ws_push(&stack, head);
                }
                if (__builtin_expect(tail == make_list(c + stride), 1)) c += stride;
                else if (is_list(tail)) { stride = list_ptr(tail) - c; c = list_ptr(tail); }
                else break;
            }
            t = c[1];
            if (!is_immed(t)) continue;         /* an improper list's tail */
        } else if (!is_immed(t)) {
            words += boxed_size(t, &stack);
        }
        if (stack.n == 0) break;
        t = ws_pop(&stack);
    }
    ws_free(&stack);
    return words;
}

/* Where a copy stands: the next free word, the ProcBins copied, and the
 * spines copied whose heads are all immediate (a string, a list of
 * numbers) and small tuples and maps whose elements are (past the first:
 * {tag, 1, ok}, a map of numbers), which the scan in copy_term_bins
 * skips: nothing in them points outside the copy. They
 * are met in the order they were appended, so a short queue holds them;
 * one that does not fit is scanned as before.
 * Scanning such a spine word by word was a third of a 1,000-integer
 * list's send. */
#define CLEAN_SPANS 8
/* Tuples and flat maps up to this size are copied word by word (a flat
 * map holds at most 32 pairs: its header, keys and 32 values) */
#define SMALL_OBJECT_WORDS 34
typedef struct CleanSpans {
    Term *from[CLEAN_SPANS], *to[CLEAN_SPANS];
    unsigned first, n;
} CleanSpans;

/* Copies the object t points to at *top and returns the new tagged
 * pointer; counts a copied ProcBin in *bins, a clean spine in *k. */
static inline __attribute__((always_inline)) Term copy_one(Term t, Term **top, size_t *bins,
                                                          CleanSpans *k) {
    Term *dst = *top;
    if (is_list(t)) {
        Term *d = dst, *c = list_ptr(t);
        Term heads = ~(Term)0;                      /* immediate: tag bits 11 */
        ptrdiff_t stride = 2;                       /* the guess, as copy_size's */
        for (;;) {
            Term head = c[0];
            d[0] = head;
            heads &= head;
            t = c[1];
            if (__builtin_expect(t == make_list(c + stride), 1)) c += stride;
            else if (is_list(t)) { stride = list_ptr(t) - c; c = list_ptr(t); }
            else break;
            d[1] = make_list(d + 2);
            d += 2;
        }
        d[1] = t;
        *top = d + 2;
        if (is_immed(heads) && is_immed(t) && k->n < CLEAN_SPANS) {
            unsigned i = (k->first + k->n++) % CLEAN_SPANS;
            k->from[i] = dst;
            k->to[i] = d + 2;
        }
        return make_list(dst);
    }
    Term *src = boxed_ptr(t);
    Term header = src[0];
    size_t n = header_arity(header) + 1;
    int kind = header_subtag(header);
    if ((kind == BOXED_TUPLE || kind == BOXED_MAP) && n <= SMALL_OBJECT_WORDS) {
        /* a small tuple, the commonest message, or a flat map: copied word
         * by word, and what follows the first element is clean (nothing
         * for the scan to do) if it is all immediate, as in {tag, 1, ok}
         * or a map of numbers ([header][keys tuple][values]); the whole
         * object is clean if its first element is immediate too */
        Term first = n > 1 ? src[1] : NIL, rest = ~(Term)0;
        dst[0] = header;
        if (n > 1) dst[1] = first;
        for (size_t i = 2; i < n; i++) {
            Term e = src[i];
            dst[i] = e;
            rest &= e;
        }
        *top = dst + n;
        Term *from = is_immed(first) ? dst : dst + 2;
        if (is_immed(rest) && from < dst + n && k->n < CLEAN_SPANS) {
            unsigned i = (k->first + k->n++) % CLEAN_SPANS;
            k->from[i] = from;
            k->to[i] = dst + n;
        }
        return make_boxed(dst);
    }
    object_words_copy(dst, src, n);
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
    CleanSpans k;                       /* not zeroed: a string is copied in */
    k.first = k.n = 0;                  /* less time than zeroing this takes */
    Term *top = hp;
    Term root = copy_one(t, &top, bins, &k);
    if (k.n == 1 && k.from[0] == hp && k.to[0] == top) return root;   /* clean, alone */
    /* Every object in [hp, top) was copied whole; walk them in order. Cons
     * cells have no header: a word with tag 00 can only be a header here.
     * A pointer into [hp, top) is a spine's link, already in place. The
     * walk stops at the next clean spine (or the end) and jumps over it;
     * where that is changes only when something is copied, so the words
     * themselves pay no test for it. */
    Term *scan = hp;
    for (;;) {
        Term *stop = k.n ? k.from[k.first] : top;
        while (scan < stop) {
            Term w = *scan;
            if (primary_tag(w) == TAG_HEADER) {
                scan += 1 + raw_words(w);
                continue;
            }
            if (!is_immed(w)) {
                Term *at = (Term *)(w & ~(Term)3);
                if (at < hp || at >= top) {
                    *scan = copy_one(w, &top, bins, &k);
                    stop = k.n ? k.from[k.first] : top;
                }
            }
            scan++;
        }
        if (k.n && scan == k.from[k.first]) {       /* a clean spine */
            scan = k.to[k.first];
            k.first = (k.first + 1) % CLEAN_SPANS;
            k.n--;
            continue;
        }
        if (scan >= top) break;
    }
    return root;
}
