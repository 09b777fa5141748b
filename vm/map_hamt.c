/* map_hamt.c — the order in which Erlang/OTP 25 walks a map of more than
 * 32 keys, and the internal hash of a term that decides it.
 *
 * OTP stores such a map as a hash array mapped trie: level L of the trie
 * indexes its 16 slots with nibble L of the key's 32-bit internal hash (low
 * nibble first); from level 8 on the nibbles come from a salted hash
 * (map_hash_at). A walk visits the slots of every node in ascending order,
 * depth first, so it meets the keys in the lexicographic order of their
 * nibble strings: the order of the hash with its nibbles reversed, ties
 * broken by the next depth's hash. Inner nodes are hashed alike whether
 * all 16 slots are used or not (hash_trie). OTP's iterator
 * (maps:fold, maps:iterator/next, io_lib's printing) goes that way;
 * maps:to_list, keys, values and term_to_binary build their result by
 * pushing onto a list and so give the reverse (erl_map.c hashmap_to_list,
 * external.c). Mini's maps stay flat and sorted (map.h); this file only
 * sorts key positions into those orders when something walks a big map.
 *
 * map_internal_hash is OTP 25's make_internal_hash (erts utils.c): Jenkins
 * mixing (jenkins.h) over the machine words of BEAM's term layout. An
 * immediate is hashed as its BEAM word, which Mini rebuilds exactly for
 * small integers and []; floats, bignums, bitstrings, lists (with bytes
 * packed four to a word), tuples and maps of up to 32 keys are hashed as
 * OTP does from their content. What OTP hashes from its own runtime state
 * cannot be reproduced: an atom's word holds its index in the VM's atom
 * table (so OTP's order of atom keys depends on which atoms that VM created
 * first), pids, ports, references and funs hold numbers or addresses of
 * that VM. For those Mini substitutes its own stable numbers (for atoms a
 * hash of the text) in the same formulas, so the order is deterministic
 * but not OTP's. A map of more than 32 keys as a key is hashed through the
 * trie OTP would build for it (hash_trie below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "fatal.h"
#include "atom.h"
#include "binary.h"
#include "compare.h"
#include "jenkins.h"
#include "module.h"
#include "proc.h"
#include "wordstack.h"

#define HC(n) JENKINS_HCONST(n)

/* ---- the work stack of the hash (a WordStack) ---- */

/* Markers are header words (tag 00), which no term can be. */
#define MARK_CDR  make_header(1, 15)   /* the end of a list with a non-list tail */
#define MARK_NODE make_header(2, 15)   /* a trie node: four more words below */

static void *xrealloc(void *p, size_t n)
{
    void *r = realloc(p, n);
    if (!r) FATAL("out of memory for %zu bytes of a hash map build", n);
    return r;
}

/* ---- BEAM's words for immediates ---- */

/* What Mini uses for an atom's index in OTP's atom table (see the top): FNV-1a
 * of its text, so that the order does not depend on Mini's table either. */
static uint64_t atom_number(Term a)
{
    size_t len;
    const unsigned char *s = (const unsigned char *)atom_name(a, &len);
    uint32_t h = 2166136261u;
    while (len--) h = (h ^ *s++) * 16777619u;
    return h;
}

/* The word BEAM (64-bit) would hold for the immediate t: a small integer
 * is value << 4 | 0xF, [] is 0x3B, an atom index << 6 | 0xB,
 * a pid number << 4 | 0x3, a port number << 4 | 0x7. */
static uint64_t beam_word(Term t)
{
    if (is_small(t)) return ((uint64_t)small_val(t) << 4) | 0xF;
    if (is_atom(t)) return (atom_number(t) << 6) | 0xB;
    if (is_pid(t)) return ((uint64_t)pid_val(t) << 4) | 0x3;
    if (is_port(t)) return ((uint64_t)port_val(t) << 4) | 0x7;
    return 0x3B;                                         /* [] */
}

