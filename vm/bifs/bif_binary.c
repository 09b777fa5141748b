/* bif_binary.c — the BIFs on binaries: byte_size, bit_size,
 * binary_to_list, bitstring_to_list, list_to_binary, list_to_bitstring and
 * iolists, binary_part, split_binary, conversions to and
 * from atoms and numbers, and the `binary` module (match, matches, split,
 * replace, part, copy, first/last/at, bin_to_list, list_to_bin, unsigned
 * encodings). Errors are Erlang's: badarg for a wrong type, a bad position
 * or a bad option. Results share the argument's bytes where a part of it is
 * returned (bin_sub); nothing here collects.
 */
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "term_build.h"
#include "atom.h"
#include "arith.h"
#include "binary.h"
#include "num_text.h"

static void spend(Process *p, size_t work) { p->reds -= (SWord)(work / 64); }

/* An integer argument that fits SWord, or 0. */
static int small_arg(Term t, SWord *out)
{
    if (!is_small(t)) return 0;
    *out = small_val(t);
    return 1;
}

/* The list of bytes s[0..n) ending in tail. */
static Term bytes_list(Process *p, const unsigned char *s, size_t n, Term tail)
{
    if (n == 0) return tail;
    Term *hp;
    BIF_ALLOC(p, hp, 2 * n);
    for (size_t i = 0; i < n; i++) {
        hp[2 * i] = make_small(s[i]);
        hp[2 * i + 1] = i + 1 < n ? make_list(hp + 2 * i + 2) : tail;
    }
    spend(p, n);
    return make_list(hp);
}

static Term bytes_to_list(Process *p, const unsigned char *s, size_t n) { return bytes_list(p, s, n, NIL); }

/* ---- erlang: sizes and lists --------------------------------------------- */

Term bif_byte_size_1(Process *p, Term *args)
{
    if (!is_bitstring(args[0])) BIF_ERROR(p, AM_badarg);
    return make_integer(p, (int64_t)((bin_bit_size(args[0]) + 7) / 8));
}

Term bif_bit_size_1(Process *p, Term *args)
{
    if (!is_bitstring(args[0])) BIF_ERROR(p, AM_badarg);
    return make_integer(p, (int64_t)bin_bit_size(args[0]));
}

