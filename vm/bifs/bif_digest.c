/* bif_digest.c — checksums and digests of iodata: erlang:md5/1 (and the
 * incremental md5_init/0, md5_update/2, md5_final/1), crc32/1,2,
 * crc32_combine/3, adler32/1,2, adler32_combine/3. The algorithms are the
 * standard ones (RFC 1321, the zlib CRC-32 and Adler-32), so the values are
 * OTP's. An md5 context is a binary holding this file's MD5 state: opaque,
 * as OTP's is, but not interchangeable with OTP's bytes. */
#include <stdint.h>
#include <pthread.h>
#include <string.h>

#include "bif.h"
#include "binary.h"
#include "outbuf.h"
#include "arith.h"

/* A BIF that works on n bytes costs reductions for it. */
static void spend(Process *p, SWord work) { p->reds -= work; }

/* The bytes of iodata in b; 0 (badarg) if not iodata. */
static int iodata_bytes(Term t, OutBuf *b) {
    ob_init(b);
    if (bin_iolist_bytes(b, t) < 0) { ob_free(b); return 0; }
    return 1;
}

/* ---- MD5 (RFC 1321) ---- */

typedef struct Md5 { uint32_t s[4]; uint64_t len; unsigned char buf[64]; } Md5;

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const unsigned char md5_r[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void md5_block(uint32_t *s, const unsigned char *p) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f; int g;
        if (i < 16) { f = (b & c) | (~b & d); g = i; }
        else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) & 15; }
        else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) & 15; }
        else { f = c ^ (b | ~d); g = (7 * i) & 15; }
        uint32_t t = d;
        d = c; c = b;
        uint32_t x = a + f + md5_k[i] + w[g];
        b = b + (x << md5_r[i] | x >> (32 - md5_r[i]));
        a = t;
    }
    s[0] += a; s[1] += b; s[2] += c; s[3] += d;
}

static void md5_init(Md5 *m) {
    m->s[0] = 0x67452301; m->s[1] = 0xefcdab89; m->s[2] = 0x98badcfe; m->s[3] = 0x10325476;
    m->len = 0;
}

static void md5_update(Md5 *m, const unsigned char *p, size_t n) {
    size_t have = (size_t)(m->len & 63);
    m->len += n;
    if (have) {
        size_t k = 64 - have < n ? 64 - have : n;
        if (k) memcpy(m->buf + have, p, k);
        p += k; n -= k; have += k;
        if (have < 64) return;
        md5_block(m->s, m->buf);
    }
    for (; n >= 64; p += 64, n -= 64) md5_block(m->s, p);
    if (n) memcpy(m->buf, p, n);
}

static void md5_final(Md5 *m, unsigned char out[16]) {
    uint64_t bits = m->len * 8;
    unsigned char pad[72] = { 0x80 };
    size_t have = (size_t)(m->len & 63);
    size_t padn = have < 56 ? 56 - have : 120 - have;
    for (int i = 0; i < 8; i++) pad[padn + (size_t)i] = (unsigned char)(bits >> (8 * i));
    md5_update(m, pad, padn + 8);
    for (int i = 0; i < 16; i++) out[i] = (unsigned char)(m->s[i / 4] >> (8 * (i % 4)));
}

void digest_md5(const void *bytes, size_t n, unsigned char out[16]) {
    Md5 m;
    md5_init(&m);
    md5_update(&m, bytes, n);
    md5_final(&m, out);
}

Term bif_md5_1(Process *p, Term *args) {
    OutBuf b;
    if (!iodata_bytes(args[0], &b)) BIF_ERROR(p, AM_badarg);
    Md5 m;
    md5_init(&m);
    md5_update(&m, (const unsigned char *)b.buf, b.len);
    unsigned char d[16];
    md5_final(&m, d);
    spend(p, (SWord)(b.len / 64));
    ob_free(&b);
    return bin_from_bytes(p, d, 16);
}

Term bif_md5_init_0(Process *p, Term *args) {
    (void)args;
    Md5 m;
    memset(&m, 0, sizeof m);
    md5_init(&m);
    return bin_from_bytes(p, &m, sizeof m);
}

static int md5_context(Term t, Md5 *m) {
    if (!is_binary(t) || bin_size(t) != sizeof *m) return 0;
    size_t n;
    memcpy(m, bin_bytes(t, &n), sizeof *m);
    return 1;
}

Term bif_md5_update_2(Process *p, Term *args) {
    Md5 m;
    OutBuf b;
    if (!md5_context(args[0], &m) || !iodata_bytes(args[1], &b)) BIF_ERROR(p, AM_badarg);
    md5_update(&m, (const unsigned char *)b.buf, b.len);
    spend(p, (SWord)(b.len / 64));
    ob_free(&b);
    return bin_from_bytes(p, &m, sizeof m);
}

Term bif_md5_final_1(Process *p, Term *args) {
    Md5 m;
    if (!md5_context(args[0], &m)) BIF_ERROR(p, AM_badarg);
    unsigned char d[16];
    md5_final(&m, d);
    return bin_from_bytes(p, d, 16);
}

