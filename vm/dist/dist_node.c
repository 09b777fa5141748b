/* dist_node.c — who this node is: its name (-sname/-name), creation,
 * cookie, its registration with epmd and its listen socket, and the BIFs
 * that ask about them (node/0,1, is_alive/0, get_cookie/0, set_cookie/2).
 *
 * Start-up is blocking and happens once, before the schedulers run: the
 * listen socket is bound to an ephemeral port, epmd (127.0.0.1:4369; started
 * with `epmd -daemon` when nobody answers, as erl does) is told the name and
 * port with ALIVE2_REQ, and its answer carries the creation that every pid,
 * port and ref of this node will carry. The epmd socket stays open for the
 * node's life: closing it unregisters the name.
 *
 * The cookie: -setcookie wins; otherwise $HOME/.erlang.cookie, which must be
 * readable by its owner only (else the node refuses to start, as erl does)
 * and is created with 20 random capital letters, mode 0400, when missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dist_int.h"
#include "atom.h"
#include "bif.h"
#include "proc.h"

extern char **environ;

/* Set once, at start-up or by net_kernel:start/1,2 while processes run:
 * atomics, written before `alive`. */
static _Atomic Term this_node = ATOM_TERM(nonode);
static _Atomic uint32_t this_creation;
static _Atomic Term cookie = NIL;        /* an atom once alive */
static _Atomic int alive;
static int hidden_node, listen_fd = -1, epmd_fd = -1;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *preset_cookie;        /* -setcookie without -sname/-name */

void dist_preset_cookie(const char *ck) { preset_cookie = ck; }

/* ---- node numbers for printing ---- */

#define MAX_NODE_NUMBERS 4096    /* distinct nodes a run prints; more share 0 */
static pthread_mutex_t numbers_lock = PTHREAD_MUTEX_INITIALIZER;
static Term numbered[MAX_NODE_NUMBERS];
static unsigned long nnumbered;

unsigned long dist_node_number(Term node) {
    if (node == this_node) return 0;
    pthread_mutex_lock(&numbers_lock);
    unsigned long n = 0;
    for (unsigned long i = 0; i < nnumbered; i++) if (numbered[i] == node) { n = i + 1; break; }
    if (!n && nnumbered < MAX_NODE_NUMBERS) { numbered[nnumbered++] = node; n = nnumbered; }
    pthread_mutex_unlock(&numbers_lock);
    /* erl's numbers are large; small ones here are as good and stable */
    return n;
}

/* ---- identity ---- */

Term dist_this_node(void) { return this_node; }
uint32_t dist_this_creation(void) { return this_creation; }
int dist_alive(void) { return alive; }
int dist_hidden(void) { return hidden_node; }
int dist_listen_fd(void) { return listen_fd; }
Term dist_cookie(void) { return atomic_load(&cookie); }

int dist_is_this(Term node, uint32_t creation) {
    if (node != this_node) return 0;
    return creation == this_creation || (!alive && creation == 0);
}

void dist_id_of(Term t, DistId *o) {
    if (is_external(t)) {
        o->node = external_node(t);
        o->creation = external_creation(t);
        o->n = external_nids(t);
        memcpy(o->ids, external_ids(t), o->n * sizeof(UWord));
        return;
    }
    o->node = this_node;
    o->creation = this_creation;
    if (is_pid(t)) {
        o->n = 2;
        o->ids[0] = pid_val(t) & 0x0FFFFFFF;
        o->ids[1] = pid_val(t) >> 28;
    } else if (is_port(t)) {
        o->n = 1;
        o->ids[0] = port_val(t);
    } else {                           /* a local ref: OTP's three words */
        uint64_t r = ref_number(t);
        o->n = 3;
        o->ids[0] = (uint32_t)r;
        o->ids[1] = (uint32_t)(r >> 32);
        o->ids[2] = 0;
    }
}

/* ---- cookie ---- */

