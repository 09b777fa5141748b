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

#include <setjmp.h>
#include <stddef.h>

extern __thread jmp_buf *boehm_oom_jump;

/* Makes Boehm call us on a refusal; module_init does, once. */
void boehm_oom_install(void);

static inline jmp_buf *boehm_oom_hold(void) {
    jmp_buf *j = boehm_oom_jump;
    boehm_oom_jump = NULL;
    return j;
}

static inline void boehm_oom_release(jmp_buf *j) { boehm_oom_jump = j; }

#endif
