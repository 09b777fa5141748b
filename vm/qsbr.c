/* qsbr.c — quiescent-state-based reclamation (the contract is in qsbr.h).
 *
 * Why it is safe. A writer unlinks x, then (at its next quiescent point)
 * tags x with the epoch's old value t while stepping the epoch with a
 * release add: every later value of the epoch is in that add's release
 * sequence (all changes to it are adds), so a thread that loads any value
 * above t (acquire) sees the unlink, and can no longer reach x from the
 * structure. x is freed when every online thread has announced a value
 * above t: each loaded such a value at a quiescent point after any read it
 * made of x, and stored its announcement with release, so those reads
 * happen before the free (the reclaimer loads announcements with acquire).
 * A thread coming online first announces 0 (which holds back every free),
 * then loads the epoch, both sequentially consistent, as are the tagging
 * add and a scan's loads: either the scan (which comes after the tag) sees
 * the 0, or the thread's load sees the writer's add — the store-buffer
 * pattern, which a single total order of all four forbids both ways. (No
 * standalone fences: ThreadSanitizer does not model them.)
 *
 * Costs: a quiescent point loads the epoch (a line written only when some
 * thread tags a batch) and stores its own announcement when the epoch moved;
 * tagging is one atomic add per TAG_AT objects, or per scan that finds
 * some untagged (process records are retired at every exit: an add per
 * slice that retired anything cost a spawn-and-exit loop 3%); a scan (a full
 * sequentially consistent load per thread) runs when a thread holds SCAN_AT
 * more objects than its last scan left, or has held some for SCAN_EVERY
 * quiescent points. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "qsbr.h"
#include "sched.h"
#include "smp.h"

#define QSBR_MAX MAX_SCHEDULERS
#define OFFLINE UINT64_MAX
#define UNTAGGED UINT64_MAX
#define SCAN_AT 256
#define SCAN_EVERY 16
#define TAG_AT 32

typedef struct {
    void *p;
    void (*fn)(void *);
    uint64_t tag;
} Retired;

/* What other threads read of a thread: on a line of its own. */
typedef struct {
    _Alignas(CACHE_LINE) _Atomic uint64_t seen;   /* announced epoch, or OFFLINE */
} Announce;

/* A thread's own list of retired objects, oldest first (tags never
 * decrease along it; the untagged are at its end). */
typedef struct {
    _Alignas(CACHE_LINE) Retired *v;
    size_t n, cap, untagged;
    unsigned quiet;                 /* quiescent points since the last scan */
    size_t scan_at;                 /* scan when n reaches it: what the last
                                       scan left plus SCAN_AT, so that objects
                                       another thread still holds back are not
                                       scanned again at every quiescent point */
    uint64_t last_seen;
    _Atomic long count;             /* n, for qsbr_pending */
} Limbo;

static Announce announce[QSBR_MAX];
static Limbo limbo[QSBR_MAX];
static _Alignas(CACHE_LINE) _Atomic uint64_t epoch = 1;
static int nthreads;
static __thread int my_id = -1;
static __thread int my_online;      /* registered and not offline */

/* Retired by threads that are not registered, or left by a thread going
 * offline: freed by whichever registered thread scans next. */
static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static Limbo shared;
static _Atomic long shared_n;
static _Atomic long leaked;         /* could not be listed (out of memory) */

void qsbr_init(int n)
{
    nthreads = n < 1 ? 1 : n > QSBR_MAX ? QSBR_MAX : n;
    for (int i = 0; i < QSBR_MAX; i++) {
        atomic_store(&announce[i].seen, OFFLINE);
        limbo[i].scan_at = SCAN_AT;
    }
}

static int push(Limbo *l, void *p, void (*fn)(void *), uint64_t tag)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        Retired *v = realloc(l->v, cap * sizeof *v);
        if (!v) return 0;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (Retired){ p, fn, tag };
    atomic_store_explicit(&l->count, (long)l->n, memory_order_relaxed);
    return 1;
}

/* Frees l's objects tagged below min (a prefix of the list). */
static void free_before(Limbo *l, uint64_t min)
{
    size_t k = 0;
    while (k < l->n && l->v[k].tag < min) {
        l->v[k].fn(l->v[k].p);
        k++;
    }
    if (!k) return;
    for (size_t i = k; i < l->n; i++) l->v[i - k] = l->v[i];
    l->n -= k;
    atomic_store_explicit(&l->count, (long)l->n, memory_order_relaxed);
}