/* ---- CRC-32 (the zlib/IEEE polynomial, reflected) ---- */

static uint32_t crc_table[256];
static void crc_table_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *s, size_t n) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc_table_init);
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ s[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static int u32_arg(Term t, uint32_t *v) {
    int64_t x;
    if (!term_to_int64(t, &x) || x < 0 || x > 0xFFFFFFFFLL) return 0;
    *v = (uint32_t)x;
    return 1;
}

static Term checksum(Process *p, Term data, uint32_t start, int adler);

Term bif_crc32_1(Process *p, Term *args) { return checksum(p, args[0], 0, 0); }
Term bif_crc32_2(Process *p, Term *args) {
    uint32_t c;
    if (!u32_arg(args[0], &c)) BIF_ERROR(p, AM_badarg);
    return checksum(p, args[1], c, 0);
}

/* ---- Adler-32 ---- */

static uint32_t adler32_update(uint32_t a, const unsigned char *s, size_t n) {
    uint32_t lo = a & 0xFFFF, hi = a >> 16;
    while (n > 0) {
        size_t k = n < 5552 ? n : 5552;           /* no overflow before the modulo */
        n -= k;
        while (k--) { lo += *s++; hi += lo; }
        lo %= 65521; hi %= 65521;
    }
    return hi << 16 | lo;
}

Term bif_adler32_1(Process *p, Term *args) { return checksum(p, args[0], 1, 1); }
Term bif_adler32_2(Process *p, Term *args) {
    uint32_t c;
    if (!u32_arg(args[0], &c)) BIF_ERROR(p, AM_badarg);
    return checksum(p, args[1], c, 1);
}

static Term checksum(Process *p, Term data, uint32_t start, int adler) {
    OutBuf b;
    if (!iodata_bytes(data, &b)) BIF_ERROR(p, AM_badarg);
    const unsigned char *s = (const unsigned char *)b.buf;
    uint32_t r = adler ? adler32_update(start, s, b.len) : crc32_update(start, s, b.len);
    spend(p, (SWord)(b.len / 256));
    ob_free(&b);
    return make_integer(p, (int64_t)r);
}

/* crc32_combine(CRC1, CRC2, Size2): the CRC of the concatenation, from
 * zlib's method: CRC1 advanced over Size2 zero bytes by squaring the
 * operator matrix, then xored with CRC2. */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec) {
    uint32_t sum = 0;
    for (int i = 0; vec; vec >>= 1, i++) if (vec & 1) sum ^= mat[i];
    return sum;
}
static void gf2_square(uint32_t *sq, const uint32_t *mat) {
    for (int n = 0; n < 32; n++) sq[n] = gf2_times(mat, mat[n]);
}

Term bif_crc32_combine_3(Process *p, Term *args) {
    uint32_t c1, c2;
    int64_t len;
    if (!u32_arg(args[0], &c1) || !u32_arg(args[1], &c2) || !term_to_int64(args[2], &len) || len < 0)
        BIF_ERROR(p, AM_badarg);
    if (len == 0) return make_integer(p, c1);
    uint32_t even[32], odd[32];
    odd[0] = 0xEDB88320u;
    uint32_t row = 1;
    for (int n = 1; n < 32; n++, row <<= 1) odd[n] = row;
    gf2_square(even, odd);
    gf2_square(odd, even);
    do {
        gf2_square(even, odd);
        if (len & 1) c1 = gf2_times(even, c1);
        len >>= 1;
        if (!len) break;
        gf2_square(odd, even);
        if (len & 1) c1 = gf2_times(odd, c1);
        len >>= 1;
    } while (len);
    return make_integer(p, (int64_t)(c1 ^ c2));
}

/* adler32_combine(A1, A2, Size2), zlib's formula */
Term bif_adler32_combine_3(Process *p, Term *args) {
    uint32_t a1, a2;
    int64_t len;
    if (!u32_arg(args[0], &a1) || !u32_arg(args[1], &a2) || !term_to_int64(args[2], &len) || len < 0)
        BIF_ERROR(p, AM_badarg);
    const uint32_t base = 65521;
    uint32_t rem = (uint32_t)(len % base);
    uint32_t sum1 = a1 & 0xFFFF;
    uint32_t sum2 = (uint32_t)(((uint64_t)rem * sum1) % base);
    sum1 += (a2 & 0xFFFF) + base - 1;
    sum2 += ((a1 >> 16) & 0xFFFF) + ((a2 >> 16) & 0xFFFF) + base - rem;
    if (sum1 >= base) sum1 -= base;
    if (sum1 >= base) sum1 -= base;
    if (sum2 >= ((uint32_t)base << 1)) sum2 -= ((uint32_t)base << 1);
    if (sum2 >= base) sum2 -= base;
    return make_integer(p, (int64_t)(sum1 | (sum2 << 16)));
}
