/* jenkins.h — Bob Jenkins' lookup2 mixing, the primitive under Erlang/OTP's
 * term hashes (erts utils.c): MIX, the constants HCONST_n (n times the
 * golden ratio, mod 2^32) that give each kind of term its own mixing, and
 * the block hash of a byte string. Header-only so that every hash that has
 * to agree bit for bit with OTP uses the same arithmetic (map_hamt.c's
 * internal hash of map keys). */
#ifndef MINI_JENKINS_H
#define MINI_JENKINS_H

#include <stddef.h>
#include <stdint.h>

#define JENKINS_MIX(a, b, c)            \
    do {                                \
        a -= b; a -= c; a ^= (c >> 13); \
        b -= c; b -= a; b ^= (a << 8);  \
        c -= a; c -= b; c ^= (b >> 13); \
        a -= b; a -= c; a ^= (c >> 12); \
        b -= c; b -= a; b ^= (a << 16); \
        c -= a; c -= b; c ^= (b >> 5);  \
        a -= b; a -= c; a ^= (c >> 3);  \
        b -= c; b -= a; b ^= (a << 10); \
        c -= a; c -= b; c ^= (b >> 15); \
    } while (0)

#define JENKINS_HCONST(n) ((uint32_t)(0x9e3779b9u * (uint32_t)(n)))

/* Mixes the pair (x, y), each offset by k, into the running hash h. */
static inline uint32_t jenkins_mix2(uint32_t h, uint32_t x, uint32_t y, uint32_t k)
{
    uint32_t a = k + x, b = k + y;
    JENKINS_MIX(a, b, h);
    return h;
}

/* lookup2's hash of s[0..length), seeded with initval. */
static inline uint32_t jenkins_block_hash(const unsigned char *s, size_t length, uint32_t initval)
{
    uint32_t a = JENKINS_HCONST(1), b = JENKINS_HCONST(1), c = initval;
    size_t len = length;
    for (; len >= 12; s += 12, len -= 12) {
        a += s[0] + ((uint32_t)s[1] << 8) + ((uint32_t)s[2] << 16) + ((uint32_t)s[3] << 24);
        b += s[4] + ((uint32_t)s[5] << 8) + ((uint32_t)s[6] << 16) + ((uint32_t)s[7] << 24);
        c += s[8] + ((uint32_t)s[9] << 8) + ((uint32_t)s[10] << 16) + ((uint32_t)s[11] << 24);
        JENKINS_MIX(a, b, c);
    }
    c += (uint32_t)length;
    /* the last 0..11 bytes; the low byte of c holds the length */
    for (size_t i = len; i-- > 0;) {
        uint32_t v = s[i];
        if (i >= 8) c += v << (8 * (i - 7));
        else if (i >= 4) b += v << (8 * (i - 4));
        else a += v << (8 * i);
    }
    JENKINS_MIX(a, b, c);
    return c;
}

#endif
