/* print.c — term printing: io_lib:write (~w, ~W) and io_lib_pretty:print
 * (~p, ~P), following OTP's algorithms so the text is byte-for-byte the same.
 *
 * ~p works as OTP does: first an intermediate tree is built that records,
 * for every list and tuple, the length of its one-line form (print_length);
 * then the tree is laid out: anything that fits in what is left of the line
 * is written flat, otherwise elements go one per line aligned after the
 * opening bracket, with tagged tuples ({atom, ...}) indented after the tag
 * when that leaves enough room (cind/pp, OTP's names kept as comments).
 */
#include "print.h"
#include "fatal.h"
#include "atom.h"
#include "module.h"
#include "binary.h"
#include "map.h"
#include "num_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ */
/* characters, atoms, strings                                          */
/* ------------------------------------------------------------------ */

void print_char(OutBuf *b, UWord c) {
    if (c < 256) { ob_putc(b, (int)c); return; }
    if (c < 0x800) {
        ob_putc(b, 0xC0 | (int)(c >> 6));
    } else if (c < 0x10000) {
        ob_putc(b, 0xE0 | (int)(c >> 12));
        ob_putc(b, 0x80 | (int)((c >> 6) & 0x3F));
    } else {
        ob_putc(b, 0xF0 | (int)((c >> 18) & 0x07));
        ob_putc(b, 0x80 | (int)((c >> 12) & 0x3F));
        ob_putc(b, 0x80 | (int)((c >> 6) & 0x3F));
    }
    ob_putc(b, 0x80 | (int)(c & 0x3F));
}

/* io_lib string_char/4 in latin1 mode: one character inside quotes q. */
static void put_quoted_char(OutBuf *b, UWord c, int q) {
    if (c == (UWord)q) { ob_putc(b, '\\'); ob_putc(b, q); return; }
    if (c == '\\') { ob_puts(b, "\\\\"); return; }
    if ((c >= ' ' && c <= '~') || (c >= 0xA0 && c <= 0xFF)) { ob_putc(b, (int)c); return; }
    switch (c) {
    case '\n': ob_puts(b, "\\n"); return;
    case '\r': ob_puts(b, "\\r"); return;
    case '\t': ob_puts(b, "\\t"); return;
    case '\v': ob_puts(b, "\\v"); return;
    case '\b': ob_puts(b, "\\b"); return;
    case '\f': ob_puts(b, "\\f"); return;
    case 27: ob_puts(b, "\\e"); return;
    case 127: ob_puts(b, "\\d"); return;
    }
    if (c < 0xA0) {
        ob_putc(b, '\\');
        ob_putc(b, '0' + (int)((c >> 6) & 7));
        ob_putc(b, '0' + (int)((c >> 3) & 7));
        ob_putc(b, '0' + (int)(c & 7));
        return;
    }
    print_char(b, c);
}

static const char *const reserved_words[] = {
    "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr",
    "bxor", "case", "catch", "cond", "div", "end", "fun", "if", "let", "not",
    "of", "or", "orelse", "receive", "rem", "try", "when", "xor", NULL
};

