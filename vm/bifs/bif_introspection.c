/* bif_introspection.c — introspection BIFs: process_info/1,2, statistics/1,
 * erlang:memory/0,1, erlang:system_info/1 and erlang:garbage_collect/0,1.
 *
 * Results have Erlang/OTP 25's shapes (key order, [] for an unregistered
 * registered_name, undefined for a dead process, badarg for bad items), so
 * programs that pattern-match on them run unchanged; the numbers are Mini's.
 *
 * Reading another process. A process's memory belongs to the scheduler that
 * runs it, so nobody else may read its links, dictionary or queue while it
 * might run. As in OTP, process_info on another process is therefore a
 * request signal: erlang:process_info/1,2 (stdlib/erlang.mini) sends it with
 * '$process_info_request'/3 and waits for the reply; the target answers it
 * itself when it next drains its inbox (info_answer, called from proc_signal.c), so
 * the answer also reflects every signal the caller sent it before (an unlink,
 * messages), in order. A target that dies first answers `undefined` from its
 * exit path. On oneself, '$process_info'/1,2 answer directly.
 *
 * erlang:memory/0,1 counts other processes by the heap words each one
 * publishes after a collection (Process.mem_words), never by their heap
 * pointers, which their owner moves at any moment.
 */
#include <gc.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binary.h"
#include "term_build.h"
#include "bif.h"
#include "proc_dict.h"
#include "port.h"
#include "arith.h"
#include "atom.h"
#include "copy.h"
#include "emulator.h"
#include "gc.h"
#include "module.h"
#include "proc.h"
#include "sched.h"
#include "timer.h"

/* ---- building results ---- */

/* A list built front to back: `tail` is the cell's slot to fill next. */
typedef struct { Term head; Term *tail; } ListBuilder;

static void lb_init(ListBuilder *b) { b->head = NIL; b->tail = &b->head; }

static void lb_add(Process *p, ListBuilder *b, Term t) {
    if (p->out_of_memory)    /* the answer is dropped (info_answer): spare */
        return;              /* the reserve heap_alloc falls back on */
    Term *hp = heap_alloc(p, 2);
    hp[0] = t; hp[1] = NIL;
    *b->tail = make_list(hp);
    b->tail = &hp[1];
}

static Term string_term(Process *p, const char *s) {
    ListBuilder b;
    lb_init(&b);
    for (; *s; s++) lb_add(p, &b, make_small((unsigned char)*s));
    return b.head;
}

/* A copy of t (which may live on another process's heap) on p's heap. */
static Term copy_here(Process *p, Term t) {
    size_t n = copy_size(t);
    if (!n) return t;
    Term *hp = heap_alloc_try(p, n);   /* may be huge: p dies, not the VM */
    if (!hp) return THE_NON_VALUE;
    Term c = copy_term(t, hp);
    binary_adopt(p, hp, hp + n);       /* binaries: copied ProcBins join p's list */
    return c;
}

/* a size or count, small or (for huge values) big */
static Term size_term(Process *p, size_t n) { return make_integer(p, (int64_t)n); }

/* ---- process_info items ---- */

/* Each item reads process q for process p (the caller; q may be p). */
typedef Term (*InfoFn)(Process *p, Process *q);

static Term mfa_of_pc(Process *p, const Instr *pc) {
    LoadedModule *m;
    const FunctionInfo *fn;
    if (!pc || !module_locate(pc, &m, &fn, NULL)) return THE_NON_VALUE;
    return tuple3(p, m->name, fn->name, make_small(fn->arity));
}

/* spawn(Fun) starts in erlang:apply/2, and OTP reports that as the initial
 * call; proc.c keeps the fun's own {M, F, A} (a lambda of module M). */
static int is_lambda_mfa(Term mfa) {
    if (!is_tuple(mfa) || tuple_arity(mfa) != 3) return 0;
    LoadedModule *m = module_find(tuple_elems(mfa)[0]);
    if (!m) return 0;
    for (int i = 0; i < m->nlambdas; i++)
        if (m->lambdas[i].name == tuple_elems(mfa)[1]) return 1;
    return 0;
}

static Term info_initial_call(Process *p, Process *q) {
    if (q->initial_call == NIL || is_lambda_mfa(q->initial_call))
        return tuple3(p, ATOM_TERM(erlang), ATOM_TERM(apply), make_small(2));
    return copy_here(p, q->initial_call);
}

