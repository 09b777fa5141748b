/* test_arith.c — unit tests of term arithmetic (arith.c), term order
 * (compare.c), number text (num_text.c) and literal integers (literal.c). */
#include "arith.h"
#include "atom.h"
#include "compare.h"
#include "literal.h"
#include "num_text.h"

#include <gc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #c); } } while (0)

static Process *P;

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static Term I(int64_t v) { return make_integer(P, v); }
static Term F(double d) { return make_float(P, d); }

/* integer from decimal text, or fails the test */
static Term N(const char *s)
{
    Term t = chars_to_integer(P, s, strlen(s), 10);
    if (t == THE_NON_VALUE) {
        failures++;
        fprintf(stderr, "FAIL: bad number text %s\n", s);
        return make_small(0);
    }
    return t;
}

static int text_is(Term i, int base, const char *expect)
{
    char *s = integer_to_chars(i, base, NULL);
    int ok = strcmp(s, expect) == 0;
    if (!ok)
        fprintf(stderr, "  got %s, expected %s\n", s, expect);
    free(s);
    return ok;
}

static int raised(Term r, Term reason)
{
    int ok = r == THE_NON_VALUE && P->exc_class == EXC_ERROR && P->exc_reason == reason;
    P->exc_class = 0;
    P->exc_reason = THE_NON_VALUE;
    return ok;
}

static int is_float_eq(Term t, double d)
{
    return t != THE_NON_VALUE && is_float(t) && float_val(t) == d;
}

static void test_small_boundaries(void)
{
    Term max = make_small(MAX_SMALL), min = make_small(MIN_SMALL);
    Term over = arith_add(P, max, make_small(1));
    CHECK(is_big(over) && text_is(over, 10, "576460752303423488"));
    Term back = arith_sub(P, over, make_small(1));
    CHECK(back == max);                          /* fits small: must be small */
    Term under = arith_sub(P, min, make_small(1));
    CHECK(is_big(under) && big_is_neg(under));
    CHECK(arith_add(P, under, make_small(1)) == min);
    CHECK(is_big(arith_neg(P, min)) && arith_neg(P, arith_neg(P, min)) == min);
    CHECK(is_big(arith_abs(P, min)));
    CHECK(arith_idiv(P, min, make_small(-1)) == arith_neg(P, min) || term_eq_exact(arith_idiv(P, min, make_small(-1)), arith_neg(P, min)));
    CHECK(I(INT64_MAX) != THE_NON_VALUE && text_is(I(INT64_MAX), 10, "9223372036854775807"));
    CHECK(text_is(I(INT64_MIN), 10, "-9223372036854775808"));
    int64_t v;
    CHECK(term_to_int64(I(INT64_MIN), &v) && v == INT64_MIN);
    CHECK(!term_to_int64(arith_sub(P, I(INT64_MIN), make_small(1)), &v));
    /* small * small overflowing 64 bits */
    Term sq = arith_mul(P, max, max);
    CHECK(text_is(sq, 10, "332306998946228967073030260463239169"));
    CHECK(arith_idiv(P, sq, max) == max);
    CHECK(arith_mul(P, make_small(-3), make_small(7)) == make_small(-21));
    CHECK(arith_bnot(P, make_small(0)) == make_small(-1));
    CHECK(arith_bnot(P, max) == min);
    /* big results that shrink back to small */
    Term big = N("100000000000000000000000");
    CHECK(arith_sub(P, big, arith_sub(P, big, make_small(5))) == make_small(5));
    CHECK(arith_band(P, big, make_small(0xFFFF)) == make_small(0));
    CHECK(arith_bsr(P, big, make_small(70)) == make_small(84));
}

static const char FACT100[] =
    "93326215443944152681699238856266700490715968264381621468592963895217599993229915608941463976156518286253697920827223758251185210916864000000000000000000000000";

