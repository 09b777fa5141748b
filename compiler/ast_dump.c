/* ast_dump.c — prints a module's tree as S-expressions (`mini -P`, tests).
 *
 * The format is stable and meant for reading and for comparing in tests:
 * operators as (op A B), calls as (call f A) / (call m:f A) / (apply F A),
 * lists and tuples in Erlang notation, one function per paragraph.
 * Lists are printed with a loop, since long list literals nest deeply.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "frontend.h"

void ast_dump_expr(FILE *out, const Expr *e);

static const char *dump_op(Op op)
{
    static const char *const names[] = {
        [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_FDIV] = "/",
        [OP_IDIV] = "div", [OP_REM] = "rem", [OP_BAND] = "band", [OP_BOR] = "bor",
        [OP_BXOR] = "bxor", [OP_BSL] = "bsl", [OP_BSR] = "bsr", [OP_BNOT] = "bnot",
        [OP_NOT] = "not", [OP_AND] = "and", [OP_OR] = "or", [OP_XOR] = "xor",
        [OP_EQ] = "==", [OP_NE] = "/=", [OP_EXACT_EQ] = "=:=", [OP_EXACT_NE] = "=/=",
        [OP_LT] = "<", [OP_GT] = ">", [OP_LE] = "=<", [OP_GE] = ">=",
        [OP_APPEND] = "++", [OP_SUBTRACT] = "--", [OP_SEND] = "!",
        [OP_NEG] = "-", [OP_PLUS] = "+",
    };
    return (unsigned)op < sizeof names / sizeof names[0] && names[op] ? names[op] : "?";
}

static void dump_atom(FILE *out, const char *s)
{
    int plain = s[0] >= 'a' && s[0] <= 'z';
    for (const char *p = s; plain && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '@'))
            plain = 0;
    if (plain) { fputs(s, out); return; }
    fputc('\'', out);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\'' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 32 || c == 127) fprintf(out, "\\x{%X}", c);
        else fputc(c, out);
    }
    fputc('\'', out);
}

static void dump_string(FILE *out, const int *s, int n)
{
    fputc('"', out);
    for (int i = 0; i < n; i++) {
        int c = s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c < 32 || c >= 127) fprintf(out, "\\x{%X}", (unsigned)c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static void dump_float(FILE *out, double d)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.15g", d);
    if (strtod(buf, NULL) != d) snprintf(buf, sizeof buf, "%.17g", d);
    if (!strpbrk(buf, ".eni")) strcat(buf, ".0");
    fputs(buf, out);
}

static void dump_exprs(FILE *out, Expr *const *es, int n)
{
    for (int i = 0; i < n; i++) {
        fputc(' ', out);
        ast_dump_expr(out, es[i]);
    }
}

static void dump_clause(FILE *out, const Clause *c)
{
    fputs("(clause (", out);
    for (int i = 0; i < c->npat; i++) {
        if (i) fputc(' ', out);
        if (c->patterns[i]) ast_dump_expr(out, c->patterns[i]);
        else fputs("-", out);
    }
    fputc(')', out);
    if (c->guard) {
        fputs(" (when", out);
        for (int a = 0; a < c->guard->nalts; a++) {
            fputs(" (", out);
            for (int t = 0; t < c->guard->alts[a].ntests; t++) {
                if (t) fputc(' ', out);
                ast_dump_expr(out, c->guard->alts[a].tests[t]);
            }
            fputc(')', out);
        }
        fputc(')', out);
    }
    dump_exprs(out, c->body, c->nbody);
    fputc(')', out);
}

static void dump_clauses(FILE *out, Clause *const *cs, int n)
{
    for (int i = 0; i < n; i++) {
        fputc(' ', out);
        dump_clause(out, cs[i]);
    }
}

static void dump_fields(FILE *out, const Expr *e)
{
    for (int i = 0; i < e->nfields; i++) {
        const Field *f = &e->fields[i];
        fputs(" (", out);
        if (e->kind == E_BIN) {
            ast_dump_expr(out, f->value);
            if (f->size) { fputc(':', out); ast_dump_expr(out, f->size); }
            for (int t = 0; t < f->ntypes; t++) {
                fputc(t ? '-' : '/', out);
                fputs(f->types[t], out);
            }
        } else if (e->kind == E_MAP || e->kind == E_MAP_UPDATE) {
            fputs(f->exact ? ":= " : "=> ", out);
            ast_dump_expr(out, f->key);
            fputc(' ', out);
            ast_dump_expr(out, f->value);
        } else {
            if (f->name[0] == '_' && !f->name[1]) fputc('_', out);
            else dump_atom(out, f->name);
            fputc(' ', out);
            ast_dump_expr(out, f->value);
        }
        fputc(')', out);
    }
}

void ast_dump_expr(FILE *out, const Expr *e)
{
    if (!e) { fputs("-", out); return; }
    switch (e->kind) {
    case E_VAR: fputs(e->name, out); break;
    case E_ATOM: dump_atom(out, e->name); break;
    case E_INT:
        if (e->big) {
            if (e->big_base != 10) fprintf(out, "%d#", e->big_base);
            fputs(e->big, out);
        } else
            fprintf(out, "%lld", (long long)e->ival);
        break;
    case E_FLOAT: dump_float(out, e->fval); break;
    case E_STRING: dump_string(out, e->str, e->len); break;
    case E_NIL: fputs("[]", out); break;
    case E_CONS: {
        fputc('[', out);
        const Expr *l = e;
        for (int first = 1; l->kind == E_CONS; l = l->b, first = 0) {
            if (!first) fputs(", ", out);
            ast_dump_expr(out, l->a);
        }
        if (l->kind != E_NIL) { fputs(" | ", out); ast_dump_expr(out, l); }
        fputc(']', out);
        break;
    }
    case E_TUPLE:
        fputc('{', out);
        for (int i = 0; i < e->n; i++) {
            if (i) fputs(", ", out);
            ast_dump_expr(out, e->elems[i]);
        }
        fputc('}', out);
        break;
    case E_MATCH:
        fputs("(= ", out); ast_dump_expr(out, e->a); fputc(' ', out); ast_dump_expr(out, e->b); fputc(')', out);
        break;
    case E_BINOP:
        fprintf(out, "(%s ", dump_op(e->op));
        ast_dump_expr(out, e->a); fputc(' ', out); ast_dump_expr(out, e->b); fputc(')', out);
        break;
    case E_UNOP:
        fprintf(out, "(%s ", dump_op(e->op)); ast_dump_expr(out, e->a); fputc(')', out);
        break;
    case E_ANDALSO: case E_ORELSE:
        fputs(e->kind == E_ANDALSO ? "(andalso " : "(orelse ", out);
        ast_dump_expr(out, e->a); fputc(' ', out); ast_dump_expr(out, e->b); fputc(')', out);
        break;
    case E_CALL:
        if (e->arity < 0) {   /* a bare M:F, only in erroneous code */
            fputs("(: ", out); ast_dump_expr(out, e->mod); fputc(' ', out); ast_dump_expr(out, e->fun);
            fputc(')', out);
            break;
        }
        if (e->mod) {
            fputs("(call ", out); ast_dump_expr(out, e->mod); fputc(':', out); ast_dump_expr(out, e->fun);
        } else if (e->fun) {
            fputs("(apply ", out); ast_dump_expr(out, e->fun);
        } else {
            fputs("(call ", out); dump_atom(out, e->name);
        }
        dump_exprs(out, e->elems, e->n);
        fputc(')', out);
        break;
    case E_FUNREF:
        fputs("(fun ", out);
        if (e->mod) { ast_dump_expr(out, e->mod); fputc(':', out); }
        dump_atom(out, e->name);
        fprintf(out, "/%d)", e->arity);
        break;
    case E_FUN:
        fputs("(fun", out);
        if (e->name) fprintf(out, " %s", e->name);
        dump_clauses(out, e->clauses, e->nclauses);
        fputc(')', out);
        break;
    case E_BLOCK:
        fputs("(begin", out); dump_exprs(out, e->body, e->nbody); fputc(')', out);
        break;
    case E_CASE:
        fputs("(case ", out); ast_dump_expr(out, e->a);
        dump_clauses(out, e->clauses, e->nclauses); fputc(')', out);
        break;
    case E_IF:
        fputs("(if", out); dump_clauses(out, e->clauses, e->nclauses); fputc(')', out);
        break;
    case E_RECEIVE:
        fputs("(receive", out); dump_clauses(out, e->clauses, e->nclauses);
        if (e->timeout) {
            fputs(" (after ", out); ast_dump_expr(out, e->timeout);
            dump_exprs(out, e->body, e->nbody); fputc(')', out);
        }
        fputc(')', out);
        break;
    case E_TRY:
        fputs("(try (", out);
        for (int i = 0; i < e->nbody; i++) { if (i) fputc(' ', out); ast_dump_expr(out, e->body[i]); }
        fputc(')', out);
        if (e->nclauses) { fputs(" (of", out); dump_clauses(out, e->clauses, e->nclauses); fputc(')', out); }
        if (e->ncatches) { fputs(" (catch", out); dump_clauses(out, e->catches, e->ncatches); fputc(')', out); }
        if (e->nafter) { fputs(" (after", out); dump_exprs(out, e->after, e->nafter); fputc(')', out); }
        fputc(')', out);
        break;
    case E_CATCH:
        fputs("(catch ", out); ast_dump_expr(out, e->a); fputc(')', out);
        break;
    case E_LC: case E_BIN_LC:
        fputs(e->kind == E_LC ? "(lc " : "(bin_lc ", out);
        ast_dump_expr(out, e->a); dump_exprs(out, e->elems, e->n); fputc(')', out);
        break;
    case E_GENERATOR:
        fputs("(<- ", out); ast_dump_expr(out, e->a); fputc(' ', out); ast_dump_expr(out, e->b); fputc(')', out);
        break;
    case E_RECORD: case E_RECORD_UPDATE:
        fputs("(record ", out);
        if (e->a) { ast_dump_expr(out, e->a); fputc(' ', out); }
        dump_atom(out, e->name); dump_fields(out, e); fputc(')', out);
        break;
    case E_RECORD_FIELD:
        fputs(e->a ? "(record_field " : "(record_index ", out);
        if (e->a) { ast_dump_expr(out, e->a); fputc(' ', out); }
        dump_atom(out, e->name); fputc(' ', out);
        dump_atom(out, e->nfields ? e->fields[0].name : "?"); fputc(')', out);
        break;
    case E_MAP: case E_MAP_UPDATE:
        fputs("(map", out);
        if (e->a) { fputc(' ', out); ast_dump_expr(out, e->a); }
        dump_fields(out, e); fputc(')', out);
        break;
    case E_BIN:
        fputs("(bin", out); dump_fields(out, e); fputc(')', out);
        break;
    }
}

