/* term_build.h — building small terms on a process heap from C: the few
 * shapes that BIFs, the emulator and the shell make over and over. They
 * allocate with heap_alloc, so they never collect. */
#ifndef MINI_TERM_BUILD_H
#define MINI_TERM_BUILD_H

#include "heap.h"

static inline Term tuple2(Process *p, Term a, Term b) {
    Term *hp = heap_alloc(p, 3);
    hp[0] = make_tuple_header(2); hp[1] = a; hp[2] = b;
    return make_boxed(hp);
}

static inline Term tuple3(Process *p, Term a, Term b, Term c) {
    Term *hp = heap_alloc(p, 4);
    hp[0] = make_tuple_header(3); hp[1] = a; hp[2] = b; hp[3] = c;
    return make_boxed(hp);
}

static inline Term tuple4(Process *p, Term a, Term b, Term c, Term d) {
    Term *hp = heap_alloc(p, 5);
    hp[0] = make_tuple_header(4); hp[1] = a; hp[2] = b; hp[3] = c; hp[4] = d;
    return make_boxed(hp);
}

static inline Term cons(Process *p, Term h, Term t) {
    Term *hp = heap_alloc(p, 2);
    hp[0] = h; hp[1] = t;
    return make_list(hp);
}

#endif