static void test_factorial_powers(void)
{
    Term f = make_small(1);
    for (int i = 2; i <= 100; i++)
        f = arith_mul(P, f, make_small(i));
    CHECK(text_is(f, 10, FACT100));
    for (int i = 100; i >= 2; i--)
        f = arith_idiv(P, f, make_small(i));
    CHECK(f == make_small(1));
    Term p200 = arith_bsl(P, make_small(1), make_small(200));
    CHECK(text_is(p200, 10, "1606938044258990275541962092341162602522202993782792835301376"));
    Term p50 = make_small(1);
    for (int i = 0; i < 50; i++)
        p50 = arith_mul(P, p50, make_small(3));
    CHECK(text_is(p50, 10, "717897987691852588770249"));
    CHECK(text_is(arith_idiv(P, p200, p50), 10, "2238393297946874000179418290327143433"));
    CHECK(text_is(arith_rem(P, p200, p50), 10, "249667313308346329176559"));
    CHECK(text_is(arith_rem(P, arith_neg(P, p200), p50), 10, "-249667313308346329176559"));
    CHECK(text_is(arith_idiv(P, arith_neg(P, p200), p50), 10, "-2238393297946874000179418290327143433"));
    CHECK(text_is(arith_idiv(P, p200, arith_neg(P, p50)), 10, "-2238393297946874000179418290327143433"));
    CHECK(text_is(arith_rem(P, p200, arith_neg(P, p50)), 10, "249667313308346329176559"));
    /* 3^60 as in tests/lang/bignum_convert */
    Term p60 = arith_mul(P, p50, make_small(59049));
    CHECK(text_is(p60, 10, "42391158275216203514294433201"));
    CHECK(text_is(p60, 2, "100010001111100100100100111011101100111011101101101001111111111010010010111000011111010110110001"));
    CHECK(text_is(make_small(255), 16, "FF"));
    CHECK(text_is(make_small(-255), 16, "-FF"));
    CHECK(text_is(make_small(0), 36, "0"));
}

static void test_small_divrem(void)
{
    CHECK(arith_idiv(P, make_small(-7), make_small(2)) == make_small(-3));
    CHECK(arith_rem(P, make_small(-7), make_small(2)) == make_small(-1));
    CHECK(arith_idiv(P, make_small(7), make_small(-2)) == make_small(-3));
    CHECK(arith_rem(P, make_small(7), make_small(-2)) == make_small(1));
    CHECK(raised(arith_idiv(P, make_small(1), make_small(0)), AM_badarith));
    CHECK(raised(arith_rem(P, N("100000000000000000000000"), make_small(0)), AM_badarith));
    CHECK(raised(arith_idiv(P, F(1.0), make_small(1)), AM_badarith));
    CHECK(raised(arith_rem(P, make_small(1), F(1.0)), AM_badarith));
}

/* Random integers of up to ~20 digits, small and big, positive and negative. */
static Term rand_int(void)
{
    int words = 1 + (int)(rnd() % 6);
    Term t = make_small((SWord)(rnd() >> 40));
    for (int i = 1; i < words; i++)
        t = arith_add(P, arith_mul(P, t, N("18446744073709551616")), make_integer_from_double(P, (double)(rnd() >> 12)));
    if (rnd() & 1)
        t = arith_neg(P, t);
    return t;
}

