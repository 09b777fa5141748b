/* bif_chardata.c — the usual case of unicode:characters_to_binary/2 and
 * characters_to_list/2 in C, as OTP has them.
 *
 * erts_internal:characters_to_utf8(Data, InEncoding) and
 * erts_internal:characters_to_list(Data, InEncoding) convert chardata (a
 * deep list of code points and binaries, maybe with a binary as a tail, or
 * a binary) in latin1, unicode or utf8 to one UTF-8 binary or a list of
 * code points, or answer false: for anything that is not chardata or does
 * not convert cleanly (a code point out of range, a binary that is not
 * whole UTF-8, a UTF-8 sequence split between two binaries), and for other
 * encodings. stdlib/unicode.mini then runs its own code, which gives OTP's
 * exact {error, ...} and {incomplete, ...} results and badarg. The string
 * module converts through these on most of its calls; in Mini code the
 * conversion cost about 200 ns a character.
 *
 * Two passes over the data with one walker: the first counts (and
 * validates), the second writes into memory of exactly that size. */
#include <string.h>

#include "bif.h"
#include "binary.h"
#include "wordstack.h"

enum { ENC_LATIN1, ENC_UTF8, ENC_OTHER };

static int encoding_of(Term enc) {
    if (enc == ATOM_TERM(latin1)) return ENC_LATIN1;
    if (enc == ATOM_TERM(unicode) || enc == ATOM_TERM(utf8)) return ENC_UTF8;
    return ENC_OTHER;
}

static int valid_code_point(SWord c) { return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

static size_t utf8_length(UWord c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

/* The code point of the whole UTF-8 sequence at s (n bytes left) and its
 * length in *len, or -1 (invalid, or cut off at the end). */
static long utf8_decode(const unsigned char *s, size_t n, size_t *len) {
    unsigned b0 = s[0];
    size_t k = b0 < 0x80 ? 1 : (b0 & 0xE0) == 0xC0 ? 2 : (b0 & 0xF0) == 0xE0 ? 3 : (b0 & 0xF8) == 0xF0 ? 4 : 0;
    if (!k || k > n) return -1;
    long c = k == 1 ? (long)b0 : k == 2 ? (long)(b0 & 0x1F) : k == 3 ? (long)(b0 & 0x0F) : (long)(b0 & 0x07);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        c = (c << 6) | (long)(s[i] & 0x3F);
    }
    static const long least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < least[k] || !valid_code_point(c)) return -1;
    *len = k;
    return c;
}

/* Where the second pass writes: UTF-8 bytes at `bytes`, or code points
 * into the list cells at `cells` (NULL both: the counting pass). */
typedef struct Out {
    unsigned char *bytes;
    Term *cells;
    size_t nbytes, nchars;
} Out;

static void put_code_point(Out *o, UWord c) {
    if (o->bytes) {
        unsigned char *d = o->bytes + o->nbytes;
        if (c < 0x80) { d[0] = (unsigned char)c; }
        else if (c < 0x800) { d[0] = (unsigned char)(0xC0 | (c >> 6)); d[1] = (unsigned char)(0x80 | (c & 0x3F)); }
        else if (c < 0x10000) {
            d[0] = (unsigned char)(0xE0 | (c >> 12)); d[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            d[2] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            d[0] = (unsigned char)(0xF0 | (c >> 18)); d[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            d[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F)); d[3] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    if (o->cells) {
        Term *cell = o->cells + 2 * o->nchars;
        cell[0] = make_small(c);
        cell[1] = make_list(cell + 2);     /* the last cell's tail is set after */
    }
    o->nbytes += utf8_length(c);
    o->nchars++;
}

/* A binary element: its bytes as code points (latin1) or as whole UTF-8
 * (copied as they are when writing bytes). */
static int put_binary(Out *o, Term b, int enc) {
    if (!is_binary(b)) return 0;
    size_t n;
    const unsigned char *s = bin_bytes(b, &n);
    if (enc == ENC_LATIN1) {
        for (size_t i = 0; i < n; i++) put_code_point(o, s[i]);
        return 1;
    }
    if (o->bytes && !o->cells) {           /* validated in the first pass */
        memcpy(o->bytes + o->nbytes, s, n);
        o->nbytes += n;
        return 1;
    }
    for (size_t i = 0; i < n;) {
        size_t len;
        long c = utf8_decode(s + i, n - i, &len);
        if (c < 0) return 0;
        if (o->cells) put_code_point(o, (UWord)c);
        else { o->nbytes += len; o->nchars++; }
        i += len;
    }
    return 1;
}

/* One pass over data; 0 when it does not convert cleanly. */
static int walk(Term data, int enc, Out *o) {
    WordStack s;
    ws_init(&s);
    Term t = data;
    int ok = 1;
    for (;;) {
        if (is_list(t)) {
            Term h = list_head(t);
            t = list_tail(t);
            if (is_small(h)) {
                SWord c = small_val(h);
                if (enc == ENC_LATIN1 ? c < 0 || c > 255 : !valid_code_point(c)) { ok = 0; break; }
                put_code_point(o, (UWord)c);
            } else if (is_list(h) || is_nil(h)) {
                ws_push(&s, t);
                t = h;
            } else if (!put_binary(o, h, enc)) {
                ok = 0;
                break;
            }
        } else if (is_nil(t)) {
            if (!s.n) break;
            t = ws_pop(&s);
        } else if (put_binary(o, t, enc)) {     /* a binary tail, or the whole data */
            t = NIL;
        } else {
            ok = 0;
            break;
        }
    }
    ws_free(&s);
    return ok;
}

Term bif_erts_internal_characters_to_utf8_2(Process *p, Term *args) {
    int enc = encoding_of(args[1]);
    Out count = { 0 };
    if (enc == ENC_OTHER || !walk(args[0], enc, &count)) return AM_false;
    if (is_binary(args[0]) && enc == ENC_UTF8) return args[0];
    unsigned char *d;
    Term r = bin_new(p, count.nbytes, &d);
    if (r == THE_NON_VALUE) return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
    Out write = { d, NULL, 0, 0 };
    walk(args[0], enc, &write);
    p->reds -= (SWord)(count.nchars / 32);
    return r;
}

Term bif_erts_internal_characters_to_list_2(Process *p, Term *args) {
    int enc = encoding_of(args[1]);
    Out count = { 0 };
    if (enc == ENC_OTHER || !walk(args[0], enc, &count)) return AM_false;
    if (count.nchars == 0) return NIL;
    Term *hp;
    BIF_ALLOC(p, hp, 2 * count.nchars);
    Out write = { NULL, hp, 0, 0 };
    walk(args[0], enc, &write);
    hp[2 * count.nchars - 1] = NIL;
    p->reds -= (SWord)(count.nchars / 32);
    return make_list(hp);
}
