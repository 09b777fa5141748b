/* bif_tuples_lists.c — tuples, lists and atom/list conversions: element/2, setelement/3, length/1,
 * ++, --, atom_to_list/1, list_to_atom/1, tuple_to_list/1 and the rest.
 * Errors as Erlang's: badarg for a wrong type or a bad index, system_limit
 * for an atom longer than 255 characters. All walks over lists are loops.
 * (integer_to_list & co. live in num_text.c.) */
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "fatal.h"
#include "atom.h"
#include "compare.h"
#include "binary.h"

#define MAX_TUPLE_SIZE ((UWord)16777215)      /* Erlang's limit */

/* Length of a proper list, or -1 if improper. */
static SWord proper_length(Term l) {
    SWord n = 0;
    while (is_list(l)) { n++; l = list_tail(l); }
    return is_nil(l) ? n : -1;
}

static void spend(Process *p, SWord work) { p->reds -= work / 16; }

Term bif_element_2(Process *p, Term *args) {
    Term n = args[0], t = args[1];
    if (!is_small(n) || !is_tuple(t)) BIF_ERROR(p, AM_badarg);
    SWord i = small_val(n);
    if (i < 1 || (UWord)i > tuple_arity(t)) BIF_ERROR(p, AM_badarg);
    return tuple_elems(t)[i - 1];
}

Term bif_setelement_3(Process *p, Term *args) {
    Term n = args[0], t = args[1];
    if (!is_small(n) || !is_tuple(t)) BIF_ERROR(p, AM_badarg);
    SWord i = small_val(n);
    UWord ar = tuple_arity(t);
    if (i < 1 || (UWord)i > ar) BIF_ERROR(p, AM_badarg);
    Term *hp = heap_alloc(p, ar + 1);
    memcpy(hp, boxed_ptr(t), (ar + 1) * sizeof(Term));
    hp[i] = args[2];
    spend(p, (SWord)ar);
    return make_boxed(hp);
}

Term bif_tuple_size_1(Process *p, Term *args) {
    if (!is_tuple(args[0])) BIF_ERROR(p, AM_badarg);
    return make_small(tuple_arity(args[0]));
}

/* size/1: tuples, and bitstrings (their whole bytes, as OTP) */
Term bif_size_1(Process *p, Term *args) {
    if (is_bitstring(args[0])) return make_small((SWord)(bin_bit_size(args[0]) / 8));
    if (!is_tuple(args[0])) BIF_ERROR(p, AM_badarg);
    return make_small(tuple_arity(args[0]));
}

Term bif_length_1(Process *p, Term *args) {
    SWord n = proper_length(args[0]);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    spend(p, n);
    return make_small(n);
}

Term bif_hd_1(Process *p, Term *args) {
    if (!is_list(args[0])) BIF_ERROR(p, AM_badarg);
    return list_head(args[0]);
}

Term bif_tl_1(Process *p, Term *args) {
    if (!is_list(args[0])) BIF_ERROR(p, AM_badarg);
    return list_tail(args[0]);
}

/* A copy of the n first cells of list l ending in tail; returns the head. */
static Term copy_cells(Process *p, Term l, SWord n, Term tail) {
    if (n == 0) return tail;
    Term *hp;
    BIF_ALLOC(p, hp, 2 * (size_t)n);
    Term res = make_list(hp);
    for (SWord i = 0; i < n; i++, hp += 2) {
        hp[0] = list_head(l);
        hp[1] = i + 1 < n ? make_list(hp + 2) : tail;
        l = list_tail(l);
    }
    return res;
}

/* '++'/2: copies the left list; the right one is shared, whatever it is. */
Term bif_append_2(Process *p, Term *args) {
    Term l = args[0];
    if (is_nil(l)) return args[1];
    SWord n = proper_length(l);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    spend(p, n);
    return copy_cells(p, l, n, args[1]);
}

static int cmp_exact(const void *a, const void *b) {
    return term_compare_exact(*(const Term *)a, *(const Term *)b);
}

