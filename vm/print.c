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
#include "dist/dist.h"
#include "fatal.h"
#include "atom.h"
#include "module.h"
#include "binary.h"
#include "map.h"
#include "num_text.h"

#include <math.h>
#include <setjmp.h>
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
void print_quoted_char(OutBuf *b, UWord c, int q) {
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
        if (c < 256) print_quoted_char(b, c, '\'');
        else {                   /* beyond Latin-1, OTP's printable range */
            char hex[24];
            snprintf(hex, sizeof hex, "\\x{%lX}", (unsigned long)c);
            ob_puts(b, hex);
        }
    }
    ob_putc(b, '\'');
}

int print_printable_latin1(long c) {
    if ((c >= ' ' && c <= '~') || (c >= 0xA0 && c <= 0xFF)) return 1;
    switch (c) {
    case '\n': case '\r': case '\t': case '\v': case '\b': case '\f': case 27: return 1;
    }
    return 0;
}

static int printable_char(Term c) { return is_small(c) && print_printable_latin1(small_val(c)); }

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
    for (; is_list(t); t = list_tail(t)) print_quoted_char(b, (UWord)small_val(list_head(t)), '"');
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
    if (!d) { ob_refused(b, n * sizeof *d); return; }
    memcpy(d, big_digits(t), n * sizeof *d);
    uint64_t chunk = (uint64_t)base;
    int per = 1;
    while (chunk <= UINT64_MAX / (uint64_t)base) { chunk *= (uint64_t)base; per++; }
    const char *dig = lowercase ? "0123456789abcdefghijklmnopqrstuvwxyz"
                                : "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t cap = n * 64 + 8, pos = cap;
    char *out = malloc(cap);
    if (!out) { free(d); ob_refused(b, cap); return; }
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
        case BOXED_EXTERNAL: {              /* as erl shows another node's */
            unsigned long node = dist_node_number(external_node(t));
            const Term *id = external_ids(t);
            size_t n = external_nids(t);
            if (external_kind(t) == EXT_PID)
                ob_printf(b, "<%lu.%lu.%lu>", node, (unsigned long)id[0], (unsigned long)id[1]);
            else if (external_kind(t) == EXT_PORT)
                ob_printf(b, "#Port<%lu.%lu>", node, (unsigned long)id[0]);
            else {
                ob_printf(b, "#Ref<%lu", node);
                for (size_t i = n; i > 0; i--) ob_printf(b, ".%lu", (unsigned long)id[i - 1]);
                ob_putc(b, '>');
            }
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

/* ------------------------------------------------------------------ */
/* the work stack of the walks below                                   */
/* ------------------------------------------------------------------ */

/* Every walk in this file keeps its pending work in a growable array of
 * tasks, never on the C stack, so that a term (or a layout tree) nested a
 * million deep prints as OTP prints it. A task is a continuation: what is
 * left of a list, tuple or map after the element being printed, with the
 * values (column, width) the recursive formulation would have in its
 * frame; those values are known before the element is printed, since
 * OTP's layout functions return either the element's one-line length or
 * the line length. */
typedef struct Task {
    unsigned char op;
    char ch;                   /* a character to write, or a list's separator */
    UWord i;                   /* position in a tuple, map or node sequence  */
    Term t;
    size_t idx;                /* a node of the layout tree                  */
    long d, col0, col, tind, ind, ld, w;
    uint32_t *order;           /* a big map's walk order (map.h)             */
    const char *s;
} Task;

typedef struct TaskStack {
    jmp_buf *oom;              /* where refused memory goes (else: fatal)    */
    Task *t;
    size_t n, cap;
    Task small[32];
} TaskStack;

static void ts_init(TaskStack *s) { s->oom = NULL; s->t = s->small; s->n = 0; s->cap = 32; }
static void ts_free(TaskStack *s) { if (s->t != s->small) free(s->t); }

static Task *ts_push(TaskStack *s, int op) {
    if (s->n == s->cap) {
        size_t cap = s->cap * 2;
        Task *n = s->t == s->small ? malloc(cap * sizeof *n) : realloc(s->t, cap * sizeof *n);
        if (!n && s->oom) longjmp(*s->oom, 1);
        if (!n) FATAL("out of memory for %zu tasks of the term printer", cap);
        if (s->t == s->small) memcpy(n, s->small, sizeof s->small);
        s->t = n;
        s->cap = cap;
    }
    Task *k = &s->t[s->n++];
    memset(k, 0, sizeof *k);
    k->op = (unsigned char)op;
    return k;
}

/* ------------------------------------------------------------------ */
/* io_lib:write                                                        */
/* ------------------------------------------------------------------ */

enum { W_TERM, W_CHAR, W_STR, W_LIST_TAIL, W_TUPLE_REST, W_MAP_REST };

static void w_push_term(TaskStack *s, Term t, long d) {
    Task *k = ts_push(s, W_TERM);
    k->t = t; k->d = d;
}
static void w_push_str(TaskStack *s, const char *str) { ts_push(s, W_STR)->s = str; }

/* The pair at walk position i of map t, printed at depth d0: key, " => ",
 * value (pushed in reverse). */
static void w_push_pair(TaskStack *s, Term t, const uint32_t *order, UWord i, long d0) {
    UWord j = map_walk_at(order, i);
    w_push_term(s, map_val_at(t, j), d0);
    w_push_str(s, " => ");
    w_push_term(s, map_key_at(t, j), d0);
}

/* io_lib:write(Term, Depth), optionally with strings (the flat form of ~p
 * for terms that are not laid out). Each case is the clause of OTP's
 * write/2 of that name; the rest of a list, tuple or map waits on the
 * stack while an element is written. */
static void write_term(OutBuf *b, Term t0, long d0, int strings) {
    TaskStack s;
    ts_init(&s);
    MapOrderCache *orders = NULL;
    w_push_term(&s, t0, d0);
    while (s.n) {
        Task k = s.t[--s.n];
        Term t = k.t;
        long d = k.d;
        switch (k.op) {
        case W_CHAR: ob_putc(b, k.ch); continue;
        case W_STR: ob_puts(b, k.s); continue;
        case W_LIST_TAIL:                            /* write_tail */
            if (is_nil(t)) { ob_putc(b, ']'); continue; }
            if (d == 1) { ob_puts(b, "|...]"); continue; }
            if (is_list(t)) {
                ob_putc(b, ',');
                Task *r = ts_push(&s, W_LIST_TAIL);
                r->t = list_tail(t); r->d = d - 1;
                w_push_term(&s, list_head(t), d - 1);
            } else {
                ob_putc(b, '|');
                ts_push(&s, W_CHAR)->ch = ']';
                w_push_term(&s, t, d - 1);
            }
            continue;
        case W_TUPLE_REST: {                         /* write_tuple from k.i */
            if (k.i == tuple_arity(t)) { ob_putc(b, '}'); continue; }
            if (d == 1) { ob_puts(b, ",...}"); continue; }
            ob_putc(b, ',');
            Task *r = ts_push(&s, W_TUPLE_REST);
            r->t = t; r->i = k.i + 1; r->d = d - 1;
            w_push_term(&s, tuple_elems(t)[k.i], d - 1);
            continue;
        }
        case W_MAP_REST:                             /* write_map_body(I, d, d0) */
            if (d == 1) { ob_puts(b, ",...}"); free(k.order); continue; }
            if (k.i == map_size(t)) { ob_putc(b, '}'); free(k.order); continue; }
            ob_putc(b, ',');
            {
                Task *r = ts_push(&s, W_MAP_REST);
                r->t = t; r->i = k.i + 1; r->d = d - 1; r->col0 = k.col0; r->order = k.order;
                w_push_pair(&s, t, k.order, k.i, k.col0);
            }
            continue;
        }
        /* W_TERM */
        if (d == 0) { ob_puts(b, "..."); continue; }
        if (is_bitstring(t)) {                       /* binaries: binary.c */
            if (!bin_text(b, t, d, strings)) bin_write(b, t, d);
            continue;
        }
        if (is_list(t)) {
            if (strings && d != 1 && print_is_printable_list(t)) { put_string(b, t); continue; }
            if (d == 1) { ob_puts(b, "[...]"); continue; }
            ob_putc(b, '[');
            Task *r = ts_push(&s, W_LIST_TAIL);
            r->t = list_tail(t); r->d = d - 1;
            w_push_term(&s, list_head(t), d - 1);
            continue;
        }
        if (is_tuple(t)) {
            if (tuple_arity(t) == 0) { ob_puts(b, "{}"); continue; }
            if (d == 1) { ob_puts(b, "{...}"); continue; }
            ob_putc(b, '{');
            Task *r = ts_push(&s, W_TUPLE_REST);
            r->t = t; r->i = 1; r->d = d - 1;
            w_push_term(&s, tuple_elems(t)[0], d - 1);
            continue;
        }
        if (is_map_term(t)) {                        /* io_lib:write_map, quirks included */
            if (d == 1 || map_size(t) == 0) { ob_puts(b, "#{}"); continue; }
            uint32_t *order = map_walk_order_cached(t, MAP_WALK_ITER, &orders);  /* maps:iterator's */
            ob_puts(b, "#{");
            Task *r = ts_push(&s, W_MAP_REST);
            r->t = t; r->i = 1; r->d = d - 1; r->col0 = d - 1; r->order = order;
            w_push_pair(&s, t, order, 0, d - 1);
            continue;
        }
        put_atomic(b, t);
    }
    ts_free(&s);
    map_order_cache_free(orders);
}

void print_write_depth(OutBuf *b, Term t, long depth) { write_term(b, t, depth, 0); }

/* ------------------------------------------------------------------ */
/* io_lib_pretty: the intermediate form                                */
/* ------------------------------------------------------------------ */

enum { PN_LEAF, PN_LIST, PN_TUPLE, PN_DOTS,
       PN_BIN,                  /* binaries: io_lib_pretty's {bin, S}: text like a leaf,
                                   laid out by bin_pretty_layout, never ?ATM */
       PN_MAP, PN_PAIR,         /* maps: {map, Pairs} (children: the pairs, then dots
                                   when has_tail) and {map_pair, K, V} (two children) */
       PN_RECORD, PN_FIELD };   /* records (the shell's record_print_fun): {record,
                                   [{Name, NameL} | Fields]} (children: a leaf "#name",
                                   the fields, then dots when has_tail) and {field,
                                   Name, NameL, F} (children: a leaf "name", the value) */

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
    int strings;
    TaskStack ts;              /* the work stack, reused by every walk          */
    MapOrderCache *orders;     /* big maps' walk orders (map.h)                */
    Term recs;                 /* known records [{Name, [Field]}], or NIL       */
} PCtx;

