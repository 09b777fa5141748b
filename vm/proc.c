/* proc.c — the life of a process: spawn, exit and the exit reason, and
 * references. The pid table is proc_table.c, registered names proc_names.c,
 * messages and signals proc_signal.c.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "proc.h"
#include "ets.h"
#include "fatal.h"
#include "atom.h"
#include "binary.h"
#include "copy.h"
#include "emulator.h"
#include "heap.h"
#include "heap_block.h"
#include "module.h"
#include "outbuf.h"
#include "print.h"
#include "sched.h"
#include "unique.h"
#include "bif_io.h"
#include "error_report.h"
#include "mem_limit.h"
#include "bif_file.h"

/* per-scheduler sequences: no counter shared between schedulers (unique.h) */
uint64_t proc_new_ref(void) { return unique_next(); }

Term make_ref_at(Term *hp, uint64_t n) {
    hp[0] = make_header(1, BOXED_REF);
    hp[1] = (Term)n;
    return make_boxed(hp);
}


/* ---- spawn ---- */

size_t proc_default_min_heap;

Term proc_spawn(Process *parent, Term module, Term fun, Term args, const SpawnOpts *o,
                uint64_t *mon_ref) {
    static const SpawnOpts plain = { .prio = PRIO_NORMAL };
    if (!o) o = &plain;
    int link = o->link, monitor = o->monitor;
    size_t min_heap = o->min_heap > proc_default_min_heap ? o->min_heap : proc_default_min_heap;
    Process *c = process_new_memory(min_heap > MIN_HEAP_SIZE ? min_heap : MIN_HEAP_SIZE);
    if (!c) return THE_NON_VALUE;
    mailbox_init(&c->mbox);
    /* the table's reference (a lookup that read a slot when this record was
     * another process's may already be counting: see slot_acquire) */
    atomic_store_explicit(&c->refc, 1, memory_order_release);
    c->reg_name = NIL;
    c->prio = o->prio;             /* not inherited: Erlang's rule */
    c->group_leader = parent ? parent->group_leader : NIL;
    c->exit_reason = THE_NON_VALUE;
    if (o->max_heap.size || o->max_heap.kill || o->max_heap.log) {
        c->max_heap_size = o->max_heap.size;
        c->max_heap_kill = (unsigned char)o->max_heap.kill;
        c->max_heap_log = (unsigned char)o->max_heap.log;
    } else {                       /* plain spawn: +hmax's defaults */
        c->max_heap_size = mem_default_max_heap;
        c->max_heap_kill = (unsigned char)mem_default_max_heap_kill;
        c->max_heap_log = (unsigned char)mem_default_max_heap_log;
    }
    if (!proc_table_insert(c)) {
        proc_release(c);
        return THE_NON_VALUE;
    }
    /* the arguments (or the fun) are copied into the child's heap */
    Export *e;
    int arity;
    Term *hp;
    if (module == NIL) {
        size_t n = copy_size(fun);
        hp = heap_alloc(c, n);
        c->x[0] = copy_term(fun, hp);
        binary_adopt(c, hp, hp + n);
        c->x[1] = NIL;
        e = export_get(ATOM_TERM(erlang), ATOM_TERM(apply), 2);
        arity = 2;
        if (boxed_kind(fun) == BOXED_FUN) {
            const FunEntry *fe = (const FunEntry *)boxed_ptr(fun)[1];
            hp = heap_alloc(c, 4);
            hp[0] = make_tuple_header(3); hp[1] = fe->module; hp[2] = fe->name;
            hp[3] = make_small(fe->arity);
            c->initial_call = make_boxed(hp);
        }
    } else {
        arity = 0;
        int n = 0;
        for (Term l = args; is_list(l); l = list_tail(l)) n++;
        if (!process_reserve_xsave(c, n))
            FATAL("out of memory for the %d arguments of a spawned process", n);
        for (Term l = args; is_list(l); l = list_tail(l)) {
            size_t n = copy_size(list_head(l));
            hp = heap_alloc(c, n);
            c->x[arity++] = copy_term(list_head(l), hp);
            binary_adopt(c, hp, hp + n);
        }
        e = export_get(module, fun, arity);
        hp = heap_alloc(c, 4);
        hp[0] = make_tuple_header(3); hp[1] = module; hp[2] = fun; hp[3] = make_small(arity);
        c->initial_call = make_boxed(hp);
    }
    if (c->out_of_memory) {        /* its arguments did not fit (heap.c) */
        binary_release_all(c);
        proc_table_remove(c);
        proc_release(c);
        return THE_NON_VALUE;
    }
    emulator_setup_call(c, e, arity);
    if (parent && link) {
        proc_link_add(parent, c->pid);
        proc_link_add(c, parent->pid);
    }
    if (parent && monitor) {
        uint64_t ref = proc_new_ref();
        proc_monitor_add(parent, ref, c->pid, 1);
        proc_monitor_add(c, ref, parent->pid, 0);
        *mon_ref = ref;
    }
    /* once runnable, c may run, end and be freed on another scheduler:
     * nothing of it may be touched after this */
    Term pid = c->pid;
    sched_spawned(parent, c);
    return pid;
}