/* '--'/2: for each element of the right list, the first equal (=:=) one
 * of the left list is removed. Small right lists: a scan per element;
 * otherwise the right list is sorted into a multiset and each left element
 * is looked up in it (O((n + m) log m)); a value occurring k times on the
 * right removes its first k occurrences on the left either way. */
Term bif_subtract_2(Process *p, Term *args) {
    Term a = args[0], b = args[1];
    SWord n = proper_length(a), m = proper_length(b);
    if (n < 0 || m < 0) BIF_ERROR(p, AM_badarg);
    if (n == 0 || m == 0) return a;
    Term *left = malloc((size_t)n * sizeof(Term));
    unsigned char *gone = calloc((size_t)n, 1);
    if (!left || !gone) { free(left); free(gone); return bif_out_of_memory(p); }
    SWord i = 0;
    for (Term l = a; is_list(l); l = list_tail(l)) left[i++] = list_head(l);
    SWord removed = 0;
    if (m <= 16) {
        for (Term r = b; is_list(r); r = list_tail(r)) {
            Term x = list_head(r);
            for (i = 0; i < n; i++)
                if (!gone[i] && term_eq_exact(left[i], x)) { gone[i] = 1; removed++; break; }
        }
        spend(p, n * m);
    } else {
        Term *right = malloc((size_t)m * sizeof(Term));
        SWord *count = malloc((size_t)m * sizeof(SWord));
        if (!right || !count) {
            free(right); free(count); free(left); free(gone);
            return bif_out_of_memory(p);
        }
        SWord k = 0;
        for (Term r = b; is_list(r); r = list_tail(r)) right[k++] = list_head(r);
        qsort(right, (size_t)m, sizeof(Term), cmp_exact);
        SWord u = 0;                                   /* unique values + counts */
        for (k = 0; k < m; k++) {
            if (u > 0 && term_compare_exact(right[u - 1], right[k]) == 0) count[u - 1]++;
            else { right[u] = right[k]; count[u] = 1; u++; }
        }
        for (i = 0; i < n; i++) {
            SWord lo = 0, hi = u;
            while (lo < hi) {
                SWord mid = lo + (hi - lo) / 2;
                int c = term_compare_exact(right[mid], left[i]);
                if (c == 0) { lo = mid; hi = -1; break; }
                if (c < 0) lo = mid + 1; else hi = mid;
            }
            if (hi == -1 && count[lo] > 0) { count[lo]--; gone[i] = 1; removed++; }
        }
        spend(p, n + m);
        free(right);
        free(count);
    }
    Term res = NIL;
    SWord keep = n - removed;
    if (keep > 0) {
        Term *hp = heap_alloc_try(p, 2 * (size_t)keep);
        if (!hp) { free(left); free(gone); return bif_out_of_memory(p); }
        res = make_list(hp);
        SWord j = 0;
        for (i = 0; i < n; i++) {
            if (gone[i]) continue;
            hp[0] = left[i];
            j++;
            hp[1] = j < keep ? make_list(hp + 2) : NIL;
            hp += 2;
        }
    }
    free(left);
    free(gone);
    return res;
}

/* ---- atoms ---- */

Term bif_atom_to_list_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n;
    const char *s = atom_name(args[0], &n);
    if (n == 0) return NIL;
    Term *hp = heap_alloc(p, 2 * n);           /* at most one cell a byte */
    Term res = make_list(hp);
    for (size_t i = 0; i < n; hp += 2) {
        hp[0] = make_small(atom_text_char((const unsigned char *)s, n, &i));
        hp[1] = i < n ? make_list(hp + 2) : NIL;
    }
    return res;
}

/* The atom text of a character list: codes up to 255 are one byte
 * (Latin-1), larger ones UTF-8. 0 ok, -1 badarg, -2 system_limit. */
