/* bif_proc.c — BIFs about processes: spawn, links, monitors, exit signals,
 * registered names, references and process flags (timers and clocks are
 * in bif_time.c). The machinery is in proc*.c and sched.c; these only check
 * arguments and shape results as Erlang does. */
#include "bif.h"
#include "dist/dist.h"
#include "term_build.h"
#include "atom.h"
#include "proc.h"
#include "sched.h"
#include "arith.h"
#include "map.h"
#include "mem_limit.h"
#include "port.h"

static Term new_ref(Process *p, uint64_t n) { return make_ref_at(heap_alloc(p, REF_WORDS), n); }

static int is_proper_list(Term l) {
    while (is_list(l)) l = list_tail(l);
    return is_nil(l);
}

/* ---- spawn ---- */

/* monitor/3's options: {alias, Mode} and {tag, Tag}; later ones win. */
typedef struct { int alias; Term tag; } MonOpts;

static int mon_opts_parse(Term l, MonOpts *o) {
    o->alias = ALIAS_NONE;
    o->tag = THE_NON_VALUE;
    for (; is_list(l); l = list_tail(l)) {
        Term opt = list_head(l);
        if (!is_tuple(opt) || tuple_arity(opt) != 2) return 0;
        Term k = tuple_elems(opt)[0], v = tuple_elems(opt)[1];
        if (k == ATOM_TERM(alias)) {
            if (v == ATOM_TERM(explicit_unalias)) o->alias = ALIAS_EXPLICIT;
            else if (v == ATOM_TERM(demonitor)) o->alias = ALIAS_DEMONITOR;
            else if (v == ATOM_TERM(reply_demonitor)) o->alias = ALIAS_REPLY_DEMONITOR;
            else return 0;
        } else if (k == ATOM_TERM(tag)) {
            o->tag = v;
        } else {
            return 0;
        }
    }
    return is_nil(l);
}

/* Gives p's out monitor ref the options' alias and tag. */
static void mon_opts_apply(Process *p, uint64_t ref, const MonOpts *o) {
    Monitor *mo = proc_monitor_find(p, ref, MON_OUT);
    if (!mo) return;
    if (o->tag != THE_NON_VALUE) mo->tag = proc_message_copy(o->tag);
    if (o->alias != ALIAS_NONE) proc_alias_activate(p, mo, o->alias);
}


