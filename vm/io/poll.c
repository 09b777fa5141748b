/* poll.c — the VM's I/O poll set: driver_select (driver.h) and the reaping
 * of external programs whose port has gone.
 *
 * There is no poller thread: the schedulers poll, as BEAM's did. A
 * scheduler about to sleep takes the poll set if no other holds it, and
 * sleeps in it (poll_wait) instead of on its futex word; when an fd is ready
 * it wakes, hands the readiness to the ports (poll_deliver) and runs them
 * itself. So a packet costs one thread wake-up before its reader runs, not
 * two (a poller thread, then a scheduler). While every scheduler is busy,
 * each looks at the set without waiting every POLL_CHECK_US (sched.c).
 *
 * Each registration is EPOLLONESHOT: when the fd is ready, poll_deliver
 * pushes one SIG_PORT_IO block to the port's inbox (port_io_ready: one CAS)
 * and the fd stays disarmed until the port's callback has run (poll_io_done
 * re-arms it). So a driver sees level-triggered readiness — still-unread
 * data is reported again after its callback — but an fd that stays readable
 * while its port waits for a scheduler is reported once: nobody spins, and
 * a port that floods is read one bounded callback at a time.
 *
 * The sleeper waits on a set of its own holding two fds: the shared set
 * (an epoll fd is readable while it has ready fds) and an eventfd that
 * poll_interrupt writes to wake it for other work. The schedulers that look
 * without waiting touch only the shared set, so they can never swallow a
 * wake-up meant for the sleeper.
 *
 * Registrations live in a table indexed by fd, under one mutex taken for
 * each batch of events delivered and by driver_select. The epoll data
 * carries the fd and a generation number, so an event fetched for an fd
 * that was deselected (and perhaps reused by another port) is dropped. A
 * port is pushed to only under the mutex, and a port deselects its fds in
 * stop() under the same mutex before its record can go: delivering needs no
 * reference on the record.
 *
 * A program whose port closed while it still ran is reaped here: its pidfd
 * is registered with no port, and waitpid is called when the program ends,
 * so no zombie stays. Without pidfd (kernels before 5.3) such pids wait on a
 * list looked at every 100 ms (the sleeper's wait is cut to that).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "port.h"
#include "sched.h"

typedef struct Reg {
    struct Port *port;          /* NULL: free (or an orphan's pidfd) */
    int mode;                   /* DRV_READ | DRV_WRITE asked for */
    int armed;                  /* in epoll, not yet reported */
    uint32_t gen;               /* bumped at each (de)registration */
    pid_t orphan;               /* > 0: a pidfd the poller reaps */
} Reg;

static pthread_mutex_t poll_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t poll_once = PTHREAD_ONCE_INIT;
static int epfd = -1;            /* the shared set: every selected fd */
static int sleep_ep = -1;        /* the sleeper's set: epfd and wakefd */
static int wakefd = -1;          /* an eventfd that wakes the sleeper */
static _Atomic int poll_on;      /* epfd is made: there is something to poll */
static Reg *regs;               /* indexed by fd */
static int nregs;
static pid_t *orphans;          /* no pidfd: pids reaped by polling */
static int norphans, orphans_cap;

static uint32_t epoll_events(int mode) {
    uint32_t ev = EPOLLONESHOT;
    if (mode & DRV_READ) ev |= EPOLLIN | EPOLLRDHUP;
    if (mode & DRV_WRITE) ev |= EPOLLOUT;
    return ev;
}

static uint64_t ev_data(int fd, uint32_t gen) { return (uint64_t)(uint32_t)fd | ((uint64_t)gen << 32); }

static int arm(int op, int fd, Reg *r, uint32_t events) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = ev_data(fd, r->gen);
    return epoll_ctl(epfd, op, fd, &ev);
}

/* Reaps orphans that have ended (lock held); the no-pidfd list only. */
static void orphans_reap(void) {
    for (int i = 0; i < norphans;) {
        int st;
        pid_t r = waitpid(orphans[i], &st, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR)) { i++; continue; }
        orphans[i] = orphans[--norphans];
    }
}

/* What this thread's last poll_wait fetched, for its poll_deliver. */
#define POLL_BATCH 64
static __thread struct epoll_event fetched[POLL_BATCH];
static __thread int nfetched;

