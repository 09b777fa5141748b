/* port.h — the port core: ports as the runtime sees them (port.c), the
 * drivers it knows (drivers.c) and the async threads (async.c).
 *
 * A port is scheduled as a process is: a Process record with `port` set
 * holds its table slot (its id is a port, #Port<0.N>), its lock-free inbox
 * and its links. Links and exit signals reach it through the inbox as they
 * reach a process; so do async completions and I/O readiness, pushed by
 * threads that are not schedulers with the same one compare-and-swap that
 * tells them whether the port waits. When a scheduler picks the record it
 * runs port_task_run instead of the emulator. Commands from processes
 * (port_command, Port ! {Pid, {command, D}}, port_control, port_close) run
 * at once on the caller's scheduler with the port locked, as in BEAM, so a
 * process's commands reach the driver in the order it gave them.
 */
#ifndef MINI_PORT_H
#define MINI_PORT_H

#include <pthread.h>
#include <stdatomic.h>
#include "process.h"
#include "driver.h"

enum { PORT_OPEN = 0, PORT_CLOSED = 1 };

struct Port {
    pthread_mutex_t lock;      /* held by whoever runs the port's code */
    Process *proc;             /* its record: slot, inbox, links, scratch heap */
    const DrvEntry *drv;
    void *drv_data;
    _Atomic Term connected;    /* the owner; read without the lock by sends */
    _Atomic int state;         /* PORT_*: read without the lock as a hint */
    int binary;                /* data as binaries */
    int in_callback;           /* a driver callback runs (driver_failure defers) */
    Term caller;               /* the process whose port_control runs now */
    Message *failure;          /* driver_failure's reason, sent once the
                                  callback returns */
    int outstanding;           /* async jobs given, not yet back */
    unsigned async_key;        /* which async thread its jobs go to */
    long os_pid;               /* port_info os_pid; -1: undefined */
    UWord input, output;       /* bytes to and from the driver */
    char *name;                /* port_info name: the command given */
    int nselect;               /* fds it has selected (poll.c, its lock) */
};

/* open_port/2. Returns the port, or THE_NON_VALUE with the error set on p. */
Term port_open(Process *p, Term name, Term opts);
/* Port ! Msg from p (the send instruction and erlang:send/2). */
void port_send(Process *p, Term port, Term msg);
/* The BIFs' operations; each returns THE_NON_VALUE after setting badarg (or
 * notsup) on p as Erlang does. */
Term port_command(Process *p, Term port, Term data, Term opts);
Term port_control(Process *p, Term port, Term op, Term data);
Term port_close(Process *p, Term port);
Term port_connect(Process *p, Term port, Term pid);
Term port_info(Process *p, Term port, Term item);    /* item NIL: all */
/* link/1 and unlink/1 with a port: -1 if it is not open (noproc). */
int port_link(Process *p, Term port);
void port_unlink(Process *p, Term port);
/* A port's turn on a scheduler (sched.c calls it for a record with port
 * set): acts on its inbox. 1 if the port lives on (the caller marks it
 * waiting), 0 if it is gone (the record may be freed already). */
int port_task_run(Process *pp);
/* The record's last reference went (proc_release): frees the Port. */
void port_record_free(Process *pp);

/* The drivers linked in (drivers.c). */
const DrvEntry *port_driver_find(const char *name, size_t len);
void port_drivers_init(void);

/* Async threads (async.c). async_init at start-up with +A N (0..1024);
 * async_submit hands a job (a SIG_PORT_ASYNC block, see port.c) to thread
 * key mod N; async_shutdown stops and joins them at exit.
 * async_awake_count: the threads not asleep (working or about to sleep). */
void async_init(int n);
int async_thread_count(void);
int async_awake_count(void);
void async_submit(unsigned key, Message *job);
void async_shutdown(void);

/* The poller (poll.c). poll_io_done re-arms fd once the port's callback
 * for its readiness has run; poll_port_closed drops whatever fds a stopped
 * driver left selected; poll_reap_orphan hands over a program whose port
 * has gone (its pid, and its pidfd or -1), so that the poller reaps it. */
void poll_io_done(struct Port *port, int fd);
/* Polling by the schedulers (poll.c explains). poll_active: some fd was
 * ever selected. poll_wait: sleeps in the poll set for at most wait_us
 * (negative: no limit; 0: only looks) until an fd is ready or
 * poll_interrupt is called, and keeps what it found for this thread; 1 if
 * poll_deliver has something to do. Only one thread at a time may wait
 * (wait_us != 0); any may look. poll_deliver hands what was found to the
 * ports. */
int poll_active(void);
int poll_wait(int64_t wait_us);
void poll_deliver(void);
void poll_interrupt(void);
void poll_port_closed(struct Port *port);
void poll_reap_orphan(long pid, int pidfd);

/* The layout of an async job's block (a Message of kind SIG_PORT_ASYNC):
 * one allocation from submit to completion; its `next` links it into the
 * thread's queue, then into the port's inbox. */
typedef struct AsyncJob {
    void (*work)(void *data);
    void *data;
    void (*free_data)(void *data);
    Process *port;             /* the port's record, alive while the job is out */
    uint64_t queued_us;        /* when it was given to its thread (async_submit) */
} AsyncJob;
#define ASYNC_JOB_WORDS ((sizeof(AsyncJob) + sizeof(Term) - 1) / sizeof(Term))
static inline AsyncJob *async_job(Message *m) { return (AsyncJob *)m->mem; }
/* An async thread: runs the job's work and hands the block back to its port. */
void async_job_complete(Message *m);

#endif
