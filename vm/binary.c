/* binary.c — binaries: allocation, reference counting and the MSO list,
 * comparison, bit-level construction and matching (the bs_* instructions),
 * and their text forms (io_lib:write and io_lib_pretty). Layouts: binary.h.
 *
 * Bits are numbered as Erlang does: bit 0 of a binary is the most
 * significant bit of its first byte. Construction and matching work at any
 * bit position; a value that is not whole bytes is a bitstring (a SUB_BIN
 * over a buffer of whole bytes, see binary.h), and a value never starts
 * inside a byte: a slice that would is copied.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

#include "binary.h"
#include "fatal.h"
#include "gc.h"
#include "mem_limit.h"
#include "iolist.h"
#include "arith.h"
#include "atom.h"
#include "bif.h"
#include "compare.h"
#include "copy.h"
#include "print.h"
#include "pool.h"

/* No single binary is larger than this (64 GiB): absurd sizes fail here
 * with system_limit instead of in malloc. */
#define BIN_MAX_BYTES ((size_t)1 << 36)

/* ---- shared buffers ---------------------------------------------------- */

static atomic_size_t total_bytes;

/* Buffers up to BIN_POOL_BYTES (record included) are blocks of the block
 * pool (pool.h), the rest come from malloc. A program that makes and drops
 * binaries on every scheduler then takes no lock: malloc's arenas are
 * locked, and under an address-space limit every thread shares one (heap.c
 * says why), where two processes making 1 KB binaries on two schedulers
 * ran 3.6x slower than without the limit (bench/binary_churn.mini). A buffer
 * sent to another scheduler and dropped there also goes back without a
 * lock, as messages do. Past 64 KiB, writing the bytes costs several times
 * what even a contended lock does (about 1 us a buffer in that benchmark),
 * and the pool, which keeps each class's memory for the next flood, would
 * hold large buffers idle: with Erlang's own bound (512 KiB, its binary
 * allocator's shared carriers) a program keeping buffers of sizes spread
 * up to 500 KB peaked at twice malloc's resident size, with this one at
 * 1.2 times (the benchmark's `sizes` shape). Under AddressSanitizer every
 * buffer comes from malloc, so that an overrun of a binary is caught where
 * it happens. */
#ifdef __SANITIZE_ADDRESS__
#define BIN_POOL_BYTES 0
#else
#define BIN_POOL_BYTES ((size_t)64 << 10)
#endif

static inline int pooled(size_t size) { return sizeof(Binary) + size <= BIN_POOL_BYTES; }

Binary *binary_alloc(size_t size)
{
    if (size > BIN_MAX_BYTES)
        return NULL;
    Binary *b;
    if (pooled(size)) {
        HeapFrag *f = pool_frag_new((sizeof(Binary) + size + sizeof(Term) - 1) / sizeof(Term));
        b = f ? (Binary *)f->mem : NULL;
    } else {
        b = malloc(sizeof(Binary) + size);
    }
    if (!b)
        return NULL;
    atomic_init(&b->refc, 1);
    atomic_init(&b->frozen, 0);
    b->size = size;
    b->used_bits = size * 8;
    atomic_fetch_add_explicit(&total_bytes, size, memory_order_relaxed);
    return b;
}

void binary_release(Binary *b)
{
    if (atomic_fetch_sub_explicit(&b->refc, 1, memory_order_acq_rel) == 1) {
        atomic_fetch_sub_explicit(&total_bytes, b->size, memory_order_relaxed);
        if (pooled(b->size))
            pool_frag_free((HeapFrag *)((char *)b - offsetof(HeapFrag, mem)));
        else
            free(b);
    }
}

size_t binary_total_bytes(void) { return atomic_load_explicit(&total_bytes, memory_order_relaxed); }

/* ---- the MSO list ------------------------------------------------------ */

static void mso_push(Process *p, Term *pb)
{
    pb[PB_NEXT] = (Term)p->mso;
    p->mso = pb;
    p->bin_vheap += pb[PB_SIZE];
}

void binary_copied(Term *dst)
{
    Binary *b = (Binary *)dst[PB_VAL];
    atomic_fetch_add_explicit(&b->refc, 1, memory_order_relaxed);
    /* the copy and the original end at the same byte: neither may append
     * in place from now on (the copier is the thread that would append) */
    atomic_store_explicit(&b->frozen, 1, memory_order_relaxed);
    dst[PB_NEXT] = 0;
}

/* Calls fn on every ProcBin in [from, to), a run of whole objects as
 * copy_term writes them (cons cells have no header; a header's raw payload
 * is skipped). */
static void each_procbin(Term *from, Term *to, void (*fn)(void *, Term *), void *ctx)
{
    Term *s = from;
    while (s < to) {
        Term w = *s;
        if (primary_tag(w) == TAG_HEADER) {
            if (header_subtag(w) == BOXED_REFC_BIN)
                fn(ctx, s);
            s += 1 + copy_raw_words(w);
        } else {
            s++;
        }
    }
}

static void adopt_one(void *ctx, Term *pb) { mso_push(ctx, pb); }
static void release_one(void *ctx, Term *pb) { (void)ctx; binary_release((Binary *)pb[PB_VAL]); }

void binary_adopt(Process *p, Term *from, Term *to) { each_procbin(from, to, adopt_one, p); }
void binary_release_region(Term *from, Term *to) { each_procbin(from, to, release_one, NULL); }