#define ND(i) (&c->nodes[(i)])

static size_t pn_reserve(PCtx *c, size_t k) {
    if (c->nnodes + k > c->cap) {
        size_t cap = c->cap ? c->cap : 64;
        while (cap < c->nnodes + k) cap *= 2;
        PNode *nn = realloc(c->nodes, cap * sizeof *nn);
        if (!nn && c->ts.oom) longjmp(*c->ts.oom, 1);
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
static void pn_leaf_str(PCtx *c, size_t idx, const char *s) {
    pn_leaf_begin(c, idx); ob_puts(&c->text, s); pn_leaf_end(c, idx);
}
static void pn_dots(PCtx *c, size_t idx) {
    PNode *q = ND(idx);
    q->kind = PN_DOTS; q->len = 3; q->n = 0; q->off = 0; q->tagged = q->has_tail = 0;
}
static void pn_inner(PCtx *c, size_t idx, int kind, int tagged, int has_tail, size_t at, size_t n) {
    PNode *p = ND(idx);
    p->kind = (unsigned char)kind; p->tagged = (unsigned char)tagged;
    p->has_tail = (unsigned char)has_tail; p->off = at; p->n = n; p->len = 0;
}

enum { B_TERM, B_FINISH };

static void b_push(PCtx *c, size_t idx, Term t, long d) {
    Task *k = ts_push(&c->ts, B_TERM);
    k->idx = idx; k->t = t; k->d = d;
}

/* The one-line length of an inner node from its children's, once they are
 * built: brackets, children, separators (a pair: key " => " value). */
static void pn_finish(PCtx *c, size_t idx) {
    PNode *p = ND(idx);
    long sum = 0;
    for (size_t i = 0; i < p->n; i++) sum += ND(p->off + i)->len;
    if (p->kind == PN_PAIR) p->len = sum + 4;
    else if (p->kind == PN_FIELD) p->len = sum + 3;          /* name " = " value */
    else if (p->kind == PN_RECORD)     /* "#name" "{" fields, commas "}" */
        p->len = sum + 2 + (p->n > 1 ? (long)p->n - 2 : 0);
    else p->len = (p->kind == PN_MAP ? 3 : 2) + sum + (p->n ? (long)p->n - 1 : 0);
}

/* The field names of t when it is a known record (an atom first, as many
 * more elements as the record has fields), else THE_NON_VALUE: the shell's
 * record_print_fun. */
static Term record_fields(PCtx *c, Term t) {
    if (c->recs == NIL || !is_tuple(t) || tuple_arity(t) == 0 || !is_atom(tuple_elems(t)[0]))
        return THE_NON_VALUE;
    for (Term l = c->recs; is_list(l); l = list_tail(l)) {
        Term r = list_head(l);
        if (!is_tuple(r) || tuple_arity(r) != 2 || tuple_elems(r)[0] != tuple_elems(t)[0]) continue;
        UWord n = 0;
        Term f = tuple_elems(r)[1];
        for (; is_list(f); f = list_tail(f)) n++;
        if (n + 1 == tuple_arity(t)) return tuple_elems(r)[1];
    }
    return THE_NON_VALUE;
}

/* print_length(Term, D) into node idx: a node's children are reserved and
 * their builds pushed, with a B_FINISH below them that sums their lengths. */
static void pn_build_one(PCtx *c, size_t idx, Term t, long d) {
    int strings = c->strings;
    if (is_list(t)) {
        if (strings && d != 1 && print_is_printable_list(t)) {
            pn_leaf_begin(c, idx); put_string(&c->text, t); pn_leaf_end(c, idx);
            return;
        }
        /* print_length_list1: count elements first */
        size_t k = 0;
        int tail = 0;                       /* 0 none, 1 dots, 2 improper   */
        long dd = d;
        Term r = t;
        for (;;) {
            if (is_nil(r)) break;
            if (dd == 1) { tail = 1; break; }
            if (!is_list(r)) { tail = 2; break; }
            k++; r = list_tail(r); dd--;
        }
        size_t n = k + (tail ? 1 : 0);
        size_t at = pn_reserve(c, n);
        pn_inner(c, idx, PN_LIST, 0, tail != 0, at, n);
        ts_push(&c->ts, B_FINISH)->idx = idx;
        if (tail == 1) pn_dots(c, at + k);
        else if (tail == 2) b_push(c, at + k, r, dd - 1);
        r = t; dd = d;
        for (size_t i = 0; i < k; i++) {
            b_push(c, at + i, list_head(r), dd - 1);
            r = list_tail(r); dd--;
        }
        return;
    }
    Term fields = record_fields(c, t);
    if (fields != THE_NON_VALUE) {                   /* print_length_record */
        if (d == 1) { pn_leaf_str(c, idx, "{...}"); return; }
        /* field I is printed at depth D-1-I, dots where that is 1 */
        UWord nf = tuple_arity(t) - 1;
        Term *e = tuple_elems(t);
        size_t k = 0;
        int dots = 0;
        for (long dd = d - 1; k < nf; k++, dd--)
            if (dd == 1) { dots = 1; break; }
        size_t at = pn_reserve(c, 1 + k + (size_t)dots);
        size_t kv = pn_reserve(c, 2 * k);
        pn_inner(c, idx, PN_RECORD, 0, dots, at, 1 + k + (size_t)dots);
        ts_push(&c->ts, B_FINISH)->idx = idx;
        pn_leaf_begin(c, at);
        ob_putc(&c->text, '#');
        print_atom(&c->text, e[0]);
        pn_leaf_end(c, at);
        if (dots) pn_dots(c, at + 1 + k);
        for (size_t i = 0; i < k; i++, fields = list_tail(fields)) {
            pn_inner(c, at + 1 + i, PN_FIELD, 0, 0, kv + 2 * i, 2);
            ts_push(&c->ts, B_FINISH)->idx = at + 1 + i;
            pn_leaf_begin(c, kv + 2 * i);
            print_atom(&c->text, list_head(fields));
            pn_leaf_end(c, kv + 2 * i);
            b_push(c, kv + 2 * i + 1, e[1 + i], d - 2 - (long)i);
        }
        return;
    }
    if (is_tuple(t) && tuple_arity(t) > 0) {
        UWord ar = tuple_arity(t);
        Term *e = tuple_elems(t);
        if (d == 1) { pn_leaf_str(c, idx, "{...}"); return; }
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
        pn_inner(c, idx, PN_TUPLE, is_atom(e[0]) && ar > 1, dots, at, n);
        ts_push(&c->ts, B_FINISH)->idx = idx;
        if (dots) pn_dots(c, at + k);
        for (size_t i = 0; i < k; i++) b_push(c, at + i, e[i], d - 1 - (long)i);
        return;
    }
    if (is_map_term(t)) {                   /* print_length_map */
        UWord n = map_size(t);
        if (n == 0 || d == 1) { pn_leaf_str(c, idx, n == 0 ? "#{}" : "#{...}"); return; }
        /* print_length_map_pairs: the pair at position i is dots when D - i == 1 */
        size_t k = 0;
        int dots = 0;
        for (UWord i = 0; i < n; i++, k++)
            if (d - (long)i == 1) { dots = 1; break; }
        size_t at = pn_reserve(c, k + (size_t)dots);
        size_t kv = pn_reserve(c, 2 * k);
        pn_inner(c, idx, PN_MAP, 0, dots, at, k + (size_t)dots);
        ts_push(&c->ts, B_FINISH)->idx = idx;
        if (dots) pn_dots(c, at + k);
        uint32_t *order = map_walk_order_cached(t, MAP_WALK_ITER, &c->orders);  /* maps:iterator's */
        for (size_t i = 0; i < k; i++) {
            UWord j = map_walk_at(order, i);
            pn_inner(c, at + i, PN_PAIR, 0, 0, kv + 2 * i, 2);
            ts_push(&c->ts, B_FINISH)->idx = at + i;
            b_push(c, kv + 2 * i, map_key_at(t, j), d - 1);
            b_push(c, kv + 2 * i + 1, map_val_at(t, j), d - 1);
        }
        free(order);
        return;
    }
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

static void pn_build(PCtx *c, size_t root, Term t, long d) {
    TaskStack *s = &c->ts;
    b_push(c, root, t, d);
    while (s->n) {
        Task k = s->t[--s->n];
        if (k.op == B_FINISH) pn_finish(c, k.idx);
        else pn_build_one(c, k.idx, k.t, k.d);
    }
}

/* ------------------------------------------------------------------ */
/* io_lib_pretty: writing and layout                                   */
/* ------------------------------------------------------------------ */

enum { P_NODE, P_CHAR, P_STR };

/* a leaf's text */
static void pn_write_text(PCtx *c, size_t idx) {
    ob_write(c->out, c->text.buf + ND(idx)->off, ND(idx)->n);
}

/* write/1 of the intermediate form: the one-line text of node idx. */
static void pn_write(PCtx *c, size_t idx) {
    TaskStack s;                    /* its own: pp's stack is in use around it */
    ts_init(&s);
    ts_push(&s, P_NODE)->idx = idx;
    while (s.n) {
        Task k = s.t[--s.n];
        if (k.op == P_CHAR) { ob_putc(c->out, k.ch); continue; }
        if (k.op == P_STR) { ob_puts(c->out, k.s); continue; }
        PNode *p = ND(k.idx);
        switch (p->kind) {
        case PN_LEAF: case PN_BIN:
            ob_write(c->out, c->text.buf + p->off, p->n);
            continue;
        case PN_DOTS:
            ob_puts(c->out, "...");
            continue;
        case PN_PAIR:
            ts_push(&s, P_NODE)->idx = p->off + 1;
            ts_push(&s, P_STR)->s = " => ";
            ts_push(&s, P_NODE)->idx = p->off;
            continue;
        case PN_FIELD:
            ts_push(&s, P_NODE)->idx = p->off + 1;
            ts_push(&s, P_STR)->s = " = ";
            ts_push(&s, P_NODE)->idx = p->off;
            continue;
        case PN_RECORD:
            pn_write_text(c, p->off);
            ob_putc(c->out, '{');
            ts_push(&s, P_CHAR)->ch = '}';
            for (size_t i = p->n; i-- > 1;) {
                ts_push(&s, P_NODE)->idx = p->off + i;
                if (i > 1) ts_push(&s, P_CHAR)->ch = ',';
            }
            continue;
        }
        int list = p->kind == PN_LIST, map = p->kind == PN_MAP;
        size_t at = p->off, n = p->n;
        int has_tail = p->has_tail;
        ob_puts(c->out, map ? "#{" : list ? "[" : "{");
        ts_push(&s, P_CHAR)->ch = list ? ']' : '}';
        for (size_t i = n; i-- > 0;) {
            ts_push(&s, P_NODE)->idx = at + i;
            if (i > 0) ts_push(&s, P_CHAR)->ch = (has_tail && i == n - 1 && list) ? '|' : ',';
        }
    }
    ts_free(&s);
}

/* ?ATM(E): the element is plain text (not a list/tuple to lay out). */
static int pn_atm(PCtx *c, size_t idx) { return ND(idx)->kind == PN_LEAF; }
/* ?ATM_PAIR: key and value are both plain text */
static int pn_atm_pair(PCtx *c, size_t e) {
    size_t kv = ND(e)->off;
    return ND(kv)->kind == PN_LEAF && ND(kv + 1)->kind == PN_LEAF;
}

/* ?ATM_FLD: the field's value is plain text */
static int pn_atm_fld(PCtx *c, size_t f) { return ND(ND(f)->off + 1)->kind == PN_LEAF; }

/* Children of a list/tuple/map seen as an Erlang list [E1, E2 | Tail]:
 * positions 0..nreg-1 are elements; when has_tail, position nreg is the
 * improper tail (PN_LEAF/LIST/TUPLE) or dots (PN_DOTS). */
typedef struct Seq { size_t at, nreg; int tail; } Seq;   /* tail: 0 [], 1 dots, 2 term */

static Seq seq_of(PCtx *c, size_t idx) {
    PNode *p = ND(idx);
    Seq s;
    s.at = p->off;
    s.nreg = p->has_tail ? p->n - 1 : p->n;
    s.tail = 0;
    if (p->has_tail) s.tail = ND(p->off + p->n - 1)->kind == PN_DOTS ? 1 : 2;
    return s;
}

/* last_depth(Es, LD) where Es is the rest after position i */
static long last_depth(const Seq *s, size_t i, long ld) { return i + 1 < s->nreg ? 0 : ld + 1; }

static long map_value_indent(long tind) { return tind > 0 ? tind : 4; }

static void put_nl_ind(PCtx *c, long ind) {
    ob_putc(c->out, '\n');
    if (ind > 0) ob_pad(c->out, ' ', (size_t)ind);
}

/* The tasks of pp (OTP's functions of those names). PP_TAIL is pp_tail of
 * node idx's elements from position i, then the character ch (the closing
 * bracket; 0 for none); PP_PAIRS is pp_map's loop over pairs from i. */
enum { PP_NODE, PP_WRITE, PP_CHAR, PP_STR, PP_NL, PP_TAIL, PP_PAIRS, PP_FIELDS };

static void pp_push(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w) {
    Task *k = ts_push(&c->ts, PP_NODE);
    k->idx = idx; k->col = col; k->tind = tind; k->ind = ind; k->ld = ld; k->w = w;
}
static void pp_push_char(PCtx *c, int ch) { if (ch) ts_push(&c->ts, PP_CHAR)->ch = (char)ch; }

/* pp_element: pushes the element's layout, returns the width it will take
 * (Ll when it takes several lines). */
static long pp_element(PCtx *c, size_t e, long col, long tind, long ind, long ld, long w) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m && pn_atm(c, e)) {
        ts_push(&c->ts, PP_WRITE)->idx = e;
        return len;
    }
    pp_push(c, e, col, tind, ind, ld, w);
    return c->ll;
}

static void pp_push_tail(PCtx *c, size_t idx, size_t i, long col0, long col, long tind,
                         long ind, long ld, int sep, long w, int close) {
    Task *k = ts_push(&c->ts, PP_TAIL);
    k->idx = idx; k->i = i; k->col0 = col0; k->col = col; k->tind = tind; k->ind = ind;
    k->ld = ld; k->ch = (char)sep; k->w = w; k->d = close;
}

/* pp_list(L, Col0, ...) for node idx's elements from position i, then close. */
static void pp_list(PCtx *c, size_t idx, size_t i, long col0, long tind, long ind,
                    long ld, int sep, long w, int close) {
    Seq s = seq_of(c, idx);
    if (i >= s.nreg) {
        /* the list is {dots,...} (or, impossibly, an improper tail first) */
        pp_push_char(c, close);
        if (s.tail == 1) ob_puts(c->out, "...");
        else if (s.tail == 2) pp_push(c, s.at + s.nreg, col0, tind, ind, ld, w);
        return;
    }
    /* the rest waits below the element; its column and width are known now */
    Task *k = ts_push(&c->ts, PP_TAIL);
    size_t slot = (size_t)(k - c->ts.t);
    long we = pp_element(c, s.at + i, col0, tind, ind, last_depth(&s, i, ld), w);
    k = &c->ts.t[slot];
    k->idx = idx; k->i = i + 1; k->col0 = col0; k->col = col0 + we; k->tind = tind;
    k->ind = ind; k->ld = ld; k->ch = (char)sep; k->w = w + we; k->d = close;
}

/* pp_tail: the elements from k->i that fit go on the line; at the first that
 * does not, a new line, and the rest waits below it. */
static void pp_tail(PCtx *c, Task k) {
    Seq s = seq_of(c, k.idx);
    long col = k.col, w = k.w;
    for (size_t i = k.i; i < s.nreg; i++) {
        size_t e = s.at + i;
        long ld1 = last_depth(&s, i, k.ld);
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm(c, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm(c, e))) {
            ob_putc(c->out, ',');
            pn_write(c, e);
            col += elen;
            w += elen;
        } else {
            ob_putc(c->out, ',');
            put_nl_ind(c, k.ind);
            Task *r = ts_push(&c->ts, PP_TAIL);
            size_t slot = (size_t)(r - c->ts.t);
            long we = pp_element(c, e, k.col0, k.tind, k.ind, ld1, 0);
            r = &c->ts.t[slot];
            *r = k;
            r->i = i + 1; r->col = k.col0 + we; r->w = we;
            return;
        }
    }
    pp_push_char(c, (int)k.d);
    if (s.tail == 1) {
        ob_putc(c->out, k.ch);
        ob_puts(c->out, "...");
    } else if (s.tail == 2) {
        size_t e = s.at + s.nreg;
        long len = ND(e)->len;
        ob_putc(c->out, k.ch);
        if (len + 1 < c->ll - col - (k.ld + 1) && len + 1 + w + (k.ld + 1) <= c->m && pn_atm(c, e)) {
            pn_write(c, e);
        } else {
            put_nl_ind(c, k.ind);
            pp_push(c, e, k.col0, k.tind, k.ind, k.ld + 1, 0);
        }
    }
}

