/* port.c — the port core: opening and closing ports, the commands processes
 * give them, their turn on a scheduler, and the driver API of driver.h.
 *
 * Who touches what. A port's state (its driver state, links, owner, scratch
 * heap) is touched only with its lock held: by a process giving it a
 * command (on that process's scheduler) or by the port's own turn
 * (port_task_run, on whichever scheduler picked it). The lock is never held
 * by a thread that is not a scheduler: an async thread or a scheduler polling only
 * pushes a block to the port's inbox (one CAS) and, if the port was
 * waiting, makes it runnable (sched_wake_external).
 *
 * Lifetime. Closing (for any reason) stops the driver, takes the port out
 * of the table (no new lookup finds it) and sends the exit signals to its
 * links at once. The record stays until every async job it gave has come
 * back (each is dropped with its free_data); then the port's own turn
 * closes its inbox, answers late signals (a late link gets noproc) and
 * drops the table's reference. The Port struct goes with the record's last
 * reference (port_record_free), so a command racing with the close finds a
 * locked, closed port and raises badarg.
 */
#include <stdlib.h>
#include <string.h>

#include "port.h"
#include "atom.h"
#include "binary.h"
#include "bif.h"
#include "copy.h"
#include "heap.h"
#include "outbuf.h"
#include "proc.h"
#include "sched.h"
#include "term_build.h"

static Term bad(Process *p, Term reason) { return bif_raise(p, EXC_ERROR, reason); }

/* ---- the scratch heap and callbacks ---- */

/* Drops what the driver built on the port's heap: every message sent was a
 * copy, so nothing there is referred to any more. */
static void scratch_reset(Process *pp) {
    binary_release_all(pp);
    heap_free_frags(pp);
    pp->htop = pp->heap;
}

static void close_locked(struct Port *pt, Term reason);

static void cb_begin(struct Port *pt) { pt->in_callback = 1; }

static void cb_end(struct Port *pt) {
    pt->in_callback = 0;
    scratch_reset(pt->proc);
    if (pt->failure) {
        Message *f = pt->failure;
        pt->failure = NULL;
        close_locked(pt, f->term);
        proc_message_free(f);
    }
}

/* ---- closing ---- */

/* Makes the port's turn come, so that it can finish closing (a BIF closed
 * it; the turn frees the record once no job is out). */
static void poke_task(Process *pp) {
    Message *m = heap_bare_new();
    if (!m) return;                           /* the next completion will do */
    m->size = 0; m->used = 0; m->bins = 0; m->link = 0;
    m->kind = SIG_PORT_TASK; m->term = NIL; m->next = NULL;
    int r = mailbox_push(&pp->mbox, m);
    if (r == 1) sched_wake(pp);
    else if (r < 0) proc_message_free(m);
}

static __thread Process *task_self;

static void close_locked(struct Port *pt, Term reason) {
    if (atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_CLOSED) return;
    atomic_store(&pt->state, PORT_CLOSED);
    if (pt->drv->stop) pt->drv->stop(pt->drv_data);
    pt->drv_data = NULL;
    poll_port_closed(pt);
    scratch_reset(pt->proc);
    proc_table_remove(pt->proc);
    proc_signal_links_exit(pt->proc, reason);
    if (task_self != pt->proc) poke_task(pt->proc);
}

void port_record_free(Process *pp) {
    struct Port *pt = pp->port;
    if (!pt) return;
    pp->port = NULL;
    pthread_mutex_destroy(&pt->lock);
    if (pt->failure) proc_message_free(pt->failure);
    free(pt->name);
    free(pt);
}

/* ---- finding a port ---- */

/* The open port `port` locked, with a reference held (port_put drops
 * both); NULL if it is not an open port. */
static struct Port *port_get(Term port) {
    Process *pp = proc_lookup_port(port);
    if (!pp) return NULL;
    struct Port *pt = pp->port;
    pthread_mutex_lock(&pt->lock);
    if (atomic_load_explicit(&pt->state, memory_order_relaxed) != PORT_OPEN) {
        pthread_mutex_unlock(&pt->lock);
        proc_release(pp);
        return NULL;
    }
    return pt;
}

