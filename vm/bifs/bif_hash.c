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
                Term *ks = map_keys(term), *vs = map_vals(term);
                for (UWord i = size; i-- > 0;) {
                    ws_push(&s, MARK_MAP_PAIR);
                    ws_push(&s, vs[i]);
                    ws_push(&s, ks[i]);
                }
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