/* pp_pair: pushes the pair's layout, returns the width (Ll when it takes
 * several lines). */
static long pp_pair(PCtx *c, size_t e, long col, long tind, long ind, long ld, long w) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) {
        ts_push(&c->ts, PP_WRITE)->idx = e;
        return pn_atm_pair(c, e) ? len : c->ll;
    }
    size_t kv = ND(e)->off;
    long i = map_value_indent(tind);
    pp_push(c, kv + 1, col + i, tind, ind + i, ld, 0);
    ts_push(&c->ts, PP_NL)->ind = ind + i;
    ts_push(&c->ts, PP_STR)->s = " =>";
    pp_push(c, kv, col, tind, ind, ld, w);
    return c->ll;
}

/* The elements of node k.idx that lay out as "Name = Value" or "K => V"
 * from k.i on, then "}": a map's pairs (pp_pairs_tail, op PP_PAIRS) or a
 * record's fields (pp_fields_tail, op PP_FIELDS; OTP has two functions of
 * the same shape). */
typedef struct Items { size_t at, nreg; int dots, rec; } Items;

static Items items_of(PCtx *c, size_t idx) {
    PNode *p = ND(idx);
    Items it;
    it.rec = p->kind == PN_RECORD;
    if (it.rec) {              /* after the name leaf */
        it.at = p->off + 1;
        it.nreg = p->n - 1 - p->has_tail;
        it.dots = p->has_tail;
    } else {
        Seq s = seq_of(c, idx);
        it.at = s.at; it.nreg = s.nreg; it.dots = s.tail != 0;
    }
    return it;
}

