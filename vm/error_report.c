/* error_report.c — explaining an exception the way Erlang's shell does.
 *
 * The reason terms are Erlang's ({badmatch, V}, function_clause, ...); this
 * file only turns them into sentences, and the stack trace into
 * `in function` / `in call from` lines.
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "error_report.h"
#include "atom.h"
#include "print.h"

static void put_term(OutBuf *b, Term t) { print_term(b, t, PRINT_PRINT); }

static void put_atom(OutBuf *b, Term a) { print_term(b, a, PRINT_WRITE); }

static int is_tagged(Term t, Term tag, UWord arity) {
    return is_tuple(t) && tuple_arity(t) == arity && tuple_elems(t)[0] == tag;
}

static UWord list_length(Term l) {
    UWord n = 0;
    for (; is_list(l); l = list_tail(l)) n++;
    return n;
}

/* M:F(A1,A2) or M:F/N from a trace entry {M, F, ArgsOrArity, Loc} */
static void put_call(OutBuf *b, Term m, Term f, Term args, int with_args) {
    if (m != ATOM_TERM(erlang)) { put_atom(b, m); ob_putc(b, ':'); }
    put_atom(b, f);
    if (is_small(args)) { ob_printf(b, "/%ld", (long)small_val(args)); return; }
    if (!with_args) { ob_printf(b, "/%lu", (unsigned long)list_length(args)); return; }
    ob_putc(b, '(');
    for (Term l = args; is_list(l); l = list_tail(l)) {
        print_term(b, list_head(l), PRINT_WRITE);
        if (is_list(list_tail(l))) ob_putc(b, ',');
    }
    ob_putc(b, ')');
}

static void explain_error(OutBuf *b, Term r, Term trace) {
    if (r == AM_badarg) { ob_puts(b, "bad argument"); return; }
    if (r == AM_badarith) { ob_puts(b, "an error occurred when evaluating an arithmetic expression"); return; }
    if (r == ATOM_TERM(if_clause)) { ob_puts(b, "no true branch found when evaluating an if expression"); return; }
    if (r == ATOM_TERM(system_limit)) { ob_puts(b, "a system limit has been reached"); return; }
    if (r == ATOM_TERM(function_clause) || r == ATOM_TERM(undef)) {
        if (is_list(trace) && is_tuple(list_head(trace)) && tuple_arity(list_head(trace)) == 4) {
            Term *e = tuple_elems(list_head(trace));
            ob_puts(b, r == ATOM_TERM(undef) ? "undefined function " : "no function clause matching ");
            put_call(b, e[0], e[1], e[2], r != ATOM_TERM(undef));
        } else ob_puts(b, r == ATOM_TERM(undef) ? "undefined function" : "no function clause matching");
        return;
    }
    if (is_tagged(r, ATOM_TERM(badmatch), 2)) { ob_puts(b, "no match of right hand side value "); put_term(b, tuple_elems(r)[1]); return; }
    if (is_tagged(r, ATOM_TERM(case_clause), 2)) { ob_puts(b, "no case clause matching "); put_term(b, tuple_elems(r)[1]); return; }
    if (is_tagged(r, ATOM_TERM(try_clause), 2)) { ob_puts(b, "no try clause matching "); put_term(b, tuple_elems(r)[1]); return; }
    if (is_tagged(r, ATOM_TERM(badfun), 2)) { ob_puts(b, "bad function "); put_term(b, tuple_elems(r)[1]); return; }
    if (is_tagged(r, ATOM_TERM(badarity), 2) && is_tuple(tuple_elems(r)[1]) && tuple_arity(tuple_elems(r)[1]) == 2) {
        Term *fa = tuple_elems(tuple_elems(r)[1]);
        ob_puts(b, "fun ");
        put_term(b, fa[0]);
        UWord n = list_length(fa[1]);
        ob_printf(b, " called with %lu argument%s", (unsigned long)n, n == 1 ? "" : "s");
        return;
    }
    put_term(b, r);
}

static void put_location(OutBuf *b, Term loc) {
    Term file = THE_NON_VALUE, line = THE_NON_VALUE;
    for (; is_list(loc); loc = list_tail(loc)) {
        Term kv = list_head(loc);
        if (!is_tuple(kv) || tuple_arity(kv) != 2) continue;
        if (tuple_elems(kv)[0] == ATOM_TERM(file)) file = tuple_elems(kv)[1];
        if (tuple_elems(kv)[0] == ATOM_TERM(line)) line = tuple_elems(kv)[1];
    }
    if (file == THE_NON_VALUE && line == THE_NON_VALUE) return;
    ob_puts(b, " (");
    if (file != THE_NON_VALUE)
        for (Term l = file; is_list(l); l = list_tail(l))
            if (is_small(list_head(l))) print_char(b, (UWord)small_val(list_head(l)));
    if (line != THE_NON_VALUE) ob_printf(b, ", line %ld", (long)small_val(line));
    ob_putc(b, ')');
}

void error_format(OutBuf *b, int cls, Term reason, Term trace) {
    ob_puts(b, cls == EXC_THROW ? "** exception throw: " : cls == EXC_EXIT ? "** exception exit: "
                                                                           : "** exception error: ");
    if (cls == EXC_ERROR) explain_error(b, reason, trace);
    else put_term(b, reason);
    ob_putc(b, '\n');
    int first = 1;
    for (Term l = trace; is_list(l); l = list_tail(l)) {
        Term e = list_head(l);
        if (!is_tuple(e) || tuple_arity(e) != 4) continue;
        Term *f = tuple_elems(e);
        ob_puts(b, first ? "     in function  " : "     in call from ");
        put_call(b, f[0], f[1], f[2], 0);
        put_location(b, f[3]);
        ob_putc(b, '\n');
        if (is_list(f[2]) || is_nil(f[2])) {
            ob_puts(b, "        called as ");
            put_call(b, f[0], f[1], f[2], 1);
            ob_putc(b, '\n');
        }
        first = 0;
    }
}

void report_uncaught(Process *p) {
    OutBuf b;
    ob_init(&b);
    error_format(&b, p->exc_class, p->exc_reason, p->exc_trace);
    fflush(stdout);
    fwrite(b.buf, 1, b.len, stderr);
    fflush(stderr);
    ob_free(&b);
}

void error_report_header(OutBuf *b) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    ob_printf(b, "=ERROR REPORT==== %d-%s-%d::%02d:%02d:%02d.%06ld ===\n", tm.tm_mday,
              months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
              (long)tv.tv_usec);
}