static int is_lower_start(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7);
}
static int is_name_char(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
           (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
           (c >= '0' && c <= '9') || c == '_' || c == '@';
}

int print_atom_needs_quotes(const char *s, size_t n) {
    /* an atom's text is UTF-8 (atom.h); characters beyond Latin-1 are no name chars */
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    if (n == 0) return 1;
    UWord c = atom_text_char(u, n, &i);
    if (c > 0xFF || !is_lower_start((unsigned)c)) return 1;
    while (i < n) {
        c = atom_text_char(u, n, &i);
        if (c > 0xFF || !is_name_char((unsigned)c)) return 1;
    }
    for (int i = 0; reserved_words[i]; i++)
        if (strlen(reserved_words[i]) == n && memcmp(reserved_words[i], s, n) == 0) return 1;
    return 0;
}

void print_atom_text(OutBuf *b, Term atom) {
    size_t n;
    const unsigned char *s = (const unsigned char *)atom_name(atom, &n);
    for (size_t i = 0; i < n;) print_char(b, atom_text_char(s, n, &i));
}

void print_atom(OutBuf *b, Term atom) {
    size_t n;
    const char *s = atom_name(atom, &n);
    if (!print_atom_needs_quotes(s, n)) { print_atom_text(b, atom); return; }
    ob_putc(b, '\'');
    for (size_t i = 0; i < n;) {
        UWord c = atom_text_char((const unsigned char *)s, n, &i);
        if (c < 256) put_quoted_char(b, c, '\'');
        else {                   /* beyond Latin-1, OTP's printable range */
            char hex[24];
            snprintf(hex, sizeof hex, "\\x{%lX}", (unsigned long)c);
            ob_puts(b, hex);
        }
    }
    ob_putc(b, '\'');
}

static int printable_char(Term c) {
    if (!is_small(c)) return 0;
    SWord v = small_val(c);
    if ((v >= ' ' && v <= '~') || (v >= 0xA0 && v <= 0xFF)) return 1;
    switch (v) {
    case '\n': case '\r': case '\t': case '\v': case '\b': case '\f': case 27: return 1;
    }
    return 0;
}

int print_is_printable_list(Term t) {
    while (is_list(t)) {
        if (!printable_char(list_head(t))) return 0;
        t = list_tail(t);
    }
    return is_nil(t);
}

/* A printable list as "...", escaped; returns the number of characters. */
static void put_string(OutBuf *b, Term t) {
    ob_putc(b, '"');
    for (; is_list(t); t = list_tail(t)) put_quoted_char(b, (UWord)small_val(list_head(t)), '"');
    ob_putc(b, '"');
}

/* ------------------------------------------------------------------ */
/* numbers                                                             */
/* ------------------------------------------------------------------ */

static void put_uword(OutBuf *b, UWord v, int base, int lowercase) {
    char tmp[72];
    int i = sizeof tmp;
    const char *dig = lowercase ? "0123456789abcdefghijklmnopqrstuvwxyz"
                                : "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    do { tmp[--i] = dig[v % (UWord)base]; v /= (UWord)base; } while (v);
    ob_write(b, tmp + i, sizeof tmp - (size_t)i);
}

/* Big integer magnitude in any base: repeated division of a copy of the
 * digits by the largest power of the base that fits in 64 bits. */
static void put_big(OutBuf *b, Term t, int base, int lowercase) {
    size_t n = big_size(t);
    uint64_t *d = malloc(n * sizeof *d);
    if (!d) FATAL("out of memory printing a %zu-digit big integer", n);
    memcpy(d, big_digits(t), n * sizeof *d);
    uint64_t chunk = (uint64_t)base;
    int per = 1;
    while (chunk <= UINT64_MAX / (uint64_t)base) { chunk *= (uint64_t)base; per++; }
    const char *dig = lowercase ? "0123456789abcdefghijklmnopqrstuvwxyz"
                                : "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t cap = n * 64 + 8, pos = cap;
    char *out = malloc(cap);
    if (!out) FATAL("out of memory for the text of a %zu-digit big integer", n);
    while (n > 0 && d[n - 1] == 0) n--;
    while (n > 0) {
        unsigned __int128 rem = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | d[i];
            d[i] = (uint64_t)(cur / chunk);
            rem = cur % chunk;
        }
        while (n > 0 && d[n - 1] == 0) n--;
        uint64_t r = (uint64_t)rem;
        for (int k = 0; k < per; k++) {
            if (n == 0 && r == 0 && k > 0) break;
            out[--pos] = dig[r % (uint64_t)base];
            r /= (uint64_t)base;
        }
    }
    if (pos == cap) out[--pos] = '0';
    ob_write(b, out + pos, cap - pos);
    free(out);
    free(d);
}

void print_integer(OutBuf *b, Term i, int base, int lowercase) {
    if (is_small(i)) {
        SWord v = small_val(i);
        if (v < 0) { ob_putc(b, '-'); put_uword(b, (UWord)0 - (UWord)v, base, lowercase); }
        else put_uword(b, (UWord)v, base, lowercase);
        return;
    }
    if (big_is_neg(i)) ob_putc(b, '-');
    put_big(b, i, base, lowercase);
}

void print_float(OutBuf *b, double d) {
    char buf[FLOAT_SHORTEST_MAX];
    float_format_shortest(d, buf, sizeof buf);
    ob_puts(b, buf);
}

/* ------------------------------------------------------------------ */
/* io_lib:write                                                        */
/* ------------------------------------------------------------------ */

