/* sched.h — the schedulers: run queues and the loop that runs processes.
 *
 * A process is runnable when it sits in a run queue or runs. It becomes
 * runnable when spawned, when its time slice ends (it goes to the back of
 * the queue), and when a message or signal reaches it while it waits in
 * receive — then it goes to the *waker's* scheduler, into the `runnext` slot,
 * so it runs next there, sharing what is left of the waker's time slice
 * (Go's runnext). A token passed round a ring thus stays on one core.
 */
#ifndef MINI_SCHED_H
#define MINI_SCHED_H

#include "process.h"

typedef struct Scheduler Scheduler;

/* The most schedulers +S takes. Per-scheduler state (run queues, timer
 * wheels) lives in fixed arrays of this size, and a reference's scheduler
 * tag has room for it (unique.h); 64 covers the machines Mini runs on, at a
 * few kilobytes of arrays. */
#define MAX_SCHEDULERS 64

void sched_init(int nschedulers, int smp);
/* A message or signal reached p while it waited: make it runnable. */
void sched_wake(Process *p);
/* The same for a process whose receive timeout fired with others at one
 * look at the wheel: the back of the ring, so they run in due order. */
void sched_wake_timeout(Process *p);
/* A new process: runnable, on its parent's scheduler. */
void sched_spawned(Process *parent, Process *child);
/* Runs processes on every scheduler (this thread is scheduler 0) until
 * `main` ends. Returns 0 if it ended normally, 1 if it died (its error is
 * reported), 2 if every process waits forever. */
int sched_run(Term main);
/* The process running on this thread (NULL outside a scheduler). */
Process *sched_current(void);
int sched_count(void);
int sched_online(void);
/* The calling thread's scheduler, numbered from 1 as
 * erlang:system_info(scheduler_id) says; 0 on a thread that is none. */
int sched_self_id(void);
/* erlang:system_flag(schedulers_online, N) */
void sched_set_online(int n);
UWord sched_run_queue_length(void);
UWord sched_context_switches(void);
UWord sched_total_reductions(void);
/* A thread outside the schedulers that sends messages (the shell's reader)
 * registers with +1 (and -1 when done), so waiting for it is no deadlock,
 * and calls sched_external_wake() after each delivery. */
void sched_external_source(int delta);
/* Under -noshell init waits for init:stop() once its actions have run:
 * when every process waits and init is the only one left, the run ends
 * with status 0 instead of a deadlock report (erlang:'$init_noshell'/0). */
void sched_main_may_wait_alone(void);
void sched_external_wake(void);
/* A thread that is no scheduler (an async thread), or a scheduler handing
 * on what it found in the poll set, made p
 * runnable: it swapped p's MAILBOX_WAITING mark out of the inbox, so it
 * alone holds the wake-up. Lock-free; p goes onto a stack every scheduler
 * takes from at its next pick, and a scheduler is woken only if every one
 * sleeps. */
void sched_wake_external(Process *p);
/* The same without the wake-up, for an async thread with more jobs queued:
 * it calls sched_external_settle after each job (one that took job_us),
 * which wakes a scheduler when every one sleeps and the completion that may
 * wait least (each may wait lag_us, policy_external_lag_us) would be late
 * by the end of the thread's next job, foretold to take as long; or at once
 * with `now` (the thread's queue is empty). */
void sched_inject(Process *p);
void sched_external_settle(int now, uint64_t lag_us, uint64_t job_us);
/* Work outside the schedulers that will come back to a process or port
 * (+1 when an async job is given, -1 when its completion is taken): while
 * any is out, processes all waiting in receive are no deadlock. */
void sched_outside_work(int delta);
/* The I/O poll set was just made (poll.c): a scheduler asleep on its futex
 * word wakes, so that one comes to sleep in the set instead. */
void sched_poll_started(void);

#endif