/* The least epoch any online thread may still be reading under. */
static uint64_t min_seen(void)
{
    uint64_t min = OFFLINE;
    for (int i = 0; i < nthreads; i++) {
        /* (sequentially consistent: against qsbr_online's, above) */
        uint64_t s = atomic_load_explicit(&announce[i].seen, memory_order_seq_cst);
        if (s < min) min = s;
    }
    return min;
}

static void scan(Limbo *l)
{
    uint64_t min = min_seen();
    free_before(l, min);
    l->quiet = 0;
    l->scan_at = l->n + SCAN_AT;
    if (atomic_load_explicit(&shared_n, memory_order_relaxed) && pthread_mutex_trylock(&shared_mu) == 0) {
        free_before(&shared, min);
        atomic_store_explicit(&shared_n, (long)shared.n, memory_order_relaxed);
        pthread_mutex_unlock(&shared_mu);
    }
}

/* Tags l's untagged objects: they were unlinked before this add. */
static void tag(Limbo *l)
{
    uint64_t t = atomic_fetch_add_explicit(&epoch, 1, memory_order_seq_cst);
    for (size_t i = l->n - l->untagged; i < l->n; i++) l->v[i].tag = t;
    l->untagged = 0;
}

void qsbr_quiescent(void)
{
    int id = my_id;
    if (id < 0) return;
    Limbo *l = &limbo[id];
    int due = l->n ? l->n >= l->scan_at || ++l->quiet >= SCAN_EVERY
                   : atomic_load_explicit(&shared_n, memory_order_relaxed) && ++l->quiet >= SCAN_EVERY;
    /* tagging late only frees later, never too soon */
    if (l->untagged >= TAG_AT || (l->untagged && due)) tag(l);
    uint64_t e = atomic_load_explicit(&epoch, memory_order_acquire);
    if (e != l->last_seen) {
        atomic_store_explicit(&announce[id].seen, e, memory_order_release);
        l->last_seen = e;
    }
    if (due) scan(l);
}

void qsbr_online(void)
{
    int id = my_id;
    if (id < 0) return;
    atomic_store_explicit(&announce[id].seen, 0, memory_order_seq_cst);
    uint64_t e = atomic_load_explicit(&epoch, memory_order_seq_cst);
    atomic_store_explicit(&announce[id].seen, e, memory_order_release);
    limbo[id].last_seen = e;
    my_online = 1;
}

int qsbr_protected(void) { return my_online; }

void qsbr_offline(void)
{
    int id = my_id;
    if (id < 0) return;
    Limbo *l = &limbo[id];
    if (l->untagged) tag(l);
    if (l->n) {
        /* a sleeper frees nothing: what it holds goes to the shared list */
        scan(l);
        pthread_mutex_lock(&shared_mu);
        size_t kept = 0;
        for (size_t i = 0; i < l->n; i++)
            if (!push(&shared, l->v[i].p, l->v[i].fn, l->v[i].tag)) l->v[kept++] = l->v[i];
        atomic_store_explicit(&shared_n, (long)shared.n, memory_order_relaxed);
        pthread_mutex_unlock(&shared_mu);
        l->n = kept;
        atomic_store_explicit(&l->count, (long)l->n, memory_order_relaxed);
    }
    my_online = 0;
    atomic_store_explicit(&announce[id].seen, OFFLINE, memory_order_release);
}

void qsbr_thread_start(int id)
{
    if (id < 0 || id >= nthreads) return;
    my_id = id;
    qsbr_online();
}

void qsbr_retire(void *p, void (*fn)(void *))
{
    int id = my_id;
    if (id >= 0) {
        Limbo *l = &limbo[id];
        if (push(l, p, fn, UNTAGGED)) l->untagged++;
        else atomic_fetch_add(&leaked, 1);   /* never freed: safer than too soon */
        return;
    }
    /* a thread with no quiescent points of its own tags at once: the unlink
     * came before this add */
    pthread_mutex_lock(&shared_mu);
    if (!push(&shared, p, fn, atomic_fetch_add_explicit(&epoch, 1, memory_order_seq_cst)))
        atomic_fetch_add(&leaked, 1);
    atomic_store_explicit(&shared_n, (long)shared.n, memory_order_relaxed);
    pthread_mutex_unlock(&shared_mu);
}

long qsbr_pending(void)
{
    long n = atomic_load_explicit(&shared_n, memory_order_relaxed);
    for (int i = 0; i < QSBR_MAX; i++) n += atomic_load_explicit(&limbo[i].count, memory_order_relaxed);
    return n;
}
