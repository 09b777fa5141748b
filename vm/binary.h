/* binary.h — binaries: their three layouts, allocation, the off-heap (MSO)
 * list that lets processes share large binaries by reference count, and the
 * construction and matching operations the bs_* instructions call.
 *
 * Layouts (header arity = payload words, see term.h):
 *
 *   HEAP_BIN  [hdr, arity 1+W][byte size][W words of bytes]
 *             Binaries of at most BIN_HEAP_LIMIT (64) bytes, stored in the
 *             process heap and copied like any other term.
 *   REFC_BIN  [hdr, arity 3][byte size][Binary *][next]
 *             A "ProcBin": the handle a process heap holds on a malloc'ed,
 *             reference-counted Binary (over 64 bytes). `next` links every
 *             ProcBin of one process into its MSO list (p->mso, the address
 *             of the first ProcBin's header, 0 at the end), so that after a
 *             collection the dead ones can drop their reference. A message
 *             copy makes a new ProcBin and increments the count; the bytes
 *             are never copied between processes.
 *   SUB_BIN   [hdr, arity 3][bit size][bit offset][orig]
 *             A slice of `orig`, which is always a HEAP_BIN or REFC_BIN term
 *             (never another SUB_BIN). Sizes and offsets are in bits. A
 *             sub-binary that is a value starts at a byte (its offset is a
 *             multiple of 8) and may be any number of bits long: a
 *             *bitstring* (a size that is not a multiple of 8) is always a
 *             SUB_BIN, whose last partial byte holds its final bits in the
 *             high end (the low bits of that byte are not part of it and
 *             every reader masks them). The match state of a running binary
 *             match is a sub-binary too, mutated in place as the match
 *             advances, and may be at any bit.
 *
 * The collector copies HEAP_BIN and REFC_BIN words raw, treats the last word
 * of a SUB_BIN as a term, and calls the sweep (gc.c) that walks p->mso.
 * Literal binaries (module constants) are HEAP_BINs of any size in Boehm
 * memory and are never on an MSO list.
 */
#ifndef MINI_BINARY_H
#define MINI_BINARY_H

#include <stdatomic.h>
#include "process.h"
#include "outbuf.h"
#include "opcodes.h"
#include "term_sizes.h"

#define BIN_HEAP_LIMIT 64          /* bytes: larger binaries are refcounted */
#define PROC_BIN_WORDS 4
#define SUB_BIN_WORDS 4

/* A shared binary's bytes. refc counts ProcBins (and holders in C). size
 * bytes are allocated, of which the first `used_bits` bits are written; a
 * binary that bs_create grows by appending (<<B/bitstring, ...>>) keeps
 * room past them for the next append, which writes there in place when its
 * B ends at `used_bits` (the ProcBin, or a bitstring from the start of it)
 * and no copy of one was ever made (`frozen`: then two processes could
 * append to the same bytes). */
typedef struct Binary {
    atomic_size_t refc;
    size_t size;
    size_t used_bits;
    atomic_int frozen;
    unsigned char data[];
} Binary;

/* ProcBin fields */
#define PB_SIZE 1
#define PB_VAL 2
#define PB_NEXT 3
/* SubBin fields */
#define SB_BITS 1
#define SB_OFFS 2
#define SB_ORIG 3

/* The bytes of a HEAP_BIN or REFC_BIN (a sub-binary's SB_ORIG). */
static inline unsigned char *bin_orig_data(Term orig)
{
    Term *o = boxed_ptr(orig);
    if (header_subtag(o[0]) == BOXED_HEAP_BIN)
        return (unsigned char *)(o + 2);
    return ((Binary *)o[PB_VAL])->data;
}

/* Objects written at hp, words the caller has taken on p's heap (binary.c
 * with heap_alloc, the emulator's inline paths after a heap check). A
 * sub-binary: bits off..off+bits of orig (a HEAP_BIN or REFC_BIN). */
static inline Term sub_bin_at(Term *hp, Term orig, size_t off, size_t bits)
{
    hp[0] = make_header(SUB_BIN_WORDS - 1, BOXED_SUB_BIN);
    hp[SB_BITS] = (Term)bits;
    hp[SB_OFFS] = (Term)off;
    hp[SB_ORIG] = orig;
    return make_boxed(hp);
}

/* A ProcBin for the first n bytes of b, put on p's MSO list, which counts
 * `fresh` bytes more (an append's new ProcBin adds only what it wrote: the
 * bytes before are counted already). b's reference count must count the
 * new ProcBin already. */
static inline Term proc_bin_at(Process *p, Term *hp, Binary *b, size_t n, size_t fresh)
{
    hp[0] = make_header(PROC_BIN_WORDS - 1, BOXED_REFC_BIN);
    hp[PB_SIZE] = n;
    hp[PB_VAL] = (Term)b;
    hp[PB_NEXT] = (Term)p->mso;
    p->mso = hp;
    p->bin_vheap += fresh;
    return make_boxed(hp);
}

/* A holder of the first have_bits bits of b may have more written after
 * them, in place, up to need bytes in all: nothing was written past it,
 * there is room, and no copy of b was ever made (Binary, above). */
static inline int bin_can_append(Binary *b, size_t have_bits, size_t need)
{
    return have_bits == b->used_bits && need <= b->size &&
           !atomic_load_explicit(&b->frozen, memory_order_relaxed);
}

/* A bitstring: any binary, of whole bytes or not. */
static inline int is_bitstring(Term t)
{
    if (!is_boxed(t)) return 0;
    UWord k = boxed_kind(t);
    return k == BOXED_HEAP_BIN || k == BOXED_REFC_BIN || k == BOXED_SUB_BIN;
}

