/* proc.c — the pid table, spawn, send, signals, registered names, exit.
 *
 * The pid table is an array indexed by the pid number modulo its size; a slot
 * holds the process or NULL, and a lookup checks that the process found still
 * has the pid asked for. Lookups take a reference (refc) that keeps the
 * Process memory alive while a sender pushes to it, so a process exiting at
 * the same time cannot be freed under the sender's feet; the memory goes when
 * the last reference does.
 *
 * A message is one block: the Message record, then the words its term was
 * copied into (mailbox.h). When the receiver takes the message, the block is
 * hung on its heap as a fragment (heap_attach_frag) and the next collection
 * copies what is still live.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

#include "proc.h"
#include "atom.h"
#include "copy.h"
#include "emulator.h"
#include "error_report.h"
#include "gc.h"
#include "module.h"
#include "print.h"
#include "sched.h"
#include "unique.h"
#include "bif_io.h"
#include "binary.h"

static _Atomic(Process *) table[PROCESS_LIMIT];
static atomic_uint_fast64_t next_pid = 1;
static atomic_uint_fast64_t live_count;

void proc_init(void) {}

/* per-scheduler sequences: no counter shared between schedulers (unique.h) */
uint64_t proc_new_ref(void) { return unique_next(); }

Term make_ref_at(Term *hp, uint64_t n) {
    hp[0] = make_header(1, BOXED_REF);
    hp[1] = (Term)n;
    return make_boxed(hp);
}

uint64_t ref_number(Term ref) { return (uint64_t)boxed_ptr(ref)[1]; }

UWord proc_count(void) { return (UWord)atomic_load(&live_count); }

/* ---- messages ---- */

_Static_assert(sizeof(Message) == HEAP_BARE_BYTES, "a bare record is a Message");

/* A signal's sender and number: the two words past its term's (mailbox.h) */
static Term sig_from(const Message *m) { return m->mem[m->used]; }
static uint64_t sig_ref(const Message *m) { return (uint64_t)m->mem[m->used + 1]; }
#define SIG_WORDS 2

static void no_memory(void)
{
    fprintf(stderr, "mini: out of memory for a message\n");
    abort();
}

/* A plain message with room for `words` words of term data: a fragment, or
 * a bare record when the term is an immediate. */
static Message *message_alloc(size_t words) {
    Message *m;
    if (words == 0) {
        if (!(m = heap_bare_new())) no_memory();
        m->size = 0;
    } else {
        if (!(m = heap_frag_new(words))) no_memory();
    }
    m->next = NULL;
    m->used = words;
    m->kind = MSG_PLAIN;
    m->bins = 1;                       /* may hold ProcBins, unless a copy says not */
    m->link = 0;
    return m;
}

/* A signal of `kind` with room for `words` words of term data. */
static Message *signal_alloc(size_t words, int kind, Term from, uint64_t ref) {
    Message *m = message_alloc(words + SIG_WORDS);
    m->used = words;
    m->kind = kind;
    m->term = NIL;
    m->mem[words] = from;
    m->mem[words + 1] = (Term)ref;
    return m;
}

Message *proc_signal_copy(Term t, int kind, Term from, uint64_t ref) {
    size_t n = copy_size(t), bins;
    Message *m = signal_alloc(n, kind, from, ref);
    m->term = copy_term_bins(t, m->mem, &bins);
    m->bins = bins != 0;
    return m;
}

void proc_message_free(Message *m) {
    if (!m->size) { heap_bare_free(m); return; }
    /* binaries: an unreceived message drops its references to shared bytes */
    if (m->bins) binary_release_region(m->mem, m->mem + m->used);
    m->next = NULL;                    /* the queue's link, not a fragment list */
    heap_frag_free(m);
}
#define message_free proc_message_free

/* A received message's block joins p's fragments (see mailbox.h). */
static void message_attach(Process *p, Message *m) {
    m->next = NULL;
    heap_attach_frag(p, m);
}