/* Acts on events fetched from the shared set (lock held). */
static void deliver_events(const struct epoll_event *evs, int n) {
    for (int i = 0; i < n; i++) {
        int fd = (int)(uint32_t)evs[i].data.u64;
        uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);
        if (fd < 0 || fd >= nregs || regs[fd].gen != gen) continue;   /* stale */
        Reg *r = &regs[fd];
        if (r->orphan > 0) {
            int st;
            pid_t w = waitpid(r->orphan, &st, WNOHANG);
            if (w == 0) { arm(EPOLL_CTL_MOD, fd, r, EPOLLIN | EPOLLONESHOT); continue; }
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
            close(fd);
            r->orphan = 0;
            r->gen++;
            continue;
        }
        if (!r->port || !r->armed) continue;
        r->armed = 0;
        uint32_t e = evs[i].events;
        int mode = 0;
        if ((r->mode & DRV_READ) && (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) mode |= DRV_READ;
        if ((r->mode & DRV_WRITE) && (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))) mode |= DRV_WRITE;
        if (!mode) mode = r->mode;
        port_io_ready(r->port, fd, mode);
    }
}

int poll_active(void) { return atomic_load_explicit(&poll_on, memory_order_acquire); }

/* Sleeps in the sleeper's set for at most wait_us: with epoll_pwait2's
 * microseconds where the kernel has it, else epoll_wait's milliseconds
 * rounded up (a timer is never served early; ThreadSanitizer knows only
 * epoll_wait, and holds signals back in a system call it does not know). */
static void sleep_in_set(int64_t wait_us) {
    struct epoll_event evs[2];
    int n;
#ifndef __SANITIZE_THREAD__
    static _Atomic int no_pwait2;
    if (wait_us >= 0 && !atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
        struct timespec ts = { (time_t)(wait_us / 1000000), (long)(wait_us % 1000000) * 1000 };
        n = (int)syscall(SYS_epoll_pwait2, sleep_ep, evs, 2, &ts, NULL, 0);
        if (n >= 0 || errno != ENOSYS) goto woke;
        atomic_store_explicit(&no_pwait2, 1, memory_order_relaxed);
    }
#endif
    n = epoll_wait(sleep_ep, evs, 2, wait_us < 0 ? -1 : (int)((wait_us + 999) / 1000));
#ifndef __SANITIZE_THREAD__
woke:
#endif
    for (int i = 0; i < n; i++)
        if (evs[i].data.u64 == 1) {             /* poll_interrupt */
            uint64_t v;
            if (read(wakefd, &v, sizeof v) < 0) {}
        }
}

int poll_wait(int64_t wait_us) {
    nfetched = 0;
    if (!poll_active()) return 0;
    pthread_mutex_lock(&poll_lock);
    int orphan_watch = norphans > 0;
    pthread_mutex_unlock(&poll_lock);
    if (wait_us != 0) {
        if (orphan_watch && (wait_us < 0 || wait_us > 100000)) wait_us = 100000;
        sleep_in_set(wait_us);
    }
    int n = epoll_wait(epfd, fetched, POLL_BATCH, 0);
    nfetched = n > 0 ? n : 0;
    return nfetched > 0 || orphan_watch;
}

void poll_deliver(void) {
    if (!poll_active()) return;
    pthread_mutex_lock(&poll_lock);
    deliver_events(fetched, nfetched);
    if (norphans > 0) orphans_reap();
    pthread_mutex_unlock(&poll_lock);
    nfetched = 0;
}

void poll_interrupt(void) {
    uint64_t one = 1;
    if (wakefd >= 0 && write(wakefd, &one, sizeof one) < 0) {}
}

static void poll_start(void) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int sp = epoll_create1(EPOLL_CLOEXEC);
    int wf = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event shared = { .events = EPOLLIN, .data.u64 = 0 };
    struct epoll_event wake = { .events = EPOLLIN, .data.u64 = 1 };
    if (ep < 0 || sp < 0 || wf < 0 || epoll_ctl(sp, EPOLL_CTL_ADD, ep, &shared) < 0 ||
        epoll_ctl(sp, EPOLL_CTL_ADD, wf, &wake) < 0) {
        if (ep >= 0) close(ep);
        if (sp >= 0) close(sp);
        if (wf >= 0) close(wf);
        return;
    }
    epfd = ep;
    sleep_ep = sp;
    wakefd = wf;
    atomic_store_explicit(&poll_on, 1, memory_order_release);
    /* a scheduler asleep since before there was a set to poll must come
     * and take it */
    sched_poll_started();
}

static int poll_ready(void) {
    pthread_once(&poll_once, poll_start);
    return epfd >= 0;
}

