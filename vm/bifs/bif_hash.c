/* bif_hash.c — erlang:phash2/1 and erlang:phash2/2, the portable term hash.
 *
 * The 32-bit hash follows make_hash2 of Erlang/OTP 25 (erts/emulator/beam/
 * utils.c): Bob Jenkins' MIX over pairs of 32-bit words, each term kind
 * with its own constant (HCONST_n = n * the golden ratio, mod 2^32), lists
 * of bytes packed four to a word, binaries through Jenkins' block hash,
 * maps as the xor of independent key/value pair hashes (so the order of
 * the keys does not matter), and atoms by OTP's atom table hash of their
 * text (hashpjw over the UTF-8 bytes, with a two-byte sequence for a
 * Latin-1 character folded back into one byte, as atom.c does). phash2/1
 * is that hash masked to 27 bits; phash2(T, Range) is hash rem Range,
 * Range in 1..2^32.
 *
 * Matches OTP 25 exactly (checked against erl on thousands of random
 * terms): integers (small and big, negative), floats (-0.0 hashes as 0.0),
 * atoms (including '' and non-Latin-1 ones), [], lists (strings, mixed,
 * improper), tuples, binaries of any length, maps of any size (OTP's hash
 * does not depend on its flat/HAMT layout), and pids: Mini's <0.N.0>
 * hashes as OTP's local pid <0.N.0> does (list_to_pid("<0.85.0>")).
 *
 * Not matched (so not in tests/lang/stdlib_phash2): funs. External funs
 * `fun M:F/A` are hashed here by utils.c's formula (arity, module, name)
 * but OTP 25 gives other values — its fun representation changed and this
 * was not worked out. Closures: OTP hashes old_index/old_uniq, numbers from
 * BEAM's compiler and loader that Mini's FunEntry does not share.
 * References and ports: the formula is OTP's (first ref word, port number),
 * but Mini hands out other numbers than erl, so no same term exists in
 * both to compare.
 */
#include <stdint.h>
#include <string.h>

#include "bif.h"
#include "wordstack.h"
#include "atom.h"
#include "binary.h"
#include "map.h"
#include "module.h"
#include "jenkins.h"

#define HCONST    JENKINS_HCONST(1)
#define HCONST_2  JENKINS_HCONST(2)
#define HCONST_3  JENKINS_HCONST(3)
#define HCONST_4  JENKINS_HCONST(4)
#define HCONST_5  JENKINS_HCONST(5)
#define HCONST_6  JENKINS_HCONST(6)
#define HCONST_7  JENKINS_HCONST(7)
#define HCONST_9  JENKINS_HCONST(9)
#define HCONST_10 JENKINS_HCONST(10)
#define HCONST_11 JENKINS_HCONST(11)
#define HCONST_12 JENKINS_HCONST(12)
#define HCONST_13 JENKINS_HCONST(13)
#define HCONST_14 JENKINS_HCONST(14)
#define HCONST_15 JENKINS_HCONST(15)
#define HCONST_16 JENKINS_HCONST(16)
#define HCONST_19 JENKINS_HCONST(19)

#define NIL_DEF 2u                     /* OTP's tag_val_def for [] */

#define HASH2(e1, e2, k)                       \
    do {                                       \
        uint32_t a_ = (k) + (uint32_t)(e1);    \
        uint32_t b_ = (k) + (uint32_t)(e2);    \
        JENKINS_MIX(a_, b_, hash);             \
    } while (0)
#define HASH1(e, k) HASH2(e, 0, k)

/* OTP's atom table hash (atom.c: atom_hash): hashpjw over the UTF-8 text,
 * a Latin-1 character (C2/C3 lead byte) counted as its one-byte value. */
static uint32_t atom_hval(Term atom)
{
    size_t len;
    const unsigned char *s = (const unsigned char *)atom_name(atom, &len);
    uint32_t h = 0, g;
    while (len--) {
        unsigned char v = *s++;
        if (len && (v & 0xFE) == 0xC2 && (*s & 0xC0) == 0x80) {
            v = (unsigned char)((v << 6) | (*s & 0x3F));
            s++;
            len--;
        }
        h = (h << 4) + v;
        if ((g = h & 0xf0000000u)) {
            h ^= g >> 24;
            h ^= g;
        }
    }
    return h;
}

/* Work stack: terms still to hash, and for maps two saved words under a
 * marker. Markers are header words, which no term on the stack can be. */
#define MARK_MAP_TAIL make_header(1, 15)
#define MARK_MAP_PAIR make_header(2, 15)

