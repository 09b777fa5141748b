/* format.c — io_lib:format directives, following OTP's io_lib_format
 * (the same field, precision and padding rules, the same float layouts,
 * and badarg wherever OTP has no matching clause). */
#include "format.h"
#include "fatal.h"
#include "print.h"
#include "atom.h"
#include "binary.h"
#include "iolist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE (-1L)                   /* "none" for field width / precision */

/* The characters of an iolist-shaped term (iolist.h): integers up to 255,
 * or any code point with `unicode`, and binaries as binary_chars reads
 * them. */
typedef struct { OutBuf *b; int unicode; } CharsOut;
static int chars_leaf(Term t) { return is_binary(t); }
static int chars_int(void *ctx, SWord c) {
    CharsOut *o = ctx;
    if (c < 0 || c > (o->unicode ? 0x10FFFF : 255)) return -1;
    print_char(o->b, (UWord)c);
    return 0;
}
static int chars_bin(void *ctx, Term t) {
    CharsOut *o = ctx;
    return binary_chars(o->b, t, o->unicode) < 0 ? -1 : 0;
}

int format_chars(OutBuf *b, Term t, int unicode) {
    CharsOut o = { b, unicode };
    IolistVisitor v = { chars_leaf, chars_int, chars_bin, &o };
    return iolist_visit(t, &v);
}

/* ---- helpers with OTP's names ---- */

/* adjust(Data, Pad, Adj) where Data is the text in d and Pad n copies of pad */
static void adjust(OutBuf *b, const char *d, size_t dn, int pad, long n, int left) {
    if (!left && n > 0) ob_pad(b, pad, (size_t)n);
    ob_write(b, d, dn);
    if (left && n > 0) ob_pad(b, pad, (size_t)n);
}

/* term(T, F, Adj, P, Pad) */
static void term(OutBuf *b, const char *t, size_t l, long f, int left, long p0, int pad) {
    if (f == NONE && p0 == NONE) { ob_write(b, t, l); return; }
    if (f == NONE) f = p0;
    long lim = p0 == NONE ? f : (p0 < f ? p0 : f);
    long p = (long)l < lim ? (long)l : lim;
    if ((long)l > p) {
        OutBuf s; ob_init(&s); ob_pad(&s, '*', (size_t)p);
        adjust(b, s.buf ? s.buf : "", s.len, pad, f - p, left);
        ob_free(&s);
    } else {
        adjust(b, t, l, pad, f - (long)l, left);
    }
}

/* string(S, F, Adj, P, Pad); -1 where OTP has no clause */
static int string_field(OutBuf *b, const char *s, size_t n, long f, int left, int pad) {
    if ((long)n > f) ob_write(b, s, (size_t)f);
    else adjust(b, s, n, pad, f - (long)n, left);
    return 0;
}
static int string(OutBuf *b, const char *s, size_t n, long f, int left, long p, int pad) {
    if (f == NONE && p == NONE) { ob_write(b, s, n); return 0; }
    if (p == NONE) return string_field(b, s, n, f, left, pad);
    if (f == NONE) return string_field(b, s, n, p, 1, pad);
    if (f < p) return -1;
    if (f == p) return string_field(b, s, n, f, left, pad);
    if ((long)n > p) { adjust(b, s, (size_t)p, pad, f - p, left); return 0; }
    OutBuf t; ob_init(&t);
    ob_write(&t, s, n);
    if ((long)n < p) ob_pad(&t, pad, (size_t)(p - (long)n));
    adjust(b, t.buf ? t.buf : "", t.len, pad, f - p, left);
    ob_free(&t);
    return 0;
}

/* char(C, F, Adj, P, Pad) */
static int fchar(OutBuf *b, UWord c, long f, int left, long p, int pad) {
    OutBuf t; ob_init(&t);
    long k = f == NONE ? (p == NONE ? 1 : p) : (p == NONE ? f : p);
    if (f != NONE && p != NONE && f < p) return -1;
    for (long i = 0; i < k; i++) print_char(&t, c);
    if (f != NONE && p != NONE) adjust(b, t.buf ? t.buf : "", t.len, pad, f - p, left);
    else ob_write(b, t.buf, t.len);
    ob_free(&t);
    return 0;
}

/* ---- floats (fwrite_e / fwrite_f / fwrite_g) ---- */

/* float_data: the 21 significant digits of float_to_list/1 and E + 1 */
static int float_data(double d, char *ds, int *e) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.20e", fabs(d));
    int n = 0;
    char *p = tmp;
    for (; *p && *p != 'e'; p++) if (*p >= '0' && *p <= '9') ds[n++] = *p;
    *e = atoi(p + 1) + 1;
    return n;
}