static void test_random_identities(void)
{
    for (int k = 0; k < 3000; k++) {
        Term a = rand_int(), b = rand_int();
        if (b == make_small(0))
            continue;
        Term q = arith_idiv(P, a, b), r = arith_rem(P, a, b);
        Term back = arith_add(P, arith_mul(P, q, b), r);
        if (!term_eq_exact(back, a)) {
            failures++;
            fprintf(stderr, "FAIL q*b + r == a\n");
            break;
        }
        /* |r| < |b| and r has the sign of a (or is 0) */
        CHECK(term_compare(arith_abs(P, r), arith_abs(P, b)) < 0);
        CHECK(r == make_small(0) || (term_compare(r, make_small(0)) < 0) == (term_compare(a, make_small(0)) < 0));
        /* (a + b) - b == a, a - a == 0 */
        CHECK(term_eq_exact(arith_sub(P, arith_add(P, a, b), b), a));
        CHECK(arith_sub(P, a, a) == make_small(0));
        /* bnot bnot a == a; a bxor a == 0; a band a == a; bnot a == -a - 1 */
        CHECK(term_eq_exact(arith_bnot(P, arith_bnot(P, a)), a));
        CHECK(arith_bxor(P, a, a) == make_small(0));
        CHECK(term_eq_exact(arith_band(P, a, a), a));
        CHECK(term_eq_exact(arith_bnot(P, a), arith_sub(P, arith_neg(P, a), make_small(1))));
        /* a bor b == (a band b) + (a bxor b) */
        CHECK(term_eq_exact(arith_bor(P, a, b),
                            arith_add(P, arith_band(P, a, b), arith_bxor(P, a, b))));
        /* (a bsl n) bsr n == a; a bsr n == floor(a / 2^n) */
        SWord n = (SWord)(rnd() % 150);
        Term sh = arith_bsl(P, a, make_small(n));
        CHECK(term_eq_exact(arith_bsr(P, sh, make_small(n)), a));
        CHECK(term_eq_exact(arith_bsl(P, a, make_small(-n)), arith_bsr(P, a, make_small(n))));
        Term pow = arith_bsl(P, make_small(1), make_small(n));
        Term fl = arith_idiv(P, a, pow);
        if (term_compare(a, make_small(0)) < 0 && arith_rem(P, a, pow) != make_small(0))
            fl = arith_sub(P, fl, make_small(1));
        CHECK(term_eq_exact(arith_bsr(P, a, make_small(n)), fl));
        /* text round trips */
        static const int bases[] = {2, 10, 16, 36};
        for (int i = 0; i < 4; i++) {
            size_t len;
            char *s = integer_to_chars(a, bases[i], &len);
            Term t = chars_to_integer(P, s, len, bases[i]);
            CHECK(t != THE_NON_VALUE && term_eq_exact(t, a));
            free(s);
        }
    }
}

static void test_bitwise_negative(void)
{
    /* bitwise ops on negatives via bignums agree with small-integer results */
    for (int k = 0; k < 5000; k++) {
        SWord x = (SWord)(rnd() >> (5 + rnd() % 59)) * ((rnd() & 1) ? -1 : 1);
        SWord y = (SWord)(rnd() >> (5 + rnd() % 59)) * ((rnd() & 1) ? -1 : 1);
        Term bx = arith_bsl(P, make_small(x), make_small(70));
        Term by = arith_bsl(P, make_small(y), make_small(70));
        Term r;
        r = arith_bsr(P, arith_band(P, bx, by), make_small(70));
        CHECK(r == make_small(x & y));
        r = arith_bsr(P, arith_bor(P, bx, by), make_small(70));
        CHECK(r == make_small(x | y));
        r = arith_bsr(P, arith_bxor(P, bx, by), make_small(70));
        CHECK(r == make_small(x ^ y));
        /* mixed big/small */
        r = arith_band(P, bx, make_small(y));
        CHECK(r == make_small(0) || y < 0);
        CHECK(arith_band(P, arith_add(P, bx, make_small(x & 0xFFFF)), make_small(0xFFFF)) == make_small(x & 0xFFFF));
    }
    CHECK(arith_bsr(P, make_small(-1), make_small(100)) == make_small(-1));
    CHECK(arith_bsr(P, make_small(-5), make_small(1)) == make_small(-3));
    CHECK(arith_bsr(P, make_small(5), make_small(1)) == make_small(2));
    CHECK(arith_bsl(P, make_small(-1), make_small(-3)) == make_small(-1));
    Term m = arith_bsl(P, make_small(-1), make_small(100));
    CHECK(text_is(m, 10, "-1267650600228229401496703205376"));
    CHECK(arith_bsr(P, m, make_small(100)) == make_small(-1));
    CHECK(arith_bsr(P, arith_sub(P, m, make_small(1)), make_small(100)) == make_small(-2));
    CHECK(arith_bsr(P, m, make_small(1000)) == make_small(-1));
    CHECK(arith_bsr(P, arith_neg(P, m), make_small(1000)) == make_small(0));
    CHECK(arith_bsr(P, m, N("100000000000000000000000")) == make_small(-1));
    CHECK(arith_bsl(P, make_small(0), N("100000000000000000000000")) == make_small(0));
    CHECK(raised(arith_bsl(P, make_small(1), N("100000000000000000000000")), ATOM_TERM(system_limit)));
    CHECK(text_is(arith_band(P, m, N("-1")), 16, "-10000000000000000000000000"));
    CHECK(text_is(arith_bor(P, m, make_small(0xFF)), 10, "-1267650600228229401496703205121"));
    CHECK(text_is(arith_bxor(P, m, make_small(-1)), 10, "1267650600228229401496703205375"));
    CHECK(text_is(arith_bnot(P, m), 10, "1267650600228229401496703205375"));
    /* 1 bsl 100000 */
    Term huge = arith_bsl(P, make_small(1), make_small(100000));
    CHECK(is_big(huge) && big_size(huge) == 100000 / 64 + 1);
    CHECK(arith_bsr(P, huge, make_small(100000)) == make_small(1));
    CHECK(raised(arith_band(P, make_small(1), F(1.0)), AM_badarith));
    CHECK(raised(arith_bsl(P, AM_ok, make_small(1)), AM_badarith));
    CHECK(raised(arith_bnot(P, F(1.0)), AM_badarith));
}