static uint32_t hash_immed(uint32_t h, Term t)
{
    uint64_t w = beam_word(t);
    return jenkins_mix2(h, (uint32_t)w, (uint32_t)(w >> 32), HC(1));
}

/* CONST_HASH: cheap mixing of a constant that marks structure. */
static uint32_t hash_const(uint32_t h, uint32_t k)
{
    h ^= k;
    return (h << 17) ^ (h >> 15);
}

static int is_byte(Term t) { return is_small(t) && (UWord)small_val(t) <= 255; }

/* ---- the trie OTP would build for a map ---- */

/* A big map's keys in the walk's order (ascending paths), with their
 * level-0 hashes: what both the walk and hash_trie need. */
typedef struct {
    Term key;
    uint32_t hash;                 /* salt 0 */
    uint32_t pos;                  /* index in the map */
} Leaf;

/* The sorted leaves of every big map that one walk meets, by the map's
 * address. Hashing a big map needs its keys sorted by their own hashes,
 * and a key may hold big maps in turn. A miss sorts the map's keys at
 * once, hashing them (which may miss again, one C frame deeper) up to
 * LEAVES_MAX_NEST levels; past that, one iterative walk
 * (collect_big_maps) finds the big maps inside and sorts them innermost
 * first, so that hashing them meets no miss: a chain of big maps nested
 * as keys a million deep costs no C stack, and the common case (no big
 * map in the keys) no extra walk. */
#define LEAVES_MAX_NEST 32
static __thread unsigned leaves_nest;

struct MapOrderCache {
    Term *maps;
    Leaf **leaves;
    size_t n, cap;                 /* cap: a power of two, or 0 */
};
typedef MapOrderCache LeafCache;

