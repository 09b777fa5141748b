/* bif_re.c — the two C primitives under the `re` module (stdlib/re.mini):
 * compiling a pattern with PCRE2 and running it over a binary.
 *
 * A compiled pattern is an ordinary term, {re_pattern, Groups, Unicode,
 * NeedCRLF, Key}, where Key is the binary <<Flags:32, Source/binary>>: the
 * options as Mini's own bit set (below) and the pattern's bytes. The compiled
 * PCRE2 code never leaves C, so the term can be copied, sent to another
 * process, stored and compared like any other; each scheduler thread keeps
 * the code of the patterns it ran last in a small cache keyed by Key and
 * compiles again on a miss (PCRE2 code is not safe to share between threads
 * that match at once without a match-data block each, and a cache per thread
 * needs no lock). Everything about options, capture selection and result
 * shapes is Mini code in stdlib/re.mini; here are only the bytes and the
 * offsets.
 *
 *   re:mini_compile(Key)  -> {ok, Groups, [{Name, Index}]} | {error, {Msg, Pos}}
 *   re:mini_exec(Key, Subject, RunFlags, Offset, Global)
 *                         -> nomatch | match_limit | [[{Start, Len}]]
 *
 * mini_exec returns one offset vector per match (one only unless Global),
 * as long as PCRE2's return count says (trailing unset groups are left out,
 * as OTP leaves them out); an unset group is {-1, 0}. A subject that is not
 * valid UTF-8 in unicode mode, or an offset beyond it, raises badarg.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "binary.h"
#include "term_build.h"

/* Compile option bits in Key (kept in step with stdlib/re.mini). */
enum {
    RE_UNICODE = 1 << 0, RE_CASELESS = 1 << 1, RE_MULTILINE = 1 << 2,
    RE_DOTALL = 1 << 3, RE_EXTENDED = 1 << 4, RE_ANCHORED = 1 << 5,
    RE_DOLLAR_ENDONLY = 1 << 6, RE_UNGREEDY = 1 << 7, RE_NO_AUTO_CAPTURE = 1 << 8,
    RE_DUPNAMES = 1 << 9, RE_FIRSTLINE = 1 << 10, RE_UCP = 1 << 11,
    RE_NEVER_UTF = 1 << 12, RE_BSR_ANYCRLF = 1 << 13, RE_BSR_UNICODE = 1 << 14,
    RE_NO_START_OPTIMIZE = 1 << 15,
    RE_NEWLINE_SHIFT = 16,      /* 3 bits: 0 lf, 1 cr, 2 crlf, 3 anycrlf, 4 any */
};
/* Run option bits. */
enum {
    RUN_NOTBOL = 1 << 0, RUN_NOTEOL = 1 << 1, RUN_NOTEMPTY = 1 << 2,
    RUN_NOTEMPTY_ATSTART = 1 << 3, RUN_ANCHORED = 1 << 4,
};

/* Patterns cached per scheduler thread: a program cycling through more
 * distinct patterns than this recompiles; 32 covers the handful a loop
 * typically alternates between at a few kilobytes of memory per thread. */
#define RE_CACHE_SIZE 32

typedef struct CachedRe {
    unsigned char *key;
    size_t keylen;
    pcre2_code *code;
    pcre2_match_data *md;
} CachedRe;

static __thread CachedRe re_cache[RE_CACHE_SIZE];

static size_t key_hash(const unsigned char *k, size_t n)
{
    size_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ k[i]) * 1099511628211ULL;
    return h;
}

static const uint32_t newline_of[] = {
    PCRE2_NEWLINE_LF, PCRE2_NEWLINE_CR, PCRE2_NEWLINE_CRLF,
    PCRE2_NEWLINE_ANYCRLF, PCRE2_NEWLINE_ANY,
};