/* mo: spawn_opt's {monitor, Opts}, or NULL */
static Term spawned(Process *p, Term pid, uint64_t ref, const SpawnOpts *o, const MonOpts *mo) {
    if (pid == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    if (!o->monitor) return pid;
    if (mo) mon_opts_apply(p, ref, mo);
    return tuple2(p, pid, new_ref(p, ref));
}

static Term spawn_fun(Process *p, Term fun, const SpawnOpts *o, const MonOpts *mo) {
    if (!is_fun(fun)) BIF_ERROR(p, AM_badarg);
    uint64_t ref = 0;
    Term pid = proc_spawn(p, NIL, fun, NIL, o, &ref);
    return spawned(p, pid, ref, o, mo);
}

static Term spawn_mfa(Process *p, Term m, Term f, Term a, const SpawnOpts *o, const MonOpts *mo) {
    if (!is_atom(m) || !is_atom(f) || !is_proper_list(a)) BIF_ERROR(p, AM_badarg);
    uint64_t ref = 0;
    Term pid = proc_spawn(p, m, f, a, o, &ref);
    return spawned(p, pid, ref, o, mo);
}

static const SpawnOpts opts_plain = { .prio = PRIO_NORMAL };
static const SpawnOpts opts_link = { .link = 1, .prio = PRIO_NORMAL };
static const SpawnOpts opts_monitor = { .monitor = 1, .prio = PRIO_NORMAL };

Term bif_spawn_1(Process *p, Term *args) { return spawn_fun(p, args[0], &opts_plain, NULL); }
Term bif_spawn_3(Process *p, Term *args) { return spawn_mfa(p, args[0], args[1], args[2], &opts_plain, NULL); }
Term bif_spawn_link_1(Process *p, Term *args) { return spawn_fun(p, args[0], &opts_link, NULL); }
Term bif_spawn_link_3(Process *p, Term *args) { return spawn_mfa(p, args[0], args[1], args[2], &opts_link, NULL); }
Term bif_spawn_monitor_1(Process *p, Term *args) { return spawn_fun(p, args[0], &opts_monitor, NULL); }
Term bif_spawn_monitor_3(Process *p, Term *args) { return spawn_mfa(p, args[0], args[1], args[2], &opts_monitor, NULL); }

/* A priority atom's level, or -1. */
static int priority_level(Term t) {
    static const Term names[PRIO_LEVELS] = { ATOM_TERM(low), ATOM_TERM(normal), ATOM_TERM(high), ATOM_TERM(max) };
    for (int i = 0; i < PRIO_LEVELS; i++) if (names[i] == t) return i;
    return -1;
}

static int is_nonneg_int(Term t) { return is_small(t) ? small_val(t) >= 0 : is_integer(t); }

/* ---- max_heap_size (gc.c checks it, mem_limit.c reports it) ---- */

/* Erlang's smallest heap: a max_heap_size below it (but 0) is badarg */
#define MAX_HEAP_MIN_WORDS 233

/* Reads N or #{size => N, kill => B, error_logger => B} (a key left out
 * keeps *o's value) into o; 0 if it is not one (badarg). */
static int max_heap_parse(Term v, MaxHeap *o) {
    if (is_map_term(v)) {
        UWord n = map_size(v);
        if (n == 0) return 0;
        for (UWord i = 0; i < n; i++) {
            Term k = map_key_at(v, i), x = map_val_at(v, i);
            if (k == ATOM_TERM(size)) {
                if (!max_heap_parse(x, o)) return 0;
            } else if (k == ATOM_TERM(kill) || k == ATOM_TERM(error_logger)) {
                if (x != AM_true && x != AM_false) return 0;
                if (k == ATOM_TERM(kill)) o->kill = x == AM_true;
                else o->log = x == AM_true;
            } else {
                return 0;
            }
        }
        return 1;
    }
    if (!is_integer(v) || !is_small(v) || small_val(v) < 0) return 0;
    SWord w = small_val(v);
    if (w != 0 && w < MAX_HEAP_MIN_WORDS) return 0;
    o->size = (size_t)w;
    return 1;
}

/* #{error_logger => B, kill => B, size => N}: OTP's shape (keys in order) */
static Term max_heap_term(Process *p, size_t size, int kill, int log) {
    Term *hp = heap_alloc(p, 4 + 5);
    hp[0] = make_tuple_header(3);
    hp[1] = ATOM_TERM(error_logger); hp[2] = ATOM_TERM(kill); hp[3] = ATOM_TERM(size);
    Term *m = hp + 4;
    m[0] = make_header(4, BOXED_MAP);
    m[1] = make_boxed(hp);
    m[2] = log ? AM_true : AM_false;
    m[3] = kill ? AM_true : AM_false;
    m[4] = make_integer(p, (int64_t)size);
    return make_boxed(m);
}

Term proc_max_heap_term(Process *p, const Process *q) {
    return max_heap_term(p, q->max_heap_size, q->max_heap_kill, q->max_heap_log);
}

/* spawn_opt's option list, as erl takes it: link, monitor ({monitor,
 * Opts} too, with monitor/3's options, into *mo), {priority, P}, {min_heap_size, N}, {max_heap_size, N | Map},
 * {message_queue_data, off_heap | on_heap}, and the heap tuning options
 * fullsweep_after and min_bin_vheap_size (accepted, as the collector sizes
 * heaps itself). Later options win. 0 if the list is not such a proper list
 * (badarg). */
static int spawn_opts_parse(Term l, SpawnOpts *o, MonOpts *mo) {
    *o = opts_plain;
    mo->alias = ALIAS_NONE;
    mo->tag = THE_NON_VALUE;
    o->max_heap = (MaxHeap){ mem_default_max_heap, mem_default_max_heap_kill, mem_default_max_heap_log };
    for (; is_list(l); l = list_tail(l)) {
        Term opt = list_head(l);
        if (opt == ATOM_TERM(link)) { o->link = 1; continue; }
        if (opt == ATOM_TERM(monitor)) { o->monitor = 1; continue; }
        if (!is_tuple(opt) || tuple_arity(opt) != 2) return 0;
        Term k = tuple_elems(opt)[0], v = tuple_elems(opt)[1];
        if (k == ATOM_TERM(monitor)) {
            if (!mon_opts_parse(v, mo)) return 0;
            o->monitor = 1;
        } else if (k == ATOM_TERM(priority)) {
            if ((o->prio = priority_level(v)) < 0) return 0;
        } else if (k == ATOM_TERM(min_heap_size)) {
            if (!is_nonneg_int(v)) return 0;
            o->min_heap = is_small(v) && small_val(v) < (1 << 27) ? (size_t)small_val(v) : (size_t)1 << 27;
        } else if (k == ATOM_TERM(message_queue_data)) {
            if (v != ATOM_TERM(off_heap) && v != ATOM_TERM(on_heap)) return 0;
            /* messages always wait outside the heap here (they are not
             * roots; see "Processes and messages"): both mean that */
        } else if (k == ATOM_TERM(max_heap_size)) {
            if (!max_heap_parse(v, &o->max_heap)) return 0;
        } else if (k == ATOM_TERM(fullsweep_after) || k == ATOM_TERM(min_bin_vheap_size)) {
            if (!is_nonneg_int(v)) return 0;
        } else {
            return 0;
        }
    }
    return is_nil(l);
}

/* spawn_opt/3,5 take a node: only this one. */
static int is_this_node(Term n) { return n == dist_this_node(); }

Term bif_spawn_opt_2(Process *p, Term *args) {
    SpawnOpts o;
    MonOpts mo;
    if (!is_fun(args[0]) || !spawn_opts_parse(args[1], &o, &mo)) BIF_ERROR(p, AM_badarg);
    return spawn_fun(p, args[0], &o, &mo);
}

Term bif_spawn_opt_3(Process *p, Term *args) {
    if (!is_this_node(args[0])) BIF_ERROR(p, AM_badarg);
    return bif_spawn_opt_2(p, args + 1);
}

Term bif_spawn_opt_4(Process *p, Term *args) {
    SpawnOpts o;
    MonOpts mo;
    if (!is_atom(args[0]) || !is_atom(args[1]) || !is_proper_list(args[2]) ||
        !spawn_opts_parse(args[3], &o, &mo))
        BIF_ERROR(p, AM_badarg);
    return spawn_mfa(p, args[0], args[1], args[2], &o, &mo);
}

Term bif_spawn_opt_5(Process *p, Term *args) {
    if (!is_this_node(args[0])) BIF_ERROR(p, AM_badarg);
    return bif_spawn_opt_4(p, args + 1);
}

/* erlang:'$spawn_reply'(Msg), for spawn_request (erlang.mini): queues Msg
 * for this process ahead of its unread inbox. The child spawn_request just
 * made can have sent an exit signal or a 'DOWN' only into the inbox, so the
 * reply comes first, as in Erlang. */
Term bif_spawn_reply_1(Process *p, Term *args) {
    mailbox_append(&p->mbox, proc_message_copy(args[0]));
    return AM_ok;
}

Term bif_self_0(Process *p, Term *args) { (void)args; return p->pid; }

/* ---- links, monitors, exits ---- */

Term bif_link_1(Process *p, Term *args) {
    if (is_external_kind(args[0], EXT_PID)) { dist_link(p, args[0], 1); return AM_true; }
    if (!is_pid(args[0]) && !is_port(args[0])) BIF_ERROR(p, AM_badarg);
    if ((is_port(args[0]) ? port_link(p, args[0]) : proc_link(p, args[0])) < 0) {
        if (!p->trap_exit) BIF_ERROR(p, ATOM_TERM(noproc));
        /* a trapping process hears of it as an exit message */
        Term *hp = heap_alloc(p, 4);
        hp[0] = make_tuple_header(3); hp[1] = ATOM_TERM(EXIT); hp[2] = args[0];
        hp[3] = ATOM_TERM(noproc);
        proc_send(p, p->pid, make_boxed(hp));
    }
    return AM_true;
}

Term bif_unlink_1(Process *p, Term *args) {
    if (is_external_kind(args[0], EXT_PID)) { dist_link(p, args[0], 0); return AM_true; }
    if (!is_pid(args[0]) && !is_port(args[0])) BIF_ERROR(p, AM_badarg);
    if (is_port(args[0])) port_unlink(p, args[0]);
    else proc_unlink(p, args[0]);
    return AM_true;
}

static Term monitor_process(Process *p, Term target, const MonOpts *o) {
    if (is_external_kind(target, EXT_PID) ||
        (is_tuple(target) && tuple_arity(target) == 2 && is_atom(tuple_elems(target)[0]) &&
         is_atom(tuple_elems(target)[1]) && tuple_elems(target)[1] != dist_this_node()))
        return dist_monitor(p, target);            /* another node's (vm/dist) */
    uint64_t ref = proc_new_ref();
    if (is_tuple(target) && tuple_arity(target) == 2 && is_atom(tuple_elems(target)[0]) &&
        tuple_elems(target)[1] == dist_this_node())
        target = tuple_elems(target)[0];           /* {Name, node()} */
    if (is_atom(target)) {
        Term pid = proc_whereis(target);
        if (pid == THE_NON_VALUE) {
            /* {'DOWN', Ref, process, {Name, node()}, noproc}, with the
             * options applied before it is drained */
            proc_monitor_noproc(p, ref, target);
        } else if (pid != p->pid) {
            proc_monitor(p, pid, ref);
            Monitor *mo = proc_monitor_find(p, ref, MON_OUT);
            if (mo) mo->name = target;
        }
    } else if (is_pid(target)) {
        /* a monitor of oneself is no monitor (nor alias) in OTP: it could
         * never fire */
        if (target != p->pid) proc_monitor(p, target, ref);
    } else {
        BIF_ERROR(p, AM_badarg);
    }
    if (o) mon_opts_apply(p, ref, o);
    return new_ref(p, ref);
}

Term bif_monitor_2(Process *p, Term *args) {
    if (args[0] != ATOM_TERM(process)) BIF_ERROR(p, AM_badarg);
    return monitor_process(p, args[1], NULL);
}

Term bif_monitor_3(Process *p, Term *args) {
    MonOpts o;
    if (args[0] != ATOM_TERM(process) || !mon_opts_parse(args[2], &o)) BIF_ERROR(p, AM_badarg);
    return monitor_process(p, args[1], &o);
}

/* ---- aliases (proc_alias.c) ---- */

Term bif_alias_0(Process *p, Term *args) {
    (void)args;
    return new_ref(p, proc_alias_new(p, ALIAS_EXPLICIT));
}

Term bif_alias_1(Process *p, Term *args) {
    int mode = ALIAS_EXPLICIT;
    Term l = args[0];
    for (; is_list(l); l = list_tail(l)) {
        if (list_head(l) == ATOM_TERM(explicit_unalias)) mode = ALIAS_EXPLICIT;
        else if (list_head(l) == ATOM_TERM(reply)) mode = ALIAS_REPLY;
        else BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(l)) BIF_ERROR(p, AM_badarg);
    return new_ref(p, proc_alias_new(p, mode));
}

Term bif_unalias_1(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    Term r = BOOL(proc_unalias(p, ref_number(args[0])));
    if (p->exiting) p->reds = 0;   /* its drain met a kill: stop at the next call */
    return r;
}

/* Drops a {'DOWN', Ref, ...} already queued, for demonitor(Ref, [flush]). */
static int flush_down(Process *p, uint64_t ref) {
    proc_drain(p);
    mailbox_rewind(&p->mbox);
    Message *m;
    while ((m = mailbox_current(&p->mbox))) {
        Term t = m->term;
        /* the first element is 'DOWN' or the monitor's tag */
        if (is_tuple(t) && tuple_arity(t) == 5 && tuple_elems(t)[2] == ATOM_TERM(process) &&
            is_ref(tuple_elems(t)[1]) && ref_number(tuple_elems(t)[1]) == ref) {
            proc_remove_message(p);
            return 1;
        }
        mailbox_advance(&p->mbox);
    }
    mailbox_rewind(&p->mbox);
    return 0;
}

Term bif_demonitor_1(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    if (!proc_demonitor(p, ref_number(args[0]))) dist_demonitor(p, ref_number(args[0]));
    return AM_true;
}

Term bif_demonitor_2(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    int flush = 0, info = 0;
    for (Term l = args[1]; is_list(l); l = list_tail(l)) {
        if (list_head(l) == ATOM_TERM(flush)) flush = 1;
        else if (list_head(l) == ATOM_TERM(info)) info = 1;
        else BIF_ERROR(p, AM_badarg);
    }
    uint64_t ref = ref_number(args[0]);
    int active = proc_demonitor(p, ref) || dist_demonitor(p, ref);
    if (flush) flush_down(p, ref);
    return info ? (active ? AM_true : AM_false) : AM_true;
}

Term bif_exit_2(Process *p, Term *args) {
    if (!is_pid(args[0]) && !is_port(args[0])) BIF_ERROR(p, AM_badarg);
    proc_exit_signal(p, args[0], args[1]);     /* a port closes (vm/io/port.c) */
    /* a signal to oneself takes effect at once */
    if (args[0] == p->pid) {
        proc_drain(p);
        if (p->exiting) p->reds = 0;
    }
    return AM_true;
}

Term bif_is_process_alive_1(Process *p, Term *args) {
    if (!is_pid(args[0])) BIF_ERROR(p, AM_badarg);
    if (args[0] == p->pid) return AM_true;
    Process *q = proc_lookup(args[0]);
    if (!q) return AM_false;
    proc_release(q);
    return AM_true;
}

Term bif_processes_0(Process *p, Term *args) { (void)args; return proc_all_pids(p); }

/* ---- names ---- */

Term bif_register_2(Process *p, Term *args) {
    Term name = args[0];
    if (!is_atom(name) || name == AM_undefined || !is_pid(args[1])) BIF_ERROR(p, AM_badarg);
    Process *q = args[1] == p->pid ? p : proc_lookup(args[1]);
    if (!q) BIF_ERROR(p, AM_badarg);
    int r = proc_register(name, q);
    if (q != p) proc_release(q);
    if (r < 0) BIF_ERROR(p, AM_badarg);
    return AM_true;
}

Term bif_unregister_1(Process *p, Term *args) {
    if (!is_atom(args[0]) || proc_unregister(args[0]) < 0) BIF_ERROR(p, AM_badarg);
    return AM_true;
}

Term bif_whereis_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    Term pid = proc_whereis(args[0]);
    return pid == THE_NON_VALUE ? AM_undefined : pid;
}