static int cookie_load(void) {
    const char *home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/.erlang.cookie", home ? home : ".");
    struct stat st;
    if (stat(path, &st) != 0) {
        /* missing: made as erl makes it (20 random A-Z, owner read-only) */
        char c[21];
        unsigned s = (unsigned)time(NULL) ^ (unsigned)getpid() << 8;
        int rfd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        for (int i = 0; i < 20; i++) {
            unsigned char b = 0;
            if (rfd < 0 || read(rfd, &b, 1) != 1) b = (unsigned char)(s = s * 1103515245 + 12345) >> 16;
            c[i] = (char)('A' + b % 26);
        }
        c[20] = 0;
        if (rfd >= 0) close(rfd);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
        if (fd < 0 || write(fd, c, 20) != 20) {
            fprintf(stderr, "Failed to create cookie file '%s': %s\n", path, strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
        close(fd);
        atomic_store(&cookie, atom_intern_cstr(c));
        return 0;
    }
    if (st.st_mode & 077) {
        fprintf(stderr, "Cookie file %s must be accessible by owner only\n", path);
        return -1;
    }
    FILE *f = fopen(path, "r");
    char buf[256];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    if (!f) { fprintf(stderr, "Cannot read cookie file %s: %s\n", path, strerror(errno)); return -1; }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
    atomic_store(&cookie, atom_intern(buf, n));
    return 0;
}

/* ---- epmd ---- */

static int epmd_connect(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(EPMD_PORT) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { close(fd); return -1; }
    return fd;
}

int dist_host_addr(const char *host, unsigned port, struct addrinfo **res) {
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
    char ps[16];
    snprintf(ps, sizeof ps, "%u", port);
    if (host && *host && getaddrinfo(host, ps, &hints, res) == 0) return 0;
    return getaddrinfo("127.0.0.1", ps, &hints, res) == 0 ? 0 : -1;
}

/* The epmd of the host a node name names (the part after '@'), to look a
 * node up: this node registers with its own epmd on loopback, but another
 * node's port is known only to the epmd of that node's host (a host that
 * does not resolve is this one: dist_host_addr). The connect waits at most
 * EPMD_CONNECT_S: it runs on a scheduler, in the connection port's start. */
#define EPMD_CONNECT_S 3
static int epmd_connect_host(const char *host) {
    struct addrinfo *res;
    if (dist_host_addr(host, EPMD_PORT, &res) != 0) return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        struct timeval tv = { .tv_sec = EPMD_CONNECT_S };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, res->ai_addr, res->ai_addrlen) < 0) { close(fd); fd = -1; }
    }
    freeaddrinfo(res);
    return fd;
}

static void epmd_spawn(void) {
    char *argv[] = { "epmd", "-daemon", NULL };
    pid_t pid;
    if (posix_spawnp(&pid, "epmd", NULL, NULL, argv, environ) != 0) {
        argv[0] = "/usr/lib/erlang/bin/epmd";
        if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) return;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
}

int dist_read_full(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r; n -= (size_t)r;
    }
    return 0;
}

int dist_write_full(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r; n -= (size_t)r;
    }
    return 0;
}

/* ALIVE2_REQ; the creation, or -1 (*taken set when epmd refused the name). */
static long epmd_register(int fd, const char *name, unsigned port, int *taken) {
    size_t nl = strlen(name);
    unsigned char req[512];
    size_t k = 2;
    req[k++] = 120;
    req[k++] = (unsigned char)(port >> 8); req[k++] = (unsigned char)port;
    req[k++] = hidden_node ? 72 : 77;
    req[k++] = 0;
    req[k++] = 0; req[k++] = DIST_VERSION;      /* highest */
    req[k++] = 0; req[k++] = DIST_VERSION;      /* lowest */
    req[k++] = (unsigned char)(nl >> 8); req[k++] = (unsigned char)nl;
    memcpy(req + k, name, nl); k += nl;
    req[k++] = 0; req[k++] = 0;                 /* no extra */
    req[0] = (unsigned char)((k - 2) >> 8); req[1] = (unsigned char)(k - 2);
    if (dist_write_full(fd, req, k) < 0) return -1;
    unsigned char r[6];
    if (dist_read_full(fd, r, 2) < 0) return -1;
    if (r[0] != 118 && r[0] != 121) return -1;
    if (dist_read_full(fd, r + 2, r[0] == 118 ? 4 : 2) < 0) return -1;
    if (r[1] != 0) { *taken = 1; return -1; }
    if (r[0] == 121) return ((long)r[2] << 8) | r[3];
    return (long)((uint32_t)r[2] << 24 | (uint32_t)r[3] << 16 | (uint32_t)r[4] << 8 | r[5]);
}