/* float_man(Ds, I, Dc): I integer digits, '.', Dc decimals, rounded at the
 * first dropped digit (>= '5' rounds up). Returns the carry out. */
static int float_man(const char *ds, int nd, int i, int dc, OutBuf *out) {
    int tot = i + dc;
    char *r = malloc((size_t)tot + 1);
    if (!r) FATAL("out of memory formatting a float (%d digits)", tot);
    for (int k = 0; k < tot; k++) r[k] = k < nd ? ds[k] : '0';
    int carry = tot < nd && ds[tot] >= '5';
    for (int k = tot - 1; k >= 0 && carry; k--) {
        if (r[k] == '9') r[k] = '0';
        else { r[k]++; carry = 0; }
    }
    ob_write(out, r, (size_t)i);
    ob_putc(out, '.');
    ob_write(out, r + i, (size_t)dc);
    free(r);
    return carry;
}

static void signbit_s(OutBuf *b, double d) { if (d < 0 || (d == 0 && signbit(d))) ob_putc(b, '-'); }

static void float_e(OutBuf *b, double d, long p) {
    char ds[32]; int e; int nd = float_data(d, ds, &e);
    signbit_s(b, d);
    OutBuf m; ob_init(&m);
    int carry = float_man(ds, nd, 1, (int)p - 1, &m);
    if (carry) { m.buf[0] = '1'; ob_write(b, m.buf, m.len); }
    else { ob_write(b, m.buf, m.len); e = e - 1; }
    if (e >= 0) ob_printf(b, "e+%d", e); else ob_printf(b, "e%d", e);
    ob_free(&m);
}

static void float_f(OutBuf *b, double d, long p) {
    char ds[32 + 400]; int e; int nd = float_data(d, ds, &e);
    signbit_s(b, d);
    if (e <= 0) {                                      /* prepend -E+1 zeros */
        int z = -e + 1;
        memmove(ds + z, ds, (size_t)nd);
        memset(ds, '0', (size_t)z);
        nd += z;
        e = 1;
    }
    OutBuf m; ob_init(&m);
    if (float_man(ds, nd, e, (int)p, &m)) ob_putc(b, '1');
    ob_write(b, m.buf, m.len);
    ob_free(&m);
}

static int fwrite_e(OutBuf *b, double d, long f, int left, long p, int pad) {
    if (p == NONE) p = 6;
    if (p < 2) return -1;
    if (f == NONE) { float_e(b, d, p); return 0; }
    OutBuf t; ob_init(&t); float_e(&t, d, p);
    term(b, t.buf, t.len, f, left, f, pad);
    ob_free(&t);
    return 0;
}

static int fwrite_f(OutBuf *b, double d, long f, int left, long p, int pad) {
    if (p == NONE) p = 6;
    if (p < 1) return -1;
    if (p > 100000) return -1;
    if (f == NONE) { float_f(b, d, p); return 0; }
    OutBuf t; ob_init(&t); float_f(&t, d, p);
    term(b, t.buf, t.len, f, left, f, pad);
    ob_free(&t);
    return 0;
}

static int fwrite_g(OutBuf *b, double d, long f, int left, long p, int pad) {
    if (p == NONE) p = 6;
    if (p < 1) return -1;
    double a = fabs(d);
    long e;
    int big = 0;
    if (a < 1.0e-1) e = -2;
    else if (a < 1.0e0) e = -1;
    else if (a < 1.0e1) e = 0;
    else if (a < 1.0e2) e = 1;
    else if (a < 1.0e3) e = 2;
    else if (a < 1.0e4) e = 3;
    else { e = 0; big = 1; }
    if (!big && ((p <= 1 && e == -1) || (p - 1 > e && e >= -1)))
        return fwrite_f(b, d, f, left, p - 1 - e, pad);
    if (p <= 1) return fwrite_e(b, d, f, left, 2, pad);
    return fwrite_e(b, d, f, left, p, pad);
}

/* ---- integers ---- */

static int prefixed_integer(OutBuf *b, Term a, long f, int left, long base, int pad,
                            const char *prefix, size_t plen, int lower) {
    if (base < 2 || base > 36) return -1;
    OutBuf t; ob_init(&t);
    int neg = is_small(a) ? small_val(a) < 0 : big_is_neg(a);
    if (neg) ob_putc(&t, '-');
    ob_write(&t, prefix, plen);
    OutBuf d; ob_init(&d);
    print_integer(&d, a, (int)base, lower);
    ob_write(&t, d.buf + neg, d.len - (size_t)neg);
    ob_free(&d);
    term(b, t.buf, t.len, f, left, NONE, pad);
    ob_free(&t);
    return 0;
}

