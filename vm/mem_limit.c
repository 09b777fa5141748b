/* mem_limit.c — the limits on process memory (mem_limit.h): defaults, the
 * VM-wide ceiling and its victim, and the error reports.
 *
 * The ceiling. Every process publishes the words of its young block and old
 * heap (mem_words) and their sum is kept in mem_process_words, so a
 * collection about to take a new block knows, for the price of one atomic
 * read, whether all process heaps would pass the ceiling. Only then does it
 * look for the largest process in the table (a walk of every slot): that
 * one is killed, as the process most likely to be the runaway, and the one
 * whose death gives the most back. If it is the collecting process itself,
 * its collection fails (gc.h) and it dies at once; otherwise it is sent an
 * untrappable `kill` and the collecting process goes on, over the ceiling
 * until the victim has died. While a victim is on its way out, no second one
 * is chosen (a burst of collections over the ceiling kills one process, not
 * one per collection). Fragments (messages in flight, a BIF's scratch) are
 * not counted: they are short-lived and become heap at the next collection;
 * nor is the 55-word first heap of a process that has never collected (a
 * million idle processes are 440 MB, which the ceiling then misses; keeping
 * the shared counter out of every spawn and exit is worth it).
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#undef PRIO_MIN                     /* resource.h's, not sched_policy.h's */
#undef PRIO_MAX

#include "mem_limit.h"
#include "atom.h"
#include "error_report.h"
#include "gc.h"
#include "outbuf.h"
#include "print.h"
#include "proc.h"
#include "bif_io.h"

size_t mem_default_max_heap;
int mem_default_max_heap_kill = 1, mem_default_max_heap_log = 1;
_Atomic size_t mem_process_words;

static size_t ceiling_words;
static _Atomic Term victim = 0;     /* pid sent `kill` for the ceiling, until it is gone */

/* kB of MemTotal in /proc/meminfo, 0 if unknown */
static size_t meminfo_total_kb(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[128];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %zu kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

size_t mem_address_space_limit(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (size_t)rl.rlim_cur : 0;
}

void mem_limit_init(void)
{
    size_t bytes = meminfo_total_kb() * 1024, as = mem_address_space_limit();
    if (as && (bytes == 0 || as < bytes))
        bytes = as;
    ceiling_words = bytes / 4 * 3 / sizeof(Term);
}

void mem_set_ceiling_mb(size_t mb)
{
    ceiling_words = mb * ((size_t)1 << 20) / sizeof(Term);
}

size_t mem_ceiling_words(void) { return ceiling_words; }

void mem_publish(Process *p)
{
    size_t w = gc_heap_size(p) + gc_old_heap_size(p);
    size_t was = atomic_load_explicit(&p->mem_words, memory_order_relaxed);
    if (w == was) return;
    atomic_store_explicit(&p->mem_words, w, memory_order_relaxed);
    if (w > was) atomic_fetch_add_explicit(&mem_process_words, w - was, memory_order_relaxed);
    else atomic_fetch_sub_explicit(&mem_process_words, was - w, memory_order_relaxed);
}

static void report_header(OutBuf *b, Term pid, const char *context)
{
    error_report_header(b);
    ob_puts(b, "     Process:            ");
    print_term(b, pid, PRINT_WRITE);
    ob_printf(b, " \n     Context:            %s\n", context);
}

int mem_ceiling_reached(Process *p, size_t words)
{
    Term v = atomic_load_explicit(&victim, memory_order_acquire);
    if (v) {
        Process *q = proc_lookup(v);
        if (q) {                        /* still dying: let p go on */
            proc_release(q);
            return 1;
        }
        atomic_compare_exchange_strong(&victim, &v, 0);
    }
    Process *big = proc_table_largest();
    size_t mine = atomic_load_explicit(&p->mem_words, memory_order_relaxed) + words;
    if (!big || big == p || atomic_load_explicit(&big->mem_words, memory_order_relaxed) <= mine) {
        if (big) proc_release(big);
        return 0;                       /* p is the largest (counting what it asks) */
    }
    Term pid = big->pid;
    size_t big_words = atomic_load_explicit(&big->mem_words, memory_order_relaxed);
    proc_release(big);
    Term none = 0;
    if (!atomic_compare_exchange_strong(&victim, &none, pid))
        return 1;                       /* another thread chose one meanwhile */
    OutBuf b;
    ob_init(&b);
    report_header(&b, pid, "VM memory ceiling reached");
    ob_printf(&b, "     Memory Ceiling:     %zu\n     Total Heap Size:    %zu\n\n",
              ceiling_words, big_words);
    io_write_err(b.buf, b.len);
    ob_free(&b);
    proc_exit_signal(p, pid, ATOM_TERM(kill));
    return 1;
}

static void put_gc_info(OutBuf *b, const Process *p)
{
    ob_printf(b, "     GC Info:            [{old_heap_block_size,%zu},\n"
                 "                          {heap_block_size,%zu},\n"
                 "                          {mbuf_size,%zu},\n"
                 "                          {stack_size,%zu},\n"
                 "                          {old_heap_size,%zu},\n"
                 "                          {heap_size,%zu},\n"
                 "                          {bin_vheap_size,%zu}]\n",
              gc_old_heap_size(p), gc_heap_size(p), p->mbuf_words, gc_stack_size(p),
              p->old_heap ? (size_t)(p->old_htop - p->old_heap) : 0,
              (size_t)(p->htop - p->heap), p->bin_vheap / sizeof(Term));
}

void mem_report(Process *p, int why)
{
    OutBuf b;
    ob_init(&b);
    report_header(&b, p->pid, why == OOM_MAX_HEAP ? "maximum heap size reached" :
                              why == OOM_CEILING ? "VM memory ceiling reached" : "out of memory");
    if (why == OOM_MAX_HEAP)
        ob_printf(&b, "     Max Heap Size:      %zu\n", p->max_heap_size);
    if (why == OOM_CEILING)
        ob_printf(&b, "     Memory Ceiling:     %zu\n", ceiling_words);
    ob_printf(&b, "     Total Heap Size:    %zu\n", gc_total_heap_size(p));
    if (why == OOM_MAX_HEAP)
        ob_printf(&b, "     Kill:               %s\n     Error Logger:       %s\n",
                  p->max_heap_kill ? "true" : "false", p->max_heap_log ? "true" : "false");
    ob_printf(&b, "     Message Queue Len:  %zu\n", (size_t)p->mbox.len);
    put_gc_info(&b, p);
    ob_puts(&b, "\n");
    io_write_err(b.buf, b.len);
    ob_free(&b);
}
