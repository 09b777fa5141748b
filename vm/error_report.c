/* error_report.c — explaining an exception the way Erlang's shell does.
 *
 * The reason terms are Erlang's ({badmatch, V}, function_clause, ...); this
 * file turns them into OTP 25's sentences (erl_error:format_exception): the
 * explanation, then `in function` / `in operator` / `in call from` lines,
 * `called as m:f(Args)` for a frame that has its arguments, and for a BIF
 * of module erlang the `*** argument N: not a tuple` lines that OTP's
 * erl_erts_errors gives (error_args.c).
 *
 * The shell's own frames are not the user's business: the trace stops at
 * the first frame of the modules that run the shell (shell, init, and the
 * throwaway '$shell_eval_N' modules), as erl's shell drops erl_eval's and
 * its own.
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "error_report.h"
#include "error_args.h"
#include "atom.h"
#include "print.h"
#include "module.h"
#include "compiler.h"

/* erl_error's layout: the shell formats at column 4 ("** " before it), so
 * the frame lines are indented by 5 and the explanation's values start at
 * column 21 ("** exception error: "). */
#define REPORT_INDENT 3
#define LINE_LEN 80
#define ARG_DEPTH 30


/* A scratch buffer's text joins the report; memory it was refused makes
 * the report's buffer fail too (the callers print a shorter report). */
static void sub_free(OutBuf *b, OutBuf *t) {
    if (t->failed) ob_refused(b, 0);
    ob_free(t);
}

static int is_tagged(Term t, Term tag, UWord arity) {
    return is_tuple(t) && tuple_arity(t) == arity && tuple_elems(t)[0] == tag;
}

static UWord list_length(Term l) {
    UWord n = 0;
    for (; is_list(l); l = list_tail(l)) n++;
    return n;
}

static int atom_is(Term a, const char *s) {
    size_t n;
    const char *t = atom_name(a, &n);
    return n == strlen(s) && memcmp(t, s, n) == 0;
}

int error_is_shell_code(Term m) {
    if (!is_atom(m)) return 0;
    size_t n;
    const char *t = atom_name(m, &n);
    return n > 12 && memcmp(t, "$shell_eval_", 12) == 0;
}

int error_is_shell_module(Term m) {
    return error_is_shell_code(m) || atom_is(m, "shell") || atom_is(m, "init");
}

static int is_autoimported(Term f, int arity) {
    size_t n;
    const char *t = atom_name(f, &n);
    char name[256];
    if (n >= sizeof name) return 0;
    memcpy(name, t, n);
    name[n] = 0;
    return compiler_is_autoimported(name, arity);
}

/* erl_internal:op_type/2: is erlang:F/A an operator? */
static int is_op(Term m, Term f, int arity) {
    static const char *const unary[] = { "+", "-", "bnot", "not", NULL };
    static const char *const binary[] = { "+", "-", "*", "/", "div", "rem", "band", "bor", "bxor",
                                          "bsl", "bsr", "and", "or", "xor", "==", "/=", "=<", "<",
                                          ">=", ">", "=:=", "=/=", "++", "--", "!", NULL };
    if (m != ATOM_TERM(erlang) || !is_atom(f) || arity < 1 || arity > 2) return 0;
    for (const char *const *o = arity == 1 ? unary : binary; *o; o++)
        if (atom_is(f, *o)) return 1;
    return 0;
}

/* mf_to_string: `element` for an auto-imported BIF, `'/'` or `+` for an
 * operator, `m:f` otherwise */
static void put_mf(OutBuf *b, Term m, Term f, int arity) {
    if (m == ATOM_TERM(erlang) && is_autoimported(f, arity)) { print_atom(b, f); return; }
    if (is_op(m, f, arity)) {
        if (atom_is(f, "/")) print_atom(b, f);
        else print_atom_text(b, f);
        return;
    }
    print_atom(b, m);
    ob_putc(b, ':');
    print_atom(b, f);
}