Message *proc_message_copy(Term t) {
    size_t n = copy_size(t), bins = 0;
    Message *m = message_alloc(n);
    m->term = n ? copy_term_bins(t, m->mem, &bins) : t;
    m->bins = bins != 0;
    return m;
}

/* {timeout, Ref, Msg}, as erlang:start_timer/3 delivers it */
Message *proc_message_timeout(uint64_t ref, Term msg) {
    size_t n = copy_size(msg);
    Message *m = message_alloc(n + 4 + REF_WORDS);
    Term *hp = m->mem;
    Term c = copy_term(msg, hp + 4 + REF_WORDS);
    Term r = make_ref_at(hp + 4, ref);
    hp[0] = make_tuple_header(3); hp[1] = ATOM_TERM(timeout); hp[2] = r; hp[3] = c;
    m->term = make_boxed(hp);
    return m;
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
    Process *p = slot_acquire(pid_val(pid) % PROCESS_LIMIT);
    if (p && p->pid != pid) {            /* the slot's next tenant */
        proc_release(p);
        return NULL;
    }
    return p;
}

void proc_release(Process *p) {
    if (atomic_fetch_sub_explicit(&p->refc, 1, memory_order_acq_rel) == 1) {
        for (Message *m = mailbox_close(&p->mbox), *next; m; m = next) {
            next = m->next;
            message_free(m);
        }
        free(p->links);
        free(p->monitors);
        process_free_memory(p);
    }
}

int proc_table_insert(Process *p) {
    for (int tries = 0; tries < PROCESS_LIMIT; tries++) {
        uint64_t n = atomic_fetch_add(&next_pid, 1);
        Process *expected = NULL;
        p->pid = make_pid(n);
        if (atomic_compare_exchange_strong(&table[n % PROCESS_LIMIT], &expected, p)) {
            atomic_fetch_add(&live_count, 1);
            return 1;
        }
    }
    return 0;
}

void proc_table_remove(Process *p) {
    Process *self = p;
    if (atomic_compare_exchange_strong(&table[pid_val(p->pid) % PROCESS_LIMIT], &self, NULL))
        atomic_fetch_sub(&live_count, 1);
}

Term proc_all_pids(Process *p) {
    Term list = NIL;
    for (long i = PROCESS_LIMIT - 1; i >= 0; i--) {
        Process *q = slot_acquire((size_t)i);
        if (!q) continue;
        Term *hp = heap_alloc(p, 2);
        hp[0] = q->pid; hp[1] = list;
        list = make_list(hp);
        proc_release(q);
    }
    return list;
}

/* ---- links and monitors (owner only) ---- */

static int link_index(Process *p, Term pid) {
    for (int i = 0; i < p->nlinks; i++) if (p->links[i] == pid) return i;
    return -1;
}

static void link_add(Process *p, Term pid) {
    if (link_index(p, pid) >= 0) return;
    if (p->nlinks == p->caplinks) {
        p->caplinks = p->caplinks ? p->caplinks * 2 : 4;
        p->links = realloc(p->links, sizeof(Term) * (size_t)p->caplinks);
    }
    p->links[p->nlinks++] = pid;
}

static void link_remove(Process *p, Term pid) {
    int i = link_index(p, pid);
    if (i >= 0) p->links[i] = p->links[--p->nlinks];
}

static void monitor_add(Process *p, uint64_t ref, Term pid, int out) {
    if (p->nmonitors == p->capmonitors) {
        p->capmonitors = p->capmonitors ? p->capmonitors * 2 : 4;
        p->monitors = realloc(p->monitors, sizeof(Monitor) * (size_t)p->capmonitors);
    }
    p->monitors[p->nmonitors++] = (Monitor){ ref, pid, out };
}

