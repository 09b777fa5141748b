/* etf.c — term_to_binary/1 and binary_to_term/1: Erlang's external term
 * format (version 131), producing exactly the bytes OTP 25 produces for the
 * same term, so data round-trips with Erlang/OTP.
 *
 * Encoding (what OTP 25 picks): SMALL_INTEGER_EXT for 0..255, INTEGER_EXT
 * for 32-bit values, SMALL_BIG_EXT / LARGE_BIG_EXT beyond; NEW_FLOAT_EXT;
 * ATOM_EXT when every character is Latin-1, else SMALL_ATOM_UTF8_EXT /
 * ATOM_UTF8_EXT; SMALL_TUPLE_EXT / LARGE_TUPLE_EXT; NIL_EXT; STRING_EXT for
 * proper lists of bytes up to 65535 long, else LIST_EXT; BINARY_EXT, and
 * BIT_BINARY_EXT for bitstrings (unused bits of the last byte 0); MAP_EXT
 * (pairs in OTP's order, map.h: maps:to_list's); NEW_PID_EXT,
 * NEW_PORT_EXT and NEWER_REFERENCE_EXT with this node's name and creation
 * (nonode@nohost and 0 when not alive; vm/dist/dist.h), and the same forms
 * with the node and creation of another node's pid, port or reference;
 * EXPORT_EXT for fun M:F/A. Local funs cannot be encoded (badarg).
 *
 * Decoding also accepts the older forms (ATOM_EXT, SMALL_ATOM_EXT,
 * FLOAT_EXT, PID_EXT, NEW_REFERENCE_EXT).
 * Any malformed input — truncated, unknown tags, bad lengths, invalid
 * UTF-8 — is badarg (bytes after a complete term are ignored, as OTP does), never a crash: every read is bounds
 * checked and nothing recurses in C (an explicit stack of slots to fill), so
 * deep nesting costs heap, not C stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "atom.h"
#include "arith.h"
#include "binary.h"
#include "proc.h"
#include "module.h"
#include "map.h"
#include "term_build.h"
#include "etf.h"
#include "dist/dist.h"

enum {
    NEW_FLOAT_EXT = 70, BIT_BINARY_EXT = 77, NEW_PID_EXT = 88, NEW_PORT_EXT = 89,
    NEWER_REFERENCE_EXT = 90, SMALL_INTEGER_EXT = 97, INTEGER_EXT = 98, FLOAT_EXT = 99,
    ATOM_EXT = 100, PORT_EXT = 102, PID_EXT = 103, SMALL_TUPLE_EXT = 104,
    LARGE_TUPLE_EXT = 105, NIL_EXT = 106, STRING_EXT = 107, LIST_EXT = 108, BINARY_EXT = 109,
    SMALL_BIG_EXT = 110, LARGE_BIG_EXT = 111, EXPORT_EXT = 113, NEW_REFERENCE_EXT = 114,
    SMALL_ATOM_EXT = 115, MAP_EXT = 116, ATOM_UTF8_EXT = 118, SMALL_ATOM_UTF8_EXT = 119,
    V4_PORT_EXT = 120
};

/* ---- encoding -------------------------------------------------------------- */

static void put8(OutBuf *b, unsigned v) { ob_putc(b, (int)(v & 0xFF)); }
static void put16(OutBuf *b, unsigned v) { put8(b, v >> 8); put8(b, v); }
static void put32(OutBuf *b, uint32_t v) { put16(b, v >> 16); put16(b, v & 0xFFFF); }

/* An atom's characters (see bif_binary.c's atom_bytes: below 256 stored
 * as one byte, others as UTF-8). */
static size_t atom_codes(Term a, UWord *codes)
{
    size_t n, k = 0;
    const unsigned char *s = (const unsigned char *)atom_name(a, &n);
    for (size_t i = 0; i < n;) codes[k++] = atom_text_char(s, n, &i);
    return k;
}

