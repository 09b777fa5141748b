/* ms_transform.h — ets:fun2ms/1 with a literal fun, turned into its match
 * specification at compile time (ms_transform.c; records.c calls it). */
#ifndef MINI_MS_TRANSFORM_H
#define MINI_MS_TRANSFORM_H

#include "ast.h"

/* The expression that builds the match specification if e is such a call,
 * else e itself. */
Expr *ms_transform_call(Expr *e);

#endif
