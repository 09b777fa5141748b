/* shell_reader.c — the thread that reads the shell's input, so that no
 * scheduler ever blocks on the terminal.
 *
 * The shell process (stdlib/shell.mini) asks for a line with
 * erlang:'$shell_read'(Prompt, Continued); this thread then reads one and
 * sends it to the shell as {'$shell_line', Chars} ('$shell_eof' at the end,
 * '$shell_interrupt' on Ctrl-C). Between requests nothing reads standard
 * input, so nothing is echoed as a prompt while an expression runs.
 *
 * On a terminal it runs GNU readline through the callback interface: one
 * select() loop over standard input, a pipe on which requests arrive and a
 * pipe that the SIGINT handler writes to. Every readline call happens with
 * the output lock of bif_io.c held, and while a prompt is shown the output
 * hooks there clear the prompt line before any process writes and redraw it
 * after, so `Finished. Time: ...` from a ring appears above a live prompt.
 * History lives in ~/.mini_history (read at start, one line appended per
 * line entered); Tab completes module names (loaded ones and *.mini files on
 * the code path), `Module:` + exported functions, and the shell's bound
 * variables, which the shell publishes with erlang:'$shell_names'(Names).
 *
 * When standard input is not a terminal the same thread reads plain lines
 * with getline() and prints the prompt itself, as erl does for piped input
 * (first line of each expression only).
 */
#include <gc.h>                 /* before pthread.h: registers our thread with Boehm */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "atom.h"
#include "bif.h"
#include "bif_io.h"
#include "loader.h"
#include "proc.h"
#include "sched.h"
#include "shell.h"
#include "job_control.h"

static _Atomic Term shell_pid;        /* who asked for a line last */
static char *banner;
static int tty;                        /* standard input is a terminal */
static int req_pipe[2] = { -1, -1 };   /* '$shell_read' -> reader */
static int sig_pipe[2] = { -1, -1 };   /* SIGINT handler -> reader */

/* the pending request, under req_lock */
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static char *req_prompt;
static int req_pending, req_continued;

/* readline state, under the output lock (io_lock) */
static int reading;                    /* a handler (and prompt) is installed */
static char *history_path;

/* bound variable names for completion, under names_lock */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char **names;
static int nnames;

/* ---- sending to the shell process ---- */

static void send_term_built(Term (*build)(Process *, const char *, size_t), const char *s, size_t n) {
    if (!shell_pid) return;
    Process *tmp = process_new_memory(2 * n + 16);
    Term t = build(tmp, s, n);
    Message *m = proc_message_copy(t);
    process_free_memory(tmp);
    proc_deliver(shell_pid, m);
    sched_external_wake();
}

static Term build_line(Process *p, const char *s, size_t n) {
    Term chars = shell_text_to_list(p, s, n);
    Term *hp = heap_alloc(p, 3);
    hp[0] = make_tuple_header(2);
    hp[1] = atom_intern_cstr("$shell_line");
    hp[2] = chars;
    return make_boxed(hp);
}

static Term build_atom(Process *p, const char *s, size_t n) {
    (void)p;
    return atom_intern(s, n);
}

static void send_line(const char *s, size_t n) { send_term_built(build_line, s, n); }
static void send_atom(const char *a) { send_term_built(build_atom, a, strlen(a)); }

/* ---- output hooks: keep the prompt below whatever processes print ---- */

static void hook_before(const char *s, size_t n) {
    (void)s; (void)n;
    rl_clear_visible_line();
    fflush(rl_outstream);
}

static void hook_after(const char *s, size_t n) {
    /* text without a final newline would share the prompt's line */
    if (n && s[n - 1] != '\n') fputc('\n', stdout);
    fflush(stdout);
    rl_on_new_line();
    rl_redisplay();
    fflush(rl_outstream);
}

/* ---- readline ---- */

static void stop_reading_locked(void) {
    if (!reading) return;
    io_set_hooks_locked(NULL, NULL);
    rl_callback_handler_remove();
    reading = 0;
}