/* Compiles Key; NULL with *err and *erroff set on a bad pattern. */
static pcre2_code *compile_key(const unsigned char *k, size_t n, int *err, PCRE2_SIZE *erroff)
{
    uint32_t f = ((uint32_t)k[0] << 24) | (k[1] << 16) | (k[2] << 8) | k[3];
    uint32_t o = 0;
    if (f & RE_UNICODE) o |= PCRE2_UTF;
    if (f & RE_CASELESS) o |= PCRE2_CASELESS;
    if (f & RE_MULTILINE) o |= PCRE2_MULTILINE;
    if (f & RE_DOTALL) o |= PCRE2_DOTALL;
    if (f & RE_EXTENDED) o |= PCRE2_EXTENDED;
    if (f & RE_ANCHORED) o |= PCRE2_ANCHORED;
    if (f & RE_DOLLAR_ENDONLY) o |= PCRE2_DOLLAR_ENDONLY;
    if (f & RE_UNGREEDY) o |= PCRE2_UNGREEDY;
    if (f & RE_NO_AUTO_CAPTURE) o |= PCRE2_NO_AUTO_CAPTURE;
    if (f & RE_DUPNAMES) o |= PCRE2_DUPNAMES;
    if (f & RE_FIRSTLINE) o |= PCRE2_FIRSTLINE;
    if (f & RE_UCP) o |= PCRE2_UCP;
    if (f & RE_NEVER_UTF) o |= PCRE2_NEVER_UTF;
    if (f & RE_NO_START_OPTIMIZE) o |= PCRE2_NO_START_OPTIMIZE;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    unsigned nl = (f >> RE_NEWLINE_SHIFT) & 7;
    pcre2_set_newline(cc, newline_of[nl < 5 ? nl : 0]);
    if (f & RE_BSR_ANYCRLF) pcre2_set_bsr(cc, PCRE2_BSR_ANYCRLF);
    if (f & RE_BSR_UNICODE) pcre2_set_bsr(cc, PCRE2_BSR_UNICODE);
    pcre2_code *code = pcre2_compile(k + 4, n - 4, o, err, erroff, cc);
    pcre2_compile_context_free(cc);
    return code;
}

/* The cached entry for a valid Key, compiling it on a miss; NULL if the
 * pattern does not compile (the caller checked it at re:compile). */
static CachedRe *cache_get(const unsigned char *k, size_t n)
{
    CachedRe *e = &re_cache[key_hash(k, n) % RE_CACHE_SIZE];
    if (e->code && e->keylen == n && memcmp(e->key, k, n) == 0)
        return e;
    int err;
    PCRE2_SIZE off;
    pcre2_code *code = compile_key(k, n, &err, &off);
    if (!code)
        return NULL;
    unsigned char *copy = malloc(n);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    if (!copy || !md) {
        free(copy);
        pcre2_match_data_free(md);
        pcre2_code_free(code);
        return NULL;
    }
    if (e->code) {
        pcre2_match_data_free(e->md);
        pcre2_code_free(e->code);
        free(e->key);
    }
    memcpy(copy, k, n);
    *e = (CachedRe){ copy, n, code, md };
    return e;
}

static const unsigned char *key_arg(Term t, size_t *n)
{
    if (!is_binary(t))
        return NULL;
    const unsigned char *k = bin_bytes(t, n);
    return *n >= 4 ? k : NULL;
}

Term bif_re_mini_compile_1(Process *p, Term *args)
{
    size_t n;
    const unsigned char *k = key_arg(args[0], &n);
    if (!k)
        BIF_ERROR(p, AM_badarg);
    int err;
    PCRE2_SIZE off;
    pcre2_code *code = compile_key(k, n, &err, &off);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        Term s = NIL;
        for (size_t i = strlen((char *)msg); i > 0; i--)
            s = cons(p, make_small(msg[i - 1]), s);
        return tuple2(p, AM_error, tuple2(p, s, make_small((SWord)off)));
    }
    uint32_t groups, names, entry;
    PCRE2_SPTR table;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &names);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    /* the name table is sorted by name; the list keeps that order */
    Term list = NIL;
    for (uint32_t i = names; i > 0; i--) {
        PCRE2_SPTR e = table + (size_t)(i - 1) * entry;
        int idx = (e[0] << 8) | e[1];
        Term name = bin_from_bytes(p, e + 2, strlen((const char *)e + 2));
        list = cons(p, tuple2(p, name, make_small(idx)), list);
    }
    pcre2_code_free(code);
    return tuple3(p, AM_ok, make_small(groups), list);
}

