/* compile.c — the compiler's entry points (compiler.h): a module's source
 * to a CodeModule, and a line typed at the shell to a module of its own.
 *
 * The shell's line becomes
 *
 *     -module('$shell_eval_N').
 *     '$eval'(Name1, ..., NameK) -> Expr, ..., '$R' = LastExpr,
 *                                   {'$R', [{'Name', Name} || every name bound after]}.
 *
 * where Name1..NameK are the shell's bound variables. A fresh module each
 * time: funs made at the prompt keep pointing at their code, so no module is
 * ever replaced. Local calls that are not auto-imported BIFs become
 * shell_default:F(...) calls, as in Erlang, so help(), c(Mod), i() ... are
 * plain Mini functions (stdlib/shell_default.mini). f(), f(X), b() and v(N)
 * need the shell's own state: when a whole line is one of them it comes back
 * as SHELL_SPECIAL for shell.mini to do.
 */
#include <gc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "codegen.h"
#include "frontend.h"

/* Every module exports module_info/0,1, as BEAM's compiler adds them:
 * erlang:get_module_info(Module[, Item]). Parsed from text so they are
 * plain functions; a module that defines its own keeps it. */
static void add_module_info(Module *m) {
    int has0 = 0, has1 = 0;
    for (int i = 0; i < m->nfunctions; i++)
        if (strcmp(m->functions[i]->name, "module_info") == 0) {
            if (m->functions[i]->arity == 0) has0 = 1;
            if (m->functions[i]->arity == 1) has1 = 1;
        }
    if (has0 && has1) return;
    char *text = GC_MALLOC_ATOMIC(strlen(m->name) * 4 + 256);
    char *q = text;
    q += sprintf(q, "-module('");
    for (const char *c = m->name; *c; c++) {       /* the name as a quoted atom */
        if (*c == '\'' || *c == '\\') *q++ = '\\';
        *q++ = *c;
    }
    q += sprintf(q, "').\n");
    if (!has0) q += sprintf(q, "module_info() -> erlang:get_module_info(?MODULE).\n");
    if (!has1) q += sprintf(q, "module_info(Item) -> erlang:get_module_info(?MODULE, Item).\n");
    Module *extra = parse_module(m->file, text, strlen(text));
    if (!extra) return;
    int n = m->nfunctions + extra->nfunctions;
    Function **fs = ast_alloc(sizeof *fs * (size_t)n);
    /* (a module with no functions or no exports has NULL lists: memcpy must not see them) */
    if (m->nfunctions) memcpy(fs, m->functions, sizeof *fs * (size_t)m->nfunctions);
    memcpy(fs + m->nfunctions, extra->functions, sizeof *fs * (size_t)extra->nfunctions);
    NameArity *ex = ast_alloc(sizeof *ex * (size_t)(m->nexports + 2));
    if (m->nexports) memcpy(ex, m->exports, sizeof *ex * (size_t)m->nexports);
    int ne = m->nexports;
    for (int i = 0; i < extra->nfunctions; i++) {
        ex[ne].name = extra->functions[i]->name;
        ex[ne].arity = extra->functions[i]->arity;
        ne++;
    }
    m->functions = fs; m->nfunctions = n;
    m->exports = ex; m->nexports = ne;
}

static __thread FILE *warnings_to;
int compiler_warnings_off;

void compiler_warnings_want(FILE *to) { warnings_to = to; }

CodeModule *compiler_compile_module(const char *file, const char *src, size_t len,
                                    const char *expect) {
    Module *m = parse_module(file, src, len);
    if (m && m->name) add_module_info(m);       /* before the checks: local calls see them */
    if (!m || check_module(m) > 0) return NULL;
    if (warnings_to && !compiler_warnings_off) warnings_module(m, warnings_to);
    if (expect && strcmp(m->name, expect) != 0) {
        FILE *to = warnings_to ? warnings_to : stderr;
        fprintf(to, "%s: Module name '%s' does not match file name '%s'\n", file, m->name, expect);
        fflush(to);
        return NULL;
    }
    return codegen_module(m);
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

int compiler_is_autoimported(const char *name, int arity) { return is_autoimported(name, arity); }

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


static Expr *var_expr(const char *name, int line) {
    Expr *e = ast_expr(E_VAR, line, 1);
    e->name = name;
    return e;
}


/* f(), f(X), b(), v(N) as a whole line. */
static int special_command(Expr **es, int n, ShellCode *out) {
    if (n != 1 || es[0]->kind != E_CALL || es[0]->mod || es[0]->fun || !es[0]->name) return 0;
    Expr *e = es[0];
    const char *f = e->name;
    out->special_var = NULL;
    out->special_n = 0;
    if (strcmp(f, "rd") == 0 && e->n == 2 && e->elems[0]->kind == E_ATOM) {
        out->special = 'r';
        return 1;
    }
    if ((strcmp(f, "f") == 0 || strcmp(f, "b") == 0) && e->n == 0) {
        out->special = f[0];
        return 1;
    }
    if (strcmp(f, "f") == 0 && e->n == 1 && e->elems[0]->kind == E_VAR) {
        out->special = 'f';
        out->special_var = e->elems[0]->name;
        return 1;
    }
    if (strcmp(f, "v") == 0 && e->n == 1) {
        Expr *a = e->elems[0];
        if (a->kind == E_INT && !a->big && fits_small(a->ival)) {
            out->special = 'v';
            out->special_n = (long)a->ival;
            return 1;
        }
        if (a->kind == E_UNOP && a->op == OP_NEG && a->a->kind == E_INT && !a->a->big) {
            out->special = 'v';
            out->special_n = -(long)a->a->ival;
            return 1;
        }
    }
    return 0;
}

/* A line with a command among other expressions, cut before and after each
 * command (ShellCode.pieces says why); 0 when there is none. */
static int shell_pieces(const char *text, size_t tlen, Expr **es, int n, ShellCode *out) {
    ShellCode probe;
    int *cmd = ast_alloc(sizeof *cmd * (size_t)(n + 1)), any = 0;
    for (int i = 0; n > 1 && i < n; i++) any |= cmd[i] = special_command(&es[i], 1, &probe);
    if (!any) return 0;
    size_t *commas = ast_alloc(sizeof *commas * (size_t)n);
    if (shell_top_commas(text, tlen, commas, n) != n - 1) return 0;
    out->pieces = ast_alloc(sizeof *out->pieces * (size_t)n);
    out->npieces = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;                 /* a command alone, or the run up to one */
        if (!cmd[i]) while (j < n && !cmd[j]) j++;
        size_t from = i == 0 ? 0 : commas[i - 1] + 1;
        size_t to = j == n ? tlen : commas[j - 1];
        out->pieces[out->npieces++] = shell_piece_text(text, from, to, j == n ? "" : ".\n");
        i = j;
    }
    return 1;
}

