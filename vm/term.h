/* term.h — what a Mini value looks like in memory. Only this header knows.
 *
 * A Term is one machine word. Its two low bits (the primary tag) say what it is:
 *
 *   ...pppp pp00   header word of a boxed object (only inside a heap); on the
 *                  stack the same tag marks a continuation pointer (CP) or a
 *                  catch marker (bit 2 set), which the collector skips
 *   ...pppp pp01   pointer to a cons cell (two words: head, tail)
 *   ...pppp pp10   pointer to a boxed object: a header word, then its payload
 *   ...vvvv ss11   immediate; ss (bits 2-3) picks the kind:
 *        00  small integer, value in the upper 60 bits (signed)
 *        01  atom, index into the atom table in the upper bits
 *        10  pid, process number in the upper bits
 *        11  other immediates, with bits 4-5 as a second tag:
 *              00 special constants: [] (NIL) is 0x0F
 *              01 port, port number in the upper 58 bits
 *
 * THE_NON_VALUE (0) is never a valid term: functions return it to mean "raised
 * an exception" (the reason is in the process) and the collector uses it to
 * mark a moved cons cell.
 *
 * A header word is (arity << 6) | (subtag << 2) | 00, where arity is the number
 * of payload words that follow, and subtag one of the BOXED_* kinds below.
 * Terms are immutable once built; that is why an old-generation object never
 * points to a younger one and the collector needs no write barrier.
 *
 * The comparison order of term kinds (Erlang's): number < atom < reference <
 * fun < port < pid < tuple < map < [] < list < binary.
 */
#ifndef MINI_TERM_H
#define MINI_TERM_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

typedef uintptr_t Term;
typedef intptr_t SWord;
typedef uintptr_t UWord;

#define THE_NON_VALUE ((Term)0)

/* primary tags */
#define TAG_PRIMARY_MASK 0x3
#define TAG_HEADER 0x0
#define TAG_LIST   0x1
#define TAG_BOXED  0x2
#define TAG_IMMED  0x3

#define primary_tag(t) ((t) & TAG_PRIMARY_MASK)

/* immediates */
#define IMM_MASK   0xF
#define IMM_SMALL  0x3
#define IMM_ATOM   0x7
#define IMM_PID    0xB
#define IMM2_MASK  0x3F
#define IMM2_SPECIAL 0x0F
#define IMM2_PORT  0x1F

#define NIL ((Term)0x0F)

/* small integers: 60 bits, signed */
#define SMALL_BITS 60
#define MAX_SMALL  (((SWord)1 << (SMALL_BITS - 1)) - 1)
#define MIN_SMALL  (-((SWord)1 << (SMALL_BITS - 1)))
#define is_small(t) (((t) & IMM_MASK) == IMM_SMALL)
#define make_small(v) ((Term)(((UWord)(SWord)(v) << 4) | IMM_SMALL))
#define small_val(t) ((SWord)(t) >> 4)
#define fits_small(v) ((v) >= MIN_SMALL && (v) <= MAX_SMALL)

/* atoms */
#define is_atom(t) (((t) & IMM_MASK) == IMM_ATOM)
#define make_atom(i) ((Term)(((UWord)(i) << 4) | IMM_ATOM))
#define atom_val(t) ((UWord)(t) >> 4)

/* pids and ports */
#define is_pid(t) (((t) & IMM_MASK) == IMM_PID)
#define make_pid(n) ((Term)(((UWord)(n) << 4) | IMM_PID))
#define pid_val(t) ((UWord)(t) >> 4)
#define is_port(t) (((t) & IMM2_MASK) == IMM2_PORT)
#define make_port(n) ((Term)(((UWord)(n) << 6) | IMM2_PORT))
#define port_val(t) ((UWord)(t) >> 6)

#define is_nil(t) ((t) == NIL)
#define is_immed(t) (primary_tag(t) == TAG_IMMED)

/* The hash of an immediate (a small integer, an atom, a local pid): =:= to
 * the same word only, so the word mixed is its hash. Tables index by the
 * low bits (an ETS set's buckets, the process dictionary's slots) and by
 * the top ones (an ETS stripe), so every bit must depend on every bit of
 * the word: two rounds of multiply and fold. One product, its halves
 * folded, left the low bits to the word's low bits: the integers 0..999
 * walked 1.9 objects a lookup in a 1,024-bucket set where a uniform hash
 * walks 1.5, and 110 powers of two (as bit flags are) 8.9, in chains of
 * up to 41; the high half alone made the process dictionary probe 2.6
 * slots for 0..999 and 9.4 for the powers of two (tests/unit/
 * test_ets_hash.c and test_proc_dict.c). */