/* Where q is: its saved pc (the emulator saves it at BIF calls, yields and
 * waits; a waiting process's pc is in the function running the receive). A
 * process that has not run yet sits in a start stub: its initial call. */
static Term info_current_function(Process *p, Process *q) {
    Term mfa = mfa_of_pc(p, q->pc);
    /* asked of oneself through erlang:process_info (stdlib/erlang.mini),
     * which calls the BIF as its last act: the answer is its caller */
    if (mfa != THE_NON_VALUE && tuple_elems(mfa)[0] == ATOM_TERM(erlang)) mfa = mfa_of_pc(p, q->cp);
    return mfa != THE_NON_VALUE ? mfa : info_initial_call(p, q);
}

/* q answers for itself: it is running if it is inside the emulator now;
 * otherwise it is answering a request between time slices, and its state is
 * how its last slice ended. */
static Term info_status(Process *p, Process *q) {
    (void)p;
    if (q->exiting) return ATOM_TERM(exiting);
    if (sched_current() == q) return ATOM_TERM(running);
    return q->waiting ? ATOM_TERM(waiting) : ATOM_TERM(runnable);
}

static Term info_message_queue_len(Process *p, Process *q) {
    (void)p;
    return make_small((SWord)q->mbox.len);
}

static Term info_messages(Process *p, Process *q) {
    /* copies: a message's fragment is freed or merged when it is received,
     * which must not leave this list pointing into it */
    ListBuilder b;
    lb_init(&b);
    for (Message *m = q->mbox.first; m; m = m->next) lb_add(p, &b, copy_here(p, m->term));
    return b.head;
}

static Term info_links(Process *p, Process *q) {
    Term list = NIL;
    for (int i = q->nlinks - 1; i >= 0 && !p->out_of_memory; i--) {
        Term *hp = heap_alloc(p, 2);
        hp[0] = q->links[i]; hp[1] = list;
        list = make_list(hp);
    }
    return list;
}

/* Monitors q holds (out) as [{process, Pid}], or holds on it (in) as pids. */
static Term monitor_list(Process *p, Process *q, int out) {
    ListBuilder b;
    lb_init(&b);
    for (int i = 0; i < q->nmonitors; i++) {
        const Monitor *mo = &q->monitors[i];
        if (mo->out != out) continue;
        lb_add(p, &b, out ? tuple2(p, ATOM_TERM(process), mo->pid) : mo->pid);
    }
    return b.head;
}

static Term info_monitors(Process *p, Process *q) { return monitor_list(p, q, 1); }
static Term info_monitored_by(Process *p, Process *q) { return monitor_list(p, q, 0); }
/* {Key, Value} pairs, copied when they are another process's */
static Term info_dictionary(Process *p, Process *q) {
    Term res = NIL;
    const ProcDict *d = q->dict;
    if (!d || !d->used) return NIL;
    /* one block for the pairs: a million small allocations would outlast
     * the reserve heap_alloc falls back on when memory runs out */
    Term *hp = heap_alloc_try(p, 5 * (size_t)d->used);
    if (!hp) return THE_NON_VALUE;
    for (uint32_t i = 0; proc_dict_next(d, &i); i++, hp += 5) {
        Term k = q == p ? d->kv[2 * i] : copy_here(p, d->kv[2 * i]);
        Term v = q == p ? d->kv[2 * i + 1] : copy_here(p, d->kv[2 * i + 1]);
        hp[0] = make_tuple_header(2);
        hp[1] = k;
        hp[2] = v;
        hp[3] = make_boxed(hp);
        hp[4] = res;
        res = make_list(hp + 3);
    }
    return res;
}
static Term info_trap_exit(Process *p, Process *q) { (void)p; return q->trap_exit ? AM_true : AM_false; }
static Term info_error_handler(Process *p, Process *q) { (void)p; (void)q; return ATOM_TERM(error_handler); }
static Term info_suspending(Process *p, Process *q) { (void)p; (void)q; return NIL; }

static Term info_priority(Process *p, Process *q) {
    (void)p;
    static const Term names[PRIO_LEVELS] = { ATOM_TERM(low), ATOM_TERM(normal), ATOM_TERM(high), ATOM_TERM(max) };
    return names[q->prio];
}

