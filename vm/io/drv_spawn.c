/* drv_spawn.c — external programs as ports: the drivers `spawn`
 * (open_port({spawn, Cmd}, _): `/bin/sh -c "exec Cmd"`, as erl runs it) and
 * `spawn_executable` (open_port({spawn_executable, Path}, _) with `args`,
 * `arg0`), both with `cd`, `env`, `{line, N}`, `{packet, N}`, `binary`,
 * `exit_status`, `use_stdio`/`nouse_stdio`, `stderr_to_stdout`, `eof`,
 * `in`/`out`.
 *
 * The program is started with posix_spawn (glibc's is a vfork: no copy of
 * the VM's address space) and talks through two pipes whose VM ends are
 * non-blocking and close-on-exec. Nothing here blocks or owns a thread: the
 * program's output is read when the poller (poll.c) says its pipe is
 * readable, at most READ_TURN bytes a callback, and input that the pipe
 * cannot take at once waits in a queue until the pipe is writable. The end
 * of the program is seen through a pidfd, selected like the pipes, and it
 * is reaped there; a program still running when its port closes is handed
 * to the poller to reap (poll_reap_orphan), so no zombie stays.
 *
 * The end, as erl does it: when the program's output reaches end of file
 * (the rest of a line goes out as {noeol, Rest}), the port waits for the exit
 * status if `exit_status` was asked for, sends {Port, {exit_status, S}}
 * (128 + the signal for a program killed by one), then either {Port, eof}
 * (option `eof`: the port stays open) or closes with reason normal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "port.h"
#include "atom.h"
#include "outbuf.h"
#include "bifs/bif_file.h"

extern char **environ;

enum { READ_CHUNK = 16384, READ_TURN = 4 * READ_CHUNK };

typedef struct Spawn {
    DrvPort *port;
    pid_t pid;             /* 0 once reaped */
    int rfd, wfd, pidfd;   /* the program's output, its input, its pidfd; -1: none */
    int packet, line, binary, exit_status, eof_opt;
    int got_eof, got_status, status, finished;
    OutBuf in;             /* bytes read, not yet a whole packet or line */
    OutBuf out;            /* bytes the program's input has not taken yet */
    size_t out_off;
} Spawn;

static Term errno_atom(int e) {
    const char *s;
    switch (e) {
    case ENOENT: s = "enoent"; break;
    case EACCES: s = "eacces"; break;
    case ENOTDIR: s = "enotdir"; break;
    case E2BIG: s = "e2big"; break;
    case ENOMEM: s = "enomem"; break;
    case EMFILE: s = "emfile"; break;
    case ENFILE: s = "enfile"; break;
    case ELOOP: s = "eloop"; break;
    case ENAMETOOLONG: s = "enametoolong"; break;
    case ETXTBSY: s = "etxtbsy"; break;
    case ENOEXEC: s = "enoexec"; break;
    case EAGAIN: s = "eagain"; break;
    case EPIPE: s = "epipe"; break;
    case EBADF: s = "ebadf"; break;
    case EINVAL: s = "einval"; break;
    case EPERM: s = "eperm"; break;
    default: s = "eio"; break;
    }
    return atom_intern_cstr(s);
}

/* ---- the options with values: args, arg0, cd, env ---- */

/* A NUL-terminated copy of a text term (string, atom, binary), or NULL. */
static char *text_dup(Term t) {
    OutBuf b;
    if (file_name(&b, t) < 0) return NULL;
    char *s = strdup(ob_cstr(&b));
    ob_free(&b);
    return s;
}

typedef struct Argv { char **v; size_t n, cap; } Argv;

