/* compare.c — Erlang's term order (see compare.h). */
#include "compare.h"
#include "dist/dist.h"
#include "fatal.h"
#include "arith.h"
#include "atom.h"
#include "bignum.h"
#include "map.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    C_NUMBER, C_ATOM, C_REF, C_FUN, C_PORT, C_PID, C_TUPLE, C_MAP, C_NIL, C_LIST, C_BINARY
};

static int class_of(Term t)
{
    switch (primary_tag(t)) {
    case TAG_LIST:
        return C_LIST;
    case TAG_BOXED:
        switch (boxed_kind(t)) {
        case BOXED_TUPLE: return C_TUPLE;
        case BOXED_POS_BIG: case BOXED_NEG_BIG: case BOXED_FLOAT: return C_NUMBER;
        case BOXED_FUN: case BOXED_EXPORT: return C_FUN;
        case BOXED_REF: return C_REF;
        case BOXED_MAP: return C_MAP;
        case BOXED_EXTERNAL:
            return external_kind(t) == EXT_PID ? C_PID : external_kind(t) == EXT_PORT ? C_PORT : C_REF;
        default: return C_BINARY;
        }
    case TAG_IMMED:
        if (is_small(t)) return C_NUMBER;
        if (is_atom(t)) return C_ATOM;
        if (is_pid(t)) return C_PID;
        if (is_port(t)) return C_PORT;
        return C_NIL;
    default:
        return C_NIL;          /* headers never reach here */
    }
}

static inline int cmp_uword(UWord x, UWord y) { return x < y ? -1 : x > y; }
static inline int cmp_sword(SWord x, SWord y) { return x < y ? -1 : x > y; }

static int atom_compare(Term a, Term b)
{
    size_t la, lb;
    const char *sa = atom_name(a, &la), *sb = atom_name(b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c)
        return c < 0 ? -1 : 1;
    return cmp_uword(la, lb);
}

static int int_compare(Term a, Term b)
{
    if (is_small(a) && is_small(b))
        return cmp_sword(small_val(a), small_val(b));
    IView x, y;
    iview(a, &x);
    iview(b, &y);
    int sx = x.n == 0 ? 0 : (x.neg ? -1 : 1), sy = y.n == 0 ? 0 : (y.neg ? -1 : 1);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    int c = bn_cmp(x.d, x.n, y.d, y.n);
    return x.neg ? -c : c;
}

/* integer a vs double d, exactly */
static int int_float_compare(Term a, double d)
{
    if (is_small(a)) {
        SWord x = small_val(a);
        if (x >= -((SWord)1 << 53) && x <= ((SWord)1 << 53)) {
            double dx = (double)x;
            return dx < d ? -1 : dx > d;
        }
    }
    IView v;
    iview(a, &v);
    return bn_cmp_double(v.neg, v.d, v.n, d);
}

/* exact: integers before floats; else by value */
static int num_compare(Term a, Term b, int exact)
{
    int fa = is_float(a), fb = is_float(b);
    if (!fa && !fb)
        return int_compare(a, b);
    if (fa && fb) {
        double x = float_val(a), y = float_val(b);
        return x < y ? -1 : x > y;
    }
    if (exact)
        return fa ? 1 : -1;
    if (fa)
        return -int_float_compare(b, float_val(a));
    return int_float_compare(a, float_val(b));
}

int number_compare(Term a, Term b)
{
    return num_compare(a, b, 0);
}

/* A pair still to compare, and how: map keys compare exactly (1 and 1.0
 * are two keys) even inside an == comparison, so the mode travels with
 * each pair. */
typedef struct { Term a, b; int exact; } Pair;

typedef struct {
    Pair *st;
    size_t sp, cap;
    Pair buf[32];
} Stack;

static void push(Stack *s, Term a, Term b, int exact)
{
    if (s->sp == s->cap) {
        size_t ncap = s->cap * 2;
        Pair *n = s->st == s->buf ? malloc(ncap * sizeof *n) : realloc(s->st, ncap * sizeof *n);
        if (!n) FATAL("out of memory for the work stack of a term comparison (%zu pairs)", ncap);
        if (s->st == s->buf)
            memcpy(n, s->buf, s->sp * sizeof *n);
        s->st = n;
        s->cap = ncap;
    }
    s->st[s->sp].a = a;
    s->st[s->sp].b = b;
    s->st[s->sp].exact = exact;
    s->sp++;
}