/* ---- the driver ---- */

typedef struct Args { Term *v; size_t n, i; } Args;

static int next_arg(Args *a, Term *out) {
    if (a->i >= a->n) return 0;
    *out = a->v[a->i++];
    return 1;
}

/* column (OTP's indentation/2) of the text written since `start` */
static long column_of(const OutBuf *b, size_t start) {
    size_t i = b->len;
    while (i > start && b->buf[i - 1] != '\n') i--;
    long col = 0;
    for (; i < b->len; i++) {
        if (b->buf[i] == '\t') col = ((col + 8) / 8) * 8;
        else col++;
    }
    return col;
}

static int list_to_array(Term l, Term **out, size_t *n) {
    size_t k = 0;
    Term t;
    for (t = l; is_list(t); t = list_tail(t)) k++;
    if (!is_nil(t)) return -1;
    Term *v = malloc((k ? k : 1) * sizeof *v);
    if (!v) FATAL("out of memory for %zu format arguments", k);
    k = 0;
    for (t = l; is_list(t); t = list_tail(t)) v[k++] = list_head(t);
    *out = v;
    *n = k;
    return 0;
}

/* field_value: digits or '*' (an integer argument) */
static int field_value(const Term *fc, size_t nf, size_t *i, Args *a, long *v) {
    *v = NONE;
    if (*i < nf && fc[*i] == '*') {
        Term x;
        if (!next_arg(a, &x) || !is_small(x)) return -1;
        (*i)++;
        *v = (long)small_val(x);
        return 0;
    }
    if (*i < nf && fc[*i] >= '0' && fc[*i] <= '9') {
        long r = 0;
        while (*i < nf && fc[*i] >= '0' && fc[*i] <= '9') {
            r = r * 10 + (long)(fc[*i] - '0');
            if (r > 100000000L) return -1;
            (*i)++;
        }
        *v = r;
    }
    return 0;
}

