/* types.h — the type pass: which expressions always yield a float.
 *
 * types_infer() runs on a checked module just before code generation and
 * sets Expr.ty (TY_FLOAT where the value is a float whenever the expression
 * yields one) and, on variables, Expr.fvar (a float variable bound only by
 * `Var = Expr`, which the code generator may keep in a float register
 * instead of boxing it). The code generator only ever reads TY_FLOAT: every
 * other value, including the zero of nodes made after this pass, means
 * "nothing known". See types.c for the rules.
 */
#ifndef MINI_TYPES_H
#define MINI_TYPES_H

#include "ast.h"

/* The lattice, in order: join is max. TY_BOT is "yields no value" (never
 * returns, or code nothing calls). */
enum { TY_BOT = 0, TY_FLOAT = 1, TY_ANY = 2 };

void types_infer(Module *m);

#endif