static void put_mfa(OutBuf *b, Term m, Term f, int arity) {
    put_mf(b, m, f, arity);
    ob_printf(b, "/%d", arity);
}

/* The arguments as ~p prints a list starting at column col, in parentheses.
 * A list of character codes is printed one argument at a time, so that
 * f(97,98) does not read f("ab"). */
static void put_args(OutBuf *b, Term args, long col) {
    if (is_list(args) && print_is_printable_list(args)) {
        ob_putc(b, '(');
        for (Term l = args; is_list(l); l = list_tail(l)) {
            print_pretty(b, list_head(l), col + 1, LINE_LEN, ARG_DEPTH, PRINT_STRINGS);
            if (is_list(list_tail(l))) ob_putc(b, ',');
        }
        ob_putc(b, ')');
        return;
    }
    OutBuf t;
    ob_init_soft(&t);
    print_pretty(&t, args, col, LINE_LEN, ARG_DEPTH, PRINT_STRINGS);
    ob_putc(b, '(');
    if (t.len > 2) ob_write(b, t.buf + 1, t.len - 2);
    ob_putc(b, ')');
    sub_free(b, &t);
}

static size_t line_col(const OutBuf *b) {
    size_t i = b->len;
    while (i > 0 && b->buf[i - 1] != '\n') i--;
    return b->len - i;
}

/* format_call: `1 / 0`, `- a`, or `m:f(Args)` */
static void put_call(OutBuf *b, Term m, Term f, Term args) {
    int n = (int)list_length(args);
    if (is_op(m, f, n)) {
        if (n == 1) {
            print_atom_text(b, f);
            ob_putc(b, ' ');
            print_pretty(b, list_head(args), (long)line_col(b) + 1, LINE_LEN, ARG_DEPTH, PRINT_STRINGS);
        } else {
            print_pretty(b, list_head(args), (long)line_col(b) + 1, LINE_LEN, ARG_DEPTH, PRINT_STRINGS);
            ob_putc(b, ' ');
            print_atom_text(b, f);
            ob_putc(b, ' ');
            print_pretty(b, list_head(list_tail(args)), (long)line_col(b) + 1, LINE_LEN, ARG_DEPTH,
                         PRINT_STRINGS);
        }
        return;
    }
    if (error_is_shell_module(m)) ob_puts(b, "fun");     /* a fun typed at the shell */
    else put_mf(b, m, f, n);
    put_args(b, args, (long)line_col(b) + 1);
}

/* ` (file.mini, line 3)`, or nothing */
static void put_location(OutBuf *b, Term loc) {
    Term file = THE_NON_VALUE, line = THE_NON_VALUE;
    for (; is_list(loc); loc = list_tail(loc)) {
        Term kv = list_head(loc);
        if (!is_tuple(kv) || tuple_arity(kv) != 2) continue;
        if (tuple_elems(kv)[0] == ATOM_TERM(file)) file = tuple_elems(kv)[1];
        if (tuple_elems(kv)[0] == ATOM_TERM(line)) line = tuple_elems(kv)[1];
    }
    if (file == THE_NON_VALUE || line == THE_NON_VALUE || !is_small(line)) return;
    ob_putc(b, '(');
    for (Term l = file; is_list(l); l = list_tail(l))
        if (is_small(list_head(l))) print_char(b, (UWord)small_val(list_head(l)));
    ob_printf(b, ", line %ld)", (long)small_val(line));
}

/* format_fun: `lists:map/2`, `m:'-f/0-fun-0-'/1`, or for a fun typed at
 * the shell erl's `interpreted function with arity 0` */
static void put_fun(OutBuf *b, Term f) {
    if (is_boxed(f) && boxed_kind(f) == BOXED_EXPORT) {
        const Export *e = (const Export *)boxed_ptr(f)[1];
        put_mfa(b, e->module, e->name, e->arity);
    } else if (is_boxed(f) && boxed_kind(f) == BOXED_FUN) {
        const FunEntry *fe = (const FunEntry *)boxed_ptr(f)[1];
        if (error_is_shell_code(fe->module)) ob_printf(b, "interpreted function with arity %d", fe->arity);
        else put_mfa(b, fe->module, fe->name, fe->arity);
    } else {
        print_term(b, f, PRINT_WRITE);
    }
}