void binary_release_all(Process *p)
{
    for (Term *pb = p->mso; pb; pb = (Term *)pb[PB_NEXT])
        binary_release((Binary *)pb[PB_VAL]);
    p->mso = NULL;
    p->bin_vheap = 0;
}

/* ---- making and reading binaries ---------------------------------------- */

const unsigned char *bin_bytes(Term t, size_t *size)
{
    Term *o = boxed_ptr(t);
    switch (header_subtag(o[0])) {
    case BOXED_HEAP_BIN:
        *size = o[1];
        return (const unsigned char *)(o + 2);
    case BOXED_REFC_BIN:
        *size = o[PB_SIZE];
        return ((Binary *)o[PB_VAL])->data;
    default:                                   /* SUB_BIN, starting at a byte */
        *size = o[SB_BITS] / 8;
        return bin_orig_data(o[SB_ORIG]) + o[SB_OFFS] / 8;
    }
}

size_t bin_bit_size(Term t)
{
    Term *o = boxed_ptr(t);
    switch (header_subtag(o[0])) {
    case BOXED_HEAP_BIN: return o[1] * 8;
    case BOXED_REFC_BIN: return o[PB_SIZE] * 8;
    default: return o[SB_BITS];
    }
}

/* The high `bits` bits (1..7) of byte c, as a number. */
static unsigned tail_value(unsigned char c, size_t bits) { return (unsigned)c >> (8 - bits); }

/* A ProcBin on p's heap (proc_bin_at, binary.h). */
static Term proc_bin_new(Process *p, Binary *b, size_t n, size_t fresh)
{
    return proc_bin_at(p, heap_alloc(p, PROC_BIN_WORDS), b, n, fresh);
}

Term bin_new(Process *p, size_t n, unsigned char **data)
{
    if (n <= BIN_HEAP_LIMIT) {
        size_t w = heap_bin_words(n);
        Term *hp = heap_alloc(p, w);
        hp[0] = make_header(w - 1, BOXED_HEAP_BIN);
        hp[1] = n;
        hp[w - 1] = 0;                         /* padding bytes are zero */
        *data = (unsigned char *)(hp + 2);
        return make_boxed(hp);
    }
    Binary *b = binary_alloc(n);
    if (!b) {
        /* refused by the system (not too big for a binary): the process
         * dies for want of memory, as when its heap cannot grow (gc.h); the
         * caller raises system_limit, which is all a too-big size gets */
        if (n <= BIN_MAX_BYTES) {
            gc_out_of_memory(p, OOM_NOMEM);
            p->reds = 0;
        }
        return THE_NON_VALUE;
    }
    *data = b->data;
    return proc_bin_new(p, b, n, n);
}

Term bin_from_bytes(Process *p, const void *src, size_t n)
{
    unsigned char *d;
    Term t = bin_new(p, n, &d);
    if (t != THE_NON_VALUE && n)
        memcpy(d, src, n);
    return t;
}

static Term make_sub(Process *p, Term orig, size_t off, size_t bits)
{
    return sub_bin_at(heap_alloc(p, SUB_BIN_WORDS), orig, off, bits);
}

Term bits_new(Process *p, size_t bits, unsigned char **data)
{
    size_t n = (bits + 7) / 8;
    Term t = bin_new(p, n, data);
    if (t == THE_NON_VALUE)
        return t;
    if (n)
        (*data)[n - 1] = 0;
    return bits % 8 ? make_sub(p, t, 0, bits) : t;
}

/* Bits off..off+len of orig (a HEAP_BIN or REFC_BIN; off a multiple of
 * 8): small slices are copied, so that they do not keep a large binary
 * alive. */
static Term slice(Process *p, Term orig, size_t off, size_t len)
{
    size_t n = (len + 7) / 8;
    if (n > BIN_HEAP_LIMIT)
        return make_sub(p, orig, off, len);
    unsigned char *d;
    Term t = bits_new(p, len, &d);
    if (n) {
        memcpy(d, bin_orig_data(orig) + off / 8, n);
        if (len % 8)
            d[n - 1] &= (unsigned char)(0xFF << (8 - len % 8));
    }
    return t;
}

Term bits_sub(Process *p, Term b, size_t off, size_t len)
{
    if (off == 0 && len == bin_bit_size(b))
        return b;
    Term *o = boxed_ptr(b);
    if (header_subtag(o[0]) == BOXED_SUB_BIN)
        return slice(p, o[SB_ORIG], o[SB_OFFS] + off, len);
    return slice(p, b, off, len);
}

