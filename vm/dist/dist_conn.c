/* dist_conn.c — connections to other nodes: the listen driver, the
 * connection driver (handshake, frames in and out, ticks), the table of
 * connections by node, and dist_send, the path of `Pid ! Msg` to another
 * node's process.
 *
 * A connection is a port (driver "dist_conn") owned by net_kernel
 * (stdlib/net_kernel.mini), so its socket is watched by the VM's one poll set
 * and its reading runs as the port's turn on a scheduler: no thread per
 * connection. The listen socket is a port too ("dist_listen"): it accepts
 * and hands each new socket to net_kernel, which opens a dist_conn port on
 * it. net_kernel also opens the port of an outgoing connection when a
 * sender asks for a node that is not connected, and ticks every connection.
 *
 * Sending never goes through net_kernel or the port's turn: the sender
 * encodes on its own scheduler (etf.c), looks the node up in the table
 * under a read lock (senders do not exclude one another) and pushes the
 * frame onto the connection's lock-free queue (one compare-and-swap). Then
 * it tries to become the connection's writer (one exchange): the writer
 * takes every queued frame and writes them with one writev, or queues the
 * bytes behind those still waiting (then the port is selected for writing
 * and its ready_output drains them). A sender that finds a writer at work
 * leaves at once: the writer looks at the queue again before it lets go,
 * so senders on other schedulers never wait for each other's system calls,
 * and a burst of sends leaves in a few writev calls. A connection still in
 * its handshake queues, and the frames leave when it comes up; one that
 * fails drops them, as Erlang does with messages to a node it cannot reach.
 * Removing a connection takes the write lock, so no sender still holds it.
 *
 * Reading: the port's turn reads what is there (bounded per turn, so one
 * busy peer cannot hold a scheduler), decodes each complete frame on the
 * port's scratch heap and delivers it as a local send does. Anything
 * malformed, a wrong cookie or a peer that stays silent for four tick
 * intervals ends the connection (driver_failure): never the VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dist_int.h"
#include "atom.h"
#include "bif.h"
#include "etf.h"
#include "outbuf.h"
#include "proc.h"
#include "io/port.h"

enum {
    ST_PENDING,         /* asked for by a sender; no port yet */
    ST_CONNECTING,      /* initiator: non-blocking connect in progress */
    ST_WAIT_STATUS,     /* initiator: sent 'N', waits for 's' */
    ST_WAIT_CHALLENGE,  /* initiator: waits for the peer's 'N' challenge */
    ST_WAIT_ACK,        /* initiator: sent 'r', waits for 'a' */
    ST_WAIT_NAME,       /* acceptor: waits for 'N' */
    ST_WAIT_REPLY,      /* acceptor: sent its challenge, waits for 'r' */
    ST_UP
};

#define READ_CHUNK 65536         /* bytes read per turn: one peer cannot hold a scheduler */
#define MAX_HANDSHAKE_MSG 1024   /* a longer handshake message is garbage */
#define MAX_FRAME (1u << 30)     /* a frame claiming more is garbage */
#define SILENT_TICKS 4           /* tick intervals with nothing read: the peer is gone */

typedef struct Conn {
    struct Conn *next;
    Term node;                   /* NIL until the acceptor reads the name */
    DrvPort *port;
    int fd;
    _Atomic int state;           /* ST_*: written by the port, read by senders */
    uint64_t peer_flags;
    uint32_t my_chal, peer_chal, peer_creation;
    int hidden;
    unsigned char *in;
    size_t in_len, in_cap;
    /* frames pushed by senders, newest first, and whether one of them is
     * writing the queue out (conn_enqueue) */
    _Atomic(struct OutFrame *) pending;
    _Atomic int writer;
    pthread_mutex_t out_lock;    /* out, write_selected, the socket's writes */
    char *out;
    size_t out_len, out_off, out_cap;
    int write_selected;
    atomic_int wrote;            /* a frame left since the last tick */
    int read_since, silent;
    /* monitors local processes hold on processes of this node (under
     * out_lock): a 'DOWN' for each when the peer says so or the
     * connection goes (noconnection) */
    struct RemoteMon *mons;
    int nmons, capmons;
} Conn;

/* A frame waiting in a connection's lock-free queue. */
typedef struct OutFrame {
    struct OutFrame *next;
    size_t len;
    char *buf;                   /* malloc'ed, the frame's bytes */
} OutFrame;

/* A local process's monitor on a process of the connection's node: the
 * target is kept as ids (or a name), not as a term on some heap. */
typedef struct RemoteMon {
    uint64_t ref;
    Term watcher;                /* local pid */
    Term name;                   /* the registered name monitored, or NIL */
    DistId target;               /* the pid monitored when name is NIL */
    int spawning;                /* spawn_monitor/4: target unknown until the SPAWN_REPLY */
} RemoteMon;

static pthread_rwlock_t conns_lock = PTHREAD_RWLOCK_INITIALIZER;
static Conn *conns;

/* ---- per-node cookies (set_cookie/2 for another node) ---- */

#define MAX_NODE_COOKIES 256
static pthread_mutex_t cookies_lock = PTHREAD_MUTEX_INITIALIZER;
static Term cookie_node[MAX_NODE_COOKIES], cookie_of[MAX_NODE_COOKIES];
static int ncookies;

int dist_node_cookie_set(Term node, Term ck) {
    pthread_mutex_lock(&cookies_lock);
    int i = 0;
    while (i < ncookies && cookie_node[i] != node) i++;
    if (i == ncookies) {
        if (ncookies == MAX_NODE_COOKIES) { pthread_mutex_unlock(&cookies_lock); return -1; }
        cookie_node[ncookies++] = node;
    }
    cookie_of[i] = ck;
    pthread_mutex_unlock(&cookies_lock);
    return 0;
}

Term dist_node_cookie(Term node) {
    Term c = dist_cookie();
    pthread_mutex_lock(&cookies_lock);
    for (int i = 0; i < ncookies; i++) if (cookie_node[i] == node) c = cookie_of[i];
    pthread_mutex_unlock(&cookies_lock);
    return c;
}

/* MD5(Cookie ++ decimal(Challenge)): the handshake's proof. */
static void digest(Term node, uint32_t chal, unsigned char out[16]) {
    size_t n;
    const char *ck = atom_name(dist_node_cookie(node), &n);
    char buf[600];
    if (n > 500) n = 500;
    memcpy(buf, ck, n);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%u", chal);
    digest_md5(buf, n, out);
}

