/* qsbr.h — freeing memory that threads read without locks: quiescent-state-
 * based reclamation.
 *
 * A structure read without a lock (an ETS table's chains and trees, the
 * table registry, a process record a sender found without counting a
 * reference: proc_peek) cannot free what a writer unlinks at once: a reader on
 * another scheduler may be standing on it. The writer retires it instead
 * (qsbr_retire); it is freed once every scheduler has passed a quiescent
 * point — a moment where it holds no pointer into such structures. A
 * scheduler is quiescent between two processes' slices (the top of its
 * loop calls qsbr_quiescent; so does a spinning idle scheduler), and the
 * whole time it sleeps (qsbr_offline before, qsbr_online after): no reader
 * holds a pointer across either, since a lock-free read lives inside one
 * BIF call or one send.
 *
 * How it knows (docs/internals.md, "ETS"): a global epoch counter, and per
 * registered thread the epoch it saw at its last quiescent point (or
 * "offline"). Retired memory collects untagged; at a later quiescent point
 * the thread tags the batch with the epoch it then steps (one atomic add
 * per batch of up to 32, or per scan, none per object), and
 * a batch with tag e is freed once every online thread has announced an
 * epoch above e — each has since been quiescent, so none can reach it.
 * Nothing here waits: a thread that stays inside a slice only delays
 * frees. A thread that is not registered (not a scheduler) hands what it
 * retires to a shared list, freed by the schedulers the same way. */
#ifndef MINI_QSBR_H
#define MINI_QSBR_H

#include <stddef.h>

/* How many threads may register (ids 0 .. n-1); called before any starts. */
void qsbr_init(int nthreads);
/* The calling thread reads lock-free structures as thread id from now on
 * (it comes online). */
void qsbr_thread_start(int id);
/* The calling thread holds no pointer into a lock-free structure: tags what
 * it retired, and frees what every thread has moved past. Cheap when there
 * is nothing to do: one load, and a store when the epoch moved. */
void qsbr_quiescent(void);
/* Around a sleep: an offline thread holds nothing and delays no free. */
void qsbr_offline(void);
void qsbr_online(void);
/* Whether the calling thread is registered and online: what it reads
 * without a lock now stays valid until its next quiescent point. */
int qsbr_protected(void);
/* Frees p with fn(p) once no thread can be reading it. */
void qsbr_retire(void *p, void (*fn)(void *));

/* Objects retired and not yet freed, summed over all threads at a moment
 * (what tests/unit/test_qsbr.c checks reaches 0 once every thread has been
 * quiescent). */
long qsbr_pending(void);

#endif