void reader_prompt_locked(const char *prompt, void (*handler)(char *)) {
    stop_reading_locked();
    if (!prompt) return;
    rl_callback_handler_install(prompt, handler);
    reading = 1;
    io_set_hooks_locked(hook_before, hook_after);
    fflush(rl_outstream);
}

/* Called by rl_callback_read_char (output lock held) with a whole line. */
static void on_line(char *line) {
    stop_reading_locked();
    if (job_menu_take_locked()) { free(line); return; }   /* Ctrl-G */
    if (!line) {                     /* Ctrl-D on an empty line */
        if (job_eof_locked()) return;
        fputs("\n", stdout);
        fflush(stdout);
        send_atom("$shell_eof");
        return;
    }
    if (*line) {
        HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
        if (!last || strcmp(last->line, line) != 0) {
            add_history(line);
            if (history_path) append_history(1, history_path);
        }
    }
    job_delivered();
    size_t n = strlen(line);
    char *buf = malloc(n + 2);
    memcpy(buf, line, n);
    buf[n] = '\n';
    send_line(buf, n + 1);
    free(buf);
    free(line);
}

/* ---- completion ---- */

typedef struct Cands { char **v; int n, cap; } Cands;

static void cand_add(Cands *c, const char *s, size_t n) {
    for (int i = 0; i < c->n; i++)
        if (strlen(c->v[i]) == n && memcmp(c->v[i], s, n) == 0) return;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 32;
        c->v = realloc(c->v, sizeof *c->v * (size_t)c->cap);
    }
    c->v[c->n] = malloc(n + 1);
    memcpy(c->v[c->n], s, n);
    c->v[c->n][n] = 0;
    c->n++;
}

static int has_prefix(const char *s, size_t n, const char *prefix, size_t plen) {
    return n >= plen && memcmp(s, prefix, plen) == 0;
}

/* Candidates for `text`, each a full replacement of it. */
static void collect(Cands *c, const char *text) {
    size_t tlen = strlen(text);
    const char *colon = strchr(text, ':');
    if (colon) {
        /* Module:Prefix -> Module:function( */
        size_t mlen = (size_t)(colon - text);
        if (mlen == 0 || mlen > MAX_ATOM_LENGTH) return;
        Term mod = atom_intern(text, mlen);
        if (!module_find(mod) && !module_ensure_loaded(mod)) return;
        LoadedModule *lm = module_find(mod);
        if (!lm) return;
        const char *prefix = colon + 1;
        size_t plen = strlen(prefix);
        char buf[600];
        for (int i = 0; i < lm->nfunctions; i++) {
            size_t flen;
            const char *f = atom_name(lm->functions[i].name, &flen);
            if (f[0] == '-' || strcmp(f, "module_info") == 0 || !has_prefix(f, flen, prefix, plen))
                continue;
            if (!export_code(export_get(mod, lm->functions[i].name, lm->functions[i].arity))) continue;
            int k = snprintf(buf, sizeof buf, "%.*s:%s(", (int)mlen, text, f);
            if (k > 0 && (size_t)k < sizeof buf) cand_add(c, buf, (size_t)k);
        }
        return;
    }
    if (text[0] >= 'A' && text[0] <= 'Z') {
        pthread_mutex_lock(&names_lock);
        for (int i = 0; i < nnames; i++)
            if (has_prefix(names[i], strlen(names[i]), text, tlen)) cand_add(c, names[i], strlen(names[i]));
        pthread_mutex_unlock(&names_lock);
        return;
    }
    char buf[512];
    LoadedModule *lm;
    for (int i = 0; (lm = module_nth(i)); i++) {
        size_t n;
        const char *s = atom_name(lm->name, &n);
        if (s[0] == '$' || !has_prefix(s, n, text, tlen) || n + 2 > sizeof buf) continue;
        memcpy(buf, s, n);
        buf[n] = ':';
        cand_add(c, buf, n + 1);
    }
    const char *dir;
    for (int i = 0; (dir = module_path_nth(i)); i++) {
        DIR *d = opendir(dir);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n < 6 || strcmp(de->d_name + n - 5, ".mini") != 0) continue;
            n -= 5;
            if (!has_prefix(de->d_name, n, text, tlen) || n + 2 > sizeof buf) continue;
            memcpy(buf, de->d_name, n);
            buf[n] = ':';
            cand_add(c, buf, n + 1);
        }
        closedir(d);
    }
}