static void put_atomic(OutBuf *b, Term t) {
    if (is_small(t) || is_big(t)) { print_integer(b, t, 10, 0); return; }
    if (is_atom(t)) { print_atom(b, t); return; }
    if (is_float(t)) { print_float(b, float_val(t)); return; }
    if (is_pid(t)) { ob_printf(b, "<0.%lu.0>", (unsigned long)pid_val(t)); return; }
    if (is_port(t)) { ob_printf(b, "#Port<0.%lu>", (unsigned long)port_val(t)); return; }
    if (is_nil(t)) { ob_puts(b, "[]"); return; }
    if (is_boxed(t)) {
        Term *p = boxed_ptr(t);
        switch (header_subtag(p[0])) {
        case BOXED_REF: {
            UWord n = header_arity(p[0]);
            ob_puts(b, "#Ref<0");
            for (UWord i = n; i < 3; i++) ob_puts(b, ".0");
            for (UWord i = n; i > 0; i--) ob_printf(b, ".%lu", (unsigned long)p[i]);
            ob_putc(b, '>');
            return;
        }
        case BOXED_FUN: {
            const FunEntry *fe = (const FunEntry *)p[1];
            size_t n;
            const char *m = atom_name(fe->module, &n);
            ob_puts(b, "#Fun<");
            ob_write(b, m, n);
            ob_printf(b, ".%d.%lu>", fe->index, (unsigned long)fe->uniq);
            return;
        }
        case BOXED_EXPORT: {
            const Export *ex = (const Export *)p[1];
            ob_puts(b, "fun ");
            print_atom(b, ex->module);
            ob_putc(b, ':');
            print_atom(b, ex->name);
            ob_printf(b, "/%d", ex->arity);
            return;
        }
        case BOXED_HEAP_BIN: case BOXED_REFC_BIN: case BOXED_SUB_BIN:
            bin_write(b, t, -1);       /* binaries: binary.c */
            return;
        case BOXED_MAP:
            ob_puts(b, "#{...}");      /* maps: layout not defined yet */
            return;
        }
    }
    ob_printf(b, "#BadTerm<%#lx>", (unsigned long)t);
}

/* io_lib:write(Term, Depth), optionally with strings (the flat form of ~p
 * for terms that are not laid out). Recurses on heads and elements only. */
/* A binary as text if strings are on (ASCII/Latin-1, or UTF-8 in unicode
 * mode); 0 if it prints as bytes. */
static int bin_text(OutBuf *b, Term t, long d, int strings) {
    if (!strings) return 0;
    if (strings & PRINT_UNICODE) {
        int r = bin_pretty_utf8(b, t, d);
        if (r >= 0) return r;
    }
    return bin_pretty_string(b, t, d);
}

static void write_rec(OutBuf *b, Term t, long d, int strings, int nest) {
    if (d == 0) { ob_puts(b, "..."); return; }
    if (nest > PRINT_MAX_NEST) { ob_puts(b, "..."); return; }
    if (is_bitstring(t)) {                           /* binaries: binary.c */
        if (!bin_text(b, t, d, strings)) bin_write(b, t, d);
        return;
    }
    if (is_list(t)) {
        if (strings && d != 1 && print_is_printable_list(t)) { put_string(b, t); return; }
        if (d == 1) { ob_puts(b, "[...]"); return; }
        ob_putc(b, '[');
        write_rec(b, list_head(t), d - 1, strings, nest + 1);
        t = list_tail(t);
        d--;
        for (;;) {                                   /* write_tail */
            if (is_nil(t)) break;
            if (d == 1) { ob_puts(b, "|..."); break; }
            if (is_list(t)) {
                ob_putc(b, ',');
                write_rec(b, list_head(t), d - 1, strings, nest + 1);
                t = list_tail(t);
                d--;
            } else {
                ob_putc(b, '|');
                write_rec(b, t, d - 1, strings, nest + 1);
                break;
            }
        }
        ob_putc(b, ']');
        return;
    }
    if (is_tuple(t)) {
        UWord n = tuple_arity(t);
        Term *e = tuple_elems(t);
        if (n == 0) { ob_puts(b, "{}"); return; }
        if (d == 1) { ob_puts(b, "{...}"); return; }
        ob_putc(b, '{');
        write_rec(b, e[0], d - 1, strings, nest + 1);
        long dd = d - 1;
        for (UWord i = 1; i < n; i++) {
            if (dd == 1) { ob_puts(b, ",..."); break; }
            ob_putc(b, ',');
            write_rec(b, e[i], dd - 1, strings, nest + 1);
            dd--;
        }
        ob_putc(b, '}');
        return;
    }
    if (is_map_term(t)) {                /* io_lib:write_map, quirks included */
        UWord n = map_size(t);
        const Term *k = map_keys(t), *v = map_vals(t);
        if (d == 1 || n == 0) { ob_puts(b, "#{}"); return; }
        long d0 = d - 1, dd = d0;
        uint32_t *order = map_walk_order(t, MAP_WALK_ITER);   /* maps:iterator's order */
        ob_puts(b, "#{");
        for (UWord i = 0;; i++) {
            if (i > 0) {                 /* write_map_body(I, dd, d0) */
                if (dd == 1) { ob_puts(b, ",..."); break; }
                if (i == n) break;
                ob_putc(b, ',');
                dd--;
            }
            UWord j = map_walk_at(order, i);
            write_rec(b, k[j], d0, strings, nest + 1);
            ob_puts(b, " => ");
            write_rec(b, v[j], d0, strings, nest + 1);
        }
        free(order);
        ob_putc(b, '}');
        return;
    }
    put_atomic(b, t);
}

void print_write_depth(OutBuf *b, Term t, long depth) { write_rec(b, t, depth, 0, 0); }

/* ------------------------------------------------------------------ */
/* io_lib_pretty: the intermediate form                                */
/* ------------------------------------------------------------------ */

