/* driver.h — the interface between the port core and a driver: the C code
 * behind a port. A linked-in driver (`open_port({spawn_driver, Name}, _)`)
 * and the driver for an external program are both a DrvEntry; the core owns
 * the port (its table slot, links, owner, the messages) and calls the entry's
 * callbacks; the driver calls the functions below. docs/drivers.md is the
 * guide, with an example; this header is the contract.
 *
 * Threads. Every callback runs on a scheduler thread, with the port locked:
 * one callback of a port at a time, never two. A driver's state therefore
 * needs no lock of its own. The functions below are for callbacks only
 * (they use the port lock the core holds), except where one says "any
 * thread". Blocking work goes to an async thread with driver_async(); its
 * `work` function runs with no lock and must touch only its own job data.
 *
 * Lifetime. start() makes the driver's state; stop() is called once, when
 * the port closes for any reason (port_close, {Pid, close}, its owner's
 * death, driver_failure, exit(Port, R)); after stop() no callback runs
 * again for that port, and an async job still running is dropped when it
 * finishes: its `free_data` is called instead of ready_async. So job data
 * must not point into the driver state that stop() frees.
 *
 * Terms. A driver builds the terms it sends with driver_heap(): words on a
 * scratch heap that the core empties when the callback returns, so a term
 * must not be kept across callbacks (the message sent is a copy).
 */
#ifndef MINI_DRIVER_H
#define MINI_DRIVER_H

#include <stddef.h>
#include "term.h"

typedef struct Port DrvPort;          /* the port, as a driver sees it */

/* What open_port's option list said, read by the core (the options are
 * Erlang's; each is accepted for every driver, and a driver reads the ones
 * it means). `opts` is the list itself, valid during start() only, for
 * options with values (args, cd, env). */
typedef struct DrvOpts {
    int binary;          /* `binary`: data as binaries, else as lists       */
    int packet;          /* {packet, N}: 0, 1, 2 or 4                        */
    int line;            /* {line, N}: N, or 0 for stream mode              */
    int exit_status;     /* `exit_status`                                   */
    int use_stdio;       /* 1 unless `nouse_stdio`                          */
    int stderr_to_stdout;
    int eof;             /* `eof`: tell the owner {Port, eof}, do not close  */
    int in, out;         /* `in` / `out` only (both 1 by default)            */
    Term opts;           /* the whole option list                            */
} DrvOpts;

/* A reply buffer for control(): the driver writes up to `size` bytes into
 * `buf`, or sets `buf` to memory from malloc() for a longer reply (the core
 * frees it). */
typedef struct DrvBuf {
    char *buf;
    size_t size;
} DrvBuf;

typedef struct DrvEntry {
    const char *name;    /* what {spawn_driver, Name} names (the first word) */
    /* Once at start-up; non-zero means the driver is unavailable. May be NULL. */
    int (*init)(void);
    /* open_port: command is the whole {spawn_driver, Command} string (the
     * name, then arguments). Returns the driver's state, or NULL to refuse:
     * open_port then raises badarg, or the error atom *err names (an errno
     * atom such as enoent, for a program that cannot start). */
    void *(*start)(DrvPort *port, const char *command, const DrvOpts *opts, Term *err);
    /* The port closes. The state is the driver's to free. */
    void (*stop)(void *drv);
    /* port_command / Port ! {Pid, {command, Data}}: Data flattened. May be NULL
     * (then a command is badarg, as for a port opened `in` only). */
    void (*output)(void *drv, const char *buf, size_t len);
    /* port_control(Port, Cmd, Data): returns the reply's length, or -1 for
     * badarg. The reply goes back to the caller as a list of bytes. May be
     * NULL: every control is badarg. */
    long (*control)(void *drv, unsigned cmd, const char *buf, size_t len, DrvBuf *reply);
    /* A job given to driver_async has finished; `data` is its data, now
     * the driver's to use and free. Called in the order jobs finish, which
     * for one port is the order they were given. */
    void (*ready_async)(void *drv, void *data);
    /* driver_select: the fd is readable / writable (see driver_select). */
    void (*ready_input)(void *drv, int fd);
    void (*ready_output)(void *drv, int fd);
} DrvEntry;