/* A magnitude of digits, little-endian 64-bit: as OTP hashes a bignum. */
static uint32_t hash_digits(uint32_t hash, const uint64_t *d, size_t n, int neg)
{
    uint32_t con = neg ? HCONST_10 : HCONST_11;
    for (size_t i = 0; i < n; i++)
        HASH2((uint32_t)d[i], (uint32_t)(d[i] >> 32), con);
    return hash;
}

static uint32_t make_hash2(Term term, UWord *work)
{
    uint32_t hash = 0, xor_pairs = 0;
    WordStack s;
    ws_init(&s);

    for (;;) {
        (*work)++;
        if (is_list(term)) {
            int c = 0;
            uint32_t sh = 0;
            Term *ptr = list_ptr(term);
            while (is_small(CAR(ptr)) && (UWord)small_val(CAR(ptr)) <= 255) {
                sh = (sh << 8) + (uint32_t)small_val(CAR(ptr));
                if (c == 3) {
                    HASH1(sh, HCONST_4);
                    c = 0;
                    sh = 0;
                } else {
                    c++;
                }
                term = CDR(ptr);
                if (!is_list(term)) break;
                ptr = list_ptr(term);
                (*work)++;
            }
            if (c > 0) HASH1(sh, HCONST_4);
            if (is_list(term)) {
                ws_push(&s, CDR(ptr));
                term = CAR(ptr);
            }
            continue;                  /* the head, or the tail that ended the bytes */
        }
        if (is_boxed(term)) {
            Term *bp = boxed_ptr(term);
            switch (header_subtag(bp[0])) {
            case BOXED_TUPLE: {
                UWord arity = header_arity(bp[0]);
                HASH1(arity, HCONST_9);
                if (arity == 0) goto common;
                for (UWord i = arity; i > 1; i--) ws_push(&s, bp[i]);
                term = bp[1];
                continue;
            }
            case BOXED_MAP: {
                UWord size = map_size(term);
                HASH1(size, HCONST_16);
                if (size == 0) goto common;
                ws_push(&s, xor_pairs);
                ws_push(&s, hash);
                ws_push(&s, MARK_MAP_TAIL);
                hash = 0;
                xor_pairs = 0;
                MapView v;
                map_view(term, &v);
                for (UWord i = size; i-- > 0;) {
                    ws_push(&s, MARK_MAP_PAIR);
                    ws_push(&s, v.vals[i]);
                    ws_push(&s, v.keys[i]);
                }
                map_view_free(&v);
                goto common;
            }
            case BOXED_EXPORT: {
                const Export *ex = (const Export *)bp[1];
                HASH2(ex->arity, atom_hval(ex->module), HCONST);
                HASH1(atom_hval(ex->name), HCONST_14);
                goto common;
            }
            case BOXED_FUN: {          /* not OTP's numbers: see the top */
                const FunEntry *fe = (const FunEntry *)bp[1];
                UWord nfree = header_arity(bp[0]) - 1;
                HASH2(nfree, atom_hval(fe->module), HCONST);
                HASH2(fe->index, fe->uniq, HCONST);
                if (nfree == 0) goto common;
                for (UWord i = nfree; i > 1; i--) ws_push(&s, bp[1 + i]);
                term = bp[2];
                continue;
            }
            case BOXED_HEAP_BIN: case BOXED_REFC_BIN: case BOXED_SUB_BIN: {
                size_t sz, bits = bin_bit_size(term) % 8;
                const unsigned char *bytes = bin_bytes(term, &sz);
                uint32_t con = HCONST_13 + hash;
                hash = sz == 0 && !bits ? con : jenkins_block_hash(bytes, sz, con);
                if (bits)                      /* a bitstring's final bits */
                    HASH2(bits, (uint32_t)bytes[sz] >> (8 - bits), HCONST_15);
                *work += sz / 16;
                goto common;
            }
            case BOXED_POS_BIG: case BOXED_NEG_BIG:
                hash = hash_digits(hash, big_digits(term), big_size(term), big_is_neg(term));
                *work += big_size(term);
                goto common;
            case BOXED_REF:
                HASH1((uint32_t)bp[1], HCONST_7);
                goto common;
            case BOXED_FLOAT: {
                double d = float_val(term);
                uint64_t bits;
                if (d == 0.0) d = 0.0;  /* -0.0 hashes as 0.0 */
                memcpy(&bits, &d, sizeof bits);
                HASH2((uint32_t)(bits >> 32), (uint32_t)bits, HCONST_12);
                goto common;
            }
            default:
                goto common;
            }
        }
        if (is_small(term)) {
            SWord x = small_val(term);
            if (x >= -((SWord)1 << 27) && x < ((SWord)1 << 27)) {
                int32_t y = (int32_t)x;
                if (y < 0) HASH1(-y, HCONST);   /* OTP mixes negatives twice */
                HASH1(y, HCONST);
            } else {
                uint64_t mag = x < 0 ? -(uint64_t)x : (uint64_t)x;
                hash = hash_digits(hash, &mag, 1, x < 0);
            }
        } else if (is_atom(term)) {
            if (hash == 0) hash = atom_hval(term);
            else HASH1(atom_hval(term), HCONST_3);
        } else if (is_nil(term)) {
            if (hash == 0) hash = 3468870702u;
            else HASH1(NIL_DEF, HCONST_2);
        } else if (is_pid(term)) {
            HASH1(pid_val(term), HCONST_5);
        } else if (is_port(term)) {
            HASH1(port_val(term), HCONST_6);
        }

    common:
        /* hash holds the value of everything hashed so far */
        for (;;) {
            if (s.n == 0) {
                ws_free(&s);
                return hash;
            }
            term = ws_pop(&s);
            if (term == MARK_MAP_TAIL) {
                hash = (uint32_t)ws_pop(&s);
                HASH1(xor_pairs, HCONST_19);
                xor_pairs = (uint32_t)ws_pop(&s);
            } else if (term == MARK_MAP_PAIR) {
                xor_pairs ^= hash;
                hash = 0;
            } else {
                break;
            }
        }
    }
}

