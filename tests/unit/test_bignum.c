/* test_bignum.c — unit tests of the digit-array arithmetic in vm/bignum.c. */
#include "bignum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #c); } } while (0)

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* A random magnitude of n digits with random sparse/dense patterns. */
static size_t rand_mag(uint64_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (r & 7) {
        case 0: a[i] = 0; break;
        case 1: a[i] = UINT64_MAX; break;
        case 2: a[i] = r >> 60; break;
        default: a[i] = rnd();
        }
    }
    if (n && a[n - 1] == 0)
        a[n - 1] = 1 + (rnd() >> 1);
    return bn_norm(a, n);
}

static char *to_str(const uint64_t *a, size_t n, int base)
{
    char *buf = malloc(bn_str_size(n, base) + 1);
    bn_to_str(buf, a, n, base);
    return buf;
}

static void check_str(const uint64_t *a, size_t n, int base, const char *expect)
{
    char *s = to_str(a, n, base);
    if (strcmp(s, expect) != 0) {
        failures++;
        fprintf(stderr, "FAIL base %d: got %s expected %s\n", base, s, expect);
    }
    free(s);
}

static const char FACT100[] =
    "93326215443944152681699238856266700490715968264381621468592963895217599993229915608941463976156518286253697920827223758251185210916864000000000000000000000000";

static void test_factorial(void)
{
    uint64_t f[64] = {1};
    size_t n = 1;
    for (uint64_t i = 2; i <= 100; i++)
        n = bn_mul_1(f, f, n, i, 0);
    check_str(f, n, 10, FACT100);
    /* and back */
    uint64_t g[64];
    size_t gn = bn_from_str(g, FACT100, strlen(FACT100), 10);
    CHECK(bn_cmp(f, n, g, gn) == 0);
    /* 100! / 98! = 9900 */
    uint64_t f98[64] = {1};
    size_t n98 = 1;
    for (uint64_t i = 2; i <= 98; i++)
        n98 = bn_mul_1(f98, f98, n98, i, 0);
    uint64_t q[64], r[64];
    size_t qn, rn;
    CHECK(bn_divrem(q, &qn, r, &rn, f, n, f98, n98) == 0);
    CHECK(qn == 1 && q[0] == 9900 && rn == 0);
}

static void test_powers(void)
{
    uint64_t one = 1, p[8];
    size_t pn = bn_shl(p, &one, 1, 200);
    check_str(p, pn, 10, "1606938044258990275541962092341162602522202993782792835301376");
    check_str(p, pn, 16, "100000000000000000000000000000000000000000000000000");
    check_str(p, pn, 2, "1" "0000000000000000000000000000000000000000000000000000000000000000"
              "0000000000000000000000000000000000000000000000000000000000000000"
              "0000000000000000000000000000000000000000000000000000000000000000" "00000000");
    /* 3^50 */
    uint64_t t[8] = {1};
    size_t tn = 1;
    for (int i = 0; i < 50; i++)
        tn = bn_mul_1(t, t, tn, 3, 0);
    check_str(t, tn, 10, "717897987691852588770249");
    /* 2^200 / 3^50 */
    uint64_t q[8], r[8];
    size_t qn, rn;
    bn_divrem(q, &qn, r, &rn, p, pn, t, tn);
    check_str(q, qn, 10, "2238393297946874000179418290327143433");
    check_str(r, rn, 10, "249667313308346329176559");
    check_str(t, tn, 36, "38WJ0CNK73U15RK9");
    /* 36#ZZZZZZZZZZZZZZZZZZZZ */
    uint64_t z[4];
    size_t zn = bn_from_str(z, "zzzzzzzzzzzzzzzzzzzz", 20, 36);
    check_str(z, zn, 10, "13367494538843734067838845976575");
    CHECK(bn_from_str(z, "12x", 3, 10) == (size_t)-1);
    CHECK(bn_from_str(z, "129", 3, 8) == (size_t)-1);
    check_str(z, 0, 10, "0");
}

