/* shell_eval.c — the C half of the shell's evaluation (the loop itself is
 * stdlib/shell.mini): compiling a line of expressions into a module, and
 * explaining exceptions and loading code for the shell commands.
 *
 * erlang:'$shell_compile'(Text, Names) parses `Expr, ..., Expr.` and builds
 *
 *     -module('$shell_eval_N').
 *     '$eval'(Name1, ..., NameK) -> Expr, ..., '$R' = LastExpr,
 *                                   {'$R', [{'Name', Name} || every name bound after]}.
 *
 * where Name1..NameK are the shell's bound variables, then checks, compiles
 * and loads it. A fresh module each time: funs made at the prompt keep
 * pointing at their code, so no module is ever replaced. Local calls that
 * are not auto-imported BIFs become shell_default:F(...) calls, as in
 * Erlang, so help(), c(Mod), i() ... are plain Mini functions
 * (stdlib/shell_default.mini). f(), f(X), b() and v(N) need the shell's own
 * state: when a whole line is one of them it comes back as {special, ...}
 * for shell.mini to do.
 *
 * Errors come back as text in erl's shell style, `* 1:5: syntax error
 * before: '.'`, with positions relative to the input; diag.c's per-thread
 * hook collects them instead of printing.
 */
#include <gc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "atom.h"
#include "term_build.h"
#include "bif.h"
#include "bytecode.h"
#include "error_report.h"
#include "frontend.h"
#include "loader.h"
#include "outbuf.h"
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

/* Bytes as a list of character codes on p's heap. */
Term shell_text_to_list(Process *p, const char *s, size_t n) {
    if (n == 0) return NIL;
    Term *hp = heap_alloc(p, 2 * n);
    for (size_t i = 0; i < n; i++) {
        hp[2 * i] = make_small((unsigned char)s[i]);
        hp[2 * i + 1] = i + 1 < n ? make_list(hp + 2 * i + 2) : NIL;
    }
    return make_list(hp);
}

/* ---- rewriting local calls to shell_default ---- */

static const struct { const char *name; int arity; } autoimports[] = {
#define AUTO(n, a) { #n, a },
#include "autoimport.def"
#undef AUTO
};

static int is_autoimported(const char *name, int arity) {
    for (size_t i = 0; i < sizeof autoimports / sizeof autoimports[0]; i++)
        if (autoimports[i].arity == arity && strcmp(autoimports[i].name, name) == 0) return 1;
    return 0;
}

static Expr *atom_expr(const char *name, int line, int col) {
    Expr *e = ast_expr(E_ATOM, line, col);
    e->name = ast_intern(name, strlen(name));
    return e;
}

static void rewrite_expr(Expr *e);

static void rewrite_list(Expr **v, int n) {
    for (int i = 0; i < n; i++) rewrite_expr(v[i]);
}

static void rewrite_clauses(Clause **cl, int n) {
    for (int i = 0; i < n; i++) {
        if (!cl[i]) continue;
        rewrite_list(cl[i]->patterns, cl[i]->npat);
        if (cl[i]->guard)
            for (int a = 0; a < cl[i]->guard->nalts; a++)
                rewrite_list(cl[i]->guard->alts[a].tests, cl[i]->guard->alts[a].ntests);
        rewrite_list(cl[i]->body, cl[i]->nbody);
    }
}

/* Every field that may hold an expression; E_CONS tails are walked in a
 * loop so a long literal list costs no C stack. */
