/* bif_proc.c — BIFs about processes: spawn, links, monitors, exit signals,
 * registered names, references and process flags (timers and clocks are
 * in bif_time.c). The machinery is in proc.c and sched.c; these only check
 * arguments and shape results as Erlang does. */
#include "bif.h"
#include "term_build.h"
#include "atom.h"
#include "proc.h"
#include "sched.h"
#include "arith.h"

static Term new_ref(Process *p, uint64_t n) { return make_ref_at(heap_alloc(p, REF_WORDS), n); }

static int is_proper_list(Term l) {
    while (is_list(l)) l = list_tail(l);
    return is_nil(l);
}

/* ---- spawn ---- */

static Term spawn_fun(Process *p, Term fun, int link, int monitor) {
    if (!is_fun(fun)) BIF_ERROR(p, AM_badarg);
    uint64_t ref = 0;
    Term pid = proc_spawn(p, NIL, fun, NIL, link, monitor, &ref);
    if (pid == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return monitor ? tuple2(p, pid, new_ref(p, ref)) : pid;
}

static Term spawn_mfa(Process *p, Term *args, int link, int monitor) {
    if (!is_atom(args[0]) || !is_atom(args[1]) || !is_proper_list(args[2])) BIF_ERROR(p, AM_badarg);
    uint64_t ref = 0;
    Term pid = proc_spawn(p, args[0], args[1], args[2], link, monitor, &ref);
    if (pid == THE_NON_VALUE) BIF_ERROR(p, ATOM_TERM(system_limit));
    return monitor ? tuple2(p, pid, new_ref(p, ref)) : pid;
}

Term bif_spawn_1(Process *p, Term *args) { return spawn_fun(p, args[0], 0, 0); }
Term bif_spawn_3(Process *p, Term *args) { return spawn_mfa(p, args, 0, 0); }
Term bif_spawn_link_1(Process *p, Term *args) { return spawn_fun(p, args[0], 1, 0); }
Term bif_spawn_link_3(Process *p, Term *args) { return spawn_mfa(p, args, 1, 0); }
Term bif_spawn_monitor_1(Process *p, Term *args) { return spawn_fun(p, args[0], 0, 1); }
Term bif_spawn_monitor_3(Process *p, Term *args) { return spawn_mfa(p, args, 0, 1); }

Term bif_self_0(Process *p, Term *args) { (void)args; return p->pid; }

/* ---- links, monitors, exits ---- */

Term bif_link_1(Process *p, Term *args) {
    if (!is_pid(args[0])) BIF_ERROR(p, AM_badarg);
    if (proc_link(p, args[0]) < 0) {
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
    if (!is_pid(args[0])) BIF_ERROR(p, AM_badarg);
    proc_unlink(p, args[0]);
    return AM_true;
}

Term bif_monitor_2(Process *p, Term *args) {
    if (args[0] != ATOM_TERM(process)) BIF_ERROR(p, AM_badarg);
    Term target = args[1];
    if (is_atom(target)) {
        Term pid = proc_whereis(target);
        uint64_t ref = proc_new_ref();
        if (pid == THE_NON_VALUE) {
            /* {'DOWN', Ref, process, {Name, node()}, noproc} */
            Term *hp = heap_alloc(p, 6 + 3 + REF_WORDS);
            Term r = make_ref_at(hp + 9, ref);
            hp[6] = make_tuple_header(2); hp[7] = target; hp[8] = ATOM_TERM(nonode);
            hp[0] = make_tuple_header(5); hp[1] = ATOM_TERM(DOWN); hp[2] = r;
            hp[3] = ATOM_TERM(process); hp[4] = make_boxed(hp + 6); hp[5] = ATOM_TERM(noproc);
            proc_send(p, p->pid, make_boxed(hp));
            return r;
        }
        proc_monitor(p, pid, ref);
        return new_ref(p, ref);
    }
    if (!is_pid(target)) BIF_ERROR(p, AM_badarg);
    uint64_t ref = proc_new_ref();
    proc_monitor(p, target, ref);
    return new_ref(p, ref);
}

/* Drops a {'DOWN', Ref, ...} already queued, for demonitor(Ref, [flush]). */
static int flush_down(Process *p, uint64_t ref) {
    proc_drain(p);
    mailbox_rewind(&p->mbox);
    Message *m;
    while ((m = mailbox_current(&p->mbox))) {
        Term t = m->term;
        if (is_tuple(t) && tuple_arity(t) == 5 && tuple_elems(t)[0] == ATOM_TERM(DOWN) &&
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
    proc_demonitor(p, ref_number(args[0]));
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
    int active = proc_demonitor(p, ref);
    if (flush) flush_down(p, ref);
    return info ? (active ? AM_true : AM_false) : AM_true;
}

Term bif_exit_2(Process *p, Term *args) {
    if (!is_pid(args[0])) {
        if (is_port(args[0])) return AM_true;
        BIF_ERROR(p, AM_badarg);
    }
    proc_exit_signal(p, args[0], args[1]);
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
    if (is_atom(to)) to = proc_whereis(to);
    if (to == THE_NON_VALUE || !is_pid(to)) BIF_ERROR(p, AM_badarg);
    p->reds -= (SWord)proc_send(p, to, args[1]);
    return args[1];
}

/* ---- flags, refs, yield ---- */

Term bif_process_flag_2(Process *p, Term *args) {
    if (args[0] == ATOM_TERM(trap_exit)) {
        if (args[1] != AM_true && args[1] != AM_false) BIF_ERROR(p, AM_badarg);
        Term old = p->trap_exit ? AM_true : AM_false;
        p->trap_exit = args[1] == AM_true;
        return old;
    }
    if (args[0] == ATOM_TERM(priority)) {
        static const Term names[PRIO_MAX] = { ATOM_TERM(low), ATOM_TERM(normal), ATOM_TERM(high) };
        int prio = -1;
        for (int i = 0; i < PRIO_MAX; i++) if (names[i] == args[1]) prio = i;
        if (args[1] == ATOM_TERM(max)) prio = PRIO_HIGH;
        if (prio < 0) BIF_ERROR(p, AM_badarg);
        Term old = names[p->prio];
        p->prio = prio;
        return old;
    }
    BIF_ERROR(p, AM_badarg);
}

Term bif_make_ref_0(Process *p, Term *args) { (void)args; return new_ref(p, proc_new_ref()); }

Term bif_yield_0(Process *p, Term *args) {
    (void)args;
    p->reds = 0;           /* the next call gives the scheduler back */
    return AM_true;
}

Term bif_node_0(Process *p, Term *args) { (void)p; (void)args; return ATOM_TERM(nonode); }

Term bif_group_leader_0(Process *p, Term *args) {
    (void)args;
    return is_pid(p->group_leader) ? p->group_leader : p->pid;
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