static int argv_add(Argv *a, char *s) {
    if (!s) return 0;
    if (a->n + 2 > a->cap) {
        size_t c = a->cap ? a->cap * 2 : 8;
        char **v = realloc(a->v, c * sizeof *v);
        if (!v) { free(s); return 0; }
        a->v = v; a->cap = c;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return 1;
}

static void argv_free(Argv *a) {
    for (size_t i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
}

/* The value of option {Key, V} (the last one given), or THE_NON_VALUE. */
static Term opt_value(Term opts, Term key) {
    Term v = THE_NON_VALUE;
    for (; is_list(opts); opts = list_tail(opts)) {
        Term x = list_head(opts);
        if (is_tuple(x) && tuple_arity(x) == 2 && tuple_elems(x)[0] == key) v = tuple_elems(x)[1];
    }
    return v;
}

/* The program's environment: the VM's, with {Name, Value | false} from the
 * `env` option put over it. 0 for a malformed option. */
static int env_build(Term env, Argv *out) {
    Argv over = {0};
    for (; is_list(env); env = list_tail(env)) {
        Term x = list_head(env);
        if (!is_tuple(x) || tuple_arity(x) != 2) goto bad;
        char *k = text_dup(tuple_elems(x)[0]);
        if (!k || !*k || strchr(k, '=')) { free(k); goto bad; }
        Term v = tuple_elems(x)[1];
        char *vs = NULL;
        if (v != AM_false) {
            if (!(vs = text_dup(v))) { free(k); goto bad; }
        }
        size_t kl = strlen(k);
        char *e = malloc(kl + 2 + (vs ? strlen(vs) : 0));
        if (!e) { free(k); free(vs); goto bad; }
        /* "K=V", or "K" alone for a variable to unset */
        strcpy(e, k);
        if (vs) { e[kl] = '='; strcpy(e + kl + 1, vs); }
        free(k); free(vs);
        if (!argv_add(&over, e)) goto bad;
    }
    if (env != NIL && !is_list(env)) goto bad;
    os_env_read_lock(1);
    int ok = 1;
    for (char **e = environ; *e && ok; e++) {
        size_t kl = strcspn(*e, "=");
        int hidden = 0;
        for (size_t i = 0; i < over.n && !hidden; i++)
            hidden = strncmp(over.v[i], *e, kl) == 0 && (over.v[i][kl] == '=' || over.v[i][kl] == 0);
        if (!hidden) ok = argv_add(out, strdup(*e));
    }
    os_env_read_lock(0);
    for (size_t i = 0; i < over.n && ok; i++)
        if (strchr(over.v[i], '=')) ok = argv_add(out, strdup(over.v[i]));
    argv_free(&over);
    return ok;
bad:
    argv_free(&over);
    return 0;
}

/* ---- starting the program ---- */

/* fd moved to a number above the child's standard ones (3 and 4 with
 * nouse_stdio), so that its dup2 in the child never lands on itself. */
static int fd_high(int fd) {
    if (fd < 0 || fd > 4) return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 5);
    close(fd);
    return n;
}

static void close_fd(int *fd) { if (*fd >= 0) { close(*fd); *fd = -1; } }

static long pidfd_of(pid_t pid) {
#ifdef SYS_pidfd_open
    return syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Starts the program; its pid, or -1 with *err set. */
static pid_t launch(const char *path, char *const argv[], char *const envp[], const char *cd,
                    const DrvOpts *o, int child_in, int child_out) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    int in_no = o->use_stdio ? 0 : 3, out_no = o->use_stdio ? 1 : 4;
    if (child_in >= 0) posix_spawn_file_actions_adddup2(&fa, child_in, in_no);
    if (child_out >= 0) {
        posix_spawn_file_actions_adddup2(&fa, child_out, out_no);
        if (o->stderr_to_stdout) posix_spawn_file_actions_adddup2(&fa, child_out, 2);
    }
    if (cd) posix_spawn_file_actions_addchdir_np(&fa, cd);
    /* the program starts with every signal unblocked and at its default
     * (SIGPIPE above all: it must die writing to a port that closed) */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int r = posix_spawn(&pid, path, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (r != 0) { errno = r; return -1; }
    return pid;
}

static void *spawn_common(DrvPort *port, const char *command, const DrvOpts *o, Term *err, int shell) {
    Argv argv = {0}, envp = {0};
    char *cd = NULL;
    Spawn *s = NULL;
    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
    *err = AM_badarg;
    const char *path;
    if (shell) {
        /* erl's way: the shell replaces itself with the command */
        OutBuf c;
        ob_init(&c);
        ob_puts(&c, "exec ");
        ob_puts(&c, command);
        path = "/bin/sh";
        int ok = argv_add(&argv, strdup("sh")) && argv_add(&argv, strdup("-c")) &&
                 argv_add(&argv, strdup(ob_cstr(&c)));
        ob_free(&c);
        if (!ok || opt_value(o->opts, ATOM_TERM(args)) != THE_NON_VALUE ||
            opt_value(o->opts, ATOM_TERM(arg0)) != THE_NON_VALUE)
            goto fail;
    } else {
        path = command;
        Term a0 = opt_value(o->opts, ATOM_TERM(arg0));
        if (!argv_add(&argv, a0 != THE_NON_VALUE ? text_dup(a0) : strdup(path))) goto fail;
        Term args = opt_value(o->opts, ATOM_TERM(args));
        if (args != THE_NON_VALUE) {
            for (; is_list(args); args = list_tail(args))
                if (is_small(list_head(args)) || !argv_add(&argv, text_dup(list_head(args)))) goto fail;
            if (args != NIL) goto fail;
        }
    }
    Term cdv = opt_value(o->opts, ATOM_TERM(cd));
    if (cdv != THE_NON_VALUE && !(cd = text_dup(cdv))) goto fail;
    Term env = opt_value(o->opts, ATOM_TERM(env));
    if (!env_build(env == THE_NON_VALUE ? NIL : env, &envp)) goto fail;

    s = calloc(1, sizeof *s);
    if (!s) { *err = ATOM_TERM(system_limit); goto fail; }
    s->port = port;
    s->rfd = s->wfd = s->pidfd = -1;
    s->packet = o->packet; s->line = o->line; s->binary = o->binary;
    s->exit_status = o->exit_status; s->eof_opt = o->eof;
    ob_init(&s->in);
    ob_init(&s->out);
    if ((o->in && pipe2(in_pipe, O_CLOEXEC) < 0) || (o->out && pipe2(out_pipe, O_CLOEXEC) < 0)) {
        *err = errno_atom(errno);
        goto fail;
    }
    in_pipe[1] = fd_high(in_pipe[1]);
    out_pipe[0] = fd_high(out_pipe[0]);
    pid_t pid = launch(path, argv.v, envp.v, cd, o, out_pipe[0], in_pipe[1]);
    if (pid < 0) { *err = errno_atom(errno); goto fail; }
    close_fd(&in_pipe[1]);
    close_fd(&out_pipe[0]);
    s->pid = pid;
    s->rfd = in_pipe[0];
    s->wfd = out_pipe[1];
    driver_set_os_pid(port, pid);
    if (s->rfd >= 0) {
        fcntl(s->rfd, F_SETFL, O_NONBLOCK);
        driver_select(port, s->rfd, DRV_READ, 1);
    }
    if (s->wfd >= 0) fcntl(s->wfd, F_SETFL, O_NONBLOCK);
    long pfd = pidfd_of(pid);
    if (pfd >= 0) {
        s->pidfd = (int)pfd;
        driver_select(port, s->pidfd, DRV_READ, 1);
    }
    argv_free(&argv);
    argv_free(&envp);
    free(cd);
    return s;
fail:
    close_fd(&in_pipe[0]); close_fd(&in_pipe[1]);
    close_fd(&out_pipe[0]); close_fd(&out_pipe[1]);
    if (s) { ob_free(&s->in); ob_free(&s->out); free(s); }
    argv_free(&argv);
    argv_free(&envp);
    free(cd);
    return NULL;
}

static void *spawn_start(DrvPort *port, const char *command, const DrvOpts *o, Term *err) {
    return spawn_common(port, command, o, err, 1);
}

static void *spawn_exe_start(DrvPort *port, const char *command, const DrvOpts *o, Term *err) {
    return spawn_common(port, command, o, err, 0);
}

static void spawn_stop(void *drv) {
    Spawn *s = drv;
    if (s->rfd >= 0) { driver_select(s->port, s->rfd, DRV_READ, 0); close_fd(&s->rfd); }
    if (s->wfd >= 0) { driver_select(s->port, s->wfd, DRV_WRITE, 0); close_fd(&s->wfd); }
    if (s->pidfd >= 0) driver_select(s->port, s->pidfd, DRV_READ, 0);
    /* still running (or not yet reaped): the poller reaps it; closing its
     * input above gave it end of file, and its output pipe SIGPIPE */
    if (s->pid > 0) poll_reap_orphan(s->pid, s->pidfd);
    else close_fd(&s->pidfd);
    ob_free(&s->in);
    ob_free(&s->out);
    free(s);
}

/* ---- the program's output ---- */

static Term data_term(Spawn *s, const char *b, size_t n) {
    if (s->binary) return driver_binary(s->port, b, n);
    Term *hp = driver_heap(s->port, 2 * n), l = NIL;
    for (size_t i = n; i-- > 0;) {
        hp[2 * i] = make_small((unsigned char)b[i]);
        hp[2 * i + 1] = l;
        l = make_list(hp + 2 * i);
    }
    return l;
}

/* {Port, {data, {eol | noeol, Line}}} */
static void send_line(Spawn *s, Term tag, const char *b, size_t n) {
    s->port->input += n;
    Term *hp = driver_heap(s->port, 6);
    hp[0] = make_tuple_header(2); hp[1] = tag; hp[2] = data_term(s, b, n);
    hp[3] = make_tuple_header(2); hp[4] = ATOM_TERM(data); hp[5] = make_boxed(hp);
    driver_output_term(s->port, make_boxed(hp + 3));
}

/* Whole lines (and overlong parts) out of the input buffer; at end of
 * file the rest too. */
static void lines_out(Spawn *s, int at_eof) {
    size_t off = 0, n = s->in.len, N = (size_t)s->line;
    const char *b = s->in.buf;
    while (off < n) {
        size_t avail = n - off, look = avail < N + 1 ? avail : N + 1;
        const char *nl = memchr(b + off, '\n', look);
        if (nl) {
            send_line(s, ATOM_TERM(eol), b + off, (size_t)(nl - (b + off)));
            off = (size_t)(nl - b) + 1;
        } else if (avail > N) {
            send_line(s, ATOM_TERM(noeol), b + off, N);
            off += N;
        } else if (at_eof) {
            send_line(s, ATOM_TERM(noeol), b + off, avail);
            off = n;
        } else {
            break;
        }
    }
    memmove(s->in.buf, s->in.buf + off, n - off);
    s->in.len = n - off;
}

static void packets_out(Spawn *s) {
    size_t off = 0, n = s->in.len, h = (size_t)s->packet;
    const unsigned char *b = (const unsigned char *)s->in.buf;
    while (n - off >= h) {
        size_t len = 0;
        for (size_t i = 0; i < h; i++) len = len << 8 | b[off + i];
        if (n - off - h < len) break;
        driver_output(s->port, (const char *)b + off + h, len);
        off += h + len;
    }
    memmove(s->in.buf, s->in.buf + off, n - off);
    s->in.len = n - off;
}

static void finish(Spawn *s) {
    if (s->finished || !s->got_eof) return;
    if (s->exit_status && !s->got_status) {
        if (s->pidfd >= 0) return;               /* the pidfd will tell */
        int st;                                  /* no pidfd: the end is near */
        while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR) {}
        s->pid = 0;
        s->got_status = 1;
        s->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    }
    s->finished = 1;
    if (s->exit_status) {
        Term *hp = driver_heap(s->port, 3);
        hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(exit_status); hp[2] = make_small(s->status);
        driver_output_term(s->port, make_boxed(hp));
    }
    if (s->eof_opt) driver_output_term(s->port, ATOM_TERM(eof));
    else driver_failure(s->port, ATOM_TERM(normal));
}

static void on_output_eof(Spawn *s) {
    driver_select(s->port, s->rfd, DRV_READ, 0);
    close_fd(&s->rfd);
    s->got_eof = 1;
    if (s->line) lines_out(s, 1);
    s->in.len = 0;                      /* a partial packet is dropped */
    finish(s);
}

static void on_program_exit(Spawn *s) {
    int st;
    pid_t w = waitpid(s->pid, &st, WNOHANG);
    if (w == 0) return;                 /* not yet (a spurious wake-up) */
    driver_select(s->port, s->pidfd, DRV_READ, 0);
    close_fd(&s->pidfd);
    s->pid = 0;
    s->got_status = 1;
    s->status = w < 0 ? 0 : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    finish(s);
}

static void spawn_ready_input(void *drv, int fd) {
    Spawn *s = drv;
    if (fd == s->pidfd) { on_program_exit(s); return; }
    if (fd != s->rfd) return;
    char buf[READ_CHUNK];
    /* a bounded amount a turn: a program that floods shares the scheduler
     * with everything else, and what is left is reported again */
    for (size_t got = 0; got < READ_TURN;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) { on_output_eof(s); return; }
        got += (size_t)n;
        if (s->line) { ob_write(&s->in, buf, (size_t)n); lines_out(s, 0); }
        else if (s->packet) { ob_write(&s->in, buf, (size_t)n); packets_out(s); }
        else driver_output(s->port, buf, (size_t)n);
    }
}