enum { PN_LEAF, PN_LIST, PN_TUPLE, PN_DOTS,
       PN_BIN };                /* binaries: io_lib_pretty's {bin, S}: text like a leaf,
                                   laid out by bin_pretty_layout, never ?ATM */

typedef struct PNode {
    unsigned char kind;
    unsigned char tagged;      /* tuple: {atom, ...} of size >= 2              */
    unsigned char has_tail;    /* last child is an improper tail or dots        */
    long len;                  /* characters of the one-line form               */
    size_t off, n;             /* leaf: text in ctx->text; else children in ctx->nodes */
} PNode;

typedef struct PCtx {
    OutBuf text;               /* leaf texts                                   */
    PNode *nodes;
    size_t nnodes, cap;
    OutBuf *out;
    long ll, m;                /* line length, CHAR_MAX (= total length)        */
} PCtx;

static size_t pn_reserve(PCtx *c, size_t k) {
    if (c->nnodes + k > c->cap) {
        size_t cap = c->cap ? c->cap : 64;
        while (cap < c->nnodes + k) cap *= 2;
        PNode *nn = realloc(c->nodes, cap * sizeof *nn);
        if (!nn) FATAL("out of memory for %zu nodes of the pretty printer", cap);
        c->nodes = nn;
        c->cap = cap;
    }
    size_t at = c->nnodes;
    c->nnodes += k;
    return at;
}

static void pn_leaf_begin(PCtx *c, size_t idx) {
    c->nodes[idx].kind = PN_LEAF;
    c->nodes[idx].tagged = c->nodes[idx].has_tail = 0;
    c->nodes[idx].off = c->text.len;
}
static void pn_leaf_end(PCtx *c, size_t idx) {
    PNode *p = &c->nodes[idx];
    p->n = c->text.len - p->off;
    p->len = (long)p->n;       /* one byte per character (Latin-1)            */
}

/* maps (map.h): io_lib_pretty's {map, Pairs} and {map_pair, K, V}. A map
 * node's children are its pairs (then dots, has_tail set); a pair node's
 * two children are the key and the value. Kept out of the enum above. */
#define PN_MAP  16
#define PN_PAIR 17
static void pn_build_map(PCtx *c, size_t idx, Term t, long d, int strings, int nest);
static void pn_write_map(PCtx *c, size_t idx);
static void pp_map_node(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w, int nest);
static int cind_map_node(PCtx *c, size_t idx, long col, long ind, long ld, long w, int nest);

/* print_length(Term, D): fills node idx. */
static void pn_build(PCtx *c, size_t idx, Term t, long d, int strings, int nest) {
    if (nest > PRINT_MAX_NEST) {
        pn_leaf_begin(c, idx); ob_puts(&c->text, "..."); pn_leaf_end(c, idx);
        return;
    }
    if (is_list(t)) {
        if (strings && d != 1 && print_is_printable_list(t)) {
            pn_leaf_begin(c, idx); put_string(&c->text, t); pn_leaf_end(c, idx);
            return;
        }
        /* print_length_list1: count elements first */
        size_t k = 0;
        int tail = 0;                       /* 0 none, 1 dots, 2 improper   */
        long dd = d;
        for (Term r = t;;) {
            if (is_nil(r)) break;
            if (dd == 1) { tail = 1; break; }
            if (!is_list(r)) { tail = 2; break; }
            k++; r = list_tail(r); dd--;
        }
        size_t n = k + (tail ? 1 : 0);
        size_t at = pn_reserve(c, n);
        Term r = t;
        dd = d;
        long len = 2;
        for (size_t i = 0; i < k; i++) {
            pn_build(c, at + i, list_head(r), dd - 1, strings, nest + 1);
            len += c->nodes[at + i].len + (i > 0);
            r = list_tail(r); dd--;
        }
        if (tail == 1) {
            PNode *q = &c->nodes[at + k];
            q->kind = PN_DOTS; q->len = 3; q->n = 0; q->off = 0; q->tagged = q->has_tail = 0;
        } else if (tail == 2) {
            pn_build(c, at + k, r, dd - 1, strings, nest + 1);
        }
        if (tail) len += c->nodes[at + k].len + (k > 0);
        PNode *p = &c->nodes[idx];
        p->kind = PN_LIST; p->tagged = 0; p->has_tail = tail != 0;
        p->off = at; p->n = n; p->len = len;
        return;
    }
    if (is_tuple(t) && tuple_arity(t) > 0) {
        UWord ar = tuple_arity(t);
        Term *e = tuple_elems(t);
        if (d == 1) {
            pn_leaf_begin(c, idx); ob_puts(&c->text, "{...}"); pn_leaf_end(c, idx);
            return;
        }
        /* print_length_tuple1: element I is printed at depth D-I */
        size_t k = 0;
        int dots = 0;
        long dd = d;
        for (UWord i = 0; i < ar; i++) {
            if (dd == 1) { dots = 1; break; }
            k++; dd--;
        }
        size_t n = k + (size_t)dots;
        size_t at = pn_reserve(c, n);
        long len = 2;
        dd = d;
        for (size_t i = 0; i < k; i++) {
            pn_build(c, at + i, e[i], dd - 1, strings, nest + 1);
            len += c->nodes[at + i].len + (i > 0);
            dd--;
        }
        if (dots) {
            PNode *q = &c->nodes[at + k];
            q->kind = PN_DOTS; q->len = 3; q->n = 0; q->off = 0; q->tagged = q->has_tail = 0;
            len += 3 + (k > 0);
        }
        PNode *p = &c->nodes[idx];
        p->kind = PN_TUPLE; p->tagged = is_atom(e[0]) && ar > 1; p->has_tail = (unsigned char)dots;
        p->off = at; p->n = n; p->len = len;
        return;
    }
    if (is_map_term(t)) { pn_build_map(c, idx, t, d, strings, nest); return; }   /* maps */
    if (is_bitstring(t)) {                           /* binaries: binary.c */
        pn_leaf_begin(c, idx);
        int str = bin_text(&c->text, t, d, strings);
        if (!str) bin_write(&c->text, t, d);
        pn_leaf_end(c, idx);
        if (!str) c->nodes[idx].kind = PN_BIN;
        return;
    }
    pn_leaf_begin(c, idx);
    if (is_tuple(t)) ob_puts(&c->text, "{}");
    else put_atomic(&c->text, t);
    pn_leaf_end(c, idx);
}

