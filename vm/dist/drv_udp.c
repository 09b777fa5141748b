/* drv_udp.c — UDP sockets as ports: the driver `udp_inet` behind gen_udp
 * (the protocol of inet_sock.h). Datagrams are read when the poller says
 * the fd is readable and somebody wants one (active, or a recv waits), at
 * most READ_TURN datagrams a callback; active ones go to the owner as
 * {udp, S, IP, Port, Data}, a recv gets {ok, {IP, Port, Data}}. A send the
 * kernel cannot take at once is dropped, as a datagram may be.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inet_sock.h"
#include "atom.h"

enum { DGRAM_MAX = 65536, READ_TURN = 64 };

typedef struct Udp {
    DrvPort *port;
    int fd, rsel;
    InetOpts o;
    uint32_t next_ref;
    int recv_waiting;
    Term recv_pid;
    uint32_t recv_ref;
} Udp;

static void sel_read(Udp *u, int on) {
    if (u->rsel == on) return;
    if (driver_select(u->port, u->fd, DRV_READ, on) == 0) u->rsel = on;
}

static void async_reply(Udp *u, Term pid, uint32_t ref, Term result) {
    Term *hp = driver_heap(u->port, 5);
    hp[0] = make_tuple_header(4); hp[1] = inet_atoms.inet_async; hp[2] = driver_port_term(u->port);
    hp[3] = make_small(ref); hp[4] = result;
    driver_send(u->port, pid, make_boxed(hp));
}

static void passive_msg(Udp *u) {
    Term *hp = driver_heap(u->port, 3);
    hp[0] = make_tuple_header(2); hp[1] = inet_atoms.udp_passive; hp[2] = driver_port_term(u->port);
    driver_send(u->port, driver_connected(u->port), make_boxed(hp));
}

static void *udp_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)opts;
    inet_atoms_init();
    int fd = inet_start_fd(command, SOCK_DGRAM, err);
    if (fd < 0) return NULL;
    Udp *u = calloc(1, sizeof *u);
    if (!u) { close(fd); *err = ATOM_TERM(system_limit); return NULL; }
    u->port = port;
    u->fd = fd;
    u->o.active = ACTIVE_TRUE;
    return u;
}

static void udp_stop(void *drv) {
    Udp *u = drv;
    if (u->recv_waiting) {
        Term *hp = driver_heap(u->port, 3);
        hp[0] = make_tuple_header(2); hp[1] = inet_atoms.error; hp[2] = inet_atoms.closed;
        async_reply(u, u->recv_pid, u->recv_ref, make_boxed(hp));
    }
    sel_read(u, 0);
    close(u->fd);
    free(u);
}

static int wants_data(Udp *u) { return u->recv_waiting || u->o.active != ACTIVE_FALSE; }

static void pump(Udp *u) {
    static __thread char buf[DGRAM_MAX];
    for (int turn = 0;; turn++) {
        if (!wants_data(u)) { sel_read(u, 0); return; }
        if (turn >= READ_TURN) { sel_read(u, 1); return; }
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(u->fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        if (n < 0) {
            if (errno == EINTR) continue;
            /* EAGAIN; or an ICMP error from an earlier send (ECONNREFUSED): wait on */
            if (errno == EAGAIN || errno == EWOULDBLOCK) { sel_read(u, 1); return; }
            continue;
        }
        Term portno, ip = inet_addr_term(u->port, (struct sockaddr *)&from, &portno);
        Term d = inet_data_term(u->port, u->o.binary, buf, (size_t)n);
        if (u->recv_waiting) {
            u->recv_waiting = 0;
            Term *hp = driver_heap(u->port, 7);
            hp[0] = make_tuple_header(3); hp[1] = ip; hp[2] = portno; hp[3] = d;
            hp[4] = make_tuple_header(2); hp[5] = inet_atoms.ok; hp[6] = make_boxed(hp);
            async_reply(u, u->recv_pid, u->recv_ref, make_boxed(hp + 4));
            continue;
        }
        Term *hp = driver_heap(u->port, 6);
        hp[0] = make_tuple_header(5); hp[1] = inet_atoms.udp; hp[2] = driver_port_term(u->port);
        hp[3] = ip; hp[4] = portno; hp[5] = d;
        driver_send(u->port, driver_connected(u->port), make_boxed(hp));
        if (u->o.active == ACTIVE_ONCE) u->o.active = ACTIVE_FALSE;
        else if (u->o.active > 0 && --u->o.active == 0) passive_msg(u);
    }
}