static void put_atom(OutBuf *b, Term a)
{
    UWord codes[4 * MAX_ATOM_LENGTH + 4];
    size_t n = atom_codes(a, codes);
    int latin1 = 1;
    for (size_t i = 0; i < n; i++) if (codes[i] > 255) latin1 = 0;
    if (latin1) {
        put8(b, ATOM_EXT); put16(b, (unsigned)n);
        for (size_t i = 0; i < n; i++) put8(b, (unsigned)codes[i]);
        return;
    }
    OutBuf u;
    ob_init(&u);
    for (size_t i = 0; i < n; i++) {
        UWord c = codes[i];
        if (c < 0x80) ob_putc(&u, (int)c);
        else if (c < 0x800) { ob_putc(&u, (int)(0xC0 | (c >> 6))); ob_putc(&u, (int)(0x80 | (c & 0x3F))); }
        else if (c < 0x10000) { ob_putc(&u, (int)(0xE0 | (c >> 12))); ob_putc(&u, (int)(0x80 | ((c >> 6) & 0x3F))); ob_putc(&u, (int)(0x80 | (c & 0x3F))); }
        else { ob_putc(&u, (int)(0xF0 | (c >> 18))); ob_putc(&u, (int)(0x80 | ((c >> 12) & 0x3F))); ob_putc(&u, (int)(0x80 | ((c >> 6) & 0x3F))); ob_putc(&u, (int)(0x80 | (c & 0x3F))); }
    }
    if (u.len <= 255) { put8(b, SMALL_ATOM_UTF8_EXT); put8(b, (unsigned)u.len); }
    else { put8(b, ATOM_UTF8_EXT); put16(b, (unsigned)u.len); }
    ob_write(b, u.buf, u.len);
    ob_free(&u);
}

static void put_integer(OutBuf *b, Term t)
{
    if (is_small(t)) {
        SWord v = small_val(t);
        if (v >= 0 && v <= 255) { put8(b, SMALL_INTEGER_EXT); put8(b, (unsigned)v); return; }
        if (v >= INT32_MIN && v <= INT32_MAX) { put8(b, INTEGER_EXT); put32(b, (uint32_t)(int32_t)v); return; }
        uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        unsigned n = 0;
        for (uint64_t x = m; x; x >>= 8) n++;
        put8(b, SMALL_BIG_EXT); put8(b, n); put8(b, v < 0);
        for (unsigned i = 0; i < n; i++) put8(b, (unsigned)(m >> (8 * i)));
        return;
    }
    const uint64_t *d = big_digits(t);
    size_t nd = big_size(t), n = nd * 8;
    while (n > 0 && ((d[(n - 1) / 8] >> (8 * ((n - 1) % 8))) & 0xFF) == 0) n--;
    if (n <= 255) { put8(b, SMALL_BIG_EXT); put8(b, (unsigned)n); }
    else { put8(b, LARGE_BIG_EXT); put32(b, (uint32_t)n); }
    put8(b, big_is_neg(t));
    for (size_t i = 0; i < n; i++) put8(b, (unsigned)(d[i / 8] >> (8 * (i % 8))));
}

/* A pid, port or ref with its node: this node's or another's (DistId). */
static void put_with_node(OutBuf *b, Term t)
{
    DistId id;
    dist_id_of(t, &id);
    if (is_any_pid(t)) {
        put8(b, NEW_PID_EXT); put_atom(b, id.node);
        put32(b, (uint32_t)id.ids[0]); put32(b, (uint32_t)id.ids[1]);
    } else if (is_any_port(t)) {
        if (id.ids[0] > 0xFFFFFFFFu) { put8(b, V4_PORT_EXT); put_atom(b, id.node); put32(b, (uint32_t)(id.ids[0] >> 32)); }
        else { put8(b, NEW_PORT_EXT); put_atom(b, id.node); }
        put32(b, (uint32_t)id.ids[0]);
    } else {
        put8(b, NEWER_REFERENCE_EXT); put16(b, (unsigned)id.n); put_atom(b, id.node);
        put32(b, id.creation);
        for (size_t i = 0; i < id.n; i++) put32(b, (uint32_t)id.ids[i]);
        return;
    }
    put32(b, id.creation);
}

/* A proper list of at most 65535 integers 0..255? Then its length. */
static long string_length(Term t)
{
    long n = 0;
    for (; is_list(t); t = list_tail(t)) {
        Term h = list_head(t);
        if (!is_small(h) || small_val(h) < 0 || small_val(h) > 255 || ++n > 65535) return -1;
    }
    return is_nil(t) ? n : -1;
}