static size_t cache_slot(const LeafCache *c, Term m)
{
    size_t i = (size_t)((m >> 3) * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
    while (c->maps[i] && c->maps[i] != m) i = (i + 1) & (c->cap - 1);
    return i;
}

static Leaf *cache_get(const LeafCache *c, Term m)
{
    if (!c->cap) return NULL;
    size_t i = cache_slot(c, m);
    return c->maps[i] ? c->leaves[i] : NULL;
}

static Leaf *trie_leaves(Term m, LeafCache *cache);
static void collect_big_maps(const Term *roots, size_t nroots, LeafCache *cache);
static void cache_put(LeafCache *c, Term m, Leaf *l);

/* The leaves of big map m, sorted now if need be (see above). */
static const Leaf *leaves_of(Term m, LeafCache *cache)
{
    Leaf *l = cache_get(cache, m);
    if (l) return l;
    if (leaves_nest < LEAVES_MAX_NEST) {
        leaves_nest++;
        l = trie_leaves(m, cache);
        leaves_nest--;
        cache_put(cache, m, l);
        return l;
    }
    collect_big_maps(&m, 1, cache);
    return cache_get(cache, m);
}

static void cache_put(LeafCache *c, Term m, Leaf *l)
{
    if (2 * (c->n + 1) > c->cap) {
        LeafCache g = { NULL, NULL, 0, c->cap ? 2 * c->cap : 16 };
        g.maps = calloc(g.cap, sizeof *g.maps);
        g.leaves = calloc(g.cap, sizeof *g.leaves);
        if (!g.maps || !g.leaves) FATAL("out of memory hashing a term with %zu big maps", c->n);
        for (size_t i = 0; i < c->cap; i++)
            if (c->maps[i]) {
                size_t j = cache_slot(&g, c->maps[i]);
                g.maps[j] = c->maps[i];
                g.leaves[j] = c->leaves[i];
            }
        g.n = c->n;
        free(c->maps);
        free(c->leaves);
        *c = g;
    }
    size_t i = cache_slot(c, m);
    c->maps[i] = m;
    c->leaves[i] = l;
    c->n++;
}

static void cache_free(LeafCache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        if (c->maps[i]) free(c->leaves[i]);
    free(c->maps);
    free(c->leaves);
}

static uint32_t internal_hash(Term term, uint32_t salt, LeafCache *cache);

/* The hash that gives the slots of levels 8 * depth to 8 * depth + 7
 * (erts make_map_hash): deeper than level 7 OTP salts the internal hash
 * with what hashing the list cell [depth | Key] would mix in first, so keys
 * whose 32 bits agree part there. */
static uint32_t map_hash_at(Term key, unsigned depth, LeafCache *cache)
{
    return internal_hash(key, depth ? jenkins_mix2(0, depth, 1, HC(22)) : 0, cache);
}

static uint32_t nibbles_reversed(uint32_t h)
{
    h = ((h & 0x0F0F0F0Fu) << 4) | ((h >> 4) & 0x0F0F0F0Fu);
    return __builtin_bswap32(h);
}

/* Slot of a key at trie level `level` (its hash at salt 0 given). */
static unsigned slot_at(const Leaf *l, unsigned level, LeafCache *cache)
{
    uint32_t h = level < 8 ? l->hash : map_hash_at(l->key, level / 8, cache);
    return (h >> (4 * (level % 8))) & 15;
}

static __thread LeafCache *sort_cache;     /* leaf_cmp's, during trie_leaves' qsort */

static int leaf_cmp(const void *a, const void *b)
{
    const Leaf *x = a, *y = b;
    uint32_t px = nibbles_reversed(x->hash), py = nibbles_reversed(y->hash);
    /* all 32 bits equal: the next levels use the next depth's hash;
     * distinct keys never agree on all of them in practice, key order is
     * the last word */
    for (unsigned depth = 1; px == py && depth < 8; depth++) {
        px = nibbles_reversed(map_hash_at(x->key, depth, sort_cache));
        py = nibbles_reversed(map_hash_at(y->key, depth, sort_cache));
    }
    if (px != py) return px < py ? -1 : 1;
    return term_compare_exact(x->key, y->key);
}

/* Sorts l into leaf_cmp's order. Only keys whose 32-bit hashes are equal
 * need leaf_cmp itself: the rest sort by their reversed hashes, by
 * insertion for a few keys, else by a stable radix sort (8 bits a pass);
 * then each run of equal hashes is put in order by leaf_cmp. A walk of a
 * map of 40 keys spent most of its time in qsort's calls to leaf_cmp. */
static void sort_leaves(Leaf *l, size_t n)
{
    if (n <= 64) {
        for (size_t i = 1; i < n; i++) {
            Leaf x = l[i];
            uint32_t rx = nibbles_reversed(x.hash);
            size_t j = i;
            while (j > 0 && nibbles_reversed(l[j - 1].hash) > rx) { l[j] = l[j - 1]; j--; }
            l[j] = x;
        }
    } else {
        Leaf *tmp = xrealloc(NULL, n * sizeof *tmp), *src = l, *dst = tmp;
        for (unsigned shift = 0; shift < 32; shift += 8) {
            size_t count[257] = { 0 };
            for (size_t i = 0; i < n; i++) count[((nibbles_reversed(src[i].hash) >> shift) & 255) + 1]++;
            for (unsigned b = 0; b < 256; b++) count[b + 1] += count[b];
            for (size_t i = 0; i < n; i++) dst[count[(nibbles_reversed(src[i].hash) >> shift) & 255]++] = src[i];
            Leaf *t = src; src = dst; dst = t;
        }
        free(tmp);                 /* four passes: the result is back in l */
    }
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && l[b].hash == l[a].hash; b++) {}
        if (b - a > 1) qsort(l + a, b - a, sizeof *l, leaf_cmp);
    }
}