static int monitor_remove(Process *p, uint64_t ref, Monitor *out) {
    for (int i = 0; i < p->nmonitors; i++) {
        if (p->monitors[i].ref != ref) continue;
        if (out) *out = p->monitors[i];
        p->monitors[i] = p->monitors[--p->nmonitors];
        return 1;
    }
    return 0;
}

/* ---- delivering ---- */

/* Pushes m to pid's inbox. 0 delivered; -1 no such process (m is freed). */
int proc_deliver(Term pid, Message *m) {
    Process *q = proc_lookup(pid);
    if (!q) { message_free(m); return -1; }
    int r = mailbox_push(&q->mbox, m);
    if (r == 1) sched_wake(q);
    proc_release(q);
    if (r < 0) { message_free(m); return -1; }
    return 0;
}

UWord proc_send(Process *from, Term pid, Term msg) {
    Message *m = proc_message_copy(msg);
    UWord words = m->used;
    if (from && pid == from->pid) {
        /* To oneself: no lookup, and nobody to wake (we are running). With
         * nothing in the inbox, straight onto the private queue: the order
         * is the same as pushing and draining, and a flood of self-sends
         * then costs no atomic operation and no pass to reverse the inbox. */
        if (mailbox_inbox_empty(&from->mbox)) mailbox_append(&from->mbox, m);
        else mailbox_push(&from->mbox, m);
    } else {
        proc_deliver(pid, m);
    }
    return 1 + words / 16;
}

static int send_signal(Term from, Term to, int kind, uint64_t ref) {
    return proc_deliver(to, signal_alloc(0, kind, from, ref));
}

/* {'EXIT', From, Reason}: sent as the exit signal itself, so a process that
 * traps exits can queue it as it is. */
static Message *exit_message(Term from, Term reason, int link) {
    size_t n = copy_size(reason);
    Message *m = signal_alloc(n + 4, SIG_EXIT, from, 0);
    Term *hp = m->mem;
    Term r = copy_term(reason, hp + 4);
    hp[0] = make_tuple_header(3);
    hp[1] = ATOM_TERM(EXIT);
    hp[2] = from;
    hp[3] = r;
    m->term = make_boxed(hp);
    m->link = link;
    return m;
}

static int send_exit(Term from, Term to, Term reason, int link) {
    return proc_deliver(to, exit_message(from, reason, link));
}

/* {'DOWN', Ref, process, Pid, Reason} to a monitoring process */
static void send_down(Term to, uint64_t ref, Term pid, Term reason) {
    size_t n = copy_size(reason);
    Message *m = message_alloc(n + 6 + REF_WORDS);
    Term *hp = m->mem;
    Term r = copy_term(reason, hp + 6 + REF_WORDS);
    Term rt = make_ref_at(hp + 6, ref);
    hp[0] = make_tuple_header(5);
    hp[1] = ATOM_TERM(DOWN);
    hp[2] = rt;
    hp[3] = ATOM_TERM(process);
    hp[4] = pid;
    hp[5] = r;
    m->term = make_boxed(hp);
    proc_deliver(to, m);
}

int proc_link(Process *p, Term pid) {
    if (pid == p->pid) return 0;
    if (send_signal(p->pid, pid, SIG_LINK, 0) < 0) return -1;
    link_add(p, pid);
    return 0;
}

void proc_unlink(Process *p, Term pid) {
    link_remove(p, pid);
    send_signal(p->pid, pid, SIG_UNLINK, 0);
}

int proc_monitor(Process *p, Term pid, uint64_t ref) {
    if (send_signal(p->pid, pid, SIG_MONITOR, ref) < 0) {
        send_down(p->pid, ref, pid, ATOM_TERM(noproc));
        return -1;
    }
    monitor_add(p, ref, pid, 1);
    return 0;
}

int proc_demonitor(Process *p, uint64_t ref) {
    Monitor m;
    if (!monitor_remove(p, ref, &m)) return 0;
    send_signal(p->pid, m.pid, SIG_DEMONITOR, ref);
    return 1;
}