static void test_floats(void)
{
    CHECK(is_float_eq(arith_add(P, make_small(1), F(0.5)), 1.5));
    CHECK(is_float_eq(arith_mul(P, F(2.0), make_small(3)), 6.0));
    CHECK(is_float_eq(arith_fdiv(P, make_small(1), make_small(4)), 0.25));
    CHECK(is_float_eq(arith_fdiv(P, make_small(4), make_small(2)), 2.0));
    CHECK(raised(arith_fdiv(P, make_small(1), make_small(0)), AM_badarith));
    CHECK(raised(arith_fdiv(P, F(1.0), F(0.0)), AM_badarith));
    CHECK(raised(arith_fdiv(P, F(1.0), F(-0.0)), AM_badarith));
    CHECK(raised(arith_mul(P, F(1.0e308), make_small(10)), AM_badarith));
    Term big2000 = arith_bsl(P, make_small(1), make_small(2000));
    CHECK(raised(arith_add(P, big2000, F(1.0)), AM_badarith));
    CHECK(raised(arith_float(P, big2000), AM_badarg));
    CHECK(raised(arith_float(P, AM_ok), AM_badarg));
    CHECK(raised(arith_round(P, AM_ok), AM_badarg));
    CHECK(raised(arith_trunc(P, NIL), AM_badarg));
    CHECK(raised(arith_add(P, AM_ok, make_small(1)), AM_badarith));
    CHECK(raised(arith_add(P, make_small(1), NIL), AM_badarith));
    CHECK(raised(arith_neg(P, AM_ok), AM_badarith));
    CHECK(is_float_eq(arith_add(P, N("100000000000000000000"), F(0.0)), 1.0e20));
    CHECK(is_float_eq(arith_float(P, arith_add(P, make_small((SWord)1 << 53), make_small(0))), 9007199254740992.0));
    CHECK(is_float_eq(arith_float(P, N("9007199254740993")), 9007199254740992.0));
    CHECK(is_float_eq(arith_float(P, N("9007199254740995")), 9007199254740996.0));
    CHECK(is_float_eq(arith_float(P, N("10000000000000000000000000")), 1.0e25));
    CHECK(text_is(arith_trunc(P, F(1.0e20)), 10, "100000000000000000000"));
    CHECK(text_is(arith_round(P, F(1.5e19)), 10, "15000000000000000000"));
    CHECK(text_is(arith_trunc(P, F(-1.0e25)), 10, "-10000000000000000905969664"));
    CHECK(arith_round(P, F(2.5)) == make_small(3));
    CHECK(arith_round(P, F(-2.5)) == make_small(-3));
    CHECK(arith_round(P, F(0.49999999999999994)) == make_small(0));
    CHECK(arith_trunc(P, F(-1.7)) == make_small(-1));
    CHECK(arith_floor(P, F(-1.5)) == make_small(-2));
    CHECK(arith_ceil(P, F(-1.5)) == make_small(-1));
    CHECK(arith_ceil(P, F(1.2)) == make_small(2));
    CHECK(arith_floor(P, make_small(7)) == make_small(7));
    CHECK(arith_round(P, big2000) == big2000);
    CHECK(is_float_eq(arith_abs(P, F(-2.5)), 2.5));
    CHECK(is_float_eq(arith_neg(P, F(2.5)), -2.5));
    CHECK(arith_plus(P, F(2.5)) != THE_NON_VALUE);
    CHECK(raised(arith_plus(P, AM_ok), AM_badarith));
}