static _Atomic unsigned shell_module_seq;

/* rd(Name, Def) typed as a whole line: the text between the call's
 * parentheses becomes `-record(Name, Def).`, read as a module's would be. */
static const char *rd_text(const char *text, size_t tlen) {
    const char *open = memchr(text, '(', tlen), *close = NULL;
    for (const char *q = text + tlen; q > text; q--)
        if (q[-1] == ')') { close = q - 1; break; }
    if (!open || !close || close < open) return NULL;
    size_t n = (size_t)(close - open) - 1;
    char *r = ast_alloc(n + 12);
    memcpy(r, "-record(", 8);
    memcpy(r + 8, open + 1, n);
    memcpy(r + 8 + n, ").\n", 4);
    return r;
}

ShellRecord *compiler_read_records(const char *file, const char *src, size_t len, int *n,
                                   void (*diag)(void *ctx, int line, int col, const char *msg),
                                   void *ctx) {
    diag_hook = diag;
    diag_hook_ctx = ctx;
    Module *m = parse_module(file, src, len);
    diag_hook = NULL;
    diag_hook_ctx = NULL;
    if (!m) return NULL;
    ShellRecord *rs = ast_alloc(sizeof *rs * (size_t)(m->nrecords + 1));
    for (int i = 0; i < m->nrecords; i++) {
        RecordDef *r = &m->records[i];
        rs[i].name = r->name;
        rs[i].text = r->text ? r->text : "";
        rs[i].nfields = r->nfields;
        rs[i].fields = ast_alloc(sizeof *rs[i].fields * (size_t)(r->nfields + 1));
        for (int j = 0; j < r->nfields; j++) rs[i].fields[j] = r->fields[j].name;
    }
    *n = m->nrecords;
    return rs;
}

ShellStatus compiler_compile_shell(const char *text, size_t tlen, const char *recs, size_t rlen,
                                   const char **names, int nbound,
                                   void (*diag)(void *ctx, int line, int col, const char *msg),
                                   void *ctx, ShellCode *out) {
    memset(out, 0, sizeof *out);
    const char **bound = GC_MALLOC(sizeof *bound * (size_t)(nbound + 1));
    for (int i = 0; i < nbound; i++) bound[i] = ast_intern(names[i], strlen(names[i]));
    diag_hook = diag;
    diag_hook_ctx = ctx;
    ShellStatus st;
    int nexprs = 0, incomplete = 0;
    Expr **es = parse_exprs("shell", text, tlen, &nexprs, &incomplete);
    if (incomplete) { st = SHELL_INCOMPLETE; goto done; }
    if (!es) { st = SHELL_SYNTAX_ERROR; goto done; }
    if (special_command(es, nexprs, out)) {
        st = SHELL_SPECIAL;
        if (out->special == 'r' && !(out->special_var = rd_text(text, tlen))) st = SHELL_SYNTAX_ERROR;
        goto done;
    }
    if (shell_pieces(text, tlen, es, nexprs, out)) { st = SHELL_PIECES; goto done; }
    for (int i = 0; i < nexprs; i++) rewrite_expr(es[i]);

    char name[48];
    snprintf(name, sizeof name, "$shell_eval_%u", atomic_fetch_add(&shell_module_seq, 1) + 1);
    Module *m = ast_alloc(sizeof *m);
    m->file = "shell";
    m->src = text;
    m->srclen = tlen;
    m->name = ast_intern(name, strlen(name));
    m->line = m->col = 1;
    if (rlen) {                 /* the shell's records, as -record forms */
        Module *rm = parse_module("shell", recs, rlen);
        if (!rm) { st = SHELL_LINT_ERROR; goto done; }
        m->records = rm->records;
        m->nrecords = rm->nrecords;
    }

    const char **after;
    int nafter;
    if (check_exprs(m, es, nexprs, bound, nbound, &after, &nafter) > 0) { st = SHELL_LINT_ERROR; goto done; }

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

    out->code = check_module(m) == 0 ? codegen_module(m) : NULL;
    st = out->code ? SHELL_OK : SHELL_LINT_ERROR;
done:
    diag_hook = NULL;
    diag_hook_ctx = NULL;
    return st;
}
