/* proc_signal.c — messages and signals between processes: send, links,
 * monitors, exit signals, process_info requests, timeouts, and the owner
 * acting on them as it drains its inbox.
 *
 * A message is one block: the Message record, then the words its term was
 * copied into (mailbox.h). When the receiver takes the message, the block is
 * hung on its heap as a fragment (heap_attach_frag) and the next collection
 * copies what is still live. A signal is a block of the same kind with its
 * sender and number in two words past the term; the target acts on it
 * itself (handle_signal), so links and monitors are only touched by their
 * owner.
 */
#include <stdio.h>
#include <stdlib.h>

#include "proc.h"
#include "gc.h"
#include "mem_limit.h"
#include "atom.h"
#include "binary.h"
#include "copy.h"
#include "fatal.h"
#include "heap.h"
#include "sched.h"
#include "dist.h"
#include "qsbr.h"

/* ---- messages ---- */

_Static_assert(sizeof(Message) == HEAP_BARE_BYTES, "a bare record is a Message");

/* A signal's sender and number: the two words past its term's (mailbox.h) */
static Term sig_from(const Message *m) { return m->mem[m->used]; }
static uint64_t sig_ref(const Message *m) { return (uint64_t)m->mem[m->used + 1]; }
#define SIG_WORDS 2

/* A plain message with room for `words` words of term data: a fragment, or
 * a bare record when the term is an immediate; NULL when out of memory. */
static Message *message_try_alloc(size_t words) {
    Message *m;
    if (words == 0) {
        if (!(m = heap_bare_new())) return NULL;
        m->size = 0;
    } else {
        if (!(m = heap_frag_new(words))) return NULL;
    }
    m->next = NULL;
    m->used = words;
    m->kind = MSG_PLAIN;
    m->bins = 1;                       /* may hold ProcBins, unless a copy says not */
    m->link = 0;
    return m;
}

/* The same for the VM's own signals and replies, small: out of memory there
 * stops the VM. */
static Message *message_alloc(size_t words) {
    Message *m = message_try_alloc(words);
    if (!m) FATAL("out of memory for a message of %zu words", words);
    return m;
}

/* A signal of `kind` with room for `words` words of term data. */
static Message *signal_init(Message *m, size_t words, int kind, Term from, uint64_t ref) {
    m->used = words;
    m->kind = kind;
    m->term = NIL;
    m->mem[words] = from;
    m->mem[words + 1] = (Term)ref;
    return m;
}

static Message *signal_alloc(size_t words, int kind, Term from, uint64_t ref) {
    return signal_init(message_alloc(words + SIG_WORDS), words, kind, from, ref);
}

/* An exit or 'DOWN' signal with `fixed` words and a copy of *reason. A
 * reason the memory left cannot copy (a huge term in a stack trace) goes
 * as `killed`, as for a process the memory ceiling kills: the dead process
 * cannot take the VM with it. *n is the size of the reason sent. */