/* Encodes t; 0 if it holds something that has no external form. */
static int encode(OutBuf *b, Term t)
{
    size_t sp = 0, cap = 64;
    Term *stack = malloc(cap * sizeof *stack);
    MapOrderCache *orders = NULL;          /* big maps' orders, for the whole term */
    int ok = stack != NULL;
    if (!ok) return 0;
#define PUSH(x) do {                                                              \
        if (sp == cap) {                                                          \
            Term *ns_ = realloc(stack, 2 * cap * sizeof *ns_);                    \
            if (!ns_) { ok = 0; goto out; }                                       \
            stack = ns_; cap *= 2;                                                \
        }                                                                         \
        stack[sp++] = (x);                                                        \
    } while (0)
    PUSH(t);
    while (sp > 0) {
        t = stack[--sp];
        if (is_small(t) || is_big(t)) { put_integer(b, t); continue; }
        if (is_atom(t)) { put_atom(b, t); continue; }
        if (is_nil(t)) { put8(b, NIL_EXT); continue; }
        if (is_pid(t) || is_port(t) || is_external(t) || is_ref(t)) { put_with_node(b, t); continue; }
        if (is_list(t)) {
            long sl = string_length(t);
            if (sl >= 0) {
                put8(b, STRING_EXT); put16(b, (unsigned)sl);
                for (; is_list(t); t = list_tail(t)) put8(b, (unsigned)small_val(list_head(t)));
                continue;
            }
            size_t n = 0;
            Term l = t;
            for (; is_list(l); l = list_tail(l)) n++;
            put8(b, LIST_EXT); put32(b, (uint32_t)n);
            /* the elements go in order, then the tail: push them reversed */
            PUSH(l);
            size_t base = sp;
            for (Term q = t; is_list(q); q = list_tail(q)) PUSH(list_head(q));
            for (size_t i = base, j = sp - 1; i < j; i++, j--) { Term x = stack[i]; stack[i] = stack[j]; stack[j] = x; }
            continue;
        }
        if (is_bitstring(t)) {
            size_t n, r = bin_bit_size(t) % 8;
            const unsigned char *s = bin_bytes(t, &n);
            if (r) {                       /* a bitstring: the unused bits are 0 */
                put8(b, BIT_BINARY_EXT); put32(b, (uint32_t)(n + 1)); put8(b, (unsigned)r);
            } else {
                put8(b, BINARY_EXT); put32(b, (uint32_t)n);
            }
            ob_write(b, (const char *)s, n);
            if (r) put8(b, s[n] & (0xFF << (8 - r)));
            continue;
        }
        if (is_tuple(t)) {
            UWord n = tuple_arity(t);
            if (n <= 255) { put8(b, SMALL_TUPLE_EXT); put8(b, (unsigned)n); }
            else { put8(b, LARGE_TUPLE_EXT); put32(b, (uint32_t)n); }
            for (UWord i = n; i > 0; i--) PUSH(tuple_elems(t)[i - 1]);
            continue;
        }
        if (is_float(t)) {
            double d = float_val(t);
            uint64_t u;
            memcpy(&u, &d, 8);
            put8(b, NEW_FLOAT_EXT);
            put32(b, (uint32_t)(u >> 32)); put32(b, (uint32_t)u);
            continue;
        }
        if (is_boxed(t) && boxed_kind(t) == BOXED_EXPORT) {
            const Export *e = (const Export *)boxed_ptr(t)[1];
            put8(b, EXPORT_EXT); put_atom(b, e->module); put_atom(b, e->name);
            put8(b, SMALL_INTEGER_EXT); put8(b, (unsigned)e->arity);
            continue;
        }
        if (is_map_term(t)) {
            UWord n = map_size(t);
            MapView v;
            map_view(t, &v);
            uint32_t *order = map_walk_order_cached(t, MAP_WALK_LIST, &orders);
            put8(b, MAP_EXT); put32(b, (uint32_t)n);
            for (UWord i = n; i > 0; i--) {
                UWord j = map_walk_at(order, i - 1);
                PUSH(v.vals[j]); PUSH(v.keys[j]);
            }
            free(order);
            map_view_free(&v);
            continue;
        }
        ok = 0;                                   /* local funs */
        break;
    }