static void charge(Process *p, UWord work) { p->reds -= (SWord)(work / 16); }

Term bif_phash2_1(Process *p, Term *args)
{
    UWord work = 0;
    uint32_t h = make_hash2(args[0], &work);
    charge(p, work);
    return make_small(h & ((1u << 27) - 1));
}

Term bif_phash2_2(Process *p, Term *args)
{
    Term r = args[1];
    if (!is_small(r) || small_val(r) <= 0 || small_val(r) > ((SWord)1 << 32))
        BIF_ERROR(p, AM_badarg);
    UWord work = 0;
    uint64_t h = make_hash2(args[0], &work);
    charge(p, work);
    return make_small(h % (uint64_t)small_val(r));
}

/* ---- phash/2: OTP's older hash (make_hash in erts' utils.c) ----
 *
 * A multiplicative hash over the term's parts with primes just above 2^28:
 * atoms by their table hash, integers byte by byte of the magnitude (the
 * sign picks the last factor), floats by the xor of their two 32-bit
 * halves, binaries byte by byte then their size, a list's elements (bytes
 * inline) then its tail and one more factor, a tuple's elements then its
 * arity, a map by make_hash2 (phash2's). phash(T, Range) is hash rem Range
 * + 1. Pids, references and closures use Mini's numbers, which are not
 * erl's (as for phash2). Matches OTP 25 on the other kinds. */
#define FUNNY1 268440163u
#define FUNNY2 268439161u
#define FUNNY3 268435459u
#define FUNNY4 268436141u
#define FUNNY5 268438633u
#define FUNNY6 268437017u
#define FUNNY8 268437511u
#define FUNNY9 268439627u
#define FUNNY10 268440479u
#define FUNNY11 268440577u
#define FUNNY12 268440581u
#define FUNNY13 268440593u
#define FUNNY14 268440611u

/* a 32-bit word, low byte first */
static uint32_t bytes4(uint32_t h, uint32_t x, uint32_t prime) {
    for (int i = 0; i < 4; i++) h = h * prime + ((x >> (8 * i)) & 0xFF);
    return h;
}

enum { PH_TERM, PH_TAIL, PH_LIST_END, PH_TUPLE_END };

static void ph_push(WordStack *s, UWord v, UWord kind) { ws_push(s, v); ws_push(s, kind); }

