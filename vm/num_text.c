/* num_text.c — number <-> text conversions and their BIFs (num_text.h). */
#include "num_text.h"
#include "arith.h"
#include "atom.h"
#include "bif.h"
#include "bignum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shortest float text ---- */

/* Decimal digits of a p-digit decimal: digits[0..p) and the scientific
 * exponent (value = d.ddd * 10^exp). */
typedef struct {
    char digits[24];
    int p;
    int exp;
} Dec;

static double dec_value(const Dec *x)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%c.%se%d", x->digits[0], x->p > 1 ? x->digits + 1 : "0", x->exp);
    return strtod(buf, NULL);
}

/* Correctly rounded p significant digits of d > 0. */
static void dec_round(double d, int p, Dec *x)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    int k = 0;
    const char *s = buf;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            x->digits[k++] = *s;
    x->digits[k] = 0;
    x->p = k;
    x->exp = atoi(s + 1);
}

/* The p-digit neighbour one unit in the last place up (dir > 0) or down. */
static void dec_step(Dec *x, int dir)
{
    int p = x->p;
    if (dir > 0) {
        int i = p - 1;
        while (i >= 0 && x->digits[i] == '9')
            x->digits[i--] = '0';
        if (i < 0) {
            x->digits[0] = '1';
            x->exp++;
        } else {
            x->digits[i]++;
        }
    } else {
        int i = p - 1;
        while (i >= 0 && x->digits[i] == '0')
            x->digits[i--] = '9';
        x->digits[i]--;     /* the leading digit is never 0 */
        if (x->digits[0] == '0') {
            /* 1000 -> 0999: the grid is finer below a power of ten */
            memset(x->digits, '9', (size_t)p);
            x->exp--;
        }
    }
}

/* A p-digit decimal that reads back as d (the closest one), if any. */
static int dec_shortest_at(double d, int p, Dec *out)
{
    Dec r;
    dec_round(d, p, &r);
    double v = dec_value(&r);
    if (v == d) {
        *out = r;
        return 1;
    }
    dec_step(&r, v > d ? -1 : 1);
    if (dec_value(&r) == d) {
        *out = r;
        return 1;
    }
    return 0;
}