/* ------------------------------------------------------------------ */
/* io_lib_pretty: writing and layout                                   */
/* ------------------------------------------------------------------ */

#define ND(i) (&c->nodes[(i)])

/* write/1 of the intermediate form: the one-line text. */
static void pn_write(PCtx *c, size_t idx) {
    PNode *p = ND(idx);
    switch (p->kind) {
    case PN_LEAF: case PN_BIN:
        ob_write(c->out, c->text.buf + p->off, p->n);
        return;
    case PN_DOTS:
        ob_puts(c->out, "...");
        return;
    case PN_MAP: case PN_PAIR:
        pn_write_map(c, idx);
        return;
    default: {
        int list = p->kind == PN_LIST;
        size_t at = p->off, n = p->n;
        int has_tail = p->has_tail;
        ob_putc(c->out, list ? '[' : '{');
        for (size_t i = 0; i < n; i++) {
            if (i > 0) ob_putc(c->out, (has_tail && i == n - 1 && list) ? '|' : ',');
            pn_write(c, at + i);
        }
        ob_putc(c->out, list ? ']' : '}');
    }
    }
}

/* ?ATM(E): the element is plain text (not a list/tuple to lay out). */
static int pn_atm(PCtx *c, size_t idx) { return ND(idx)->kind == PN_LEAF; }

/* Children of a list/tuple seen as an Erlang list [E1, E2 | Tail]:
 * positions 0..nreg-1 are elements; when has_tail, position nreg is the
 * improper tail (PN_LEAF/LIST/TUPLE) or dots (PN_DOTS). */
typedef struct Seq { size_t at, nreg; int tail; } Seq;   /* tail: 0 [], 1 dots, 2 term */

static Seq seq_of(PCtx *c, size_t idx, size_t from) {
    PNode *p = ND(idx);
    Seq s;
    s.at = p->off;
    s.nreg = p->has_tail ? p->n - 1 : p->n;
    s.tail = 0;
    if (p->has_tail) s.tail = ND(p->off + p->n - 1)->kind == PN_DOTS ? 1 : 2;
    (void)from;
    return s;
}

/* last_depth(Es, LD) where Es is the rest after position i */
static long last_depth(const Seq *s, size_t i, long ld) { return i + 1 < s->nreg ? 0 : ld + 1; }

static void pp(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w, int nest);

static void put_nl_ind(PCtx *c, long ind) {
    ob_putc(c->out, '\n');
    if (ind > 0) ob_pad(c->out, ' ', (size_t)ind);
}

/* pp_element: returns the width used (Ll to force a new line). */
static long pp_element(PCtx *c, size_t e, long col, long tind, long ind, long ld, long w, int nest) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m && pn_atm(c, e)) {
        pn_write(c, e);
        return len;
    }
    pp(c, e, col, tind, ind, ld, w, nest);
    return c->ll;
}