static int atom_text(Term l, char *buf, size_t *len) {
    size_t chars = 0, k = 0;
    for (; is_list(l); l = list_tail(l)) {
        Term c = list_head(l);
        if (!is_small(c) || small_val(c) < 0 || small_val(c) > 0x10FFFF) return -1;
        UWord v = (UWord)small_val(c);
        if (v >= 0xD800 && v <= 0xDFFF) return -1;
        if (++chars > MAX_ATOM_LENGTH) {
            /* keep checking the rest for badarg, as Erlang does first */
            for (l = list_tail(l); is_list(l); l = list_tail(l)) {
                Term d = list_head(l);
                if (!is_small(d) || small_val(d) < 0 || small_val(d) > 0x10FFFF) return -1;
            }
            return is_nil(l) ? -2 : -1;
        }
        if (v < 0x80) buf[k++] = (char)v;           /* atom text is UTF-8 (atom.h) */
        else if (v < 0x800) { buf[k++] = (char)(0xC0 | (v >> 6)); buf[k++] = (char)(0x80 | (v & 0x3F)); }
        else if (v < 0x10000) {
            buf[k++] = (char)(0xE0 | (v >> 12)); buf[k++] = (char)(0x80 | ((v >> 6) & 0x3F));
            buf[k++] = (char)(0x80 | (v & 0x3F));
        } else {
            buf[k++] = (char)(0xF0 | (v >> 18)); buf[k++] = (char)(0x80 | ((v >> 12) & 0x3F));
            buf[k++] = (char)(0x80 | ((v >> 6) & 0x3F)); buf[k++] = (char)(0x80 | (v & 0x3F));
        }
    }
    if (!is_nil(l)) return -1;
    *len = k;
    return 0;
}