/* m's keys sorted into the walk's order (malloc'ed, map_size(m) of them). */
static Leaf *trie_leaves(Term m, LeafCache *cache)
{
    /* (the big maps inside its keys are sorted on the way: leaves_of) */
    UWord n = map_size(m);
    MapView v;
    map_view(m, &v);
    Leaf *l = xrealloc(NULL, n * sizeof *l);
    for (UWord i = 0; i < n; i++) {
        l[i].key = v.keys[i];
        l[i].hash = internal_hash(v.keys[i], 0, cache);
        l[i].pos = (uint32_t)i;
    }
    map_view_free(&v);
    LeafCache *outer = sort_cache;
    sort_cache = cache;
    sort_leaves(l, n);
    sort_cache = outer;
    return l;
}

/* Marks on collect_big_maps' stack (header words, which no term can be). */
#define MARK_DONE make_header(3, 15)   /* the big map below: its keys are done */

/* Puts the leaves of every big map inside the roots into the cache,
 * innermost first: a big map is pushed under a mark, above it its keys and
 * values, so it is sorted after every big map they hold. One already in
 * the cache is not entered again (shared subterms). */
static void collect_big_maps(const Term *roots, size_t nroots, LeafCache *cache)
{
    WordStack s;
    ws_init(&s);
    for (size_t i = nroots; i-- > 0;)
        if (!is_immed(roots[i])) ws_push(&s, roots[i]);
    while (s.n) {
        Term t = ws_pop(&s);
        if (t == MARK_DONE) {
            Term m = ws_pop(&s);
            if (!cache_get(cache, m)) {
                unsigned nest = leaves_nest;      /* everything inside is sorted: no miss */
                leaves_nest = LEAVES_MAX_NEST;
                cache_put(cache, m, trie_leaves(m, cache));
                leaves_nest = nest;
            }
            continue;
        }
        if (is_list(t)) {
            ws_push(&s, CDR(list_ptr(t)));
            ws_push(&s, CAR(list_ptr(t)));
            continue;
        }
        if (!is_boxed(t)) continue;
        Term *bp = boxed_ptr(t);
        switch (header_subtag(bp[0])) {
        case BOXED_TUPLE:
            for (UWord i = header_arity(bp[0]); i >= 1; i--) ws_push(&s, bp[i]);
            break;
        case BOXED_MAP: {
            UWord n = map_size(t);
            if (n > MAP_FLAT_LIMIT) {
                if (cache_get(cache, t)) break;
                ws_push(&s, t);
                ws_push(&s, MARK_DONE);
            }
            MapView v;
            map_view(t, &v);
            for (UWord i = 0; i < n; i++) { ws_push(&s, v.vals[i]); ws_push(&s, v.keys[i]); }
            map_view_free(&v);
            break;
        }
        case BOXED_FUN:
            for (UWord i = header_arity(bp[0]); i >= 2; i--) ws_push(&s, bp[i]);
            break;
        default:
            break;
        }
    }
    ws_free(&s);
}

uint32_t *map_walk_order_cached(Term m, MapWalk how, MapOrderCache **cache)
{
    UWord n = map_size(m);
    if (n <= MAP_FLAT_LIMIT) return NULL;
    if (!*cache) {
        *cache = calloc(1, sizeof **cache);
        if (!*cache) FATAL("out of memory for the walk order of a map of %lu keys", (unsigned long)n);
    }
    const Leaf *l = leaves_of(m, *cache);
    uint32_t *order = xrealloc(NULL, n * sizeof *order);
    for (UWord i = 0; i < n; i++) order[i] = l[how == MAP_WALK_LIST ? n - 1 - i : i].pos;
    return order;
}

void map_order_cache_free(MapOrderCache *cache)
{
    if (!cache) return;
    cache_free(cache);
    free(cache);
}

uint32_t *map_walk_order(Term m, MapWalk how)
{
    MapOrderCache *cache = NULL;
    uint32_t *order = map_walk_order_cached(m, how, &cache);
    map_order_cache_free(cache);
    return order;
}