/* pp_tail(Es, Col0, Col, ...) for the elements of s from position i. */
static void pp_tail(PCtx *c, const Seq *s, size_t i, long col0, long col, long tind,
                    long ind, long ld, int sep, long w, int nest) {
    for (; i < s->nreg; i++) {
        size_t e = s->at + i;
        long ld1 = last_depth(s, i, ld);
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm(c, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm(c, e))) {
            ob_putc(c->out, ',');
            pn_write(c, e);
            col += elen;
            w += elen;
        } else {
            ob_putc(c->out, ',');
            put_nl_ind(c, ind);
            long we = pp_element(c, e, col0, tind, ind, ld1, 0, nest);
            col = col0 + we;
            w = we;
        }
    }
    if (s->tail == 1) {
        ob_putc(c->out, sep);
        ob_puts(c->out, "...");
    } else if (s->tail == 2) {
        size_t e = s->at + s->nreg;
        long len = ND(e)->len;
        ob_putc(c->out, sep);
        if (len + 1 < c->ll - col - (ld + 1) && len + 1 + w + (ld + 1) <= c->m && pn_atm(c, e)) {
            pn_write(c, e);
        } else {
            put_nl_ind(c, ind);
            pp(c, e, col0, tind, ind, ld + 1, 0, nest);
        }
    }
}

/* pp_list(L, Col0, ...) for the elements of s from position i. */
static void pp_list(PCtx *c, const Seq *s, size_t i, long col0, long tind, long ind,
                    long ld, int sep, long w, int nest) {
    if (i >= s->nreg) {
        /* the list is {dots,...} (or, impossibly, an improper tail first) */
        if (s->tail == 1) ob_puts(c->out, "...");
        else if (s->tail == 2) pp(c, s->at + s->nreg, col0, tind, ind, ld, w, nest);
        return;
    }
    long we = pp_element(c, s->at + i, col0, tind, ind, last_depth(s, i, ld), w, nest);
    pp_tail(c, s, i + 1, col0, col0 + we, tind, ind, ld, sep, w + we, nest);
}

static void pp(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w, int nest) {
    PNode *p = ND(idx);
    if ((p->len < c->ll - col - ld && p->len + w + ld <= c->m) || p->kind == PN_LEAF ||
        p->kind == PN_DOTS || nest > PRINT_MAX_NEST) {
        pn_write(c, idx);
        return;
    }
    if (p->kind == PN_BIN) {                         /* binaries: pp_binary */
        bin_pretty_layout(c->out, c->text.buf + p->off, p->n, col, c->ll, c->m, ind, ld, w);
        return;
    }
    if (p->kind == PN_MAP) { pp_map_node(c, idx, col, tind, ind, ld, w, nest); return; }
    Seq s = seq_of(c, idx, 0);
    if (p->kind == PN_LIST) {
        ob_putc(c->out, '[');
        pp_list(c, &s, 0, col + 1, tind, ind + 1, ld, '|', w + 1, nest + 1);
        ob_putc(c->out, ']');
        return;
    }
    ob_putc(c->out, '{');
    if (!p->tagged) {
        pp_list(c, &s, 0, col + 1, tind, ind + 1, ld, ',', w + 1, nest + 1);
    } else if (s.nreg == 0) {                         /* pp_tag_tuple on dots */
        ob_puts(c->out, "...");
    } else {
        /* pp_tag_tuple */
        size_t tag = s.at;
        long tlen = ND(tag)->len;
        long tagind = tlen + 2, tcol = col + tagind;
        w += 1;
        if (tind > 0 && tagind > tind) {
            pn_write(c, tag);
            pp_tail(c, &s, 1, col + tind, tcol, tind, ind + tind, ld, ',', w + tlen, nest + 1);
        } else {
            pn_write(c, tag);
            ob_putc(c->out, ',');
            pp_list(c, &s, 1, tcol, tind, ind + tagind, ld, ',', w + tlen + 1, nest + 1);
        }
    }
    ob_putc(c->out, '}');
}

/* cind: can the layout with tag indentation `ind` be done? 0 = no_good. */
static int cind(PCtx *c, size_t idx, long col, long ind, long ld, long w, int nest);

static int cind_element(PCtx *c, size_t e, long col, long ind, long ld, long w, long *we, int nest) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m && pn_atm(c, e)) { *we = len; return 1; }
    if (!cind(c, e, col, ind, ld, w, nest)) return 0;
    *we = c->ll;
    return 1;
}

static int cind_tail(PCtx *c, const Seq *s, size_t i, long col0, long col, long ind,
                     long ld, long w, int nest) {
    for (; i < s->nreg; i++) {
        size_t e = s->at + i;
        long ld1 = last_depth(s, i, ld);
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm(c, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm(c, e))) {
            col += elen;
            w += elen;
        } else {
            long we;
            if (!cind_element(c, e, col0, ind, ld1, 0, &we, nest)) return 0;
            col = col0 + we;
            w = we;
        }
    }
    if (s->tail == 2) {
        size_t e = s->at + s->nreg;
        long len = ND(e)->len;
        if (len + 1 < c->ll - col - (ld + 1) && len + 1 + w + (ld + 1) <= c->m && pn_atm(c, e))
            return 1;
        return cind(c, e, col, ind, ld + 1, 0, nest);
    }
    return 1;
}