static uint32_t make_hash_old(Term root, UWord *work)
{
    uint32_t h = 0;
    WordStack s;
    ws_init(&s);
    ph_push(&s, root, PH_TERM);
    while (s.n) {
        UWord kind = ws_pop(&s);
        Term t = (Term)ws_pop(&s);
        (*work)++;
        if (kind == PH_LIST_END) { h *= FUNNY8; continue; }
        if (kind == PH_TUPLE_END) { h = h * FUNNY9 + (uint32_t)t; continue; }
        if (kind == PH_TAIL && !is_list(t)) {          /* an improper tail, or [] */
            ph_push(&s, 0, PH_LIST_END);
            ph_push(&s, t, PH_TERM);
            continue;
        }
        if (is_list(t)) {
            Term *c = list_ptr(t);
            for (;;) {
                Term hd = CAR(c);
                if (!is_small(hd) || small_val(hd) < 0 || small_val(hd) > 255) {
                    ph_push(&s, CDR(c), PH_TAIL);
                    ph_push(&s, hd, PH_TERM);
                    break;
                }
                h = h * FUNNY2 + (uint32_t)small_val(hd);    /* bytes inline */
                (*work)++;
                if (!is_list(CDR(c))) {
                    ph_push(&s, 0, PH_LIST_END);
                    ph_push(&s, CDR(c), PH_TERM);
                    break;
                }
                c = list_ptr(CDR(c));
            }
            continue;
        }
        if (is_nil(t)) { h = h * FUNNY3 + 1; continue; }
        if (is_atom(t)) { h = h * FUNNY1 + atom_hval(t); continue; }
        if (is_small(t)) {
            SWord v = small_val(t);
            uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
            h = bytes4(h, (uint32_t)m, FUNNY2);
            if (m >> 32) h = bytes4(h, (uint32_t)(m >> 32), FUNNY2);
            h *= v < 0 ? FUNNY4 : FUNNY3;
            continue;
        }
        if (is_pid(t)) { h = bytes4(h, (uint32_t)pid_val(t), FUNNY5) * FUNNY6; continue; }
        if (is_port(t)) { h = bytes4(h, (uint32_t)port_val(t), FUNNY9) * FUNNY10; continue; }
        if (is_tuple(t)) {
            UWord n = tuple_arity(t);
            ph_push(&s, n, PH_TUPLE_END);
            for (UWord i = n; i > 0; i--) ph_push(&s, tuple_elems(t)[i - 1], PH_TERM);
            continue;
        }
        if (is_map_term(t)) { h = h * FUNNY13 + FUNNY14 + make_hash2(t, work); continue; }
        if (is_bitstring(t)) {
            size_t sz, bits = bin_bit_size(t) % 8;
            const unsigned char *b = bin_bytes(t, &sz);
            for (size_t i = 0; i < sz; i++) h = h * FUNNY1 + b[i];
            if (bits) h = (h * FUNNY1 + ((uint32_t)b[sz] >> (8 - bits))) * FUNNY12 + (uint32_t)bits;
            h = h * FUNNY4 + (uint32_t)sz;
            *work += sz / 16;
            continue;
        }
        if (!is_boxed(t)) continue;
        Term *bp = boxed_ptr(t);
        switch (boxed_kind(t)) {
        case BOXED_FLOAT: {
            double d = float_val(t);
            uint64_t w;
            if (d == 0.0) d = 0.0;                       /* -0.0 as 0.0 */
            memcpy(&w, &d, sizeof w);
            h = h * FUNNY6 + ((uint32_t)w ^ (uint32_t)(w >> 32));
            break;
        }
        case BOXED_POS_BIG: case BOXED_NEG_BIG: {
            const uint64_t *d = big_digits(t);
            size_t n = big_size(t);
            for (size_t i = 0; i < n; i++) {
                int k = i + 1 < n || (d[i] >> 32) ? 8 : 4;   /* a top digit below 2^32: 4 bytes */
                for (int j = 0; j < k; j++) h = h * FUNNY2 + (uint32_t)((d[i] >> (8 * j)) & 0xFF);
            }
            h *= big_is_neg(t) ? FUNNY4 : FUNNY3;
            *work += n;
            break;
        }
        case BOXED_REF:
            h = bytes4(h, (uint32_t)bp[1], FUNNY9) * FUNNY10;
            break;
        case BOXED_EXPORT: {
            const Export *ex = (const Export *)bp[1];
            h = h * FUNNY11 + (uint32_t)ex->arity;
            h = h * FUNNY1 + atom_hval(ex->module);
            h = h * FUNNY1 + atom_hval(ex->name);
            break;
        }
        case BOXED_FUN: {
            const FunEntry *fe = (const FunEntry *)bp[1];
            UWord nfree = header_arity(bp[0]) - 1;
            h = h * FUNNY10 + (uint32_t)nfree;
            h = h * FUNNY1 + atom_hval(fe->module);
            h = h * FUNNY2 + (uint32_t)fe->index;
            h = h * FUNNY2 + (uint32_t)fe->uniq;
            for (UWord i = nfree; i > 0; i--) ph_push(&s, bp[1 + i], PH_TERM);
            break;
        }
        default:
            break;
        }
    }
    ws_free(&s);
    return h;
}

Term bif_phash_2(Process *p, Term *args)
{
    Term r = args[1];
    if (!is_small(r) || small_val(r) <= 0 || small_val(r) > ((SWord)1 << 32))
        BIF_ERROR(p, AM_badarg);
    UWord work = 0;
    uint64_t h = make_hash_old(args[0], &work);
    charge(p, work);
    return make_small((SWord)(h % (uint64_t)small_val(r)) + 1);
}
