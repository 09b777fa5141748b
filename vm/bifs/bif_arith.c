/* bif_arith.c — the arithmetic BIFs of bifs.def: thin wrappers over arith.c. */
#include "arith.h"
#include "bif.h"

Term bif_plus_2(Process *p, Term *args) { return arith_add(p, args[0], args[1]); }
Term bif_minus_2(Process *p, Term *args) { return arith_sub(p, args[0], args[1]); }
Term bif_times_2(Process *p, Term *args) { return arith_mul(p, args[0], args[1]); }
Term bif_fdiv_2(Process *p, Term *args) { return arith_fdiv(p, args[0], args[1]); }
Term bif_div_2(Process *p, Term *args) { return arith_idiv(p, args[0], args[1]); }
Term bif_rem_2(Process *p, Term *args) { return arith_rem(p, args[0], args[1]); }
Term bif_neg_1(Process *p, Term *args) { return arith_neg(p, args[0]); }
Term bif_uplus_1(Process *p, Term *args) { return arith_plus(p, args[0]); }
Term bif_band_2(Process *p, Term *args) { return arith_band(p, args[0], args[1]); }
Term bif_bor_2(Process *p, Term *args) { return arith_bor(p, args[0], args[1]); }
Term bif_bxor_2(Process *p, Term *args) { return arith_bxor(p, args[0], args[1]); }
Term bif_bsl_2(Process *p, Term *args) { return arith_bsl(p, args[0], args[1]); }
Term bif_bsr_2(Process *p, Term *args) { return arith_bsr(p, args[0], args[1]); }
Term bif_bnot_1(Process *p, Term *args) { return arith_bnot(p, args[0]); }
Term bif_abs_1(Process *p, Term *args) { return arith_abs(p, args[0]); }
Term bif_float_1(Process *p, Term *args) { return arith_float(p, args[0]); }
Term bif_round_1(Process *p, Term *args) { return arith_round(p, args[0]); }
Term bif_trunc_1(Process *p, Term *args) { return arith_trunc(p, args[0]); }
Term bif_ceil_1(Process *p, Term *args) { return arith_ceil(p, args[0]); }
Term bif_floor_1(Process *p, Term *args) { return arith_floor(p, args[0]); }