/* ?ATM_FLD / ?ATM_PAIR */
static int item_atm(PCtx *c, const Items *it, size_t e) {
    return it->rec ? pn_atm_fld(c, e) : pn_atm_pair(c, e);
}

static long pp_field(PCtx *c, size_t f, long col, long tind, long ind, long ld, long w);

static void pp_items(PCtx *c, Task k) {
    Items it = items_of(c, k.idx);
    long col = k.col, w = k.w;
    for (size_t i = k.i; i < it.nreg; i++) {
        size_t e = it.at + i;
        long ld1 = i + 1 < it.nreg ? 0 : k.ld + 1;          /* last_depth */
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && item_atm(c, &it, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && item_atm(c, &it, e))) {
            ob_putc(c->out, ',');
            pn_write(c, e);
            col += elen; w += elen;
        } else {
            ob_putc(c->out, ',');
            put_nl_ind(c, k.ind);
            Task *r = ts_push(&c->ts, k.op);
            size_t slot = (size_t)(r - c->ts.t);
            long pw = it.rec ? pp_field(c, e, k.col0, k.tind, k.ind, ld1, 0)
                             : pp_pair(c, e, k.col0, k.tind, k.ind, ld1, 0);
            r = &c->ts.t[slot];
            *r = k;
            r->i = i + 1; r->col = k.col0 + pw; r->w = pw;
            return;
        }
    }
    if (it.dots) ob_puts(c->out, ",...");
    ob_putc(c->out, '}');
}