Term bif_registered_0(Process *p, Term *args) { (void)args; return proc_registered(p); }

/* erlang:send/2 */
Term bif_send_2(Process *p, Term *args) {
    Term to = args[0];
    if (is_ref(to)) { p->reds -= (SWord)proc_send_alias(p, to, args[1]); return args[1]; }
    if (is_boxed(to)) {                      /* another node's (vm/dist) */
        long r = dist_send(p, to, args[1]);
        if (r < 0) BIF_ERROR(p, AM_badarg);
        p->reds -= r;
        return args[1];
    }
    if (is_atom(to)) to = proc_whereis(to);
    if (to != THE_NON_VALUE && is_port(to)) { port_send(p, to, args[1]); return args[1]; }
    if (to == THE_NON_VALUE || !is_pid(to)) BIF_ERROR(p, AM_badarg);
    p->reds -= (SWord)proc_send(p, to, args[1]);
    return args[1];
}

/* ---- flags, refs, yield ---- */

/* save_calls: OTP's range; the number is kept and given back (Mini keeps
 * no call history for process_info(P, last_calls)) */
static Term save_calls_set(Process *p, Process *q, Term v) {
    if (!is_small(v) || small_val(v) < 0 || small_val(v) > 10000) BIF_ERROR(p, AM_badarg);
    return make_small(atomic_exchange(&q->save_calls, (int)small_val(v)));
}

