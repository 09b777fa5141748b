/* mem_limit.h — the limits on process memory and what happens at them:
 * a process's max_heap_size (process_flag, spawn_opt, +hmax), the VM-wide
 * ceiling on all process heaps (+MMax), and a process that simply cannot
 * get memory. In every case the process dies (exit reason `killed`, an
 * error report names it) and the VM goes on; gc.h says how the collector
 * and the emulator find out. docs/reliability.md compares them with OTP's.
 */
#ifndef MINI_MEM_LIMIT_H
#define MINI_MEM_LIMIT_H

#include <stdatomic.h>
#include "process.h"

/* Process.out_of_memory: why the process must die */
enum { OOM_NONE = 0, OOM_NOMEM, OOM_MAX_HEAP, OOM_CEILING };

/* Defaults for new processes (+hmax words, +hmaxk, +hmaxel), as OTP's. */
extern size_t mem_default_max_heap;
extern int mem_default_max_heap_kill, mem_default_max_heap_log;

/* Words in every process's young block and old heap: the sum of their
 * mem_words (process.h), kept by heap.c and gc.c. */
extern _Atomic size_t mem_process_words;

/* The ceiling, in words (0: none). mem_limit_init sets the default: 3/4 of
 * the smaller of the machine's memory (/proc/meminfo) and the address-space
 * limit (ulimit -v); +MMax MB replaces it (0: no ceiling). */
void mem_limit_init(void);
void mem_set_ceiling_mb(size_t mb);
size_t mem_ceiling_words(void);
/* The address-space limit (ulimit -v) in bytes; 0 when there is none. */
size_t mem_address_space_limit(void);

/* Called by the collector before it takes a block of `words` for p when
 * that would take all process heaps over the ceiling. Returns 1 if p may go
 * ahead (a larger process was sent `kill` instead, and is named in an error
 * report), 0 if p is the largest and must die itself. */
int mem_ceiling_reached(Process *p, size_t words);

/* Publishes p's heap words (young + old) after its memory changed, keeping
 * mem_process_words in step. Only the owner calls it. */
void mem_publish(Process *p);

/* The error report for a process over its max_heap_size (OTP's shape), or
 * dying for memory (OOM_NOMEM, OOM_CEILING). */
void mem_report(Process *p, int why);

#endif