out:
#undef PUSH
    free(stack);
    map_order_cache_free(orders);
    return ok;
}

int etf_encode(OutBuf *b, Term t) { return encode(b, t); }

Term bif_term_to_binary_1(Process *p, Term *args)
{
    OutBuf b;
    ob_init_soft(&b);
    put8(&b, 131);
    if (!encode(&b, args[0])) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    Term r = bin_from_bytes(p, b.buf, b.len);
    p->reds -= (SWord)(b.len / 64);
    ob_free(&b);
    if (r == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return r;
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct Dec {
    Process *p;
    const unsigned char *s;
    size_t n, i;
    int safe;                  /* binary_to_term(B, [safe]): no new atoms */
} Dec;

static int need(Dec *d, size_t k) { return d->n - d->i >= k; }
static unsigned get8(Dec *d) { return d->s[d->i++]; }
static unsigned get16(Dec *d) { unsigned v = (unsigned)d->s[d->i] << 8 | d->s[d->i + 1]; d->i += 2; return v; }
static uint32_t get32(Dec *d)
{
    uint32_t v = (uint32_t)d->s[d->i] << 24 | (uint32_t)d->s[d->i + 1] << 16 |
                 (uint32_t)d->s[d->i + 2] << 8 | d->s[d->i + 3];
    d->i += 4;
    return v;
}

/* An atom from n bytes in Latin-1 or UTF-8; THE_NON_VALUE if invalid, or
 * if it does not exist yet and `safe` is set. */
static Term make_atom_from(const unsigned char *s, size_t n, int utf8, int safe)
{
    char buf[4 * MAX_ATOM_LENGTH + 4];
    size_t k = 0, chars = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        UWord v = c;
        size_t len = 1;
        if (utf8 && c >= 0x80) {
            len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            if (!len || i + len > n) return THE_NON_VALUE;
            v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
            for (size_t j = 1; j < len; j++) {
                if ((s[i + j] & 0xC0) != 0x80) return THE_NON_VALUE;
                v = (v << 6) | (s[i + j] & 0x3F);
            }
            static const UWord min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
            if (v < min_of[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return THE_NON_VALUE;
        }
        if (++chars > MAX_ATOM_LENGTH) return THE_NON_VALUE;
        if (v < 0x80) buf[k++] = (char)v;            /* atom text is UTF-8 (atom.h) */
        else if (!utf8) { buf[k++] = (char)(0xC0 | (v >> 6)); buf[k++] = (char)(0x80 | (v & 0x3F)); }
        else { memcpy(buf + k, s + i, len); k += len; }
        i += len;
    }
    return safe ? atom_lookup(buf, k) : atom_intern(buf, k);
}

/* Reads an atom (any atom tag) at the cursor; THE_NON_VALUE if not one. */
static Term get_atom(Dec *d)
{
    if (!need(d, 1)) return THE_NON_VALUE;
    unsigned tag = get8(d);
    size_t len;
    int utf8;
    switch (tag) {
    case ATOM_EXT: case ATOM_UTF8_EXT:
        if (!need(d, 2)) return THE_NON_VALUE;
        len = get16(d); utf8 = tag == ATOM_UTF8_EXT;
        break;
    case SMALL_ATOM_EXT: case SMALL_ATOM_UTF8_EXT:
        if (!need(d, 1)) return THE_NON_VALUE;
        len = get8(d); utf8 = tag == SMALL_ATOM_UTF8_EXT;
        break;
    default:
        return THE_NON_VALUE;
    }
    if (!need(d, len)) return THE_NON_VALUE;
    Term a = make_atom_from(d->s + d->i, len, utf8, d->safe);
    d->i += len;
    return a;
}

static Term get_big(Dec *d, size_t n)
{
    if (!need(d, 1 + n)) return THE_NON_VALUE;
    int neg = get8(d) != 0;                      /* OTP: any non-zero sign */
    if (n > ARITH_MAX_BIG_DIGITS * 8) return THE_NON_VALUE;
    size_t nd = (n + 7) / 8;
    uint64_t *dg = calloc(nd + 1, sizeof *dg);
    if (!dg) return THE_NON_VALUE;
    for (size_t k = 0; k < n; k++) dg[k / 8] |= (uint64_t)d->s[d->i + k] << (8 * (k % 8));
    d->i += n;
    Term r = make_big_from_digits(d->p, neg, dg, nd);
    free(dg);
    return r;
}

/* The work stack: a slot to fill with the next term, or a map to build
 * once its 2N slots (in a scratch tuple) are filled. */
typedef struct Work { Term *slot; Term *kv; size_t npairs; } Work;

/* binary_to_term/1,2: the term, and in *used the bytes it took */
static Term decode_bytes(Process *p, const unsigned char *s, size_t n, int safe, size_t *used);

static Term decode(Process *p, Term src, int safe, size_t *used)
{
    if (!is_binary(src)) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(src, &n);
    return decode_bytes(p, s, n, safe, used);
}

Term etf_decode(Process *p, const unsigned char *s, size_t n, size_t *used)
{
    return decode_bytes(p, s, n, 0, used);
}

/* A pid, port or ref read from the wire: this node's (same name and
 * creation, or nonode@nohost with creation 0 when not alive) becomes the
 * local immediate or ref; another node's a BOXED_EXTERNAL. */
static Term make_with_node(Process *p, int kind, Term node, uint32_t creation, const UWord *ids, size_t n)
{
    if (dist_is_this(node, creation)) {
        if (kind == EXT_PID) return make_pid((ids[1] << 28) | ids[0]);   /* dist_id_of's split */
        if (kind == EXT_PORT) return make_port(ids[0]);
        uint64_t r = ids[0] | (n > 1 ? (uint64_t)ids[1] << 32 : 0);
        return make_ref_at(heap_alloc(p, REF_WORDS), r);
    }
    return make_external_at(heap_alloc(p, 3 + n), kind, node, creation, ids, n);
}

static Term decode_bytes(Process *p, const unsigned char *s, size_t n, int safe, size_t *used)
{
    Dec d;
    d.p = p;
    d.s = s;
    d.n = n;
    d.i = 0;
    d.safe = safe;
    if (!need(&d, 1) || get8(&d) != 131) BIF_ERROR(p, AM_badarg);
    Term result = NIL;
    size_t sp = 0, cap = 64;
    Work *st = malloc(cap * sizeof *st);
    if (!st) BIF_ERROR(p, ATOM_TERM(system_limit));
    st[sp++] = (Work){ &result, NULL, 0 };
    int ok = 1;
#define PUSHW(w) do {                                                            \
        if (sp == cap) {                                                         \
            Work *nw_ = realloc(st, 2 * cap * sizeof *nw_);                      \
            if (!nw_) { bif_out_of_memory(p); ok = 0; goto done; }               \
            st = nw_; cap *= 2;                                                  \
        }                                                                        \
        st[sp++] = (w);                                                          \
    } while (0)
#define BAD() do { ok = 0; goto done; } while (0)
    while (sp > 0) {
        Work w = st[--sp];
        if (w.kv) {                                /* build a map */
            Term missing;
            Term m = map_put_pairs(p, lit_map_empty(), w.kv, w.npairs, 0, &missing);
            if (m == THE_NON_VALUE || map_size(m) != w.npairs) BAD();   /* no duplicate keys */
            *w.slot = m;
            continue;
        }
        if (!need(&d, 1)) BAD();
        unsigned tag = d.s[d.i];
        Term *slot = w.slot;
        switch (tag) {
        case SMALL_INTEGER_EXT:
            if (!need(&d, 2)) BAD();
            d.i++;
            *slot = make_small(get8(&d));
            break;
        case INTEGER_EXT:
            if (!need(&d, 5)) BAD();
            d.i++;
            *slot = make_small((int32_t)get32(&d));
            break;
        case SMALL_BIG_EXT: case LARGE_BIG_EXT: {
            size_t hdr = tag == SMALL_BIG_EXT ? 2 : 5;
            if (!need(&d, hdr)) BAD();
            d.i++;
            size_t n = tag == SMALL_BIG_EXT ? get8(&d) : get32(&d);
            Term r = get_big(&d, n);
            if (r == THE_NON_VALUE) BAD();
            *slot = r;
            break;
        }
        case NEW_FLOAT_EXT: {
            if (!need(&d, 9)) BAD();
            d.i++;
            uint64_t u = (uint64_t)get32(&d) << 32;
            u |= get32(&d);
            double f;
            memcpy(&f, &u, 8);
            if (!isfinite(f)) BAD();
            *slot = make_float(p, f);
            break;
        }
        case FLOAT_EXT: {
            if (!need(&d, 32)) BAD();
            char buf[32];
            memcpy(buf, d.s + d.i + 1, 31);
            buf[31] = 0;
            d.i += 32;
            char *end;
            double f = strtod(buf, &end);
            if (end == buf || !isfinite(f)) BAD();
            *slot = make_float(p, f);
            break;
        }
        case ATOM_EXT: case ATOM_UTF8_EXT: case SMALL_ATOM_EXT: case SMALL_ATOM_UTF8_EXT: {
            Term a = get_atom(&d);
            if (a == THE_NON_VALUE) BAD();
            *slot = a;
            break;
        }
        case SMALL_TUPLE_EXT: case LARGE_TUPLE_EXT: {
            size_t hdr = tag == SMALL_TUPLE_EXT ? 2 : 5;
            if (!need(&d, hdr)) BAD();
            d.i++;
            size_t n = tag == SMALL_TUPLE_EXT ? get8(&d) : get32(&d);
            if (n > d.n - d.i) BAD();              /* each element takes a byte at least */
            Term *hp = heap_alloc_try(p, n + 1);
            if (!hp) BAD();
            hp[0] = make_tuple_header(n);
            for (size_t k = 1; k <= n; k++) hp[k] = NIL;
            *slot = make_boxed(hp);
            for (size_t k = n; k >= 1; k--) PUSHW(((Work){ hp + k, NULL, 0 }));
            break;
        }
        case NIL_EXT:
            d.i++;
            *slot = NIL;
            break;
        case STRING_EXT: {
            if (!need(&d, 3)) BAD();
            d.i++;
            size_t n = get16(&d);
            if (!need(&d, n)) BAD();
            Term l = NIL;
            if (n) {
                Term *hp = heap_alloc_try(p, 2 * n);
                if (!hp) BAD();
                for (size_t k = 0; k < n; k++) {
                    hp[2 * k] = make_small(d.s[d.i + k]);
                    hp[2 * k + 1] = k + 1 < n ? make_list(hp + 2 * k + 2) : NIL;
                }
                l = make_list(hp);
            }
            d.i += n;
            *slot = l;
            break;
        }
        case LIST_EXT: {
            if (!need(&d, 5)) BAD();
            d.i++;
            size_t n = get32(&d);
            if (n == 0 || n > d.n - d.i) BAD();
            Term *hp = heap_alloc_try(p, 2 * n);
            if (!hp) BAD();
            for (size_t k = 0; k < n; k++) {
                hp[2 * k] = NIL;
                hp[2 * k + 1] = k + 1 < n ? make_list(hp + 2 * k + 2) : NIL;
            }
            *slot = make_list(hp);
            PUSHW(((Work){ hp + 2 * n - 1, NULL, 0 }));       /* the tail, last */
            for (size_t k = n; k >= 1; k--) PUSHW(((Work){ hp + 2 * (k - 1), NULL, 0 }));
            break;
        }
        case BINARY_EXT: case BIT_BINARY_EXT: {
            size_t hdr = tag == BINARY_EXT ? 5 : 6;
            if (!need(&d, hdr)) BAD();
            d.i++;
            size_t n = get32(&d), bits = 8 * n;
            if (tag == BIT_BINARY_EXT) {   /* bits used in the last byte: 1..8 (0 if empty) */
                unsigned last = get8(&d);
                if ((last == 0) != (n == 0) || last > 8) BAD();
                if (n) bits -= 8 - last;
            }
            if (!need(&d, n)) BAD();
            unsigned char *bytes;
            Term bin = bits_new(p, bits, &bytes);
            if (bin == THE_NON_VALUE) BAD();
            if (n) memcpy(bytes, d.s + d.i, n);
            d.i += n;
            *slot = bin;
            break;
        }
        case MAP_EXT: {
            if (!need(&d, 5)) BAD();
            d.i++;
            size_t n = get32(&d);
            if (n > (d.n - d.i) / 2) BAD();
            Term *kv = heap_alloc_try(p, 2 * n + 1);
            if (!kv) BAD();
            kv[0] = make_tuple_header(2 * n);                 /* a scratch tuple */
            for (size_t k = 1; k <= 2 * n; k++) kv[k] = NIL;
            PUSHW(((Work){ slot, kv + 1, n }));
            for (size_t k = 2 * n; k >= 1; k--) PUSHW(((Work){ kv + k, NULL, 0 }));
            break;
        }
        case NEW_PID_EXT: case PID_EXT: {
            d.i++;
            Term node = get_atom(&d);
            size_t rest = tag == NEW_PID_EXT ? 12 : 9;
            if (node == THE_NON_VALUE || !need(&d, rest)) BAD();
            UWord ids[2];
            ids[0] = get32(&d);
            ids[1] = get32(&d);
            uint32_t cr = tag == NEW_PID_EXT ? get32(&d) : get8(&d);
            *slot = make_with_node(p, EXT_PID, node, cr, ids, 2);
            break;
        }
        case NEW_PORT_EXT: case PORT_EXT: case V4_PORT_EXT: {
            d.i++;
            Term node = get_atom(&d);
            size_t rest = tag == NEW_PORT_EXT ? 8 : tag == PORT_EXT ? 5 : 12;
            if (node == THE_NON_VALUE || !need(&d, rest)) BAD();
            UWord id = tag == V4_PORT_EXT ? ((uint64_t)get32(&d) << 32 | get32(&d)) : get32(&d);
            uint32_t cr = tag == PORT_EXT ? get8(&d) : get32(&d);
            *slot = make_with_node(p, EXT_PORT, node, cr, &id, 1);
            break;
        }
        case NEWER_REFERENCE_EXT: case NEW_REFERENCE_EXT: {
            if (!need(&d, 3)) BAD();
            d.i++;
            size_t len = get16(&d);
            Term node = get_atom(&d);
            size_t cr = tag == NEWER_REFERENCE_EXT ? 4 : 1;
            if (node == THE_NON_VALUE || len < 1 || len > EXT_MAX_IDS || !need(&d, cr + 4 * len)) BAD();
            uint32_t creation = cr == 4 ? get32(&d) : get8(&d);
            UWord ids[EXT_MAX_IDS];
            for (size_t k = 0; k < len; k++) ids[k] = get32(&d);
            *slot = make_with_node(p, EXT_REF, node, creation, ids, len);
            break;
        }
        case EXPORT_EXT: {
            d.i++;
            Term m = get_atom(&d), f = get_atom(&d);
            if (m == THE_NON_VALUE || f == THE_NON_VALUE || !need(&d, 2) || get8(&d) != SMALL_INTEGER_EXT) BAD();
            unsigned ar = get8(&d);
            Export *e = export_get(m, f, (int)ar);
            if (!e) BAD();
            Term *hp = heap_alloc(p, 2);
            hp[0] = make_header(1, BOXED_EXPORT);
            hp[1] = (Term)e;
            *slot = make_boxed(hp);
            break;
        }
        default:
            BAD();
        }
    }
    /* trailing bytes are ignored, as binary_to_term/1 does */
done:
#undef PUSHW
#undef BAD
    free(st);
    p->reds -= (SWord)(d.n / 64);
    if (!ok && p->out_of_memory) return bif_out_of_memory(p);   /* refused memory, not bad data */
    if (!ok) BIF_ERROR(p, AM_badarg);
    *used = d.i;
    return result;
}

Term bif_binary_to_term_1(Process *p, Term *args)
{
    size_t used;
    return decode(p, args[0], 0, &used);
}

/* Options as OTP 25's: safe (badarg rather than a new atom) and used
 * ({Term, BytesUsed}); anything else, or an improper list, is badarg. */
Term bif_binary_to_term_2(Process *p, Term *args)
{
    int safe = 0, want_used = 0;
    Term l = args[1];
    for (; is_list(l); l = list_tail(l)) {
        Term o = list_head(l);
        if (o == ATOM_TERM(safe)) safe = 1;
        else if (o == ATOM_TERM(used)) want_used = 1;
        else BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    size_t used;
    Term t = decode(p, args[0], safe, &used);
    if (t == THE_NON_VALUE || !want_used) return t;
    return tuple2(p, t, make_integer(p, (int64_t)used));
}