int dist_epmd_port_please(const char *host, const char *name, unsigned *port) {
    int fd = epmd_connect_host(host);
    if (fd < 0) return -1;
    size_t nl = strlen(name);
    unsigned char req[300];
    if (nl > 255) { close(fd); return -1; }
    req[0] = (unsigned char)((nl + 1) >> 8); req[1] = (unsigned char)(nl + 1); req[2] = 122;
    memcpy(req + 3, name, nl);
    unsigned char r[4];
    int ok = dist_write_full(fd, req, nl + 3) == 0 && dist_read_full(fd, r, 2) == 0 && r[0] == 119 &&
             r[1] == 0 && dist_read_full(fd, r + 2, 2) == 0;
    close(fd);
    if (!ok) return -1;
    *port = (unsigned)r[2] << 8 | r[3];
    return 0;
}

/* ---- start-up ---- */

static int listen_open(unsigned *port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 128) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int dist_start(const char *name, int longnames, const char *ck, int hidden) {
    char host[256], full[600], alive_name[256];
    const char *at = strchr(name, '@');
    size_t al = at ? (size_t)(at - name) : strlen(name);
    if (al == 0 || al >= sizeof alive_name) { fprintf(stderr, "Invalid node name: %s\n", name); return -1; }
    memcpy(alive_name, name, al);
    alive_name[al] = 0;
    if (at) snprintf(host, sizeof host, "%s", at + 1);
    else {
        if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
        host[sizeof host - 1] = 0;
        if (!longnames) { char *dot = strchr(host, '.'); if (dot) *dot = 0; }
    }
    snprintf(full, sizeof full, "%s@%s", alive_name, host);
    hidden_node = hidden;
    if (!ck) ck = preset_cookie;
    if (ck) atomic_store(&cookie, atom_intern_cstr(ck));
    else if (cookie_load() < 0) return -1;
    unsigned port;
    if ((listen_fd = listen_open(&port)) < 0) {
        fprintf(stderr, "Protocol 'inet_tcp': cannot listen: %s\n", strerror(errno));
        return -1;
    }
    int fd = epmd_connect();
    for (int i = 0; fd < 0 && i < 50; i++) {
        if (i == 0) epmd_spawn();
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        fd = epmd_connect();
    }
    if (fd < 0) { fprintf(stderr, "Protocol 'inet_tcp': register/listen error: econnrefused (no epmd)\n"); return -1; }
    long cr = -1;
    int taken = 0;
    for (int i = 0; i < 5 && cr < 0; i++) {
        taken = 0;
        cr = epmd_register(fd, alive_name, port, &taken);
        if (cr >= 0 || !taken) break;
        /* a quick re-register can race epmd's noticing the old socket close */
        close(fd);
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        if ((fd = epmd_connect()) < 0) break;
    }
    if (cr < 0) {
        if (taken) fprintf(stderr, "Protocol 'inet_tcp': the name %s seems to be in use by another Erlang node\n", full);
        else fprintf(stderr, "Protocol 'inet_tcp': register/listen error: epmd did not answer\n");
        if (fd >= 0) close(fd);
        return -1;
    }
    epmd_fd = fd;
    this_creation = (uint32_t)cr;
    this_node = atom_intern_cstr(full);
    alive = 1;
    return 0;
}

/* ---- the tick time ---- */

/* net_kernel ticks every connection each ticktime/4 and a connection with
 * nothing read for four ticks ends (dist_conn.c), so a silent peer is
 * found gone after ticktime to 1.25 x ticktime, as on Erlang. */
static _Atomic long net_ticktime = 60;

void dist_set_ticktime(long seconds) { atomic_store(&net_ticktime, seconds); }