/* ---- sending to the port's owner (the connected process) ---- */

/* {Port, {data, Bytes}}: Bytes a list, or a binary if the port is binary. */
void driver_output(DrvPort *port, const char *buf, size_t len);
/* {Port, T}, T built with driver_heap (or an immediate): e.g. the textscan
 * driver's {data, {Lines, Words, Bytes, Sum}}, or {exit_status, S}, eof. */
void driver_output_term(DrvPort *port, Term t);
/* Msg (built with driver_heap, or an immediate) to any process: what the
 * socket drivers send ({tcp, S, Data}, replies to a waiting caller). */
void driver_send(DrvPort *port, Term to, Term msg);
/* The process whose port_control is running (in control() only; else the
 * connected process). */
Term driver_caller(DrvPort *port);
/* Words for building a term that one of the calls above sends; valid until
 * the callback returns. */
Term *driver_heap(DrvPort *port, size_t words);
/* A binary with these bytes, on the scratch heap. */
Term driver_binary(DrvPort *port, const void *bytes, size_t len);

/* The port closes with this reason: stop() is called when the current
 * callback returns, and the owner and every linked process get the exit
 * signal {'EXIT', Port, Reason} (the owner dies of it unless it traps
 * exits, or the reason is normal). */
void driver_failure(DrvPort *port, Term reason);

/* The port closes with no exit signal (its links are undone first): a
 * socket whose peer closed, as Erlang's does after {tcp_closed, S}. */
void driver_close_quiet(DrvPort *port);

/* The port itself (#Port<0.N>), and its connected process. */
Term driver_port_term(DrvPort *port);
Term driver_connected(DrvPort *port);
/* What port_info(Port, os_pid) says (an external program's pid). */
void driver_set_os_pid(DrvPort *port, long pid);

/* ---- async jobs ---- */

/* Runs work(data) off the scheduler, then ready_async(drv, data) on a
 * scheduler with the port locked. With +A N (N > 0) the job goes to async
 * thread hash(port) mod N, so one port's jobs run one at a time in the
 * order given; with +A 0 work() runs at once, on this thread, and
 * ready_async still comes later from the port's own turn, as with threads.
 * If the port has closed by the time the job finishes, free_data(data) is
 * called instead (it may be NULL when data needs no freeing).
 * Returns 0, or -1 when out of memory (nothing was queued). */
int driver_async(DrvPort *port, void (*work)(void *data), void *data, void (*free_data)(void *data));

/* ---- I/O readiness (for drivers that own file descriptors) ---- */

#define DRV_READ  1
#define DRV_WRITE 2
/* Asks to be told (on) or no longer told (off) when fd is readable
 * (DRV_READ) or writable (DRV_WRITE): the scheduler polling the set
 * calls port_io_ready, which reaches the port through its inbox as
 * an async completion does, and the port calls ready_input / ready_output
 * on a scheduler. Level-triggered: the driver reads until EAGAIN, and the
 * call stays on until it is turned off. A driver turns off all its fds in
 * stop(). Reported once, re-armed after the callback returns (poll.c).
 * Returns 0, or -1 with errno set (ENOSYS: no poll set could be made; EBUSY:
 * another port's fd; EPERM: a regular file).
 * While a port waits for an fd, the run is not deadlocked. */
int driver_select(DrvPort *port, int fd, int mode, int on);
/* For the poll set (any thread): fd of port is ready for mode. It is
 * never called once stop() has turned the fd off: it pushes under the
 * lock that driver_select takes (poll.c), so the port's record lives. */
void port_io_ready(DrvPort *port, int fd, int mode);

#endif