static Cands cands;
static int cand_next;

static char *generator(const char *text, int state) {
    if (state == 0) {
        for (int i = 0; i < cands.n; i++) free(cands.v[i]);
        cands.n = 0;
        cand_next = 0;
        collect(&cands, text);
    }
    if (cand_next < cands.n) return strdup(cands.v[cand_next++]);
    return NULL;
}

static char **complete(const char *text, int start, int end) {
    (void)start; (void)end;
    rl_attempted_completion_over = 1;        /* never fall back to file names */
    rl_completion_append_character = '\0';   /* "lists:" and "foldl(" end where they should */
    return rl_completion_matches(text, generator);
}

/* ---- the thread ---- */

static void on_sigint(int sig) {
    (void)sig;
    int e = errno;
    if (write(sig_pipe[1], "i", 1) < 0) { /* the pipe is full: one is enough */ }
    errno = e;
}

static void drain(int fd) {
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {}
}

/* Takes the pending request, if any: 1 and the prompt (malloc'ed). */
static int take_request(char **prompt, int *continued) {
    pthread_mutex_lock(&req_lock);
    int r = req_pending;
    if (r) {
        *prompt = req_prompt;
        *continued = req_continued;
        req_prompt = NULL;
        req_pending = 0;
    }
    pthread_mutex_unlock(&req_lock);
    return r;
}

static void tty_loop(void) {
    for (;;) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(req_pipe[0], &fds);
        FD_SET(sig_pipe[0], &fds);
        int maxfd = req_pipe[0] > sig_pipe[0] ? req_pipe[0] : sig_pipe[0];
        int r_reading;
        io_lock();
        r_reading = reading;
        io_unlock();
        if (r_reading) FD_SET(STDIN_FILENO, &fds);
        if (select(maxfd + 1, &fds, NULL, NULL, NULL) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (FD_ISSET(sig_pipe[0], &fds)) {
            drain(sig_pipe[0]);
            io_lock();
            int in_menu = job_interrupt_locked();
            if (!in_menu && reading) {
                /* drop the half-typed line, as bash does, and ask again */
                rl_replace_line("", 0);
                fputs("^C\n", stdout);
                fflush(stdout);
                stop_reading_locked();
            }
            io_unlock();
            if (!in_menu) {
                job_delivered();
                send_atom("$shell_interrupt");
            }
        }
        if (FD_ISSET(req_pipe[0], &fds)) {
            drain(req_pipe[0]);
            char *prompt;
            int continued;
            if (take_request(&prompt, &continued)) {
                io_lock();
                reader_prompt_locked(prompt, on_line);
                io_unlock();
                free(prompt);
            }
        }
        if (r_reading && FD_ISSET(STDIN_FILENO, &fds)) {
            io_lock();
            if (reading) rl_callback_read_char();
            fflush(rl_outstream);
            io_unlock();
        }
    }
}

static void pipe_loop(void) {
    char *line = NULL;
    size_t cap = 0;
    for (;;) {
        char buf[8];
        ssize_t got = read(req_pipe[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return;
        char *prompt;
        int continued;
        if (!take_request(&prompt, &continued)) continue;
        if (!continued) io_write_out(prompt, strlen(prompt));
        free(prompt);
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) { io_write_out("\n", 1); send_atom("$shell_eof"); continue; }
        if (n == 0 || line[n - 1] != '\n') { line = realloc(line, (size_t)n + 2); line[n++] = '\n'; }
        send_line(line, (size_t)n);
    }
}

static void *reader_thread(void *arg) {
    (void)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    if (tty) pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    if (tty) tty_loop(); else pipe_loop();
    return NULL;
}

static void restore_terminal(void) {
    /* at exit (halt/1 holds the output lock: readline is not running) */
    if (reading) {
        rl_callback_handler_remove();
        reading = 0;
    }
}

int shell_reader_interactive(void) { return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO); }

