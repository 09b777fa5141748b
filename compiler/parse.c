/* parse.c — parse_module() and parse_exprs(): lexer, macros, then forms.
 *
 * The macro-expanded token array is cut at every terminating '.' into forms,
 * and each form goes to the bison parser (parser.y) on its own with a START_*
 * token saying what it is: a function, an attribute we use (-module,
 * -export, -import, -compile, -record) or, for the shell, a sequence of
 * expressions. Attributes we do not use (-spec, -type, -vsn, ...) are skipped
 * whole, so their type syntax never reaches the grammar. A syntax error ends
 * only its form; like erlc we go on with the next one and report all of them.
 */
#include <gc.h>
#include <string.h>
#include "lex.h"
#include "parser.h"
#include "frontend.h"
#include "compiler.h"            /* compiler_shell_split */

void tokvec_push(TokVec *tv, const Token *t)
{
    if (tv->n == tv->cap) {
        int ncap = tv->cap ? tv->cap * 2 : 16;     /* a macro's substitution is a few tokens */
        Token *nv = GC_MALLOC(sizeof *nv * (size_t)ncap);
        if (tv->n) memcpy(nv, tv->v, sizeof *nv * (size_t)tv->n);
        tv->v = nv;
        tv->cap = ncap;
    }
    tv->v[tv->n++] = *t;
}

Vec *vec_new(void)
{
    return ast_alloc(sizeof(Vec));
}

Vec *vec_push(Vec *v, void *item)
{
    if (v->n == v->cap) {
        int ncap = v->cap ? v->cap * 2 : 4;
        void **ni = GC_MALLOC(sizeof *ni * (size_t)ncap);
        if (v->n) memcpy(ni, v->items, sizeof *ni * (size_t)v->n);
        v->items = ni;
        v->cap = ncap;
    }
    v->items[v->n++] = item;
    return v;
}

/* Erlang's io_lib:write_atom: quoted unless a plain lower-case word that is
 * not a reserved word. */
static int parse_is_reserved(const char *s)
{
    static const char *const words[] = {
        "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr",
        "bxor", "case", "catch", "cond", "div", "end", "fun", "if", "let", "not",
        "of", "or", "orelse", "query", "receive", "rem", "try", "when", "xor", NULL
    };
    for (int i = 0; words[i]; i++) if (strcmp(words[i], s) == 0) return 1;
    return 0;
}

static const char *parse_write_atom(const char *s)
{
    int plain = s[0] >= 'a' && s[0] <= 'z' && !parse_is_reserved(s);
    for (const char *p = s; plain && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '@'))
            plain = 0;
    if (plain) return s;
    size_t n = strlen(s);
    char *buf = GC_MALLOC_ATOMIC(n * 4 + 3);
    size_t k = 0;
    buf[k++] = '\'';
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\'' || c == '\\') { buf[k++] = '\\'; buf[k++] = (char)c; }
        else if (c == '\n') { buf[k++] = '\\'; buf[k++] = 'n'; }
        else if (c < 32) k += (size_t)snprintf(buf + k, 5, "\\%o", c);
        else buf[k++] = (char)c;
    }
    buf[k++] = '\'';
    buf[k] = 0;
    return buf;
}

const char *token_describe(const Token *t)
{
    switch (t->kind) {
    case T_ATOM: return parse_write_atom(t->name);
    case T_VAR: case T_INTEGER: case T_FLOAT: case T_STRING: {
        /* as written, but keep the message to one line of sane length */
        size_t n = strlen(t->text);
        if (n > 60 || strchr(t->text, '\n')) {
            char *buf = GC_MALLOC_ATOMIC(70);
            size_t k = 0;
            for (size_t i = 0; i < n && k < 60; i++)
                buf[k++] = t->text[i] == '\n' ? ' ' : t->text[i];
            strcpy(buf + k, "...");
            return buf;
        }
        return t->text;
    }
    case T_DOT: return "'.'";
    case 0: return "";
    default: return parse_write_atom(t->text ? t->text : "?");
    }
}

/* -record(r, {a :: integer(), b = 1 :: t()}): drop the type annotations,
 * which run from '::' to the next ',' or '}' at the field level. */
