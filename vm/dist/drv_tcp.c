/* drv_tcp.c — TCP sockets as ports: the driver `tcp_inet` behind gen_tcp
 * (stdlib/gen_tcp.mini and stdlib/inet.mini speak the protocol of
 * inet_sock.h to it).
 *
 * No thread per socket and no blocking call: the fd is non-blocking and the
 * poller (vm/io/poll.c) says when it is readable or writable. The fd is
 * selected for reading only while somebody wants data (the socket is active,
 * or a recv waits) or an accept waits, so a passive socket nobody reads
 * leaves its data in the kernel, which pushes back on the peer, as Erlang's
 * does. Reads are bounded per callback (READ_TURN), so one busy socket
 * shares its scheduler.
 *
 * Operations that wait (accept, connect, recv) answer 'w' with a reference
 * and later send {inet_async, S, Ref, Result} to the process that asked;
 * the caller's timeout cancels (INET_OP_CANCEL). Sends are written at once;
 * what the kernel does not take waits in a queue, written when the fd is
 * writable; past QUEUE_HIGH the sender waits for {inet_reply, S, ok}, sent
 * when the queue is below QUEUE_LOW.
 *
 * The peer's close, as Erlang 25 does it (exit_on_close): an active socket
 * sends {tcp_closed, S} and the port closes, quietly (no exit signal); a
 * recv gets {error, closed} and the port stays, every later recv answering
 * {error, enotconn} and every send {error, closed}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inet_sock.h"
#include "atom.h"
#include "proc.h"

enum { READ_CHUNK = 65536, READ_TURN = 4 * READ_CHUNK };
enum { QUEUE_HIGH = 1 << 20, QUEUE_LOW = 1 << 16 };
enum { ST_OPEN, ST_LISTEN, ST_CONNECTING, ST_CONNECTED, ST_PEER_CLOSED };

typedef struct Waiter { Term pid; uint32_t ref; } Waiter;

typedef struct Tcp {
    DrvPort *port;
    int fd, state;
    InetOpts o;
    int rsel, wsel;              /* selected for reading / writing */
    uint32_t next_ref;
    OutBuf in;                   /* read, still to deliver */
    size_t in_off;
    int eof;                     /* the peer closed (seen by a read) */
    int recv_waiting;            /* one recv at a time, as inet_drv */
    Waiter recv;
    size_t recv_len;
    Waiter conn;                 /* ST_CONNECTING's caller */
    Waiter *acc;                 /* accepts waiting, oldest first */
    int nacc, acc_cap;
    OutBuf out;                  /* bytes the kernel has not taken */
    size_t out_off;
    int busy;                    /* a sender waits for the queue to drain */
    Waiter busy_w;
    int shut_after;              /* shutdown(write) once the queue is empty */
} Tcp;

static void sel_read(Tcp *t, int on) {
    if (t->rsel == on || t->fd < 0) return;
    if (driver_select(t->port, t->fd, DRV_READ, on) == 0) t->rsel = on;
}

static void sel_write(Tcp *t, int on) {
    if (t->wsel == on || t->fd < 0) return;
    if (driver_select(t->port, t->fd, DRV_WRITE, on) == 0) t->wsel = on;
}

/* {inet_async, S, Ref, Result} to w's process */
static void async_reply(Tcp *t, Waiter w, Term result) {
    Term *hp = driver_heap(t->port, 5);
    hp[0] = make_tuple_header(4); hp[1] = inet_atoms.inet_async; hp[2] = driver_port_term(t->port);
    hp[3] = make_small(w.ref); hp[4] = result;
    driver_send(t->port, w.pid, make_boxed(hp));
}

static Term tuple2_of(Tcp *t, Term a, Term b) {
    Term *hp = driver_heap(t->port, 3);
    hp[0] = make_tuple_header(2); hp[1] = a; hp[2] = b;
    return make_boxed(hp);
}

static Term error_of(Tcp *t, Term reason) { return tuple2_of(t, inet_atoms.error, reason); }

