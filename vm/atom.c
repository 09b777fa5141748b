/* atom.c — the global atom table: text <-> index, shared by all threads.
 *
 * An atom is an index (term.h: make_atom). The table has two views of the
 * same entries:
 *   - by text: open hashing (a bucket array of chains), doubled when the
 *     number of atoms passes the number of buckets;
 *   - by index: a fixed array of chunk pointers, each chunk holding
 *     ATOM_CHUNK entries. Chunks never move, so atom_name() needs no lock:
 *     an atom term a thread holds was made before it got it, and the count is
 *     published with release/acquire ordering after the entry is in place.
 * Interning and lookup take one pthread mutex (a plain one until the SMP work
 * introduces smp.h). list_to_atom and the loader intern; the emulator and the
 * printer only read names, so the lock is not on a hot path.
 *
 * Entries (and the names inside them) are Boehm memory and never freed, as in
 * Erlang. The bucket array and the chunks are Boehm memory reachable from the
 * static variables below, which Boehm scans, so entries stay alive. Any thread
 * that interns must be registered with Boehm (DESIGN.md).
 *
 * The atoms of atoms.def are interned first, in order, so ATOM_TERM(id) is
 * make_atom(ATOM_INDEX_id).
 */
#include <gc/gc.h>       /* Boehm's (vm/gc.h is the process collector) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atom.h"
#include "boehm_oom.h"
#include "fatal.h"

/* The limit on the number of atoms (+t, Erlang's default 1,048,576):
 * atoms are never collected, so a program making atoms from input must hit
 * a wall. MAX_ATOMS bounds what +t may ask for (the chunk index is static). */
#define MAX_ATOMS (1u << 26)
#define DEFAULT_ATOM_LIMIT (1u << 20)
static size_t atom_limit_n = DEFAULT_ATOM_LIMIT;
#define ATOM_CHUNK_BITS 10
#define ATOM_CHUNK (1u << ATOM_CHUNK_BITS)
#define INITIAL_BUCKETS 1024

typedef struct AtomEntry {
    struct AtomEntry *next;        /* bucket chain */
    uint32_t hash;
    uint32_t len;
    UWord index;
    char name[];                   /* len bytes and a NUL */
} AtomEntry;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static AtomEntry **buckets;        /* guarded by table_lock */
static size_t nbuckets;
static AtomEntry **chunks[MAX_ATOMS / ATOM_CHUNK];
static _Atomic size_t count;       /* written under table_lock */