static void pp_map_node(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w) {
    Seq s = seq_of(c, idx);
    col += 2; ind += 2; w += 1;
    ob_puts(c->out, "#{");
    if (s.nreg == 0) {
        if (s.tail) ob_puts(c->out, "...");
        ob_putc(c->out, '}');
        return;
    }
    Task *r = ts_push(&c->ts, PP_PAIRS);
    size_t slot = (size_t)(r - c->ts.t);
    long pw = pp_pair(c, s.at, col, tind, ind, last_depth(&s, 0, ld), w);
    r = &c->ts.t[slot];
    r->idx = idx; r->i = 1; r->col0 = col; r->col = col + pw; r->w = pw;
    r->tind = tind; r->ind = ind; r->ld = ld;
}

/* rec_indent(RInd, TInd, Col0, Ind0, W0): a record's fields, or a field's
 * value, go RInd to the right, or on a new line TInd in when RInd is more
 * than TInd; returns whether a new line is due. */
static int rec_indent(long rind, long tind, long *col, long *ind, long *w) {
    int nl = tind > 0 && rind > tind;
    long dcol = nl ? tind : rind;
    *col += dcol;
    *ind += dcol;
    if (nl) *w = 0;
    return nl;
}

/* pp_field: writes what comes before the value (the value's layout is
 * pushed), returns the width (Ll when it takes several lines). */