/* as group_leader/0: a process without one (the first) leads itself */
static Term info_group_leader(Process *p, Process *q) {
    (void)p;
    return is_pid(q->group_leader) ? q->group_leader : q->pid;
}

static Term info_registered_name(Process *p, Process *q) { (void)p; return q->reg_name; }
static Term info_total_heap_size(Process *p, Process *q) { return size_term(p, gc_total_heap_size(q)); }
static Term info_heap_size(Process *p, Process *q) { return size_term(p, gc_heap_size(q)); }
static Term info_stack_size(Process *p, Process *q) { return size_term(p, gc_stack_size(q)); }
static Term info_min_heap_size(Process *p, Process *q) { return size_term(p, q->min_heap_size); }

/* The running process's own count includes the slice it is in, roughly: the
 * scheduler adds the slice's reductions only when it ends. */
static UWord slice_reductions(Process *p) {
    return p->reds >= 0 && p->reds < REDUCTIONS_PER_SLICE ? (UWord)(REDUCTIONS_PER_SLICE - p->reds) : 0;
}

static Term info_reductions(Process *p, Process *q) {
    UWord n = q->total_reds + (q == p ? slice_reductions(p) : 0);
    return make_integer(p, (int64_t)n);
}

/* Bytes: the Process record, its heaps and stack, link and monitor arrays. */
static size_t process_bytes(const Process *q, int used_only) {
    size_t words = used_only ? (size_t)(q->htop - q->heap) + gc_stack_size(q) + q->mbuf_words +
                                   (q->old_heap ? (size_t)(q->old_htop - q->old_heap) : 0)
                             : gc_total_heap_size(q);
    return sizeof(Process) + words * sizeof(Term) + (size_t)q->caplinks * sizeof(Term) +
           (size_t)q->capmonitors * sizeof(Monitor);
}

static Term info_memory(Process *p, Process *q) { return size_term(p, process_bytes(q, 0)); }

#define MIN_BIN_VHEAP_SIZE 46422    /* OTP's default, in words; Mini has no off-heap binaries yet */

static Term info_max_heap_size(Process *p, Process *q) { return proc_max_heap_term(p, q); }

static Term info_garbage_collection(Process *p, Process *q) {
    ListBuilder b;
    lb_init(&b);
    lb_add(p, &b, tuple2(p, ATOM_TERM(max_heap_size), proc_max_heap_term(p, q)));
    lb_add(p, &b, tuple2(p, ATOM_TERM(min_bin_vheap_size), make_small(MIN_BIN_VHEAP_SIZE)));
    lb_add(p, &b, tuple2(p, ATOM_TERM(min_heap_size), size_term(p, q->min_heap_size)));
    lb_add(p, &b, tuple2(p, ATOM_TERM(fullsweep_after), make_integer(p, (int64_t)q->max_gen_gcs)));
    lb_add(p, &b, tuple2(p, ATOM_TERM(minor_gcs), make_integer(p, (int64_t)q->gen_gcs)));
    return b.head;
}

typedef struct { Term key; InfoFn fn; } InfoItem;

/* process_info/1's items, in OTP 25's order (registered_name goes first
 * when the process has a name). */
static const InfoItem default_items[] = {
    { ATOM_TERM(current_function), info_current_function },
    { ATOM_TERM(initial_call), info_initial_call },
    { ATOM_TERM(status), info_status },
    { ATOM_TERM(message_queue_len), info_message_queue_len },
    { ATOM_TERM(links), info_links },
    { ATOM_TERM(dictionary), info_dictionary },
    { ATOM_TERM(trap_exit), info_trap_exit },
    { ATOM_TERM(error_handler), info_error_handler },
    { ATOM_TERM(priority), info_priority },
    { ATOM_TERM(group_leader), info_group_leader },
    { ATOM_TERM(total_heap_size), info_total_heap_size },
    { ATOM_TERM(heap_size), info_heap_size },
    { ATOM_TERM(stack_size), info_stack_size },
    { ATOM_TERM(reductions), info_reductions },
    { ATOM_TERM(garbage_collection), info_garbage_collection },
    { ATOM_TERM(suspending), info_suspending },
};

/* items only process_info/2 gives */
static const InfoItem extra_items[] = {
    { ATOM_TERM(registered_name), info_registered_name },
    { ATOM_TERM(messages), info_messages },
    { ATOM_TERM(monitors), info_monitors },
    { ATOM_TERM(monitored_by), info_monitored_by },
    { ATOM_TERM(memory), info_memory },
    { ATOM_TERM(min_heap_size), info_min_heap_size },
    { ATOM_TERM(max_heap_size), info_max_heap_size },
};