static int directive(OutBuf *b, size_t start, const Term *fc, size_t nf, size_t *ip, Args *a) {
    size_t i = *ip;
    long f = NONE, p = NONE;
    int left = 0, pad = ' ', unicode = 0, strings = 1;
    /* field width */
    int minus = 0;
    if (i < nf && fc[i] == '-') { minus = 1; i++; }
    if (field_value(fc, nf, &i, a, &f) < 0) return -1;
    if (minus) { if (f == NONE) return -1; f = -f; }
    if (f != NONE && f < 0) { f = -f; left = 1; }
    /* precision and pad char */
    if (i < nf && fc[i] == '.') {
        i++;
        if (field_value(fc, nf, &i, a, &p) < 0) return -1;
        if (p != NONE && p < 0) return -1;
        if (i < nf && fc[i] == '.') {
            i++;
            if (i >= nf) return -1;
            if (fc[i] == '*') {
                Term x;
                if (!next_arg(a, &x) || !is_small(x)) return -1;
                pad = (int)small_val(x);
                i++;
            } else {
                pad = (int)fc[i++];
            }
        }
    }
    /* modifiers */
    for (; i < nf; i++) {
        if (fc[i] == 't') unicode = 1;
        else if (fc[i] == 'l') strings = 0;
        else if (fc[i] == 'k') continue;
        else if (fc[i] == 'K') { Term x; if (!next_arg(a, &x)) return -1; }
        else break;
    }
    if (i >= nf) return -1;
    Term cc = fc[i++];
    *ip = i;
    Term x, y;
    switch (cc) {
    case 'w': case 'W': {
        long depth = -1;
        if (!next_arg(a, &x)) return -1;
        if (cc == 'W') { if (!next_arg(a, &y) || !is_small(y)) return -1; depth = (long)small_val(y); }
        OutBuf t; ob_init(&t);
        print_write_depth(&t, x, depth);
        term(b, t.buf ? t.buf : "", t.len, f, left, p, pad);
        ob_free(&t);
        return 0;
    }
    case 'p': case 'P': {
        long depth = -1;
        if (!next_arg(a, &x)) return -1;
        if (cc == 'P') { if (!next_arg(a, &y) || !is_small(y)) return -1; depth = (long)small_val(y); }
        if (f == NONE) f = 80;
        if (p == NONE) p = column_of(b, start) + 1;
        if (left) return -1;                          /* OTP: no clause */
        print_pretty(b, x, p, f, depth, strings ? PRINT_STRINGS | (unicode ? PRINT_UNICODE : 0) : 0);
        return 0;
    }
    case 's': {
        if (!next_arg(a, &x)) return -1;
        OutBuf t; ob_init(&t);
        int rc;
        if (is_atom(x)) {
            print_atom_text(&t, x);
            rc = 0;
        } else {
            rc = format_chars(&t, x, unicode);
        }
        if (rc == 0) rc = string(b, t.buf ? t.buf : "", t.len, f, left, p, pad);
        ob_free(&t);
        return rc;
    }
    case 'e': case 'f': case 'g':
        if (!next_arg(a, &x) || !is_float(x)) return -1;
        if (cc == 'e') return fwrite_e(b, float_val(x), f, left, p, pad);
        if (cc == 'f') return fwrite_f(b, float_val(x), f, left, p, pad);
        return fwrite_g(b, float_val(x), f, left, p, pad);
    case 'b': case 'B':
        if (!next_arg(a, &x) || !is_integer(x)) return -1;
        return prefixed_integer(b, x, f, left, p == NONE ? 10 : p, pad, "", 0, cc == 'b');
    case 'x': case 'X': {
        if (!next_arg(a, &x) || !is_integer(x) || !next_arg(a, &y)) return -1;
        OutBuf pre; ob_init(&pre);
        int rc = 0;
        if (is_atom(y)) print_atom_text(&pre, y);
        else rc = format_chars(&pre, y, 1);
        if (rc == 0)
            rc = prefixed_integer(b, x, f, left, p == NONE ? 10 : p, pad,
                                  pre.buf ? pre.buf : "", pre.len, cc == 'x');
        ob_free(&pre);
        return rc;
    }
    case '+': case '#': {
        if (!next_arg(a, &x) || !is_integer(x)) return -1;
        long base = p == NONE ? 10 : p;
        char pre[16];
        int n = snprintf(pre, sizeof pre, "%ld#", base);
        return prefixed_integer(b, x, f, left, base, pad, pre, (size_t)n, cc == '+');
    }
    case 'c': {
        if (!next_arg(a, &x) || !is_integer(x)) return -1;
        if (!is_small(x)) return -1;
        SWord c = small_val(x);
        if (unicode) { if (c < 0 || c > 0x10FFFF) return -1; }
        else c &= 255;
        return fchar(b, (UWord)c, f, left, p, pad);
    }
    case '~':
        return fchar(b, '~', f, left, p, pad);
    case 'n':
        if (f == NONE) { ob_putc(b, '\n'); return 0; }
        if (left) return -1;
        ob_pad(b, '\n', (size_t)f);
        return 0;
    case 'i':
        if (!next_arg(a, &x)) return -1;
        return 0;
    }
    return -1;
}

int format_run(OutBuf *b, Term fmt, Term args) {
    Term *fc = NULL, *av = NULL;
    size_t nf = 0, na = 0;
    size_t start = b->len;
    int rc = 0;
    if (is_atom(fmt)) {
        size_t n; const char *s = atom_name(fmt, &n);
        fc = malloc((n ? n : 1) * sizeof *fc);
        if (!fc) FATAL("out of memory for a format string of %zu characters", n);
        nf = 0;                              /* an atom's text is UTF-8 (atom.h) */
        for (size_t i = 0; i < n;) fc[nf++] = (Term)atom_text_char((const unsigned char *)s, n, &i);
    } else if (is_binary(fmt)) {             /* binaries: UTF-8 text (binary.c) */
        if (binary_codes(fmt, &fc, &nf) < 0) return -1;
    } else {
        if (list_to_array(fmt, &fc, &nf) < 0) return -1;
        for (size_t i = 0; i < nf; i++) {
            if (!is_small(fc[i]) || small_val(fc[i]) < 0 || small_val(fc[i]) > 0x10FFFF) {
                free(fc);
                return -1;
            }
            fc[i] = (Term)small_val(fc[i]);
        }
    }
    if (list_to_array(args, &av, &na) < 0) { free(fc); return -1; }
    Args a = { av, na, 0 };
    for (size_t i = 0; i < nf && rc == 0;) {
        if (fc[i] == '~') {
            i++;
            rc = directive(b, start, fc, nf, &i, &a);
        } else {
            print_char(b, fc[i++]);
        }
    }
    if (rc == 0 && a.i != a.n) rc = -1;                /* arguments left over */
    free(fc);
    free(av);
    return rc;
}
