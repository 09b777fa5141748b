/* proc_alias.c — process aliases (erlang:alias/0,1, unalias/1, monitor/3's
 * {alias, Mode}): a reference that messages can be sent to, delivered to
 * the process that made it while the alias is active.
 *
 * Two records keep an alias. The owner's Monitor entry (process.h: a
 * MON_ALIAS entry, or the `alias` field of a MON_OUT one) is the truth, and
 * only the owner touches it. A VM-wide table maps the reference's number to
 * the owner's pid so that a sender can find it; a sender that finds it sends
 * a SIG_ALIAS signal, and the owner, draining it, delivers it as a message
 * only if its own entry says the alias is still active. So a message sent
 * before unalias/1 and arriving after it is dropped, as in Erlang, and the
 * table may lag behind the owner without harm.
 *
 * The table is split into shards, each a chained hash under its own mutex:
 * aliases come and go once per request in code that uses them for replies,
 * and shards keep schedulers from queueing on one lock.
 */
#include <pthread.h>
#include <stdlib.h>

#include "proc.h"
#include "fatal.h"
#include "heap.h"

#define SHARDS 64

typedef struct AliasEntry {
    uint64_t ref;
    Term pid;
    struct AliasEntry *next;
} AliasEntry;

typedef struct {
    pthread_mutex_t lock;
    AliasEntry **buckets;
    size_t nbuckets, count;
} Shard;

static Shard shards[SHARDS];
static pthread_once_t shards_once = PTHREAD_ONCE_INIT;

static void shards_init(void) {
    for (int i = 0; i < SHARDS; i++) pthread_mutex_init(&shards[i].lock, NULL);
}

/* reference numbers come from per-scheduler sequences (unique.h): mix them */
static uint64_t mix(uint64_t x) {
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
    return x;
}

static Shard *shard_of(uint64_t ref) {
    pthread_once(&shards_once, shards_init);
    return &shards[mix(ref) % SHARDS];
}

/* Doubles a shard's bucket array when it holds more entries than buckets. */
static void shard_grow(Shard *s) {
    size_t n = s->nbuckets ? s->nbuckets * 2 : 16;
    AliasEntry **b = calloc(n, sizeof *b);
    if (!b) return;                     /* longer chains, still correct */
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (AliasEntry *e = s->buckets[i], *next; e; e = next) {
            next = e->next;
            size_t h = (mix(e->ref) / SHARDS) % n;
            e->next = b[h];
            b[h] = e;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nbuckets = n;
}

static void table_put(uint64_t ref, Term pid) {
    Shard *s = shard_of(ref);
    AliasEntry *e = malloc(sizeof *e);
    if (!e) FATAL("out of memory for an alias");
    e->ref = ref;
    e->pid = pid;
    pthread_mutex_lock(&s->lock);
    if (s->count >= s->nbuckets) shard_grow(s);
    size_t h = (mix(ref) / SHARDS) % s->nbuckets;
    e->next = s->buckets[h];
    s->buckets[h] = e;
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

static void table_del(uint64_t ref) {
    Shard *s = shard_of(ref);
    pthread_mutex_lock(&s->lock);
    if (s->nbuckets) {
        for (AliasEntry **pp = &s->buckets[(mix(ref) / SHARDS) % s->nbuckets]; *pp; pp = &(*pp)->next) {
            if ((*pp)->ref != ref) continue;
            AliasEntry *e = *pp;
            *pp = e->next;
            free(e);
            s->count--;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

static Term table_get(uint64_t ref) {
    Shard *s = shard_of(ref);
    Term pid = NIL;
    pthread_mutex_lock(&s->lock);
    if (s->nbuckets) {
        for (AliasEntry *e = s->buckets[(mix(ref) / SHARDS) % s->nbuckets]; e; e = e->next)
            if (e->ref == ref) { pid = e->pid; break; }
    }
    pthread_mutex_unlock(&s->lock);
    return pid;
}

/* ---- the owner's side ---- */

void proc_alias_activate(Process *p, Monitor *mo, int mode) {
    if (mo->alias == ALIAS_NONE) table_put(mo->ref, p->pid);
    mo->alias = mode;
}

void proc_alias_forget(uint64_t ref) { table_del(ref); }

uint64_t proc_alias_new(Process *p, int mode) {
    uint64_t ref = proc_new_ref();
    proc_monitor_add(p, ref, NIL, MON_ALIAS);
    proc_alias_activate(p, &p->monitors[p->nmonitors - 1], mode);
    return ref;
}

int proc_unalias(Process *p, uint64_t ref) {
    /* messages that came before unalias pass, as in Erlang: act on the
     * inbox first */
    proc_drain(p);
    Monitor *mo = proc_alias_find(p, ref);
    if (!mo) return 0;
    table_del(ref);
    mo->alias = ALIAS_NONE;
    if (mo->out == MON_ALIAS) proc_monitor_drop(p, mo);
    return 1;
}

/* ---- senders ---- */

UWord proc_send_alias(Process *from, Term alias, Term msg) {
    Term pid = table_get(ref_number(alias));
    if (pid == NIL) return 1;           /* not an active alias: dropped */
    return proc_send_kind(from, pid, msg, SIG_ALIAS, ref_number(alias));
}