static Term atom(const char *s) { return atom_intern_cstr(s); }

static Term tuple(int n, ...)
{
    Term *hp = heap_alloc(P, (size_t)n + 1);
    hp[0] = make_tuple_header(n);
    __builtin_va_list ap;
    __builtin_va_start(ap, n);
    for (int i = 0; i < n; i++)
        hp[i + 1] = __builtin_va_arg(ap, Term);
    __builtin_va_end(ap);
    return make_boxed(hp);
}

static Term cons(Term h, Term t)
{
    Term *hp = heap_alloc(P, 2);
    hp[0] = h;
    hp[1] = t;
    return make_list(hp);
}

static Term ref(UWord n)
{
    Term *hp = heap_alloc(P, 2);
    hp[0] = make_header(1, BOXED_REF);
    hp[1] = n;
    return make_boxed(hp);
}

static void test_compare(void)
{
    /* strictly increasing in Erlang's term order */
    Term order[] = {
        arith_neg(P, arith_bsl(P, make_small(1), make_small(100))),
        F(-1.0e20),
        make_small(-5),
        F(-0.5),
        make_small(0),
        F(0.5),
        make_small(1),
        F(1.5),
        N("9007199254740992"),
        N("9007199254740993"),
        F(9007199254740994.0),
        N("18446744073709551615"),
        F(18446744073709551616.0),
        N("18446744073709551617"),
        F(1.0e300),
        arith_bsl(P, make_small(1), make_small(2000)),
        atom("a"), atom("aa"), atom("ab"), atom("b"),
        ref(1), ref(2),
        make_port(1), make_port(7),
        make_pid(0), make_pid(3),
        tuple(0), tuple(1, make_small(9)), tuple(2, make_small(1), make_small(2)),
        tuple(2, make_small(1), atom("x")), tuple(3, make_small(0), make_small(0), make_small(0)),
        NIL,
        cons(make_small(1), NIL),
        cons(make_small(1), cons(make_small(2), NIL)),
        cons(make_small(1), cons(make_small(3), NIL)),
        cons(make_small(2), NIL),
        cons(atom("a"), NIL),
    };
    size_t n = sizeof order / sizeof *order;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = term_compare(order[i], order[j]);
            int expect = i < j ? -1 : i > j;
            if ((c < 0 ? -1 : c > 0) != expect) {
                failures++;
                fprintf(stderr, "FAIL term_compare(order[%zu], order[%zu]) = %d\n", i, j, c);
            }
            CHECK(term_eq(order[i], order[j]) == (i == j));
            CHECK(term_eq_exact(order[i], order[j]) == (i == j));
        }
    /* == vs =:= */
    CHECK(term_eq(make_small(1), F(1.0)));
    CHECK(!term_eq_exact(make_small(1), F(1.0)));
    CHECK(term_compare(make_small(1), F(1.0)) == 0);
    CHECK(term_compare_exact(make_small(2), F(1.0)) < 0);    /* map key order */
    CHECK(term_compare_exact(F(1.0), make_small(1)) > 0);
    CHECK(term_eq(N("18446744073709551616"), F(18446744073709551616.0)));
    CHECK(!term_eq_exact(N("18446744073709551616"), F(18446744073709551616.0)));
    CHECK(term_eq_exact(F(0.0), F(-0.0)));
    CHECK(term_eq(tuple(2, make_small(1), F(2.0)), tuple(2, F(1.0), make_small(2))));
    CHECK(!term_eq_exact(tuple(2, make_small(1), F(2.0)), tuple(2, F(1.0), make_small(2))));
    CHECK(term_eq_exact(tuple(2, N("100000000000000000000"), atom("z")),
                        tuple(2, N("100000000000000000000"), atom("z"))));
    CHECK(!term_eq_exact(cons(make_small(1), make_small(2)), cons(make_small(1), make_small(3))));
    CHECK(term_compare(cons(make_small(1), make_small(2)), cons(make_small(1), make_small(3))) < 0);
    /* long lists and deep nesting: no C recursion */
    Term l1 = NIL, l2 = NIL;
    for (int i = 0; i < 1000000; i++) {
        l1 = cons(make_small(i), l1);
        l2 = cons(make_small(i), l2);
    }
    CHECK(term_eq_exact(l1, l2));
    CHECK(term_compare(cons(make_small(0), l1), cons(make_small(0), cons(make_small(-1), l2))) > 0);
    Term d1 = NIL, d2 = NIL;
    for (int i = 0; i < 200000; i++) {
        d1 = tuple(2, d1, make_small(i));
        d2 = tuple(2, d2, make_small(i));
    }
    CHECK(term_eq_exact(d1, d2));
    Term n1 = NIL, n2 = NIL;
    for (int i = 0; i < 200000; i++) {
        n1 = cons(n1, NIL);
        n2 = cons(n2, NIL);
    }
    CHECK(term_compare(n1, n2) == 0);
    CHECK(term_compare(cons(n1, NIL), cons(cons(n2, NIL), NIL)) < 0);
    CHECK(number_compare(make_small(3), F(2.5)) > 0);
}