#define NITEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static InfoFn info_fn(Term key) {
    for (int i = 0; i < NITEMS(default_items); i++)
        if (default_items[i].key == key) return default_items[i].fn;
    for (int i = 0; i < NITEMS(extra_items); i++)
        if (extra_items[i].key == key) return extra_items[i].fn;
    return NULL;
}

/* {Key, Value}; registered_name of an unnamed process is {registered_name, []}
 * in a list, as OTP. */
static Term info_pair(Process *p, Process *q, Term key) {
    Term v = info_fn(key)(p, q);
    return tuple2(p, key, v == NIL && key == ATOM_TERM(registered_name) ? NIL : v);
}

/* The live process of pid for reading (p itself, or a counted reference). */
static Process *info_target(Process *p, Term pid) {
    return pid == p->pid ? p : proc_lookup(pid);
}

/* Checks every item before looking at the process: a bad item is badarg
 * even for a dead process, as in OTP. */
static int valid_items(Term items) {
    if (is_atom(items)) return info_fn(items) != NULL;
    for (; is_list(items); items = list_tail(items))
        if (!is_atom(list_head(items)) || !info_fn(list_head(items))) return 0;
    return is_nil(items);
}

/* process_info/1 (all) or /2 (items) of p, computed by p itself; an item
 * that p's heap cannot hold (a huge dictionary or queue, memory exhausted)
 * marks p to die and makes the answer THE_NON_VALUE. */
static Term info_build(Process *p, Term items, int all);
Term info_answer(Process *p, Term items, int all) {
    Term r = info_build(p, items, all);
    return p->out_of_memory ? THE_NON_VALUE : r;
}

static Term info_build(Process *p, Term items, int all) {
    if (all) {
        ListBuilder b;
        lb_init(&b);
        if (p->reg_name != NIL) lb_add(p, &b, tuple2(p, ATOM_TERM(registered_name), p->reg_name));
        for (int i = 0; i < NITEMS(default_items); i++)
            lb_add(p, &b, tuple2(p, default_items[i].key, default_items[i].fn(p, p)));
        return b.head;
    }
    if (is_atom(items))
        return items == ATOM_TERM(registered_name) && p->reg_name == NIL ? NIL : info_pair(p, p, items);
    ListBuilder b;
    lb_init(&b);
    for (; is_list(items); items = list_tail(items)) lb_add(p, &b, info_pair(p, p, list_head(items)));
    return b.head;
}

/* erlang:'$process_info'(Self) and (Self, Items) */
Term bif_process_info_self_1(Process *p, Term *args) {
    if (args[0] != p->pid) BIF_ERROR(p, AM_badarg);
    proc_drain(p);
    Term r = info_answer(p, NIL, 1);
    if (r == THE_NON_VALUE) return bif_out_of_memory(p);
    if (p->exiting) p->reds = 0;    /* a drained signal killed us: stop soon */
    p->reds -= NITEMS(default_items);
    return r;
}

Term bif_process_info_self_2(Process *p, Term *args) {
    if (args[0] != p->pid || !valid_items(args[1])) BIF_ERROR(p, AM_badarg);
    proc_drain(p);
    Term r = info_answer(p, args[1], 0);
    if (r == THE_NON_VALUE) return bif_out_of_memory(p);
    if (p->exiting) p->reds = 0;
    return r;
}

/* erlang:'$process_info_request'(Pid, Items, All): asks Pid for its info.
 * Returns the reference its reply {Ref, Info} will carry, or `undefined`
 * if Pid is not alive. */
Term bif_process_info_request_3(Process *p, Term *args) {
    int all = args[2] == AM_true;
    if (!is_pid(args[0]) || (!all && !valid_items(args[1]))) BIF_ERROR(p, AM_badarg);
    uint64_t ref = proc_new_ref();
    if (proc_info_request(p, args[0], args[1], all, ref) < 0) return AM_undefined;
    return make_ref_at(heap_alloc(p, REF_WORDS), ref);
}

/* ---- garbage_collect/0,1 ---- */

/* A full collection with x0..x(live-1) as roots. args may point into the
 * old heap block afterwards: it is not touched again. */