static long udp_control(void *drv, unsigned cmd, const char *cbuf, size_t len, DrvBuf *r) {
    Udp *u = drv;
    const unsigned char *buf = (const unsigned char *)cbuf, *end = buf + len;
    switch (cmd) {
    case INET_OP_BIND: {
        InetAddr a;
        if (!inet_addr_read(&buf, end, &a)) return inet_reply_err(r, "einval");
        if (bind(u->fd, (struct sockaddr *)&a.ss, a.len) < 0) return inet_reply_errno(r, errno);
        pump(u);
        return inet_reply_ok(r, NULL, 0);
    }
    case INET_OP_SENDTO: {
        InetAddr a;
        if (!inet_addr_read(&buf, end, &a)) return inet_reply_err(r, "einval");
        ssize_t n;
        do n = sendto(u->fd, buf, (size_t)(end - buf), MSG_NOSIGNAL, (struct sockaddr *)&a.ss, a.len);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNREFUSED)
            return inet_reply_errno(r, errno);
        return inet_reply_ok(r, NULL, 0);
    }
    case INET_OP_RECV: {
        if (u->o.active != ACTIVE_FALSE) return inet_reply_err(r, "einval");
        if (u->recv_waiting) return inet_reply_err(r, "ealready");
        u->recv_waiting = 1;
        u->recv_pid = driver_caller(u->port);
        u->recv_ref = ++u->next_ref;
        uint32_t ref = u->recv_ref;
        pump(u);
        return inet_reply_wait(r, ref);
    }
    case INET_OP_CANCEL: {
        if (len != 4) return inet_reply_err(r, "einval");
        if (u->recv_waiting && u->recv_ref == inet_get32(buf)) {
            u->recv_waiting = 0;
            pump(u);
            return inet_reply_ok(r, NULL, 0);
        }
        return inet_reply_ok(r, "n", 1);
    }
    case INET_OP_SETOPTS: {
        int aset, aval;
        int e = inet_setopts(u->fd, &u->o, buf, len, &aset, &aval);
        if (e) return inet_reply_errno(r, e);
        if (aset == 1) u->o.active = aval;
        else if (aset == 2) {
            long n = (long)aval + (u->o.active > 0 ? u->o.active : 0);
            if (n > 0) u->o.active = n > 32767 ? 32767 : (int)n;
            else { u->o.active = ACTIVE_FALSE; passive_msg(u); }
        }
        pump(u);
        return inet_reply_ok(r, NULL, 0);
    }
    case INET_OP_GETOPTS: {
        OutBuf b;
        ob_init(&b);
        int e = inet_getopts(u->fd, &u->o, buf, len, &b);
        long n = e ? inet_reply_errno(r, e) : inet_reply_ok(r, b.buf, b.len);
        ob_free(&b);
        return n;
    }
    case INET_OP_SOCKNAME: return inet_reply_sockname(u->fd, 0, r);
    case INET_OP_PEERNAME: return inet_reply_sockname(u->fd, 1, r);
    default: return -1;
    }
}

static void udp_ready_input(void *drv, int fd) {
    Udp *u = drv;
    if (fd == u->fd) pump(u);
}

const DrvEntry drv_udp_inet = {
    .name = "udp_inet",
    .start = udp_start,
    .stop = udp_stop,
    .control = udp_control,
    .ready_input = udp_ready_input,
};