int float_format_shortest(double d, char *buf, size_t n)
{
    char tmp[64];
    char *o = tmp;
    if (signbit(d)) {
        *o++ = '-';
        d = -d;
    }
    if (d == 0) {
        strcpy(o, "0.0");
    } else if (isinf(d)) {
        strcpy(o, "inf");
    } else if (isnan(d)) {
        strcpy(tmp, "nan");
    } else {
        /* binary search: if p digits can round-trip, so can p+1 */
        int lo = 1, hi = 17;
        Dec best;
        dec_shortest_at(d, 17, &best);
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            Dec x;
            if (dec_shortest_at(d, mid, &x)) {
                best = x;
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (best.p != lo)
            dec_shortest_at(d, lo, &best);
        /* strip trailing zeros (only possible when the value is short) */
        int L = best.p;
        while (L > 1 && best.digits[L - 1] == '0')
            L--;
        best.digits[L] = 0;
        const char *S = best.digits;
        int E = best.exp;               /* scientific exponent */
        int place = E - (L - 1);        /* value = S * 10^place */
        char expstr[16];
        int explen = snprintf(expstr, sizeof expstr, "%d", E);
        int sci_len = (L == 1 ? 3 : L + 1) + 1 + explen;
        int fixed;
        if (place >= 0)
            fixed = L + place + 2 <= sci_len && d < 9007199254740992.0;
        else if (E >= 0)
            fixed = 1;
        else
            fixed = 2 - place <= sci_len;
        if (!fixed) {
            if (L == 1)
                sprintf(o, "%c.0e%s", S[0], expstr);
            else
                sprintf(o, "%c.%se%s", S[0], S + 1, expstr);
        } else if (place >= 0) {
            memcpy(o, S, (size_t)L);
            o += L;
            memset(o, '0', (size_t)place);
            o += place;
            strcpy(o, ".0");
        } else if (E >= 0) {
            memcpy(o, S, (size_t)E + 1);
            o += E + 1;
            *o++ = '.';
            strcpy(o, S + E + 1);
        } else {
            *o++ = '0';
            *o++ = '.';
            memset(o, '0', (size_t)(-E - 1));
            o += -E - 1;
            strcpy(o, S);
        }
    }
    size_t len = strlen(tmp);
    if (len + 1 > n)
        return -1;
    memcpy(buf, tmp, len + 1);
    return (int)len;
}

int float_format_default(double d, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%.20e", d);
    return len < 0 || (size_t)len >= n ? -1 : len;
}

/* ---- integers ---- */

char *integer_to_chars(Term i, int base, size_t *len)
{
    const uint64_t *d;
    size_t dn;
    int neg;
    uint64_t one;
    if (is_small(i)) {
        SWord x = small_val(i);
        neg = x < 0;
        one = neg ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        d = &one;
        dn = one != 0;
    } else {
        d = big_digits(i);
        dn = big_size(i);
        neg = big_is_neg(i);
    }
    char *s = malloc(bn_str_size(dn, base) + 2);
    if (!s)
        return NULL;
    s[0] = '-';
    size_t l = bn_to_str(s + neg, d, dn, base) + (size_t)neg;
    if (len)
        *len = l;
    return s;
}

Term chars_to_term_list(Process *p, const char *s, size_t n)
{
    if (n == 0)
        return NIL;
    Term *hp = heap_alloc(p, 2 * n);
    for (size_t k = 0; k < n; k++) {
        hp[2 * k] = make_small((unsigned char)s[k]);
        hp[2 * k + 1] = k + 1 < n ? make_list(hp + 2 * (k + 1)) : NIL;
    }
    return make_list(hp);
}

Term integer_to_term_list(Process *p, Term i, int base)
{
    char small[72];
    if (is_small(i) && base == 10) {
        int n = snprintf(small, sizeof small, "%ld", (long)small_val(i));
        return chars_to_term_list(p, small, (size_t)n);
    }
    size_t n;
    char *s = integer_to_chars(i, base, &n);
    if (!s)
        return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
    Term r = chars_to_term_list(p, s, n);
    free(s);
    return r;
}

static int digit_of(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

Term chars_to_integer(Process *p, const char *s, size_t n, int base)
{
    int neg = 0;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    if (n == 0)
        return THE_NON_VALUE;
    for (size_t k = 0; k < n; k++)
        if (digit_of(s[k]) >= base)
            return THE_NON_VALUE;
    while (n > 1 && s[0] == '0') {
        s++;
        n--;
    }
    if (n <= 15 && base <= 10) {        /* < 10^15 fits a small */
        SWord v = 0;
        for (size_t k = 0; k < n; k++)
            v = v * base + digit_of(s[k]);
        return make_small(neg ? -v : v);
    }
    size_t cap = bn_from_str_size(n, base);
    uint64_t *d = cap > ARITH_MAX_BIG_DIGITS ? NULL : malloc(cap * sizeof *d);
    if (!d)
        return THE_NON_VALUE;
    size_t dn = bn_from_str(d, s, n, base);
    Term r = make_big_from_digits(p, neg, d, dn);
    free(d);
    return r;
}

int chars_to_double(const char *s, size_t n, double *out)
{
    size_t k = 0;
    if (k < n && (s[k] == '+' || s[k] == '-'))
        k++;
    size_t start = k;
    while (k < n && s[k] >= '0' && s[k] <= '9')
        k++;
    if (k == start || k >= n || s[k] != '.')
        return 0;
    k++;
    start = k;
    while (k < n && s[k] >= '0' && s[k] <= '9')
        k++;
    if (k == start)
        return 0;
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        start = k;
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == start)
            return 0;
    }
    if (k != n)
        return 0;
    char small[128];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (!isfinite(d))
        return 0;
    *out = d;
    return 1;
}

/* ---- BIFs ---- */

/* The characters of a proper list of byte-sized codes, malloc'ed; NULL if
 * it is not such a list (any code above 255 cannot be a digit anyway). */
static char *list_chars(Term list, size_t *n)
{
    size_t len = 0;
    Term t = list;
    for (; is_list(t); t = list_tail(t))
        len++;
    if (!is_nil(t))
        return NULL;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    size_t k = 0;
    for (t = list; is_list(t); t = list_tail(t)) {
        Term c = list_head(t);
        if (!is_small(c) || small_val(c) < 0 || small_val(c) > 255) {
            free(s);
            return NULL;
        }
        s[k++] = (char)small_val(c);
    }
    s[k] = 0;
    *n = len;
    return s;
}

static int base_of(Term b)
{
    if (!is_small(b) || small_val(b) < 2 || small_val(b) > 36)
        return 0;
    return (int)small_val(b);
}

Term bif_integer_to_list_1(Process *p, Term *args)
{
    if (!is_integer(args[0]))
        BIF_ERROR(p, AM_badarg);
    return integer_to_term_list(p, args[0], 10);
}

Term bif_integer_to_list_2(Process *p, Term *args)
{
    int base = base_of(args[1]);
    if (!is_integer(args[0]) || !base)
        BIF_ERROR(p, AM_badarg);
    return integer_to_term_list(p, args[0], base);
}