Term bif_garbage_collect_0(Process *p, Term *args) {
    (void)args;
    gc_full(p, p->live);
    return AM_true;
}


/* Another process collects itself: a SIG_GC makes its scheduler collect
 * before it runs again (it knows its live registers then; we do not). */
Term bif_garbage_collect_1(Process *p, Term *args) {
    if (!is_pid(args[0])) BIF_ERROR(p, AM_badarg);
    if (args[0] == p->pid) {
        gc_full(p, p->live);       /* args is stale from here on */
        return AM_true;
    }
    Message *m = proc_signal_copy(NIL, SIG_GC, p->pid, 0);
    return proc_deliver(args[0], m) == 0 ? AM_true : AM_false;
}

/* ---- statistics/1 ---- */

/* {Total, SinceLastCall}: `last` remembers the previous total (VM-wide, as
 * in OTP). */
static Term total_and_delta(Process *p, UWord total, _Atomic UWord *last) {
    UWord prev = atomic_exchange(last, total);
    UWord delta = total >= prev ? total - prev : 0;
    return tuple2(p, make_integer(p, (int64_t)total), make_integer(p, (int64_t)delta));
}

static UWord cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (UWord)ts.tv_sec * 1000 + (UWord)ts.tv_nsec / 1000000;
}

/* all reductions so far, with the caller's current slice (approximately) */
static UWord total_reductions(Process *p) { return sched_total_reductions() + slice_reductions(p); }

static Term stat_gc(Process *p) {
    UWord n = atomic_load(&gc_total_collections), words = atomic_load(&gc_total_reclaimed);
    return tuple3(p, make_integer(p, (int64_t)n), make_integer(p, (int64_t)words), make_small(0));
}

Term bif_statistics_1(Process *p, Term *args) {
    static _Atomic UWord last_runtime, last_wall, last_reds, last_exact_reds;
    Term what = args[0];
    if (what == ATOM_TERM(runtime)) return total_and_delta(p, cpu_ms(), &last_runtime);
    if (what == ATOM_TERM(wall_clock)) return total_and_delta(p, timer_now_us() / 1000, &last_wall);
    if (what == ATOM_TERM(reductions)) return total_and_delta(p, total_reductions(p), &last_reds);
    if (what == ATOM_TERM(reductions_))     /* exact_reductions */
        return total_and_delta(p, total_reductions(p), &last_exact_reds);
    if (what == ATOM_TERM(garbage_collection)) return stat_gc(p);
    if (what == ATOM_TERM(run_queue) || what == ATOM_TERM(total_run_queue_lengths))
        return make_integer(p, (int64_t)sched_run_queue_length());
    if (what == ATOM_TERM(context_switches))
        return tuple2(p, make_integer(p, (int64_t)sched_context_switches()), make_small(0));
    if (what == ATOM_TERM(io))                 /* Mini has no ports counting bytes yet */
        return tuple2(p, tuple2(p, ATOM_TERM(input), make_small(0)),
                      tuple2(p, ATOM_TERM(output), make_small(0)));
    BIF_ERROR(p, AM_badarg);
}

/* ---- erlang:memory/0,1 ---- */

/* Bytes by kind. `processes` is measured (every live process's record, heaps
 * and arrays); the rest are estimates: atoms from their count, code from the
 * Boehm heap (which holds loaded code, literals and compiler tables alike),
 * binary the shared (refcounted) binary buffers, ets 0, and the pid
 * table, the largest fixed allocation, as the rest of `system`. */
typedef struct { size_t processes, processes_used, atom, atom_used, binary, code, ets, system; } MemoryUse;

#define ATOM_BYTES 48               /* an AtomEntry, its text and hash slot, roughly */

static void processes_memory(Process *p, MemoryUse *u) {
    for (Term l = proc_all_pids(p); is_list(l); l = list_tail(l)) {
        Process *q = info_target(p, list_head(l));
        if (!q) continue;
        if (q == p) {
            u->processes += process_bytes(q, 0);
            u->processes_used += process_bytes(q, 1);
            continue;
        }
        /* another process may be running, its heap pointers moving: its
         * record and the heap words it published (mem_limit.h) */
        size_t words = atomic_load_explicit(&q->mem_words, memory_order_relaxed);
        if (!words) words = MIN_HEAP_SIZE;       /* its first heap, not published */
        size_t bytes = sizeof(Process) + words * sizeof(Term);
        u->processes += bytes;
        u->processes_used += bytes;
        proc_release(q);
    }
}

