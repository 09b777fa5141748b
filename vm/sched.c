/* sched.c — running processes.
 *
 * One scheduler for now: the thread that called sched_run. It owns a FIFO
 * run queue per priority and a `runnext` slot (see sched.h). Between time
 * slices it fires due timers; with nothing to run it sleeps until the next
 * timer, and if there is no timer either while its main process still
 * waits, nothing can ever happen again and it reports the deadlock.
 */
#include <stdio.h>
#include <time.h>

#include "sched.h"
#include "atom.h"
#include "proc.h"
#include "emulator.h"
#include "error_report.h"
#include "timer.h"

struct Scheduler {
    Process *head[PRIO_MAX], *tail[PRIO_MAX];
    Process *runnext;
    SWord chain_reds;         /* reductions used by the current runnext chain */
    UWord queued;
    UWord context_switches;
    UWord reductions;
};

static Scheduler sched0;
static __thread Process *current;

void sched_init(int nschedulers, int smp) {
    (void)nschedulers; (void)smp;
}

Process *sched_current(void) { return current; }
int sched_count(void) { return 1; }
int sched_online(void) { return 1; }
UWord sched_run_queue_length(void) { return sched0.queued; }
UWord sched_context_switches(void) { return sched0.context_switches; }
UWord sched_total_reductions(void) { return sched0.reductions; }

static void enqueue(Scheduler *s, Process *p) {
    int pr = p->prio;
    p->next_run = NULL;
    if (s->tail[pr]) s->tail[pr]->next_run = p;
    else s->head[pr] = p;
    s->tail[pr] = p;
    s->queued++;
}

static Process *dequeue(Scheduler *s) {
    for (int pr = PRIO_MAX - 1; pr >= 0; pr--) {
        Process *p = s->head[pr];
        if (!p) continue;
        s->head[pr] = p->next_run;
        if (!s->head[pr]) s->tail[pr] = NULL;
        s->queued--;
        return p;
    }
    return NULL;
}

void sched_wake(Process *p) {
    Scheduler *s = &sched0;
    p->sched = s;
    if (p->prio != PRIO_NORMAL || !current) { enqueue(s, p); return; }
    if (s->runnext) enqueue(s, s->runnext);
    s->runnext = p;
}

void sched_spawned(Process *parent, Process *child) {
    (void)parent;
    child->sched = &sched0;
    enqueue(&sched0, child);
}

/* The next process to run: runnext while its chain has time left. */
static Process *pick(Scheduler *s, SWord *budget) {
    Process *p = s->runnext;
    if (p && s->chain_reds < REDUCTIONS_PER_SLICE) {
        s->runnext = NULL;
        *budget = REDUCTIONS_PER_SLICE - s->chain_reds;
        return p;
    }
    if (p) { s->runnext = NULL; enqueue(s, p); }
    s->chain_reds = 0;
    *budget = REDUCTIONS_PER_SLICE;
    return dequeue(s);
}

static void sleep_us(int64_t us) {
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

int sched_run(Process *main) {
    Scheduler *s = &sched0;
    Term main_pid = main->pid;
    int status = -1;
    while (status < 0) {
        timer_fire_due();
        SWord budget;
        Process *p = pick(s, &budget);
        if (!p) {
            int64_t wait = timer_next_due();
            if (wait < 0) {
                fprintf(stderr, "mini: deadlock: every process waits in receive and no timer is set\n");
                return 2;
            }
            if (wait > 0) sleep_us(wait);
            continue;
        }
        proc_drain(p);
        RunResult r;
        if (p->exiting) r = RUN_EXIT;
        else {
            current = p;
            p->reds = budget;
            r = emulator_run(p);
            current = NULL;
            SWord used = budget - (p->reds > 0 ? p->reds : 0);
            s->chain_reds += used;
            s->reductions += (UWord)used;
            p->total_reds += (UWord)used;
            s->context_switches++;
            p->context_switches++;
        }
        switch (r) {
        case RUN_YIELD:
            enqueue(s, p);
            break;
        case RUN_WAIT:
            break;
        case RUN_DONE:
            if (p->pid == main_pid) status = 0;
            proc_exit(p, ATOM_TERM(normal), 0);
            break;
        case RUN_EXIT:
            if (p->pid == main_pid) {
                p->exc_class = EXC_EXIT;
                p->exc_reason = p->exit_reason;
                p->exc_trace = NIL;
                report_uncaught(p);
                status = 1;
            }
            proc_exit(p, p->exit_reason, 0);
            break;
        case RUN_EXCEPTION: {
            int is_main = p->pid == main_pid;
            if (is_main) { report_uncaught(p); status = 1; }
            Term reason = proc_exception_reason(p);
            proc_exit(p, reason, !is_main && p->exc_class != EXC_EXIT);
            break;
        }
        }
    }
    return status;
}
