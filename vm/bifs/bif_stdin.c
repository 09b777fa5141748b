/* bif_stdin.c — standard input for programs: io:get_line/1, get_chars/2,
 * read/1 and fread/2 on standard_io (stdlib/io.mini) ask here.
 *
 * A read from standard input may block for ever (a terminal, a pipe), so no
 * scheduler makes it: io:'$stdin_request'(Kind, N) queues the request for one
 * reader thread, started on first use, which reads and sends the caller
 * {'$stdin', Binary | eof}; the caller waits in receive and its scheduler runs
 * other processes meanwhile. The thread reads through the C library's `stdin`,
 * as the shell's piped reader does, and only while a request is pending, so
 * a program's reads and the shell's lines come from one buffer in order.
 * While a request waits, the thread counts as an outside source of messages
 * (sched_external_source): waiting for input is not a deadlock. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "binary.h"
#include "heap.h"
#include "proc.h"
#include "sched.h"
#include "term_build.h"

enum { REQ_LINE, REQ_CHARS };

typedef struct StdinReq {
    struct StdinReq *next;
    Term pid;
    int kind;
    size_t n;
} StdinReq;

static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t req_cond = PTHREAD_COND_INITIALIZER;
static StdinReq *req_head, *req_tail;
static int started;
/* input handed back (io:'$stdin_request'(unread, Bin)), read before stdin */
static char *back;
static size_t back_len;

/* Takes up to n bytes of the handed-back input (up to and including the
 * first newline if line): a malloc'ed copy in *out, its length returned. */
static size_t take_back(int line, size_t n, char **out) {
    pthread_mutex_lock(&req_lock);
    size_t k = back_len < n ? back_len : n;
    if (line) {
        char *nl = back_len ? memchr(back, '\n', back_len) : NULL;
        k = nl ? (size_t)(nl - back) + 1 : back_len;
    }
    *out = NULL;
    if (k > 0) {
        *out = malloc(k);
        if (*out) {
            memcpy(*out, back, k);
            memmove(back, back + k, back_len - k);
            back_len -= k;
        } else k = 0;
    }
    pthread_mutex_unlock(&req_lock);
    return k;
}

static void reply(Term pid, const char *s, size_t n, int eof) {
    Process *tmp = process_new_memory(n / sizeof(Term) + 32);
    Term data = eof ? atom_intern_cstr("eof") : bin_from_bytes(tmp, s, n);
    Term msg = tuple2(tmp, atom_intern_cstr("$stdin"), data);
    Message *m = proc_message_copy(msg);
    process_free_memory(tmp);
    proc_deliver(pid, m);
    sched_external_wake();
}

static void serve(StdinReq *r) {
    char *b;
    size_t k = take_back(r->kind == REQ_LINE, r->n, &b);
    if (r->kind == REQ_LINE) {
        if (k > 0 && b[k - 1] == '\n') { reply(r->pid, b, k, 0); free(b); return; }
        char *line = NULL;
        size_t cap = 0;
        ssize_t n = getline(&line, &cap, stdin);
        size_t got = n > 0 ? (size_t)n : 0;
        char *all = malloc(k + got + 1);
        if (all) {
            if (k) memcpy(all, b, k);
            if (got) memcpy(all + k, line, got);
        }
        reply(r->pid, all, all ? k + got : 0, !all || k + got == 0);
        free(all);
        free(line);
    } else {
        char *buf = malloc(r->n ? r->n : 1);
        size_t n = 0;
        if (buf) {
            if (k) memcpy(buf, b, k);
            n = k + (k < r->n ? fread(buf + k, 1, r->n - k, stdin) : 0);
        }
        reply(r->pid, buf, n, n == 0 && r->n > 0);
        free(buf);
    }
    free(b);
}

static void *reader_main(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&req_lock);
        while (!req_head) pthread_cond_wait(&req_cond, &req_lock);
        StdinReq *r = req_head;
        req_head = r->next;
        if (!req_head) req_tail = NULL;
        pthread_mutex_unlock(&req_lock);
        serve(r);
        free(r);
        sched_external_source(-1);
    }
    return NULL;
}

/* io:'$stdin_request'(line | chars, N) -> ok; the answer comes as a message.
 * io:'$stdin_request'(unread, Binary) -> ok: hands input back, at once. */
Term bif_io_stdin_request_2(Process *p, Term *args) {
    int kind;
    if (args[0] == atom_intern_cstr("unread") && is_binary(args[1])) {
        size_t n;
        const unsigned char *d = bin_bytes(args[1], &n);
        pthread_mutex_lock(&req_lock);
        char *nb = malloc(back_len + n + 1);
        if (nb) {
            memcpy(nb, d, n);
            if (back_len) memcpy(nb + n, back, back_len);
            free(back);
            back = nb;
            back_len += n;
        }
        pthread_mutex_unlock(&req_lock);
        return AM_ok;
    }
    if (args[0] == atom_intern_cstr("line")) kind = REQ_LINE;
    else if (args[0] == atom_intern_cstr("chars") && is_small(args[1]) && small_val(args[1]) >= 0)
        kind = REQ_CHARS;
    else BIF_ERROR(p, AM_badarg);
    StdinReq *r = calloc(1, sizeof *r);
    if (!r) BIF_ERROR(p, AM_badarg);
    r->pid = p->pid;
    r->kind = kind;
    r->n = kind == REQ_CHARS ? (size_t)small_val(args[1]) : 0;
    sched_external_source(1);
    pthread_mutex_lock(&req_lock);
    if (!started) {
        pthread_t t;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals are the schedulers' business */
        if (pthread_create(&t, NULL, reader_main, NULL) == 0) { pthread_detach(t); started = 1; }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (req_tail) req_tail->next = r; else req_head = r;
    req_tail = r;
    pthread_cond_signal(&req_cond);
    pthread_mutex_unlock(&req_lock);
    return AM_ok;
}
