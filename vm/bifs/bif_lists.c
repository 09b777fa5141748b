/* bif_lists.c — the functions of module `lists` that Erlang/OTP implements
 * in C as well: reverse/2, member/2, keyfind/3, keymember/3 and keysearch/3.
 * They are the inner loops of much list code, and in C they cost a few
 * nanoseconds per element instead of an interpreted call each. The rest of
 * `lists` is Mini code (stdlib/lists.mini). As in OTP, member/2 compares
 * with =:= and the key functions with ==; a list that is not proper raises
 * badarg. A BIF runs to the end without yielding: its reductions are charged
 * afterwards, by the length it walked. */
#include "bif.h"
#include "atom.h"
#include "compare.h"
#include "term_build.h"

/* Elements walked per reduction charged. */
#define ELEMS_PER_RED 16

Term bif_lists_reverse_2(Process *p, Term *args) {
    SWord n = 0;
    Term l = args[0];
    for (; is_list(l); l = list_tail(l)) n++;
    if (l != NIL) BIF_ERROR(p, AM_badarg);
    Term r = args[1];
    if (n == 0) return r;
    Term *hp;
    BIF_ALLOC(p, hp, 2 * (size_t)n);
    for (l = args[0]; is_list(l); l = list_tail(l)) {
        hp[0] = list_head(l);
        hp[1] = r;
        r = make_list(hp);
        hp += 2;
    }
    p->reds -= n / ELEMS_PER_RED;
    return r;
}

Term bif_lists_member_2(Process *p, Term *args) {
    Term x = args[0];
    SWord n = 0;
    Term l = args[1];
    for (; is_list(l); l = list_tail(l), n++) {
        Term h = list_head(l);
        if (terms_exactly_equal(h, x)) {
            p->reds -= n / ELEMS_PER_RED;
            return AM_true;
        }
    }
    p->reds -= n / ELEMS_PER_RED;
    if (l != NIL) BIF_ERROR(p, AM_badarg);
    return AM_false;
}

/* The first tuple of list whose element pos (1-based) == key; false if
 * none; THE_NON_VALUE for a bad argument. */
static Term key_find(Process *p, Term key, Term pos, Term list) {
    if (!is_small(pos) || small_val(pos) < 1) return THE_NON_VALUE;
    UWord n = (UWord)small_val(pos);
    SWord walked = 0;
    Term l = list;
    for (; is_list(l); l = list_tail(l), walked++) {
        Term t = list_head(l);
        if (!is_tuple(t) || tuple_arity(t) < n) continue;
        Term e = tuple_elems(t)[n - 1];
        if (e == key || term_compare(e, key) == 0) {
            p->reds -= walked / ELEMS_PER_RED;
            return t;
        }
    }
    p->reds -= walked / ELEMS_PER_RED;
    return l == NIL ? AM_false : THE_NON_VALUE;
}

Term bif_lists_keyfind_3(Process *p, Term *args) {
    Term t = key_find(p, args[0], args[1], args[2]);
    if (t == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return t;
}

Term bif_lists_keymember_3(Process *p, Term *args) {
    Term t = key_find(p, args[0], args[1], args[2]);
    if (t == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return t == AM_false ? AM_false : AM_true;
}

Term bif_lists_keysearch_3(Process *p, Term *args) {
    Term t = key_find(p, args[0], args[1], args[2]);
    if (t == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return t == AM_false ? AM_false : tuple2(p, ATOM_TERM(value), t);
}