/* A binary: a bitstring of whole bytes (what most BIFs require). */
static inline int is_binary(Term t)
{
    return is_bitstring(t) && (boxed_kind(t) != BOXED_SUB_BIN || boxed_ptr(t)[SB_BITS] % 8 == 0);
}

/* The bytes of a bitstring: *size whole bytes; the bits past them, if any
 * (bin_bit_size % 8 of them), are the high bits of the next byte. */
const unsigned char *bin_bytes(Term t, size_t *size);
static inline size_t bin_size(Term t) { size_t n; bin_bytes(t, &n); return n; }
/* A bitstring's size in bits. */
size_t bin_bit_size(Term t);

/* A new binary of n bytes for p (heap binary or ProcBin + Binary); *data
 * is where to write its bytes, before p collects. Never collects. */
Term bin_new(Process *p, size_t n, unsigned char **data);
Term bin_from_bytes(Process *p, const void *src, size_t n);
/* A new bitstring of `bits` bits (a binary if that is whole bytes): *data
 * is where to write its (bits + 7) / 8 bytes, the last of them zeroed.
 * THE_NON_VALUE if it is too large. Never collects. */
Term bits_new(Process *p, size_t bits, unsigned char **data);
/* Bits off..off+len of bitstring b (off a multiple of 8), sharing b's
 * bytes when worthwhile; bin_sub counts in bytes. */
Term bits_sub(Process *p, Term b, size_t off, size_t len);
static inline Term bin_sub(Process *p, Term b, size_t off, size_t len) { return bits_sub(p, b, 8 * off, 8 * len); }

/* Reference counting of shared Binary buffers. */
Binary *binary_alloc(size_t size);              /* refc 1; NULL if no memory */
void binary_release(Binary *b);
/* Bytes in live Binary buffers, for erlang:memory(binary). */
size_t binary_total_bytes(void);

/* ---- MSO list maintenance (collector, copy, process lifetime) ---- */
/* copy.c copied a ProcBin to dst: count the new reference (dst is on no
 * MSO list: binary_adopt links it once the copy has an owner). */
void binary_copied(Term *dst);
/* [from, to) was just filled by copy_term and now belongs to p (a message
 * fragment taken by p, or spawn's arguments): put its ProcBins on p's list. */
void binary_adopt(Process *p, Term *from, Term *to);
/* [from, to) (copy_term output) is being freed unowned: drop its ProcBins'
 * references (an unreceived message). */
void binary_release_region(Term *from, Term *to);
/* The process is dying: drop every reference its list holds. */
void binary_release_all(Process *p);
/* Off-heap bytes since the last collection exceed the allowance: the next
 * collection point should collect even if the heap has room. */
static inline int binary_gc_due(const Process *p)
{
    size_t limit = p->bin_vheap_limit ? p->bin_vheap_limit : ((size_t)1 << 20);
    return p->bin_vheap > limit;
}

/* ---- construction and matching (bs_* instructions) ---- */
/* Segment specs: BS_* in opcodes.h (they are operands). */
/* ops: n/3 segments of (spec, value, size); size is an integer or the atom
 * all. Returns the binary, or THE_NON_VALUE with badarg raised. */
Term bs_create(Process *p, const Term *ops, size_t n);
/* A match state is a sub-binary made by the bs_start_match instruction
 * (emulator.c); bs_get and bs_match_string move it on. */
/* Takes one segment from the match state; THE_NON_VALUE if it does not match. */
Term bs_get(Process *p, Term ms, Term spec, Term size);
/* 1 if the next bytes equal those of binary lit (and consumes them). */
int bs_match_string(Term ms, Term lit);
static inline int bs_at_end(Term ms) { return boxed_ptr(ms)[SB_BITS] == 0; }

/* ---- text ---- */
/* io_lib:write of a bitstring with depth d (-1: all): <<1,2,...>>, and
 * the final bits of a bitstring as Value:Bits (<<1,2,3:4>>). */
void bin_write(OutBuf *b, Term t, long d);
/* io_lib_pretty's form: 1 and the text (<<"abc">> or <<"ab"...>>) in b if
 * the bitstring prints as a string at depth d (never one that is not whole
 * bytes), else 0. */
int bin_pretty_string(OutBuf *b, Term t, long d);
/* The same in unicode mode (~tp): a binary that is UTF-8 of printable
 * characters prints as <<"text"/utf8>> (no /utf8 when every character is
 * one byte); 1 written, 0 not text (print the bytes), -1 not UTF-8 (then
 * bin_pretty_string decides, as OTP falls back to Latin-1). */
int bin_pretty_utf8(OutBuf *b, Term t, long d);
/* pp_binary: the write form `text` (as bin_write made it) laid out from
 * column col with indentation ind, as io_lib_pretty does. */
void bin_pretty_layout(OutBuf *b, const char *text, size_t n, long col, long ll, long m,
                       long ind, long ld, long w);
/* The characters of a binary for ~s and io:put_chars: bytes as Latin-1, or
 * (unicode) UTF-8 decoded; appended to b through print_char. 0, or -1 if
 * the binary is not valid UTF-8. */
int binary_chars(OutBuf *b, Term t, int unicode);
/* The characters of a UTF-8 binary as a malloc'ed array of code points
 * (*codes, *n): 0, or -1 if it is not valid UTF-8. */
int binary_codes(Term t, Term **codes, size_t *n);
/* Bytes of an iolist (or binary) appended to b: 0, or -1 if not an iolist. */
int bin_iolist_bytes(OutBuf *b, Term t);
/* list_to_bitstring: the bitstring made of a bitstring list (bytes,
 * bitstrings, nested lists, a bitstring tail), or THE_NON_VALUE with badarg
 * raised. */
Term bin_from_bitstring_list(Process *p, Term t);

#endif