static uint32_t hash_text(const char *s, size_t len)
{
    uint32_t h = 2166136261u;      /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void *gc_alloc_or_die(size_t bytes)
{
    jmp_buf *j = boehm_oom_hold();      /* called with table_lock held */
    void *m = GC_MALLOC(bytes);
    boehm_oom_release(j);
    if (!m) FATAL("out of memory in the atom table (%zu bytes)", bytes);
    return m;
}

static AtomEntry *find(const char *name, size_t len, uint32_t h)
{
    for (AtomEntry *e = buckets[h & (nbuckets - 1)]; e; e = e->next)
        if (e->hash == h && e->len == len && memcmp(e->name, name, len) == 0)
            return e;
    return NULL;
}

static void grow_buckets(void)
{
    size_t n = nbuckets * 2;
    AtomEntry **nb = gc_alloc_or_die(n * sizeof *nb);
    for (size_t i = 0; i < nbuckets; i++) {
        AtomEntry *e = buckets[i];
        while (e) {
            AtomEntry *next = e->next;
            e->next = nb[e->hash & (n - 1)];
            nb[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    buckets = nb;
    nbuckets = n;
}

/* Called with table_lock held; THE_NON_VALUE when the table is full. */
static Term insert(const char *name, size_t len, uint32_t h)
{
    size_t index = atomic_load_explicit(&count, memory_order_relaxed);
    if (index >= atom_limit_n)
        return THE_NON_VALUE;
    AtomEntry **chunk = chunks[index >> ATOM_CHUNK_BITS];
    if (!chunk)
        chunk = chunks[index >> ATOM_CHUNK_BITS] = gc_alloc_or_die(ATOM_CHUNK * sizeof *chunk);
    AtomEntry *e = gc_alloc_or_die(sizeof *e + len + 1);
    e->hash = h;
    e->len = (uint32_t)len;
    e->index = index;
    memcpy(e->name, name, len);
    e->name[len] = '\0';
    e->next = buckets[h & (nbuckets - 1)];
    buckets[h & (nbuckets - 1)] = e;
    chunk[index & (ATOM_CHUNK - 1)] = e;
    atomic_store_explicit(&count, index + 1, memory_order_release);
    if (index + 1 > nbuckets)
        grow_buckets();
    return make_atom(index);
}

static void init_table(void)
{
    GC_INIT();
    nbuckets = INITIAL_BUCKETS;
    buckets = gc_alloc_or_die(nbuckets * sizeof *buckets);
    static const char *const preloaded[] = {
#define ATOM(id, text) text,
#include "atoms.def"
#undef ATOM
    };
    for (size_t i = 0; i < sizeof preloaded / sizeof preloaded[0]; i++) {
        size_t len = strlen(preloaded[i]);
        uint32_t h = hash_text(preloaded[i], len);
        if (find(preloaded[i], len, h)) {
            FATAL("atoms.def lists \"%s\" twice", preloaded[i]);
        }
        insert(preloaded[i], len, h);
    }
}

void atom_init(void)
{
    pthread_once(&init_once, init_table);
}

/* The characters in an atom's text (UTF-8): its bytes but continuation bytes. */
static size_t text_chars(const char *name, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += ((unsigned char)name[i] & 0xC0) != 0x80;
    return n;
}

Term atom_intern(const char *name, size_t len)
{
    if (text_chars(name, len) > MAX_ATOM_LENGTH)
        return THE_NON_VALUE;
    atom_init();
    uint32_t h = hash_text(name, len);
    boehm_mutex_lock(&table_lock);
    AtomEntry *e = find(name, len, h);
    Term t = e ? make_atom(e->index) : insert(name, len, h);
    pthread_mutex_unlock(&table_lock);
    return t;
}

Term atom_intern_cstr(const char *name)
{
    return atom_intern(name, strlen(name));
}

Term atom_lookup(const char *name, size_t len)
{
    if (text_chars(name, len) > MAX_ATOM_LENGTH)
        return THE_NON_VALUE;
    atom_init();
    uint32_t h = hash_text(name, len);
    boehm_mutex_lock(&table_lock);
    AtomEntry *e = find(name, len, h);
    Term t = e ? make_atom(e->index) : THE_NON_VALUE;
    pthread_mutex_unlock(&table_lock);
    return t;
}

const char *atom_name(Term atom, size_t *len)
{
    size_t i = atom_val(atom);
    if (!is_atom(atom) || i >= atomic_load_explicit(&count, memory_order_acquire)) {
        if (len)
            *len = 0;
        return NULL;
    }
    AtomEntry *e = chunks[i >> ATOM_CHUNK_BITS][i & (ATOM_CHUNK - 1)];
    if (len)
        *len = e->len;
    return e->name;
}

void atom_set_limit(size_t n)
{
    atom_limit_n = n < 8192 ? 8192 : n > MAX_ATOMS ? MAX_ATOMS : n;
}

UWord atom_limit(void)
{
    return atom_limit_n;
}

UWord atom_count(void)
{
    atom_init();
    return atomic_load_explicit(&count, memory_order_acquire);
}

UWord atom_text_char(const unsigned char *s, size_t n, size_t *i)
{
    size_t at = *i;
    unsigned c = s[at];
    UWord code = c;
    size_t len = 1;
    if (c >= 0xC2 && c < 0xF5 && at + 1 < n && (s[at + 1] & 0xC0) == 0x80) {
        size_t k = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        int ok = at + k <= n;
        UWord v = c & (k == 2 ? 0x1F : k == 3 ? 0x0F : 0x07);
        for (size_t j = 1; ok && j < k; j++) {
            if ((s[at + j] & 0xC0) != 0x80) ok = 0;
            else v = (v << 6) | (s[at + j] & 0x3F);
        }
        static const UWord min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (ok && v >= min_of[k]) { code = v; len = k; }
    }
    *i = at + len;
    return code;
}