static void port_put(struct Port *pt) {
    Process *pp = pt->proc;
    pthread_mutex_unlock(&pt->lock);
    proc_release(pp);
}

/* ---- open_port ---- */

static int is_flat_string(Term t) {
    for (; is_list(t); t = list_tail(t))
        if (!is_small(list_head(t)) || small_val(list_head(t)) < 0 || small_val(list_head(t)) > 255)
            return 0;
    return is_nil(t);
}

/* The command of {spawn_driver, Cmd} and friends as C text: a string, a
 * binary or an atom; 0 if it is none. */
static int command_text(Term t, OutBuf *b) {
    if (is_atom(t)) { size_t n; const char *s = atom_name(t, &n); ob_write(b, s, n); return 1; }
    if (is_binary(t)) { size_t n; const unsigned char *d = bin_bytes(t, &n); ob_write(b, (const char *)d, n); return 1; }
    if (!is_flat_string(t)) return 0;
    for (; is_list(t); t = list_tail(t)) ob_putc(b, (int)small_val(list_head(t)));
    return 1;
}

/* open_port's options, checked as Erlang checks them (any other is badarg). */
static int opts_parse(Term l, DrvOpts *o) {
    memset(o, 0, sizeof *o);
    o->use_stdio = 1; o->in = 1; o->out = 1;
    o->opts = l;
    int in_only = 0, out_only = 0;
    for (; is_list(l); l = list_tail(l)) {
        Term x = list_head(l);
        if (x == ATOM_TERM(binary)) o->binary = 1;
        else if (x == ATOM_TERM(stream)) { o->packet = 0; o->line = 0; }
        else if (x == ATOM_TERM(exit_status)) o->exit_status = 1;
        else if (x == ATOM_TERM(use_stdio)) o->use_stdio = 1;
        else if (x == ATOM_TERM(nouse_stdio)) o->use_stdio = 0;
        else if (x == ATOM_TERM(stderr_to_stdout)) o->stderr_to_stdout = 1;
        else if (x == ATOM_TERM(eof)) o->eof = 1;
        else if (x == ATOM_TERM(in)) in_only = 1;
        else if (x == ATOM_TERM(out)) out_only = 1;
        else if (x == ATOM_TERM(hide) || x == ATOM_TERM(overlapped_io)) continue;
        else if (is_tuple(x) && tuple_arity(x) == 2) {
            Term k = tuple_elems(x)[0], v = tuple_elems(x)[1];
            if (k == ATOM_TERM(packet)) {
                if (!is_small(v) || (small_val(v) != 1 && small_val(v) != 2 && small_val(v) != 4)) return 0;
                o->packet = (int)small_val(v);
            } else if (k == ATOM_TERM(line)) {
                if (!is_small(v) || small_val(v) < 1 || small_val(v) > (1 << 30)) return 0;
                o->line = (int)small_val(v);
            } else if (k == ATOM_TERM(args) || k == ATOM_TERM(env)) {
                if (!is_list(v) && !is_nil(v)) return 0;
            } else if (k == ATOM_TERM(arg0) || k == ATOM_TERM(cd)) {
                if (!is_list(v) && !is_nil(v) && !is_binary(v)) return 0;
            } else if (k == ATOM_TERM(parallelism)) {
                if (v != AM_true && v != AM_false) return 0;
            } else if (k == ATOM_TERM(busy_limits_port) || k == ATOM_TERM(busy_limits_msgq)) {
                continue;
            } else {
                return 0;
            }
        } else {
            return 0;
        }
    }
    if (!is_nil(l)) return 0;
    if (in_only && !out_only) o->out = 0;
    if (out_only && !in_only) o->in = 0;
    return 1;
}