static uint32_t challenge(void) {
    uint32_t c;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&c, sizeof c, 1, f) != 1) c = (uint32_t)random() ^ (uint32_t)(uintptr_t)&c;
    if (f) fclose(f);
    return c;
}

/* ---- the table (callers hold conns_lock) ---- */

static Conn *conn_find(Term node) {
    for (Conn *c = conns; c; c = c->next) if (c->node == node) return c;
    return NULL;
}

static Conn *conn_new(Term node) {
    Conn *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->node = node;
    c->fd = -1;
    c->state = ST_PENDING;
    pthread_mutex_init(&c->out_lock, NULL);
    return c;
}

static void conn_unlink(Conn *c) {
    for (Conn **pp = &conns; *pp; pp = &(*pp)->next)
        if (*pp == c) { *pp = c->next; return; }
}

static void frames_free(OutFrame *f) {
    for (OutFrame *next; f; f = next) {
        next = f->next;
        free(f->buf);
        free(f);
    }
}

static void conn_free(Conn *c) {
    frames_free(atomic_exchange(&c->pending, NULL));
    pthread_mutex_destroy(&c->out_lock);
    free(c->mons);
    free(c->in);
    free(c->out);
    free(c);
}

/* ---- output (out_lock held) ---- */

static int queue_bytes(Conn *c, const char *s, size_t n) {
    if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
    if (c->out_len + n > c->out_cap) {
        if (c->out_off) {
            memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
            c->out_len -= c->out_off;
            c->out_off = 0;
        }
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < c->out_len + n) cap *= 2;
        char *o = realloc(c->out, cap);
        if (!o) return -1;
        c->out = o;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
    return 0;
}

/* Writes what the socket takes now; 0, or -1 on a broken socket. */
static int flush_some(Conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        c->out_off += (size_t)w;
        atomic_store(&c->wrote, 1);
    }
    return 0;
}

/* A frame (or handshake message) for the peer: written at once when the
 * connection is up and nothing waits, else queued. */
static void conn_out(Conn *c, const char *s, size_t n) {
    if (c->state == ST_UP && c->out_off == c->out_len) {
        while (n > 0) {
            ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                if (errno != EAGAIN && errno != EWOULDBLOCK) return;   /* the reader sees it close */
                break;
            }
            atomic_store(&c->wrote, 1);
            s += w;
            n -= (size_t)w;
        }
        if (n == 0) return;
    }
    if (queue_bytes(c, s, n) < 0) return;
    if (c->state == ST_UP && !c->write_selected) {
        c->write_selected = 1;
        driver_select(c->port, c->fd, DRV_WRITE, 1);
    }
}

/* Frames f (oldest first) out on c: with one writev per IOV_BATCH frames
 * when nothing waits before them, else behind what waits. */
#define IOV_BATCH 64
static void conn_out_frames(Conn *c, OutFrame *f) {
    while (f && c->state == ST_UP && c->out_off == c->out_len) {
        struct iovec iov[IOV_BATCH];
        int n = 0;
        for (OutFrame *g = f; g && n < IOV_BATCH; g = g->next, n++)
            iov[n] = (struct iovec){ g->buf, g->len };
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) return;   /* the reader sees it close */
            break;
        }
        atomic_store(&c->wrote, 1);
        /* skip what left; a frame cut short queues its rest below */
        size_t left = (size_t)w;
        while (f && left >= f->len) { left -= f->len; f = f->next; }
        if (f && left > 0) {
            conn_out(c, f->buf + left, f->len - left);
            f = f->next;
        }
    }
    for (; f; f = f->next) conn_out(c, f->buf, f->len);
}

/* Frames f behind the bytes waiting for the socket, for ready_output. */
static void conn_queue_frames(Conn *c, OutFrame *f) {
    for (; f; f = f->next)
        if (queue_bytes(c, f->buf, f->len) < 0) return;
    if (c->state == ST_UP && c->out_off < c->out_len && !c->write_selected) {
        c->write_selected = 1;
        driver_select(c->port, c->fd, DRV_WRITE, 1);
    }
}

/* Hands the frame buf[0..len) (malloc'ed; c takes it) to c's lock-free
 * queue, then writes the queue out unless another sender is writing it:
 * that one looks at the queue again after it lets go (both sequentially
 * consistent: either it sees this frame or this sender sees it gone).
 * A writer makes at most WRITER_ROUNDS system calls' worth of rounds: past
 * them, what keeps coming from other schedulers is only copied behind the
 * waiting bytes, for the port's ready_output, so a sender whose neighbours
 * send without pause is not kept writing for them. */
#define WRITER_ROUNDS 4
static void conn_enqueue(Conn *c, char *buf, size_t len) {
    OutFrame *f = malloc(sizeof *f);
    if (!f) { free(buf); return; }          /* dropped, as a send to a lost node */
    f->buf = buf;
    f->len = len;
    OutFrame *old = atomic_load_explicit(&c->pending, memory_order_relaxed);
    do f->next = old;
    while (!atomic_compare_exchange_weak(&c->pending, &old, f));
    int rounds = 0;
    while (atomic_load(&c->pending) && !atomic_exchange(&c->writer, 1)) {
        OutFrame *batch = NULL;
        for (OutFrame *g = atomic_exchange(&c->pending, NULL), *next; g; g = next) {
            next = g->next;                 /* newest first: turned round */
            g->next = batch;
            batch = g;
        }
        pthread_mutex_lock(&c->out_lock);
        if (rounds++ < WRITER_ROUNDS) conn_out_frames(c, batch);
        else conn_queue_frames(c, batch);
        pthread_mutex_unlock(&c->out_lock);
        frames_free(batch);
        atomic_store(&c->writer, 0);
    }
}

/* ---- frames ---- */

static void put32(char *p, uint32_t v) {
    p[0] = (char)(v >> 24); p[1] = (char)(v >> 16); p[2] = (char)(v >> 8); p[3] = (char)v;
}

