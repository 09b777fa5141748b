/* bif_unicode.c — the Unicode data behind stdlib/unicode_util.mini.
 *
 * erts_internal:unicode_lookup(Table, Key) returns the value OTP 25's
 * unicode_util holds for Key in one of its tables, as a binary in the
 * external term format (the Mini side decodes it with binary_to_term), or
 * false where OTP's function gives its default. Tables (the order of
 * unicode_tables[]): 0 unicode_table/1 (canonical class and decompositions),
 * 1 case_table/1 (upper, lower, title, fold), 2 is_extend/1 (true or zwj),
 * 3 compose_pair/2 (Key = A * 2^21 + B), 4 is_ext_pict/1.
 *
 * The data lives in unicode_tables.h, generated from OTP's own module by
 * tools/gen_unicode_tables.escript, so the case mappings, grapheme break
 * properties and normalisation data are OTP's, not an approximation. The
 * grapheme and normalisation logic itself is Mini code (unicode_util.mini);
 * only the tables are here, because as function clauses they would be
 * compiled again by every program that calls string:uppercase/1. */
#include <stdint.h>

#include "bif.h"
#include "binary.h"

typedef struct UnicodeRange {
    uint64_t lo, hi;          /* keys lo..hi share the value */
    uint32_t off, len;        /* the value: unicode_blob[off .. off+len) */
} UnicodeRange;

typedef struct UnicodeTable {
    const UnicodeRange *ranges;
    size_t n;
} UnicodeTable;

#include "unicode_tables.h"

Term bif_erts_internal_unicode_lookup_2(Process *p, Term *args)
{
    Term t = args[0], k = args[1];
    size_t ntables = sizeof unicode_tables / sizeof unicode_tables[0];
    if (!is_small(t) || small_val(t) < 0 || (size_t)small_val(t) >= ntables) BIF_ERROR(p, AM_badarg);
    if (!is_small(k)) return AM_false;
    if (small_val(k) < 0) return AM_false;
    uint64_t key = (uint64_t)small_val(k);
    const UnicodeTable *tab = &unicode_tables[small_val(t)];
    size_t lo = 0, hi = tab->n;
    while (lo < hi) {                  /* the first range whose hi >= key */
        size_t mid = lo + (hi - lo) / 2;
        if (tab->ranges[mid].hi < key) lo = mid + 1; else hi = mid;
    }
    if (lo == tab->n || tab->ranges[lo].lo > key) return AM_false;
    return bin_from_bytes(p, unicode_blob + tab->ranges[lo].off, tab->ranges[lo].len);
}