static TokVec parse_strip_types(const Token *toks, int n)
{
    TokVec out = {0};
    int depth = 0, skipping = 0;
    for (int i = 0; i < n; i++) {
        int k = toks[i].kind;
        if (skipping) {
            if (depth == 2 && (k == ',' || k == '}')) skipping = 0;
            else {
                if (k == '(' || k == '[' || k == '{' || k == T_LTLT) depth++;
                else if (k == ')' || k == ']' || k == '}' || k == T_GTGT) depth--;
                if (depth < 2) skipping = 0;   /* malformed: let the parser see it */
                else continue;
            }
        }
        if (k == T_COLONCOLON && depth == 2) { skipping = 1; continue; }
        if (k == '(' || k == '[' || k == '{' || k == T_LTLT) depth++;
        else if (k == ')' || k == ']' || k == '}' || k == T_GTGT) depth--;
        tokvec_push(&out, &toks[i]);
    }
    return out;
}

static void parse_init(ParseState *ps, Source *s, const Token *toks, int n, int start)
{
    memset(ps, 0, sizeof *ps);
    ps->s = s;
    ps->toks = toks;
    ps->ntoks = n;
    ps->start = start;
    /* the end sits just after the last token, so "unexpected end of file"
     * points at the text rather than at an empty last line */
    const Token *last = n ? &toks[n - 1] : NULL;
    ps->eof.kind = 0;
    ps->eof.text = "";
    ps->eof.line = last ? last->eline : 1;
    ps->eof.col = last ? last->ecol : 1;
    ps->eof.eline = ps->eof.line; ps->eof.ecol = ps->eof.col;
}

static void parse_error(Source *s, int line, int col, const char *fmt, const char *arg)
{
    diag_error(s->file, s->src, s->len, line, col, fmt, arg);
    s->errors++;
}

/* f/1 in -export and -import lists */
static int parse_fa_list(Expr *l, NameArity **out, int *nout)
{
    int n = 0, cap = 8;
    NameArity *v = ast_alloc(sizeof *v * (size_t)cap);
    for (; l->kind == E_CONS; l = l->b) {
        Expr *fa = l->a;
        if (fa->kind != E_BINOP || fa->op != OP_FDIV || fa->a->kind != E_ATOM ||
            fa->b->kind != E_INT || fa->b->big || fa->b->ival < 0 || fa->b->ival > 255)
            return 0;
        if (n == cap) {
            NameArity *nv = ast_alloc(sizeof *nv * (size_t)cap * 2);
            memcpy(nv, v, sizeof *v * (size_t)n);
            v = nv; cap *= 2;
        }
        v[n].name = fa->a->name;
        v[n].arity = (int)fa->b->ival;
        v[n].line = fa->a->line;
        v[n].col = fa->a->col;
        n++;
    }
    if (l->kind != E_NIL) return 0;
    *out = v; *nout = n;
    return 1;
}

static void module_add_exports(Module *m, NameArity *v, int n)
{
    NameArity *nv = ast_alloc(sizeof *nv * (size_t)(m->nexports + n + 1));
    if (m->nexports) memcpy(nv, m->exports, sizeof *nv * (size_t)m->nexports);
    memcpy(nv + m->nexports, v, sizeof *nv * (size_t)n);
    m->exports = nv;
    m->nexports += n;
}

static void module_attribute(Module *m, Source *s, ParseState *ps)
{
    const char *name = ps->attr->name;
    Vec *args = ps->args;
    Expr **a = (Expr **)args->items;
    const Token *at = ps->attr;
    if (strcmp(name, "module") == 0) {
        if (args->n != 1 || a[0]->kind != E_ATOM) {
            parse_error(s, at->line, at->col, "%s", "bad module declaration");
            return;
        }
        if (m->name) {
            parse_error(s, at->line, at->col, "%s", "redefining module");
            return;
        }
        m->name = a[0]->name;
        m->line = at->line; m->col = at->col;
    } else if (strcmp(name, "export") == 0) {
        NameArity *v; int n;
        if (args->n != 1 || !parse_fa_list(a[0], &v, &n)) {
            parse_error(s, at->line, at->col, "%s", "bad export declaration");
            return;
        }
        module_add_exports(m, v, n);
    } else if (strcmp(name, "import") == 0) {
        NameArity *v; int n;
        if (args->n != 2 || a[0]->kind != E_ATOM || !parse_fa_list(a[1], &v, &n)) {
            parse_error(s, at->line, at->col, "%s", "bad import declaration");
            return;
        }
        Import *ni = ast_alloc(sizeof *ni * (size_t)(m->nimports + n + 1));
        if (m->nimports) memcpy(ni, m->imports, sizeof *ni * (size_t)m->nimports);
        for (int i = 0; i < n; i++) {
            ni[m->nimports + i].module = a[0]->name;
            ni[m->nimports + i].fn = v[i];
        }
        m->imports = ni;
        m->nimports += n;
    } else if (strcmp(name, "compile") == 0) {
        /* only export_all matters; other options are accepted and ignored */
        for (int i = 0; i < args->n; i++) {
            Expr *o = a[i];
            if (o->kind == E_ATOM && strcmp(o->name, "export_all") == 0) m->export_all = 1;
            for (; o->kind == E_CONS; o = o->b)
                if (o->a->kind == E_ATOM && strcmp(o->a->name, "export_all") == 0) m->export_all = 1;
        }
    }
}

