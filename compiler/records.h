/* records.h — records are compile-time sugar for tagged tuples.
 *
 * records_lower() rewrites a checked module in place so that no E_RECORD,
 * E_RECORD_UPDATE or E_RECORD_FIELD node is left, and record_info/2 and
 * is_record/2 calls with a known record become constants or is_record/3.
 * The code generator then sees only tuples, cases and BIF calls (see
 * records.c for the exact shapes, which follow OTP's erl_expand_records).
 */
#ifndef MINI_RECORDS_H
#define MINI_RECORDS_H

#include "ast.h"

void records_lower(Module *m);

#endif
