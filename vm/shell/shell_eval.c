/* shell_eval.c — the C half of the shell's evaluation (the loop itself is
 * stdlib/shell.mini): compiling a line of expressions into a module, and
 * explaining exceptions and loading code for the shell commands.
 *
 * erlang:'$shell_compile'(Text, Names) hands the line to the compiler
 * (compiler_compile_shell, compiler/compile.c, which says what module it
 * builds) and loads the result. f(), f(X), b() and v(N) need the shell's
 * own state: when a whole line is one of them it comes back as
 * {special, ...} for shell.mini to do.
 *
 * Errors come back as text in erl's shell style, `* 1:5: syntax error
 * before: '.'`, with positions relative to the input; diag.c's per-thread
 * hook collects them instead of printing.
 */
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "atom.h"
#include "term_build.h"
#include "bif.h"
#include "compiler.h"
#include "error_report.h"
#include "loader.h"
#include "print.h"
#include "outbuf.h"
#include "sched.h"
#include "shell.h"

/* ---- terms <-> C text ---- */

/* A flat list of character codes as a NUL-terminated string (malloc'ed into
 * b); -1 if it is not one. Codes above 255 are written as UTF-8. */
int shell_list_to_text(Term l, OutBuf *b) {
    for (; is_list(l); l = list_tail(l)) {
        Term c = list_head(l);
        if (!is_small(c) || small_val(c) < 0 || small_val(c) > 0x10FFFF) return -1;
        UWord v = (UWord)small_val(c);
        if (v < 0x80) ob_putc(b, (int)v);
        else if (v < 0x800) { ob_putc(b, (int)(0xC0 | (v >> 6))); ob_putc(b, (int)(0x80 | (v & 0x3F))); }
        else if (v < 0x10000) {
            ob_putc(b, (int)(0xE0 | (v >> 12))); ob_putc(b, (int)(0x80 | ((v >> 6) & 0x3F)));
            ob_putc(b, (int)(0x80 | (v & 0x3F)));
        } else {
            ob_putc(b, (int)(0xF0 | (v >> 18))); ob_putc(b, (int)(0x80 | ((v >> 12) & 0x3F)));
            ob_putc(b, (int)(0x80 | ((v >> 6) & 0x3F))); ob_putc(b, (int)(0x80 | (v & 0x3F)));
        }
    }
    if (!is_nil(l)) return -1;
    ob_cstr(b);
    return 0;
}

/* One UTF-8 sequence at s (n bytes left): its code point and length, or
 * -1 when the bytes are not well-formed UTF-8. */