Term port_open(Process *p, Term name, Term opts) {
    if (!is_tuple(name) || tuple_arity(name) != 2) return bad(p, AM_badarg);
    Term kind = tuple_elems(name)[0];
    DrvOpts o;
    if (!opts_parse(opts, &o)) return bad(p, AM_badarg);
    OutBuf cmd;
    ob_init(&cmd);
    if (!command_text(tuple_elems(name)[1], &cmd) || cmd.len == 0) { ob_free(&cmd); return bad(p, AM_badarg); }
    const char *text = ob_cstr(&cmd);
    const DrvEntry *drv = NULL;
    if (kind == ATOM_TERM(spawn_driver)) {
        size_t n = strcspn(text, " ");
        drv = port_driver_find(text, n);
    } else if (kind == ATOM_TERM(spawn) || kind == ATOM_TERM(spawn_executable)) {
        /* external programs: the driver of that name, when one is linked in */
        size_t n;
        const char *dn = atom_name(kind, &n);
        drv = port_driver_find(dn, n);
    }
    if (!drv) { ob_free(&cmd); return bad(p, AM_badarg); }

    Process *pp = process_new_memory(MIN_HEAP_SIZE);
    struct Port *pt = calloc(1, sizeof *pt);
    if (!pp || !pt) { free(pt); if (pp) process_free_memory(pp); ob_free(&cmd); return bad(p, ATOM_TERM(system_limit)); }
    mailbox_init(&pp->mbox);
    mailbox_try_wait(&pp->mbox);          /* the first signal makes it runnable */
    atomic_store_explicit(&pp->refc, 1, memory_order_release);
    pp->reg_name = NIL;
    pp->prio = PRIO_NORMAL;
    pp->exit_reason = THE_NON_VALUE;
    pp->port = pt;
    pthread_mutex_init(&pt->lock, NULL);
    pt->proc = pp;
    pt->drv = drv;
    pt->binary = o.binary;
    pt->os_pid = -1;
    pt->name = strdup(text);
    atomic_store(&pt->connected, p->pid);
    pthread_mutex_lock(&pt->lock);
    if (!proc_table_insert_port(pp)) {
        pthread_mutex_unlock(&pt->lock);
        proc_release(pp);
        ob_free(&cmd);
        return bad(p, ATOM_TERM(system_limit));
    }
    pt->async_key = (unsigned)(port_val(pp->pid) * 2654435761u);
    Term err = AM_badarg;
    cb_begin(pt);
    pt->drv_data = drv->start(pt, text, &o, &err);
    ob_free(&cmd);
    if (!pt->drv_data) {
        /* never ran: nobody else can have it queued, so it ends here */
        pt->in_callback = 0;
        atomic_store(&pt->state, PORT_CLOSED);
        scratch_reset(pp);
        proc_table_remove(pp);
        proc_signal_exit(pp, ATOM_TERM(noproc));
        pthread_mutex_unlock(&pt->lock);
        proc_release(pp);
        return bad(p, err);
    }
    proc_link_add(pp, p->pid);
    proc_link_add(p, pp->pid);
    Term id = pp->pid;
    cb_end(pt);
    pthread_mutex_unlock(&pt->lock);
    return id;
}

/* ---- commands ---- */

/* Data given to the driver: an iolist flattened (0 if it is not one). */
static int data_bytes(Term data, OutBuf *b) {
    ob_init(b);
    if (bin_iolist_bytes(b, data) < 0) { ob_free(b); return 0; }
    return 1;
}

static int do_output(struct Port *pt, Term data) {
    OutBuf b;
    if (!pt->drv->output || !data_bytes(data, &b)) return 0;
    pt->output += b.len;
    cb_begin(pt);
    pt->drv->output(pt->drv_data, b.buf ? b.buf : "", b.len);
    cb_end(pt);
    ob_free(&b);
    return 1;
}

/* Sends {Port, Tag} to pid from the port (an immediate tag). */
static void reply_tag(struct Port *pt, Term pid, Term tag) {
    Term *hp = heap_alloc(pt->proc, 3);
    hp[0] = make_tuple_header(2); hp[1] = pt->proc->pid; hp[2] = tag;
    proc_send(NULL, pid, make_boxed(hp));
    scratch_reset(pt->proc);
}

