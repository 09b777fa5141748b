/* fuzz_etf.c — libFuzzer target: binary_to_term (vm/etf.c). The first byte
 * picks binary_to_term/1 or /2 with [safe] (and whether to take [used]); the
 * rest is the external term format. Any input must give a term or badarg,
 * never a crash. A term it gives must survive the round trip: encoded again
 * by term_to_binary and decoded, it compares exactly equal (=:=) to the
 * first; and both survive a full collection of the process's heap and still
 * compare equal (the collector walks whatever the decoder built). Seeds:
 * tests/fuzz/seeds/etf, made by Erlang/OTP's term_to_binary
 * (tests/fuzz/etf_seeds.erl). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "bif.h"
#include "binary.h"
#include "compare.h"
#include "gc.h"
#include "proc.h"

static Process *p;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fuzz_init();
    p = process_new_memory(0);
    return 0;
}

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_etf: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int mode = data[0] % 3;
    Term args[2];
    args[0] = bin_from_bytes(p, data + 1, size - 1);
    Term t;
    if (mode == 0) {
        t = bif_binary_to_term_1(p, args);
    } else {
        Term *hp = heap_alloc(p, 4);
        hp[0] = ATOM_TERM(safe); hp[1] = NIL;
        args[1] = make_list(hp);
        if (mode == 2) { hp[2] = ATOM_TERM(used); hp[3] = args[1]; args[1] = make_list(hp + 2); }
        t = bif_binary_to_term_2(p, args);
        if (t != THE_NON_VALUE && mode == 2) {
            if (!is_tuple(t) || tuple_arity(t) != 2 || !is_small(tuple_elems(t)[1]) ||
                small_val(tuple_elems(t)[1]) < 1 || (size_t)small_val(tuple_elems(t)[1]) > size - 1)
                fail("[used] gave a bad count");
            t = tuple_elems(t)[0];
        }
    }
    if (t == THE_NON_VALUE) {
        if (p->exc_reason != AM_badarg) fail("an error other than badarg");
    } else {
        Term enc = bif_term_to_binary_1(p, &t);
        if (enc == THE_NON_VALUE) fail("term_to_binary refused a decoded term");
        Term t2 = bif_binary_to_term_1(p, &enc);
        if (t2 == THE_NON_VALUE) fail("a term did not decode after encoding");
        if (!term_eq_exact(t, t2)) fail("the round trip changed the term");
        p->x[0] = t;
        p->x[1] = t2;
        gc_full(p, 2);
        if (!term_eq_exact(p->x[0], p->x[1])) fail("a collection changed the term");
    }
    gc_full(p, 0);
    return 0;
}