static long utf8_next(const unsigned char *s, size_t n, size_t *len) {
    unsigned c = s[0];
    int k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (k < 0 || (size_t)k + 1 > n) return -1;
    long v = k == 0 ? (long)c : (long)(c & (0x3F >> k));
    for (int i = 1; i <= k; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        v = (v << 6) | (s[i] & 0x3F);
    }
    static const long least[4] = { 0, 0x80, 0x800, 0x10000 };
    if (v < least[k] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return -1;
    *len = (size_t)k + 1;
    return v;
}

/* UTF-8 text as a list of character codes on p's heap, as the compiler
 * reads source files: what is typed at the prompt is UTF-8, so `"ü"` is one
 * character. A byte that does not start well-formed UTF-8 stands for
 * itself (Latin-1), so no input is ever refused here. */
Term shell_text_to_list(Process *p, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k = 0, nchars = 0;
    while (i < n) {             /* count first: the heap gets exactly the cells */
        size_t len = 1;
        if (utf8_next(u + i, n - i, &len) < 0) len = 1;
        i += len;
        nchars++;
    }
    if (nchars == 0) return NIL;
    Term *hp = heap_alloc(p, 2 * nchars);
    i = 0;
    while (i < n) {
        size_t len = 1;
        long v = utf8_next(u + i, n - i, &len);
        if (v < 0) { v = u[i]; len = 1; }
        i += len;
        hp[2 * k] = make_small(v);
        hp[2 * k + 1] = i < n ? make_list(hp + 2 * k + 2) : NIL;
        k++;
    }
    return make_list(hp);
}

/* ---- compiling ---- */

typedef struct Collect { OutBuf *out; int n; } Collect;

static void collect_diag(void *ctx, int line, int col, const char *msg) {
    Collect *c = ctx;
    ob_printf(c->out, "* %d:%d: %s\n", line, col, msg);
    c->n++;
}

/* Every shell module ever loaded, as a GC root: funs made at the prompt
 * point into them from process heaps, which Boehm does not scan. */
static LoadedModule **kept;
static size_t nkept, capkept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void keep(LoadedModule *lm) {
    pthread_mutex_lock(&kept_lock);
    if (nkept == capkept) {
        size_t cap = capkept ? capkept * 2 : 64;
        LoadedModule **nk = GC_MALLOC_UNCOLLECTABLE(sizeof *nk * cap);
        if (nkept) memcpy(nk, kept, sizeof *nk * nkept);
        if (kept) GC_FREE(kept);
        kept = nk; capkept = cap;
    }
    kept[nkept++] = lm;
    pthread_mutex_unlock(&kept_lock);
}

/* erlang:'$shell_split'(Text) -> {First, Rest} when Text holds more than
 * one expression sequence (`X = 1. Y = X + 1.`), else whole: the shell runs
 * First and then reads Rest as if typed at the next prompt, as erl does. */
Term bif_shell_split_1(Process *p, Term *args) {
    OutBuf src;
    ob_init(&src);
    if (shell_list_to_text(args[0], &src) < 0) { ob_free(&src); BIF_ERROR(p, AM_badarg); }
    size_t end = compiler_shell_split(src.buf, src.len);
    Term r = end == 0 ? atom_intern_cstr("whole")
                      : tuple2(p, shell_text_to_list(p, src.buf, end),
                               shell_text_to_list(p, src.buf + end, src.len - end));
    ob_free(&src);
    return r;
}

/* The records of a text as [{Name, [Field], FormText}] in their order, or
 * the atom error after a syntax error (reported through the diag hook). */
static void discard_diag(void *ctx, int line, int col, const char *msg) {
    (void)ctx; (void)line; (void)col; (void)msg;
}

static Term records_term(Process *p, const char *file, const char *src, size_t len, int quiet) {
    int n = 0;
    ShellRecord *rs = compiler_read_records(file, src, len, &n, quiet ? discard_diag : NULL, NULL);
    if (!rs) return AM_error;
    Term r = NIL;
    for (int i = n; i-- > 0;) {
        Term fs = NIL;
        for (int j = rs[i].nfields; j-- > 0;) fs = cons(p, atom_intern_cstr(rs[i].fields[j]), fs);
        const char *t = rs[i].text;
        r = cons(p, tuple3(p, atom_intern_cstr(rs[i].name), fs, shell_text_to_list(p, t, strlen(t))), r);
    }
    return r;
}

/* erlang:'$shell_records'(Path) -> [{Name, [Field], FormText}] | error |
 * {error, nofile}: the records a source or include file defines, for rr/1,2. */
Term bif_shell_records_1(Process *p, Term *args) {
    OutBuf path;
    ob_init(&path);
    if (shell_list_to_text(args[0], &path) < 0) { ob_free(&path); BIF_ERROR(p, AM_badarg); }
    const char *file = GC_STRDUP(ob_cstr(&path));
    ob_free(&path);
    size_t len;
    char *src = module_read_file(file, &len);
    if (!src) return tuple2(p, AM_error, atom_intern_cstr("nofile"));
    return records_term(p, file, src, len, 0);
}

/* erlang:'$shell_compile'(Text, BoundNames, Records) -> where Records is
 * the text of the shell's -record forms (rd/2, rr/1,2), and the result
 *     incomplete | {error, Text} (syntax: the command number stays) |
 *     {lint_error, Text} (the number advances, as erl's) |
 *     {special, f|b|v|r, Arg} | {pieces, [Text]} | {ok, Module}
 * (rd: rd(Name, Def), Arg the record as '$shell_records'/1 gives it, or
 * error when Def does not declare a record) */
Term bif_shell_compile_3(Process *p, Term *args) {
    OutBuf src, recs;
    ob_init(&src);
    ob_init(&recs);
    if (shell_list_to_text(args[0], &src) < 0 || shell_list_to_text(args[2], &recs) < 0) {
        ob_free(&src); ob_free(&recs);
        BIF_ERROR(p, AM_badarg);
    }
    char *rtext = GC_MALLOC_ATOMIC(recs.len + 1);
    memcpy(rtext, recs.buf, recs.len);
    rtext[recs.len] = 0;
    size_t rlen = recs.len;
    ob_free(&recs);
    int nbound = 0;
    for (Term l = args[1]; is_list(l); l = list_tail(l)) {
        if (!is_atom(list_head(l))) { ob_free(&src); BIF_ERROR(p, AM_badarg); }
        nbound++;
    }
    const char **bound = GC_MALLOC(sizeof *bound * (size_t)(nbound + 1));
    int k = 0;
    for (Term l = args[1]; is_list(l); l = list_tail(l)) {
        size_t len;
        bound[k++] = atom_name(list_head(l), &len);
    }
    /* the compiler keeps pointers into the source: give it GC memory */
    char *text = GC_MALLOC_ATOMIC(src.len + 1);
    memcpy(text, src.buf, src.len);
    text[src.len] = 0;
    size_t tlen = src.len;
    ob_free(&src);

    OutBuf msgs;
    ob_init(&msgs);
    Collect col = { &msgs, 0 };
    ShellCode sc;
    Term result;
    LoadedModule *lm;
    switch (compiler_compile_shell(text, tlen, rtext, rlen, bound, nbound, collect_diag, &col, &sc)) {
    case SHELL_INCOMPLETE:
        result = atom_intern_cstr("incomplete");
        break;
    case SHELL_SYNTAX_ERROR:
        if (!col.n) ob_puts(&msgs, "* syntax error\n");
        result = tuple2(p, AM_error, shell_text_to_list(p, msgs.buf, msgs.len));
        break;
    case SHELL_SPECIAL: {
        if (sc.special == 'r') {
            Term rs = records_term(p, "shell", sc.special_var, strlen(sc.special_var), 1);
            if (is_list(rs) && is_nil(list_tail(rs))) {
                result = tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("rd"), list_head(rs));
                break;
            }
            /* erl: ** exception exit: "bad record declaration" */
            result = tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("rd"), AM_error);
            break;
        }
        Term arg = sc.special == 'v' ? make_small(sc.special_n)
                 : sc.special_var ? atom_intern_cstr(sc.special_var) : NIL;
        char name[2] = { sc.special, 0 };
        result = tuple3(p, atom_intern_cstr("special"), atom_intern_cstr(name), arg);
        break;
    }
    case SHELL_PIECES: {
        Term list = NIL;
        for (int i = sc.npieces; i-- > 0;) {
            Term t = shell_text_to_list(p, sc.pieces[i], strlen(sc.pieces[i]));
            Term *hp = heap_alloc(p, 2);
            hp[0] = t; hp[1] = list;
            list = make_list(hp);
        }
        result = tuple2(p, atom_intern_cstr("pieces"), list);
        break;
    }
    case SHELL_OK:
        if ((lm = module_load_compiled(sc.code))) {
            keep(lm);
            result = tuple2(p, AM_ok, lm->name);
            break;
        }
        /* fall through */
    case SHELL_LINT_ERROR:
    default:
        if (!col.n) ob_puts(&msgs, "* the expression could not be compiled\n");
        result = tuple2(p, atom_intern_cstr("lint_error"), shell_text_to_list(p, msgs.buf, msgs.len));
        break;
    }
    ob_free(&msgs);
    return result;
}