/* Len:32 112 131 Control [131 Msg] in b; 0 if a term cannot be encoded. */
static int frame_build(OutBuf *b, Term control, Term msg) {
    ob_write(b, "\0\0\0\0\x70\x83", 6);
    if (!etf_encode(b, control)) return 0;
    if (msg != THE_NON_VALUE) {
        ob_putc(b, 131);
        if (!etf_encode(b, msg)) return 0;
    }
    put32(b->buf, (uint32_t)(b->len - 4));
    return 1;
}

/* Sends control (+ msg) on c: from any thread holding conns_lock (read),
 * or from c's own callbacks. */
static void conn_send(Conn *c, Term control, Term msg) {
    OutBuf b;
    ob_init(&b);
    if (frame_build(&b, control, msg)) conn_enqueue(c, b.buf, b.len);
    else ob_free(&b);
}

/* Asks net_kernel to connect `node`: {dist_connect, Node}. */
static void ask_connect(Term node) {
    Term k = proc_whereis(ATOM_TERM(net_kernel));
    if (k == THE_NON_VALUE) return;
    Term t[3] = { make_tuple_header(2), ATOM_TERM(dist_connect), node };
    proc_send(NULL, k, make_boxed(t));
}

long dist_send(Process *p, Term to, Term msg) {
    Term node, control;
    Term ctl[5];
    if (is_tuple(to) && tuple_arity(to) == 2 && is_atom(tuple_elems(to)[0]) && is_atom(tuple_elems(to)[1])) {
        node = tuple_elems(to)[1];
        if (node == dist_this_node()) {
            Term pid = proc_whereis(tuple_elems(to)[0]);
            if (pid == THE_NON_VALUE) return -1;
            return (long)proc_send(p, pid, msg);
        }
        ctl[0] = make_tuple_header(4);
        ctl[1] = make_small(DOP_REG_SEND);
        ctl[2] = p ? p->pid : make_atom(0);
        ctl[3] = atom_intern_cstr("");
        ctl[4] = tuple_elems(to)[0];
    } else if (is_external_kind(to, EXT_PID)) {
        node = external_node(to);
        ctl[0] = make_tuple_header(3);
        ctl[1] = make_small(DOP_SEND);
        ctl[2] = atom_intern_cstr("");
        ctl[3] = to;
    } else {
        return -1;
    }
    if (!dist_alive()) return 1;           /* nowhere to go: dropped, as erl does */
    control = make_boxed(ctl);
    OutBuf b;
    ob_init(&b);
    if (!frame_build(&b, control, msg)) { ob_free(&b); return -1; }
    long reds = 1 + (long)(b.len / 64);
    pthread_rwlock_rdlock(&conns_lock);
    Conn *c = conn_find(node);
    if (c) {
        conn_enqueue(c, b.buf, b.len);      /* takes the buffer */
        pthread_rwlock_unlock(&conns_lock);
        return reds;
    }
    pthread_rwlock_unlock(&conns_lock);
    /* not connected: a pending connection holds the frame until it is up */
    int ask = 0;
    pthread_rwlock_wrlock(&conns_lock);
    c = conn_find(node);
    if (!c && (c = conn_new(node)) != NULL) {
        c->next = conns;
        conns = c;
        ask = 1;
    }
    if (c) {
        pthread_mutex_lock(&c->out_lock);
        conn_out(c, b.buf, b.len);
        pthread_mutex_unlock(&c->out_lock);
    }
    pthread_rwlock_unlock(&conns_lock);
    ob_free(&b);
    if (ask) ask_connect(node);
    return reds;
}

/* ---- monitors on other nodes' processes ---- */

/* {'DOWN', Ref, process, Target, Reason} to m's watcher; Target is the
 * pid, or {Name, Node} for a monitor by name. */
static void send_down(const RemoteMon *m, Term node, Term reason) {
    Term buf[6 + REF_WORDS + 3 + 3 + EXT_MAX_IDS];
    Term *hp = buf;
    Term r = make_ref_at(hp + 6, m->ref);
    Term *t = hp + 6 + REF_WORDS;
    Term target;
    if (m->name != NIL) {
        t[0] = make_tuple_header(2); t[1] = m->name; t[2] = node;
        target = make_boxed(t);
    } else {
        target = make_external_at(t, EXT_PID, m->target.node, m->target.creation, m->target.ids, m->target.n);
    }
    hp[0] = make_tuple_header(5); hp[1] = ATOM_TERM(DOWN); hp[2] = r;
    hp[3] = ATOM_TERM(process); hp[4] = target; hp[5] = reason;
    proc_send(NULL, m->watcher, make_boxed(hp));
}

/* The monitor ref of c, taken out (out_lock held); 0 if none. */
static int mon_take(Conn *c, uint64_t ref, RemoteMon *out) {
    for (int i = 0; i < c->nmons; i++)
        if (c->mons[i].ref == ref) {
            *out = c->mons[i];
            c->mons[i] = c->mons[--c->nmons];
            return 1;
        }
    return 0;
}

void dist_link(Process *p, Term remote, int on) {
    Term k = proc_whereis(ATOM_TERM(net_kernel));
    if (k == THE_NON_VALUE) {
        /* not alive: the other node is unreachable */
        if (on) proc_send_exit_external(remote, p->pid, ATOM_TERM(noconnection));
        return;
    }
    Term t[5] = { make_tuple_header(4), on ? ATOM_TERM(dist_link) : ATOM_TERM(dist_unlink), external_node(remote), p->pid, remote };
    proc_send(p, k, make_boxed(t));
}

/* Adds m to node's connection (a pending one if there is none yet, and
 * net_kernel is asked to connect) and sends the frame in b on it, under one
 * lock, so no reply can come before the monitor is there. 0 when no
 * connection record could be made. */
static int mon_add_send(Term node, const RemoteMon *m, const OutBuf *b) {
    int ask = 0;
    pthread_rwlock_wrlock(&conns_lock);
    Conn *c = conn_find(node);
    if (!c && (c = conn_new(node)) != NULL) { c->next = conns; conns = c; ask = 1; }
    if (c) {
        pthread_mutex_lock(&c->out_lock);
        if (c->nmons == c->capmons) {
            int cap = c->capmons ? 2 * c->capmons : 8;
            RemoteMon *nm = realloc(c->mons, (size_t)cap * sizeof *nm);
            if (nm) { c->mons = nm; c->capmons = cap; }
        }
        if (c->nmons < c->capmons) c->mons[c->nmons++] = *m;
        conn_out(c, b->buf, b->len);
        pthread_mutex_unlock(&c->out_lock);
    }
    pthread_rwlock_unlock(&conns_lock);
    if (ask) ask_connect(node);
    return c != NULL;
}