static Term list_to_integer(Process *p, Term list, int base)
{
    size_t n;
    char *s = list_chars(list, &n);
    if (!s)
        BIF_ERROR(p, AM_badarg);
    p->reds -= (SWord)(n >> 6);
    if (bn_from_str_size(n, base) > ARITH_MAX_BIG_DIGITS) {
        free(s);
        BIF_ERROR(p, ATOM_TERM(system_limit));
    }
    Term r = chars_to_integer(p, s, n, base);
    free(s);
    if (r == THE_NON_VALUE)
        BIF_ERROR(p, AM_badarg);
    return r;
}

Term bif_list_to_integer_1(Process *p, Term *args)
{
    return list_to_integer(p, args[0], 10);
}

Term bif_list_to_integer_2(Process *p, Term *args)
{
    int base = base_of(args[1]);
    if (!base)
        BIF_ERROR(p, AM_badarg);
    return list_to_integer(p, args[0], base);
}

Term bif_float_to_list_1(Process *p, Term *args)
{
    if (!is_float(args[0]))
        BIF_ERROR(p, AM_badarg);
    char buf[64];
    int n = float_format_default(float_val(args[0]), buf, sizeof buf);
    return chars_to_term_list(p, buf, (size_t)n);
}

int float_format_options(double d, Term opts, char *buf)
{
    enum { SCI, DEC, SHORT } mode = SCI;
    long prec = 20;
    int compact = 0;
    for (; is_list(opts); opts = list_tail(opts)) {
        Term o = list_head(opts);
        if (o == atom_intern_cstr("compact")) { compact = 1; continue; }
        if (o == atom_intern_cstr("short")) { mode = SHORT; continue; }
        if (!is_tuple(o) || tuple_arity(o) != 2 || !is_small(tuple_elems(o)[1])) return -1;
        Term k = tuple_elems(o)[0];
        long v = (long)small_val(tuple_elems(o)[1]);
        if (k == atom_intern_cstr("decimals") && v >= 0 && v <= 253) { mode = DEC; prec = v; }
        else if (k == atom_intern_cstr("scientific") && v <= 249) { mode = SCI; prec = v < 0 ? 6 : v; }
        else return -1;
    }
    if (!is_nil(opts)) return -1;
    if (mode == SHORT) return float_format_shortest(d, buf, FLOAT_OPTIONS_MAX);
    if (mode == SCI) return snprintf(buf, FLOAT_OPTIONS_MAX, "%.*e", (int)prec, d);
    /* decimals: the exact expansion (a double has at most 1074 fraction
     * digits), cut at prec digits and rounded half away from zero, as OTP
     * rounds (2.5 -> "3", 2.675 -> "2.67": its exact value is below) */
    if (fabs(d) >= 1e255) return -1;              /* more than 255 characters */
    char *exact = malloc(1400);
    if (!exact) return -1;
    snprintf(exact, 1400, "%.1100f", d);
    char *dot = strchr(exact, '.');
    int keep = (int)(dot - exact) + (prec > 0 ? 1 + (int)prec : 0);
    int up = dot[1 + prec] >= '5';
    memcpy(buf + 1, exact, (size_t)keep);        /* buf[0]: room for a carry digit */
    free(exact);
    int len = keep, start = 1;
    if (up) {
        int i = start + len - 1, carry = 1;
        for (; i >= start && carry; i--) {
            char c = buf[i];
            if (c == '.' || c == '-') continue;
            if (c == '9') buf[i] = '0';
            else { buf[i] = (char)(c + 1); carry = 0; }
        }
        if (carry) {                              /* 9.99 -> 10.00: one more digit */
            int neg = buf[start] == '-';
            start--; len++;
            if (neg) { buf[start] = '-'; buf[start + 1] = '1'; }
            else buf[start] = '1';
        }
    }
    if (compact && prec > 0) {                    /* trailing zeros go, one digit stays */
        while (buf[start + len - 1] == '0' && buf[start + len - 2] != '.') len--;
    } else if (compact && fabs(d) >= 9007199254740992.0) {
        /* OTP 25 beyond 2^53 (its slow path) strips an integer's trailing
         * zeros too: 1.0e20 with [{decimals, 0}, compact] is "1" */
        while (buf[start + len - 1] == '0') len--;
    }
    if (len > 255) return -1;
    memmove(buf, buf + start, (size_t)len);
    buf[len] = 0;
    return len;
}

Term bif_float_to_list_2(Process *p, Term *args)
{
    if (!is_float(args[0])) BIF_ERROR(p, AM_badarg);
    char buf[FLOAT_OPTIONS_MAX];
    int n = float_format_options(float_val(args[0]), args[1], buf);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    return chars_to_term_list(p, buf, (size_t)n);
}

Term bif_list_to_float_1(Process *p, Term *args)
{
    size_t n;
    char *s = list_chars(args[0], &n);
    if (!s)
        BIF_ERROR(p, AM_badarg);
    double d;
    int ok = chars_to_double(s, n, &d);
    free(s);
    if (!ok)
        BIF_ERROR(p, AM_badarg);
    return make_float(p, d);
}
