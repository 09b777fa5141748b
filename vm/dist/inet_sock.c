/* inet_sock.c — the parts of the socket drivers that TCP and UDP share:
 * addresses, options, errno atoms and control replies (the protocol is
 * described in inet_sock.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inet_sock.h"
#include "atom.h"

InetAtoms inet_atoms;

static void atoms_make(void) {
    inet_atoms.tcp = atom_intern_cstr("tcp");
    inet_atoms.tcp_closed = atom_intern_cstr("tcp_closed");
    inet_atoms.tcp_passive = atom_intern_cstr("tcp_passive");
    inet_atoms.tcp_error = atom_intern_cstr("tcp_error");
    inet_atoms.udp = atom_intern_cstr("udp");
    inet_atoms.udp_passive = atom_intern_cstr("udp_passive");
    inet_atoms.inet_async = atom_intern_cstr("inet_async");
    inet_atoms.inet_reply = atom_intern_cstr("inet_reply");
    inet_atoms.ok = atom_intern_cstr("ok");
    inet_atoms.error = atom_intern_cstr("error");
    inet_atoms.closed = atom_intern_cstr("closed");
    inet_atoms.timeout = atom_intern_cstr("timeout");
}

void inet_atoms_init(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, atoms_make);
}

uint32_t inet_get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(OutBuf *b, uint32_t v) {
    ob_putc(b, (int)(v >> 24)); ob_putc(b, (int)(v >> 16 & 0xFF));
    ob_putc(b, (int)(v >> 8 & 0xFF)); ob_putc(b, (int)(v & 0xFF));
}

/* ---- addresses ---- */

int inet_addr_read(const unsigned char **pp, const unsigned char *end, InetAddr *a) {
    const unsigned char *p = *pp;
    memset(a, 0, sizeof *a);
    if (p >= end) return 0;
    if (*p == 4) {
        if (end - p < 7) return 0;
        struct sockaddr_in *s = (struct sockaddr_in *)&a->ss;
        s->sin_family = AF_INET;
        memcpy(&s->sin_addr, p + 1, 4);
        s->sin_port = htons((uint16_t)(p[5] << 8 | p[6]));
        a->len = sizeof *s;
        *pp = p + 7;
        return 1;
    }
    if (*p == 6) {
        if (end - p < 19) return 0;
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a->ss;
        s->sin6_family = AF_INET6;
        memcpy(&s->sin6_addr, p + 1, 16);
        s->sin6_port = htons((uint16_t)(p[17] << 8 | p[18]));
        a->len = sizeof *s;
        *pp = p + 19;
        return 1;
    }
    return 0;
}

void inet_addr_write(OutBuf *b, const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
        ob_putc(b, 6);
        ob_write(b, (const char *)&s->sin6_addr, 16);
        uint16_t port = ntohs(s->sin6_port);
        ob_putc(b, port >> 8); ob_putc(b, port & 0xFF);
    } else {
        const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
        ob_putc(b, 4);
        ob_write(b, (const char *)&s->sin_addr, 4);
        uint16_t port = ntohs(s->sin_port);
        ob_putc(b, port >> 8); ob_putc(b, port & 0xFF);
    }
}

Term inet_addr_term(DrvPort *port, const struct sockaddr *sa, Term *port_no) {
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
        const unsigned char *a = s->sin6_addr.s6_addr;
        Term *hp = driver_heap(port, 9);
        hp[0] = make_tuple_header(8);
        for (int i = 0; i < 8; i++) hp[1 + i] = make_small(a[2 * i] << 8 | a[2 * i + 1]);
        *port_no = make_small(ntohs(s->sin6_port));
        return make_boxed(hp);
    }
    const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
    const unsigned char *a = (const unsigned char *)&s->sin_addr;
    Term *hp = driver_heap(port, 5);
    hp[0] = make_tuple_header(4);
    for (int i = 0; i < 4; i++) hp[1 + i] = make_small(a[i]);
    *port_no = make_small(ntohs(s->sin_port));
    return make_boxed(hp);
}

/* ---- errors and replies ---- */

const char *inet_errno_name(int e) {
    static __thread char buf[32];
    const char *n = strerrorname_np(e);
    if (!n) return "eio";
    size_t i = 0;
    for (; n[i] && i + 1 < sizeof buf; i++) buf[i] = (char)tolower((unsigned char)n[i]);
    buf[i] = 0;
    return buf;
}

Term inet_errno_atom(int e) { return atom_intern_cstr(inet_errno_name(e)); }

static long reply(DrvBuf *r, int tag, const void *payload, size_t n) {
    if (n + 1 > r->size) {
        char *m = malloc(n + 1);
        if (!m) return -1;
        r->buf = m;
    }
    r->buf[0] = (char)tag;
    if (n) memcpy(r->buf + 1, payload, n);
    return (long)n + 1;
}

long inet_reply_ok(DrvBuf *r, const void *payload, size_t n) { return reply(r, 'o', payload, n); }
long inet_reply_err(DrvBuf *r, const char *atom) { return reply(r, 'e', atom, strlen(atom)); }
long inet_reply_errno(DrvBuf *r, int e) { return inet_reply_err(r, inet_errno_name(e)); }

long inet_reply_wait(DrvBuf *r, uint32_t ref) {
    unsigned char b[4] = { (unsigned char)(ref >> 24), (unsigned char)(ref >> 16),
                           (unsigned char)(ref >> 8), (unsigned char)ref };
    return reply(r, 'w', b, 4);
}

/* ---- options ---- */