/* {Tag, S} or {Tag, S, X} to the owner */
static void owner_msg(Tcp *t, Term tag, Term x) {
    int n = x == THE_NON_VALUE ? 2 : 3;
    Term *hp = driver_heap(t->port, (size_t)n + 1);
    hp[0] = make_tuple_header(n); hp[1] = tag; hp[2] = driver_port_term(t->port);
    if (n == 3) hp[3] = x;
    driver_send(t->port, driver_connected(t->port), make_boxed(hp));
}

static void *tcp_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)opts;
    inet_atoms_init();
    int fd = inet_start_fd(command, SOCK_STREAM, err);
    if (fd < 0) return NULL;
    Tcp *t = calloc(1, sizeof *t);
    if (!t) { close(fd); *err = ATOM_TERM(system_limit); return NULL; }
    t->port = port;
    t->fd = fd;
    t->o.active = ACTIVE_TRUE;
    t->o.exit_on_close = 1;
    t->state = strstr(command, " accept ") ? ST_CONNECTED : ST_OPEN;
    ob_init(&t->in);
    ob_init(&t->out);
    return t;
}

static void tcp_stop(void *drv) {
    Tcp *t = drv;
    /* accepts and a recv still waiting are told, as Erlang tells them */
    for (int i = 0; i < t->nacc; i++) async_reply(t, t->acc[i], error_of(t, inet_atoms.closed));
    if (t->recv_waiting) async_reply(t, t->recv, error_of(t, inet_atoms.closed));
    if (t->busy) {
        /* a sender waiting for the queue to drain */
        Term *hp = driver_heap(t->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = inet_atoms.inet_reply; hp[2] = driver_port_term(t->port);
        hp[3] = error_of(t, inet_atoms.closed);
        driver_send(t->port, t->busy_w.pid, make_boxed(hp));
    }
    if (t->fd >= 0) {
        sel_read(t, 0);
        sel_write(t, 0);
        /* what the queue holds gets one last try; a peer that takes
         * nothing more does not hold the scheduler */
        if (t->out.len > t->out_off) (void)!send(t->fd, t->out.buf + t->out_off, t->out.len - t->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(t->fd);
    }
    ob_free(&t->in);
    ob_free(&t->out);
    free(t->acc);
    free(t);
}

/* ---- receiving ---- */

/* A whole packet at in_off: its data and how many bytes it takes; 0 if
 * the buffer holds none yet. */
static int packet_take(Tcp *t, const char **data, size_t *len, size_t *used) {
    const unsigned char *b = (const unsigned char *)t->in.buf + t->in_off;
    size_t avail = t->in.len - t->in_off;
    if (avail == 0) return 0;
    switch (t->o.packet) {
    case 0: {
        size_t want = t->recv_waiting && t->recv_len > 0 ? t->recv_len : avail;
        if (avail < want) return 0;
        *data = (const char *)b; *len = want; *used = want;
        return 1;
    }
    case PACKET_LINE: {
        const unsigned char *nl = memchr(b, '\n', avail);
        if (!nl) return 0;
        *data = (const char *)b; *len = *used = (size_t)(nl - b) + 1;
        return 1;
    }
    default: {
        size_t h = (size_t)t->o.packet, n = 0;
        if (avail < h) return 0;
        for (size_t i = 0; i < h; i++) n = n << 8 | b[i];
        if (avail - h < n) return 0;
        *data = (const char *)b + h; *len = n; *used = h + n;
        return 1;
    }
    }
}

static int wants_data(Tcp *t) {
    return t->state == ST_CONNECTED && (t->recv_waiting || t->o.active != ACTIVE_FALSE);
}

static void deliver(Tcp *t, const char *b, size_t n) {
    Term d = inet_data_term(t->port, t->o.binary, b, n);
    if (t->recv_waiting) {
        t->recv_waiting = 0;
        async_reply(t, t->recv, tuple2_of(t, inet_atoms.ok, d));
        return;
    }
    owner_msg(t, inet_atoms.tcp, d);
    if (t->o.active == ACTIVE_ONCE) t->o.active = ACTIVE_FALSE;
    else if (t->o.active > 0 && --t->o.active == 0) owner_msg(t, inet_atoms.tcp_passive, THE_NON_VALUE);
}

static void packets_out(Tcp *t) {
    const char *d;
    size_t n, used;
    while (wants_data(t) && packet_take(t, &d, &n, &used)) {
        deliver(t, d, n);
        t->in_off += used;
    }
    if (t->in_off == t->in.len) t->in.len = t->in_off = 0;
    else if (t->in_off > 0 && t->in_off >= t->in.len / 2) {
        memmove(t->in.buf, t->in.buf + t->in_off, t->in.len - t->in_off);
        t->in.len -= t->in_off;
        t->in_off = 0;
    }
}

/* The peer closed while somebody wanted data: what is left of a packet is
 * dropped (a peer that vanished mid-packet), and the waiter learns it. */
static void peer_closed(Tcp *t) {
    t->state = ST_PEER_CLOSED;
    t->in.len = t->in_off = 0;
    sel_read(t, 0);
    if (t->recv_waiting) {
        t->recv_waiting = 0;
        async_reply(t, t->recv, error_of(t, inet_atoms.closed));
        return;
    }
    owner_msg(t, inet_atoms.tcp_closed, THE_NON_VALUE);
    if (t->o.exit_on_close) driver_close_quiet(t->port);
}

/* Delivers what is buffered and reads while somebody wants data: at most
 * READ_TURN bytes; the rest is reported again by the poller. `polled`: the
 * poller said the fd is readable. The fd stays selected when nobody wants
 * data any more (a socket in {active, once} or recv after recv wants data
 * again at once, and selecting costs two epoll_ctl calls); it is deselected
 * when readiness comes and nobody wants it (tcp_ready_input). While it is
 * selected, a pump that the poller did not start does not try to read: the
 * poller will tell. */
static void pump(Tcp *t, int polled) {
    static __thread char buf[READ_CHUNK];
    for (size_t got = 0;;) {
        packets_out(t);
        if (!wants_data(t)) return;
        if (t->eof) { peer_closed(t); return; }
        if (!polled && t->rsel) return;
        if (got >= READ_TURN) { sel_read(t, 1); return; }
        ssize_t n = recv(t->fd, buf, sizeof buf, 0);
        if (n > 0) {
            got += (size_t)n;
            if (t->o.packet == 0 && t->in.len == t->in_off && !(t->recv_waiting && t->recv_len > (size_t)n)) {
                /* raw, nothing buffered: straight out */
                if (t->recv_waiting && t->recv_len > 0 && t->recv_len < (size_t)n) {
                    deliver(t, buf, t->recv_len);
                    ob_write(&t->in, buf + t->recv_len, (size_t)n - t->recv_len);
                } else {
                    deliver(t, buf, (size_t)n);
                }
                continue;
            }
            ob_write(&t->in, buf, (size_t)n);
        } else if (n == 0) {
            t->eof = 1;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            sel_read(t, 1);
            return;
        } else {
            t->eof = 1;          /* a reset: Erlang reports it as closed */
        }
    }
}

/* ---- accepting and connecting ---- */

static int alive(Term pid) {
    Process *p = proc_lookup(pid);
    if (p) proc_release(p);
    return p != NULL;
}

/* Accepts for the waiting acceptors, oldest first. One that has died
 * meanwhile is dropped first: the connection goes to a live one instead of
 * a message nobody reads (with the fd in it). */
static void accepts_run(Tcp *t) {
    while (t->nacc > 0) {
        if (!alive(t->acc[0].pid)) {
            memmove(t->acc, t->acc + 1, (size_t)--t->nacc * sizeof *t->acc);
            continue;
        }
        int fd = accept4(t->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) { sel_read(t, 1); return; }
            Waiter w = t->acc[0];
            memmove(t->acc, t->acc + 1, (size_t)--t->nacc * sizeof *t->acc);
            async_reply(t, w, error_of(t, inet_errno_atom(errno)));
            continue;
        }
        /* {ok, Fd, Opts}: the acceptor opens the new socket's port itself
         * (it is the owner) with the listening socket's options */
        OutBuf blob;
        ob_init(&blob);
        inet_opts_blob(t->fd, &t->o, &blob);
        Term *hp = driver_heap(t->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = inet_atoms.ok; hp[2] = make_small(fd);
        hp[3] = driver_binary(t->port, blob.buf ? blob.buf : "", blob.len);
        ob_free(&blob);
        Waiter w = t->acc[0];
        memmove(t->acc, t->acc + 1, (size_t)--t->nacc * sizeof *t->acc);
        async_reply(t, w, make_boxed(hp));
    }
    sel_read(t, 0);
}

static void connect_done(Tcp *t) {
    int e = 0;
    socklen_t l = sizeof e;
    if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0) e = errno;
    sel_write(t, 0);
    if (e) {
        t->state = ST_OPEN;
        async_reply(t, t->conn, error_of(t, inet_errno_atom(e)));
        return;
    }
    t->state = ST_CONNECTED;
    async_reply(t, t->conn, inet_atoms.ok);
    pump(t, 0);
}

/* ---- sending ---- */

static void drained(Tcp *t) {
    if (t->busy && t->out.len - t->out_off <= QUEUE_LOW) {
        t->busy = 0;
        Term *hp = driver_heap(t->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = inet_atoms.inet_reply; hp[2] = driver_port_term(t->port);
        hp[3] = inet_atoms.ok;
        driver_send(t->port, t->busy_w.pid, make_boxed(hp));
    }
}

/* Writes what is queued; 0, or an errno (the queue is dropped). */
static int flush_out(Tcp *t) {
    while (t->out_off < t->out.len) {
        ssize_t r = send(t->fd, t->out.buf + t->out_off, t->out.len - t->out_off, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) { sel_write(t, 1); drained(t); return 0; }
            int e = errno;
            t->out.len = t->out_off = 0;
            sel_write(t, 0);
            return e;
        }
        t->out_off += (size_t)r;
    }
    t->out.len = t->out_off = 0;
    sel_write(t, 0);
    drained(t);
    if (t->shut_after) { shutdown(t->fd, SHUT_WR); t->shut_after = 0; }
    return 0;
}

static long op_send(Tcp *t, const unsigned char *buf, size_t len, DrvBuf *r) {
    if (t->state == ST_PEER_CLOSED) return inet_reply_err(r, "closed");
    if (t->state != ST_CONNECTED) return inet_reply_err(r, "enotconn");
    int was_empty = t->out.len == t->out_off;
    if (t->o.packet != 0 && t->o.packet != PACKET_LINE) {
        size_t h = (size_t)t->o.packet;
        if (h < 4 && len >> (8 * h)) return inet_reply_err(r, "emsgsize");
        for (size_t i = h; i-- > 0;) ob_putc(&t->out, (int)((len >> (8 * i)) & 0xFF));
    }
    ob_write(&t->out, (const char *)buf, len);
    if (was_empty) {
        int e = flush_out(t);
        if (e) return inet_reply_err(r, e == EPIPE || e == ECONNRESET ? "closed" : inet_errno_name(e));
    }
    if (t->out.len - t->out_off > QUEUE_HIGH) {
        t->busy = 1;
        t->busy_w.pid = driver_caller(t->port);
        return inet_reply_ok(r, "b", 1);
    }
    return inet_reply_ok(r, NULL, 0);
}

/* ---- the control operations ---- */

/* `active` given as true, false or once (n_form 0), or as {active, N}
 * (n_form 1): N adds to a count, and a count that reaches 0 or less makes
 * the socket passive and tells the owner {tcp_passive, S}. */
static void set_active(Tcp *t, int v, int n_form) {
    if (!n_form) { t->o.active = v; return; }
    long n = (long)v + (t->o.active > 0 ? t->o.active : 0);
    if (n > 0) { t->o.active = n > 32767 ? 32767 : (int)n; return; }
    t->o.active = ACTIVE_FALSE;
    owner_msg(t, inet_atoms.tcp_passive, THE_NON_VALUE);
}

static long op_setopts(Tcp *t, const unsigned char *buf, size_t len, DrvBuf *r) {
    int aset, aval;
    if (t->state == ST_PEER_CLOSED) return inet_reply_err(r, "einval");
    int e = inet_setopts(t->fd, &t->o, buf, len, &aset, &aval);
    if (e) return inet_reply_errno(r, e);
    if (aset) set_active(t, aval, aset == 2);
    if (t->state == ST_CONNECTED) pump(t, 0);
    return inet_reply_ok(r, NULL, 0);
}

static long op_sockname(Tcp *t, int peer, DrvBuf *r) {
    if (t->state == ST_PEER_CLOSED && peer) return inet_reply_err(r, "enotconn");
    return inet_reply_sockname(t->fd, peer, r);
}

static long tcp_control(void *drv, unsigned cmd, const char *cbuf, size_t len, DrvBuf *r) {
    Tcp *t = drv;
    const unsigned char *buf = (const unsigned char *)cbuf, *end = buf + len;
    switch (cmd) {
    case INET_OP_BIND: {
        InetAddr a;
        if (!inet_addr_read(&buf, end, &a)) return inet_reply_err(r, "einval");
        if (bind(t->fd, (struct sockaddr *)&a.ss, a.len) < 0) return inet_reply_errno(r, errno);
        return inet_reply_ok(r, NULL, 0);
    }
    case INET_OP_LISTEN: {
        if (len != 4 || t->state != ST_OPEN) return inet_reply_err(r, "einval");
        if (listen(t->fd, (int)inet_get32(buf)) < 0) return inet_reply_errno(r, errno);
        t->state = ST_LISTEN;
        return inet_reply_ok(r, NULL, 0);
    }
    case INET_OP_CONNECT: {
        InetAddr a;
        if (!inet_addr_read(&buf, end, &a) || t->state != ST_OPEN) return inet_reply_err(r, "einval");
        Waiter w = { driver_caller(t->port), ++t->next_ref };
        int rc;
        do rc = connect(t->fd, (struct sockaddr *)&a.ss, a.len); while (rc < 0 && errno == EINTR);
        if (rc < 0 && errno != EINPROGRESS) return inet_reply_errno(r, errno);
        t->conn = w;
        t->state = ST_CONNECTING;
        sel_write(t, 1);               /* connect_done reads the outcome */
        return inet_reply_wait(r, w.ref);
    }
    case INET_OP_ACCEPT: {
        if (t->state != ST_LISTEN) return inet_reply_err(r, t->state == ST_PEER_CLOSED ? "closed" : "einval");
        if (t->nacc == t->acc_cap) {
            int c = t->acc_cap ? 2 * t->acc_cap : 4;
            Waiter *n = realloc(t->acc, (size_t)c * sizeof *n);
            if (!n) return inet_reply_err(r, "enomem");
            t->acc = n; t->acc_cap = c;
        }
        Waiter w = { driver_caller(t->port), ++t->next_ref };
        t->acc[t->nacc++] = w;
        accepts_run(t);
        return inet_reply_wait(r, w.ref);
    }
    case INET_OP_RECV: {
        if (len != 4) return inet_reply_err(r, "einval");
        if (t->state == ST_PEER_CLOSED) return inet_reply_err(r, "enotconn");
        if (t->state != ST_CONNECTED) return inet_reply_err(r, "enotconn");
        if (t->o.active != ACTIVE_FALSE) return inet_reply_err(r, "einval");
        if (t->recv_waiting) return inet_reply_err(r, "ealready");
        Waiter w = { driver_caller(t->port), ++t->next_ref };
        t->recv = w;
        t->recv_len = t->o.packet ? 0 : inet_get32(buf);
        t->recv_waiting = 1;
        pump(t, 0);                       /* often answers at once */
        return inet_reply_wait(r, w.ref);
    }
    case INET_OP_CANCEL: {
        if (len != 4) return inet_reply_err(r, "einval");
        uint32_t ref = inet_get32(buf);
        if (t->recv_waiting && t->recv.ref == ref) {
            t->recv_waiting = 0;
            if (t->o.active == ACTIVE_FALSE) sel_read(t, 0);
            return inet_reply_ok(r, NULL, 0);
        }
        for (int i = 0; i < t->nacc; i++)
            if (t->acc[i].ref == ref) {
                memmove(t->acc + i, t->acc + i + 1, (size_t)(t->nacc - i - 1) * sizeof *t->acc);
                if (--t->nacc == 0) sel_read(t, 0);
                return inet_reply_ok(r, NULL, 0);
            }
        if (t->state == ST_CONNECTING && t->conn.ref == ref) {
            sel_write(t, 0);
            t->state = ST_OPEN;
            return inet_reply_ok(r, NULL, 0);
        }
        return inet_reply_ok(r, "n", 1);
    }
    case INET_OP_SEND: return op_send(t, buf, len, r);
    case INET_OP_SETOPTS: return op_setopts(t, buf, len, r);
    case INET_OP_GETOPTS: {
        if (t->state == ST_PEER_CLOSED) return inet_reply_err(r, "einval");
        OutBuf b;
        ob_init(&b);
        int e = inet_getopts(t->fd, &t->o, buf, len, &b);
        long n = e ? inet_reply_errno(r, e) : inet_reply_ok(r, b.buf, b.len);
        ob_free(&b);
        return n;
    }
    case INET_OP_SOCKNAME: return op_sockname(t, 0, r);
    case INET_OP_PEERNAME: return op_sockname(t, 1, r);
    case INET_OP_SHUTDOWN: {
        if (len != 1) return inet_reply_err(r, "einval");
        if (t->state != ST_CONNECTED && t->state != ST_PEER_CLOSED) return inet_reply_err(r, "enotconn");
        int how = buf[0];
        if (how != SHUT_RD && t->out.len > t->out_off) {
            /* the queue goes first; then the FIN */
            t->shut_after = 1;
            if (how == SHUT_WR) return inet_reply_ok(r, NULL, 0);
            how = SHUT_RD;
        }
        if (shutdown(t->fd, how) < 0 && errno != ENOTCONN) return inet_reply_errno(r, errno);
        return inet_reply_ok(r, NULL, 0);
    }
    default: return -1;
    }
}

static void tcp_ready_input(void *drv, int fd) {
    Tcp *t = drv;
    if (fd != t->fd) return;
    if (t->state == ST_LISTEN) accepts_run(t);
    else if (t->state != ST_CONNECTED) sel_read(t, 0);
    else if (!wants_data(t)) sel_read(t, 0);      /* nobody reads: the kernel keeps it */
    else pump(t, 1);
}

static void tcp_ready_output(void *drv, int fd) {
    Tcp *t = drv;
    if (fd != t->fd) return;
    if (t->state == ST_CONNECTING) { connect_done(t); return; }
    int e = flush_out(t);
    if (e && t->busy) {
        t->busy = 0;
        Term *hp = driver_heap(t->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = inet_atoms.inet_reply; hp[2] = driver_port_term(t->port);
        hp[3] = error_of(t, inet_atoms.closed);
        driver_send(t->port, t->busy_w.pid, make_boxed(hp));
    }
}

const DrvEntry drv_tcp_inet = {
    .name = "tcp_inet",
    .start = tcp_start,
    .stop = tcp_stop,
    .control = tcp_control,
    .ready_input = tcp_ready_input,
    .ready_output = tcp_ready_output,
};