static Message *reason_signal_alloc(size_t fixed, Term *reason, size_t *n, int kind, Term from,
                                    uint64_t ref) {
    *n = copy_size(*reason);
    Message *m = message_try_alloc(fixed + *n + SIG_WORDS);
    if (m) return signal_init(m, fixed + *n, kind, from, ref);
    *reason = ATOM_TERM(killed);
    *n = 0;
    return signal_alloc(fixed, kind, from, ref);
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

Message *proc_message_try_copy(Term t) {
    size_t n = copy_size(t), bins = 0;
    Message *m = message_try_alloc(n);
    if (!m) return NULL;
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

/* ---- links and monitors (owner only) ---- */

static int link_index(Process *p, Term pid) {
    for (int i = 0; i < p->nlinks; i++) if (p->links[i] == pid) return i;
    return -1;
}

void proc_link_add(Process *p, Term pid) {
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

int proc_link_has(Process *p, Term pid) { return link_index(p, pid) >= 0; }
void proc_link_remove(Process *p, Term pid) { link_remove(p, pid); }
Term proc_signal_from(const Message *m) { return sig_from(m); }

void proc_monitor_add(Process *p, uint64_t ref, Term pid, int out) {
    if (p->nmonitors == p->capmonitors) {
        p->capmonitors = p->capmonitors ? p->capmonitors * 2 : 4;
        p->monitors = realloc(p->monitors, sizeof(Monitor) * (size_t)p->capmonitors);
        if (!p->monitors) FATAL("out of memory for a monitor");
    }
    p->monitors[p->nmonitors++] = (Monitor){ ref, pid, out, ALIAS_NONE, NIL, NULL };
}

Monitor *proc_monitor_find(Process *p, uint64_t ref, int out) {
    for (int i = 0; i < p->nmonitors; i++)
        if (p->monitors[i].ref == ref && (out < 0 || p->monitors[i].out == out)) return &p->monitors[i];
    return NULL;
}

/* The entry that makes ref an active alias (a monitor of oneself also has
 * an in entry with the same ref), or NULL. */
Monitor *proc_alias_find(Process *p, uint64_t ref) {
    for (int i = 0; i < p->nmonitors; i++)
        if (p->monitors[i].ref == ref && p->monitors[i].alias != ALIAS_NONE) return &p->monitors[i];
    return NULL;
}

void proc_monitor_drop(Process *p, Monitor *mo) {
    if (mo->tag) proc_message_free(mo->tag);
    *mo = p->monitors[--p->nmonitors];
}

/* An out monitor ends (demonitor, or its 'DOWN' arrived): its alias ends
 * with it unless it was made with {alias, explicit_unalias}, when the entry
 * stays as a plain alias. */
static void monitor_end(Process *p, Monitor *mo) {
    if (mo->alias == ALIAS_EXPLICIT) {
        mo->out = MON_ALIAS;
        mo->pid = NIL;
        mo->name = NIL;
        if (mo->tag) proc_message_free(mo->tag);
        mo->tag = NULL;
        return;
    }
    if (mo->alias != ALIAS_NONE) proc_alias_forget(mo->ref);
    proc_monitor_drop(p, mo);
}

/* ---- delivering ---- */

/* Pushes m to pid's inbox and wakes it if it waited (at the back of the
 * ring with `in_order`: sched_wake_timeout). 0 delivered; -1 no such
 * process (m is freed). */
static int deliver(Term pid, Message *m, int in_order) {
    /* a scheduler counts no reference (proc_table.c says why it need not) */
    int counted = 1;
    Process *q;
    if (is_port(pid)) q = proc_lookup_port(pid);
    else if (qsbr_protected()) { q = proc_peek(pid); counted = 0; }
    else q = proc_lookup(pid);
    if (!q) { proc_message_free(m); return -1; }
    int r = mailbox_push(&q->mbox, m);
    if (r == 1) {
        if (in_order) sched_wake_timeout(q);
        else sched_wake(q);
    }
    if (counted) proc_release(q);
    if (r < 0) { proc_message_free(m); return -1; }
    return 0;
}

int proc_deliver(Term pid, Message *m) { return deliver(pid, m, 0); }

UWord proc_send(Process *from, Term pid, Term msg) {
    return proc_send_kind(from, pid, msg, MSG_PLAIN, 0);
}

UWord proc_send_kind(Process *from, Term pid, Term msg, int kind, uint64_t ref) {
    size_t n = copy_size(msg), bins = 0;
    size_t extra = kind == MSG_PLAIN ? 0 : SIG_WORDS;
    Message *m = message_try_alloc(n + extra);
    if (!m) {
        /* no room for the copy: the sender dies for it (gc.h), as when its
         * own heap cannot grow; the message is not sent */
        if (!from) FATAL("out of memory for a message of %zu words", n);
        gc_out_of_memory(from, OOM_NOMEM);
        from->reds = 0;
        return 1;
    }
    m->term = n ? copy_term_bins(msg, m->mem, &bins) : msg;
    m->bins = bins != 0;
    if (kind != MSG_PLAIN) {
        m->used = n;
        m->kind = (uint16_t)kind;
        m->mem[n] = from ? from->pid : NIL;
        m->mem[n + 1] = (Term)ref;
    }
    UWord words = m->used;
    if (from && pid == from->pid) {
        /* To oneself: no lookup, and nobody to wake (we are running). With
         * nothing in the inbox, straight onto the private queue: the order
         * is the same as pushing and draining, and a flood of self-sends
         * then costs no atomic operation and no pass to reverse the inbox.
         * A signal goes through the inbox, where draining acts on it. */
        if (kind == MSG_PLAIN && mailbox_inbox_empty(&from->mbox)) mailbox_append(&from->mbox, m);
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
    size_t n;
    Message *m = reason_signal_alloc(4, &reason, &n, SIG_EXIT, from, 0);
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

void proc_send_exit(Term from, Term to, Term reason, int link) { send_exit(from, to, reason, link); }

/* The same from another node's pid (a boxed term): From is copied into the
 * block with the reason, and the signal's sender word points at the copy. */
void proc_send_exit_external(Term from, Term to, Term reason) {
    Term t[4] = { make_tuple_header(3), ATOM_TERM(EXIT), from, reason };
    size_t n = copy_size(make_boxed(t));
    Message *m = signal_alloc(n, SIG_EXIT, NIL, 0);
    m->term = copy_term(make_boxed(t), m->mem);
    m->mem[n] = tuple_elems(m->term)[1];
    m->link = 0;
    proc_deliver(to, m);
}

/* {'DOWN', Ref, process, Pid, Reason} to a monitoring process: a signal,
 * which the monitoring process delivers as a message only while it still
 * holds the monitor (so none comes after demonitor/1), with its tag and,
 * for a monitor by name, {Name, Node} for Pid (down_deliver). */
static void send_down(Term to, uint64_t ref, Term pid, Term reason) {
    size_t n;
    Message *m = reason_signal_alloc(6 + REF_WORDS, &reason, &n, SIG_DOWN, pid, ref);
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
    proc_link_add(p, pid);
    return 0;
}

void proc_unlink(Process *p, Term pid) {
    link_remove(p, pid);
    send_signal(p->pid, pid, SIG_UNLINK, 0);
}

int proc_monitor(Process *p, Term pid, uint64_t ref) {
    /* the entry first: a 'DOWN' for it may be in the inbox at once */
    proc_monitor_add(p, ref, pid, MON_OUT);
    if (send_signal(p->pid, pid, SIG_MONITOR, ref) < 0) {
        send_down(p->pid, ref, pid, ATOM_TERM(noproc));
        return -1;
    }
    return 0;
}

void proc_monitor_noproc(Process *p, uint64_t ref, Term name) {
    proc_monitor_add(p, ref, NIL, MON_OUT);
    p->monitors[p->nmonitors - 1].name = name;
    send_down(p->pid, ref, NIL, ATOM_TERM(noproc));
}

int proc_demonitor(Process *p, uint64_t ref) {
    Monitor m;
    Monitor *mo = proc_monitor_find(p, ref, MON_OUT);
    if (!mo) return 0;
    m = *mo;
    monitor_end(p, mo);
    send_signal(p->pid, m.pid, SIG_DEMONITOR, ref);
    return 1;
}

int proc_group_leader_signal(Term leader, Term pid) {
    return send_signal(leader, pid, SIG_GROUP_LEADER, 0);
}

void proc_exit_signal(Process *p, Term pid, Term reason) {
    send_exit(p->pid, pid, reason, 0);
}

/* {Ref, undefined}: the answer to a request whose target cannot answer it
 * (dead, or no memory for the answer). Each request's block is made big
 * enough to become that answer, so refusing allocates nothing: an asker is
 * answered even when memory is exhausted, and never waits forever. */
#define INFO_REFUSAL_WORDS (3 + REF_WORDS)

int proc_info_request(Process *p, Term pid, Term items, int all, uint64_t ref) {
    size_t n = copy_size(items), bins;
    size_t room = n + SIG_WORDS < INFO_REFUSAL_WORDS ? INFO_REFUSAL_WORDS - SIG_WORDS : n;
    Message *m = signal_alloc(room, SIG_INFO, p->pid, ref);
    m->term = copy_term_bins(items, m->mem, &bins);
    m->bins = bins != 0;
    m->link = all;
    return proc_deliver(pid, m);
}

/* Turns the request m into {Ref, undefined} and delivers it to the asker. */
static void info_refuse(Message *m) {
    Term to = sig_from(m);
    uint64_t ref = sig_ref(m);
    if (m->bins) binary_release_region(m->mem, m->mem + m->used);
    Term *hp = m->mem;
    Term r = make_ref_at(hp + 3, ref);
    hp[0] = make_tuple_header(2); hp[1] = r; hp[2] = AM_undefined;
    m->term = make_boxed(hp);
    m->kind = MSG_PLAIN;
    m->used = INFO_REFUSAL_WORDS;
    m->bins = 0;
    m->link = 0;
    m->next = NULL;
    proc_deliver(to, m);
}

/* {Ref, Info} for the request m, built straight in a message block; 0 if
 * there is no memory for it, when p dies for want of memory (gc.h) as if
 * before answering. */
static int info_reply(Process *p, Message *m, Term info) {
    size_t n = copy_size(info), bins = 0;
    Message *reply = message_try_alloc(INFO_REFUSAL_WORDS + n);
    if (!reply) {
        gc_out_of_memory(p, OOM_NOMEM);
        p->reds = 0;
        return 0;
    }
    Term *hp = reply->mem;
    Term copy = n ? copy_term_bins(info, hp + INFO_REFUSAL_WORDS, &bins) : info;
    Term r = make_ref_at(hp + 3, sig_ref(m));
    hp[0] = make_tuple_header(2); hp[1] = r; hp[2] = copy;
    reply->term = make_boxed(hp);
    reply->bins = bins != 0;
    proc_deliver(sig_from(m), reply);
    return 1;
}

void proc_timeout(Term pid, uint64_t ref, int in_order) {
    deliver(pid, signal_alloc(0, SIG_TIMEOUT, NIL, ref), in_order);
}

/* ---- the owner acting on its signals ---- */

static void die_of(Process *p, Term reason) {
    if (p->exiting) return;
    p->exiting = 1;
    p->exit_reason = reason;
}

/* A 'DOWN' for monitor mo, as the message to queue: m itself, or a new
 * block with mo's tag for 'DOWN' and {Name, Node} for a monitor by name. */
static Message *down_message(Monitor *mo, Message *m) {
    if (!mo->tag && mo->name == NIL) return m;
    Term *old = tuple_elems(m->term);
    Term tag = mo->tag ? mo->tag->term : ATOM_TERM(DOWN);
    size_t nt = copy_size(tag), nr = copy_size(old[4]), bins1 = 0, bins2 = 0;
    /* {Tag, Ref, process, Object, Reason}, {Name, Node}, Ref, Tag, Reason */
    Message *d = message_alloc(6 + 3 + REF_WORDS + nt + nr);
    Term *hp = d->mem;
    Term obj = old[3];
    if (mo->name != NIL) {
        hp[6] = make_tuple_header(2); hp[7] = mo->name; hp[8] = dist_this_node();
        obj = make_boxed(hp + 6);
    } else {
        hp[6] = hp[7] = hp[8] = NIL;       /* unused words stay terms */
    }
    hp[0] = make_tuple_header(5);
    hp[1] = copy_term_bins(tag, hp + 9 + REF_WORDS, &bins1);
    hp[2] = make_ref_at(hp + 9, mo->ref);
    hp[3] = ATOM_TERM(process);
    hp[4] = obj;
    hp[5] = copy_term_bins(old[4], hp + 9 + REF_WORDS + nt, &bins2);
    d->term = make_boxed(hp);
    d->bins = bins1 || bins2;
    proc_message_free(m);
    return d;
}

/* Acts on one signal; returns 1 if *mp became a message to queue (it may
 * have been replaced by another block). */
static int handle_signal(Process *p, Message **mp) {
    Message *m = *mp;
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
        proc_link_add(p, sig_from(m));
        break;
    case SIG_UNLINK:
        link_remove(p, sig_from(m));
        break;
    case SIG_MONITOR:
        proc_monitor_add(p, sig_ref(m), sig_from(m), 0);
        break;
    case SIG_DEMONITOR: {
        Monitor *mo = proc_monitor_find(p, sig_ref(m), MON_IN);
        if (mo) proc_monitor_drop(p, mo);
        break;
    }
    case SIG_TIMEOUT:
        if (sig_ref(m) == p->wait_ref) p->timed_out = 1;
        break;
    case SIG_GC:            /* the scheduler collects: it knows the live registers */
        p->gc_requested = GC_REQUEST_FULL;
        break;
    case SIG_INFO: {
        Term info = info_answer(p, m->term, m->link);   /* THE_NON_VALUE: no memory */
        if (info != THE_NON_VALUE && info_reply(p, m, info)) break;
        info_refuse(m);                     /* m became the answer */
        return 0;
    }
    case SIG_DOWN: {
        Monitor *mo = proc_monitor_find(p, sig_ref(m), MON_OUT);
        if (!mo) break;                     /* demonitored meanwhile */
        *mp = down_message(mo, m);
        monitor_end(p, mo);
        return 1;
    }
    case SIG_ALIAS: {
        Monitor *mo = proc_alias_find(p, sig_ref(m));
        if (!mo) break;                                /* unaliased: dropped */
        if (mo->alias == ALIAS_REPLY_DEMONITOR && mo->out == MON_OUT) {
            proc_demonitor(p, mo->ref);
        } else if (mo->alias == ALIAS_REPLY || mo->alias == ALIAS_REPLY_DEMONITOR) {
            proc_alias_forget(mo->ref);
            mo->alias = ALIAS_NONE;
            if (mo->out == MON_ALIAS) proc_monitor_drop(p, mo);
        }
        return 1;
    }
    case SIG_GROUP_LEADER:
        p->group_leader = sig_from(m);
        break;
    }
    proc_message_free(m);
    return 0;
}

void proc_drain(Process *p) {
    InboxBatch b;
    if (!mailbox_take_batch(&p->mbox, &b)) return;
    if (!b.signals) { mailbox_append_batch(&p->mbox, &b); return; }
    for (Message *m = b.first, *next; m; m = next) {
        next = m->next;
        if (m->kind == MSG_PLAIN || handle_signal(p, &m)) {
            m->kind = MSG_PLAIN;
            mailbox_append(&p->mbox, m);
        }
    }
}

void proc_remove_message(Process *p) {
    Message *m = mailbox_remove(&p->mbox);
    if (is_immed(m->term)) proc_message_free(m);
    else heap_attach_frag(p, m);         /* mailbox_remove cleared m->next */
}

/* p is dead and out of the table: no signal can reach it after this.
 * Answers the ones that came too late, then tells links and monitors. */
void proc_signal_exit(Process *p, Term reason) {
    for (Message *m = mailbox_close(&p->mbox), *next; m; m = next) {
        next = m->next;
        if (m->kind == SIG_LINK) send_exit(p->pid, sig_from(m), reason, 1);
        else if (m->kind == SIG_MONITOR) send_down(sig_from(m), sig_ref(m), p->pid, reason);
        else if (m->kind == SIG_INFO) { info_refuse(m); continue; }
        proc_message_free(m);
    }
    proc_signal_links_exit(p, reason);
}

void proc_signal_links_exit(Process *p, Term reason) {
    for (int i = 0; i < p->nlinks; i++) send_exit(p->pid, p->links[i], reason, 1);
    p->nlinks = 0;
    for (int i = 0; i < p->nmonitors; i++) {
        Monitor *mo = &p->monitors[i];
        if (mo->out == MON_OUT && mo->pid != NIL) send_signal(p->pid, mo->pid, SIG_DEMONITOR, mo->ref);
        else if (mo->out == MON_IN) send_down(mo->pid, mo->ref, p->pid, reason);
        if (mo->alias != ALIAS_NONE) proc_alias_forget(mo->ref);
        if (mo->tag) proc_message_free(mo->tag);
    }
    p->nmonitors = 0;
}