/* Room for fd in the table (lock held); 0 when out of memory. */
static int regs_fit(int fd) {
    if (fd < nregs) return 1;
    int n = nregs ? nregs : 64;
    while (n <= fd) n *= 2;
    Reg *r = realloc(regs, (size_t)n * sizeof *r);
    if (!r) return 0;
    memset(r + nregs, 0, (size_t)(n - nregs) * sizeof *r);
    regs = r;
    nregs = n;
    return 1;
}

/* Takes r (fd) out of epoll and the table (lock held). */
static void reg_drop(int fd, Reg *r) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
    r->port->nselect--;
    r->port = NULL;
    r->mode = 0;
    r->armed = 0;
    r->gen++;
    sched_outside_work(-1);       /* the port no longer waits for this fd */
}

int driver_select(DrvPort *port, int fd, int mode, int on) {
    if (fd < 0 || !(mode & (DRV_READ | DRV_WRITE))) { errno = EINVAL; return -1; }
    if (!poll_ready()) { errno = ENOSYS; return -1; }
    pthread_mutex_lock(&poll_lock);
    if (!regs_fit(fd)) { pthread_mutex_unlock(&poll_lock); errno = ENOMEM; return -1; }
    Reg *r = &regs[fd];
    if ((r->port && r->port != port) || r->orphan > 0) {
        pthread_mutex_unlock(&poll_lock);
        errno = EBUSY;
        return -1;
    }
    int old = r->port ? r->mode : 0, want = on ? (old | mode) : (old & ~mode);
    int rc = 0;
    if (want == old) {
        /* nothing changes */
    } else if (want == 0) {
        reg_drop(fd, r);
    } else if (old == 0) {
        r->gen++;
        r->port = port;
        r->mode = want;
        r->armed = 1;
        if (arm(EPOLL_CTL_ADD, fd, r, epoll_events(want)) < 0) {
            r->port = NULL; r->mode = 0; r->armed = 0;
            rc = -1;
        } else {
            port->nselect++;
            /* a port waiting for an fd is work outside the schedulers: the
             * run is no deadlock while it waits */
            sched_outside_work(1);
        }
    } else {
        r->mode = want;
        r->armed = 1;
        rc = arm(EPOLL_CTL_MOD, fd, r, epoll_events(want));
    }
    int e = errno;
    pthread_mutex_unlock(&poll_lock);
    errno = e;
    return rc;
}

void poll_io_done(struct Port *port, int fd) {
    if (!port->nselect) return;         /* (a selecting port made the poller) */
    pthread_mutex_lock(&poll_lock);
    if (fd < nregs) {
        Reg *r = &regs[fd];
        if (r->port == port && r->mode && !r->armed) {
            r->armed = 1;
            arm(EPOLL_CTL_MOD, fd, r, epoll_events(r->mode));
        }
    }
    pthread_mutex_unlock(&poll_lock);
}

void poll_port_closed(struct Port *port) {
    if (!port->nselect) return;
    /* the driver's stop() left fds selected: drop them, so the poller never
     * reaches this port again */
    pthread_mutex_lock(&poll_lock);
    for (int fd = 0; fd < nregs && port->nselect; fd++)
        if (regs[fd].port == port) reg_drop(fd, &regs[fd]);
    pthread_mutex_unlock(&poll_lock);
}

void poll_reap_orphan(long pid, int pidfd) {
    int st;
    pid_t w = waitpid((pid_t)pid, &st, WNOHANG);
    if (w != 0) {                       /* ended already (or not ours) */
        if (pidfd >= 0) close(pidfd);
        return;
    }
    if (!poll_ready()) {                /* no poll set: wait for it here */
        if (pidfd >= 0) close(pidfd);
        while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR) {}
        return;
    }
    pthread_mutex_lock(&poll_lock);
    if (pidfd >= 0 && regs_fit(pidfd)) {
        Reg *r = &regs[pidfd];
        r->gen++;
        r->orphan = (pid_t)pid;
        if (arm(EPOLL_CTL_ADD, pidfd, r, EPOLLIN | EPOLLONESHOT) == 0) {
            pthread_mutex_unlock(&poll_lock);
            return;
        }
        r->orphan = 0;
    }
    if (pidfd >= 0) close(pidfd);
    if (norphans == orphans_cap) {
        int n = orphans_cap ? orphans_cap * 2 : 16;
        pid_t *o = realloc(orphans, (size_t)n * sizeof *o);
        if (o) { orphans = o; orphans_cap = n; }
    }
    if (norphans < orphans_cap) orphans[norphans++] = (pid_t)pid;
    int first = norphans == 1;
    pthread_mutex_unlock(&poll_lock);
    /* the sleeper may wait with no time limit: a pidfd-less orphan needs
     * it to look every 100 ms */
    if (first) poll_interrupt();
}