void proc_exit_signal(Process *p, Term pid, Term reason) {
    send_exit(p->pid, pid, reason, 0);
}

int proc_info_request(Process *p, Term pid, Term items, int all, uint64_t ref) {
    Message *m = proc_signal_copy(items, SIG_INFO, p->pid, ref);
    m->link = all;
    return proc_deliver(pid, m);
}

/* {Ref, Info} to whoever asked */
static void info_reply(Term to, uint64_t ref, Term info, Process *heap_owner) {
    Term *hp = heap_owner ? heap_alloc(heap_owner, 3 + REF_WORDS) : NULL;
    if (!hp) {
        /* a dying process answers `undefined` from a fragment of its own */
        Message *m = message_alloc(3 + REF_WORDS);
        hp = m->mem;
        Term r = make_ref_at(hp + 3, ref);
        hp[0] = make_tuple_header(2); hp[1] = r; hp[2] = info;
        m->term = make_boxed(hp);
        proc_deliver(to, m);
        return;
    }
    Term r = make_ref_at(hp + 3, ref);
    hp[0] = make_tuple_header(2); hp[1] = r; hp[2] = info;
    proc_send(heap_owner, to, make_boxed(hp));
}

void proc_timeout(Term pid, uint64_t ref) {
    send_signal(NIL, pid, SIG_TIMEOUT, ref);
}

/* ---- the owner acting on its signals ---- */

static void die_of(Process *p, Term reason) {
    if (p->exiting) return;
    p->exiting = 1;
    p->exit_reason = reason;
}

/* Acts on one signal; returns 1 if m became a message to queue. */
static int handle_signal(Process *p, Message *m) {
    switch (m->kind) {
    case MSG_PLAIN:
        return 1;
    case SIG_EXIT: {
        Term reason = tuple_elems(m->term)[2];
        if (m->link && link_index(p, sig_from(m)) < 0) break;   /* unlinked meanwhile */
        if (m->link) link_remove(p, sig_from(m));
        if (!m->link && reason == ATOM_TERM(kill)) {
            message_attach(p, m);
            die_of(p, ATOM_TERM(killed));
            return 0;
        }
        if (p->trap_exit) return 1;
        if (reason == ATOM_TERM(normal) && sig_from(m) != p->pid) break;
        message_attach(p, m);               /* the reason now lives on p's heap */
        die_of(p, reason);
        return 0;
    }
    case SIG_LINK:
        link_add(p, sig_from(m));
        break;
    case SIG_UNLINK:
        link_remove(p, sig_from(m));
        break;
    case SIG_MONITOR:
        monitor_add(p, sig_ref(m), sig_from(m), 0);
        break;
    case SIG_DEMONITOR:
        monitor_remove(p, sig_ref(m), NULL);
        break;
    case SIG_TIMEOUT:
        if (sig_ref(m) == p->wait_ref) p->timed_out = 1;
        break;
    case SIG_GC:            /* the scheduler collects: it knows the live registers */
        p->gc_requested = 1;
        break;
    case SIG_INFO:
        info_reply(sig_from(m), sig_ref(m), info_answer(p, m->term, m->link), p);
        break;
    }
    message_free(m);
    return 0;
}

void proc_drain(Process *p) {
    for (Message *m = mailbox_take_inbox(&p->mbox), *next; m; m = next) {
        next = m->next;
        if (m->kind == MSG_PLAIN || handle_signal(p, m)) {
            m->kind = MSG_PLAIN;
            mailbox_append(&p->mbox, m);
        }
    }
}

void proc_remove_message(Process *p) {
    Message *m = mailbox_remove(&p->mbox);
    if (is_immed(m->term)) message_free(m);
    else heap_attach_frag(p, m);         /* mailbox_remove cleared m->next */
}

/* ---- spawn ---- */