/* One match's offsets as [{Start, Len}], rc entries long. */
static Term offsets(Process *p, PCRE2_SIZE *ov, int rc)
{
    Term v = NIL;
    for (int i = rc - 1; i >= 0; i--) {
        Term pair = ov[2 * i] == PCRE2_UNSET
            ? tuple2(p, make_small(-1), make_small(0))
            : tuple2(p, make_small((SWord)ov[2 * i]),
                     make_small((SWord)(ov[2 * i + 1] - ov[2 * i])));
        v = cons(p, pair, v);
    }
    return v;
}

Term bif_re_mini_exec_5(Process *p, Term *args)
{
    size_t n, len;
    const unsigned char *k = key_arg(args[0], &n);
    if (!k || !is_binary(args[1]) || !is_small(args[2]) || !is_small(args[3]))
        BIF_ERROR(p, AM_badarg);
    const unsigned char *subj = bin_bytes(args[1], &len);
    SWord rf = small_val(args[2]), start = small_val(args[3]);
    int global = args[4] == AM_true;
    if (start < 0 || (size_t)start > len)
        BIF_ERROR(p, AM_badarg);
    CachedRe *e = cache_get(k, n);
    if (!e)
        BIF_ERROR(p, AM_badarg);
    uint32_t f = ((uint32_t)k[0] << 24) | (k[1] << 16) | (k[2] << 8) | k[3];
    int utf = (f & RE_UNICODE) != 0;
    unsigned nl = (f >> RE_NEWLINE_SHIFT) & 7;
    int crlf_nl = nl == 2 || nl == 3 || nl == 4;
    uint32_t base = 0;
    if (rf & RUN_NOTBOL) base |= PCRE2_NOTBOL;
    if (rf & RUN_NOTEOL) base |= PCRE2_NOTEOL;
    if (rf & RUN_NOTEMPTY) base |= PCRE2_NOTEMPTY;
    if (rf & RUN_NOTEMPTY_ATSTART) base |= PCRE2_NOTEMPTY_ATSTART;
    if (rf & RUN_ANCHORED) base |= PCRE2_ANCHORED;

    /* The global loop of pcre2demo, as OTP runs it: after an empty match,
     * try a non-empty one anchored at the same place, and when there is
     * none step one character (a CRLF pair when newlines can be CRLF). */
    Term rev = NIL;
    size_t pos = (size_t)start;
    uint32_t flags = base;
    long matches = 0;
    for (;;) {
        int rc = pcre2_match(e->code, subj, len, pos, flags, e->md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) {
            if (flags == base || pos >= len)
                break;
            size_t step = 1;
            if (crlf_nl && pos + 1 < len && subj[pos] == '\r' && subj[pos + 1] == '\n')
                step = 2;
            else if (utf)
                while (pos + step < len && (subj[pos + step] & 0xC0) == 0x80)
                    step++;
            pos += step;
            flags = base;
            continue;
        }
        if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
            return ATOM_TERM(match_limit);
        if (rc < 0)
            BIF_ERROR(p, AM_badarg);
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(e->md);
        rev = cons(p, offsets(p, ov, rc), rev);
        matches++;
        if (!global)
            break;
        pos = ov[1];
        flags = ov[0] == ov[1] ? base | PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : base;
        if (ov[0] == ov[1] && pos >= len && flags != base) {
            /* an empty match at the very end: nothing more can follow */
            break;
        }
    }
    p->reds -= matches;
    if (rev == NIL)
        return ATOM_TERM(nomatch);
    Term out = NIL;
    while (rev != NIL) {
        out = cons(p, list_head(rev), out);
        rev = list_ptr(rev)[1];
    }
    return out;
}