Term bif_list_to_atom_1(Process *p, Term *args) {
    char buf[4 * MAX_ATOM_LENGTH + 4];
    size_t n;
    int rc = atom_text(args[0], buf, &n);
    if (rc == -1) BIF_ERROR(p, AM_badarg);
    if (rc == -2) BIF_ERROR(p, ATOM_TERM(system_limit));
    Term a = atom_intern(buf, n);
    if (a == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return a;
}

Term bif_list_to_existing_atom_1(Process *p, Term *args) {
    char buf[4 * MAX_ATOM_LENGTH + 4];
    size_t n;
    if (atom_text(args[0], buf, &n) != 0) BIF_ERROR(p, AM_badarg);
    Term a = atom_lookup(buf, n);
    if (a == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return a;
}

/* ---- tuples <-> lists ---- */

Term bif_tuple_to_list_1(Process *p, Term *args) {
    Term t = args[0];
    if (!is_tuple(t)) BIF_ERROR(p, AM_badarg);
    UWord n = tuple_arity(t);
    if (n == 0) return NIL;
    Term *e = tuple_elems(t);
    Term *hp;
    BIF_ALLOC(p, hp, 2 * n);
    for (UWord i = 0; i < n; i++) {
        hp[2 * i] = e[i];
        hp[2 * i + 1] = i + 1 < n ? make_list(hp + 2 * i + 2) : NIL;
    }
    spend(p, (SWord)n);
    return make_list(hp);
}

Term bif_list_to_tuple_1(Process *p, Term *args) {
    SWord n = proper_length(args[0]);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    if ((UWord)n > MAX_TUPLE_SIZE) BIF_ERROR(p, ATOM_TERM(system_limit));
    Term *hp;
    BIF_ALLOC(p, hp, (size_t)n + 1);
    hp[0] = make_tuple_header(n);
    SWord i = 1;
    for (Term l = args[0]; is_list(l); l = list_tail(l)) hp[i++] = list_head(l);
    spend(p, n);
    return make_boxed(hp);
}

Term bif_make_tuple_2(Process *p, Term *args) {
    Term n = args[0];
    if (!is_small(n) || small_val(n) < 0 || (UWord)small_val(n) > MAX_TUPLE_SIZE) BIF_ERROR(p, AM_badarg);
    UWord k = (UWord)small_val(n);
    Term *hp;
    BIF_ALLOC(p, hp, k + 1);
    hp[0] = make_tuple_header(k);
    for (UWord i = 1; i <= k; i++) hp[i] = args[1];
    spend(p, (SWord)k);
    return make_boxed(hp);
}

Term bif_append_element_2(Process *p, Term *args) {
    Term t = args[0];
    if (!is_tuple(t)) BIF_ERROR(p, AM_badarg);
    UWord n = tuple_arity(t);
    if (n + 1 > MAX_TUPLE_SIZE) BIF_ERROR(p, AM_badarg);
    Term *hp;
    BIF_ALLOC(p, hp, n + 2);
    hp[0] = make_tuple_header(n + 1);
    memcpy(hp + 1, tuple_elems(t), n * sizeof(Term));
    hp[n + 1] = args[1];
    spend(p, (SWord)n);
    return make_boxed(hp);
}

/* insert_element(Index, Tuple, Term): Index in 1..size+1 */
Term bif_insert_element_3(Process *p, Term *args) {
    Term ix = args[0], t = args[1];
    if (!is_tuple(t) || !is_small(ix)) BIF_ERROR(p, AM_badarg);
    UWord n = tuple_arity(t);
    SWord i = small_val(ix);
    if (i < 1 || (UWord)i > n + 1 || n + 1 > MAX_TUPLE_SIZE) BIF_ERROR(p, AM_badarg);
    Term *hp;
    BIF_ALLOC(p, hp, n + 2);
    const Term *e = tuple_elems(t);
    hp[0] = make_tuple_header(n + 1);
    memcpy(hp + 1, e, (size_t)(i - 1) * sizeof(Term));
    hp[i] = args[2];
    memcpy(hp + i + 1, e + i - 1, (n - (UWord)(i - 1)) * sizeof(Term));
    spend(p, (SWord)n);
    return make_boxed(hp);
}

/* delete_element(Index, Tuple): Index in 1..size */
Term bif_delete_element_2(Process *p, Term *args) {
    Term ix = args[0], t = args[1];
    if (!is_tuple(t) || !is_small(ix)) BIF_ERROR(p, AM_badarg);
    UWord n = tuple_arity(t);
    SWord i = small_val(ix);
    if (i < 1 || (UWord)i > n) BIF_ERROR(p, AM_badarg);
    Term *hp;
    BIF_ALLOC(p, hp, n);
    const Term *e = tuple_elems(t);
    hp[0] = make_tuple_header(n - 1);
    memcpy(hp + 1, e, (size_t)(i - 1) * sizeof(Term));
    memcpy(hp + i, e + i, (n - (UWord)i) * sizeof(Term));
    spend(p, (SWord)n);
    return make_boxed(hp);
}

/* make_tuple(Arity, Default, [{Position, Term}]): later pairs win */
Term bif_make_tuple_3(Process *p, Term *args) {
    Term n = args[0];
    if (!is_small(n) || small_val(n) < 0 || (UWord)small_val(n) > MAX_TUPLE_SIZE) BIF_ERROR(p, AM_badarg);
    UWord k = (UWord)small_val(n);
    Term l = args[2];
    for (; is_list(l); l = list_tail(l)) {       /* check before allocating */
        Term pr = list_head(l);
        if (!is_tuple(pr) || tuple_arity(pr) != 2) BIF_ERROR(p, AM_badarg);
        Term pos = tuple_elems(pr)[0];
        if (!is_small(pos) || small_val(pos) < 1 || (UWord)small_val(pos) > k) BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    Term *hp;
    BIF_ALLOC(p, hp, k + 1);
    hp[0] = make_tuple_header(k);
    for (UWord i = 1; i <= k; i++) hp[i] = args[1];
    for (l = args[2]; is_list(l); l = list_tail(l)) {
        const Term *pr = tuple_elems(list_head(l));
        hp[small_val(pr[0])] = pr[1];
    }
    spend(p, (SWord)k);
    return make_boxed(hp);
}