/* The weak hook of compare.c: bit by bit, a prefix first. */
int term_compare_binaries(Term a, Term b)
{
    size_t na = bin_bit_size(a), nb = bin_bit_size(b), n = na < nb ? na : nb, k;
    const unsigned char *pa = bin_bytes(a, &k), *pb = bin_bytes(b, &k);
    int c = n >= 8 ? memcmp(pa, pb, n / 8) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    if (n % 8) {
        unsigned x = tail_value(pa[n / 8], n % 8), y = tail_value(pb[n / 8], n % 8);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return na < nb ? -1 : na > nb;
}

/* ---- bits ----------------------------------------------------------------- */

/* Copies n bits from src at bit spos to dst at bit dpos. */
static void copy_bits(unsigned char *dst, size_t dpos, const unsigned char *src, size_t spos, size_t n)
{
    if (n == 0)
        return;
    if ((dpos & 7) == 0 && (spos & 7) == 0) {
        memmove(dst + dpos / 8, src + spos / 8, n / 8);
        dpos += n & ~(size_t)7;
        spos += n & ~(size_t)7;
        n &= 7;
    }
    while (n > 0) {
        /* move up to one byte-boundary-limited chunk at a time */
        size_t sb = spos & 7, db = dpos & 7;
        size_t k = 8 - (sb > db ? sb : db);
        if (k > n)
            k = n;
        unsigned v = (src[spos / 8] >> (8 - sb - k)) & ((1u << k) - 1);
        unsigned mask = ((1u << k) - 1) << (8 - db - k);
        dst[dpos / 8] = (unsigned char)((dst[dpos / 8] & ~mask) | (v << (8 - db - k)));
        spos += k;
        dpos += k;
        n -= k;
    }
}

/* Reads n <= 64 bits at pos, the first bit read being the most significant. */
static uint64_t read_bits(const unsigned char *src, size_t pos, size_t n)
{
    uint64_t v = 0;
    while (n > 0) {
        size_t sb = pos & 7, k = 8 - sb;
        if (k > n)
            k = n;
        v = (v << k) | ((src[pos / 8] >> (8 - sb - k)) & ((1u << k) - 1));
        pos += k;
        n -= k;
    }
    return v;
}

/* The low nb bytes of integer v's two's complement, least significant
 * first. */
static void integer_le_bytes(Term v, unsigned char *le, size_t nb)
{
    if (is_small(v)) {
        SWord s = small_val(v);
        for (size_t k = 0; k < nb; k++)
            le[k] = k < 8 ? (unsigned char)((uint64_t)s >> (8 * k)) : (s < 0 ? 0xFF : 0);
        return;
    }
    const uint64_t *d = big_digits(v);
    size_t nd = big_size(v);
    int neg = big_is_neg(v);
    unsigned carry = 1;
    for (size_t k = 0; k < nb; k++) {
        unsigned byte = k / 8 < nd ? (unsigned)(d[k / 8] >> (8 * (k % 8))) & 0xFF : 0;
        if (neg) {
            byte = (~byte & 0xFF) + carry;
            carry = byte >> 8;
            byte &= 0xFF;
        }
        le[k] = (unsigned char)byte;
    }
}

/* Writes the low n bits of integer v at dst bit pos. */
static void put_integer(unsigned char *dst, size_t pos, Term v, size_t n, int little)
{
    if (n == 0)
        return;
    if (is_small(v) && n <= 64 && ((pos | n) & 7) == 0) {
        /* the usual segment: whole bytes of a small integer at a byte (its
         * word is its two's complement, sign-extended to 64 bits) */
        uint64_t u = (uint64_t)small_val(v);
        unsigned char *o = dst + pos / 8;
        size_t nb = n / 8;
        for (size_t k = 0; k < nb; k++)
            o[little ? k : nb - 1 - k] = (unsigned char)(u >> (8 * k));
        return;
    }
    size_t nb = (n + 7) / 8;
    unsigned char small[16], *le = nb <= sizeof small ? small : malloc(nb);
    if (!le) FATAL("out of memory for a %zu-byte integer segment of a binary", nb);
    integer_le_bytes(v, le, nb);
    size_t r = n - 8 * (nb - 1);               /* bits in the top byte: 1..8 */
    if (little) {
        size_t full = n / 8;
        if ((pos & 7) == 0)
            memcpy(dst + pos / 8, le, full);
        else
            for (size_t k = 0; k < full; k++)
                copy_bits(dst, pos + 8 * k, le + k, 0, 8);
        if (n % 8)
            copy_bits(dst, pos + 8 * full, le + full, 8 - n % 8, n % 8);
    } else {
        copy_bits(dst, pos, le + nb - 1, 8 - r, r);
        pos += r;
        for (size_t k = nb - 1; k-- > 0; pos += 8) {
            if ((pos & 7) == 0) dst[pos / 8] = le[k];
            else copy_bits(dst, pos, le + k, 0, 8);
        }
    }
    if (le != small)
        free(le);
}

/* Reads an n-bit integer at pos. */
static Term get_integer(Process *p, const unsigned char *src, size_t pos, size_t n, int little, int sign)
{
    if (n == 0)
        return make_small(0);
    if (n <= 64) {
        uint64_t v;
        if (((pos | n) & 7) == 0) {            /* whole bytes at a byte */
            const unsigned char *b = src + pos / 8;
            size_t nb = n / 8;
            v = 0;
            for (size_t k = 0; k < nb; k++)
                v |= (uint64_t)b[little ? k : nb - 1 - k] << (8 * k);
        } else if (little) {
            v = 0;
            size_t full = n / 8;
            for (size_t k = 0; k < full; k++)
                v |= read_bits(src, pos + 8 * k, 8) << (8 * k);
            if (n % 8)
                v |= read_bits(src, pos + 8 * full, n % 8) << (8 * full);
        } else {
            v = read_bits(src, pos, n);
        }
        if (sign && (v >> (n - 1)) & 1) {
            if (n < 64)
                v |= ~(uint64_t)0 << n;
            return make_integer(p, (int64_t)v);
        }
        return make_uinteger(p, v);
    }
    size_t nb = (n + 7) / 8, nd = (nb + 7) / 8;
    uint64_t *d = calloc(nd, sizeof *d);
    unsigned char *le = calloc(nd * 8, 1);
    if (!d || !le) FATAL("out of memory for a %zu-byte integer segment matched in a binary", nb);
    size_t r = n - 8 * (nb - 1);
    if (little) {
        for (size_t k = 0; k < n / 8; k++)
            le[k] = (unsigned char)read_bits(src, pos + 8 * k, 8);
        if (n % 8)
            le[n / 8] = (unsigned char)read_bits(src, pos + 8 * (n / 8), n % 8);
    } else {
        le[nb - 1] = (unsigned char)read_bits(src, pos, r);
        for (size_t k = nb - 1; k-- > 0;)
            le[k] = (unsigned char)read_bits(src, pos + r + 8 * (nb - 2 - k), 8);
    }
    int neg = sign && (le[nb - 1] >> (r - 1)) & 1;
    if (neg) {                                 /* magnitude = 2^n - value */
        if (r < 8)
            le[nb - 1] |= (unsigned char)(0xFF << r);
        unsigned carry = 1;
        for (size_t k = 0; k < nb; k++) {
            unsigned byte = (~le[k] & 0xFF) + carry;
            carry = byte >> 8;
            le[k] = (unsigned char)byte;
        }
    }
    for (size_t k = 0; k < nb; k++)
        d[k / 8] |= (uint64_t)le[k] << (8 * (k % 8));
    Term t = make_big_from_digits(p, neg, d, nd);
    free(d);
    free(le);
    return t;
}

/* UTF-8 bytes of code point c (valid), returns the length. */
static int utf8_encode(UWord c, unsigned char *o)
{
    if (c < 0x80) { o[0] = (unsigned char)c; return 1; }
    if (c < 0x800) { o[0] = (unsigned char)(0xC0 | (c >> 6)); o[1] = (unsigned char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (c >> 12)); o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (c >> 18)); o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F)); o[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

static int valid_code_point(Term v)
{
    if (!is_small(v)) return 0;
    SWord c = small_val(v);
    return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

/* ---- construction --------------------------------------------------------- */

static Term badarg(Process *p) { return bif_raise(p, EXC_ERROR, AM_badarg); }

/* Bits segment i will take, or (size_t)-1 if its operands are bad. */
static size_t segment_bits(Term spec, Term v, Term sz)
{
    UWord s = (UWord)small_val(spec);
    UWord unit = s >> BS_UNIT_SHIFT;
    size_t n = 0;
    if ((s & BS_TYPE_MASK) <= BS_BINARY && sz != ATOM_TERM(all)) {
        /* at most 2^40 bits; unit is at most 256, so the product of a
         * size under 2^40 cannot overflow (and no division is needed) */
        if (!is_small(sz) || small_val(sz) < 0 || (UWord)small_val(sz) > ((UWord)1 << 40) ||
            (UWord)small_val(sz) * (unit ? unit : 1) > ((UWord)1 << 40))
            return (size_t)-1;
        n = (size_t)small_val(sz) * unit;
    }
    switch (s & BS_TYPE_MASK) {
    case BS_INTEGER:
        return is_integer(v) && sz != ATOM_TERM(all) ? n : (size_t)-1;
    case BS_FLOAT:
        return is_number(v) && (n == 64 || n == 32) ? n : (size_t)-1;
    case BS_BINARY: {
        if (!is_bitstring(v)) return (size_t)-1;
        size_t have = bin_bit_size(v);
        if (sz == ATOM_TERM(all)) return unit && have % unit ? (size_t)-1 : have;
        return n <= have ? n : (size_t)-1;
    }
    case BS_UTF8: {
        if (!valid_code_point(v)) return (size_t)-1;
        unsigned char tmp[4];
        return 8 * (size_t)utf8_encode((UWord)small_val(v), tmp);
    }
    case BS_UTF16:
        return valid_code_point(v) ? (small_val(v) >= 0x10000 ? 32 : 16) : (size_t)-1;
    case BS_UTF32:
        return valid_code_point(v) ? 32 : (size_t)-1;
    }
    return (size_t)-1;
}

/* Writes segment (spec, v) of `bits` bits (segment_bits) at bit pos of d. */
static void put_segment(unsigned char *d, size_t pos, Term spec, Term v, size_t bits)
{
    UWord s = (UWord)small_val(spec);
    int little = (s & BS_LITTLE) != 0;
    switch (s & BS_TYPE_MASK) {
    case BS_INTEGER:
        put_integer(d, pos, v, bits, little);
        break;
    case BS_FLOAT: {
        double f;
        term_to_double(v, &f);
        unsigned char be[8];
        uint64_t u;
        size_t nb = bits / 8;
        if (bits == 64) { memcpy(&u, &f, 8); }
        else { float g = (float)f; uint32_t w; memcpy(&w, &g, 4); u = w; }
        for (size_t k = 0; k < nb; k++)
            be[little ? k : nb - 1 - k] = (unsigned char)(u >> (8 * k));
        copy_bits(d, pos, be, 0, bits);
        break;
    }
    case BS_BINARY: {
        size_t vn;
        const unsigned char *src = bin_bytes(v, &vn);
        copy_bits(d, pos, src, 0, bits);
        break;
    }
    case BS_UTF8: {
        unsigned char u[4];
        int k = utf8_encode((UWord)small_val(v), u);
        copy_bits(d, pos, u, 0, 8 * (size_t)k);
        break;
    }
    case BS_UTF16: {
        UWord c = (UWord)small_val(v);
        unsigned units[2], nu = 1;
        if (c >= 0x10000) { c -= 0x10000; units[0] = 0xD800 | (unsigned)(c >> 10); units[1] = 0xDC00 | (unsigned)(c & 0x3FF); nu = 2; }
        else units[0] = (unsigned)c;
        for (unsigned k = 0; k < nu; k++) {
            unsigned char u[2];
            u[little ? 0 : 1] = (unsigned char)units[k];
            u[little ? 1 : 0] = (unsigned char)(units[k] >> 8);
            copy_bits(d, pos + 16 * k, u, 0, 16);
        }
        break;
    }
    case BS_UTF32:
        put_integer(d, pos, v, 32, little);
        break;
    }
}

/* Writes segments from..n of ops at bit pos of d; sizes[i / 3], when
 * given, is segment i's size (bs_create computed them all once). */
static void put_segments(unsigned char *d, size_t pos, const Term *ops, size_t from, size_t n,
                         const size_t *sizes)
{
    for (size_t i = from; i + 2 < n; i += 3) {
        size_t bits = sizes ? sizes[i / 3] : segment_bits(ops[i], ops[i + 1], ops[i + 2]);
        put_segment(d, pos, ops[i], ops[i + 1], bits);
        pos += bits;
    }
}

/* An append, <<B/bitstring, ...>> (the first segment a whole binary or
 * bitstring), which Erlang programs use to build a binary a piece at a
 * time, and binary comprehensions compile to: the result gets room to grow
 * (twice its size), and when B is such a result, ends where its buffer's
 * writing ended and was never copied, the rest is written in place after
 * it and the result is a new ProcBin over the longer run of the same bytes
 * (inside a sub-binary when its size is not whole bytes). B itself still
 * sees only its own bits, which no append changes. So a binary built by N
 * appends costs O(N) bytes copied, not O(N^2). A private B (BS_PRIVATE, a
 * comprehension's accumulator, dead after this) is itself made longer: no
 * new ProcBin, no reference to count. Returns THE_NON_VALUE when
 * ops are not such an append (or B is not appendable and the result would
 * fit a heap binary): bs_create builds it the usual way. */
static Term bs_append(Process *p, const Term *ops, size_t n, size_t total_bits,
                      const size_t *sizes)
{
    UWord s0 = (UWord)small_val(ops[0]);
    Term b0 = ops[1];
    if (n < 6 || (s0 & BS_TYPE_MASK) != BS_BINARY || ops[2] != ATOM_TERM(all))
        return THE_NON_VALUE;
    size_t have = bin_bit_size(b0), need = (total_bits + 7) / 8;
    Term *pb = boxed_ptr(b0);
    if (header_subtag(pb[0]) == BOXED_SUB_BIN && pb[SB_OFFS] == 0)
        pb = boxed_ptr(pb[SB_ORIG]);            /* bits from the start of a buffer */
    if (header_subtag(pb[0]) == BOXED_REFC_BIN) {
        Binary *b = (Binary *)pb[PB_VAL];
        if (bin_can_append(b, have, need)) {
            put_segments(b->data, have, ops, 3, n, sizes);
            b->used_bits = total_bits;
            if (s0 & BS_PRIVATE) {
                p->bin_vheap += need - (have + 7) / 8;
                pb[PB_SIZE] = need;
                if (total_bits % 8 == 0)
                    return make_boxed(pb);
                if (pb != boxed_ptr(b0)) {
                    boxed_ptr(b0)[SB_BITS] = total_bits;
                    return b0;
                }
                return make_sub(p, b0, 0, total_bits);
            }
            atomic_fetch_add_explicit(&b->refc, 1, memory_order_relaxed);
            Term r = proc_bin_new(p, b, need, need - (have + 7) / 8);
            return total_bits % 8 ? make_sub(p, r, 0, total_bits) : r;
        }
    }
    if (need <= BIN_HEAP_LIMIT)
        return THE_NON_VALUE;
    size_t room = need < ((size_t)1 << 36) ? 2 * need : need;
    Binary *b = room > BIN_MAX_BYTES ? NULL : binary_alloc(room);
    if (!b)
        return THE_NON_VALUE;
    b->used_bits = total_bits;
    put_segments(b->data, 0, ops, 0, n, sizes);
    Term r = proc_bin_new(p, b, need, need);
    return total_bits % 8 ? make_sub(p, r, 0, total_bits) : r;
}

Term bs_create(Process *p, const Term *ops, size_t n)
{
    size_t total = 0;
    size_t few[16], *sizes = n / 3 <= 16 ? few : NULL;   /* most have a few */
    for (size_t i = 0; i + 2 < n; i += 3) {
        size_t b = segment_bits(ops[i], ops[i + 1], ops[i + 2]);
        if (sizes)
            sizes[i / 3] = b;
        if (b == (size_t)-1 || total + b > BIN_MAX_BYTES * 8)
            return badarg(p);
        if ((UWord)(small_val(ops[i]) & BS_TYPE_MASK) == BS_FLOAT) {
            double d;
            if (!term_to_double(ops[i + 1], &d) || (b == 32 && isfinite(d) && !isfinite((float)d)))
                return badarg(p);
        }
        total += b;
    }
    Term res = bs_append(p, ops, n, total, sizes);
    if (res != THE_NON_VALUE)
        return res;
    unsigned char *d;
    res = bits_new(p, total, &d);
    if (res == THE_NON_VALUE)
        return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
    put_segments(d, 0, ops, 0, n, sizes);
    return res;
}

/* ---- matching ------------------------------------------------------------- */

/* Decodes one UTF-8 character at bit pos with `left` bits there; returns the
 * code point and its length in bytes, or -1. Overlong forms, surrogates and
 * values over 0x10FFFF do not match, as in Erlang. */
static long utf8_decode(const unsigned char *src, size_t pos, size_t left, int *len)
{
    if (left < 8) return -1;
    unsigned b0 = (unsigned)read_bits(src, pos, 8);
    int n = b0 < 0x80 ? 1 : (b0 & 0xE0) == 0xC0 ? 2 : (b0 & 0xF0) == 0xE0 ? 3 : (b0 & 0xF8) == 0xF0 ? 4 : 0;
    if (!n || left < 8 * (size_t)n) return -1;
    long c = n == 1 ? (long)b0 : n == 2 ? (long)(b0 & 0x1F) : n == 3 ? (long)(b0 & 0x0F) : (long)(b0 & 0x07);
    for (int k = 1; k < n; k++) {
        unsigned b = (unsigned)read_bits(src, pos + 8 * (size_t)k, 8);
        if ((b & 0xC0) != 0x80) return -1;
        c = (c << 6) | (long)(b & 0x3F);
    }
    static const long min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < min_of[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return -1;
    *len = n;
    return c;
}

Term bs_get(Process *p, Term ms, Term spec, Term size)
{
    Term *m = boxed_ptr(ms);
    size_t left = m[SB_BITS], pos = m[SB_OFFS];
    const unsigned char *src = bin_orig_data(m[SB_ORIG]);
    UWord s = (UWord)small_val(spec), unit = s >> BS_UNIT_SHIFT;
    int little = (s & BS_LITTLE) != 0;
    size_t n = 0;
    Term r;
    if ((s & BS_TYPE_MASK) <= BS_BINARY) {
        if (size == ATOM_TERM(all)) {
            n = left;
            if (unit && n % unit) return THE_NON_VALUE;
        } else {
            if (!is_small(size) || small_val(size) < 0) return THE_NON_VALUE;
            UWord sz = (UWord)small_val(size);
            if (unit && sz > left / unit) return THE_NON_VALUE;
            n = sz * unit;
        }
        if (n > left) return THE_NON_VALUE;
    }
    switch (s & BS_TYPE_MASK) {
    case BS_INTEGER:
        r = get_integer(p, src, pos, n, little, (s & BS_SIGNED) != 0);
        break;
    case BS_FLOAT: {
        if (n != 64 && n != 32) return THE_NON_VALUE;
        unsigned char be[8];
        uint64_t u = 0;
        for (size_t k = 0; k < n / 8; k++) be[k] = (unsigned char)read_bits(src, pos + 8 * k, 8);
        for (size_t k = 0; k < n / 8; k++) u |= (uint64_t)be[little ? k : n / 8 - 1 - k] << (8 * k);
        double d;
        if (n == 64) memcpy(&d, &u, 8);
        else { uint32_t w = (uint32_t)u; float g; memcpy(&g, &w, 4); d = g; }
        if (!isfinite(d)) return THE_NON_VALUE;
        r = make_float(p, d);
        break;
    }
    case BS_BINARY:
        if (size == ATOM_TERM(all) && pos % 8 == 0 && (n + 7) / 8 > BIN_HEAP_LIMIT) {
            /* The rest of the binary (Rest/binary, the last segment of a
             * pattern: codegen_bin.c allows a sizeless binary nowhere else
             * and then runs nothing more on this state) is what the state
             * already describes: the state itself becomes the sub-binary,
             * unchanged from here on, instead of a copy of it. A parser
             * that recurses on Rest so makes one sub-binary a step, not
             * two. Small rests are still copied out (slice). */
            return ms;
        }
        if (pos % 8 == 0) {
            r = slice(p, m[SB_ORIG], pos, n);
        } else {                                   /* values start at a byte */
            unsigned char *d;
            r = bits_new(p, n, &d);
            if (r == THE_NON_VALUE) return THE_NON_VALUE;
            copy_bits(d, 0, src, pos, n);
        }
        break;
    case BS_UTF8: {
        int len;
        long c = utf8_decode(src, pos, left, &len);
        if (c < 0) return THE_NON_VALUE;
        n = 8 * (size_t)len;
        r = make_small(c);
        break;
    }
    case BS_UTF16: {
        if (left < 16) return THE_NON_VALUE;
        unsigned w1 = (unsigned)read_bits(src, pos, 16);
        if (little) w1 = ((w1 & 0xFF) << 8) | (w1 >> 8);
        n = 16;
        long c = (long)w1;
        if (w1 >= 0xD800 && w1 <= 0xDBFF) {
            if (left < 32) return THE_NON_VALUE;
            unsigned w2 = (unsigned)read_bits(src, pos + 16, 16);
            if (little) w2 = ((w2 & 0xFF) << 8) | (w2 >> 8);
            if (w2 < 0xDC00 || w2 > 0xDFFF) return THE_NON_VALUE;
            c = 0x10000 + (((long)w1 - 0xD800) << 10) + ((long)w2 - 0xDC00);
            n = 32;
        } else if (w1 >= 0xDC00 && w1 <= 0xDFFF) {
            return THE_NON_VALUE;
        }
        r = make_small(c);
        break;
    }
    case BS_UTF32: {
        if (left < 32) return THE_NON_VALUE;
        r = get_integer(p, src, pos, 32, little, 0);
        if (!valid_code_point(r)) return THE_NON_VALUE;
        n = 32;
        break;
    }
    default:
        return THE_NON_VALUE;
    }
    m = boxed_ptr(ms);
    m[SB_OFFS] = pos + n;
    m[SB_BITS] = left - n;
    return r;
}

int bs_match_string(Term ms, Term lit)
{
    Term *m = boxed_ptr(ms);
    size_t n;
    const unsigned char *want = bin_bytes(lit, &n);
    size_t left = m[SB_BITS], pos = m[SB_OFFS];
    if (left < 8 * n) return 0;
    const unsigned char *src = bin_orig_data(m[SB_ORIG]);
    if (pos % 8 == 0) {
        if (n && memcmp(src + pos / 8, want, n)) return 0;
    } else {
        for (size_t k = 0; k < n; k++)
            if (read_bits(src, pos + 8 * k, 8) != want[k]) return 0;
    }
    m[SB_OFFS] = pos + 8 * n;
    m[SB_BITS] = left - 8 * n;
    return 1;
}

/* ---- text ------------------------------------------------------------------ */

void bin_write(OutBuf *b, Term t, long d)
{
    size_t n, r = bin_bit_size(t) % 8;
    const unsigned char *s = bin_bytes(t, &n);
    ob_puts(b, "<<");
    for (size_t i = 0; i <= n; i++, d--) {
        if (i == n && !r) break;
        if (d == 1) { ob_puts(b, "..."); break; }
        if (i == n) { ob_printf(b, "%u:%u", tail_value(s[n], r), (unsigned)r); break; }
        ob_printf(b, "%u", s[i]);
        if (i + 1 < n || r) ob_putc(b, ',');
    }
    ob_puts(b, ">>");
}

/* io_lib:write_string(L, $") for printable Latin-1 bytes. */
static void put_string_bytes(OutBuf *b, const unsigned char *s, size_t n)
{
    ob_putc(b, '"');
    for (size_t i = 0; i < n; i++)
        print_quoted_char(b, s[i], '"');
    ob_putc(b, '"');
}

/* Index of the first non-printable byte in s[from, to), or `to`. */
static size_t first_unprintable(const unsigned char *s, size_t from, size_t to)
{
    while (from < to && print_printable_latin1(s[from])) from++;
    return from;
}

/* io_lib_pretty:print_length for a binary, Latin-1, with strings on. */
int bin_pretty_string(OutBuf *b, Term t, long d)
{
    size_t size;
    const unsigned char *s = bin_bytes(t, &size);
    int bits = bin_bit_size(t) % 8 != 0;
    if (size == 0 && !bits) { ob_puts(b, "<<>>"); return 1; }
    if (d == 1) { ob_puts(b, "<<...>>"); return 1; }
    if (bits) return 0;                         /* bitstrings: never text */
    long d1 = d - 1;
    size_t len = d1 >= 0 ? ((size_t)(4 * d1) < size ? (size_t)(4 * d1) : size) : size;
    if (len == 0) return 0;
    size_t nn = len < 20 ? len : 20;
    size_t full = 0, prefix = 0;                /* printable_bin's answer */
    size_t bad = first_unprintable(s, 0, nn);
    if (bad == nn) {
        if (nn == size) full = 1;
        else if (nn == len) prefix = nn;
        else {
            size_t bad2 = first_unprintable(s, nn, len);
            size_t nc = len - bad2;
            if (nc == 0 && size == len) full = 1;
            else if (d1 > 0 && len - nc >= (size_t)d1) prefix = len - nc;
            else return 0;
        }
    } else {
        size_t nc = nn - bad;
        if (d1 > 0 && nn - nc >= (size_t)d1) prefix = nn - nc;
        else return 0;
    }
    ob_puts(b, "<<");
    put_string_bytes(b, s, full ? size : prefix);
    ob_puts(b, full ? ">>" : "...>>");
    return 1;
}

/* A character io_lib_pretty prints inside a string in unicode mode, with
 * io:printable_range() at its default (latin1). */
/* io_lib_pretty:printable_bin in unicode mode (~tp) for a whole-byte
 * binary: see binary.h. */
int bin_pretty_utf8(OutBuf *b, Term t, long d)
{
    size_t size;
    const unsigned char *s = bin_bytes(t, &size);
    if (bin_bit_size(t) % 8 != 0 || size == 0 || d == 1) return -1;
    long d1 = d - 1;
    size_t len = d1 >= 0 ? ((size_t)(4 * d1) < size ? (size_t)(4 * d1) : size) : size;
    if (len == 0) return -1;
    /* valid_utf8: the first len characters (or all there are) decode */
    size_t pos = 0;
    for (size_t k = 0; k < len && pos < size; k++) {
        int n;
        if (utf8_decode(s, 8 * pos, 8 * (size - pos), &n) < 0) return -1;
        pos += (size_t)n;
    }
    /* printable_unicode: up to len printable characters */
    size_t left = len, nchars = 0;
    pos = 0;
    while (left > 0 && pos < size) {
        int n;
        long c = utf8_decode(s, 8 * pos, 8 * (size - pos), &n);
        if (c < 0 || !print_printable_latin1(c)) break;
        pos += (size_t)n; nchars++; left--;
    }
    int whole = pos == size;
    if (!whole && !(d1 > 0 && len - left >= (size_t)d1)) return 0;
    ob_puts(b, "<<\"");
    for (size_t i = 0; i < pos;) {
        int n;
        long c = utf8_decode(s, 8 * i, 8 * (size - i), &n);
        i += (size_t)n;
        print_quoted_char(b, (UWord)c, '"');   /* printable: below 256 */
    }
    ob_putc(b, '"');
    if (pos != nchars) ob_puts(b, "/utf8");      /* some character took more than a byte */
    ob_puts(b, whole ? ">>" : "...>>");
    return 1;
}

void bin_pretty_layout(OutBuf *b, const char *text, size_t n, long col, long ll, long m,
                       long ind, long ld, long w)
{
    /* pp({{bin,S},...}) -> pp_binary(S, Col + 2, Ll, M, indent(2, Ind), LD, W) */
    col += 2;
    ind += 2;
    long lim = ll - col < m - 4 - w ? ll - col : m - 4 - w;
    long n0 = lim - ld > 8 ? lim - ld : 8, left = n0;
    if (n < 4) { ob_write(b, text, n); return; }
    const char *s = text + 2, *end = text + n - 2;  /* inside << >> */
    ob_puts(b, "<<");
    while (s < end) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        if (comma) {
            long len = (long)(comma - s) + 1;
            if (left - len < 0) {
                ob_putc(b, '\n'); ob_pad(b, ' ', (size_t)ind);
                left = n0 - len;
            } else {
                left -= len;
            }
            ob_write(b, s, (size_t)len);
            s = comma + 1;
        } else {
            if ((long)(end - s) > left) { ob_putc(b, '\n'); ob_pad(b, ' ', (size_t)ind); }
            ob_write(b, s, (size_t)(end - s));
            s = end;
        }
    }
    ob_puts(b, ">>");
}

int binary_chars(OutBuf *b, Term t, int unicode)
{
    size_t n;
    const unsigned char *s = bin_bytes(t, &n);
    if (!unicode) {
        for (size_t i = 0; i < n; i++) print_char(b, s[i]);
        return 0;
    }
    for (size_t pos = 0; pos < n;) {
        int len;
        long c = utf8_decode(s, 8 * pos, 8 * (n - pos), &len);
        if (c < 0) return -1;
        print_char(b, (UWord)c);
        pos += (size_t)len;
    }
    return 0;
}

int binary_codes(Term t, Term **codes, size_t *n)
{
    size_t len;
    const unsigned char *s = bin_bytes(t, &len);
    Term *c = malloc((len ? len : 1) * sizeof *c);
    if (!c) return -1;
    size_t k = 0;
    for (size_t pos = 0; pos < len;) {
        int l;
        long v = utf8_decode(s, 8 * pos, 8 * (len - pos), &l);
        if (v < 0) { free(c); return -1; }
        c[k++] = (Term)v;
        pos += (size_t)l;
    }
    *codes = c;
    *n = k;
    return 0;
}

/* Bits appended to an OutBuf: r bits of its last byte are used (0: all). */
typedef struct BitAcc { OutBuf *b; unsigned r; } BitAcc;

/* Appends the high k (1..8) bits of byte hb. */
static void acc_bits(BitAcc *a, unsigned hb, unsigned k)
{
    if (a->r == 0) {
        ob_putc(a->b, (int)(hb & 0xFF));
    } else {
        a->b->buf[a->b->len - 1] |= (char)((hb & 0xFF) >> a->r);
        if (a->r + k > 8) ob_putc(a->b, (int)((hb << (8 - a->r)) & 0xFF));
    }
    a->r = (a->r + k) % 8;
}

static void acc_bitstring(BitAcc *a, Term t)
{
    size_t n, r = bin_bit_size(t) % 8;
    const unsigned char *s = bin_bytes(t, &n);
    if (a->r == 0) ob_write(a->b, (const char *)s, n);
    else for (size_t i = 0; i < n; i++) acc_bits(a, s[i], 8);
    if (r) acc_bits(a, s[n] & (0xFF << (8 - r)), (unsigned)r);
}

/* The iolist walk (iolist.h): bytes and binaries (any bitstrings if
 * `bits`). 0, or -1 if t is not such a list. */
static int leaf_binary(Term t) { return is_binary(t); }
static int leaf_bitstring(Term t) { return is_bitstring(t); }
static int acc_byte(void *a, SWord c)
{
    if (c < 0 || c > 255) return -1;
    acc_bits(a, (unsigned)c, 8);
    return 0;
}
static int acc_leaf(void *a, Term b) { acc_bitstring(a, b); return 0; }

static int iolist_walk(BitAcc *a, Term t, int bits)
{
    IolistVisitor v = { bits ? leaf_bitstring : leaf_binary, acc_byte, acc_leaf, a };
    return iolist_visit(t, &v);
}

int bin_iolist_bytes(OutBuf *b, Term t)
{
    BitAcc a = { b, 0 };
    return iolist_walk(&a, t, 0);
}

Term bin_from_bitstring_list(Process *p, Term t)
{
    if (!is_list(t) && !is_nil(t)) return badarg(p);
    OutBuf b;
    ob_init(&b);
    BitAcc a = { &b, 0 };
    if (iolist_walk(&a, t, 1) < 0) { ob_free(&b); return badarg(p); }
    size_t bits = 8 * b.len - (a.r ? 8 - a.r : 0);
    unsigned char *d;
    Term r = bits_new(p, bits, &d);
    if (r != THE_NON_VALUE && b.len) memcpy(d, b.buf, b.len);
    ob_free(&b);
    if (r == THE_NON_VALUE) return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
    p->reds -= (SWord)(bits / 512);
    return r;
}