/* bitstring_to_list: the bytes, then the final bits as a bitstring. */
Term bif_bitstring_to_list_1(Process *p, Term *args)
{
    if (!is_bitstring(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n, r = bin_bit_size(args[0]) % 8;
    const unsigned char *s = bin_bytes(args[0], &n);
    if (!r) return bytes_to_list(p, s, n);
    unsigned char *d;
    Term last = bits_new(p, r, &d);
    d[0] = (unsigned char)(s[n] & (0xFF << (8 - r)));   /* (nothing moves: no collection) */
    return bytes_list(p, s, n, cons(p, last, NIL));
}

Term bif_list_to_bitstring_1(Process *p, Term *args) { return bin_from_bitstring_list(p, args[0]); }

Term bif_binary_to_list_1(Process *p, Term *args)
{
    if (!is_binary(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    return bytes_to_list(p, s, n);
}

/* binary_to_list(Bin, Start, Stop): 1-based, inclusive */
Term bif_binary_to_list_3(Process *p, Term *args)
{
    SWord a, b;
    if (!is_bitstring(args[0]) || !small_arg(args[1], &a) || !small_arg(args[2], &b)) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    if (a < 1 || b < a || (size_t)b > n) BIF_ERROR(p, AM_badarg);
    return bytes_to_list(p, s + a - 1, (size_t)(b - a + 1));
}

static Term iolist_binary(Process *p, Term t)
{
    OutBuf b;
    ob_init_soft(&b);
    if (bin_iolist_bytes(&b, t) < 0) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    Term r = bin_from_bytes(p, b.buf, b.len);
    spend(p, b.len);
    ob_free(&b);
    if (r == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return r;
}

Term bif_list_to_binary_1(Process *p, Term *args)
{
    if (!is_list(args[0]) && !is_nil(args[0])) BIF_ERROR(p, AM_badarg);
    return iolist_binary(p, args[0]);
}

Term bif_iolist_to_binary_1(Process *p, Term *args)
{
    if (is_binary(args[0])) return args[0];
    if (!is_list(args[0]) && !is_nil(args[0])) BIF_ERROR(p, AM_badarg);
    return iolist_binary(p, args[0]);
}

Term bif_iolist_size_1(Process *p, Term *args)
{
    if (is_binary(args[0])) return make_integer(p, (int64_t)bin_size(args[0]));
    if (!is_list(args[0]) && !is_nil(args[0])) BIF_ERROR(p, AM_badarg);
    OutBuf b;
    ob_init(&b);
    int rc = bin_iolist_bytes(&b, args[0]);
    size_t n = b.len;
    ob_free(&b);
    if (rc < 0) BIF_ERROR(p, AM_badarg);
    spend(p, n);
    return make_integer(p, (int64_t)n);
}

/* A part {Start, Len} of a binary of n bytes (Len may be negative):
 * 1 and the byte range, or 0. */
static int part_range(size_t n, Term st, Term ln, size_t *off, size_t *len)
{
    SWord s, l;
    if (!small_arg(st, &s) || !small_arg(ln, &l)) return 0;
    if (l < 0) { s += l; l = -l; }
    if (s < 0 || (size_t)s > n || (size_t)l > n - (size_t)s) return 0;
    *off = (size_t)s;
    *len = (size_t)l;
    return 1;
}

/* binary_part and binary:part take the whole bytes of any bitstring, as in
 * OTP. */
static Term part3(Process *p, Term bin, Term st, Term ln)
{
    size_t off, len;
    if (!is_bitstring(bin) || !part_range(bin_size(bin), st, ln, &off, &len)) BIF_ERROR(p, AM_badarg);
    return bin_sub(p, bin, off, len);
}

Term bif_binary_part_3(Process *p, Term *args) { return part3(p, args[0], args[1], args[2]); }

Term bif_binary_part_2(Process *p, Term *args)
{
    Term pl = args[1];
    if (!is_tuple(pl) || tuple_arity(pl) != 2) BIF_ERROR(p, AM_badarg);
    return part3(p, args[0], tuple_elems(pl)[0], tuple_elems(pl)[1]);
}

Term bif_split_binary_2(Process *p, Term *args)
{
    SWord pos;
    if (!is_bitstring(args[0]) || !small_arg(args[1], &pos)) BIF_ERROR(p, AM_badarg);
    size_t n = bin_size(args[0]), bits = bin_bit_size(args[0]);
    if (pos < 0 || (size_t)pos > n) BIF_ERROR(p, AM_badarg);
    Term a = bin_sub(p, args[0], 0, (size_t)pos);
    Term b = bits_sub(p, args[0], 8 * (size_t)pos, bits - 8 * (size_t)pos);
    return tuple2(p, a, b);
}

/* ---- atoms ------------------------------------------------------------------ */

/* An atom's name is stored with characters below 256 as single bytes and
 * the others as UTF-8 (bif_tuples_lists.c, atom_text): its characters as UTF-8
 * (utf8 set) or Latin-1 (0 if a character does not fit). */
static int atom_bytes(Term a, OutBuf *b, int utf8)
{
    size_t n;
    const unsigned char *s = (const unsigned char *)atom_name(a, &n);
    for (size_t i = 0; i < n;) {
        UWord code = atom_text_char(s, n, &i);
        if (utf8) {
            unsigned char u[4];
            int k = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
            UWord v = code;
            for (int j = k - 1; j > 0; j--) { u[j] = (unsigned char)(0x80 | (v & 0x3F)); v >>= 6; }
            u[0] = (unsigned char)(k == 1 ? v : k == 2 ? (0xC0 | v) : k == 3 ? (0xE0 | v) : (0xF0 | v));
            ob_write(b, (const char *)u, (size_t)k);
        }
        else if (code > 255) return 0;
        else ob_putc(b, (int)code);
    }
    return 1;
}

static Term atom_to_binary(Process *p, Term a, Term enc)
{
    if (!is_atom(a)) BIF_ERROR(p, AM_badarg);
    int utf8;
    if (enc == ATOM_TERM(latin1)) utf8 = 0;
    else if (enc == ATOM_TERM(utf8) || enc == ATOM_TERM(unicode)) utf8 = 1;
    else BIF_ERROR(p, AM_badarg);
    OutBuf b;
    ob_init(&b);
    if (!atom_bytes(a, &b, utf8)) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    Term r = bin_from_bytes(p, b.buf, b.len);
    ob_free(&b);
    return r;
}

Term bif_atom_to_binary_1(Process *p, Term *args) { return atom_to_binary(p, args[0], ATOM_TERM(utf8)); }
Term bif_atom_to_binary_2(Process *p, Term *args) { return atom_to_binary(p, args[0], args[1]); }

/* The stored form of an atom named by binary t in encoding enc: 0 badarg,
 * -1 system_limit, 1 ok. */
static int atom_text_of(Term t, Term enc, OutBuf *b)
{
    if (!is_binary(t)) return 0;
    size_t n;
    const unsigned char *s = bin_bytes(t, &n);
    size_t chars = 0;
    if (enc == ATOM_TERM(latin1)) {                 /* atom text is UTF-8 (atom.h) */
        for (size_t i = 0; i < n; i++)
            if (s[i] < 0x80) ob_putc(b, s[i]);
            else { ob_putc(b, 0xC0 | (s[i] >> 6)); ob_putc(b, 0x80 | (s[i] & 0x3F)); }
        chars = n;
    } else if (enc == ATOM_TERM(utf8) || enc == ATOM_TERM(unicode)) {
        OutBuf tmp;
        ob_init(&tmp);
        ob_write(&tmp, (const char *)s, n);
        for (size_t i = 0; i < n;) {
            unsigned c = s[i];
            size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            if (!k || i + k > n) { ob_free(&tmp); return 0; }
            UWord v = k == 1 ? c : c & (k == 2 ? 0x1F : k == 3 ? 0x0F : 0x07);
            for (size_t j = 1; j < k; j++) {
                if ((s[i + j] & 0xC0) != 0x80) { ob_free(&tmp); return 0; }
                v = (v << 6) | (s[i + j] & 0x3F);
            }
            static const UWord min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
            if (v < min_of[k] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) { ob_free(&tmp); return 0; }
            ob_write(b, (const char *)s + i, k);
            i += k;
            chars++;
        }
        ob_free(&tmp);
    } else {
        return 0;
    }
    return chars > MAX_ATOM_LENGTH ? -1 : 1;
}

static Term binary_to_atom(Process *p, Term t, Term enc, int existing)
{
    OutBuf b;
    ob_init(&b);
    int rc = atom_text_of(t, enc, &b);
    Term a = THE_NON_VALUE;
    if (rc == 1) a = existing ? atom_lookup(b.buf ? b.buf : "", b.len) : atom_intern(b.buf ? b.buf : "", b.len);
    ob_free(&b);
    if (rc == -1 && !existing) BIF_ERROR(p, ATOM_TERM(system_limit));
    if (a == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return a;
}

Term bif_binary_to_atom_1(Process *p, Term *args) { return binary_to_atom(p, args[0], ATOM_TERM(utf8), 0); }
Term bif_binary_to_atom_2(Process *p, Term *args) { return binary_to_atom(p, args[0], args[1], 0); }
Term bif_binary_to_existing_atom_2(Process *p, Term *args) { return binary_to_atom(p, args[0], args[1], 1); }

/* ---- numbers ----------------------------------------------------------------- */

static Term integer_to_binary(Process *p, Term i, Term base)
{
    SWord bs;
    if (!is_integer(i) || !small_arg(base, &bs) || bs < 2 || bs > 36) BIF_ERROR(p, AM_badarg);
    size_t n;
    char *s = integer_to_chars(i, (int)bs, &n);
    if (!s) BIF_ERROR(p, ATOM_TERM(system_limit));
    Term r = bin_from_bytes(p, s, n);
    free(s);
    return r;
}

Term bif_integer_to_binary_1(Process *p, Term *args) { return integer_to_binary(p, args[0], make_small(10)); }
Term bif_integer_to_binary_2(Process *p, Term *args) { return integer_to_binary(p, args[0], args[1]); }

static Term binary_to_integer(Process *p, Term t, Term base)
{
    SWord bs;
    if (!is_binary(t) || !small_arg(base, &bs) || bs < 2 || bs > 36) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(t, &n);
    Term r = chars_to_integer(p, (const char *)s, n, (int)bs);
    if (r == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return r;
}

Term bif_binary_to_integer_1(Process *p, Term *args) { return binary_to_integer(p, args[0], make_small(10)); }
Term bif_binary_to_integer_2(Process *p, Term *args) { return binary_to_integer(p, args[0], args[1]); }

Term bif_float_to_binary_1(Process *p, Term *args)
{
    if (!is_float(args[0])) BIF_ERROR(p, AM_badarg);
    char buf[64];
    int n = float_format_default(float_val(args[0]), buf, sizeof buf);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    return bin_from_bytes(p, buf, (size_t)n);
}

Term bif_binary_to_float_1(Process *p, Term *args)
{
    if (!is_binary(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    double d;
    if (!chars_to_double((const char *)s, n, &d)) BIF_ERROR(p, AM_badarg);
    return make_float(p, d);
}

/* ---- the binary module ------------------------------------------------------ */

/* Search patterns: one binary or a non-empty list of them, none empty. */
typedef struct Pats { const unsigned char **s; size_t *n; size_t k; } Pats;

static int get_pats(Term t, Pats *ps)
{
    size_t k = 0;
    if (is_binary(t)) k = 1;
    else {
        Term l = t;
        for (; is_list(l); l = list_tail(l)) {
            if (!is_binary(list_head(l))) return 0;
            k++;
        }
        if (!is_nil(l) || k == 0) return 0;
    }
    ps->s = malloc(k * sizeof *ps->s);
    ps->n = malloc(k * sizeof *ps->n);
    if (!ps->s || !ps->n) { free(ps->s); free(ps->n); return 0; }
    ps->k = k;
    if (is_binary(t)) ps->s[0] = bin_bytes(t, &ps->n[0]);
    else {
        size_t i = 0;
        for (Term l = t; is_list(l); l = list_tail(l), i++) ps->s[i] = bin_bytes(list_head(l), &ps->n[i]);
    }
    for (size_t i = 0; i < k; i++)
        if (ps->n[i] == 0) { free(ps->s); free(ps->n); return 0; }
    return 1;
}

static void free_pats(Pats *ps) { free(ps->s); free(ps->n); }

/* The first match in s[from, to): the leftmost, the longest there. */
static int find(const unsigned char *s, size_t from, size_t to, const Pats *ps, size_t *at, size_t *len)
{
    for (size_t i = from; i < to; i++) {
        size_t best = 0;
        for (size_t j = 0; j < ps->k; j++)
            if (ps->n[j] <= to - i && ps->n[j] > best && memcmp(s + i, ps->s[j], ps->n[j]) == 0)
                best = ps->n[j];
        if (best) { *at = i; *len = best; return 1; }
    }
    return 0;
}

/* Options of match/matches/split/replace. */
typedef struct Opts { int global, trim, trim_all; size_t from, to; Term insert; } Opts;

static int get_opts(Term l, size_t n, Opts *o, int split, int replace)
{
    memset(o, 0, sizeof *o);
    o->to = n;
    o->insert = THE_NON_VALUE;
    for (; is_list(l); l = list_tail(l)) {
        Term h = list_head(l);
        if (split && h == ATOM_TERM(global)) o->global = 1;
        else if (split && h == ATOM_TERM(trim)) o->trim = 1;
        else if (split && h == ATOM_TERM(trim_all)) o->trim_all = 1;
        else if (replace && h == ATOM_TERM(global)) o->global = 1;
        else if (is_tuple(h) && tuple_arity(h) == 2 && tuple_elems(h)[0] == ATOM_TERM(scope)) {
            Term sc = tuple_elems(h)[1];
            size_t off, len;
            if (!is_tuple(sc) || tuple_arity(sc) != 2 ||
                !part_range(n, tuple_elems(sc)[0], tuple_elems(sc)[1], &off, &len))
                return 0;
            o->from = off;
            o->to = off + len;
        } else if (replace && is_tuple(h) && tuple_arity(h) == 2 &&
                   tuple_elems(h)[0] == ATOM_TERM(insert_replaced)) {
            o->insert = tuple_elems(h)[1];
        } else {
            return 0;
        }
    }
    return is_nil(l);
}

/* The arguments every search BIF takes: a binary subject, a pattern (or
 * patterns) and an option list; 0 for badarg (nothing to free then). */
static int search_args(Term subj, Term pat, Term optl, int split, int replace,
                       Pats *ps, Opts *o, const unsigned char **s, size_t *n)
{
    if (!is_binary(subj) || !get_pats(pat, ps)) return 0;
    *s = bin_bytes(subj, n);
    if (!get_opts(optl, *n, o, split, replace)) { free_pats(ps); return 0; }
    return 1;
}

static Term do_match(Process *p, Term subj, Term pat, Term optl)
{
    Pats ps;
    Opts o;
    size_t n;
    const unsigned char *s;
    if (!search_args(subj, pat, optl, 0, 0, &ps, &o, &s, &n)) BIF_ERROR(p, AM_badarg);
    size_t at, len;
    int found = find(s, o.from, o.to, &ps, &at, &len);
    free_pats(&ps);
    spend(p, n);
    if (!found) return ATOM_TERM(nomatch);
    return tuple2(p, make_small((SWord)at), make_small((SWord)len));
}

Term bif_binary_match_2(Process *p, Term *args) { return do_match(p, args[0], args[1], NIL); }
Term bif_binary_match_3(Process *p, Term *args) { return do_match(p, args[0], args[1], args[2]); }

static Term do_matches(Process *p, Term subj, Term pat, Term optl)
{
    Pats ps;
    Opts o;
    size_t n;
    const unsigned char *s;
    if (!search_args(subj, pat, optl, 0, 0, &ps, &o, &s, &n)) BIF_ERROR(p, AM_badarg);
    Term res = NIL, *tail = &res;
    size_t at, len, from = o.from;
    while (find(s, from, o.to, &ps, &at, &len)) {
        Term *hp = heap_alloc(p, 2);
        hp[0] = tuple2(p, make_small((SWord)at), make_small((SWord)len));
        hp[1] = NIL;
        *tail = make_list(hp);
        tail = &hp[1];
        from = at + len;
    }
    free_pats(&ps);
    spend(p, n);
    return res;
}

Term bif_binary_matches_2(Process *p, Term *args) { return do_matches(p, args[0], args[1], NIL); }
Term bif_binary_matches_3(Process *p, Term *args) { return do_matches(p, args[0], args[1], args[2]); }

static Term do_split(Process *p, Term subj, Term pat, Term optl)
{
    Pats ps;
    Opts o;
    size_t n;
    const unsigned char *s;
    if (!search_args(subj, pat, optl, 1, 0, &ps, &o, &s, &n)) BIF_ERROR(p, AM_badarg);
    /* the parts, as (offset, length) pairs */
    size_t cap = 8, np = 0, *parts = malloc(2 * cap * sizeof *parts);
    if (!parts) { free_pats(&ps); BIF_ERROR(p, ATOM_TERM(system_limit)); }
    size_t start = 0, from = o.from, at, len;
    while (find(s, from, o.to, &ps, &at, &len)) {
        if (np == cap) {
            size_t *nparts = realloc(parts, 4 * cap * sizeof *parts);
            if (!nparts) { free(parts); free_pats(&ps); BIF_ERROR(p, ATOM_TERM(system_limit)); }
            parts = nparts;
            cap *= 2;
        }
        parts[2 * np] = start; parts[2 * np + 1] = at - start; np++;
        start = from = at + len;
        if (!o.global) break;
    }
    free_pats(&ps);
    if (np == cap) {
        size_t *nparts = realloc(parts, 4 * cap * sizeof *parts);
        if (!nparts) { free(parts); BIF_ERROR(p, ATOM_TERM(system_limit)); }
        parts = nparts;
    }
    parts[2 * np] = start; parts[2 * np + 1] = n - start; np++;
    size_t last = np;
    if (o.trim || o.trim_all)
        while (last > 0 && parts[2 * (last - 1) + 1] == 0) last--;
    Term res = NIL, *tail = &res;
    for (size_t i = 0; i < last; i++) {
        if (o.trim_all && parts[2 * i + 1] == 0) continue;
        Term *hp = heap_alloc(p, 2);
        hp[0] = bin_sub(p, subj, parts[2 * i], parts[2 * i + 1]);
        hp[1] = NIL;
        *tail = make_list(hp);
        tail = &hp[1];
    }
    free(parts);
    spend(p, n);
    return res;
}

Term bif_binary_split_2(Process *p, Term *args) { return do_split(p, args[0], args[1], NIL); }
Term bif_binary_split_3(Process *p, Term *args) { return do_split(p, args[0], args[1], args[2]); }

static Term do_replace(Process *p, Term subj, Term pat, Term rep, Term optl)
{
    Pats ps;
    Opts o;
    size_t n, rn;
    const unsigned char *s;
    if (!is_binary(rep) || !search_args(subj, pat, optl, 0, 1, &ps, &o, &s, &n))
        BIF_ERROR(p, AM_badarg);
    const unsigned char *r = bin_bytes(rep, &rn);
    /* insert_replaced positions: an integer or a list of them, within rep */
    size_t nins = 0, *ins = NULL;
    if (o.insert != THE_NON_VALUE) {
        Term l = o.insert;
        size_t k = 0;
        if (is_small(l)) k = 1;
        else {
            for (Term q = l; is_list(q); q = list_tail(q)) k++;
        }
        ins = malloc((k + 1) * sizeof *ins);
        if (!ins) { free_pats(&ps); BIF_ERROR(p, ATOM_TERM(system_limit)); }
        int ok = 1;
        if (is_small(l)) {
            ok = small_val(l) >= 0 && (size_t)small_val(l) <= rn;
            if (ok) ins[nins++] = (size_t)small_val(l);
        } else {
            Term q = l;
            for (; is_list(q) && ok; q = list_tail(q)) {
                Term h = list_head(q);
                ok = is_small(h) && small_val(h) >= 0 && (size_t)small_val(h) <= rn;
                if (ok) ins[nins++] = (size_t)small_val(h);
            }
            ok = ok && is_nil(q);
        }
        if (!ok) { free(ins); free_pats(&ps); BIF_ERROR(p, AM_badarg); }
    }
    OutBuf b;
    ob_init(&b);
    size_t start = 0, from = o.from, at, len;
    while (find(s, from, o.to, &ps, &at, &len)) {
        ob_write(&b, (const char *)s + start, at - start);
        size_t done = 0;
        for (size_t i = 0; i < nins; i++) {      /* positions are ascending in OTP's use */
            size_t pos = ins[i] < done ? done : ins[i];
            ob_write(&b, (const char *)r + done, pos - done);
            ob_write(&b, (const char *)s + at, len);
            done = pos;
        }
        ob_write(&b, (const char *)r + done, rn - done);
        start = from = at + len;
        if (!o.global) break;
    }
    ob_write(&b, (const char *)s + start, n - start);
    free(ins);
    free_pats(&ps);
    Term res = bin_from_bytes(p, b.buf, b.len);
    spend(p, b.len);
    ob_free(&b);
    if (res == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return res;
}

Term bif_binary_replace_3(Process *p, Term *args) { return do_replace(p, args[0], args[1], args[2], NIL); }
Term bif_binary_replace_4(Process *p, Term *args) { return do_replace(p, args[0], args[1], args[2], args[3]); }

static Term copy_n(Process *p, Term bin, Term times)
{
    SWord k;
    if (!is_binary(bin) || !small_arg(times, &k) || k < 0) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(bin, &n);
    if (n && (size_t)k > ((size_t)1 << 36) / n) BIF_ERROR(p, AM_badarg);
    unsigned char *d;
    Term r = bin_new(p, n * (size_t)k, &d);
    if (r == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    s = bin_bytes(bin, &n);
    /* one copy of the source, then the copies made so far copied after
     * themselves: log2(k) calls, where a call a copy made copying 8 bytes
     * 128 times cost more than the kilobyte's allocation */
    size_t total = n * (size_t)k, done = k ? n : 0;
    if (done) memcpy(d, s, n);
    while (done < total) {
        size_t step = done < total - done ? done : total - done;
        memcpy(d + done, d, step);
        done += step;
    }
    spend(p, total);
    return r;
}

Term bif_binary_copy_1(Process *p, Term *args) { return copy_n(p, args[0], make_small(1)); }
Term bif_binary_copy_2(Process *p, Term *args) { return copy_n(p, args[0], args[1]); }

Term bif_binary_first_1(Process *p, Term *args)
{
    if (!is_binary(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    if (n == 0) BIF_ERROR(p, AM_badarg);
    return make_small(s[0]);
}

Term bif_binary_last_1(Process *p, Term *args)
{
    if (!is_binary(args[0])) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    if (n == 0) BIF_ERROR(p, AM_badarg);
    return make_small(s[n - 1]);
}

Term bif_binary_at_2(Process *p, Term *args)
{
    SWord i;
    if (!is_binary(args[0]) || !small_arg(args[1], &i)) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(args[0], &n);
    if (i < 0 || (size_t)i >= n) BIF_ERROR(p, AM_badarg);
    return make_small(s[i]);
}

Term bif_binary_bin_to_list_1(Process *p, Term *args) { return bif_binary_to_list_1(p, args); }

static Term bin_to_list_part(Process *p, Term bin, Term st, Term ln)
{
    size_t off, len;
    if (!is_binary(bin) || !part_range(bin_size(bin), st, ln, &off, &len)) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(bin, &n);
    return bytes_to_list(p, s + off, len);
}

Term bif_binary_bin_to_list_2(Process *p, Term *args)
{
    Term pl = args[1];
    if (!is_tuple(pl) || tuple_arity(pl) != 2) BIF_ERROR(p, AM_badarg);
    return bin_to_list_part(p, args[0], tuple_elems(pl)[0], tuple_elems(pl)[1]);
}

Term bif_binary_bin_to_list_3(Process *p, Term *args) { return bin_to_list_part(p, args[0], args[1], args[2]); }

Term bif_binary_list_to_bin_1(Process *p, Term *args) { return bif_list_to_binary_1(p, args); }

static Term decode_unsigned(Process *p, Term bin, Term end)
{
    if (!is_binary(bin) || (end != ATOM_TERM(big) && end != ATOM_TERM(little))) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(bin, &n);
    size_t nd = (n + 7) / 8;
    uint64_t *d = calloc(nd + 1, sizeof *d);
    if (!d) BIF_ERROR(p, ATOM_TERM(system_limit));
    for (size_t k = 0; k < n; k++) {
        unsigned byte = end == ATOM_TERM(big) ? s[n - 1 - k] : s[k];
        d[k / 8] |= (uint64_t)byte << (8 * (k % 8));
    }
    Term r = make_big_from_digits(p, 0, d, nd);
    free(d);
    return r;
}

Term bif_binary_decode_unsigned_1(Process *p, Term *args) { return decode_unsigned(p, args[0], ATOM_TERM(big)); }
Term bif_binary_decode_unsigned_2(Process *p, Term *args) { return decode_unsigned(p, args[0], args[1]); }

static Term encode_unsigned(Process *p, Term i, Term end)
{
    if (!is_integer(i) || (end != ATOM_TERM(big) && end != ATOM_TERM(little))) BIF_ERROR(p, AM_badarg);
    if ((is_small(i) && small_val(i) < 0) || (is_big(i) && big_is_neg(i))) BIF_ERROR(p, AM_badarg);
    uint64_t one;
    const uint64_t *d;
    size_t nd;
    if (is_small(i)) { one = (uint64_t)small_val(i); d = &one; nd = 1; }
    else { d = big_digits(i); nd = big_size(i); }
    size_t n = nd * 8;
    while (n > 1 && ((d[(n - 1) / 8] >> (8 * ((n - 1) % 8))) & 0xFF) == 0) n--;
    unsigned char *o;
    Term r = bin_new(p, n, &o);
    if (r == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    if (is_big(i)) d = big_digits(i);
    for (size_t k = 0; k < n; k++) {
        unsigned char byte = (unsigned char)(d[k / 8] >> (8 * (k % 8)));
        o[end == ATOM_TERM(big) ? n - 1 - k : k] = byte;
    }
    return r;
}

Term bif_binary_encode_unsigned_1(Process *p, Term *args) { return encode_unsigned(p, args[0], ATOM_TERM(big)); }
Term bif_binary_encode_unsigned_2(Process *p, Term *args) { return encode_unsigned(p, args[0], args[1]); }

Term bif_binary_longest_common_prefix_1(Process *p, Term *args)
{
    Term l = args[0];
    size_t best = (size_t)-1, k = 0;
    const unsigned char *first = NULL;
    for (; is_list(l); l = list_tail(l), k++) {
        if (!is_binary(list_head(l))) BIF_ERROR(p, AM_badarg);
        size_t n;
        const unsigned char *s = bin_bytes(list_head(l), &n);
        if (!first) { first = s; best = n; continue; }
        size_t i = 0;
        while (i < best && i < n && s[i] == first[i]) i++;
        best = i;
    }
    if (!is_nil(l) || k == 0) BIF_ERROR(p, AM_badarg);
    return make_small((SWord)best);
}

Term bif_float_to_binary_2(Process *p, Term *args)
{
    if (!is_float(args[0])) BIF_ERROR(p, AM_badarg);
    char buf[FLOAT_OPTIONS_MAX];
    int n = float_format_options(float_val(args[0]), args[1], buf);
    if (n < 0) BIF_ERROR(p, AM_badarg);
    return bin_from_bytes(p, buf, (size_t)n);
}

/* binary:referenced_byte_size/1: the size of the binary a slice keeps alive
 * (a sub-binary's original), or the binary's own size. */
Term bif_binary_referenced_byte_size_1(Process *p, Term *args)
{
    Term b = args[0];
    if (!is_binary(b)) BIF_ERROR(p, AM_badarg);
    if (boxed_kind(b) == BOXED_SUB_BIN) b = boxed_ptr(b)[SB_ORIG];
    return make_small((SWord)bin_size(b));
}