/* ---- exceptions ---- */

/* erlang:'$shell_format_exception'(Class, Reason, Stack) -> the text erl's
 * shell prints (error_report.c), without the frames of the shell's own code. */
Term bif_shell_format_exception_3(Process *p, Term *args) {
    int cls = args[0] == ATOM_TERM(throw) ? EXC_THROW : args[0] == ATOM_TERM(exit) ? EXC_EXIT : EXC_ERROR;
    OutBuf b;
    ob_init(&b);
    error_format(&b, cls, args[1], args[2]);     /* leaves out the shell's frames */
    Term r = shell_text_to_list(p, b.buf, b.len);
    ob_free(&b);
    return r;
}

/* erlang:'$shell_pretty'(Value, Depth, Unicode, Records): Value as erl's
 * shell prints it, io_lib_pretty at column 1, line length 80,
 * line_max_chars 60, Depth deep, the records known to the shell
 * ([{Name, [Field]}]) with their field names; Unicode (a terminal) shows
 * UTF-8 binaries as text (~tP). One list element per byte, as
 * io_lib:format/2 returns here. */
Term bif_shell_pretty_4(Process *p, Term *args) {
    if (!is_small(args[1]) || !(is_list(args[3]) || is_nil(args[3]))) BIF_ERROR(p, AM_badarg);
    OutBuf b;
    ob_init_soft(&b);
    print_pretty_max(&b, args[0], 1, 80, (long)small_val(args[1]),
                     PRINT_STRINGS | (args[2] == AM_true ? PRINT_UNICODE : 0), 60, args[3]);
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    Term *hp = b.len ? heap_alloc_try(p, 2 * b.len) : NULL, res = NIL;
    if (b.len && !hp) { ob_free(&b); return bif_out_of_memory(p); }
    for (size_t i = b.len; i-- > 0;) {
        hp[2 * i] = make_small((unsigned char)b.buf[i]);
        hp[2 * i + 1] = res;
        res = make_list(hp + 2 * i);
    }
    ob_free(&b);
    return res;
}

/* ---- loading code: c/1 and l/1 ---- */