static int fmt_is(double d, const char *expect)
{
    char buf[FLOAT_SHORTEST_MAX];
    float_format_shortest(d, buf, sizeof buf);
    if (strcmp(buf, expect) != 0) {
        fprintf(stderr, "  shortest(%.17g) = %s, expected %s\n", d, buf, expect);
        return 0;
    }
    return 1;
}

static void test_text(void)
{
    /* io_lib:write / ~p text, as printed by Erlang/OTP 25 */
    CHECK(fmt_is(0.1, "0.1"));
    CHECK(fmt_is(1.0, "1.0"));
    CHECK(fmt_is(100.0, "100.0"));
    CHECK(fmt_is(1.0e10, "1.0e10"));
    CHECK(fmt_is(1.0e16, "1.0e16"));
    CHECK(fmt_is(123456789012345680.0, "1.2345678901234568e17"));
    CHECK(fmt_is(1.0e-5, "1.0e-5"));
    CHECK(fmt_is(0.001, "0.001"));
    CHECK(fmt_is(-0.0, "-0.0"));
    CHECK(fmt_is(0.0, "0.0"));
    CHECK(fmt_is(3.14, "3.14"));
    CHECK(fmt_is(2.5e-10, "2.5e-10"));
    CHECK(fmt_is(5.0e-324, "5.0e-324"));
    CHECK(fmt_is(1.0e-323, "1.0e-323"));
    CHECK(fmt_is(1.7976931348623157e308, "1.7976931348623157e308"));
    CHECK(fmt_is(2.2250738585072014e-308, "2.2250738585072014e-308"));
    CHECK(fmt_is(9007199254740992.0, "9.007199254740992e15"));
    CHECK(fmt_is(9007199254740991.0, "9007199254740991.0"));
    CHECK(fmt_is(0.0001, "0.0001"));
    CHECK(fmt_is(1.5e-4, "1.5e-4"));
    CHECK(fmt_is(1000.0, "1.0e3"));
    CHECK(fmt_is(120.0, "120.0"));
    CHECK(fmt_is(12000.0, "1.2e4"));
    CHECK(fmt_is(123456789012345.0, "123456789012345.0"));
    CHECK(fmt_is(0.30000000000000004, "0.30000000000000004"));
    CHECK(fmt_is(1.0e23, "1.0e23"));
    CHECK(fmt_is(1.0e22, "1.0e22"));
    CHECK(fmt_is(-1.5, "-1.5"));
    CHECK(fmt_is(0.5, "0.5"));
    CHECK(fmt_is(1234567.125, "1234567.125"));
    /* float_to_list/1 */
    char buf[64];
    float_format_default(1.5, buf, sizeof buf);
    CHECK(strcmp(buf, "1.50000000000000000000e+00") == 0);
    float_format_default(0.1, buf, sizeof buf);
    CHECK(strcmp(buf, "1.00000000000000005551e-01") == 0);
    float_format_default(-0.0, buf, sizeof buf);
    CHECK(strcmp(buf, "-0.00000000000000000000e+00") == 0);
    /* list_to_float syntax */
    double d;
    CHECK(chars_to_double("1.5", 3, &d) && d == 1.5);
    CHECK(chars_to_double("2.0e3", 5, &d) && d == 2000.0);
    CHECK(chars_to_double("-1.5E-3", 7, &d) && d == -0.0015);
    CHECK(chars_to_double("+1.5e+3", 7, &d) && d == 1500.0);
    CHECK(chars_to_double("2.5e-400", 8, &d) && d == 0.0);
    CHECK(!chars_to_double("1", 1, &d));
    CHECK(!chars_to_double("1.", 2, &d));
    CHECK(!chars_to_double(".5", 2, &d));
    CHECK(!chars_to_double("1e5", 3, &d));
    CHECK(!chars_to_double("1.5e", 4, &d));
    CHECK(!chars_to_double("1.0e400", 7, &d));
    CHECK(!chars_to_double(" 1.5", 4, &d));
    /* list_to_integer syntax */
    CHECK(chars_to_integer(P, "+12", 3, 10) == make_small(12));
    CHECK(chars_to_integer(P, "-12", 3, 10) == make_small(-12));
    CHECK(chars_to_integer(P, "-0", 2, 10) == make_small(0));
    CHECK(chars_to_integer(P, "0012", 4, 10) == make_small(12));
    CHECK(chars_to_integer(P, "12x", 3, 10) == THE_NON_VALUE);
    CHECK(chars_to_integer(P, "", 0, 10) == THE_NON_VALUE);
    CHECK(chars_to_integer(P, "+", 1, 10) == THE_NON_VALUE);
    CHECK(chars_to_integer(P, "1_000", 5, 10) == THE_NON_VALUE);
    CHECK(chars_to_integer(P, "ff", 2, 16) == make_small(255));
    CHECK(chars_to_integer(P, "-Zz", 3, 36) == make_small(-1295));
    CHECK(chars_to_integer(P, "19", 2, 8) == THE_NON_VALUE);
    Term t = chars_to_integer(P, "-99999999999999999999999", 24, 10);
    CHECK(text_is(t, 10, "-99999999999999999999999"));
    CHECK(text_is(chars_to_integer(P, "ffffffffffffffffffff", 20, 16), 10, "1208925819614629174706175"));
}

