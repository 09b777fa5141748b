/* bif_math.c — the `math` module: C library functions on floats.
 *
 * As in OTP, every argument may be an integer or a float; a non-number
 * raises badarg, and an argument the function is not defined for, or a
 * result that is not a finite float (sqrt(-1), log(0), pow(10, 400)), or a
 * big integer too large for a double, raises badarith. Results are always
 * floats (math:floor(5) is 5.0). */
#include <math.h>

#include "bif.h"
#include "arith.h"
#include "atom.h"

/* the argument as a double: 1, or 0 after raising */
static int arg(Process *p, Term t, double *out)
{
    if (term_to_double(t, out))
        return 1;
    bif_raise(p, EXC_ERROR, is_number(t) ? AM_badarith : AM_badarg);
    return 0;
}

static Term result(Process *p, double r)
{
    if (!isfinite(r))
        BIF_ERROR(p, AM_badarith);
    return make_float(p, r);
}

static Term math1(Process *p, Term *args, double (*fn)(double))
{
    double x;
    if (!arg(p, args[0], &x))
        return THE_NON_VALUE;
    return result(p, fn(x));
}

static Term math2(Process *p, Term *args, double (*fn)(double, double))
{
    double x, y;
    if (!arg(p, args[0], &x) || !arg(p, args[1], &y))
        return THE_NON_VALUE;
    return result(p, fn(x, y));
}

#define MATH1(name) \
    Term bif_math_##name##_1(Process *p, Term *args) { return math1(p, args, name); }
#define MATH2(name) \
    Term bif_math_##name##_2(Process *p, Term *args) { return math2(p, args, name); }

MATH1(sin) MATH1(cos) MATH1(tan) MATH1(asin) MATH1(acos) MATH1(atan)
MATH1(sinh) MATH1(cosh) MATH1(tanh) MATH1(asinh) MATH1(acosh) MATH1(atanh)
MATH1(exp) MATH1(log) MATH1(log2) MATH1(log10) MATH1(sqrt)
MATH1(erf) MATH1(erfc) MATH1(floor) MATH1(ceil)
MATH2(atan2) MATH2(pow) MATH2(fmod)

Term bif_math_pi_0(Process *p, Term *args)
{
    (void)args;
    return make_float(p, M_PI);
}