/* ---- exit ---- */

Term proc_exception_reason(Process *p) {
    if (p->exc_class == EXC_EXIT) return p->exc_reason;
    Term reason = p->exc_reason;
    if (p->exc_class == EXC_THROW) {
        Term *hp = heap_alloc(p, 3);
        hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(nocatch); hp[2] = reason;
        reason = make_boxed(hp);
    }
    Term *hp = heap_alloc(p, 3);
    hp[0] = make_tuple_header(2); hp[1] = reason;
    hp[2] = p->exc_trace == THE_NON_VALUE ? NIL : p->exc_trace;
    return make_boxed(hp);
}

static void error_report(Process *p, Term reason) {
    OutBuf b;
    ob_init_soft(&b);
    error_report_header(&b);
    ob_puts(&b, "Error in process ");
    print_term(&b, p->pid, PRINT_WRITE);
    ob_puts(&b, " with exit value:\n");
    print_term(&b, reason, PRINT_PRINT);
    ob_puts(&b, "\n\n");
    if (b.failed) {             /* the reason's text did not fit in memory */
        ob_free(&b);
        error_report_header(&b);
        ob_puts(&b, "Error in process ");
        print_term(&b, p->pid, PRINT_WRITE);
        ob_puts(&b, " with an exit value too large to print in the memory left\n\n");
    }
    io_write_err(b.buf, b.len);
    ob_free(&b);
}

/* A dead process's memory goes back before anyone hears of the death: a
 * monitor that wakes to the 'DOWN' of a process killed for memory and at
 * once needs memory itself (to load a module, to start a replacement) finds
 * it free, whichever scheduler ran the dying one. The reason outlives the
 * heap in a block of its own (*held); a reason the memory left cannot copy
 * keeps the heap until the signals are out (returns 0). */
static int release_memory(Process *p, Term *reason, Message **held) {
    if (!is_immed(*reason)) {
        if (!(*held = proc_message_try_copy(*reason))) return 0;
        *reason = (*held)->term;
    }
    process_free_heap(p);
    /* the blocks a process killed for memory grew stay in malloc's arenas
     * (heap.c, heap_init) and this thread's kept blocks (heap_block.c),
     * where the Boehm heap (code, the compiler) cannot have them: they go
     * back to the system */
    if (p->out_of_memory) { heap_block_release_all(); malloc_trim(0); }
    return 1;
}

void proc_exit(Process *p, Term reason, int report) {
    if (report) error_report(p, reason);
    /* its files are closed before anyone hears of the death */
    if (p->files) file_close_all(p);
    /* Gone from the table and the names before anyone hears of the death, so
     * that whoever receives the 'DOWN' or 'EXIT' finds it dead. */
    if (p->reg_name != NIL) proc_unregister(p->reg_name);
    proc_table_remove(p);
    /* its tables go to their heirs or die before links and monitors hear */
    if (atomic_load(&p->ets_owned)) ets_owner_exit(p);
    Message *held = NULL;
    int released = release_memory(p, &reason, &held);
    proc_signal_exit(p, reason);
    if (held) proc_message_free(held);
    if (!released && p->out_of_memory) { heap_block_release_all(); malloc_trim(0); }
    proc_release(p);
}