static long pp_field(PCtx *c, size_t f, long col, long tind, long ind, long ld, long w) {
    long len = ND(f)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) {
        ts_push(&c->ts, PP_WRITE)->idx = f;
        return pn_atm_fld(c, f) ? len : c->ll;
    }
    size_t name = ND(f)->off;
    long namel = ND(name)->len + 3;
    w += namel;
    int nl = rec_indent(namel, tind, &col, &ind, &w);
    pn_write_text(c, name);
    ob_puts(c->out, nl ? " =" : " = ");
    if (nl) put_nl_ind(c, ind);
    pp_push(c, name + 1, col, tind, ind, ld, w);
    return c->ll;
}

/* pp of a record: "#name{", pp_record, "}" */
static void pp_record_node(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w) {
    Items it = items_of(c, idx);
    size_t nreg = it.nreg;
    long nlen = ND(it.at - 1)->len;                 /* the name leaf */
    pn_write_text(c, it.at - 1);
    ob_putc(c->out, '{');
    w += nlen + 1;
    if (nreg == 0) {
        if (it.dots) ob_puts(c->out, "...");
        ob_putc(c->out, '}');
        return;
    }
    if (rec_indent(nlen + 1, tind, &col, &ind, &w)) put_nl_ind(c, ind);
    Task *r = ts_push(&c->ts, PP_FIELDS);
    size_t slot = (size_t)(r - c->ts.t);
    long fw = pp_field(c, it.at, col, tind, ind, nreg > 1 ? 0 : ld + 1, w);
    r = &c->ts.t[slot];
    r->idx = idx; r->i = 1; r->col0 = col; r->col = col + fw; r->w = w + fw;
    r->tind = tind; r->ind = ind; r->ld = ld;
}

/* pp(Node, Col, Tind, Ind, LD, W) */
static void pp_node(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w) {
    PNode *p = ND(idx);
    if ((p->len < c->ll - col - ld && p->len + w + ld <= c->m) || p->kind == PN_LEAF ||
        p->kind == PN_DOTS) {
        pn_write(c, idx);
        return;
    }
    if (p->kind == PN_BIN) {                         /* binaries: pp_binary */
        bin_pretty_layout(c->out, c->text.buf + p->off, p->n, col, c->ll, c->m, ind, ld, w);
        return;
    }
    if (p->kind == PN_MAP) { pp_map_node(c, idx, col, tind, ind, ld, w); return; }
    if (p->kind == PN_RECORD) { pp_record_node(c, idx, col, tind, ind, ld, w); return; }
    if (p->kind == PN_LIST) {
        ob_putc(c->out, '[');
        pp_list(c, idx, 0, col + 1, tind, ind + 1, ld, '|', w + 1, ']');
        return;
    }
    ob_putc(c->out, '{');
    Seq s = seq_of(c, idx);
    if (!p->tagged) {
        pp_list(c, idx, 0, col + 1, tind, ind + 1, ld, ',', w + 1, '}');
    } else if (s.nreg == 0) {                         /* pp_tag_tuple on dots */
        ob_puts(c->out, "...}");
    } else {
        /* pp_tag_tuple */
        size_t tag = s.at;
        long tlen = ND(tag)->len;
        long tagind = tlen + 2, tcol = col + tagind;
        w += 1;
        pn_write(c, tag);
        if (tind > 0 && tagind > tind) {
            pp_push_tail(c, idx, 1, col + tind, tcol, tind, ind + tind, ld, ',', w + tlen, '}');
        } else {
            ob_putc(c->out, ',');
            pp_list(c, idx, 1, tcol, tind, ind + tagind, ld, ',', w + tlen + 1, '}');
        }
    }
}

static void pp(PCtx *c, size_t idx, long col, long tind, long ind, long ld, long w) {
    TaskStack *s = &c->ts;
    pp_push(c, idx, col, tind, ind, ld, w);
    while (s->n) {
        Task k = s->t[--s->n];
        switch (k.op) {
        case PP_NODE: pp_node(c, k.idx, k.col, k.tind, k.ind, k.ld, k.w); break;
        case PP_WRITE: pn_write(c, k.idx); break;
        case PP_CHAR: ob_putc(c->out, k.ch); break;
        case PP_STR: ob_puts(c->out, k.s); break;
        case PP_NL: put_nl_ind(c, k.ind); break;
        case PP_TAIL: pp_tail(c, k); break;
        case PP_PAIRS: case PP_FIELDS: pp_items(c, k); break;
        }
    }
}