/* erlang:'$shell_c'(Path, Defines, IncludeDirs) -> {ok, Mod} | error: c/2
 * (stdlib/shell_default.mini) has found the file and turned its options
 * into Defines, `-define(M, V). ` forms put before the source on its first
 * line (so line numbers stay right; erlc's {d, M, V} means the same), and
 * IncludeDirs for {i, Dir}. The module must be named as the file is. */
Term bif_shell_c_3(Process *p, Term *args) {
    OutBuf path, defs;
    ob_init(&path);
    ob_init(&defs);
    int nd = 0;
    for (Term l = args[2]; is_list(l); l = list_tail(l)) nd++;
    const char **dirs = GC_MALLOC(sizeof *dirs * (size_t)(nd + 1));
    int k = 0, bad = shell_list_to_text(args[0], &path) < 0 || shell_list_to_text(args[1], &defs) < 0;
    for (Term l = args[2]; !bad && is_list(l); l = list_tail(l)) {
        OutBuf d;
        ob_init(&d);
        if (shell_list_to_text(list_head(l), &d) < 0) bad = 1;
        else dirs[k++] = GC_STRDUP(ob_cstr(&d));
        ob_free(&d);
    }
    if (bad) { ob_free(&path); ob_free(&defs); BIF_ERROR(p, AM_badarg); }
    const char *file = GC_STRDUP(ob_cstr(&path));
    ob_free(&path);
    size_t len;
    char *src = module_read_file(file, &len);
    if (!src) { ob_free(&defs); return AM_error; }
    char *text = GC_MALLOC_ATOMIC(defs.len + len + 1);
    if (defs.len) memcpy(text, defs.buf, defs.len);
    memcpy(text + defs.len, src, len);
    text[defs.len + len] = 0;
    size_t tlen = defs.len + len;
    ob_free(&defs);
    /* the module name the file's name says: base name, no extension */
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char *expect = GC_STRDUP(base);
    char *dot = strrchr(expect, '.');
    if (dot) *dot = 0;
    compiler_include_dirs_extra(dirs, k);
    compiler_warnings_want(stdout);
    CodeModule *cm = compiler_compile_module(file, text, tlen, expect);
    compiler_warnings_want(NULL);
    compiler_include_dirs_extra(NULL, 0);
    LoadedModule *lm = cm ? module_load_compiled(cm) : NULL;
    if (!lm) return AM_error;
    return tuple2(p, AM_ok, lm->name);
}

/* erlang:'$shell_l'(Mod) -> {module, Mod} | {error, nofile | badfile} */
Term bif_shell_l_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    int r = module_reload(args[0]);
    if (r > 0) return tuple2(p, atom_intern_cstr("module"), args[0]);
    return tuple2(p, AM_error, r < 0 ? atom_intern_cstr("nofile") : atom_intern_cstr("badfile"));
}

/* erlang:'$shell_modules'() -> [{Module, SourceFile}] of the loaded
 * modules (the shell's own expression modules left out), for m() */
Term bif_shell_modules_0(Process *p, Term *args) {
    (void)args;
    Term r = NIL;
    LoadedModule *lm;
    for (int i = 0; (lm = module_nth(i)); i++) {
        size_t n;
        if (atom_name(lm->name, &n)[0] == '$') continue;
        const char *f = lm->file ? lm->file : "";
        Term file = shell_text_to_list(p, f, strlen(f));
        r = cons(p, tuple2(p, lm->name, file), r);
    }
    return r;
}

/* erlang:'$init_noshell'() -> ok: init (stdlib/init.mini) under -noshell
 * waits for init:stop(); when it is the last process the run ends (0). */
Term bif_init_noshell_0(Process *p, Term *args) {
    (void)p; (void)args;
    sched_main_may_wait_alone();
    return AM_ok;
}

/* ---- pids as text, for pid/3 and i() ---- */

/* erlang:list_to_pid("<0.N.0>"): only node 0 and serial 0 exist here */
Term bif_list_to_pid_1(Process *p, Term *args) {
    OutBuf b;
    ob_init(&b);
    unsigned long node, n, serial;
    char end;
    int ok = shell_list_to_text(args[0], &b) == 0 &&
             sscanf(ob_cstr(&b), "<%lu.%lu.%lu%c", &node, &n, &serial, &end) == 4 && end == '>' &&
             node == 0 && serial == 0 && strchr(ob_cstr(&b), '>')[1] == 0;
    ob_free(&b);
    if (!ok) BIF_ERROR(p, AM_badarg);
    return make_pid(n);
}

Term bif_pid_to_list_1(Process *p, Term *args) {
    if (!is_pid(args[0])) BIF_ERROR(p, AM_badarg);
    char buf[48];
    int n = snprintf(buf, sizeof buf, "<0.%lu.0>", (unsigned long)pid_val(args[0]));
    return shell_text_to_list(p, buf, (size_t)n);
}