/* The owner becomes pid (the old owner stays linked). port_connect/2 also
 * links the port to it, and a dead pid then closes the port, as Erlang's
 * link does; the {connect, Pid} message only changes the owner (Erlang 25). */
static void connect_locked(struct Port *pt, Term pid, int link) {
    atomic_store(&pt->connected, pid);
    if (link && proc_link(pt->proc, pid) < 0) close_locked(pt, ATOM_TERM(normal));
}

void port_send(Process *p, Term port, Term msg) {
    struct Port *pt = port_get(port);
    if (!pt) return;                     /* to a closed port: dropped, as in Erlang */
    int ok = 0;
    if (is_tuple(msg) && tuple_arity(msg) == 2 && tuple_elems(msg)[0] == atomic_load(&pt->connected)) {
        Term from = tuple_elems(msg)[0], x = tuple_elems(msg)[1];
        if (x == ATOM_TERM(close)) {
            close_locked(pt, ATOM_TERM(normal));
            reply_tag(pt, from, ATOM_TERM(closed));
            ok = 1;
        } else if (is_tuple(x) && tuple_arity(x) == 2 && tuple_elems(x)[0] == ATOM_TERM(command)) {
            ok = do_output(pt, tuple_elems(x)[1]);
        } else if (is_tuple(x) && tuple_arity(x) == 2 && tuple_elems(x)[0] == ATOM_TERM(connect) &&
                   is_pid(tuple_elems(x)[1])) {
            connect_locked(pt, tuple_elems(x)[1], 0);
            reply_tag(pt, from, ATOM_TERM(connected));
            ok = 1;
        }
    }
    port_put(pt);
    /* a message the port does not understand: it answers with an exit
     * signal to the sender, as Erlang's ports do */
    if (!ok) proc_send_exit(port, p->pid, ATOM_TERM(badsig), 0);
}

Term port_command(Process *p, Term port, Term data, Term opts) {
    int force = 0;
    Term l = opts;
    for (; is_list(l); l = list_tail(l)) {
        if (list_head(l) == ATOM_TERM(force)) force = 1;
        else if (list_head(l) != ATOM_TERM(nosuspend)) return bad(p, AM_badarg);
    }
    if (!is_nil(l) || !is_port(port)) return bad(p, AM_badarg);
    struct Port *pt = port_get(port);
    if (!pt) return bad(p, AM_badarg);
    /* no driver here has a busy state to override */
    if (force) { port_put(pt); return bad(p, ATOM_TERM(notsup)); }
    int ok = do_output(pt, data);
    port_put(pt);
    return ok ? AM_true : bad(p, AM_badarg);
}

static Term bytes_list(Process *p, const char *s, size_t n) {
    Term *hp = heap_alloc(p, 2 * n), l = NIL;
    for (size_t i = n; i-- > 0;) {
        hp[2 * i] = make_small((unsigned char)s[i]);
        hp[2 * i + 1] = l;
        l = make_list(hp + 2 * i);
    }
    return l;
}

Term port_control(Process *p, Term port, Term op, Term data) {
    if (!is_port(port) || !is_small(op) || small_val(op) < 0 || small_val(op) > 0xFFFFFFFFL)
        return bad(p, AM_badarg);
    OutBuf b;
    if (!data_bytes(data, &b)) return bad(p, AM_badarg);
    struct Port *pt = port_get(port);
    if (!pt) { ob_free(&b); return bad(p, AM_badarg); }
    long n = -1;
    char small[256];
    DrvBuf rb = { small, sizeof small };
    if (pt->drv->control) {
        pt->caller = p->pid;
        cb_begin(pt);
        n = pt->drv->control(pt->drv_data, (unsigned)small_val(op), b.buf ? b.buf : "", b.len, &rb);
        cb_end(pt);
        pt->caller = 0;
    }
    port_put(pt);
    ob_free(&b);
    if (n < 0) {
        if (rb.buf != small) free(rb.buf);
        return bad(p, AM_badarg);
    }
    Term r = bytes_list(p, rb.buf, (size_t)n);
    if (rb.buf != small) free(rb.buf);
    return r;
}