Term bif_process_flag_2(Process *p, Term *args) {
    if (args[0] == ATOM_TERM(trap_exit)) {
        if (args[1] != AM_true && args[1] != AM_false) BIF_ERROR(p, AM_badarg);
        Term old = p->trap_exit ? AM_true : AM_false;
        p->trap_exit = args[1] == AM_true;
        return old;
    }
    if (args[0] == ATOM_TERM(priority)) {
        static const Term names[PRIO_LEVELS] = { ATOM_TERM(low), ATOM_TERM(normal), ATOM_TERM(high), ATOM_TERM(max) };
        int prio = priority_level(args[1]);
        if (prio < 0) BIF_ERROR(p, AM_badarg);
        Term old = names[p->prio];
        /* takes effect when this slice ends: the scheduler queues it by
         * its priority from then on */
        p->prio = prio;
        return old;
    }
    if (args[0] == ATOM_TERM(max_heap_size)) {
        MaxHeap m = { p->max_heap_size, p->max_heap_kill, p->max_heap_log };
        if (!max_heap_parse(args[1], &m)) BIF_ERROR(p, AM_badarg);
        Term old = proc_max_heap_term(p, p);
        /* checked at the next collection, as in OTP */
        p->max_heap_size = m.size;
        p->max_heap_kill = (unsigned char)m.kill;
        p->max_heap_log = (unsigned char)m.log;
        return old;
    }
    if (args[0] == ATOM_TERM(save_calls)) return save_calls_set(p, p, args[1]);
    BIF_ERROR(p, AM_badarg);
}