/* erlang:dist_ticktime(): the tick time in seconds; dist_ticktime(T) sets
 * it (net_kernel:set_net_ticktime/1,2), taken at the next tick. */
Term bif_dist_ticktime_0(Process *p, Term *args) {
    (void)p; (void)args;
    return make_small(atomic_load(&net_ticktime));
}

Term bif_dist_ticktime_1(Process *p, Term *args) {
    if (!is_small(args[0]) || small_val(args[0]) < 1 || small_val(args[0]) > 1000000) BIF_ERROR(p, AM_badarg);
    dist_set_ticktime((long)small_val(args[0]));
    return AM_ok;
}

/* Spawns and registers one of the node's servers. */
static void spawn_registered(Process *parent, const char *name, Term module, const char *fun) {
    uint64_t ref;
    Term pid = proc_spawn(parent, module, atom_intern_cstr(fun), NIL, NULL, &ref);
    Process *sp = proc_lookup(pid);
    if (sp) { proc_register(atom_intern_cstr(name), sp); proc_release(sp); }
}

/* The node's servers (stdlib/net_kernel.mini, stdlib/global.mini):
 * net_kernel, rex and global_name_server, each registered here before any
 * other process can run, so a first send, rpc or global call on a node that
 * has just come alive never finds a name missing. */
void dist_spawn_kernel(Process *parent) {
    spawn_registered(parent, "net_kernel", ATOM_TERM(net_kernel), "start_kernel");
    spawn_registered(parent, "rex", ATOM_TERM(net_kernel), "rex_start");
    spawn_registered(parent, "global_name_server", atom_intern_cstr("global"), "start_server");
}

/* ---- BIFs ---- */

/* erlang:dist_start(Name, Longnames): net_kernel:start/1,2 on a node started
 * without -sname/-name. Starts the node as the flags would and spawns
 * net_kernel; the node's own pids print and encode with the new name from
 * then on, as in Erlang. ok, or an error atom. */
Term bif_dist_start_2(Process *p, Term *args) {
    if (!is_atom(args[0]) || (args[1] != AM_true && args[1] != AM_false)) BIF_ERROR(p, AM_badarg);
    pthread_mutex_lock(&start_lock);
    if (alive) { pthread_mutex_unlock(&start_lock); return ATOM_TERM(already_started); }
    size_t n;
    const char *s = atom_name(args[0], &n);
    char name[600];
    if (n >= sizeof name) { pthread_mutex_unlock(&start_lock); return ATOM_TERM(badarg); }
    memcpy(name, s, n);
    name[n] = 0;
    int r = dist_start(name, args[1] == AM_true, NULL, 0);
    pthread_mutex_unlock(&start_lock);
    if (r < 0) return atom_intern_cstr("not_started");
    dist_spawn_kernel(p);
    return AM_ok;
}

Term bif_node_0(Process *p, Term *args) { (void)p; (void)args; return this_node; }

Term bif_node_1(Process *p, Term *args) {
    Term t = args[0];
    if (is_external(t)) return external_node(t);
    if (is_pid(t) || is_port(t) || is_ref(t)) return this_node;
    BIF_ERROR(p, AM_badarg);
}

Term bif_is_alive_0(Process *p, Term *args) { (void)p; (void)args; return BOOL(alive); }

Term bif_get_cookie_0(Process *p, Term *args) {
    (void)p; (void)args;
    return alive ? atomic_load(&cookie) : ATOM_TERM(nocookie);
}

/* set_cookie(Node, Cookie): this node's own cookie; for another node, the
 * cookie to use with it (kept in the connection table, dist_conn.c). */
Term bif_set_cookie_2(Process *p, Term *args) {
    if (!is_atom(args[0]) || !is_atom(args[1])) BIF_ERROR(p, AM_badarg);
    if (!alive) BIF_ERROR(p, AM_badarg);
    if (args[0] == this_node) atomic_store(&cookie, args[1]);
    else if (dist_node_cookie_set(args[0], args[1]) < 0) BIF_ERROR(p, ATOM_TERM(system_limit));
    return AM_true;
}