static int fun_compare_head(Term a, Term b, Stack *s, int exact)
{
    int ka = boxed_kind(a) == BOXED_EXPORT, kb = boxed_kind(b) == BOXED_EXPORT;
    if (ka != kb)
        return ka ? 1 : -1;            /* local funs sort before external ones */
    if (ka) {
        const Export *ea = (const Export *)boxed_ptr(a)[1], *eb = (const Export *)boxed_ptr(b)[1];
        if (ea == eb)
            return 0;
        int c = atom_compare(ea->module, eb->module);
        if (!c) c = atom_compare(ea->name, eb->name);
        if (!c) c = cmp_sword(ea->arity, eb->arity);
        return c;
    }
    const FunEntry *fa = (const FunEntry *)boxed_ptr(a)[1], *fb = (const FunEntry *)boxed_ptr(b)[1];
    if (fa != fb) {
        int c = atom_compare(fa->module, fb->module);
        if (!c) c = cmp_sword(fa->index, fb->index);
        if (!c) c = cmp_uword(fa->uniq, fb->uniq);
        if (c)
            return c;
    }
    UWord na = header_arity(boxed_header(a)), nb = header_arity(boxed_header(b));
    if (na != nb)
        return cmp_uword(na, nb);
    for (UWord i = na; i > 1; i--)
        push(s, boxed_ptr(a)[i], boxed_ptr(b)[i], exact);
    return 0;
}

static int ref_compare(Term a, Term b)
{
    UWord na = header_arity(boxed_header(a)), nb = header_arity(boxed_header(b));
    if (na != nb)
        return cmp_uword(na, nb);
    for (UWord i = na; i >= 1; i--)
        if (boxed_ptr(a)[i] != boxed_ptr(b)[i])
            return cmp_uword(boxed_ptr(a)[i], boxed_ptr(b)[i]);
    return 0;
}

/* Pids, ports or refs of which at least one is another node's: by node
 * name, then creation, then the ids from the most significant (Erlang's
 * order; a local one counts as this node's, vm/dist/dist.h). */
static int external_compare(Term a, Term b)
{
    DistId x, y;
    dist_id_of(a, &x);
    dist_id_of(b, &y);
    if (x.node != y.node) return atom_compare(x.node, y.node);
    if (x.creation != y.creation) return cmp_uword(x.creation, y.creation);
    if (x.n != y.n) return cmp_uword(x.n, y.n);
    for (size_t i = x.n; i > 0; i--)
        if (x.ids[i - 1] != y.ids[i - 1]) return cmp_uword(x.ids[i - 1], y.ids[i - 1]);
    return 0;
}