/* Pushes the node of map holding leaves l[lo..hi) at `level`. */
static void push_node(WordStack *s, Term map, const Leaf *l, size_t lo, size_t hi, unsigned level)
{
    ws_push(s, map);
    ws_push(s, (UWord)(l + lo));
    ws_push(s, (UWord)(hi - lo));
    ws_push(s, (UWord)level);
    ws_push(s, MARK_NODE);
}

/* One node of OTP's trie for map, as make_internal_hash meets it: the n
 * leaves (in walk order) whose hashes agree below `level`, the root when
 * level is 0. A slot holding one key holds that leaf, a slot holding more
 * a node one level down. The root hashes its size first; then every node
 * pushes its slots in order, so they are hashed last slot first, a leaf's
 * key before its value. (Erlang/OTP 25 hashes an inner node with all 16
 * slots used the same way: checked against erl.) */
static uint32_t hash_trie(uint32_t h, WordStack *s, Term map, const Leaf *l, size_t n, unsigned level,
                          LeafCache *cache)
{
    if (level == 0) h = jenkins_mix2(h, (uint32_t)n, 0, HC(16));
    for (size_t a = 0, b; a < n; a = b) {
        unsigned slot = slot_at(&l[a], level, cache);
        for (b = a + 1; b < n && slot_at(&l[b], level, cache) == slot; b++) {}
        if (b - a > 1) {
            push_node(s, map, l, a, b, level + 1);
        } else {
            ws_push(s, map_val_at(map, l[a].pos));
            ws_push(s, l[a].key);
        }
    }
    return h;
}

/* ---- OTP's make_internal_hash ---- */

uint32_t map_internal_hash(Term term, uint32_t salt)
{
    if (is_immed(term)) return internal_hash(term, salt, NULL);
    LeafCache cache = { 0 };
    uint32_t h = internal_hash(term, salt, &cache);
    cache_free(&cache);
    return h;
}

/* make_internal_hash with the leaves of every big map inside term in the
 * cache. */