Term proc_spawn(Process *parent, Term module, Term fun, Term args, const SpawnOpts *o,
                uint64_t *mon_ref) {
    static const SpawnOpts plain = { .prio = PRIO_NORMAL };
    if (!o) o = &plain;
    int link = o->link, monitor = o->monitor;
    Process *c = process_new_memory(o->min_heap > MIN_HEAP_SIZE ? o->min_heap : MIN_HEAP_SIZE);
    if (!c) return THE_NON_VALUE;
    mailbox_init(&c->mbox);
    /* the table's reference (a lookup that read a slot when this record was
     * another process's may already be counting: see slot_acquire) */
    atomic_store_explicit(&c->refc, 1, memory_order_release);
    c->reg_name = NIL;
    c->prio = o->prio;             /* not inherited: Erlang's rule */
    c->group_leader = parent ? parent->group_leader : NIL;
    c->exit_reason = THE_NON_VALUE;
    if (!proc_table_insert(c)) {
        proc_release(c);
        return THE_NON_VALUE;
    }
    /* the arguments (or the fun) are copied into the child's heap */
    Export *e;
    int arity;
    Term *hp;
    if (module == NIL) {
        size_t n = copy_size(fun);
        hp = heap_alloc(c, n);
        c->x[0] = copy_term(fun, hp);
        binary_adopt(c, hp, hp + n);
        c->x[1] = NIL;
        e = export_get(ATOM_TERM(erlang), ATOM_TERM(apply), 2);
        arity = 2;
        if (boxed_kind(fun) == BOXED_FUN) {
            const FunEntry *fe = (const FunEntry *)boxed_ptr(fun)[1];
            hp = heap_alloc(c, 4);
            hp[0] = make_tuple_header(3); hp[1] = fe->module; hp[2] = fe->name;
            hp[3] = make_small(fe->arity);
            c->initial_call = make_boxed(hp);
        }
    } else {
        arity = 0;
        int n = 0;
        for (Term l = args; is_list(l); l = list_tail(l)) n++;
        if (!process_reserve_xsave(c, n)) {
            fprintf(stderr, "mini: out of memory spawning a process\n");
            abort();
        }
        for (Term l = args; is_list(l); l = list_tail(l)) {
            size_t n = copy_size(list_head(l));
            hp = heap_alloc(c, n);
            c->x[arity++] = copy_term(list_head(l), hp);
            binary_adopt(c, hp, hp + n);
        }
        e = export_get(module, fun, arity);
        hp = heap_alloc(c, 4);
        hp[0] = make_tuple_header(3); hp[1] = module; hp[2] = fun; hp[3] = make_small(arity);
        c->initial_call = make_boxed(hp);
    }
    emulator_setup_call(c, e, arity);
    if (parent && link) {
        link_add(parent, c->pid);
        link_add(c, parent->pid);
    }
    if (parent && monitor) {
        uint64_t ref = proc_new_ref();
        monitor_add(parent, ref, c->pid, 1);
        monitor_add(c, ref, parent->pid, 0);
        *mon_ref = ref;
    }
    /* once runnable, c may run, end and be freed on another scheduler:
     * nothing of it may be touched after this */
    Term pid = c->pid;
    sched_spawned(parent, c);
    return pid;
}

/* ---- registered names ---- */

#define NAME_SLOTS 4096
static struct { Term name, pid; } names[NAME_SLOTS];
static int nnames;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

int proc_register(Term name, Process *p) {
    int r = -1;
    pthread_mutex_lock(&names_lock);
    int taken = p->reg_name != NIL;
    for (int i = 0; i < nnames && !taken; i++) if (names[i].name == name) taken = 1;
    if (!taken && nnames < NAME_SLOTS) {
        names[nnames].name = name;
        names[nnames].pid = p->pid;
        nnames++;
        p->reg_name = name;
        r = 0;
    }
    pthread_mutex_unlock(&names_lock);
    return r;
}