static int count_nl(const char *s, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += s[i] == '\n';
    return c;
}

/* format_value: the value after its sentence, or on a line of its own
 * when that takes fewer lines */
static void put_value(OutBuf *b, const char *what, Term v, int cls_len) {
    ob_puts(b, what);
    OutBuf t;
    ob_init_soft(&t);
    long col = cls_len + REPORT_INDENT + (long)strlen(what) + 1;
    print_pretty(&t, v, col, LINE_LEN, -1, PRINT_STRINGS);
    int n1 = count_nl(t.buf, t.len);
    if (n1 > 1) {
        OutBuf u;
        ob_init_soft(&u);
        print_pretty(&u, v, REPORT_INDENT + 1 + cls_len, LINE_LEN, -1, PRINT_STRINGS);
        if (count_nl(u.buf, u.len) < n1) {
            ob_putc(b, '\n');
            ob_pad(b, ' ', (size_t)(REPORT_INDENT + cls_len));
            ob_write(b, u.buf, u.len);
            sub_free(b, &u);
            sub_free(b, &t);
            return;
        }
        sub_free(b, &u);
    }
    ob_write(b, t.buf, t.len);
    sub_free(b, &t);
}

static void explain_error(OutBuf *b, Term r, int cls_len) {
    if (r == AM_badarg) { ob_puts(b, "bad argument"); return; }
    if (r == AM_badarith) { ob_puts(b, "an error occurred when evaluating an arithmetic expression"); return; }
    if (r == ATOM_TERM(if_clause)) { ob_puts(b, "no true branch found when evaluating an if expression"); return; }
    if (r == ATOM_TERM(system_limit)) { ob_puts(b, "a system limit has been reached"); return; }
    if (atom_is(r, "noproc")) { ob_puts(b, "no such process or port"); return; }
    if (atom_is(r, "timeout_value")) { ob_puts(b, "bad receive timeout value"); return; }
    if (r == ATOM_TERM(function_clause)) { ob_puts(b, "no function clause matching"); return; }
    if (r == ATOM_TERM(undef)) { ob_puts(b, "undefined function"); return; }
    static const struct { const char *tag, *text; } values[] = {
        { "badarg", "bad argument: " }, { "badkey", "bad key: " }, { "badmap", "bad map: " },
        { "badfun", "bad function " }, { "badmatch", "no match of right hand side value " },
        { "case_clause", "no case clause matching " }, { "else_clause", "no else clause matching " },
        { "try_clause", "no try clause matching " }, { "bad_filter", "bad filter " },
        { "bad_generator", "bad generator " },
    };
    if (is_tuple(r) && tuple_arity(r) == 2 && is_atom(tuple_elems(r)[0]))
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
            if (atom_is(tuple_elems(r)[0], values[i].tag)) {
                put_value(b, values[i].text, tuple_elems(r)[1], cls_len);
                return;
            }
    if (is_tagged(r, ATOM_TERM(badarity), 2) && is_tuple(tuple_elems(r)[1]) && tuple_arity(tuple_elems(r)[1]) == 2) {
        Term *fa = tuple_elems(tuple_elems(r)[1]);
        static const char *const words[] = { "no arguments", "one argument", "two arguments" };
        UWord n = list_length(fa[1]);
        put_fun(b, fa[0]);
        if (n < 3) ob_printf(b, " called with %s", words[n]);
        else ob_printf(b, " called with %lu arguments", (unsigned long)n);
        return;
    }
    OutBuf t;
    ob_init_soft(&t);
    print_pretty(&t, r, REPORT_INDENT + 1 + cls_len, LINE_LEN, -1, PRINT_STRINGS);
    ob_write(b, t.buf, t.len);
    sub_free(b, &t);
}

