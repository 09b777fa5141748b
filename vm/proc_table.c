/* proc_table.c — the pid table: pids to processes, safe against exit.
 *
 * The table is an array indexed by the pid number modulo its size; a slot
 * holds the process or NULL, and a lookup checks that the process found still
 * has the pid asked for. Lookups take a reference (refc) that keeps the
 * Process memory alive while a sender pushes to it, so a process exiting at
 * the same time cannot be freed under the sender's feet; the memory goes when
 * the last reference does (proc_release).
 *
 * A scheduler thread need not count: proc_peek finds the record with one
 * load and one compare, and the record cannot be reused for another
 * process before that thread's next quiescent point (qsbr.h), because the
 * last release retires it rather than recycling it at once. A send, the
 * common lookup, then writes nothing on the receiver's record but its inbox
 * word: two atomic read-modify-writes fewer on a line the receiver and
 * other senders also write.
 */
#include <gc.h>
#include <stdlib.h>

#include "proc.h"
#include "heap.h"
#include "mailbox.h"
#include "fatal.h"
#include "port.h"

/* the table: the default one unless +P asked for another size */
static _Atomic(Process *) default_table[PROCESS_LIMIT_DEFAULT];
static _Atomic(Process *) *table = default_table;
static size_t table_size = PROCESS_LIMIT_DEFAULT;   /* a power of two: the process limit */
static atomic_uint_fast64_t next_pid = 1;
static atomic_uint_fast64_t live_count;
static atomic_uint_fast64_t port_count;

UWord proc_count(void) { return (UWord)atomic_load(&live_count); }

void proc_table_init(size_t limit) {
    if (limit < 1024) limit = 1024;
    if (limit > ((size_t)1 << 27)) limit = (size_t)1 << 27;
    size_t n = 1024;
    while (n < limit) n <<= 1;
    if (n == table_size) return;
    _Atomic(Process *) *t = calloc(n, sizeof *t);
    if (!t) FATAL("out of memory for a process table of %zu slots", n);
    table = t;
    table_size = n;
}

size_t proc_limit(void) { return table_size; }

/* The default table is 8 MB of static memory that points only at processes,
 * which live in our own memory, never in Boehm's. Left as a root, Boehm read
 * all of it at every collection, and its first collection faulted in every
 * page: about 25 ms of every start on a virtual machine. */
void proc_table_unscanned(void) {
    GC_exclude_static_roots(default_table, default_table + PROCESS_LIMIT_DEFAULT);
}

/* ---- the table ---- */

/* The process in a table slot, with a reference taken; NULL if none. Between
 * reading the slot and counting the reference, the process may exit, its
 * record be freed (refc 0) and even be made into a new process. That is why
 * Process records are never given back to malloc (heap.c): the count is
 * still a count, and it is only raised from above zero, so a freed record is
 * never revived (raising it from zero freed the record a second time). Then
 * the slot must still hold the record, or it is not the process sought. */
static Process *slot_acquire(size_t slot) {
    Process *p = atomic_load_explicit(&table[slot], memory_order_acquire);
    if (!p) return NULL;
    int refs = atomic_load_explicit(&p->refc, memory_order_relaxed);
    do {
        if (refs == 0) return NULL;      /* it has exited and been freed */
    } while (!atomic_compare_exchange_weak_explicit(&p->refc, &refs, refs + 1,
                                                    memory_order_acquire, memory_order_relaxed));
    if (atomic_load_explicit(&table[slot], memory_order_acquire) != p) {
        proc_release(p);
        return NULL;
    }
    return p;
}

Process *proc_lookup(Term pid) {
    if (!is_pid(pid)) return NULL;
    Process *p = slot_acquire(pid_val(pid) & (table_size - 1));
    if (p && p->pid != pid) {            /* the slot's next tenant */
        proc_release(p);
        return NULL;
    }
    return p;
}

Process *proc_peek(Term pid) {
    if (!is_pid(pid)) return NULL;
    Process *p = atomic_load_explicit(&table[pid_val(pid) & (table_size - 1)], memory_order_acquire);
    return p && p->pid == pid ? p : NULL;
}

void proc_release(Process *p) {
    if (atomic_fetch_sub_explicit(&p->refc, 1, memory_order_acq_rel) == 1) {
        for (Message *m = mailbox_close(&p->mbox), *next; m; m = next) {
            next = m->next;
            proc_message_free(m);
        }
        free(p->links);
        free(p->monitors);
        port_record_free(p);
        process_retire_memory(p);
    }
}

/* Ports share the table and the numbers (vm/io/port.c): a slot's record
 * says by its id, a pid or a port, which it is. */
static UWord id_number(Term id) { return is_port(id) ? port_val(id) : pid_val(id); }

static int table_insert(Process *p, int port) {
    if (atomic_load_explicit(&live_count, memory_order_relaxed) +
        atomic_load_explicit(&port_count, memory_order_relaxed) >= table_size) return 0;
    for (size_t tries = 0; tries < table_size; tries++) {
        uint64_t n = atomic_fetch_add(&next_pid, 1);
        Process *expected = NULL;
        p->pid = port ? make_port(n) : make_pid(n);
        if (atomic_compare_exchange_strong(&table[n & (table_size - 1)], &expected, p)) {
            atomic_fetch_add(port ? &port_count : &live_count, 1);
            return 1;
        }
    }
    return 0;
}

int proc_table_insert(Process *p) { return table_insert(p, 0); }
int proc_table_insert_port(Process *p) { return table_insert(p, 1); }

void proc_table_remove(Process *p) {
    Process *self = p;
    if (atomic_compare_exchange_strong(&table[id_number(p->pid) & (table_size - 1)], &self, NULL))
        atomic_fetch_sub(is_port(p->pid) ? &port_count : &live_count, 1);
}

Process *proc_lookup_port(Term port) {
    if (!is_port(port)) return NULL;
    Process *p = slot_acquire(port_val(port) & (table_size - 1));
    if (p && p->pid != port) {
        proc_release(p);
        return NULL;
    }
    return p;
}

UWord proc_port_count(void) { return (UWord)atomic_load(&port_count); }

static Term all_ids(Process *p, int ports) {
    Term list = NIL;
    for (long i = (long)table_size - 1; i >= 0; i--) {
        Process *q = slot_acquire((size_t)i);
        if (!q) continue;
        if (is_port(q->pid) != ports) { proc_release(q); continue; }
        Term *hp = heap_alloc(p, 2);
        hp[0] = q->pid; hp[1] = list;
        list = make_list(hp);
        proc_release(q);
    }
    return list;
}

Term proc_all_pids(Process *p) { return all_ids(p, 0); }
Term proc_all_ports(Process *p) { return all_ids(p, 1); }

Process *proc_table_largest(void) {
    Process *best = NULL;
    size_t most = 0;
    for (size_t i = 0; i < table_size; i++) {
        if (!atomic_load_explicit(&table[i], memory_order_relaxed)) continue;
        Process *q = slot_acquire(i);
        if (!q) continue;
        size_t w = atomic_load_explicit(&q->mem_words, memory_order_relaxed);
        if (w > most) {
            if (best) proc_release(best);
            best = q;
            most = w;
        } else {
            proc_release(q);
        }
    }
    return best;
}