static void rewrite_expr(Expr *e) {
    while (e) {
        if ((e->kind == E_CALL || e->kind == E_FUNREF) && !e->mod && !e->fun && e->name) {
            int arity = e->kind == E_CALL ? e->n : e->arity;
            if (!is_autoimported(e->name, arity)) {
                e->mod = atom_expr("shell_default", e->line, e->col);
                if (e->kind == E_CALL) {
                    e->fun = atom_expr(e->name, e->line, e->col);
                    e->name = NULL;
                }
            }
        }
        rewrite_expr(e->mod);
        if (e->kind != E_FUNREF) rewrite_expr(e->fun);
        rewrite_list(e->elems, e->n);
        if (e->body != e->elems) rewrite_list(e->body, e->nbody);
        rewrite_clauses(e->clauses, e->nclauses);
        rewrite_clauses(e->catches, e->ncatches);
        rewrite_list(e->after, e->nafter);
        rewrite_expr(e->timeout);
        for (int i = 0; i < e->nfields; i++) {
            rewrite_expr(e->fields[i].key);
            rewrite_expr(e->fields[i].value);
            rewrite_expr(e->fields[i].size);
        }
        rewrite_expr(e->a);
        e = e->b;
    }
}

/* ---- compiling ---- */

typedef struct Collect { OutBuf *out; int n; } Collect;

static void collect_diag(void *ctx, int line, int col, const char *msg) {
    Collect *c = ctx;
    ob_printf(c->out, "* %d:%d: %s\n", line, col, msg);
    c->n++;
}

static _Atomic unsigned shell_module_seq;

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

static Expr *var_expr(const char *name, int line) {
    Expr *e = ast_expr(E_VAR, line, 1);
    e->name = name;
    return e;
}

/* f(), f(X), b(), v(N) as a whole line: {special, Name, Arg} */
static Term special_command(Process *p, Expr **es, int n) {
    if (n != 1 || es[0]->kind != E_CALL || es[0]->mod || es[0]->fun || !es[0]->name) return 0;
    Expr *e = es[0];
    const char *f = e->name;
    if (strcmp(f, "f") == 0 && e->n == 0) return tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("f"), NIL);
    if (strcmp(f, "b") == 0 && e->n == 0) return tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("b"), NIL);
    if (strcmp(f, "f") == 0 && e->n == 1 && e->elems[0]->kind == E_VAR)
        return tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("f"), atom_intern_cstr(e->elems[0]->name));
    if (strcmp(f, "v") == 0 && e->n == 1) {
        Expr *a = e->elems[0];
        if (a->kind == E_INT && !a->big && fits_small(a->ival))
            return tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("v"), make_small(a->ival));
        if (a->kind == E_UNOP && a->op == OP_NEG && a->a->kind == E_INT && !a->a->big)
            return tuple3(p, atom_intern_cstr("special"), atom_intern_cstr("v"), make_small(-a->a->ival));
    }
    return 0;
}

/* erlang:'$shell_split'(Text) -> {First, Rest} when Text holds more than
 * one expression sequence (`X = 1. Y = X + 1.`), else whole: the shell runs
 * First and then reads Rest as if typed at the next prompt, as erl does. */
Term bif_shell_split_1(Process *p, Term *args) {
    OutBuf src;
    ob_init(&src);
    if (shell_list_to_text(args[0], &src) < 0) { ob_free(&src); BIF_ERROR(p, AM_badarg); }
    size_t end = exprs_first_end(src.buf, src.len);
    Term r = end == 0 ? atom_intern_cstr("whole")
                      : tuple2(p, shell_text_to_list(p, src.buf, end),
                               shell_text_to_list(p, src.buf + end, src.len - end));
    ob_free(&src);
    return r;
}

/* erlang:'$shell_compile'(Text, BoundNames) ->
 *     incomplete | {error, Text} (syntax: the command number stays) |
 *     {lint_error, Text} (the number advances, as erl's) |
 *     {special, f|b|v, Arg} | {ok, Module} */