Term dist_monitor(Process *p, Term target) {
    Term node, name = NIL;
    if (is_tuple(target)) { name = tuple_elems(target)[0]; node = tuple_elems(target)[1]; }
    else node = external_node(target);
    uint64_t ref = proc_new_ref();
    Term r = make_ref_at(heap_alloc(p, REF_WORDS), ref);
    RemoteMon m = { ref, p->pid, name, { 0 }, 0 };
    if (name == NIL) dist_id_of(target, &m.target);
    if (!dist_alive()) { send_down(&m, node, ATOM_TERM(noconnection)); return r; }
    Term ctl[5] = { make_tuple_header(4), make_small(DOP_MONITOR_P), p->pid, name != NIL ? name : target, r };
    OutBuf b;
    ob_init(&b);
    frame_build(&b, make_boxed(ctl), THE_NON_VALUE);
    int ok = mon_add_send(node, &m, &b);
    ob_free(&b);
    if (!ok) send_down(&m, node, ATOM_TERM(noconnection));
    return r;
}

/* erlang:dist_spawn_monitor(Node, Ctl, Args): sends the SPAWN_REQUEST Ctl
 * ({29, ReqId, From, GL, MFA, Opts} with monitor among Opts) and holds a
 * monitor whose reference is ReqId, as a monitor/2 on another node's
 * process is held: the peer's PAYLOAD_MONITOR_P_EXIT (reference ReqId),
 * demonitor or the connection's end ends it. Until the SPAWN_REPLY names
 * the new pid, a 'DOWN' (noconnection) names a dead pid of Node instead,
 * the one erlang.mini's spawn/4 gives for a node that cannot be reached. */
Term bif_dist_spawn_monitor_3(Process *p, Term *args) {
    Term node = args[0], ctl = args[1];
    if (!is_atom(node) || !is_tuple(ctl) || tuple_arity(ctl) != 6 || !is_ref(tuple_elems(ctl)[1]) ||
        !(is_list(args[2]) || is_nil(args[2])))
        BIF_ERROR(p, AM_badarg);
    RemoteMon m = { ref_number(tuple_elems(ctl)[1]), p->pid, NIL, { node, 0, 2, { 0, 0 } }, 1 };
    if (!dist_alive()) { send_down(&m, node, ATOM_TERM(noconnection)); return AM_true; }
    OutBuf b;
    ob_init(&b);
    if (!frame_build(&b, ctl, args[2])) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    int ok = mon_add_send(node, &m, &b);
    ob_free(&b);
    if (!ok) send_down(&m, node, ATOM_TERM(noconnection));
    return AM_true;
}

int dist_demonitor(Process *p, uint64_t ref) {
    int found = 0;
    pthread_rwlock_rdlock(&conns_lock);
    for (Conn *c = conns; c && !found; c = c->next) {
        RemoteMon m;
        pthread_mutex_lock(&c->out_lock);
        found = mon_take(c, ref, &m);
        if (found && m.watcher != p->pid) { c->mons[c->nmons++] = m; found = 0; }
        pthread_mutex_unlock(&c->out_lock);
        if (found) {
            Term tbuf[3 + EXT_MAX_IDS], rbuf[REF_WORDS];
            Term target = m.name != NIL ? m.name :
                make_external_at(tbuf, EXT_PID, m.target.node, m.target.creation, m.target.ids, m.target.n);
            Term ctl[5] = { make_tuple_header(4), make_small(DOP_DEMONITOR_P), p->pid, target, make_ref_at(rbuf, ref) };
            if (c->state == ST_UP) conn_send(c, make_boxed(ctl), THE_NON_VALUE);
        }
    }
    pthread_rwlock_unlock(&conns_lock);
    return found;
}

/* ---- the listen driver ---- */

typedef struct Listener { DrvPort *port; int fd; } Listener;

static void *listen_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)command; (void)opts; (void)err;
    if (!dist_alive() || dist_listen_fd() < 0) return NULL;
    Listener *l = malloc(sizeof *l);
    if (!l) return NULL;
    l->port = port;
    l->fd = dist_listen_fd();
    if (driver_select(port, l->fd, DRV_READ, 1) < 0) { free(l); return NULL; }
    return l;
}

static void listen_stop(void *drv) {
    Listener *l = drv;
    driver_select(l->port, l->fd, DRV_READ, 0);
    free(l);
}

static void listen_ready(void *drv, int fd) {
    Listener *l = drv;
    for (int i = 0; i < 64; i++) {
        int s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (s < 0) return;
        Term *hp = driver_heap(l->port, 3);
        hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(dist_accept); hp[2] = make_small(s);
        driver_output_term(l->port, make_boxed(hp));
    }
}

const DrvEntry drv_dist_listen = {
    .name = "dist_listen",
    .start = listen_start,
    .stop = listen_stop,
    .ready_input = listen_ready,
};

/* ---- the connection driver: handshake ---- */

static void fail(Conn *c, const char *why) {
    driver_failure(c->port, atom_intern_cstr(why));
}

/* A handshake message: Len:16 then body. */
static void hs_send(Conn *c, const unsigned char *body, size_t n) {
    unsigned char buf[MAX_HANDSHAKE_MSG + 2];
    buf[0] = (unsigned char)(n >> 8); buf[1] = (unsigned char)n;
    memcpy(buf + 2, body, n);
    pthread_mutex_lock(&c->out_lock);
    /* tiny and the socket's buffer is empty: written whole, or the peer is
     * so broken that the handshake times out */
    if (queue_bytes(c, (const char *)buf, n + 2) == 0 && flush_some(c) < 0) {}
    pthread_mutex_unlock(&c->out_lock);
}