static void module_record(Module *m, ParseState *ps)
{
    RecordDef *nr = ast_alloc(sizeof *nr * (size_t)(m->nrecords + 1));
    if (m->nrecords) memcpy(nr, m->records, sizeof *nr * (size_t)m->nrecords);
    RecordDef *r = &nr[m->nrecords];
    r->line = ps->attr->line;
    r->col = ps->attr->col;
    r->name = ps->recname->name;
    r->nfields = ps->recfields->n;
    r->fields = ast_alloc(sizeof *r->fields * (size_t)(r->nfields + 1));
    for (int i = 0; i < r->nfields; i++) r->fields[i] = *(Field *)ps->recfields->items[i];
    m->records = nr;
    m->nrecords++;
}

/* Clauses of one form make one function; a clause with another name or
 * arity is Erlang's "head mismatch". */
static void module_function(Module *m, Source *s, ParseState *ps, Vec **funcs)
{
    Vec *cl = ps->clauses;
    FunClause *first = cl->items[0];
    Function *f = ast_alloc(sizeof *f);
    f->line = first->name->line;
    f->col = first->name->col;
    f->name = first->name->name;
    f->arity = first->clause->npat;
    f->nclauses = cl->n;
    f->clauses = ast_alloc(sizeof *f->clauses * (size_t)cl->n);
    for (int i = 0; i < cl->n; i++) {
        FunClause *c = cl->items[i];
        if (c->name->name != f->name || c->clause->npat != f->arity) {
            parse_error(s, c->name->line, c->name->col, "%s", "head mismatch");
            return;
        }
        f->clauses[i] = c->clause;
    }
    vec_push(*funcs, f);
    (void)m;
}

/* A growing text in GC memory (the front end links without the VM's OutBuf). */
typedef struct Text { char *s; size_t n, cap; } Text;

static void text_put(Text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + k + 1) cap *= 2;
        char *ns = GC_MALLOC_ATOMIC(cap);
        if (t->n) memcpy(ns, t->s, t->n);
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, k);
    t->n += k;
    t->s[t->n] = 0;
}

/* The text of a -record form as erl's rl() prints it (erl_pp's layout for
 * the simple cases): `-record(name,{a, b = Default :: type()}).`, each
 * field written from its tokens with a space wherever the source had
 * blank (so `y = 2` stays `y = 2`, `#point{}` stays whole). The shell keeps
 * records as this text and compiles it again with each expression. */
static const char *record_form_text(const Token *f, int nf)
{
    Text b = {0};
    text_put(&b, "-record(");
    int i = 3, depth;            /* after '-' record '(' */
    for (; i < nf && f[i].kind != ','; i++) text_put(&b, f[i].text);
    text_put(&b, ",{");
    i += 2;                      /* ',' '{' */
    depth = 2;
    int start = 1;
    for (; i < nf; i++) {
        int k = f[i].kind;
        if (k == '(' || k == '[' || k == '{' || k == T_LTLT) depth++;
        else if (k == ')' || k == ']' || k == '}' || k == T_GTGT) {
            if (--depth < 2) break;
        }
        if (depth == 2 && k == ',') { text_put(&b, ", "); start = 1; continue; }
        if (!start && (f[i].line != f[i - 1].eline || f[i].col > f[i - 1].ecol)) text_put(&b, " ");
        text_put(&b, f[i].text ? f[i].text : token_describe(&f[i]));
        start = 0;
    }
    text_put(&b, "}).");
    return ast_intern(b.s, b.n);
}

static int parse_is_attr(const Token *t, const char *name)
{
    return t->kind == T_ATOM && strcmp(t->name, name) == 0;
}

/* Lexing and macro expansion, shared by both entry points. */
static int parse_tokens(Source *s, TokVec *out)
{
    TokVec raw = {0};
    if (!lex_source(s, &raw)) return 0;
    return macros_expand(s, &raw, out);
}