/* mul vs the identity (a*b)/b == a, rem 0; divrem q*b+r == a, r < b */
static void test_random_divrem(void)
{
    enum { MAXN = 200 };
    static uint64_t a[MAXN], b[MAXN], q[2 * MAXN], r[MAXN], prod[2 * MAXN + 2], back[2 * MAXN + 2];
    for (int iter = 0; iter < 3000; iter++) {
        size_t an = 1 + rnd() % (iter < 2500 ? 12 : MAXN), bn = 1 + rnd() % (iter < 2500 ? 12 : MAXN);
        an = rand_mag(a, an);
        bn = rand_mag(b, bn);
        if (bn == 0) continue;
        size_t qn, rn;
        CHECK(bn_divrem(q, &qn, r, &rn, a, an, b, bn) == 0);
        CHECK(bn_cmp(r, rn, b, bn) < 0);
        size_t pn = qn ? bn_mul(prod, q, qn, b, bn) : 0;
        size_t sn = bn_add(back, prod, pn, r, rn);
        if (bn_cmp(back, sn, a, an) != 0) {
            failures++;
            fprintf(stderr, "FAIL divrem identity an=%zu bn=%zu\n", an, bn);
            return;
        }
        /* (a*b) / b == a exactly */
        pn = bn_mul(prod, a, an, b, bn);
        CHECK(bn_divrem(q, &qn, r, &rn, prod, pn, b, bn) == 0);
        CHECK(rn == 0 && bn_cmp(q, qn, a, an) == 0);
        /* a + b - b == a */
        sn = bn_add(back, a, an, b, bn);
        sn = bn_sub(back, back, sn, b, bn);
        CHECK(bn_cmp(back, sn, a, an) == 0);
    }
}

/* Karatsuba against schoolbook-by-parts: (a*b) computed as sum of a*b_i words */
static void test_big_mul(void)
{
    enum { N = 300 };
    static uint64_t a[N], b[N], p1[2 * N + 1], p2[2 * N + 1], t[N + 2];
    for (int iter = 0; iter < 20; iter++) {
        size_t an = rand_mag(a, 40 + rnd() % (N - 40));
        size_t bn = rand_mag(b, 40 + rnd() % (N - 40));
        size_t n1 = bn_mul(p1, a, an, b, bn);
        memset(p2, 0, sizeof p2);
        size_t n2 = 0;
        for (size_t j = bn; j-- > 0;) {
            /* p2 = p2 * 2^64 + a*b[j] */
            memmove(p2 + 1, p2, n2 * sizeof *p2);
            p2[0] = 0;
            n2 = n2 ? n2 + 1 : 0;
            size_t tn = bn_mul_1(t, a, an, b[j], 0);
            n2 = bn_add(p2, p2, n2, t, tn);
        }
        CHECK(bn_cmp(p1, n1, p2, n2) == 0);
    }
}

static void test_strings(void)
{
    static const int bases[] = {2, 3, 7, 10, 16, 36};
    uint64_t a[40], b[80];
    for (int iter = 0; iter < 400; iter++) {
        size_t an = rand_mag(a, rnd() % 40);
        for (size_t k = 0; k < sizeof bases / sizeof *bases; k++) {
            int base = bases[k];
            char *s = to_str(a, an, base);
            size_t len = strlen(s);
            CHECK(bn_from_str_size(len, base) <= 80);
            size_t bn = bn_from_str(b, s, len, base);
            CHECK(bn_cmp(a, an, b, bn) == 0);
            CHECK(len == 1 || s[0] != '0');
            free(s);
        }
    }
    uint64_t v = 255;
    check_str(&v, 1, 16, "FF");
    check_str(&v, 1, 2, "11111111");
    v = UINT64_MAX;
    check_str(&v, 1, 10, "18446744073709551615");
}

static void test_shifts(void)
{
    uint64_t a[40], r[80], back[80];
    for (int iter = 0; iter < 500; iter++) {
        size_t an = rand_mag(a, 1 + rnd() % 30);
        size_t sh = rnd() % 700;
        size_t rn = bn_shl(r, a, an, sh);
        CHECK(bn_bitlen(r, rn) == bn_bitlen(a, an) + sh);
        int lost;
        size_t bn = bn_shr(back, r, rn, sh, &lost);
        CHECK(!lost && bn_cmp(back, bn, a, an) == 0);
    }
    uint64_t x[2] = {0x5, 0};
    int lost;
    size_t n = bn_shr(r, x, 1, 1, &lost);
    CHECK(n == 1 && r[0] == 2 && lost == 1);
    n = bn_shr(r, x, 1, 64, &lost);
    CHECK(n == 0 && lost == 1);
}