Term port_close(Process *p, Term port) {
    if (!is_port(port)) return bad(p, AM_badarg);
    struct Port *pt = port_get(port);
    if (!pt) return bad(p, AM_badarg);
    close_locked(pt, ATOM_TERM(normal));
    port_put(pt);
    return AM_true;
}

Term port_connect(Process *p, Term port, Term pid) {
    if (!is_port(port) || !is_pid(pid)) return bad(p, AM_badarg);
    struct Port *pt = port_get(port);
    if (!pt) return bad(p, AM_badarg);
    connect_locked(pt, pid, 1);
    port_put(pt);
    return AM_true;
}

/* link(Port) and unlink(Port) act on the port at once, as Erlang's port
 * signals do before the BIF returns, so a port_info right after sees them. */
int port_link(Process *p, Term port) {
    struct Port *pt = port_get(port);
    if (!pt) return -1;
    proc_link_add(pt->proc, p->pid);
    proc_link_add(p, port);
    port_put(pt);
    return 0;
}

void port_unlink(Process *p, Term port) {
    proc_link_remove(p, port);
    struct Port *pt = port_get(port);
    if (!pt) return;
    proc_link_remove(pt->proc, p->pid);
    port_put(pt);
}

/* ---- port_info ---- */

static const Term *info_items(void) {
    static Term items[7];
    if (!items[0]) {
        items[0] = ATOM_TERM(name); items[1] = ATOM_TERM(links); items[2] = ATOM_TERM(id);
        items[3] = ATOM_TERM(connected); items[4] = ATOM_TERM(input); items[5] = ATOM_TERM(output);
        items[6] = ATOM_TERM(os_pid);
    }
    return items;
}

static Term uint_term(Process *p, UWord n) {
    if (n <= (UWord)MAX_SMALL) return make_small(n);
    Term *hp = heap_alloc(p, 2);
    hp[0] = make_header(1, BOXED_POS_BIG); hp[1] = n;
    return make_boxed(hp);
}

/* The value of one item (pt locked); THE_NON_VALUE if it is no item. */
static Term info_value(Process *p, struct Port *pt, Term item) {
    Process *pp = pt->proc;
    if (item == ATOM_TERM(name)) return bytes_list(p, pt->name, strlen(pt->name));
    if (item == ATOM_TERM(links)) {
        Term l = NIL;
        for (int i = pp->nlinks - 1; i >= 0; i--) l = cons(p, pp->links[i], l);
        return l;
    }
    if (item == ATOM_TERM(id)) return make_small(port_val(pp->pid));
    if (item == ATOM_TERM(connected)) return atomic_load(&pt->connected);
    if (item == ATOM_TERM(input)) return uint_term(p, pt->input);
    if (item == ATOM_TERM(output)) return uint_term(p, pt->output);
    if (item == ATOM_TERM(os_pid)) return pt->os_pid < 0 ? AM_undefined : make_small(pt->os_pid);
    if (item == ATOM_TERM(registered_name)) return NIL;
    if (item == ATOM_TERM(memory)) return make_small(sizeof *pt + sizeof *pp);
    if (item == ATOM_TERM(queue_size)) return make_small(0);
    if (item == ATOM_TERM(locking)) return ATOM_TERM(port_level);
    if (item == ATOM_TERM(parallelism)) return AM_false;
    if (item == ATOM_TERM(monitors) || item == ATOM_TERM(monitored_by)) return NIL;
    return THE_NON_VALUE;
}