static int is_frame(Term e) {
    return is_tuple(e) && tuple_arity(e) == 4 && is_atom(tuple_elems(e)[0]) && is_atom(tuple_elems(e)[1]);
}

/* "     in function  m:f/1 (f.mini, line 3)" and, with the arguments,
 * "        called as m:f(a)" and the top BIF's argument notes */
static void put_frame(OutBuf *b, Term e, int first) {
    Term *f = tuple_elems(e);
    int with_args = is_list(f[2]) || is_nil(f[2]);
    int arity = with_args ? (int)list_length(f[2]) : is_small(f[2]) ? (int)small_val(f[2]) : 0;
    ob_puts(b, first ? (is_op(f[0], f[1], arity) ? "     in operator  " : "     in function  ")
                     : "     in call from ");
    put_mfa(b, f[0], f[1], arity);
    if (!with_args) {
        ob_putc(b, ' ');
        put_location(b, f[3]);
        ob_putc(b, '\n');
        return;
    }
    ob_puts(b, "\n        called as ");
    put_call(b, f[0], f[1], f[2]);
    ob_putc(b, '\n');
    if (first && f[0] == ATOM_TERM(erlang)) {
        const char *why[ERROR_ARGS_MAX];
        int n = error_args_explain(f[1], f[2], why);
        for (int i = 0; i < n; i++)
            if (why[i]) ob_printf(b, "        *** argument %d: %s\n", i + 1, why[i]);
    }
}

void error_format(OutBuf *b, int cls, Term reason, Term trace) {
    const char *head = cls == EXC_THROW ? "exception throw: " : cls == EXC_EXIT ? "exception exit: "
                                                                             : "exception error: ";
    int cls_len = (int)strlen(head);
    ob_puts(b, "** ");
    ob_puts(b, head);
    /* analyze_exception: function_clause and undef name the call in the
     * sentence, and the rest of the trace follows */
    Term rest = trace;
    if (cls == EXC_ERROR && (reason == ATOM_TERM(function_clause) || reason == ATOM_TERM(undef)) &&
        is_list(trace) && is_frame(list_head(trace))) {
        Term *f = tuple_elems(list_head(trace));
        rest = list_tail(trace);
        if (reason == ATOM_TERM(undef)) {
            ob_puts(b, "undefined function ");
            put_mfa(b, f[0], f[1], is_small(f[2]) ? (int)small_val(f[2]) : (int)list_length(f[2]));
        } else if (is_list(f[2]) || is_nil(f[2])) {
            ob_puts(b, "no function clause matching ");
            put_call(b, f[0], f[1], f[2]);
            ob_putc(b, ' ');
            put_location(b, f[3]);
        } else {
            rest = trace;
            explain_error(b, reason, cls_len);
        }
    } else if (cls == EXC_ERROR) {
        explain_error(b, reason, cls_len);
    } else {
        OutBuf t;
        ob_init_soft(&t);
        print_pretty(&t, reason, REPORT_INDENT + 1 + cls_len, LINE_LEN, -1, PRINT_STRINGS);
        ob_write(b, t.buf, t.len);
        sub_free(b, &t);
    }
    ob_putc(b, '\n');
    /* the frames above the first of the shell's own: below it is only the
     * machinery that ran the user's code (the evaluator, -eval, init) */
    Term frames[64];
    int n = 0;
    for (Term l = rest; is_list(l) && n < 64; l = list_tail(l)) {
        if (!is_frame(list_head(l))) continue;
        if (error_is_shell_module(tuple_elems(list_head(l))[0])) break;
        frames[n++] = list_head(l);
    }
    for (int i = 0; i < n; i++) put_frame(b, frames[i], i == 0);
}

void report_uncaught(Process *p) {
    OutBuf b;
    ob_init_soft(&b);
    error_format(&b, p->exc_class, p->exc_reason, p->exc_trace);
    if (b.failed) {
        ob_free(&b);
        ob_puts(&b, "*** an exception whose text is too large for the memory left\n");
    }
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