static int cind_list(PCtx *c, const Seq *s, size_t i, long col0, long ind, long ld, long w, int nest) {
    if (i >= s->nreg) {
        if (s->tail == 2) return cind(c, s->at + s->nreg, col0, ind, ld, w, nest);
        return 1;
    }
    long we;
    if (!cind_element(c, s->at + i, col0, ind, last_depth(s, i, ld), w, &we, nest)) return 0;
    return cind_tail(c, s, i + 1, col0, col0 + we, ind, ld, w + we, nest);
}

static int cind(PCtx *c, size_t idx, long col, long ind, long ld, long w, int nest) {
    PNode *p = ND(idx);
    if (p->len < c->ll - col - ld && p->len + w + ld <= c->m) return 1;
    if (p->kind == PN_LEAF || p->kind == PN_DOTS || p->kind == PN_BIN || nest > PRINT_MAX_NEST) return 1;
    if (p->kind == PN_MAP) return cind_map_node(c, idx, col, ind, ld, w, nest);
    Seq s = seq_of(c, idx, 0);
    if (p->kind == PN_LIST || !p->tagged) return cind_list(c, &s, 0, col + 1, ind, ld, w + 1, nest + 1);
    /* cind_tag_tuple */
    if (s.nreg == 0) return 1;
    w += 1;
    long tlen = ND(s.at)->len;
    long tagind = tlen + 2, tcol = col + tagind;
    if (ind > 0 && tagind > ind) {
        long col1 = col + ind;
        if (c->m + col1 <= c->ll || col1 <= c->ll / 2)
            return cind_tail(c, &s, 1, col1, tcol, ind, ld, w + tlen, nest + 1);
        return 0;
    }
    if (c->m + tcol < c->ll || tcol < c->ll / 2)
        return cind_list(c, &s, 1, tcol, ind, ld, w + tlen + 1, nest + 1);
    return 0;
}

/* ------------------------------------------------------------------ */
/* maps in ~p: io_lib_pretty's print_length_map, pp_map and cind_map   */
/* ------------------------------------------------------------------ */

static void pn_build_map(PCtx *c, size_t idx, Term t, long d, int strings, int nest) {
    UWord n = map_size(t);
    if (n == 0 || d == 1) {
        pn_leaf_begin(c, idx); ob_puts(&c->text, n == 0 ? "#{}" : "#{...}"); pn_leaf_end(c, idx);
        return;
    }
    /* print_length_map_pairs: the pair at position i is dots when D - i == 1 */
    size_t k = 0;
    int dots = 0;
    for (UWord i = 0; i < n; i++, k++)
        if (d - (long)i == 1) { dots = 1; break; }
    size_t at = pn_reserve(c, k + (size_t)dots);
    long len = 3;
    uint32_t *order = map_walk_order(t, MAP_WALK_ITER);      /* maps:iterator's order */
    for (size_t i = 0; i < k; i++) {
        size_t kv = pn_reserve(c, 2);
        UWord j = map_walk_at(order, i);
        pn_build(c, kv, map_keys(t)[j], d - 1, strings, nest + 1);
        pn_build(c, kv + 1, map_vals(t)[j], d - 1, strings, nest + 1);
        PNode *q = &c->nodes[at + i];
        q->kind = PN_PAIR; q->tagged = q->has_tail = 0;
        q->off = kv; q->n = 2;
        q->len = c->nodes[kv].len + 4 + c->nodes[kv + 1].len;
        len += q->len + (i > 0);
    }
    free(order);
    if (dots) {
        PNode *q = &c->nodes[at + k];
        q->kind = PN_DOTS; q->len = 3; q->n = 0; q->off = 0; q->tagged = q->has_tail = 0;
        len += 3 + (k > 0);
    }
    PNode *p = &c->nodes[idx];
    p->kind = PN_MAP; p->tagged = 0; p->has_tail = (unsigned char)dots;
    p->off = at; p->n = k + (size_t)dots; p->len = len;
}

static void pn_write_map(PCtx *c, size_t idx) {
    PNode *p = ND(idx);
    if (p->kind == PN_PAIR) {
        size_t kv = p->off;
        pn_write(c, kv);
        ob_puts(c->out, " => ");
        pn_write(c, kv + 1);
        return;
    }
    size_t at = p->off, n = p->n;
    ob_puts(c->out, "#{");
    for (size_t i = 0; i < n; i++) {
        if (i > 0) ob_putc(c->out, ',');
        pn_write(c, at + i);
    }
    ob_putc(c->out, '}');
}