Module *parse_module(const char *file, const char *src, size_t len)
{
    Source s = { .file = file, .src = src, .len = len };
    TokVec tv = {0};
    if (!parse_tokens(&s, &tv)) return NULL;

    Module *m = ast_alloc(sizeof *m);
    m->file = file;
    m->src = src;
    m->srclen = len;
    Vec *funcs = vec_new();

    const Token *t = tv.v;
    int n = tv.n - 1;          /* without the end token */
    int i = 0;
    while (i < n) {
        int j = i;
        while (j < n && t[j].kind != T_DOT) j++;
        int end = j < n ? j + 1 : j;     /* include the dot */
        const Token *f = &t[i];
        int nf = end - i;
        ParseState ps;
        if (f[0].kind == '-' && nf > 1 && f[1].kind == T_ATOM) {
            const Token *name = &f[1];
            if (parse_is_attr(name, "record")) {
                TokVec st = parse_strip_types(f, nf);
                parse_init(&ps, &s, st.v, st.n, T_START_RECORD);
                if (parse_form(&ps) == 0) {
                    module_record(m, &ps);
                    m->records[m->nrecords - 1].text = record_form_text(f, nf);
                }
            } else if (parse_is_attr(name, "module") || parse_is_attr(name, "export") ||
                       parse_is_attr(name, "import") || parse_is_attr(name, "compile")) {
                parse_init(&ps, &s, f, nf, T_START_ATTR);
                if (parse_form(&ps) == 0) module_attribute(m, &s, &ps);
            } else if (j >= n) {
                /* an unknown attribute without its final dot */
                parse_error(&s, t[n].line, t[n].col, "%s", "unexpected end of file");
            }
            /* other attributes (-vsn, -spec, -type, ...) are skipped */
        } else if (f[0].kind == '-') {
            parse_init(&ps, &s, f, nf, T_START_ATTR);
            parse_form(&ps);
        } else {
            parse_init(&ps, &s, f, nf, T_START_FUNCTION);
            if (parse_form(&ps) == 0) module_function(m, &s, &ps, &funcs);
        }
        i = end;
    }
    if (s.errors) return NULL;
    m->functions = (Function **)funcs->items;
    m->nfunctions = funcs->n;
    return m;
}

static void diag_discard(void *ctx, int line, int col, const char *msg)
{
    (void)ctx; (void)line; (void)col; (void)msg;
}

size_t compiler_shell_split(const char *src, size_t len)
{
    void (*hook)(void *, int, int, const char *) = diag_hook;
    void *hook_ctx = diag_hook_ctx;
    diag_hook = diag_discard;               /* a lexical error is parse_exprs' to report */
    Source s = { .file = "", .src = src, .len = len, .quiet_eof = 1 };
    TokVec tv = {0};
    int ok = lex_source(&s, &tv);
    diag_hook = hook;
    diag_hook_ctx = hook_ctx;
    if (!ok || s.incomplete) return 0;
    int i = 0;
    while (i < tv.n && tv.v[i].kind != T_DOT && tv.v[i].kind != 0) i++;
    if (i + 1 >= tv.n || tv.v[i].kind != T_DOT || tv.v[i + 1].kind == 0) return 0;
    /* the dot's end (line, column in characters) as a byte offset */
    int line = 1, col = 1;
    size_t off = 0;
    while (off < len && (line < tv.v[i].eline || col < tv.v[i].ecol)) {
        unsigned char c = (unsigned char)src[off++];
        if (c == '\n') { line++; col = 1; }
        else if ((c & 0xC0) != 0x80) col++;
    }
    while (off < len && ((unsigned char)src[off] & 0xC0) == 0x80) off++;
    return off;
}

Expr **parse_exprs(const char *file, const char *src, size_t len, int *nexprs,
                   int *incomplete)
{
    Source s = { .file = file, .src = src, .len = len, .quiet_eof = incomplete != NULL };
    TokVec tv = {0};
    if (incomplete) *incomplete = 0;
    if (nexprs) *nexprs = 0;
    int ok = parse_tokens(&s, &tv);
    if (s.incomplete) { *incomplete = 1; return NULL; }
    if (!ok) return NULL;
    if (tv.n <= 1) {              /* nothing but blanks and comments */
        if (incomplete) { *incomplete = 1; return NULL; }
        diag_error(file, src, len, tv.v[0].line, tv.v[0].col, "unexpected end of file");
        return NULL;
    }
    ParseState ps;
    parse_init(&ps, &s, tv.v, tv.n - 1, T_START_EXPRS);
    if (parse_form(&ps) != 0) {
        if (s.incomplete && incomplete) *incomplete = 1;
        return NULL;
    }
    if (nexprs) *nexprs = ps.args->n;
    return (Expr **)ps.args->items;
}