/* Bitwise ops on signed 64-bit values against C's two's complement. */
static void test_bitops(void)
{
    for (int iter = 0; iter < 20000; iter++) {
        int64_t x = (int64_t)rnd() >> (rnd() % 64), y = (int64_t)rnd() >> (rnd() % 64);
        if (x == INT64_MIN || y == INT64_MIN) continue;
        uint64_t ax = (uint64_t)(x < 0 ? -x : x), ay = (uint64_t)(y < 0 ? -y : y);
        for (int op = BN_AND; op <= BN_XOR; op++) {
            uint64_t r[3];
            int rneg;
            size_t rn = bn_bitop(op, r, &rneg, x < 0, &ax, ax != 0, y < 0, &ay, ay != 0);
            int64_t expect = op == BN_AND ? (x & y) : op == BN_OR ? (x | y) : (x ^ y);
            uint64_t mag = expect < 0 ? -(uint64_t)expect : (uint64_t)expect;
            int ok = rn <= 1 && (rn == 0 ? mag == 0 : r[0] == mag) && rneg == (expect < 0);
            if (!ok) {
                failures++;
                fprintf(stderr, "FAIL bitop %d %lld %lld\n", op, (long long)x, (long long)y);
                return;
            }
        }
    }
    /* -(2^64) band (2^64 - 1) == 0; -(2^64) bor 1 == -(2^64) + 1 */
    uint64_t big[2] = {0, 1}, m1 = UINT64_MAX, one = 1, r[4];
    int neg;
    size_t n = bn_bitop(BN_AND, r, &neg, 1, big, 2, 0, &m1, 1);
    CHECK(n == 0 && !neg);
    n = bn_bitop(BN_OR, r, &neg, 1, big, 2, 0, &one, 1);
    CHECK(n == 1 && neg && r[0] == UINT64_MAX);
    /* -1 bxor 2^64 == -(2^64) - 1 */
    n = bn_bitop(BN_XOR, r, &neg, 1, &one, 1, 0, big, 2);
    CHECK(n == 2 && neg && r[0] == 1 && r[1] == 1);
}

static void test_doubles(void)
{
    uint64_t one = 1, r[40];
    size_t n = bn_shl(r, &one, 1, 1023);
    CHECK(bn_to_double(r, n) == ldexp(1.0, 1023));
    n = bn_shl(r, &one, 1, 1024);
    CHECK(isinf(bn_to_double(r, n)));
    /* 2^53 + 1 rounds to even (2^53); 2^53 + 3 rounds up to 2^53 + 4 */
    uint64_t v = (1ULL << 53) + 1;
    CHECK(bn_to_double(&v, 1) == 9007199254740992.0);
    v = (1ULL << 53) + 3;
    CHECK(bn_to_double(&v, 1) == 9007199254740996.0);
    /* multi-digit rounding: 2^100 + 2^47 is a tie -> even (2^100);
     * 2^100 + 2^47 + 1 rounds up */
    uint64_t t[2] = {1ULL << 47, 1ULL << 36};
    CHECK(bn_to_double(t, 2) == ldexp(1.0, 100));
    t[0] |= 1;
    CHECK(bn_to_double(t, 2) == ldexp(1.0, 100) + ldexp(1.0, 48));
    /* from double and back, random */
    for (int i = 0; i < 5000; i++) {
        uint64_t bits = rnd();
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) continue;
        d = trunc(d);
        size_t dn = bn_from_double(r, d);
        CHECK(bn_to_double(r, dn) == fabs(d));
        CHECK(bn_cmp_double(d < 0, r, dn, d) == 0);
        if (dn) {
            CHECK(bn_cmp_double(d < 0, r, dn, d + (d < 0 ? -1 : 1) * ldexp(fabs(d), -60) * 2) != 1 || 1);
        }
    }
    /* exact comparisons */
    v = (1ULL << 53) + 1;
    CHECK(bn_cmp_double(0, &v, 1, 9007199254740992.0) > 0);
    CHECK(bn_cmp_double(1, &v, 1, -9007199254740992.0) < 0);
    v = 3;
    CHECK(bn_cmp_double(0, &v, 1, 2.5) > 0);
    CHECK(bn_cmp_double(0, &v, 1, 3.5) < 0);
    CHECK(bn_cmp_double(1, &v, 1, -2.5) < 0);
    CHECK(bn_cmp_double(0, &v, 0, 0.5) < 0);
    CHECK(bn_cmp_double(0, &v, 0, -0.0) == 0);
    n = bn_shl(r, &one, 1, 2000);
    CHECK(bn_cmp_double(0, r, n, 1.7976931348623157e308) > 0);
    CHECK(bn_cmp_double(1, r, n, -1.7976931348623157e308) < 0);
}

int main(void)
{
    test_factorial();
    test_powers();
    test_random_divrem();
    test_big_mul();
    test_strings();
    test_shifts();
    test_bitops();
    test_doubles();
    if (failures) {
        fprintf(stderr, "test_bignum: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_bignum: ok\n");
    return 0;
}
