/* job_control.c — erl's user switch menu (Ctrl-G): jobs are shells.
 *
 *   User switch command
 *    --> j
 *      1* {shell,start,[init]}
 *
 * Commands as erl's: c [nn] connect, i [nn] interrupt, k [nn] kill,
 * j list, s start a new shell (which becomes the current job), q quit,
 * ? or h help. The menu opens when Ctrl-G is typed at a prompt: the
 * terminal is read only while a shell waits for a line (shell_reader.c), so
 * while an expression runs Ctrl-C is the key that stops it.
 *
 * The table of jobs is filled by the shells themselves: the first shell
 * that asks for a line is job 1, and a shell started by `s` becomes the
 * next job when it first asks. Each job keeps its last prompt, so that
 * connecting to it shows that prompt again. The first shell is the VM's
 * first process (init): killing it would end Mini, so `k 1` says so and
 * does nothing; q() or `q` end Mini as in erl.
 *
 * The menu starts processes from the reader thread, as main() starts the
 * first one (no parent; the schedulers take them from the shared queue):
 * shell:start_job() for `s`, shell_jobs:kill(Pid) for `k`.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

#include "job_control.h"
#include "atom.h"
#include "proc.h"
#include "sched.h"
#include "term_build.h"

#define MAX_JOBS 32                    /* a menu, not a process table */

typedef struct Job {
    int id;
    Term pid;
    char *prompt;                      /* the last prompt it asked with */
    int continued;
    int waiting;                       /* asked for a line, not given one yet */
    int shown;                         /* connected to once: its banner is out */
} Job;

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static Job jobs[MAX_JOBS];
static int njobs, next_id = 1;
static int current = -1;               /* index into jobs, or -1 */
static int menu_open, menu_requested, adopt_next;

static int find_pid(Term pid) {
    for (int i = 0; i < njobs; i++) if (jobs[i].pid == pid) return i;
    return -1;
}

static int find_id(int id) {
    for (int i = 0; i < njobs; i++) if (jobs[i].id == id) return i;
    return -1;
}

/* ---- messages from the reader thread ---- */

static void deliver(Term to, Term (*build)(Process *, Term), Term arg) {
    if (!is_pid(to)) return;
    Process *tmp = process_new_memory(16);
    Message *m = proc_message_copy(build(tmp, arg));
    process_free_memory(tmp);
    proc_deliver(to, m);
    sched_external_wake();
}

static Term build_atom(Process *p, Term a) { (void)p; return a; }

/* M:F(Args...) as a new process with no parent */
static void spawn_call(const char *m, const char *f, int nargs, Term arg) {
    Process *tmp = process_new_memory(16);
    Term args = nargs ? cons(tmp, arg, NIL) : NIL;
    uint64_t ref;
    proc_spawn(NULL, atom_intern_cstr(m), atom_intern_cstr(f), args, NULL, &ref);
    process_free_memory(tmp);
    sched_external_wake();
}

/* ---- requests from the shells (scheduler threads) ---- */

int job_read_request(Process *p, const char *prompt, int continued) {
    int now = 0;
    pthread_mutex_lock(&job_lock);
    int i = find_pid(p->pid);
    if (i < 0 && njobs < MAX_JOBS) {
        i = njobs++;
        int id = next_id++;
        jobs[i] = (Job){ .id = id, .pid = p->pid, .shown = id == 1 };
        if (current < 0 || adopt_next) current = i;
        adopt_next = 0;
    }
    if (i >= 0) {
        free(jobs[i].prompt);
        jobs[i].prompt = strdup(prompt);
        jobs[i].continued = continued;
        jobs[i].waiting = 1;
        now = i == current && !menu_open;
    }
    pthread_mutex_unlock(&job_lock);
    return i < 0 || now;               /* a shell beyond the table reads as before */
}

void job_delivered(void) {
    pthread_mutex_lock(&job_lock);
    if (current >= 0) jobs[current].waiting = 0;
    pthread_mutex_unlock(&job_lock);
}

/* ---- the menu (reader thread, output lock held) ---- */

static void on_menu_line(char *line);

static void menu_prompt(void) { reader_prompt_locked(" --> ", on_menu_line); }