/* ---- the program's input ---- */

/* write(2) to a pipe whose reader may be gone: EPIPE instead of a SIGPIPE
 * that would end the VM (the signal is blocked in this thread for the
 * call, and taken back if it came). */
static ssize_t pipe_write(int fd, const char *b, size_t n) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t r;
    do r = write(fd, b, n); while (r < 0 && errno == EINTR);
    int e = errno;
    if (r < 0 && e == EPIPE) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return r;
}

/* Writes what is queued; 0, or -1 after failing the port. */
static int flush_out(Spawn *s) {
    while (s->out_off < s->out.len) {
        ssize_t r = pipe_write(s->wfd, s->out.buf + s->out_off, s->out.len - s->out_off);
        if (r < 0) {
            if (errno == EAGAIN) {
                driver_select(s->port, s->wfd, DRV_WRITE, 1);
                return 0;
            }
            driver_failure(s->port, errno_atom(errno));
            return -1;
        }
        s->out_off += (size_t)r;
    }
    s->out.len = 0;
    s->out_off = 0;
    driver_select(s->port, s->wfd, DRV_WRITE, 0);
    return 0;
}

static void spawn_output(void *drv, const char *buf, size_t len) {
    Spawn *s = drv;
    if (s->wfd < 0) { driver_failure(s->port, ATOM_TERM(ebadf)); return; }
    if (s->packet) {
        size_t h = (size_t)s->packet;
        if (h < 4 && len >> (8 * h)) { driver_failure(s->port, ATOM_TERM(einval)); return; }
        for (size_t i = h; i-- > 0;) ob_putc(&s->out, (int)((len >> (8 * i)) & 0xFF));
    }
    ob_write(&s->out, buf, len);
    /* queued behind earlier input: the pipe is selected already */
    if (s->out.len - s->out_off > len + (size_t)s->packet) return;
    flush_out(s);
}

static void spawn_ready_output(void *drv, int fd) {
    Spawn *s = drv;
    if (fd == s->wfd) flush_out(s);
}

const DrvEntry drv_spawn = {
    .name = "spawn",
    .start = spawn_start,
    .stop = spawn_stop,
    .output = spawn_output,
    .ready_input = spawn_ready_input,
    .ready_output = spawn_ready_output,
};

const DrvEntry drv_spawn_executable = {
    .name = "spawn_executable",
    .start = spawn_exe_start,
    .stop = spawn_stop,
    .output = spawn_output,
    .ready_input = spawn_ready_input,
    .ready_output = spawn_ready_output,
};