Term port_info(Process *p, Term port, Term item) {
    if (!is_port(port)) return bad(p, AM_badarg);
    if (item != NIL) {
        if (!is_atom(item)) return bad(p, AM_badarg);
        struct Port *pt = port_get(port);
        if (!pt) {
            /* closed: undefined, but only for an item that exists */
            int known = item == ATOM_TERM(registered_name) || item == ATOM_TERM(memory) ||
                        item == ATOM_TERM(queue_size) || item == ATOM_TERM(locking) ||
                        item == ATOM_TERM(parallelism) || item == ATOM_TERM(monitors) ||
                        item == ATOM_TERM(monitored_by);
            for (int i = 0; i < 7; i++) known |= info_items()[i] == item;
            return known ? AM_undefined : bad(p, AM_badarg);
        }
        Term v = info_value(p, pt, item);
        port_put(pt);
        if (v == THE_NON_VALUE) return bad(p, AM_badarg);
        return tuple2(p, item, v);
    }
    struct Port *pt = port_get(port);
    if (!pt) return AM_undefined;
    Term l = NIL;
    for (int i = 6; i >= 0; i--) {
        Term k = info_items()[i];
        l = cons(p, tuple2(p, k, info_value(p, pt, k)), l);
    }
    port_put(pt);
    return l;
}

/* ---- the port's turn ---- */

static void on_exit_signal(struct Port *pt, Message *m) {
    Process *pp = pt->proc;
    Term from = proc_signal_from(m), reason = tuple_elems(m->term)[2];
    if (m->link) {
        /* a linked process died: its owner's death closes the port for
         * any reason; another's only for a reason other than normal */
        if (!proc_link_has(pp, from)) return;
        proc_link_remove(pp, from);
        if (from == atomic_load(&pt->connected) || reason != ATOM_TERM(normal)) close_locked(pt, reason);
    } else {
        /* exit(Port, R) closes it for any reason, normal too (Erlang 25) */
        close_locked(pt, reason == ATOM_TERM(kill) ? ATOM_TERM(killed) : reason);
    }
}

static void on_async_done(struct Port *pt, Message *m) {
    AsyncJob *j = async_job(m);
    pt->outstanding--;
    sched_outside_work(-1);
    if (atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_OPEN && pt->drv->ready_async) {
        cb_begin(pt);
        pt->drv->ready_async(pt->drv_data, j->data);
        cb_end(pt);
    } else if (j->free_data) {
        j->free_data(j->data);             /* the port closed meanwhile: dropped */
    }
}

static void on_io_ready(struct Port *pt, Message *m) {
    int fd = (int)m->mem[0], mode = (int)m->mem[1];
    if (atomic_load_explicit(&pt->state, memory_order_relaxed) != PORT_OPEN) return;
    cb_begin(pt);
    if ((mode & DRV_READ) && pt->drv->ready_input) pt->drv->ready_input(pt->drv_data, fd);
    if ((mode & DRV_WRITE) && pt->drv->ready_output && pt->state == PORT_OPEN)
        pt->drv->ready_output(pt->drv_data, fd);
    cb_end(pt);
    /* the fd was disarmed when reported (poll.c): arm it again, so that
     * what the callback left unread is reported once more */
    poll_io_done(pt, fd);
}

int port_task_run(Process *pp) {
    struct Port *pt = pp->port;
    pthread_mutex_lock(&pt->lock);
    task_self = pp;
    /* one batch: everything the inbox holds now, oldest first */
    for (Message *m = mailbox_take_inbox(&pp->mbox), *next; m; m = next) {
        next = m->next;
        int open = atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_OPEN;
        switch (m->kind) {
        case SIG_PORT_ASYNC: on_async_done(pt, m); break;
        case SIG_PORT_IO: on_io_ready(pt, m); break;
        case SIG_EXIT: if (open) on_exit_signal(pt, m); break;
        case SIG_LINK:
            if (open) proc_link_add(pp, proc_signal_from(m));
            else proc_send_exit(pp->pid, proc_signal_from(m), ATOM_TERM(noproc), 1);
            break;
        case SIG_UNLINK: proc_link_remove(pp, proc_signal_from(m)); break;
        default: break;      /* monitors, timeouts, stray messages: nothing */
        }
        proc_message_free(m);
    }
    task_self = NULL;
    if (atomic_load_explicit(&pt->state, memory_order_relaxed) == PORT_CLOSED && pt->outstanding == 0) {
        /* nothing will come back: the end (late links get noproc) */
        proc_signal_exit(pp, ATOM_TERM(noproc));
        pthread_mutex_unlock(&pt->lock);
        proc_release(pp);
        return 0;
    }
    pthread_mutex_unlock(&pt->lock);
    return 1;
}