static size_t put_be(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    return (size_t)bytes;
}
static uint64_t get_be(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

/* 'N' Flags:64 [Chal:32] Creation:32 NLen:16 Name */
static void send_name(Conn *c, int with_challenge) {
    unsigned char m[MAX_HANDSHAKE_MSG];
    size_t k = 0, nl;
    const char *name = atom_name(dist_this_node(), &nl);
    uint64_t flags = DFLAG_OURS | (dist_hidden() ? 0 : DFLAG_PUBLISHED);
    m[k++] = 'N';
    k += put_be(m + k, flags, 8);
    if (with_challenge) k += put_be(m + k, c->my_chal, 4);
    k += put_be(m + k, dist_this_creation(), 4);
    k += put_be(m + k, nl, 2);
    memcpy(m + k, name, nl);
    hs_send(c, m, k + nl);
}

/* Reads the peer's 'N': its flags, [challenge], creation and name. */
static int read_name(Conn *c, const unsigned char *m, size_t n, int with_challenge) {
    size_t k = 1 + 8 + (with_challenge ? 4 : 0) + 4 + 2;
    if (n < k || m[0] != 'N') return -1;
    c->peer_flags = get_be(m + 1, 8);
    if (with_challenge) c->peer_chal = (uint32_t)get_be(m + 9, 4);
    c->peer_creation = (uint32_t)get_be(m + k - 6, 4);
    size_t nl = get_be(m + k - 2, 2);
    if (n != k + nl || nl == 0 || nl > 255 || !memchr(m + k, '@', nl)) return -1;
    if ((c->peer_flags & DFLAG_MANDATORY) != DFLAG_MANDATORY) return -1;
    Term node = atom_intern((const char *)m + k, nl);
    if (c->node != NIL && c->node != node) return -1;     /* not who we called */
    c->node = node;
    c->hidden = dist_hidden() || !(c->peer_flags & DFLAG_PUBLISHED);
    return 0;
}

static void send_challenge_reply(Conn *c) {
    unsigned char m[21];
    m[0] = 'r';
    c->my_chal = challenge();
    put_be(m + 1, c->my_chal, 4);
    digest(c->node, c->peer_chal, m + 5);
    hs_send(c, m, 21);
}

/* The handshake is done: the connection takes frames; queued ones leave. */
static int conn_up(Conn *c) {
    if (c->state == ST_WAIT_REPLY) {
        /* the acceptor's connection enters the table now */
        pthread_rwlock_wrlock(&conns_lock);
        Conn *o = conn_find(c->node);
        if (o && o->port) { pthread_rwlock_unlock(&conns_lock); return -1; }
        if (o) {                  /* senders queued for it: take their frames */
            pthread_mutex_lock(&o->out_lock);
            if (o->out_len > o->out_off) queue_bytes(c, o->out + o->out_off, o->out_len - o->out_off);
            pthread_mutex_unlock(&o->out_lock);
            conn_unlink(o);
            conn_free(o);
        }
        c->next = conns;
        conns = c;
        pthread_rwlock_unlock(&conns_lock);
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pthread_mutex_lock(&c->out_lock);
    c->state = ST_UP;
    if (flush_some(c) == 0 && c->out_off < c->out_len) {
        c->write_selected = 1;
        driver_select(c->port, c->fd, DRV_WRITE, 1);
    }
    pthread_mutex_unlock(&c->out_lock);
    Term *hp = driver_heap(c->port, 4);
    hp[0] = make_tuple_header(3); hp[1] = ATOM_TERM(nodeup); hp[2] = c->node;
    hp[3] = c->hidden ? AM_true : AM_false;
    driver_output_term(c->port, make_boxed(hp));
    return 0;
}

/* One whole handshake message m[0..n). */
static void handshake_step(Conn *c, const unsigned char *m, size_t n) {
    unsigned char d[16];
    switch (atomic_load(&c->state)) {
    case ST_WAIT_STATUS:
        if (n >= 3 && m[0] == 's' && (memcmp(m + 1, "ok", 2) == 0)) { c->state = ST_WAIT_CHALLENGE; return; }
        fail(c, n >= 2 && m[0] == 's' && memcmp(m + 1, "alive", n - 1 < 5 ? n - 1 : 5) == 0 ? "alive" : "refused");
        return;
    case ST_WAIT_CHALLENGE:
        if (read_name(c, m, n, 1) < 0) { fail(c, "bad_handshake"); return; }
        send_challenge_reply(c);
        c->state = ST_WAIT_ACK;
        return;
    case ST_WAIT_ACK:
        digest(c->node, c->my_chal, d);
        if (n != 17 || m[0] != 'a' || memcmp(m + 1, d, 16) != 0) { fail(c, "bad_cookie"); return; }
        if (conn_up(c) < 0) fail(c, "duplicate");
        return;
    case ST_WAIT_NAME: {
        if (read_name(c, m, n, 0) < 0) { fail(c, "bad_handshake"); return; }
        pthread_rwlock_rdlock(&conns_lock);
        Conn *o = conn_find(c->node);
        int busy = o && o->port && (o->state == ST_UP ||
                   /* both sides call: the greater name's call wins, as in Erlang */
                   strcmp(atom_name(dist_this_node(), &(size_t){0}), atom_name(c->node, &(size_t){0})) > 0);
        pthread_rwlock_unlock(&conns_lock);
        if (busy) {
            hs_send(c, (const unsigned char *)(o->state == ST_UP ? "salive" : "snok"), o->state == ST_UP ? 6 : 4);
            fail(c, "duplicate");
            return;
        }
        hs_send(c, (const unsigned char *)"sok", 3);
        c->my_chal = challenge();
        send_name(c, 1);
        c->state = ST_WAIT_REPLY;
        return;
    }
    case ST_WAIT_REPLY: {
        digest(c->node, c->my_chal, d);
        if (n != 21 || m[0] != 'r' || memcmp(m + 5, d, 16) != 0) {
            /* an unauthorised node gets nothing: no 'a', the socket closes */
            fprintf(stderr, "** Connection attempt from node %s rejected. Invalid challenge reply. **\n",
                    atom_name(c->node, &(size_t){0}));
            fail(c, "bad_cookie");
            return;
        }
        unsigned char a[17];
        a[0] = 'a';
        digest(c->node, (uint32_t)get_be(m + 1, 4), a + 1);
        hs_send(c, a, 17);
        if (conn_up(c) < 0) fail(c, "duplicate");
        return;
    }
    default:
        fail(c, "bad_handshake");
    }
}

/* ---- the connection driver: frames in ---- */

/* A control message tuple's element i (1-based), or THE_NON_VALUE. */
static Term el(Term t, UWord i) { return is_tuple(t) && tuple_arity(t) >= i ? tuple_elems(t)[i - 1] : THE_NON_VALUE; }

static void deliver(Term to, Term msg) {
    if (is_atom(to)) to = proc_whereis(to);
    if (to != THE_NON_VALUE && is_pid(to)) proc_send(NULL, to, msg);
}

/* One frame's payload (after the 112). */
static int frame_in(Conn *c, const unsigned char *s, size_t n) {
    size_t used;
    Term ctl = etf_decode(c->port->proc, s, n, &used);
    if (ctl == THE_NON_VALUE || !is_tuple(ctl) || tuple_arity(ctl) < 1 || !is_small(el(ctl, 1))) return -1;
    Term msg = THE_NON_VALUE;
    if (used < n) {
        size_t u2;
        msg = etf_decode(c->port->proc, s + used, n - used, &u2);
        if (msg == THE_NON_VALUE) return -1;
    }
    switch (small_val(el(ctl, 1))) {
    case DOP_SEND: case DOP_SEND_SENDER:
        if (msg == THE_NON_VALUE) return -1;
        deliver(el(ctl, 3), msg);
        return 0;
    case DOP_REG_SEND:
        if (msg == THE_NON_VALUE || !is_atom(el(ctl, 4))) return -1;
        deliver(el(ctl, 4), msg);
        return 0;
    case DOP_MONITOR_P: {
        /* {19, From, To, Ref}: a target that does not exist is told at once */
        Term to = el(ctl, 3);
        Term pid = is_atom(to) ? proc_whereis(to) : to;
        Process *q = pid != THE_NON_VALUE && is_pid(pid) ? proc_lookup(pid) : NULL;
        if (q) {
            /* net_kernel watches it for the peer (a proxy process) */
            proc_release(q);
            Term *hp = driver_heap(c->port, 6);
            hp[0] = make_tuple_header(5); hp[1] = ATOM_TERM(dist_monitor); hp[2] = c->node;
            hp[3] = el(ctl, 2); hp[4] = to; hp[5] = el(ctl, 4);
            deliver(ATOM_TERM(net_kernel), make_boxed(hp));
            return 0;
        }
        Term reply[6] = { make_tuple_header(5), make_small(DOP_MONITOR_P_EXIT), to, el(ctl, 2), el(ctl, 4),
                          ATOM_TERM(noproc) };
        conn_send(c, make_boxed(reply), THE_NON_VALUE);
        return 0;
    }
    case DOP_MONITOR_P_EXIT: case DOP_PAYLOAD_MONITOR_P_EXIT: {
        /* {21, FromProc, ToProc, Ref, Reason} / {28, FromProc, ToProc, Ref} + Reason */
        Term ref = el(ctl, 4);
        Term reason = small_val(el(ctl, 1)) == DOP_MONITOR_P_EXIT ? el(ctl, 5) : msg;
        if (ref == THE_NON_VALUE || !is_ref(ref) || reason == THE_NON_VALUE) return -1;
        RemoteMon m;
        pthread_mutex_lock(&c->out_lock);
        int found = mon_take(c, ref_number(ref), &m);
        pthread_mutex_unlock(&c->out_lock);
        if (found) send_down(&m, c->node, reason);
        return 0;
    }
    case DOP_DEMONITOR_P: {
        Term *hp = driver_heap(c->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = ATOM_TERM(dist_demonitor); hp[2] = c->node; hp[3] = el(ctl, 4);
        deliver(ATOM_TERM(net_kernel), make_boxed(hp));
        return 0;
    }
    case DOP_LINK: case DOP_EXIT: case DOP_EXIT2: case DOP_PAYLOAD_EXIT: case DOP_PAYLOAD_EXIT2:
    case DOP_UNLINK_ID: case DOP_UNLINK_ID_ACK: {
        /* links: net_kernel's proxies hold them. {dist_signal, Node, Op,
         * From, To, Reason | Id} */
        int op = (int)small_val(el(ctl, 1));
        int id = op == DOP_UNLINK_ID || op == DOP_UNLINK_ID_ACK;
        Term from = el(ctl, id ? 3 : 2), to = el(ctl, id ? 4 : 3);
        Term extra = id ? el(ctl, 2) : op == DOP_PAYLOAD_EXIT || op == DOP_PAYLOAD_EXIT2 ? msg :
                     op == DOP_LINK ? NIL : el(ctl, 4);
        if (from == THE_NON_VALUE || to == THE_NON_VALUE || extra == THE_NON_VALUE) return -1;
        if (op == DOP_EXIT2 || op == DOP_PAYLOAD_EXIT2) {       /* exit/2 from there */
            if (is_pid(to) && is_external(from)) proc_send_exit_external(from, to, extra);
            return 0;
        }
        Term *hp = driver_heap(c->port, 7);
        hp[0] = make_tuple_header(6); hp[1] = ATOM_TERM(dist_signal); hp[2] = c->node;
        hp[3] = make_small(op == DOP_PAYLOAD_EXIT ? DOP_EXIT : op); hp[4] = from; hp[5] = to; hp[6] = extra;
        deliver(ATOM_TERM(net_kernel), make_boxed(hp));
        return 0;
    }
    case DOP_SPAWN_REPLY: {
        /* {31, ReqId, To, Flags, Result}: to the process that asked
         * (erlang:spawn/4 and friends in stdlib/erlang.mini) */
        Term req = el(ctl, 2), to = el(ctl, 3), flags = el(ctl, 4), result = el(ctl, 5);
        if (result == THE_NON_VALUE || !is_small(flags)) return -1;
        if (is_ref(req)) {
            /* spawn_monitor/4's monitor now has its target; a spawn that
             * failed leaves no monitor */
            pthread_mutex_lock(&c->out_lock);
            for (int i = 0; i < c->nmons; i++)
                if (c->mons[i].ref == ref_number(req) && c->mons[i].spawning) {
                    if (is_external_kind(result, EXT_PID)) {
                        dist_id_of(result, &c->mons[i].target);
                        c->mons[i].spawning = 0;
                    } else {
                        c->mons[i] = c->mons[--c->nmons];
                    }
                    break;
                }
            pthread_mutex_unlock(&c->out_lock);
        }
        if ((small_val(flags) & 1) && is_external_kind(result, EXT_PID) && is_pid(to)) {
            /* the peer linked the new process to To: net_kernel makes this
             * side's proxy, ahead of any EXIT this connection brings later,
             * and the proxy tells To {ReqId, linked} once it holds the link */
            Term *lp = driver_heap(c->port, 7);
            lp[0] = make_tuple_header(6); lp[1] = ATOM_TERM(dist_signal); lp[2] = c->node;
            lp[3] = make_small(DOP_LINK); lp[4] = result; lp[5] = to; lp[6] = req;
            deliver(ATOM_TERM(net_kernel), make_boxed(lp));
        }
        Term *hp = driver_heap(c->port, 4);
        hp[0] = make_tuple_header(3); hp[1] = atom_intern_cstr("$spawn_reply");
        hp[2] = req; hp[3] = result;
        deliver(to, make_boxed(hp));
        return 0;
    }
    case DOP_SPAWN_REQUEST: {
        /* {29, ReqId, From, GL, {M, F, A}, Opts} + Args: net_kernel spawns
         * it and answers (stdlib/net_kernel.mini) */
        Term mfa = el(ctl, 5);
        if (msg == THE_NON_VALUE || !is_tuple(mfa) || tuple_arity(mfa) != 3) return -1;
        Term *hp = driver_heap(c->port, 9);
        hp[0] = make_tuple_header(8);
        hp[1] = ATOM_TERM(dist_spawn_request);
        hp[2] = c->node; hp[3] = el(ctl, 2); hp[4] = el(ctl, 3);
        hp[5] = tuple_elems(mfa)[0]; hp[6] = tuple_elems(mfa)[1]; hp[7] = msg;
        hp[8] = el(ctl, 6) == THE_NON_VALUE ? NIL : el(ctl, 6);
        deliver(ATOM_TERM(net_kernel), make_boxed(hp));
        return 0;
    }
    default:
        return 0;                  /* a signal this node does not act on */
    }
}

static void conn_ready_input(void *drv, int fd) {
    Conn *c = drv;
    if (c->in_cap - c->in_len < READ_CHUNK) {
        size_t cap = c->in_len + READ_CHUNK;
        unsigned char *p = realloc(c->in, cap);
        if (!p) { fail(c, "enomem"); return; }
        c->in = p;
        c->in_cap = cap;
    }
    ssize_t r = read(fd, c->in + c->in_len, READ_CHUNK);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (r <= 0) { fail(c, "connection_closed"); return; }
    c->in_len += (size_t)r;
    c->read_since = 1;
    size_t i = 0;
    while (c->state != ST_UP) {
        if (c->in_len - i < 2) break;
        size_t n = (size_t)get_be(c->in + i, 2);
        if (n == 0 || n > MAX_HANDSHAKE_MSG) { fail(c, "bad_handshake"); return; }
        if (c->in_len - i < 2 + n) break;
        int before = c->state;
        handshake_step(c, c->in + i + 2, n);
        i += 2 + n;
        if (c->state == before) return;            /* failed */
    }
    while (c->state == ST_UP && c->in_len - i >= 4) {
        size_t n = (size_t)get_be(c->in + i, 4);
        if (n > MAX_FRAME) { fail(c, "bad_frame"); return; }
        if (n == 0) { i += 4; continue; }          /* a tick */
        if (c->in_len - i < 4 + n) break;
        if (c->in[i + 4] != 112 || frame_in(c, c->in + i + 5, n - 1) < 0) { fail(c, "bad_frame"); return; }
        i += 4 + n;
    }
    memmove(c->in, c->in + i, c->in_len - i);
    c->in_len -= i;
}

static void conn_ready_output(void *drv, int fd) {
    Conn *c = drv;
    if (c->state == ST_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        pthread_mutex_lock(&c->out_lock);
        c->write_selected = 0;
        driver_select(c->port, fd, DRV_WRITE, 0);
        pthread_mutex_unlock(&c->out_lock);
        if (err) { fail(c, "econnrefused"); return; }
        driver_select(c->port, fd, DRV_READ, 1);
        c->state = ST_WAIT_STATUS;
        send_name(c, 0);
        return;
    }
    pthread_mutex_lock(&c->out_lock);
    int bad = flush_some(c) < 0;
    if (c->out_off == c->out_len && c->write_selected) {
        c->write_selected = 0;
        driver_select(c->port, fd, DRV_WRITE, 0);
    }
    pthread_mutex_unlock(&c->out_lock);
    if (bad) fail(c, "connection_closed");
}

/* port_control(Port, 1, _): a tick interval passed (net_kernel's timer).
 * Writes a tick if nothing left since the last; ends a connection that
 * has been silent for SILENT_TICKS intervals (in the handshake: two). */
static long conn_control(void *drv, unsigned cmd, const char *buf, size_t len, DrvBuf *reply) {
    (void)buf; (void)len; (void)reply;
    Conn *c = drv;
    if (cmd != 1) return -1;
    c->silent = c->read_since ? 0 : c->silent + 1;
    c->read_since = 0;
    if (c->silent >= (c->state == ST_UP ? SILENT_TICKS : 2)) {
        fail(c, c->state == ST_UP ? "net_tick_timeout" : "setup_timeout");
        return 0;
    }
    if (c->state == ST_UP && !atomic_exchange(&c->wrote, 0)) {
        pthread_mutex_lock(&c->out_lock);
        if (c->out_off == c->out_len) conn_out(c, "\0\0\0\0", 4);
        pthread_mutex_unlock(&c->out_lock);
        atomic_store(&c->wrote, 0);
    }
    return 0;
}

static int tcp_connect(const char *host, unsigned port) {
    struct addrinfo *res;
    if (dist_host_addr(host, port, &res) != 0) return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0 && errno != EINPROGRESS) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* "dist_conn accept Fd" or "dist_conn connect Node". */
static void *conn_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)opts; (void)err;
    if (!dist_alive()) return NULL;
    const char *arg = strchr(command, ' ');
    if (!arg) return NULL;
    arg++;
    if (strncmp(arg, "accept ", 7) == 0) {
        Conn *c = conn_new(NIL);
        if (!c) return NULL;
        c->port = port;
        c->fd = atoi(arg + 7);
        c->state = ST_WAIT_NAME;
        if (c->fd < 0 || driver_select(port, c->fd, DRV_READ, 1) < 0) {
            if (c->fd >= 0) close(c->fd);
            conn_free(c);
            return NULL;
        }
        return c;
    }
    if (strncmp(arg, "connect ", 8) != 0) return NULL;
    const char *name = arg + 8, *at = strchr(name, '@');
    Term node = atom_intern_cstr(name);
    unsigned pn = 0;
    char alive_name[256], host[256];
    int fd = -1;
    if (at && at > name && (size_t)(at - name) < sizeof alive_name && strlen(at + 1) < sizeof host &&
        node != dist_this_node()) {
        memcpy(alive_name, name, (size_t)(at - name));
        alive_name[at - name] = 0;
        snprintf(host, sizeof host, "%s", at + 1);
        if (dist_epmd_port_please(host, alive_name, &pn) == 0) fd = tcp_connect(host, pn);
    }
    pthread_rwlock_wrlock(&conns_lock);
    Conn *c = conn_find(node);
    if (c && c->port) {                     /* connected or connecting already */
        pthread_rwlock_unlock(&conns_lock);
        if (fd >= 0) close(fd);
        return NULL;
    }
    int fresh = !c;
    if (fresh && (c = conn_new(node)) == NULL) {
        pthread_rwlock_unlock(&conns_lock);
        if (fd >= 0) close(fd);
        return NULL;
    }
    if (fd < 0) {
        /* nobody to call: whatever senders queued for it is dropped */
        if (!fresh) conn_unlink(c);
        pthread_rwlock_unlock(&conns_lock);
        for (int i = 0; i < c->nmons; i++) send_down(&c->mons[i], node, ATOM_TERM(noconnection));
        conn_free(c);
        return NULL;
    }
    c->port = port;
    c->fd = fd;
    c->state = ST_CONNECTING;
    if (fresh) { c->next = conns; conns = c; }
    pthread_rwlock_unlock(&conns_lock);
    c->write_selected = 1;
    driver_select(port, fd, DRV_WRITE, 1);
    return c;
}

static void conn_stop(void *drv) {
    Conn *c = drv;
    pthread_rwlock_wrlock(&conns_lock);
    conn_unlink(c);
    pthread_rwlock_unlock(&conns_lock);
    /* no sender can reach c now: its monitors end with noconnection */
    for (int i = 0; i < c->nmons; i++) send_down(&c->mons[i], c->node, ATOM_TERM(noconnection));
    c->nmons = 0;
    if (c->fd >= 0) {
        driver_select(c->port, c->fd, DRV_READ | DRV_WRITE, 0);
        close(c->fd);
    }
    conn_free(c);
}

const DrvEntry drv_dist_conn = {
    .name = "dist_conn",
    .start = conn_start,
    .stop = conn_stop,
    .control = conn_control,
    .ready_input = conn_ready_input,
    .ready_output = conn_ready_output,
};

/* ---- BIFs ---- */

/* Connected nodes: visible (0), hidden (1) or both (2). */
static Term node_list(Process *p, int which, Term tail) {
    pthread_rwlock_rdlock(&conns_lock);
    int n = 0;
    for (Conn *c = conns; c; c = c->next) n++;
    Term *hp = heap_alloc(p, 2 * (size_t)n);
    Term l = tail;
    for (Conn *c = conns; c; c = c->next) {
        if (c->state != ST_UP || (which != 2 && c->hidden != which)) continue;
        hp[0] = c->node; hp[1] = l;
        l = make_list(hp);
        hp += 2;
    }
    pthread_rwlock_unlock(&conns_lock);
    return l;
}

Term bif_nodes_0(Process *p, Term *args) { (void)args; return node_list(p, 0, NIL); }

/* nodes(visible | hidden | connected | this | known) or a list of them */
Term bif_nodes_1(Process *p, Term *args) {
    Term a = args[0], l = NIL;
    Term one[2] = { a, NIL };
    Term list = is_atom(a) ? make_list(one) : a;
    int seen[5] = { 0 };
    for (; is_list(list); list = list_tail(list)) {
        Term k = list_head(list);
        const char *s = is_atom(k) ? atom_name(k, &(size_t){0}) : "";
        int i = !strcmp(s, "visible") ? 0 : !strcmp(s, "hidden") ? 1 : !strcmp(s, "connected") ? 2 :
                !strcmp(s, "this") ? 3 : !strcmp(s, "known") ? 4 : -1;
        if (i < 0) BIF_ERROR(p, AM_badarg);
        seen[i] = 1;
    }
    if (!is_nil(list)) BIF_ERROR(p, AM_badarg);
    if (seen[2] || seen[4] || (seen[0] && seen[1])) l = node_list(p, 2, l);
    else if (seen[0]) l = node_list(p, 0, l);
    else if (seen[1]) l = node_list(p, 1, l);
    if ((seen[3] || seen[4]) && dist_alive()) {
        Term *hp = heap_alloc(p, 2);
        hp[0] = dist_this_node(); hp[1] = l;
        l = make_list(hp);
    }
    return l;
}

/* erlang:dist_ctrl(Node, Control, Payload | no_payload): sends a control
 * message on Node's connection (net_kernel's spawn replies and the exits
 * of processes other nodes monitor). false when Node is not connected. */
Term bif_dist_ctrl_3(Process *p, Term *args) {
    if (!is_atom(args[0]) || !is_tuple(args[1])) BIF_ERROR(p, AM_badarg);
    Term payload = args[2] == atom_intern_cstr("no_payload") ? THE_NON_VALUE : args[2];
    pthread_rwlock_rdlock(&conns_lock);
    Conn *c = conn_find(args[0]);
    int up = c && c->state == ST_UP;
    if (up) conn_send(c, args[1], payload);
    pthread_rwlock_unlock(&conns_lock);
    return BOOL(up);
}

/* erlang:dist_exit(From, To, Reason): the exit signal of another node's
 * process From to the local To (net_kernel's link proxies). */
Term bif_dist_exit_3(Process *p, Term *args) {
    if (!is_external_kind(args[0], EXT_PID) || !is_pid(args[1])) BIF_ERROR(p, AM_badarg);
    proc_send_exit_external(args[0], args[1], args[2]);
    return AM_true;
}

/* erlang:dist_connected(Node): true once the handshake with Node is done. */
Term bif_dist_connected_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    pthread_rwlock_rdlock(&conns_lock);
    Conn *c = conn_find(args[0]);
    int up = c && c->state == ST_UP;
    pthread_rwlock_unlock(&conns_lock);
    return BOOL(up || args[0] == dist_this_node());
}
