/* bif_exceptions.c — the BIFs that do not return normally: throw/1,
 * error/1,2 and exit/1 raise an exception, halt/0,1 ends the VM; and
 * get_stacktrace/0, which reads the last exception's trace. */
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
