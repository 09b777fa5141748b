/* inet_sock.h — what the socket drivers (drv_tcp.c, drv_udp.c) share: the
 * port_control protocol between them and stdlib/inet.mini, addresses in
 * that protocol, socket options, errno atoms and the replies.
 *
 * The protocol. stdlib/inet.mini talks to a socket's port only through
 * port_control(S, Op, Bytes); every reply starts with one byte:
 *   'o' ok, followed by the op's payload (may be empty);
 *   'e' an error, followed by the name of the error atom (econnrefused...);
 *   'w' wait: followed by a 32-bit reference; the result comes later as the
 *       message {inet_async, S, Ref, Result} to the process that asked;
 *   'b' busy: send queued the data but the queue is long; the caller waits
 *       for {inet_reply, S, Status} (sent when the queue has drained);
 *   'n' nothing to cancel (the result was sent already).
 * An address is its family byte (4 or 6), 4 or 16 address bytes, then the
 * port as 16 bits big-endian. Options are [code:8, value:32 signed]...
 */
#ifndef MINI_INET_SOCK_H
#define MINI_INET_SOCK_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "driver.h"
#include "outbuf.h"

enum {
    INET_OP_BIND = 1, INET_OP_LISTEN, INET_OP_CONNECT, INET_OP_ACCEPT, INET_OP_RECV,
    INET_OP_CANCEL, INET_OP_SEND, INET_OP_SETOPTS, INET_OP_GETOPTS, INET_OP_SOCKNAME,
    INET_OP_PEERNAME, INET_OP_SHUTDOWN, INET_OP_SENDTO,
};

/* option codes (inet.mini has the same table) */
enum {
    INET_OPT_ACTIVE = 1, INET_OPT_PACKET, INET_OPT_BINARY, INET_OPT_REUSEADDR, INET_OPT_NODELAY,
    INET_OPT_KEEPALIVE, INET_OPT_SNDBUF, INET_OPT_RECBUF, INET_OPT_BROADCAST, INET_OPT_EXIT_ON_CLOSE,
    INET_OPT_IPV6_V6ONLY, INET_OPT_ACTIVE_N,
};

/* the `active` option's values on the wire */
enum { ACTIVE_TRUE = -1, ACTIVE_FALSE = 0, ACTIVE_ONCE = -2 };
/* {packet, line} on the wire (the others are their header size; raw is 0) */
enum { PACKET_LINE = 5 };

/* Options both drivers keep. active: ACTIVE_TRUE, ACTIVE_FALSE, ACTIVE_ONCE,
 * or N > 0 messages left before the socket turns passive. */
typedef struct InetOpts {
    int active, packet, binary, exit_on_close;
} InetOpts;

typedef struct InetAddr {
    struct sockaddr_storage ss;
    socklen_t len;
} InetAddr;

/* Reads an address from *p (advancing it); 0 if malformed. */
int inet_addr_read(const unsigned char **p, const unsigned char *end, InetAddr *a);
/* Writes a in the protocol's form. */
void inet_addr_write(OutBuf *b, const struct sockaddr *sa);
/* {A,B,C,D} or the eight-tuple of IPv6, with the port: for {udp, S, IP, Port, D}. */
Term inet_addr_term(DrvPort *port, const struct sockaddr *sa, Term *port_no);

/* errno as Erlang's atom name (econnrefused, eaddrinuse, ...). */
const char *inet_errno_name(int e);
Term inet_errno_atom(int e);

/* Replies to port_control. */
long inet_reply_ok(DrvBuf *r, const void *payload, size_t n);
long inet_reply_err(DrvBuf *r, const char *atom);
long inet_reply_errno(DrvBuf *r, int e);
/* fd's own address (peer 0) or its peer's, as the reply to sockname/peername. */
long inet_reply_sockname(int fd, int peer, DrvBuf *r);
long inet_reply_wait(DrvBuf *r, uint32_t ref);

/* Sets the options in buf on fd and o. `active` is left to the caller:
 * *active_set is 1 for true/false/once, 2 for {active, N}, with the value in
 * *active_val; 0 if not given. Returns 0, or an errno. */
int inet_setopts(int fd, InetOpts *o, const unsigned char *buf, size_t len, int *active_set, int *active_val);
/* The options asked for in buf, as the getopts payload; 0 or an errno. */
int inet_getopts(int fd, const InetOpts *o, const unsigned char *buf, size_t len, OutBuf *out);
/* The options a listening socket hands to the sockets it accepts. */
void inet_opts_blob(int fd, const InetOpts *o, OutBuf *out);

/* A new non-blocking socket: family 4 or 6, SOCK_STREAM or SOCK_DGRAM; -1 with errno. */
int inet_socket(int family, int type);
/* The "NAME inet|inet6" or "NAME accept FD" command of open_port; the fd or -1. */
int inet_start_fd(const char *command, int type, Term *err);

/* Data as the socket's mode wants it: a binary or a list of bytes. */
Term inet_data_term(DrvPort *port, int binary, const char *b, size_t n);

uint32_t inet_get32(const unsigned char *p);

/* atoms the drivers send, made once */
typedef struct InetAtoms {
    Term tcp, tcp_closed, tcp_passive, tcp_error, udp, udp_passive, inet_async, inet_reply, ok, error,
        closed, timeout;
} InetAtoms;
extern InetAtoms inet_atoms;
void inet_atoms_init(void);

#endif