static int compare(Term a, Term b, int exact)
{
    Stack s;
    s.st = s.buf;
    s.sp = 0;
    s.cap = sizeof s.buf / sizeof *s.buf;
    int res = 0;
    for (;;) {
        if (a != b) {
            int ca = class_of(a), cb = class_of(b);
            if (ca != cb) {
                res = ca < cb ? -1 : 1;
                break;
            }
            switch (ca) {
            case C_NUMBER:
                res = num_compare(a, b, exact);
                break;
            case C_ATOM:
                res = atom_compare(a, b);
                break;
            case C_PID:
                res = is_immed(a) && is_immed(b) ? cmp_uword(pid_val(a), pid_val(b)) : external_compare(a, b);
                break;
            case C_PORT:
                res = is_immed(a) && is_immed(b) ? cmp_uword(port_val(a), port_val(b)) : external_compare(a, b);
                break;
            case C_REF:
                res = is_ref(a) && is_ref(b) ? ref_compare(a, b) : external_compare(a, b);
                break;
            case C_FUN:
                res = fun_compare_head(a, b, &s, exact);
                break;
            case C_TUPLE: {
                UWord na = tuple_arity(a), nb = tuple_arity(b);
                if (na != nb) {
                    res = cmp_uword(na, nb);
                    break;
                }
                if (na == 0)
                    break;
                const Term *ea = tuple_elems(a), *eb = tuple_elems(b);
                for (UWord i = na; i > 1; i--)
                    push(&s, ea[i - 1], eb[i - 1], exact);
                a = ea[0];
                b = eb[0];
                continue;
            }
            case C_LIST:
                push(&s, list_tail(a), list_tail(b), exact);
                a = list_head(a);
                b = list_head(b);
                continue;
            case C_MAP: {
                /* by size, then the keys exactly, then the values in key
                 * order in the current mode; two flat maps (map.h) by
                 * their keys tuples, else key by key from a view (the
                 * pairs are on the stack before the views go) */
                UWord na = map_size(a), nb = map_size(b);
                if (na != nb) {
                    res = cmp_uword(na, nb);
                    break;
                }
                if (na == 0)
                    break;
                if (map_is_flat(a) && map_is_flat(b)) {
                    const Term *va = map_flat_vals(a), *vb = map_flat_vals(b);
                    for (UWord i = na; i > 0; i--)
                        push(&s, va[i - 1], vb[i - 1], exact);
                    a = map_flat_keys_tuple(a);
                    b = map_flat_keys_tuple(b);
                    exact = 1;
                    continue;
                }
                MapView xa, xb;
                map_view(a, &xa);
                map_view(b, &xb);
                for (UWord i = na; i > 0; i--)
                    push(&s, xa.vals[i - 1], xb.vals[i - 1], exact);
                for (UWord i = na; i > 1; i--)
                    push(&s, xa.keys[i - 1], xb.keys[i - 1], 1);
                a = xa.keys[0];
                b = xb.keys[0];
                map_view_free(&xa);
                map_view_free(&xb);
                exact = 1;
                continue;
            }
            case C_BINARY:
                if (term_compare_binaries)
                    res = term_compare_binaries(a, b);
                else
                    res = cmp_uword(a, b);
                break;
            default:
                break;
            }
            if (res)
                break;
        }
        if (s.sp == 0)
            break;
        s.sp--;
        a = s.st[s.sp].a;
        b = s.st[s.sp].b;
        exact = s.st[s.sp].exact;
    }
    if (s.st != s.buf)
        free(s.st);
    return res;
}

int term_compare(Term a, Term b)
{
    if (a == b)
        return 0;
    if (is_small(a) && is_small(b))
        return cmp_sword(small_val(a), small_val(b));
    return compare(a, b, 0);
}

int term_compare_exact(Term a, Term b)
{
    if (a == b)
        return 0;
    if (is_small(a) && is_small(b))
        return cmp_sword(small_val(a), small_val(b));
    return compare(a, b, 1);
}

int term_eq(Term a, Term b)
{
    if (a == b)
        return 1;
    if (is_immed(a) && is_immed(b))
        return 0;                 /* distinct immediates are never equal */
    return compare(a, b, 0) == 0;
}

int term_eq_exact(Term a, Term b)
{
    if (a == b)
        return 1;
    if (is_immed(a) || is_immed(b))
        return 0;     /* equal immediates are identical words; boxed never equals an immediate exactly */
    if (primary_tag(a) != primary_tag(b))
        return 0;
    /* Two tuples (a constant pattern such as {nil, nil} is matched this
     * way): arity, then a look at each pair of elements, which answers
     * without the comparison's work stack when a differing pair has an
     * immediate in it (an immediate is exactly equal only to itself) */
    if (is_tuple(a) && is_tuple(b)) {
        UWord n = tuple_arity(a);
        if (n != tuple_arity(b))
            return 0;
        const Term *ea = tuple_elems(a), *eb = tuple_elems(b);
        int deep = 0;
        for (UWord i = 0; i < n; i++) {
            if (ea[i] == eb[i])
                continue;
            if (is_immed(ea[i]) || is_immed(eb[i]))
                return 0;
            deep = 1;
        }
        if (!deep)
            return 1;
    }
    return compare(a, b, 1) == 0;
}
