/* boehm_oom.h — what happens when the system refuses Boehm's collector
 * memory (the compiler's trees, loaded code, atom names).
 *
 * The compiler and the loader allocate from Boehm's heap without checking
 * every result, so a module compiled on demand after a program has used up
 * the address space would crash the VM at the first NULL. Instead, while a
 * thread compiles and loads (module.c sets boehm_oom_jump around it), a
 * refusal jumps back there: the load fails, and the caller sees the module
 * as missing (`undef`), as Erlang sees a module it cannot load. Code that
 * allocates from Boehm's heap with a lock held (the atom table, the export
 * table) suspends the jump with boehm_oom_hold, since a jump would leave
 * the lock held; there a refusal stays fatal. */
#ifndef MINI_BOEHM_OOM_H
#define MINI_BOEHM_OOM_H

#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <unistd.h>

extern __thread jmp_buf *boehm_oom_jump;

/* Makes Boehm call us on a refusal; module_init does, once. */
void boehm_oom_install(void);

/* The compiler's reserve: address space held back (mapped, never touched)
 * for Boehm's heap to grow into when the rest is gone. Boehm's heap only
 * grows, and glibc's arenas keep the address space they reserve even when
 * their memory is freed, so under a limit on it (ulimit -v), once processes
 * have used it up, a module first called afterwards (a monitor that loads
 * lists to go on after a death for memory) could not compile. A refused
 * compile gives the reserve back and tries again (module.c). Taking it
 * again is a no-op while it is held; release answers whether there was
 * one to give. Called with the loader's lock held (or before any thread). */
#define BOEHM_RESERVE_BYTES ((size_t)8 << 20)
void boehm_reserve_take(void);
int boehm_reserve_release(void);

static inline jmp_buf *boehm_oom_hold(void) {
    jmp_buf *j = boehm_oom_jump;
    boehm_oom_jump = NULL;
    return j;
}

static inline void boehm_oom_release(jmp_buf *j) { boehm_oom_jump = j; }

/* Takes a lock that is held while Boehm's heap is allocated from (the
 * module loader's, the export and atom tables'). Boehm collects by stopping
 * every other thread with a signal. ThreadSanitizer holds a signal back
 * while its thread waits inside pthread_mutex_lock, so a thread waiting for
 * the lock of the thread that collects would never answer it ("Signals
 * delivery fails constantly"); under TSan the waiter naps in usleep, where
 * signals are delivered, and tries again. Elsewhere it is the plain lock. */
static inline void boehm_mutex_lock(pthread_mutex_t *m) {
#ifdef __SANITIZE_THREAD__
    while (pthread_mutex_trylock(m) != 0) usleep(20);
#else
    pthread_mutex_lock(m);
#endif
}

#endif