static int sockopt_of(int code, int *level, int *name) {
    switch (code) {
    case INET_OPT_REUSEADDR: *level = SOL_SOCKET; *name = SO_REUSEADDR; return 1;
    case INET_OPT_KEEPALIVE: *level = SOL_SOCKET; *name = SO_KEEPALIVE; return 1;
    case INET_OPT_SNDBUF: *level = SOL_SOCKET; *name = SO_SNDBUF; return 1;
    case INET_OPT_RECBUF: *level = SOL_SOCKET; *name = SO_RCVBUF; return 1;
    case INET_OPT_BROADCAST: *level = SOL_SOCKET; *name = SO_BROADCAST; return 1;
    case INET_OPT_NODELAY: *level = IPPROTO_TCP; *name = TCP_NODELAY; return 1;
    case INET_OPT_IPV6_V6ONLY: *level = IPPROTO_IPV6; *name = IPV6_V6ONLY; return 1;
    default: return 0;
    }
}

int inet_setopts(int fd, InetOpts *o, const unsigned char *buf, size_t len, int *active_set, int *active_val) {
    *active_set = 0;
    if (len % 5) return EINVAL;
    for (size_t i = 0; i < len; i += 5) {
        int code = buf[i];
        int v = (int)inet_get32(buf + i + 1);
        int level, name;
        switch (code) {
        case INET_OPT_ACTIVE:
            if (v != ACTIVE_TRUE && v != ACTIVE_FALSE && v != ACTIVE_ONCE) return EINVAL;
            *active_set = 1; *active_val = v;
            break;
        case INET_OPT_ACTIVE_N:
            if (v < -32768 || v > 32767) return EINVAL;
            *active_set = 2; *active_val = v;
            break;
        case INET_OPT_PACKET:
            if (v != 0 && v != 1 && v != 2 && v != 4 && v != PACKET_LINE) return EINVAL;
            o->packet = v;
            break;
        case INET_OPT_BINARY: o->binary = v != 0; break;
        case INET_OPT_EXIT_ON_CLOSE: o->exit_on_close = v != 0; break;
        default:
            if (!sockopt_of(code, &level, &name)) return EINVAL;
            if (setsockopt(fd, level, name, &v, sizeof v) < 0) return errno;
        }
    }
    return 0;
}

int inet_getopts(int fd, const InetOpts *o, const unsigned char *buf, size_t len, OutBuf *out) {
    for (size_t i = 0; i < len; i++) {
        int code = buf[i], v = 0, level, name;
        switch (code) {
        case INET_OPT_ACTIVE: v = o->active; break;
        case INET_OPT_PACKET: v = o->packet; break;
        case INET_OPT_BINARY: v = o->binary; break;
        case INET_OPT_EXIT_ON_CLOSE: v = o->exit_on_close; break;
        default: {
            if (!sockopt_of(code, &level, &name)) return EINVAL;
            socklen_t l = sizeof v;
            if (getsockopt(fd, level, name, &v, &l) < 0) return errno;
            if (code != INET_OPT_SNDBUF && code != INET_OPT_RECBUF) v = v != 0;
        }
        }
        ob_putc(out, code);
        put32(out, (uint32_t)v);
    }
    return 0;
}

void inet_opts_blob(int fd, const InetOpts *o, OutBuf *out) {
    static const unsigned char codes[] = { INET_OPT_PACKET, INET_OPT_BINARY, INET_OPT_EXIT_ON_CLOSE,
                                           INET_OPT_NODELAY, INET_OPT_KEEPALIVE };
    ob_putc(out, o->active > 0 ? INET_OPT_ACTIVE_N : INET_OPT_ACTIVE);
    put32(out, (uint32_t)o->active);
    inet_getopts(fd, o, codes, sizeof codes, out);
}

/* ---- sockets ---- */

int inet_socket(int family, int type) {
    int fd = socket(family == 6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0 && family == 6) {
        /* an inet6 socket is IPv6 only, as Erlang's: inet and inet6 are
         * separate sockets on the same port */
        int one = 1;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    }
    return fd;
}

int inet_start_fd(const char *command, int type, Term *err) {
    const char *arg = strchr(command, ' ');
    if (!arg) { *err = AM_badarg; return -1; }
    arg++;
    int fd;
    if (strncmp(arg, "accept ", 7) == 0) {
        char *e;
        long n = strtol(arg + 7, &e, 10);
        if (*e || n < 0 || type != SOCK_STREAM) { *err = AM_badarg; return -1; }
        fd = (int)n;
        int t;
        socklen_t tl = sizeof t;
        /* only a stream socket will do: the number came from an accept */
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) < 0 || t != SOCK_STREAM) { *err = AM_badarg; return -1; }
        return fd;
    }
    int fam = strcmp(arg, "inet") == 0 ? 4 : strcmp(arg, "inet6") == 0 ? 6 : 0;
    if (!fam) { *err = AM_badarg; return -1; }
    fd = inet_socket(fam, type);
    if (fd < 0) *err = inet_errno_atom(errno);
    return fd;
}

Term inet_data_term(DrvPort *port, int binary, const char *b, size_t n) {
    if (binary) return driver_binary(port, b, n);
    Term *hp = driver_heap(port, 2 * n), l = NIL;
    for (size_t i = n; i-- > 0;) {
        hp[2 * i] = make_small((unsigned char)b[i]);
        hp[2 * i + 1] = l;
        l = make_list(hp + 2 * i);
    }
    return l;
}

long inet_reply_sockname(int fd, int peer, DrvBuf *r) {
    struct sockaddr_storage ss;
    socklen_t l = sizeof ss;
    if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &l) : getsockname(fd, (struct sockaddr *)&ss, &l)) < 0)
        return inet_reply_errno(r, errno);
    OutBuf b;
    ob_init(&b);
    inet_addr_write(&b, (struct sockaddr *)&ss);
    long n = inet_reply_ok(r, b.buf, b.len);
    ob_free(&b);
    return n;
}