/* ---- the driver API (driver.h) ---- */

Term *driver_heap(DrvPort *port, size_t words) { return heap_alloc(port->proc, words); }

Term driver_binary(DrvPort *port, const void *bytes, size_t len) {
    return bin_from_bytes(port->proc, bytes, len);
}

Term driver_port_term(DrvPort *port) { return port->proc->pid; }
Term driver_connected(DrvPort *port) { return atomic_load(&port->connected); }
void driver_set_os_pid(DrvPort *port, long pid) { port->os_pid = pid; }

void driver_send(DrvPort *port, Term to, Term msg) { (void)port; proc_send(NULL, to, msg); }

Term driver_caller(DrvPort *port) { return port->caller ? port->caller : atomic_load(&port->connected); }

void driver_output_term(DrvPort *port, Term t) {
    Term *hp = heap_alloc(port->proc, 3);
    hp[0] = make_tuple_header(2); hp[1] = port->proc->pid; hp[2] = t;
    proc_send(NULL, atomic_load(&port->connected), make_boxed(hp));
}

void driver_output(DrvPort *port, const char *buf, size_t len) {
    Process *pp = port->proc;
    port->input += len;
    Term d = port->binary ? bin_from_bytes(pp, buf, len) : bytes_list(pp, buf, len);
    Term *hp = heap_alloc(pp, 3);
    hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(data); hp[2] = d;
    driver_output_term(port, make_boxed(hp));
}

void driver_failure(DrvPort *port, Term reason) {
    if (port->failure) return;
    port->failure = proc_message_copy(reason);
    if (!port->in_callback) cb_end(port);
}

void driver_close_quiet(DrvPort *port) {
    Process *pp = port->proc;
    while (pp->nlinks > 0) proc_unlink(pp, pp->links[pp->nlinks - 1]);
    driver_failure(port, ATOM_TERM(normal));
}

int driver_async(DrvPort *port, void (*work)(void *), void *data, void (*free_data)(void *)) {
    Message *m = heap_frag_new(ASYNC_JOB_WORDS);
    if (!m) return -1;
    m->used = ASYNC_JOB_WORDS; m->bins = 0; m->link = 0;
    m->kind = SIG_PORT_ASYNC; m->term = NIL; m->next = NULL;
    AsyncJob *j = async_job(m);
    j->work = work; j->data = data; j->free_data = free_data; j->port = port->proc;
    port->outstanding++;
    sched_outside_work(1);
    if (async_thread_count() > 0) {
        async_submit(port->async_key, m);
        return 0;
    }
    /* +A 0: the work here and now; the completion still comes through the
     * inbox, at the port's next turn, as it would from a thread */
    work(data);
    if (mailbox_push(&port->proc->mbox, m) == 1) sched_wake(port->proc);
    return 0;
}

void async_job_complete(Message *m) {
    AsyncJob *j = async_job(m);
    Process *pp = j->port;
    j->work(j->data);
    /* The push tells whether the port waits; only then may we touch it
     * again (it cannot run, let alone end, until someone makes it
     * runnable). Its inbox stays open while a job is out. */
    if (mailbox_push(&pp->mbox, m) == 1) sched_inject(pp);   /* woken by async_main's settle */
}

void port_io_ready(DrvPort *port, int fd, int mode) {
    Process *pp = port->proc;
    Message *m = heap_frag_new(2);
    if (!m) return;
    m->used = 2; m->bins = 0; m->link = 0;
    m->kind = SIG_PORT_IO; m->term = NIL; m->next = NULL;
    m->mem[0] = (Term)fd; m->mem[1] = (Term)mode;
    int r = mailbox_push(&pp->mbox, m);
    if (r == 1) sched_wake_external(pp);
    else if (r < 0) proc_message_free(m);
}