void shell_reader_start(const char *banner_text) {
    banner = strdup(banner_text);
    tty = shell_reader_interactive();
    if (pipe(req_pipe) < 0 || pipe(sig_pipe) < 0) { perror("mini: pipe"); exit(1); }
    fcntl(req_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(sig_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
    if (!tty) fcntl(req_pipe[0], F_SETFL, 0);   /* the piped loop blocks on it */
    if (tty) {
        /* SIGINT goes to the reader alone: every other thread (the
         * schedulers start after this) has it blocked */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGINT, &sa, NULL);

        rl_catch_signals = 0;
        rl_catch_sigwinch = 1;
        rl_change_environment = 0;
        rl_readline_name = "mini";
        rl_outstream = stdout;
        rl_attempted_completion_function = complete;
        rl_completer_word_break_characters = " \t\n\"\\'`@$><=;|&{(,[]})+-*/!#";
        using_history();
        const char *home = getenv("HOME");
        if (home && *home) {
            size_t n = strlen(home) + 32;
            history_path = malloc(n);
            snprintf(history_path, n, "%s/.mini_history", home);
            int fd = open(history_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
            if (fd >= 0) close(fd);
            read_history(history_path);
            history_truncate_file(history_path, 1000);
        }
        job_control_init();
        atexit(restore_terminal);
        io_set_unicode_out(1);
    }
    sched_external_source(1);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, reader_thread, NULL);
    pthread_attr_destroy(&attr);
}

/* ---- BIFs ---- */

/* erlang:'$shell_read'(Prompt, Continued) -> ok; the line comes as a message */
Term bif_shell_read_2(Process *p, Term *args) {
    OutBuf b;
    ob_init(&b);
    if (req_pipe[1] < 0 || shell_list_to_text(args[0], &b) < 0) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    /* a shell that is not the current job waits (job_control.c) */
    if (job_read_request(p, ob_cstr(&b), args[1] == AM_true))
        reader_post(p->pid, ob_cstr(&b), args[1] == AM_true);
    ob_free(&b);
    return AM_ok;
}

void reader_post(Term pid, const char *prompt, int continued) {
    shell_pid = pid;
    pthread_mutex_lock(&req_lock);
    free(req_prompt);
    req_prompt = strdup(prompt);
    req_continued = continued;
    req_pending = 1;
    pthread_mutex_unlock(&req_lock);
    if (write(req_pipe[1], "r", 1) < 0) { /* the reader is gone: Mini is ending */ }
}

/* erlang:'$shell_names'(Names) -> ok: the bound variables, for Tab */
Term bif_shell_names_1(Process *p, Term *args) {
    int n = 0;
    for (Term l = args[0]; is_list(l); l = list_tail(l)) {
        if (!is_atom(list_head(l))) BIF_ERROR(p, AM_badarg);
        n++;
    }
    char **v = malloc(sizeof *v * (size_t)(n + 1));
    int k = 0;
    for (Term l = args[0]; is_list(l); l = list_tail(l)) {
        size_t len;
        const char *s = atom_name(list_head(l), &len);
        v[k++] = strndup(s, len);
    }
    pthread_mutex_lock(&names_lock);
    char **old = names;
    int nold = nnames;
    names = v;
    nnames = k;
    pthread_mutex_unlock(&names_lock);
    for (int i = 0; i < nold; i++) free(old[i]);
    free(old);
    return AM_ok;
}

/* erlang:'$shell_interactive'() -> true when the shell reads a terminal */
Term bif_shell_interactive_0(Process *p, Term *args) {
    (void)p; (void)args;
    return tty ? AM_true : AM_false;
}

/* erlang:'$shell_banner'() -> "Mini 0.1 [smp:S:S] [async-threads:A]" */
Term bif_shell_banner_0(Process *p, Term *args) {
    (void)args;
    return banner ? shell_text_to_list(p, banner, strlen(banner)) : NIL;
}