static void menu_close(void) {
    pthread_mutex_lock(&job_lock);
    menu_open = 0;
    Job j = current >= 0 ? jobs[current] : (Job){ 0 };
    char *prompt = j.waiting && j.prompt ? strdup(j.prompt) : NULL;
    pthread_mutex_unlock(&job_lock);
    reader_prompt_locked(NULL, NULL);
    if (prompt) {
        reader_post(j.pid, prompt, j.continued);
        free(prompt);
    }
}

static void menu_help(void) {
    fputs("  c [nn]            - connect to job\n"
          "  i [nn]            - interrupt job\n"
          "  k [nn]            - kill job\n"
          "  j                 - list all jobs\n"
          "  s [shell]         - start local shell\n"
          "  q                 - quit mini\n"
          "  ? | h             - this message\n", stdout);
}

/* the job named by the command's argument, or the current one; -1 with
 * "Unknown job" printed */
static int target(const char *arg) {
    while (*arg == ' ' || *arg == '\t') arg++;
    int i = *arg ? find_id(atoi(arg)) : current;
    if (i < 0) fputs("Unknown job\n", stdout);
    return i;
}

static void on_menu_line(char *line) {
    reader_prompt_locked(NULL, NULL);
    const char *s = line ? line : "c";   /* Ctrl-D: back to the job */
    while (*s == ' ' || *s == '\t') s++;
    int cmd = *s ? *s++ : 0, i;
    pthread_mutex_lock(&job_lock);
    switch (cmd) {
    case 0: break;
    case 'c':
        if ((i = target(s)) >= 0) {
            current = i;
            if (!jobs[i].shown) fputs("Mini shell V0.1  (quit with q(). or Ctrl-D)\n", stdout);
            jobs[i].shown = 1;
            pthread_mutex_unlock(&job_lock);
            free(line);
            menu_close();
            return;
        }
        break;
    case 'i':
        if ((i = target(s)) >= 0) deliver(jobs[i].pid, build_atom, atom_intern_cstr("$shell_interrupt"));
        break;
    case 'k':
        if ((i = target(s)) >= 0) {
            if (jobs[i].id == 1) {
                fputs("Job 1 is Mini's first process: q ends Mini\n", stdout);
                break;
            }
            spawn_call("shell_jobs", "kill", 1, jobs[i].pid);
            free(jobs[i].prompt);
            jobs[i] = jobs[--njobs];
            if (current == i) current = -1;
            else if (current == njobs) current = i;
        }
        break;
    case 'j':
        for (i = 0; i < njobs; i++)
            printf("   %d%c {shell,start,%s}\n", jobs[i].id, i == current ? '*' : ' ',
                   jobs[i].id == 1 ? "[init]" : "[]");
        break;
    case 's':
        adopt_next = 1;
        spawn_call("shell", "start_job", 0, NIL);
        break;
    case 'q':
        fflush(stdout);
        fflush(stderr);
        exit(0);
    case '?': case 'h':
        menu_help();
        break;
    default:
        fputs("Unknown command\n", stdout);
    }
    pthread_mutex_unlock(&job_lock);
    free(line);
    menu_prompt();
}

static void menu_open_locked(void) {
    pthread_mutex_lock(&job_lock);
    menu_open = 1;
    pthread_mutex_unlock(&job_lock);
    fputs("\nUser switch command\n", stdout);
    menu_prompt();
}

/* Ctrl-G: end the line being typed; the line handler opens the menu */
static int on_ctrl_g(int count, int key) {
    (void)count; (void)key;
    menu_requested = 1;
    rl_done = 1;
    return 0;
}

void job_control_init(void) { rl_bind_key(7, on_ctrl_g); }

int job_menu_take_locked(void) {
    if (!menu_requested) return 0;
    menu_requested = 0;
    menu_open_locked();
    return 1;
}

int job_eof_locked(void) {
    pthread_mutex_lock(&job_lock);
    int other = current >= 0 && jobs[current].id != 1;
    pthread_mutex_unlock(&job_lock);
    if (other) menu_open_locked();
    return other;
}

int job_interrupt_locked(void) {
    pthread_mutex_lock(&job_lock);
    int open = menu_open;
    pthread_mutex_unlock(&job_lock);
    if (!open) return 0;
    rl_replace_line("", 0);
    fputs("^C\n", stdout);
    menu_prompt();
    return 1;
}
