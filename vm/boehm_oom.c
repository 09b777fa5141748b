/* boehm_oom.c — Boehm's out-of-memory function (see boehm_oom.h). Boehm
 * calls it with its allocation lock released, so jumping out of it leaves
 * the collector consistent. */
#include "boehm_oom.h"

#include <gc/gc.h>
#include <stddef.h>

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
