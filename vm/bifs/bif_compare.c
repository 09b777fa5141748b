/* bif_compare.c — comparison and boolean operators, max/min (bifs.def). */
#include "atom.h"
#include "bif.h"
#include "compare.h"


static inline int is_bool(Term t) { return t == AM_true || t == AM_false; }

Term bif_eq_2(Process *p, Term *args) { (void)p; return BOOL(term_eq(args[0], args[1])); }
Term bif_ne_2(Process *p, Term *args) { (void)p; return BOOL(!term_eq(args[0], args[1])); }
Term bif_exact_eq_2(Process *p, Term *args) { (void)p; return BOOL(term_eq_exact(args[0], args[1])); }
Term bif_exact_ne_2(Process *p, Term *args) { (void)p; return BOOL(!term_eq_exact(args[0], args[1])); }
Term bif_lt_2(Process *p, Term *args) { (void)p; return BOOL(term_compare(args[0], args[1]) < 0); }
Term bif_gt_2(Process *p, Term *args) { (void)p; return BOOL(term_compare(args[0], args[1]) > 0); }
Term bif_le_2(Process *p, Term *args) { (void)p; return BOOL(term_compare(args[0], args[1]) <= 0); }
Term bif_ge_2(Process *p, Term *args) { (void)p; return BOOL(term_compare(args[0], args[1]) >= 0); }

Term bif_not_1(Process *p, Term *args)
{
    if (!is_bool(args[0]))
        BIF_ERROR(p, AM_badarg);
    return BOOL(args[0] == AM_false);
}

Term bif_and_2(Process *p, Term *args)
{
    if (!is_bool(args[0]) || !is_bool(args[1]))
        BIF_ERROR(p, AM_badarg);
    return BOOL(args[0] == AM_true && args[1] == AM_true);
}

Term bif_or_2(Process *p, Term *args)
{
    if (!is_bool(args[0]) || !is_bool(args[1]))
        BIF_ERROR(p, AM_badarg);
    return BOOL(args[0] == AM_true || args[1] == AM_true);
}

Term bif_xor_2(Process *p, Term *args)
{
    if (!is_bool(args[0]) || !is_bool(args[1]))
        BIF_ERROR(p, AM_badarg);
    return BOOL((args[0] == AM_true) != (args[1] == AM_true));
}

/* If the two compare equal (==), the first is returned, as in Erlang. */
Term bif_max_2(Process *p, Term *args)
{
    (void)p;
    return term_compare(args[0], args[1]) >= 0 ? args[0] : args[1];
}

Term bif_min_2(Process *p, Term *args)
{
    (void)p;
    return term_compare(args[0], args[1]) <= 0 ? args[0] : args[1];
}