static inline uint32_t immed_hash(Term t)
{
    uint64_t h = (uint64_t)t * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    h *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

/* cons cells */
#define is_list(t) (primary_tag(t) == TAG_LIST)         /* non-empty list */
#define make_list(p) ((Term)(p) | TAG_LIST)
#define list_ptr(t) ((Term *)((t) - TAG_LIST))
#define CAR(p) ((p)[0])
#define CDR(p) ((p)[1])
#define list_head(t) (list_ptr(t)[0])
#define list_tail(t) (list_ptr(t)[1])

/* boxed objects */
#define is_boxed(t) (primary_tag(t) == TAG_BOXED)
#define make_boxed(p) ((Term)(p) | TAG_BOXED)
#define boxed_ptr(t) ((Term *)((t) - TAG_BOXED))

#define HEADER_SUBTAG_MASK 0x3C
#define make_header(arity, subtag) ((Term)(((UWord)(arity) << 6) | ((subtag) << 2)))
#define header_arity(h) ((UWord)(h) >> 6)
#define header_subtag(h) (((h) & HEADER_SUBTAG_MASK) >> 2)

/* Copies a boxed object of n words (header included, n >= 1), as a send
 * and a collection move one. Most are a small tuple, a float or a ref (2
 * to 4 words), for which a call to the C library's memcpy cost more than
 * the copy: sending a list of 1,000 pairs spent 12% of its time in it. */
static inline void object_words_copy(Term *d, const Term *s, size_t n)
{
    if (n > 4) { memcpy(d, s, n * sizeof(Term)); return; }
    d[0] = s[0];
    if (n > 1) d[1] = s[1];
    if (n > 2) d[2] = s[2];
    if (n > 3) d[3] = s[3];
}

enum BoxedKind {
    BOXED_TUPLE   = 0,  /* arity elements                                   */
    BOXED_POS_BIG = 1,  /* arity 64-bit digits, little-endian, no leading 0   */
    BOXED_NEG_BIG = 2,  /* same, the value is negative                       */
    BOXED_FLOAT   = 3,  /* arity 1: the IEEE double's bits                   */
    BOXED_FUN     = 4,  /* [FunEntry *][free variables...]: a closure         */
    BOXED_EXPORT  = 5,  /* arity 1: [Export *]: fun m:f/a                    */
    BOXED_REF     = 6,  /* arity 1 or more: reference number words           */
    BOXED_HEAP_BIN = 7, /* binaries (heap, refc, sub): layout in binary.h     */
    BOXED_REFC_BIN = 8,
    BOXED_SUB_BIN  = 9,
    BOXED_MAP      = 10,
    BOXED_EXTERNAL = 11 /* a pid, port or ref of another node: raw words
                           [node atom][kind << 32 | creation][ids...]     */
};

#define boxed_header(t) (boxed_ptr(t)[0])
#define boxed_kind(t) header_subtag(boxed_header(t))
#define is_boxed_kind(t, k) (is_boxed(t) && boxed_kind(t) == (k))

#define is_tuple(t) is_boxed_kind(t, BOXED_TUPLE)
#define make_tuple_header(n) make_header(n, BOXED_TUPLE)
#define tuple_arity(t) header_arity(boxed_header(t))
#define tuple_elems(t) (boxed_ptr(t) + 1)          /* element i at [i-1] */

#define is_float(t) is_boxed_kind(t, BOXED_FLOAT)
#define FLOAT_WORDS 2
static inline double float_val(Term t) { double d; memcpy(&d, boxed_ptr(t) + 1, sizeof d); return d; }
static inline Term make_float_at(Term *hp, double d) {
    hp[0] = make_header(1, BOXED_FLOAT); memcpy(hp + 1, &d, sizeof d); return make_boxed(hp);
}

#define is_big(t) (is_boxed(t) && (boxed_kind(t) == BOXED_POS_BIG || boxed_kind(t) == BOXED_NEG_BIG))
#define big_is_neg(t) (boxed_kind(t) == BOXED_NEG_BIG)
#define big_size(t) header_arity(boxed_header(t))
#define big_digits(t) ((uint64_t *)(boxed_ptr(t) + 1))

#define is_integer(t) (is_small(t) || is_big(t))
#define is_number(t) (is_integer(t) || is_float(t))

#define is_fun(t) (is_boxed(t) && (boxed_kind(t) == BOXED_FUN || boxed_kind(t) == BOXED_EXPORT))
#define is_ref(t) is_boxed_kind(t, BOXED_REF)

/* External pids, ports and references (another node's, vm/dist): the node
 * is an atom, the creation the 32-bit number epmd gave that incarnation of
 * it. A pid's ids are [number][serial]; a port's [number]; a ref's 32-bit
 * words, least significant first. All payload words are raw: the atom is
 * an immediate the collector need not visit. */
enum { EXT_PID = 0, EXT_PORT = 1, EXT_REF = 2 };
#define EXT_MAX_IDS 5
#define is_external(t) is_boxed_kind(t, BOXED_EXTERNAL)
#define external_node(t) (boxed_ptr(t)[1])
#define external_kind(t) ((int)(boxed_ptr(t)[2] >> 32))
#define external_creation(t) ((uint32_t)boxed_ptr(t)[2])
#define external_nids(t) (header_arity(boxed_header(t)) - 2)
#define external_ids(t) (boxed_ptr(t) + 3)
#define is_external_kind(t, k) (is_external(t) && external_kind(t) == (k))
static inline Term make_external_at(Term *hp, int kind, Term node, uint32_t creation,
                                    const UWord *ids, size_t n) {
    hp[0] = make_header(2 + n, BOXED_EXTERNAL);
    hp[1] = node;
    hp[2] = ((Term)kind << 32) | creation;
    for (size_t i = 0; i < n; i++) hp[3 + i] = ids[i];
    return make_boxed(hp);
}
/* Any pid / port / ref, this node's or another's. */
#define is_any_pid(t) (is_pid(t) || is_external_kind(t, EXT_PID))
#define is_any_port(t) (is_port(t) || is_external_kind(t, EXT_PORT))
#define is_any_ref(t) (is_ref(t) || is_external_kind(t, EXT_REF))

/* Stack-only words: continuation pointers and catch markers (tag 00). */
#define make_cp(pc) ((Term)(pc))
#define is_cp(t) (((t) & 0x7) == 0 && (t) != 0)
#define cp_val(t) ((const Instr *)(t))
#define make_catch(pc) ((Term)(pc) | 0x4)
#define is_catch(t) (((t) & 0x7) == 0x4)
#define catch_val(t) ((const Instr *)((t) & ~(Term)0x7))

/* Code is an array of words: the loader replaces each opcode number by the
 * address of its handler (threaded code); operands follow inline. */
typedef UWord Instr;

#endif