Term bif_make_ref_0(Process *p, Term *args) { (void)args; return new_ref(p, proc_new_ref()); }

Term bif_yield_0(Process *p, Term *args) {
    (void)args;
    p->reds = 0;           /* the next call gives the scheduler back */
    return AM_true;
}

Term bif_group_leader_0(Process *p, Term *args) {
    (void)args;
    return is_pid(p->group_leader) ? p->group_leader : p->pid;
}

Term bif_group_leader_2(Process *p, Term *args) {
    Term leader = args[0], pid = args[1];
    if (!is_pid(leader) || !is_pid(pid)) BIF_ERROR(p, AM_badarg);
    if (pid == p->pid) { p->group_leader = leader; return AM_true; }
    /* the target sets it when it drains its inbox, like any signal */
    if (proc_group_leader_signal(leader, pid) < 0) BIF_ERROR(p, AM_badarg);
    return AM_true;
}

/* process_flag(Pid, save_calls, N): the only flag OTP sets on another */
Term bif_process_flag_3(Process *p, Term *args) {
    if (!is_pid(args[0]) || args[1] != ATOM_TERM(save_calls)) BIF_ERROR(p, AM_badarg);
    if (args[0] == p->pid) return save_calls_set(p, p, args[2]);
    Process *q = proc_lookup(args[0]);
    if (!q) BIF_ERROR(p, AM_badarg);
    Term r = save_calls_set(p, q, args[2]);
    proc_release(q);
    return r;
}

/* erlang:system_flag(schedulers_online, N): returns the old count */
Term bif_system_flag_2(Process *p, Term *args) {
    if (args[0] == ATOM_TERM(schedulers_online)) {
        if (!is_small(args[1]) || small_val(args[1]) < 1 || small_val(args[1]) > sched_count())
            BIF_ERROR(p, AM_badarg);
        Term old = make_small(sched_online());
        sched_set_online((int)small_val(args[1]));
        return old;
    }
    BIF_ERROR(p, AM_badarg);
}