static void memory_use(Process *p, MemoryUse *u) {
    memset(u, 0, sizeof *u);
    processes_memory(p, u);
    u->atom_used = (size_t)atom_count() * ATOM_BYTES;
    u->atom = u->atom_used + u->atom_used / 4;
    size_t boehm = GC_get_heap_size();
    u->code = boehm > u->atom ? boehm - u->atom : 0;
    u->binary = binary_total_bytes();  /* binaries over 64 bytes (binary.c) */
    u->system = u->atom + u->binary + u->code + u->ets + proc_limit() * sizeof(void *);
}

static const Term memory_kinds[] = {
    ATOM_TERM(total), ATOM_TERM(processes), ATOM_TERM(processes_used), ATOM_TERM(system),
    ATOM_TERM(atom), ATOM_TERM(atom_used), ATOM_TERM(binary), ATOM_TERM(code), ATOM_TERM(ets),
};

static int memory_kind(Term k) {
    for (int i = 0; i < NITEMS(memory_kinds); i++) if (memory_kinds[i] == k) return i;
    return -1;
}

static Term memory_value(Process *p, const MemoryUse *u, int kind) {
    const size_t v[] = { u->processes + u->system, u->processes, u->processes_used, u->system,
                         u->atom, u->atom_used, u->binary, u->code, u->ets };
    return size_term(p, v[kind]);
}

Term bif_memory_0(Process *p, Term *args) {
    (void)args;
    MemoryUse u;
    memory_use(p, &u);
    ListBuilder b;
    lb_init(&b);
    for (int i = 0; i < NITEMS(memory_kinds); i++)
        lb_add(p, &b, tuple2(p, memory_kinds[i], memory_value(p, &u, i)));
    return b.head;
}

Term bif_memory_1(Process *p, Term *args) {
    Term what = args[0];
    if (is_atom(what)) {
        int k = memory_kind(what);
        if (k < 0) BIF_ERROR(p, AM_badarg);
        MemoryUse u;
        memory_use(p, &u);
        return memory_value(p, &u, k);
    }
    Term l;
    for (l = what; is_list(l); l = list_tail(l))
        if (memory_kind(list_head(l)) < 0) BIF_ERROR(p, AM_badarg);
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    MemoryUse u;
    memory_use(p, &u);
    ListBuilder b;
    lb_init(&b);
    for (l = what; is_list(l); l = list_tail(l))
        lb_add(p, &b, tuple2(p, list_head(l), memory_value(p, &u, memory_kind(list_head(l)))));
    return b.head;
}

/* ---- erlang:system_info/1 ---- */

#define MINI_VERSION "0.1"
/* Mini mirrors Erlang/OTP 25's behaviour (its tests' outputs come from OTP
 * 25), so programs that check the release see the one they would on OTP. */
#define MINI_OTP_RELEASE "25"

Term bif_system_info_1(Process *p, Term *args) {
    Term what = args[0];
    if (what == ATOM_TERM(process_count)) return make_integer(p, (int64_t)proc_count());
    if (what == ATOM_TERM(process_limit)) return make_integer(p, (int64_t)proc_limit());
    if (what == ATOM_TERM(atom_limit)) return make_integer(p, (int64_t)atom_limit());
    if (what == ATOM_TERM(atom_count)) return make_integer(p, (int64_t)atom_count());
    if (what == ATOM_TERM(schedulers)) return make_small(sched_count());
    if (what == ATOM_TERM(schedulers_online)) return make_small(sched_online());
    if (what == ATOM_TERM(scheduler_id)) return make_small(sched_self_id());
    if (what == ATOM_TERM(otp_release)) return string_term(p, MINI_OTP_RELEASE);
    if (what == ATOM_TERM(version)) return string_term(p, MINI_VERSION);
    if (what == ATOM_TERM(logical_processors)) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? make_small(n) : ATOM_TERM(unknown);
    }
    if (what == ATOM_TERM(smp_support)) return AM_true;
    if (what == ATOM_TERM(thread_pool_size)) return make_small(async_thread_count());
    if (what == ATOM_TERM(wordsize)) return make_small(sizeof(Term));
    BIF_ERROR(p, AM_badarg);
}
