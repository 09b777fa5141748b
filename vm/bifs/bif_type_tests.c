/* bif_type_tests.c — type tests (is_integer/1 and friends). All are guard BIFs
 * and never fail, except is_function/2 on a bad arity (badarg). */
#include "bif.h"
#include "atom.h"
#include "module.h"
#include "binary.h"


Term bif_is_integer_1(Process *p, Term *args) { (void)p; return BOOL(is_integer(args[0])); }
Term bif_is_float_1(Process *p, Term *args) { (void)p; return BOOL(is_float(args[0])); }
Term bif_is_number_1(Process *p, Term *args) { (void)p; return BOOL(is_number(args[0])); }
Term bif_is_atom_1(Process *p, Term *args) { (void)p; return BOOL(is_atom(args[0])); }
Term bif_is_boolean_1(Process *p, Term *args) {
    (void)p;
    return BOOL(args[0] == AM_true || args[0] == AM_false);
}
Term bif_is_list_1(Process *p, Term *args) {
    (void)p;
    return BOOL(is_list(args[0]) || is_nil(args[0]));
}
Term bif_is_tuple_1(Process *p, Term *args) { (void)p; return BOOL(is_tuple(args[0])); }
Term bif_is_pid_1(Process *p, Term *args) { (void)p; return BOOL(is_any_pid(args[0])); }
Term bif_is_port_1(Process *p, Term *args) { (void)p; return BOOL(is_any_port(args[0])); }
Term bif_is_reference_1(Process *p, Term *args) { (void)p; return BOOL(is_any_ref(args[0])); }
Term bif_is_function_1(Process *p, Term *args) { (void)p; return BOOL(is_fun(args[0])); }

Term bif_is_function_2(Process *p, Term *args) {
    Term f = args[0], a = args[1];
    if (!is_integer(a)) BIF_ERROR(p, AM_badarg);
    if (!is_small(a)) {
        if (big_is_neg(a)) BIF_ERROR(p, AM_badarg);
        return AM_false;
    }
    if (small_val(a) < 0) BIF_ERROR(p, AM_badarg);
    if (!is_fun(f)) return AM_false;
    Term *bp = boxed_ptr(f);
    int arity = boxed_kind(f) == BOXED_FUN ? ((const FunEntry *)bp[1])->arity
                                           : ((const Export *)bp[1])->arity;
    return BOOL(small_val(a) == arity);
}

Term bif_is_binary_1(Process *p, Term *args) { (void)p; return BOOL(is_binary(args[0])); }
Term bif_is_bitstring_1(Process *p, Term *args) { (void)p; return BOOL(is_bitstring(args[0])); }

Term bif_is_map_1(Process *p, Term *args) { (void)p; return BOOL(is_boxed_kind(args[0], BOXED_MAP)); }
