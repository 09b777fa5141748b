/* boehm_oom.c — Boehm's out-of-memory function and the compiler's reserve
 * of address space (see boehm_oom.h). Boehm calls the function with its
 * allocation lock released, so jumping out of it leaves the collector
 * consistent. */
#include "boehm_oom.h"

#include <gc/gc.h>
#include <stddef.h>
#include <sys/mman.h>

__thread jmp_buf *boehm_oom_jump;

static void *refused(size_t bytes) {
    (void)bytes;
    jmp_buf *j = boehm_oom_jump;
    if (j) {
        boehm_oom_jump = NULL;
        longjmp(*j, 1);
    }
    return NULL;            /* the caller reports it (or crashes: see .h) */
}

void boehm_oom_install(void) { GC_set_oom_fn(refused); }

static void *reserve;

void boehm_reserve_take(void) {
    if (reserve) return;
    void *p = mmap(NULL, BOEHM_RESERVE_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) reserve = p;
}

int boehm_reserve_release(void) {
    if (!reserve) return 0;
    munmap(reserve, BOEHM_RESERVE_BYTES);
    reserve = NULL;
    return 1;
}