/* cind: can the layout with tag indentation `ind` be done? Every check
 * must pass, and any failure (no_good) fails the whole, so the tasks are
 * the checks still to make, each with the column and width it will have:
 * C_NODE is cind, C_TAIL cind_tail from position i, C_PAIRS
 * cind_pairs_tail from position i. */
enum { C_NODE, C_TAIL, C_PAIRS, C_FIELDS };

static void c_push(PCtx *c, size_t idx, long col, long ind, long ld, long w) {
    Task *k = ts_push(&c->ts, C_NODE);
    k->idx = idx; k->col = col; k->ind = ind; k->ld = ld; k->w = w;
}
static void c_push_rest(PCtx *c, int op, size_t idx, size_t i, long col0, long col, long ind,
                        long ld, long w) {
    Task *k = ts_push(&c->ts, op);
    k->idx = idx; k->i = i; k->col0 = col0; k->col = col; k->ind = ind; k->ld = ld; k->w = w;
}

/* cind_element: pushes the check, returns the width it leaves */
static long cind_element(PCtx *c, size_t e, long col, long ind, long ld, long w) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m && pn_atm(c, e)) return len;
    c_push(c, e, col, ind, ld, w);
    return c->ll;
}

static void cind_list(PCtx *c, size_t idx, size_t i, long col0, long ind, long ld, long w) {
    Seq s = seq_of(c, idx);
    if (i >= s.nreg) {
        if (s.tail == 2) c_push(c, s.at + s.nreg, col0, ind, ld, w);
        return;
    }
    Task *r = ts_push(&c->ts, C_TAIL);
    size_t slot = (size_t)(r - c->ts.t);
    long we = cind_element(c, s.at + i, col0, ind, last_depth(&s, i, ld), w);
    r = &c->ts.t[slot];
    r->idx = idx; r->i = i + 1; r->col0 = col0; r->col = col0 + we; r->ind = ind;
    r->ld = ld; r->w = w + we;
}

static int cind_tail(PCtx *c, Task k) {
    Seq s = seq_of(c, k.idx);
    long col = k.col, w = k.w;
    for (size_t i = k.i; i < s.nreg; i++) {
        size_t e = s.at + i;
        long ld1 = last_depth(&s, i, k.ld);
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && pn_atm(c, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && pn_atm(c, e))) {
            col += elen;
            w += elen;
        } else {
            Task *r = ts_push(&c->ts, C_TAIL);
            size_t slot = (size_t)(r - c->ts.t);
            long we = cind_element(c, e, k.col0, k.ind, ld1, 0);
            r = &c->ts.t[slot];
            *r = k;
            r->i = i + 1; r->col = k.col0 + we; r->w = we;
            return 1;
        }
    }
    if (s.tail == 2) {
        size_t e = s.at + s.nreg;
        long len = ND(e)->len;
        if (len + 1 < c->ll - col - (k.ld + 1) && len + 1 + w + (k.ld + 1) <= c->m && pn_atm(c, e))
            return 1;
        c_push(c, e, col, k.ind, k.ld + 1, 0);
    }
    return 1;
}

/* cind_pair: pushes the checks, returns the width (0 never: no_good comes
 * from the pushed checks) */
static long cind_pair(PCtx *c, size_t e, long col, long ind, long ld, long w) {
    long len = ND(e)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) return pn_atm_pair(c, e) ? len : c->ll;
    size_t kv = ND(e)->off;
    c_push(c, kv + 1, col + map_value_indent(ind), ind, ld, 0);
    c_push(c, kv, col, ind, ld, w);
    return c->ll;
}

/* cind_rec(RInd, Col0, Ind, W0): the column and width of a record's fields
 * or a field's value; 0 (no_good) when that indentation is past half the
 * line and M characters do not fit after it. */
static int cind_rec(PCtx *c, long rind, long ind, long *col, long *w) {
    long unused = 0;                   /* the check needs no indentation */
    rec_indent(rind, ind, col, &unused, w);
    return c->m + *col <= c->ll || *col <= c->ll / 2;
}

/* cind_field: the width, or -1 for no_good; the value's check is pushed */
static long cind_field(PCtx *c, size_t f, long col, long ind, long ld, long w) {
    long len = ND(f)->len;
    if (len < c->ll - col - ld && len + w + ld <= c->m) return pn_atm_fld(c, f) ? len : c->ll;
    size_t name = ND(f)->off;
    long namel = ND(name)->len + 3;
    w += namel;
    if (!cind_rec(c, namel, ind, &col, &w)) return -1;
    c_push(c, name + 1, col, ind, ld, w);
    return c->ll;
}

/* cind_pairs_tail (op C_PAIRS) or cind_fields_tail (C_FIELDS) from k.i;
 * 0 when no_good. After an item on a line of its own, pairs go on from
 * Col0 + width and fields from Col + width: kept as OTP has them. */
static int cind_items(PCtx *c, Task k) {
    Items it = items_of(c, k.idx);
    long col = k.col, w = k.w;
    for (size_t i = k.i; i < it.nreg; i++) {
        size_t e = it.at + i;
        long ld1 = i + 1 < it.nreg ? 0 : k.ld + 1;
        long elen = 1 + ND(e)->len;
        if ((ld1 == 0 && elen + 1 < c->ll - col && w + elen + 1 <= c->m && item_atm(c, &it, e)) ||
            (ld1 > 0 && elen < c->ll - col - ld1 && w + elen + ld1 <= c->m && item_atm(c, &it, e))) {
            col += elen; w += elen;
        } else {
            Task *r = ts_push(&c->ts, k.op);
            size_t slot = (size_t)(r - c->ts.t);
            long iw = it.rec ? cind_field(c, e, k.col0, k.ind, ld1, 0)
                             : cind_pair(c, e, k.col0, k.ind, ld1, 0);
            if (iw < 0) return 0;
            r = &c->ts.t[slot];
            *r = k;
            r->i = i + 1; r->col = (it.rec ? col : k.col0) + iw; r->w = iw;
            return 1;
        }
    }
    return 1;
}