static uint32_t internal_hash(Term term, uint32_t salt, LeafCache *cache)
{
    /* OTP starts from the salt mixed with a fixed prime (INTERNAL_HASH_SALT)
     * so that this hash differs from phash2's */
    uint32_t h = salt ^ 3432918353u;
    if (is_immed(term)) return hash_immed(h, term);

    WordStack s;
    ws_init(&s);
    for (;;) {
        if (is_list(term)) {
            /* bytes four to a word, then a head that is not a byte */
            uint32_t sh = 0, c = 0;
            Term *cell = list_ptr(term);
            while (is_byte(CAR(cell))) {
                sh = (sh << 8) + (uint32_t)small_val(CAR(cell));
                if (c == 3) { h = jenkins_mix2(h, sh, 0, HC(4)); sh = c = 0; }
                else c++;
                term = CDR(cell);
                if (!is_list(term)) break;
                cell = list_ptr(term);
            }
            if (c > 0) h = jenkins_mix2(h, sh, c, HC(22));
            if (is_list(term)) {
                Term tail = CDR(cell);
                h = hash_const(h, HC(17));
                ws_push(&s, tail);
                if (!is_list(tail)) ws_push(&s, MARK_CDR);
                term = CAR(cell);
            }
            continue;                  /* the head, or the tail that ended the bytes */
        }
        if (is_immed(term)) {
            h = hash_immed(h, term);
            goto pop;
        }
        Term *bp = boxed_ptr(term);
        switch (header_subtag(bp[0])) {
        case BOXED_TUPLE: {
            UWord arity = header_arity(bp[0]);
            h = jenkins_mix2(h, (uint32_t)arity, 0, HC(9));
            if (arity == 0) goto pop;
            for (UWord i = arity; i > 1; i--) ws_push(&s, bp[i]);
            term = bp[1];
            continue;
        }
        case BOXED_MAP: {
            UWord n = map_size(term);
            if (n > MAP_FLAT_LIMIT) {
                const Leaf *l = leaves_of(term, cache);
                h = hash_trie(h, &s, term, l, n, 0, cache);
                goto pop;
            }
            /* a flat map: size, then each key and its value in key order */
            MapView v;
            map_view(term, &v);
            h = jenkins_mix2(h, (uint32_t)n, 0, HC(16));
            for (UWord i = n; i-- > 0;) { ws_push(&s, v.vals[i]); ws_push(&s, v.keys[i]); }
            map_view_free(&v);
            goto pop;
        }
        case BOXED_FLOAT: {
            double d = float_val(term);
            if (d == 0.0) d = 0.0;     /* -0.0 hashes as 0.0 */
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            h = jenkins_mix2(h, (uint32_t)bits, (uint32_t)(bits >> 32), HC(12));
            goto pop;
        }
        case BOXED_POS_BIG:
        case BOXED_NEG_BIG: {
            uint32_t con = big_is_neg(term) ? HC(10) : HC(11);
            const uint64_t *d = big_digits(term);
            for (UWord i = 0; i < big_size(term); i++)
                h = jenkins_mix2(h, (uint32_t)d[i], (uint32_t)(d[i] >> 32), con);
            goto pop;
        }
        case BOXED_HEAP_BIN:
        case BOXED_REFC_BIN:
        case BOXED_SUB_BIN: {
            size_t len, bits = bin_bit_size(term) % 8;
            const unsigned char *bytes = bin_bytes(term, &len);
            uint32_t con = HC(13) + h;
            h = len == 0 && !bits ? con : jenkins_block_hash(bytes, len, con);
            if (bits)                  /* a bitstring's final bits */
                h = jenkins_mix2(h, (uint32_t)bits, (uint32_t)bytes[len] >> (8 - bits), HC(15));
            goto pop;
        }
        case BOXED_REF: {
            uint64_t r = ref_number(term);
            h = jenkins_mix2(h, (uint32_t)r, 0, HC(7));
            h = jenkins_mix2(h, (uint32_t)(r >> 32), 0, HC(8));
            goto pop;
        }
        case BOXED_EXTERNAL:           /* another node's pid/port/ref: its words */
            for (UWord i = 1; i <= header_arity(bp[0]); i++)
                h = jenkins_mix2(h, (uint32_t)bp[i], (uint32_t)((uint64_t)bp[i] >> 32), HC(22));
            goto pop;
        case BOXED_EXPORT: {           /* OTP hashes the Export's address */
            UWord a = bp[1];
            h = jenkins_mix2(h, (uint32_t)a, (uint32_t)((uint64_t)a >> 32), HC(14));
            goto pop;
        }
        case BOXED_FUN: {
            const FunEntry *fe = (const FunEntry *)bp[1];
            UWord nfree = header_arity(bp[0]) - 1;
            h = jenkins_mix2(h, (uint32_t)nfree, (uint32_t)beam_word(fe->module), HC(20));
            h = jenkins_mix2(h, (uint32_t)fe->index, (uint32_t)fe->uniq, HC(21));
            if (nfree == 0) goto pop;
            for (UWord i = nfree; i > 1; i--) ws_push(&s, bp[1 + i]);
            term = bp[2];
            continue;
        }
        default:
            goto pop;
        }
    pop:
        if (s.n == 0) break;
        term = ws_pop(&s);
        if (term == MARK_CDR) {
            h = hash_const(h, HC(18));
            goto pop;
        }
        if (term == MARK_NODE) {
            unsigned level = (unsigned)ws_pop(&s);
            size_t n = ws_pop(&s);
            const Leaf *l = (const Leaf *)ws_pop(&s);
            Term map = ws_pop(&s);
            h = hash_trie(h, &s, map, l, n, level, cache);
            goto pop;
        }
    }
    ws_free(&s);
    return h;
}