int proc_unregister(Term name) {
    int r = -1;
    Term pid = THE_NON_VALUE;
    pthread_mutex_lock(&names_lock);
    for (int i = 0; i < nnames; i++) {
        if (names[i].name != name) continue;
        pid = names[i].pid;
        names[i] = names[--nnames];
        r = 0;
        break;
    }
    pthread_mutex_unlock(&names_lock);
    if (r == 0) {
        Process *q = proc_lookup(pid);
        if (q) { if (q->reg_name == name) q->reg_name = NIL; proc_release(q); }
    }
    return r;
}

Term proc_whereis(Term name) {
    Term pid = THE_NON_VALUE;
    pthread_mutex_lock(&names_lock);
    for (int i = 0; i < nnames; i++)
        if (names[i].name == name) { pid = names[i].pid; break; }
    pthread_mutex_unlock(&names_lock);
    return pid;
}

Term proc_registered(Process *p) {
    pthread_mutex_lock(&names_lock);
    Term list = NIL;
    Term *hp = heap_alloc(p, 2 * (size_t)nnames);
    for (int i = 0; i < nnames; i++, hp += 2) {
        hp[0] = names[i].name; hp[1] = list;
        list = make_list(hp);
    }
    pthread_mutex_unlock(&names_lock);
    return list;
}

/* ---- exit ---- */

Term proc_exception_reason(Process *p) {
    if (p->exc_class == EXC_EXIT) return p->exc_reason;
    Term reason = p->exc_reason;
    if (p->exc_class == EXC_THROW) {
        Term *hp = heap_alloc(p, 3);
        hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(nocatch); hp[2] = reason;
        reason = make_boxed(hp);
    }
    Term *hp = heap_alloc(p, 3);
    hp[0] = make_tuple_header(2); hp[1] = reason;
    hp[2] = p->exc_trace == THE_NON_VALUE ? NIL : p->exc_trace;
    return make_boxed(hp);
}

static void error_report(Process *p, Term reason) {
    OutBuf b;
    ob_init(&b);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    ob_printf(&b, "=ERROR REPORT==== %d-%s-%d::%02d:%02d:%02d.%06ld ===\n", tm.tm_mday,
              months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
              (long)tv.tv_usec);
    ob_puts(&b, "Error in process ");
    print_term(&b, p->pid, PRINT_WRITE);
    ob_puts(&b, " with exit value:\n");
    print_term(&b, reason, PRINT_PRINT);
    ob_puts(&b, "\n\n");
    io_write_err(b.buf, b.len);
    ob_free(&b);
}

void proc_exit(Process *p, Term reason, int report) {
    if (report) error_report(p, reason);
    /* Gone from the table and the names before anyone hears of the death, so
     * that whoever receives the 'DOWN' or 'EXIT' finds it dead. */
    if (p->reg_name != NIL) proc_unregister(p->reg_name);
    proc_table_remove(p);
    /* no signal can reach us after this; answer the ones that came too late */
    for (Message *m = mailbox_close(&p->mbox), *next; m; m = next) {
        next = m->next;
        if (m->kind == SIG_LINK) send_exit(p->pid, sig_from(m), reason, 1);
        else if (m->kind == SIG_MONITOR) send_down(sig_from(m), sig_ref(m), p->pid, reason);
        else if (m->kind == SIG_INFO) info_reply(sig_from(m), sig_ref(m), ATOM_TERM(undefined), NULL);
        message_free(m);
    }
    for (int i = 0; i < p->nlinks; i++) send_exit(p->pid, p->links[i], reason, 1);
    p->nlinks = 0;
    for (int i = 0; i < p->nmonitors; i++) {
        Monitor *mo = &p->monitors[i];
        if (mo->out) send_signal(p->pid, mo->pid, SIG_DEMONITOR, mo->ref);
        else send_down(mo->pid, mo->ref, p->pid, reason);
    }
    p->nmonitors = 0;
    proc_release(p);
}