/* cind(Node, Col, Ind, LD, W) for one node: 0 when no_good right here,
 * else 1 with the checks of its parts pushed. */
static int cind_node(PCtx *c, size_t idx, long col, long ind, long ld, long w) {
    PNode *p = ND(idx);
    if (p->len < c->ll - col - ld && p->len + w + ld <= c->m) return 1;
    if (p->kind == PN_LEAF || p->kind == PN_DOTS || p->kind == PN_BIN) return 1;
    if (p->kind == PN_RECORD) {                               /* cind_record */
        Items it = items_of(c, idx);
        if (it.nreg == 0) return 1;
        long nlen = ND(it.at - 1)->len;                       /* the name leaf */
        w += nlen + 1;
        if (!cind_rec(c, nlen + 1, ind, &col, &w)) return 0;
        Task *r = ts_push(&c->ts, C_FIELDS);
        size_t slot = (size_t)(r - c->ts.t);
        long fw = cind_field(c, it.at, col, ind, it.nreg > 1 ? 0 : ld + 1, w);
        if (fw < 0) return 0;
        r = &c->ts.t[slot];
        r->idx = idx; r->i = 1; r->col0 = col; r->col = col + fw; r->ind = ind;
        r->ld = ld; r->w = w + fw;
        return 1;
    }
    Seq s = seq_of(c, idx);
    if (p->kind == PN_MAP) {                                  /* cind_map */
        col += 2; w += 2;
        if (s.nreg == 0) return 1;
        Task *r = ts_push(&c->ts, C_PAIRS);
        size_t slot = (size_t)(r - c->ts.t);
        long pw = cind_pair(c, s.at, col, ind, last_depth(&s, 0, ld), w);
        r = &c->ts.t[slot];
        r->idx = idx; r->i = 1; r->col0 = col; r->col = col + pw; r->ind = ind;
        r->ld = ld; r->w = w + pw;
        return 1;
    }
    if (p->kind == PN_LIST || !p->tagged) {
        cind_list(c, idx, 0, col + 1, ind, ld, w + 1);
        return 1;
    }
    /* cind_tag_tuple */
    if (s.nreg == 0) return 1;
    w += 1;
    long tlen = ND(s.at)->len;
    long tagind = tlen + 2, tcol = col + tagind;
    if (ind > 0 && tagind > ind) {
        long col1 = col + ind;
        if (c->m + col1 <= c->ll || col1 <= c->ll / 2) {
            c_push_rest(c, C_TAIL, idx, 1, col1, tcol, ind, ld, w + tlen);
            return 1;
        }
        return 0;
    }
    if (c->m + tcol < c->ll || tcol < c->ll / 2) {
        cind_list(c, idx, 1, tcol, ind, ld, w + tlen + 1);
        return 1;
    }
    return 0;
}

static int cind(PCtx *c, size_t idx, long col, long ind, long ld, long w) {
    TaskStack *s = &c->ts;
    size_t base = s->n;
    c_push(c, idx, col, ind, ld, w);
    int ok = 1;
    while (ok && s->n > base) {
        Task k = s->t[--s->n];
        switch (k.op) {
        case C_NODE: ok = cind_node(c, k.idx, k.col, k.ind, k.ld, k.w); break;
        case C_TAIL: ok = cind_tail(c, k); break;
        case C_PAIRS: case C_FIELDS: ok = cind_items(c, k); break;
        }
    }
    s->n = base;
    return ok;
}

void print_pretty(OutBuf *b, Term t, long col, long ll, long depth, int strings) {
    print_pretty_max(b, t, col, ll, depth, strings, -1, NIL);
}

void print_pretty_max(OutBuf *b, Term t, long col_, long ll, long depth, int strings,
                      long max_chars, Term recs) {
    if (depth == 0) { ob_puts(b, "..."); return; }
    volatile long col = col_ <= 0 ? 1 : col_;   /* (read after the setjmp) */
    if (!is_list(t) && !is_tuple(t) && !is_bitstring(t) && !is_map_term(t)) { put_atomic(b, t); return; }
    PCtx c;
    memset(&c, 0, sizeof c);
    ob_init(&c.text);
    c.text.soft = b->soft;
    ts_init(&c.ts);
    /* Into a soft buffer (an error report, io:format), a term whose layout
     * the memory left cannot hold fails the buffer instead of the VM: the
     * walks hold all they own in c, so a jump back here frees it all. */
    jmp_buf oom;
    if (b->soft) {
        if (setjmp(oom)) {
            ts_free(&c.ts);
            map_order_cache_free(c.orders);
            ob_free(&c.text);
            free(c.nodes);
            ob_refused(b, 0);
            return;
        }
        c.ts.oom = &oom;
    }
    c.out = b;
    c.recs = recs;
    c.ll = ll;
    c.strings = strings;
    size_t root = pn_reserve(&c, 1);
    pn_build(&c, root, t, depth);
    if (c.text.failed) longjmp(oom, 1);      /* (only soft buffers fail) */
    long len = c.nodes[root].len;
    c.m = max_chars < 0 ? len : max_chars;                /* OTP's max_cs */
    if (ll == 0 || (len < ll - col && len <= c.m)) {
        pn_write(&c, root);
    } else {
        long tind = 1;
        if (cind(&c, root, col, -1, 0, 0)) tind = -1;
        else if (cind(&c, root, col, 4, 0, 0)) tind = 4;
        pp(&c, root, col, tind, col - 1, 0, 0);
    }
    ts_free(&c.ts);
    map_order_cache_free(c.orders);
    ob_free(&c.text);
    free(c.nodes);
}

void print_term(OutBuf *b, Term t, int mode) {
    if (mode == PRINT_PRINT) print_pretty(b, t, 1, 80, -1, 1);
    else write_term(b, t, -1, 0);
}