Term bif_shell_compile_2(Process *p, Term *args) {
    OutBuf src;
    ob_init(&src);
    if (shell_list_to_text(args[0], &src) < 0) { ob_free(&src); BIF_ERROR(p, AM_badarg); }
    int nbound = 0;
    for (Term l = args[1]; is_list(l); l = list_tail(l)) {
        if (!is_atom(list_head(l))) { ob_free(&src); BIF_ERROR(p, AM_badarg); }
        nbound++;
    }
    const char **bound = GC_MALLOC(sizeof *bound * (size_t)(nbound + 1));
    int k = 0;
    for (Term l = args[1]; is_list(l); l = list_tail(l)) {
        size_t len;
        const char *s = atom_name(list_head(l), &len);
        bound[k++] = ast_intern(s, len);
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
    diag_hook = collect_diag;
    diag_hook_ctx = &col;
    Term result;
    int nexprs = 0, incomplete = 0;
    Expr **es = parse_exprs("shell", text, tlen, &nexprs, &incomplete);
    if (incomplete) { result = atom_intern_cstr("incomplete"); goto done; }
    if (!es) {
        if (!col.n) ob_puts(&msgs, "* syntax error\n");
        result = tuple2(p, AM_error, shell_text_to_list(p, msgs.buf, msgs.len));
        goto done;
    }
    if ((result = special_command(p, es, nexprs))) goto done;
    for (int i = 0; i < nexprs; i++) rewrite_expr(es[i]);

    char name[48];
    snprintf(name, sizeof name, "$shell_eval_%u", atomic_fetch_add(&shell_module_seq, 1) + 1);
    Module *m = ast_alloc(sizeof *m);
    m->file = "shell";
    m->src = text;
    m->srclen = tlen;
    m->name = ast_intern(name, strlen(name));
    m->line = m->col = 1;

    const char **after;
    int nafter;
    if (check_exprs(m, es, nexprs, bound, nbound, &after, &nafter) > 0) {
        result = tuple2(p, atom_intern_cstr("lint_error"), shell_text_to_list(p, msgs.buf, msgs.len));
        goto done;
    }

    /* '$eval'(Bound...) -> E1, ..., '$R' = En, {'$R', [{'N', N}, ...]}. */
    int line = es[nexprs - 1]->line;
    const char *rname = ast_intern("$R", 2);
    Expr *match = ast_expr(E_MATCH, line, 1);
    match->a = var_expr(rname, line);
    match->b = es[nexprs - 1];
    Expr *list = ast_expr(E_NIL, line, 1);
    for (int i = nafter - 1; i >= 0; i--) {
        Expr *t = ast_expr(E_TUPLE, line, 1);
        t->n = 2;
        t->elems = ast_alloc(sizeof *t->elems * 2);
        t->elems[0] = atom_expr(after[i], line, 1);
        t->elems[1] = var_expr(after[i], line);
        Expr *c = ast_expr(E_CONS, line, 1);
        c->a = t; c->b = list;
        list = c;
    }
    Expr *ret = ast_expr(E_TUPLE, line, 1);
    ret->n = 2;
    ret->elems = ast_alloc(sizeof *ret->elems * 2);
    ret->elems[0] = var_expr(rname, line);
    ret->elems[1] = list;

    Clause *cl = ast_alloc(sizeof *cl);
    cl->line = cl->col = 1;
    cl->npat = nbound;
    cl->patterns = ast_alloc(sizeof *cl->patterns * (size_t)(nbound + 1));
    for (int i = 0; i < nbound; i++) cl->patterns[i] = var_expr(bound[i], 1);
    cl->nbody = nexprs + 1;
    cl->body = ast_alloc(sizeof *cl->body * (size_t)(nexprs + 1));
    for (int i = 0; i < nexprs - 1; i++) cl->body[i] = es[i];
    cl->body[nexprs - 1] = match;
    cl->body[nexprs] = ret;

    Function *fn = ast_alloc(sizeof *fn);
    fn->line = fn->col = 1;
    fn->name = ast_intern("$eval", 5);
    fn->arity = nbound;
    fn->nclauses = 1;
    fn->clauses = ast_alloc(sizeof *fn->clauses);
    fn->clauses[0] = cl;
    m->functions = ast_alloc(sizeof *m->functions);
    m->functions[0] = fn;
    m->nfunctions = 1;
    m->exports = ast_alloc(sizeof *m->exports);
    m->exports[0].name = fn->name;
    m->exports[0].arity = nbound;
    m->nexports = 1;

    CodeModule *cm = check_module(m) == 0 ? codegen_module(m) : NULL;
    LoadedModule *lm = cm ? module_load_compiled(cm) : NULL;
    if (!lm) {
        if (!col.n) ob_puts(&msgs, "* the expression could not be compiled\n");
        result = tuple2(p, atom_intern_cstr("lint_error"), shell_text_to_list(p, msgs.buf, msgs.len));
        goto done;
    }
    keep(lm);
    result = tuple2(p, AM_ok, lm->name);
done:
    diag_hook = NULL;
    diag_hook_ctx = NULL;
    ob_free(&msgs);
    return result;
}

/* ---- exceptions ---- */

static int is_shell_frame(Term e) {
    if (!is_tuple(e) || tuple_arity(e) != 4 || !is_atom(tuple_elems(e)[0])) return 0;
    Term m = tuple_elems(e)[0];
    if (m == atom_intern_cstr("shell")) return 1;
    size_t len;
    const char *s = atom_name(m, &len);
    return len > 12 && memcmp(s, "$shell_eval_", 12) == 0;
}

/* erlang:'$shell_format_exception'(Class, Reason, Stack) -> the text erl's
 * shell prints, without the frames of the shell's own code. */
Term bif_shell_format_exception_3(Process *p, Term *args) {
    int cls = args[0] == ATOM_TERM(throw) ? EXC_THROW : args[0] == ATOM_TERM(exit) ? EXC_EXIT : EXC_ERROR;
    Term trace = NIL, *last = &trace;
    for (Term l = args[2]; is_list(l); l = list_tail(l)) {
        if (is_shell_frame(list_head(l))) continue;
        Term *hp = heap_alloc(p, 2);
        hp[0] = list_head(l); hp[1] = NIL;
        *last = make_list(hp);
        last = &hp[1];
    }
    OutBuf b;
    ob_init(&b);
    error_format(&b, cls, args[1], trace);
    /* `undefined function m:f/1` already names its only frame, so erl's
     * shell prints no trace under it */
    if (cls == EXC_ERROR && args[1] == ATOM_TERM(undef)) {
        char *nl = memchr(b.buf, '\n', b.len);
        if (nl) b.len = (size_t)(nl - b.buf) + 1;
    }
    Term r = shell_text_to_list(p, b.buf, b.len);
    ob_free(&b);
    return r;
}

/* ---- loading code: c/1 and l/1 ---- */

/* erlang:'$shell_c'(Mod) -> {ok, Mod} | error: compiles Mod.mini in the
 * current directory and loads it; errors go to stderr as from the compiler. */
Term bif_shell_c_1(Process *p, Term *args) {
    OutBuf path;
    ob_init(&path);
    if (is_atom(args[0])) {
        size_t len;
        const char *s = atom_name(args[0], &len);
        ob_write(&path, s, len);
    } else if (shell_list_to_text(args[0], &path) < 0) {
        ob_free(&path);
        BIF_ERROR(p, AM_badarg);
    }
    if (path.len < 5 || strcmp(ob_cstr(&path) + path.len - 5, ".mini") != 0) ob_puts(&path, ".mini");
    LoadedModule *lm = module_load_file(ob_cstr(&path));
    ob_free(&path);
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

/* erlang:'$shell_modules'() -> the loaded modules, for m() */
Term bif_shell_modules_0(Process *p, Term *args) {
    (void)args;
    Term r = NIL;
    LoadedModule *lm;
    for (int i = 0; (lm = module_nth(i)); i++) {
        size_t n;
        if (atom_name(lm->name, &n)[0] == '$') continue;
        Term *hp = heap_alloc(p, 2);
        hp[0] = lm->name; hp[1] = r;
        r = make_list(hp);
    }
    return r;
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
