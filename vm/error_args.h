/* error_args.h — which argument of a failed BIF was wrong, in OTP's words.
 *
 * OTP 25 attaches error_info to the BIFs of module erlang, and
 * erl_erts_errors:format_error/2 turns the call into notes such as
 * `*** argument 2: not a tuple`. This is the same table for the BIFs a
 * program calls most, in C: given the function and its arguments it says,
 * per argument, what is wrong with it (or nothing). A BIF not in the table
 * gets no notes, as a BIF without error_info gets none in OTP. */
#ifndef MINI_ERROR_ARGS_H
#define MINI_ERROR_ARGS_H

#include "term.h"

#define ERROR_ARGS_MAX 8

/* Fills why[0..n-1] with a note or NULL for each argument of erlang:F(Args)
 * and returns n (0 when the BIF is not in the table). */
int error_args_explain(Term f, Term args, const char *why[ERROR_ARGS_MAX]);

#endif