static void test_literals(void)
{
    Term a = lit_integer_text("99999999999999999999999", 10, 0);
    CHECK(is_big(a) && text_is(a, 10, "99999999999999999999999"));
    CHECK(lit_is_literal_ptr(boxed_ptr(a)));
    CHECK(!lit_is_literal_ptr(P->heap));
    CHECK(lit_integer_text("576460752303423487", 10, 0) == make_small(MAX_SMALL));
    CHECK(lit_integer_text("576460752303423488", 10, 1) == make_small(MIN_SMALL));
    CHECK(is_big(lit_integer_text("576460752303423488", 10, 0)));
    CHECK(lit_integer_text("1_000_000", 10, 0) == make_small(1000000));
    CHECK(lit_integer_text("FFFFFFFFFFFFFFFFFFFF", 16, 0) != THE_NON_VALUE);
    CHECK(text_is(lit_integer_text("FFFFFFFFFFFFFFFFFFFF", 16, 0), 10, "1208925819614629174706175"));
    CHECK(lit_integer(INT64_MIN) != THE_NON_VALUE && text_is(lit_integer(INT64_MIN), 10, "-9223372036854775808"));
    CHECK(lit_integer(-7) == make_small(-7));
    Term f = lit_float(2.5);
    CHECK(is_float(f) && float_val(f) == 2.5);
    int codes[] = {'h', 'i'};
    Term s = lit_string(codes, 2);
    CHECK(is_list(s) && list_head(s) == make_small('h') && list_tail(list_tail(s)) == NIL);
    Term el[] = {make_small(1), s};
    Term tu = lit_tuple(el, 2);
    CHECK(is_tuple(tu) && tuple_arity(tu) == 2 && tuple_elems(tu)[1] == s);
    CHECK(term_eq_exact(lit_cons(make_small(1), NIL), cons(make_small(1), NIL)));
}

