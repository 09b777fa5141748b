/* bif_dict.c — the process dictionary: p->dict is a list of {Key, Value}
 * tuples, newest first. Terms are immutable (and an old-generation cell may
 * never point to a younger one), so an update copies the cells in front of
 * the entry it replaces and shares the rest. Keys match with =:=.
 * The order of get/0 and get_keys/0 is not Erlang's (Erlang's is a hash
 * order, documented as undefined). */
#include "bif.h"
#include "atom.h"
#include "compare.h"

/* Position (0-based) of Key's entry, or -1; *entry gets the tuple. */
static SWord dict_find(Term dict, Term key, Term *entry) {
    SWord i = 0;
    for (Term l = dict; is_list(l); l = list_tail(l), i++) {
        Term e = list_head(l);
        if (term_eq_exact(tuple_elems(e)[0], key)) { *entry = e; return i; }
    }
    return -1;
}

/* dict without its entry at position pos (which exists), ending in `rest`
 * being everything after it; newhead (if not NIL-cell) goes in front. */
static Term dict_without(Process *p, Term dict, SWord pos) {
    Term after = dict;
    for (SWord i = 0; i <= pos; i++) after = list_tail(after);
    if (pos == 0) return after;
    Term *hp = heap_alloc(p, 2 * (size_t)pos);
    Term res = make_list(hp);
    Term l = dict;
    for (SWord i = 0; i < pos; i++, hp += 2) {
        hp[0] = list_head(l);
        hp[1] = i + 1 < pos ? make_list(hp + 2) : after;
        l = list_tail(l);
    }
    return res;
}

Term bif_put_2(Process *p, Term *args) {
    Term key = args[0], val = args[1], entry = NIL, old = AM_undefined;
    Term dict = p->dict;
    SWord pos = dict_find(dict, key, &entry);
    if (pos >= 0) {
        old = tuple_elems(entry)[1];
        dict = dict_without(p, dict, pos);
        p->reds -= pos / 16;
    }
    Term *hp = heap_alloc(p, 5);
    hp[0] = make_tuple_header(2);
    hp[1] = key;
    hp[2] = val;
    hp[3] = make_boxed(hp);
    hp[4] = dict;
    p->dict = make_list(hp + 3);
    return old;
}

Term bif_get_1(Process *p, Term *args) {
    Term entry;
    if (dict_find(p->dict, args[0], &entry) < 0) return AM_undefined;
    return tuple_elems(entry)[1];
}

Term bif_get_0(Process *p, Term *args) {
    (void)args;
    return p->dict;
}

Term bif_erase_1(Process *p, Term *args) {
    Term entry;
    SWord pos = dict_find(p->dict, args[0], &entry);
    if (pos < 0) return AM_undefined;
    p->dict = dict_without(p, p->dict, pos);
    return tuple_elems(entry)[1];
}

Term bif_erase_0(Process *p, Term *args) {
    (void)args;
    Term d = p->dict;
    p->dict = NIL;
    return d;
}

Term bif_get_keys_0(Process *p, Term *args) {
    (void)args;
    size_t n = 0;
    for (Term l = p->dict; is_list(l); l = list_tail(l)) n++;
    if (n == 0) return NIL;
    Term *hp = heap_alloc(p, 2 * n);
    Term res = make_list(hp);
    size_t i = 0;
    for (Term l = p->dict; is_list(l); l = list_tail(l), i++, hp += 2) {
        hp[0] = tuple_elems(list_head(l))[0];
        hp[1] = i + 1 < n ? make_list(hp + 2) : NIL;
    }
    return res;
}

/* get_keys(Value): the keys whose value is exactly Value */
Term bif_get_keys_1(Process *p, Term *args) {
    Term res = NIL;
    for (Term l = p->dict; is_list(l); l = list_tail(l)) {
        Term *kv = tuple_elems(list_head(l));
        if (!term_eq_exact(kv[1], args[0])) continue;
        Term *hp = heap_alloc(p, 2);
        hp[0] = kv[0]; hp[1] = res;
        res = make_list(hp);
    }
    return res;
}