void ast_dump(FILE *out, const Module *m)
{
    fputs("(module ", out);
    if (m->name) dump_atom(out, m->name); else fputs("-", out);
    fputs(")\n", out);
    if (m->nexports) {
        fputs("(export", out);
        for (int i = 0; i < m->nexports; i++) {
            fputc(' ', out); dump_atom(out, m->exports[i].name); fprintf(out, "/%d", m->exports[i].arity);
        }
        fputs(")\n", out);
    }
    if (m->export_all) fputs("(export_all)\n", out);
    for (int i = 0; i < m->nimports; i++) {
        fputs("(import ", out); dump_atom(out, m->imports[i].module); fputc(' ', out);
        dump_atom(out, m->imports[i].fn.name); fprintf(out, "/%d)\n", m->imports[i].fn.arity);
    }
    for (int i = 0; i < m->nrecords; i++) {
        const RecordDef *r = &m->records[i];
        fputs("(record ", out); dump_atom(out, r->name);
        for (int f = 0; f < r->nfields; f++) {
            fputc(' ', out);
            if (r->fields[f].value) {
                fputc('(', out); dump_atom(out, r->fields[f].name); fputc(' ', out);
                ast_dump_expr(out, r->fields[f].value); fputc(')', out);
            } else
                dump_atom(out, r->fields[f].name);
        }
        fputs(")\n", out);
    }
    for (int i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        fputs("(function ", out); dump_atom(out, f->name); fprintf(out, "/%d", f->arity);
        for (int c = 0; c < f->nclauses; c++) {
            fputs("\n  ", out);
            dump_clause(out, f->clauses[c]);
        }
        fputs(")\n", out);
    }
}