/* A big result takes its own words and no more: it is computed into room
 * for its longest length (arith.c, big_open) and gives back the rest, all
 * of it when the result is a small integer, on the young heap and in a
 * fragment alike. */
/* Words q has taken from its young heap and fragments. */
static size_t words_used(Process *q)
{
    size_t n = (size_t)(q->htop - q->heap);
    for (HeapFrag *f = q->mbuf; f; f = f->next)
        n += f->used;
    return n;
}

static void test_results_in_heap(void)
{
    Process *q = process_new_memory(1000);
    Term two64 = arith_bsl(q, make_small(1), make_small(64));
    Term a = arith_add(q, two64, make_small(5));              /* 2 digits */
    size_t used = words_used(q);
    CHECK(arith_sub(q, a, two64) == make_small(5));           /* room for 3, all back */
    CHECK(words_used(q) == used);
    Term s = arith_add(q, a, a);                              /* room for 3, 2 digits */
    CHECK(is_big(s) && big_size(s) == 2 && words_used(q) == used + 3);
    used = words_used(q);
    Term m = arith_mul(q, a, a);                              /* room for 4, 3 digits */
    CHECK(is_big(m) && big_size(m) == 3 && words_used(q) == used + 4);
    used = words_used(q);
    Term h = arith_bsr(q, two64, make_small(1));              /* 2^63: room for 3, 1 digit */
    CHECK(is_big(h) && big_size(h) == 1 && words_used(q) == used + 2);
    CHECK(text_is(h, 10, "9223372036854775808"));
    used = words_used(q);
    CHECK(arith_band(q, a, make_small(7)) == make_small(5) && words_used(q) == used);
    /* past the young heap: the result's fragment keeps what it uses */
    Term x = arith_bsl(q, make_small(1), make_small(100000)); /* 1563 digits */
    used = words_used(q);
    Term y = arith_add(q, x, x);                              /* room for 1564 */
    CHECK(is_big(y) && big_size(y) == 1563 && words_used(q) == used + 1564);
    CHECK(arith_sub(q, y, arith_add(q, x, x)) == make_small(0));
    process_free_memory(q);
}

int main(void)
{
    GC_INIT();
    atom_init();
    P = process_new_memory(1000);
    test_small_boundaries();
    test_factorial_powers();
    test_small_divrem();
    test_random_identities();
    test_bitwise_negative();
    test_floats();
    test_compare();
    test_text();
    test_literals();
    test_results_in_heap();
    if (failures) {
        fprintf(stderr, "test_arith: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_arith: ok\n");
    return 0;
}
