/* bif_exceptions.c — the BIFs that do not return normally: throw/1,
 * error/1,2, exit/1 and raise/3 raise an exception, halt/0,1 ends the VM;
 * and get_stacktrace/0, which reads the last exception's trace. */
#include <stdio.h>
#include <stdlib.h>

#include "bif.h"
#include "atom.h"
#include "bif_io.h"

Term bif_throw_1(Process *p, Term *args) { return bif_raise(p, EXC_THROW, args[0]); }

Term bif_error_1(Process *p, Term *args) { return bif_raise(p, EXC_ERROR, args[0]); }

/* error(Reason, Args): Args only annotate the stack trace; the reason is
 * the first argument. */
Term bif_error_2(Process *p, Term *args) { return bif_raise(p, EXC_ERROR, args[0]); }

Term bif_exit_1(Process *p, Term *args) { return bif_raise(p, EXC_EXIT, args[0]); }

/* One entry of a stack trace as raise/3 accepts it (OTP's check):
 * {M, F, Arity | Args, Location} or {Fun, Args, Location}, with M and F
 * atoms and Location a proper list. */
static int trace_entry_ok(Term e) {
    if (!is_tuple(e)) return 0;
    Term *t = boxed_ptr(e);
    UWord n = header_arity(t[0]);
    Term loc;
    if (n == 4) {
        if (!is_atom(t[1]) || !is_atom(t[2])) return 0;
        if (!(is_small(t[3]) && small_val(t[3]) >= 0) && !is_nil(t[3]) && !is_list(t[3])) return 0;
        loc = t[4];
    } else if (n == 3) {
        if (!is_fun(t[1])) return 0;
        if (!(is_small(t[2]) && small_val(t[2]) >= 0) && !is_nil(t[2]) && !is_list(t[2])) return 0;
        loc = t[3];
    } else return 0;
    while (is_list(loc)) loc = list_tail(loc);
    return is_nil(loc);
}

/* raise(Class, Reason, Stacktrace): rethrows with the given trace, which
 * the emulator keeps (it builds a trace only when none is set). A bad class
 * or trace makes it return the atom badarg instead, as OTP's does. */
Term bif_raise_3(Process *p, Term *args) {
    Term cls = args[0], tr = args[2];
    int c = cls == AM_error ? EXC_ERROR : cls == ATOM_TERM(exit) ? EXC_EXIT :
            cls == ATOM_TERM(throw) ? EXC_THROW : 0;
    Term l = tr;
    while (c && is_list(l)) {
        if (!trace_entry_ok(list_head(l))) c = 0;
        l = list_tail(l);
    }
    if (!c || !is_nil(l)) return AM_badarg;
    bif_raise(p, c, args[1]);
    p->exc_trace = tr;
    return THE_NON_VALUE;
}

Term bif_halt_0(Process *p, Term *args) {
    (void)p; (void)args;
    io_halt(0);
    return AM_true;
}

/* halt(Status): a non-negative integer is the exit status; `abort` aborts;
 * a string (the crash slogan) exits with status 1, as erl does. */
Term bif_halt_1(Process *p, Term *args) {
    Term s = args[0];
    if (is_small(s) && small_val(s) >= 0) io_halt((int)(small_val(s) & 0xFF));
    if (is_big(s) && !big_is_neg(s)) io_halt(0xFF);
    if (s == ATOM_TERM(abort)) { io_flush(); abort(); }   /* a core dump, as erl gives */
    if (is_nil(s) || is_list(s)) {
        Term l = s;
        while (is_list(l) && is_small(list_head(l))) l = list_tail(l);
        if (is_nil(l)) io_halt(1);
    }
    BIF_ERROR(p, AM_badarg);
}

Term bif_get_stacktrace_0(Process *p, Term *args) {
    (void)args;
    return p->exc_trace == THE_NON_VALUE ? NIL : p->exc_trace;
}
