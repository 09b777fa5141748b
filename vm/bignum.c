/* bignum.c — magnitude arithmetic on 64-bit digit arrays (see bignum.h). */
#include "bignum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

size_t bn_norm(const uint64_t *a, size_t n)
{
    while (n > 0 && a[n - 1] == 0)
        n--;
    return n;
}

int bn_cmp(const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    if (an != bn)
        return an < bn ? -1 : 1;
    for (size_t i = an; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

size_t bn_add(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    if (an < bn) {
        const uint64_t *t = a; a = b; b = t;
        size_t tn = an; an = bn; bn = tn;
    }
    uint64_t carry = 0;
    size_t i = 0;
    for (; i < bn; i++) {
        uint64_t s;
        uint64_t c1 = __builtin_add_overflow(a[i], b[i], &s);
        uint64_t c2 = __builtin_add_overflow(s, carry, &s);
        r[i] = s;
        carry = c1 | c2;
    }
    for (; i < an; i++) {
        uint64_t s = a[i] + carry;
        carry = s < carry;
        r[i] = s;
    }
    r[an] = carry;
    return carry ? an + 1 : bn_norm(r, an);
}

size_t bn_sub(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    uint64_t borrow = 0;
    size_t i = 0;
    for (; i < bn; i++) {
        uint64_t d;
        uint64_t b1 = __builtin_sub_overflow(a[i], b[i], &d);
        uint64_t b2 = __builtin_sub_overflow(d, borrow, &d);
        r[i] = d;
        borrow = b1 | b2;
    }
    for (; i < an; i++) {
        uint64_t d = a[i] - borrow;
        borrow = a[i] < borrow;
        r[i] = d;
    }
    return bn_norm(r, an);
}

size_t bn_mul_1(uint64_t *r, const uint64_t *a, size_t an, uint64_t m, uint64_t c)
{
    uint64_t carry = c;
    for (size_t i = 0; i < an; i++) {
        u128 p = (u128)a[i] * m + carry;
        r[i] = (uint64_t)p;
        carry = (uint64_t)(p >> 64);
    }
    r[an] = carry;
    return bn_norm(r, an + 1);
}

/* r[0..an+bn) = a * b, schoolbook. */
static void mul_school(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    memset(r, 0, (an + bn) * sizeof *r);
    for (size_t j = 0; j < bn; j++) {
        uint64_t bj = b[j], carry = 0;
        if (bj == 0)
            continue;
        for (size_t i = 0; i < an; i++) {
            u128 p = (u128)a[i] * bj + r[i + j] + carry;
            r[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        r[j + an] = carry;
    }
}

#define KARATSUBA_CUTOFF 40

/* Adds n digits of b into a[0..) (a long enough), propagating the carry. */
static void add_into(uint64_t *a, size_t alen, const uint64_t *b, size_t n)
{
    uint64_t carry = 0;
    size_t i = 0;
    for (; i < n; i++) {
        uint64_t s;
        uint64_t c1 = __builtin_add_overflow(a[i], b[i], &s);
        uint64_t c2 = __builtin_add_overflow(s, carry, &s);
        a[i] = s;
        carry = c1 | c2;
    }
    for (; carry && i < alen; i++) {
        a[i] += 1;
        carry = a[i] == 0;
    }
}

static void sub_into(uint64_t *a, size_t alen, const uint64_t *b, size_t n)
{
    uint64_t borrow = 0;
    size_t i = 0;
    for (; i < n; i++) {
        uint64_t d;
        uint64_t b1 = __builtin_sub_overflow(a[i], b[i], &d);
        uint64_t b2 = __builtin_sub_overflow(d, borrow, &d);
        a[i] = d;
        borrow = b1 | b2;
    }
    for (; borrow && i < alen; i++) {
        borrow = a[i] == 0;
        a[i] -= 1;
    }
}

/* Karatsuba for equal lengths n; r has 2n digits; tmp has 4n+... scratch.
 * Falls back to schoolbook below the cutoff. */
static void mul_kara(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n, uint64_t *tmp)
{
    if (n < KARATSUBA_CUTOFF) {
        mul_school(r, a, n, b, n);
        return;
    }
    size_t h = n / 2, hh = n - h;           /* low h digits, high hh digits */
    /* z0 = a0*b0 into r[0..2h), z2 = a1*b1 into r[2h..2n) */
    mul_kara(r, a, b, h, tmp);
    mul_kara(r + 2 * h, a + h, b + h, hh, tmp);
    /* sa = a0 + a1, sb = b0 + b1 (hh+1 digits each) */
    uint64_t *sa = tmp, *sb = tmp + (hh + 1), *z1 = tmp + 2 * (hh + 1);
    uint64_t *rest = z1 + 2 * (hh + 1);
    memcpy(sa, a + h, hh * sizeof *sa); sa[hh] = 0;
    add_into(sa, hh + 1, a, h);
    memcpy(sb, b + h, hh * sizeof *sb); sb[hh] = 0;
    add_into(sb, hh + 1, b, h);
    size_t m = hh + 1;
    /* z1 = sa*sb (2m digits) */
    if (sa[hh] == 0 && sb[hh] == 0) {
        mul_kara(z1, sa, sb, hh, rest);
        z1[2 * hh] = z1[2 * hh + 1] = 0;
    } else {
        mul_kara(z1, sa, sb, m, rest);
    }
    /* z1 -= z0 + z2 */
    sub_into(z1, 2 * m, r, 2 * h);
    sub_into(z1, 2 * m, r + 2 * h, 2 * hh);
    /* r += z1 << (64*h) */
    add_into(r + h, 2 * n - h, z1, bn_norm(z1, 2 * m) < 2 * n - h ? bn_norm(z1, 2 * m) : 2 * n - h);
}

static size_t kara_scratch(size_t n)
{
    /* each level uses 4(hh+1) words and recurses on at most hh+1 */
    size_t total = 0;
    while (n >= KARATSUBA_CUTOFF) {
        size_t hh = n - n / 2;
        total += 4 * (hh + 1);
        n = hh + 1;
    }
    return total + 16;
}

size_t bn_mul(uint64_t *r, const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    if (an == 0 || bn == 0)
        return 0;
    if (an < bn) {
        const uint64_t *t = a; a = b; b = t;
        size_t tn = an; an = bn; bn = tn;
    }
    if (bn == 1) {
        bn_mul_1(r, a, an, b[0], 0);
        return bn_norm(r, an + 1);
    }
    if (bn < KARATSUBA_CUTOFF) {
        mul_school(r, a, an, b, bn);
        return bn_norm(r, an + bn);
    }
    /* Karatsuba on bn-sized chunks of a */
    uint64_t *tmp = malloc((kara_scratch(bn) + 2 * bn) * sizeof *tmp);
    if (!tmp)
        return BN_NOMEM;
    uint64_t *prod = tmp + kara_scratch(bn);
    memset(r, 0, (an + bn) * sizeof *r);
    size_t off = 0;
    while (off < an) {
        size_t chunk = an - off < bn ? an - off : bn;
        if (chunk == bn) {
            mul_kara(prod, a + off, b, bn, tmp);
            add_into(r + off, an + bn - off, prod, 2 * bn);
        } else {
            mul_school(prod, b, bn, a + off, chunk);
            add_into(r + off, an + bn - off, prod, bn + chunk);
        }
        off += chunk;
    }
    free(tmp);
    return bn_norm(r, an + bn);
}

uint64_t bn_divrem_1(uint64_t *q, size_t *qn, const uint64_t *a, size_t an, uint64_t d)
{
    uint64_t rem = 0;
    for (size_t i = an; i-- > 0;) {
        u128 cur = ((u128)rem << 64) | a[i];
        uint64_t qd = (uint64_t)(cur / d);
        rem = (uint64_t)(cur - (u128)qd * d);
        if (q)
            q[i] = qd;
    }
    if (qn)
        *qn = q ? bn_norm(q, an) : 0;
    return rem;
}

int bn_divrem(uint64_t *q, size_t *qn, uint64_t *r, size_t *rn,
              const uint64_t *a, size_t an, const uint64_t *b, size_t bn)
{
    if (bn_cmp(a, an, b, bn) < 0) {
        if (q && qn) *qn = 0;
        if (r) { memmove(r, a, an * sizeof *r); if (rn) *rn = an; }
        return 0;
    }
    if (bn == 1) {
        uint64_t rem = bn_divrem_1(q, qn, a, an, b[0]);
        if (r) { r[0] = rem; if (rn) *rn = rem ? 1 : 0; }
        return 0;
    }
    uint64_t stackbuf[128];
    size_t need = (an + 1) + bn;
    uint64_t *un = need <= 128 ? stackbuf : malloc(need * sizeof *un);
    if (!un)
        return -1;
    uint64_t *vn = un + an + 1;
    int s = __builtin_clzll(b[bn - 1]);
    if (s) {
        for (size_t i = bn - 1; i > 0; i--)
            vn[i] = (b[i] << s) | (b[i - 1] >> (64 - s));
        vn[0] = b[0] << s;
        un[an] = a[an - 1] >> (64 - s);
        for (size_t i = an - 1; i > 0; i--)
            un[i] = (a[i] << s) | (a[i - 1] >> (64 - s));
        un[0] = a[0] << s;
    } else {
        memcpy(vn, b, bn * sizeof *vn);
        memcpy(un, a, an * sizeof *un);
        un[an] = 0;
    }
    uint64_t vtop = vn[bn - 1], vsec = vn[bn - 2];
    for (size_t j = an - bn + 1; j-- > 0;) {
        u128 num = ((u128)un[j + bn] << 64) | un[j + bn - 1];
        u128 qhat = num / vtop;
        u128 rhat = num - qhat * vtop;
        while ((qhat >> 64) != 0 ||
               qhat * vsec > ((rhat << 64) | un[j + bn - 2])) {
            qhat--;
            rhat += vtop;
            if ((rhat >> 64) != 0)
                break;
        }
        /* un[j..j+bn] -= qhat * vn */
        uint64_t carry = 0, borrow = 0;
        for (size_t i = 0; i < bn; i++) {
            u128 p = qhat * vn[i] + carry;
            carry = (uint64_t)(p >> 64);
            uint64_t plo = (uint64_t)p, u = un[i + j];
            uint64_t t1 = u - plo, b1 = u < plo;
            uint64_t t2 = t1 - borrow;
            b1 |= t1 < borrow;
            un[i + j] = t2;
            borrow = b1;
        }
        uint64_t u = un[j + bn];
        uint64_t t1 = u - carry, b1 = u < carry;
        uint64_t t2 = t1 - borrow;
        b1 |= t1 < borrow;
        un[j + bn] = t2;
        if (b1) {
            /* add back */
            qhat--;
            uint64_t c = 0;
            for (size_t i = 0; i < bn; i++) {
                u128 sum = (u128)un[i + j] + vn[i] + c;
                un[i + j] = (uint64_t)sum;
                c = (uint64_t)(sum >> 64);
            }
            un[j + bn] += c;
        }
        if (q)
            q[j] = (uint64_t)qhat;
    }
    if (q && qn)
        *qn = bn_norm(q, an - bn + 1);
    if (r) {
        if (s) {
            for (size_t i = 0; i < bn - 1; i++)
                r[i] = (un[i] >> s) | (un[i + 1] << (64 - s));
            r[bn - 1] = un[bn - 1] >> s;
        } else {
            memcpy(r, un, bn * sizeof *r);
        }
        if (rn)
            *rn = bn_norm(r, bn);
    }
    if (un != stackbuf)
        free(un);
    return 0;
}

size_t bn_shl(uint64_t *r, const uint64_t *a, size_t an, size_t shift)
{
    if (an == 0)
        return 0;
    size_t w = shift / 64;
    unsigned s = shift % 64;
    memset(r, 0, w * sizeof *r);
    if (s == 0) {
        memcpy(r + w, a, an * sizeof *r);
        r[w + an] = 0;
    } else {
        uint64_t carry = 0;
        for (size_t i = 0; i < an; i++) {
            r[w + i] = (a[i] << s) | carry;
            carry = a[i] >> (64 - s);
        }
        r[w + an] = carry;
    }
    return bn_norm(r, w + an + 1);
}

size_t bn_shr(uint64_t *r, const uint64_t *a, size_t an, size_t shift, int *lost)
{
    size_t w = shift / 64;
    unsigned s = shift % 64;
    int l = 0;
    if (w >= an) {
        if (lost)
            *lost = bn_norm(a, an) != 0;
        return 0;
    }
    for (size_t i = 0; i < w; i++)
        if (a[i]) { l = 1; break; }
    if (s && (a[w] & (((uint64_t)1 << s) - 1)))
        l = 1;
    size_t n = an - w;
    if (s == 0) {
        memmove(r, a + w, n * sizeof *r);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t lo = a[w + i] >> s;
            uint64_t hi = (w + i + 1 < an) ? a[w + i + 1] << (64 - s) : 0;
            r[i] = lo | hi;
        }
    }
    if (lost)
        *lost = l;
    return bn_norm(r, n);
}

size_t bn_bitlen(const uint64_t *a, size_t an)
{
    an = bn_norm(a, an);
    if (an == 0)
        return 0;
    return an * 64 - (size_t)__builtin_clzll(a[an - 1]);
}

/* Word i of the infinite two's complement form of (neg, a). The borrow
 * state implements -m = ~(m - 1), walking from the low digit up. */
static inline uint64_t tc_word(int neg, const uint64_t *a, size_t an, size_t i, uint64_t *borrow)
{
    uint64_t m = i < an ? a[i] : 0;
    if (!neg)
        return m;
    uint64_t t = m - *borrow;
    *borrow = m < *borrow;
    return ~t;
}

size_t bn_bitop(int op, uint64_t *r, int *rneg,
                int aneg, const uint64_t *a, size_t an,
                int bneg, const uint64_t *b, size_t bn)
{
    if (an == 0) aneg = 0;
    if (bn == 0) bneg = 0;
    size_t n = (an > bn ? an : bn) + 1;
    uint64_t ba = 1, bb = 1;
    int neg;
    switch (op) {
    case BN_AND: neg = aneg & bneg; break;
    case BN_OR:  neg = aneg | bneg; break;
    default:     neg = aneg ^ bneg; break;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tc_word(aneg, a, an, i, &ba);
        uint64_t y = tc_word(bneg, b, bn, i, &bb);
        r[i] = op == BN_AND ? (x & y) : op == BN_OR ? (x | y) : (x ^ y);
    }
    if (neg) {
        /* magnitude = ~r + 1 */
        uint64_t carry = 1;
        for (size_t i = 0; i < n; i++) {
            uint64_t w = ~r[i] + carry;
            carry = carry && w == 0;
            r[i] = w;
        }
    }
    n = bn_norm(r, n);
    *rneg = neg && n > 0;
    return n;
}

/* ---- text ---- */

static const char DIGITS[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* Largest k with base^k <= 2^64 - 1, and base^k. */
static void chunk_of(int base, int *k, uint64_t *pow)
{
    uint64_t p = base;
    int n = 1;
    while (p <= UINT64_MAX / (uint64_t)base) {
        p *= base;
        n++;
    }
    *k = n;
    *pow = p;
}

static int floor_log2(int base)
{
    int l = 0;
    while ((1 << (l + 1)) <= base)
        l++;
    return l;
}

size_t bn_str_size(size_t an, int base)
{
    return an * 64 / (size_t)floor_log2(base) + 66;   /* + a chunk of leading zeros */
}

size_t bn_to_str(char *buf, const uint64_t *a, size_t an, int base)
{
    an = bn_norm(a, an);
    if (an == 0) {
        buf[0] = '0';
        buf[1] = 0;
        return 1;
    }
    size_t cap = bn_str_size(an, base);
    uint64_t small[64];
    uint64_t *t = an <= 64 ? small : malloc(an * sizeof *t);
    if (!t) {
        buf[0] = 0;
        return 0;
    }
    memcpy(t, a, an * sizeof *t);
    int k;
    uint64_t pow;
    chunk_of(base, &k, &pow);
    char *end = buf + cap, *p = end;
    size_t n = an;
    while (n > 0) {
        uint64_t rem = bn_divrem_1(t, &n, t, n, pow);
        for (int i = 0; i < k; i++) {
            *--p = DIGITS[rem % (uint64_t)base];
            rem /= (uint64_t)base;
        }
    }
    while (p < end - 1 && *p == '0')
        p++;
    size_t len = (size_t)(end - p);
    memmove(buf, p, len);
    buf[len] = 0;
    if (t != small)
        free(t);
    return len;
}

size_t bn_from_str_size(size_t len, int base)
{
    int bits = floor_log2(base) + 1;     /* ceil(log2(base)) or more */
    return len * (size_t)bits / 64 + 2;
}

static int digit_val(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

size_t bn_from_str(uint64_t *r, const char *s, size_t len, int base)
{
    int k;
    uint64_t pow;
    chunk_of(base, &k, &pow);
    size_t n = 0;
    size_t i = 0;
    size_t first = len % (size_t)k;
    if (first == 0)
        first = (size_t)k;
    while (i < len) {
        size_t take = (i == 0) ? first : (size_t)k;
        uint64_t chunk = 0, mul = 1;
        for (size_t j = 0; j < take; j++) {
            int d = digit_val(s[i + j]);
            if (d >= base)
                return (size_t)-1;
            chunk = chunk * (uint64_t)base + (uint64_t)d;
            mul *= (uint64_t)base;
        }
        i += take;
        n = bn_mul_1(r, r, n, mul, chunk);
    }
    return n;
}

/* ---- doubles ---- */

double bn_to_double(const uint64_t *a, size_t an)
{
    an = bn_norm(a, an);
    if (an == 0)
        return 0.0;
    if (an == 1)
        return (double)a[0];
    size_t L = bn_bitlen(a, an);
    if (L > 1025)
        return HUGE_VAL;
    size_t s = L - 64;
    size_t idx = s / 64;
    unsigned off = s % 64;
    uint64_t top = a[idx] >> off;
    if (off)
        top |= a[idx + 1] << (64 - off);
    int sticky = off ? (a[idx] & (((uint64_t)1 << off) - 1)) != 0 : 0;
    for (size_t i = 0; i < idx && !sticky; i++)
        if (a[i])
            sticky = 1;
    if (sticky)
        top |= 1;
    return ldexp((double)top, (int)s);
}

size_t bn_from_double(uint64_t *r, double d)
{
    d = trunc(fabs(d));
    if (d < 18446744073709551616.0) {
        r[0] = (uint64_t)d;
        return r[0] ? 1 : 0;
    }
    int e;
    double m = frexp(d, &e);                     /* d = m * 2^e, m in [0.5,1) */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    uint64_t one = mant;
    return bn_shl(r, &one, 1, (size_t)(e - 53));
}

int bn_cmp_double(int neg, const uint64_t *a, size_t an, double d)
{
    an = bn_norm(a, an);
    int sv = an == 0 ? 0 : (neg ? -1 : 1);
    int sd = d > 0 ? 1 : (d < 0 ? -1 : 0);
    if (sv != sd)
        return sv < sd ? -1 : 1;
    if (sv == 0)
        return 0;
    if (isinf(d))
        return -sd;
    double ad = fabs(d), t = trunc(ad);
    int c;
    if (bn_bitlen(a, an) > 1100) {
        c = 1;
    } else {
        uint64_t tb[BN_DOUBLE_DIGITS];
        size_t tn = bn_from_double(tb, t);
        c = bn_cmp(a, an, tb, tn);
        if (c == 0 && ad > t)
            c = -1;
    }
    return neg ? -c : c;
}