/* ?ATM_PAIR: key and value are both plain text */
static int pn_atm_pair(PCtx *c, size_t e) {
    size_t kv = ND(e)->off;
    return ND(kv)->kind == PN_LEAF && ND(kv + 1)->kind == PN_LEAF;
}

static long map_value_indent(long tind) { return tind > 0 ? tind : 4; }

/* pp_pair: returns the width used (Ll when it took several lines) */
static long pp_pair(PCtx *c, size_t e, long col, long tind, long ind, long ld, long w, int nest) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) {
        pn_write_map(c, e);
        return pn_atm_pair(c, e) ? len : c->ll;
    }
    size_t kv = ND(e)->off;
    long i = map_value_indent(tind);
    pp(c, kv, col, tind, ind, ld, w, nest);
    ob_puts(c->out, " =>");
    put_nl_ind(c, ind + i);
    pp(c, kv + 1, col + i, tind, ind + i, ld, 0, nest);
    return c->ll;
}

static void pp_map_node(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w, int nest) {
    Seq s = seq_of(c, idx, 0);
    col += 2; ind += 2; w += 1; nest++;
    ob_puts(c->out, "#{");
    if (s.nreg == 0) {
        if (s.tail) ob_puts(c->out, "...");
    } else {
        long pw = pp_pair(c, s.at, col, tind, ind, last_depth(&s, 0, ld), w, nest);
        long col0 = col;
        col = col0 + pw; w = pw;
        for (size_t i = 1; i < s.nreg; i++) {             /* pp_pairs_tail */
            size_t e = s.at + i;
            long ld1 = last_depth(&s, i, ld);
            long elen = 1 + ND(e)->len;
            if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm_pair(c, e)) ||
                (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm_pair(c, e))) {
                ob_putc(c->out, ',');
                pn_write_map(c, e);
                col += elen; w += elen;
            } else {
                ob_putc(c->out, ',');
                put_nl_ind(c, ind);
                pw = pp_pair(c, e, col0, tind, ind, ld1, 0, nest);
                col = col0 + pw; w = pw;
            }
        }
        if (s.tail) ob_puts(c->out, ",...");
    }
    ob_putc(c->out, '}');
}

/* cind_pair: 0 = no_good, else *pw is the width */
static int cind_pair(PCtx *c, size_t e, long col, long ind, long ld, long w, long *pw, int nest) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) {
        *pw = pn_atm_pair(c, e) ? len : c->ll;
        return 1;
    }
    size_t kv = ND(e)->off;
    if (!cind(c, kv, col, ind, ld, w, nest)) return 0;
    if (!cind(c, kv + 1, col + map_value_indent(ind), ind, ld, 0, nest)) return 0;
    *pw = c->ll;
    return 1;
}

static int cind_map_node(PCtx *c, size_t idx, long col, long ind, long ld, long w, int nest) {
    Seq s = seq_of(c, idx, 0);
    col += 2; w += 2; nest++;
    if (s.nreg == 0) return 1;
    long pw;
    if (!cind_pair(c, s.at, col, ind, last_depth(&s, 0, ld), w, &pw, nest)) return 0;
    long col0 = col;
    col = col0 + pw; w += pw;
    for (size_t i = 1; i < s.nreg; i++) {                 /* cind_pairs_tail */
        size_t e = s.at + i;
        long ld1 = last_depth(&s, i, ld);
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm_pair(c, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm_pair(c, e))) {
            col += elen; w += elen;
        } else {
            if (!cind_pair(c, e, col0, ind, ld1, 0, &pw, nest)) return 0;
            col = col0 + pw; w = pw;
        }
    }
    return 1;
}

void print_pretty(OutBuf *b, Term t, long col, long ll, long depth, int strings) {
    if (depth == 0) { ob_puts(b, "..."); return; }
    if (col <= 0) col = 1;
    if (!is_list(t) && !is_tuple(t) && !is_bitstring(t) && !is_map_term(t)) { put_atomic(b, t); return; }
    PCtx c;
    memset(&c, 0, sizeof c);
    ob_init(&c.text);
    c.out = b;
    c.ll = ll;
    size_t root = pn_reserve(&c, 1);
    pn_build(&c, root, t, depth, strings, 0);
    c.m = c.nodes[root].len;
    if (ll == 0 || c.m < ll - col) {
        pn_write(&c, root);
    } else {
        long tind = 1;
        if (cind(&c, root, col, -1, 0, 0, 0)) tind = -1;
        else if (cind(&c, root, col, 4, 0, 0, 0)) tind = 4;
        pp(&c, root, col, tind, col - 1, 0, 0, 0);
    }
    ob_free(&c.text);
    free(c.nodes);
}

void print_term(OutBuf *b, Term t, int mode) {
    if (mode == PRINT_PRINT) print_pretty(b, t, 1, 80, -1, 1);
    else write_rec(b, t, -1, 0, 0);
}
