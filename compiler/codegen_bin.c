/* codegen_bin.c — binaries in the code generator: `<<...>>` expressions
 * become one bs_create instruction; `<<...>>` patterns become a match state
 * (bs_start_match) and one bs_get / bs_match_string per segment, then
 * bs_test_tail. The instructions are described in vm/opcodes.def.
 *
 * A segment's type specifiers become the spec operand (type, signedness,
 * endianness, unit); its size is an operand too, so a size bound earlier in
 * the same pattern (<<Len:8, Data:Len/binary>>) is simply that variable's
 * register. String segments of plain bytes become one literal binary.
 */
#include <string.h>

#include "codegen.h"

typedef struct Spec {
    int type, flags, unit;
    Term size;                  /* default size operand, if no size is given */
} Spec;

/* The segment's specifiers; 0 (after an error) if they are not valid. */
static int parse_spec(Fn *f, Field *fd, Spec *s)
{
    int unit = -1;
    s->type = BS_INTEGER; s->flags = 0;
    int bits_type = 0;
    for (int i = 0; i < fd->ntypes; i++) {
        const char *t = fd->types[i];
        if (!strcmp(t, "integer")) s->type = BS_INTEGER;
        else if (!strcmp(t, "float")) s->type = BS_FLOAT;
        else if (!strcmp(t, "binary") || !strcmp(t, "bytes")) { s->type = BS_BINARY; bits_type = 0; }
        else if (!strcmp(t, "bits") || !strcmp(t, "bitstring")) { s->type = BS_BINARY; bits_type = 1; }
        else if (!strcmp(t, "utf8")) s->type = BS_UTF8;
        else if (!strcmp(t, "utf16")) s->type = BS_UTF16;
        else if (!strcmp(t, "utf32")) s->type = BS_UTF32;
        else if (!strcmp(t, "signed")) s->flags |= BS_SIGNED;
        else if (!strcmp(t, "unsigned")) s->flags &= ~BS_SIGNED;
        else if (!strcmp(t, "big")) s->flags &= ~BS_LITTLE;
        else if (!strcmp(t, "little") || !strcmp(t, "native")) s->flags |= BS_LITTLE;  /* hosts are little-endian */
        else if (!strcmp(t, "%private")) s->flags |= BS_PRIVATE;   /* codegen_ctl.c: no source spells it */
        else if (!strncmp(t, "unit:", 5)) {
            unit = 0;
            for (const char *c = t + 5; *c; c++) {
                if (*c < '0' || *c > '9' || unit > 256) { unit = 0; break; }
                unit = unit * 10 + (*c - '0');
            }
            if (unit < 1 || unit > 256) {
                cg_error(f, fd->line, fd->col, "bad unit in binary segment: %s", t);
                return 0;
            }
        } else {
            cg_error(f, fd->line, fd->col, "unknown binary segment type: %s", t);
            return 0;
        }
    }
    switch (s->type) {
    case BS_INTEGER: s->unit = 1; s->size = make_small(8); break;
    case BS_FLOAT: s->unit = 1; s->size = make_small(64); break;
    case BS_BINARY: s->unit = bits_type ? 1 : 8; s->size = ATOM_TERM(all); break;
    default:
        s->unit = 0; s->size = ATOM_TERM(all);
        if (fd->size || unit > 0) {
            cg_error(f, fd->line, fd->col, "size and unit are not allowed for utf segments");
            return 0;
        }
    }
    if (unit > 0) s->unit = unit;
    return 1;
}

static Term spec_term(const Spec *s) { return make_small(s->type | s->flags | (s->unit << BS_UNIT_SHIFT)); }

/* A string segment that is just bytes: "abc" with no size or type but
 * integer (any endianness or signedness, unit 1). */
static int plain_string(Field *fd, const Spec *s)
{
    return fd->value->kind == E_STRING && !fd->size && s->type == BS_INTEGER && s->unit == 1;
}

int cg_bin_pred(Fn *f, Expr *e)
{
    for (int i = 0; i < e->nfields; i++) {
        if (cg_pred(f, e->fields[i].value, 0)) return 1;
        if (e->fields[i].size && cg_pred(f, e->fields[i].size, 0)) return 1;
    }
    return 0;
}

int cg_bin_guard_expr(Fn *f, Expr *e)
{
    for (int i = 0; i < e->nfields; i++) {
        if (!cg_is_guard_expr(f, e->fields[i].value)) return 0;
        if (e->fields[i].size && !cg_is_guard_expr(f, e->fields[i].size)) return 0;
    }
    return 1;
}

/* ---- construction ------------------------------------------------------ */

void cg_bin_construct(Fn *f, Expr *e, UWord dest)
{
    /* segments as (spec, value, size), each value and size a literal or an
     * expression to evaluate (in source order) */
    int n = 0, cap = e->nfields * 3 + 3;
    Term *lit = GC_MALLOC(sizeof(Term) * (size_t)cap);
    Expr **ex = GC_MALLOC(sizeof(Expr *) * (size_t)cap);
    for (int i = 0; i < e->nfields; i++) {
        Field *fd = &e->fields[i];
        Spec s;
        if (!parse_spec(f, fd, &s)) return;
        int plain = plain_string(fd, &s);
        int chars = plain ? 1 : fd->value->kind == E_STRING ? fd->value->len : 1;
        while (cap < n + 3 * chars) {
            Term *nl = GC_MALLOC(sizeof(Term) * (size_t)cap * 2);
            memcpy(nl, lit, sizeof(Term) * (size_t)n);
            Expr **ne = GC_MALLOC(sizeof(Expr *) * (size_t)cap * 2);
            memcpy(ne, ex, sizeof(Expr *) * (size_t)n);
            lit = nl; ex = ne; cap *= 2;
        }
        if (plain) {
            Spec b = { BS_BINARY, 0, 8, ATOM_TERM(all) };
            lit[n] = spec_term(&b); ex[n++] = NULL;
            lit[n] = lit_binary(fd->value->str, fd->value->len); ex[n++] = NULL;
            lit[n] = ATOM_TERM(all); ex[n++] = NULL;
            continue;
        }
        for (int c = 0; c < chars; c++) {
            lit[n] = spec_term(&s); ex[n++] = NULL;
            Term t;
            if (fd->value->kind == E_STRING) { lit[n] = make_small(fd->value->str[c]); ex[n++] = NULL; }
            else if (cg_const(f, fd->value, &t)) { lit[n] = t; ex[n++] = NULL; }
            else { lit[n] = NIL; ex[n++] = fd->value; }
            if (!fd->size) { lit[n] = s.size; ex[n++] = NULL; }
            else if (cg_const(f, fd->size, &t)) { lit[n] = t; ex[n++] = NULL; }
            else { lit[n] = NIL; ex[n++] = fd->size; }
        }
    }
    int k = 0;
    Expr **todo = GC_MALLOC(sizeof(Expr *) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) if (ex[i]) todo[k++] = ex[i];
    UWord *ops = GC_MALLOC(sizeof(UWord) * ((size_t)k + 1));
    cg_oplist(f, todo, k, ops);
    if (!f->bif_fail) cg_line(f, e->line);
    int live = cg_xlive(f);
    cg_op(f, OP_bs_create, 4, (UWord)f->bif_fail, (UWord)live, dest, (UWord)n);
    for (int i = 0, j = 0; i < n; i++) cg_emit(f, ex[i] ? ops[j++] : lit[i]);
    for (int j = 0; j < k; j++) cg_free(f, ops[j]);
}

/* ---- matching ---------------------------------------------------------- */

/* Where to put a segment's value: an unbound variable's home in a body, a
 * register kept for the clause in a head. */
static UWord seg_dest(Fn *f, Expr *v)
{
    if (!f->head && v->kind == E_VAR && !cg_wild(v) && !cg_is_bound(f, v->name)) {
        int var = cg_var(f, v->name);
        if (f->vloc[var] != NOOP) return f->vloc[var];
    }
    return REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
}

void cg_bin_match(Fn *f, Expr *p, UWord src, int fail)
{
    UWord ms;
    int own = p != f->state_pat;
    if (!own) {                              /* the function's state (codegen_bsm.c) */
        ms = src;
        if (f->state_reset) cg_op(f, OP_bs_set_position, 2, ms, REG_X(f->gf->arity));
        if (f->state_key) cg_match(f, f->state_key, REG_X(f->gf->arity + 1), fail);
    } else {
        int live = cg_xlive(f);              /* before ms, which holds nothing yet */
        ms = REG_X(cg_alloc_x(f, f->head ? R_ARG : R_TEMP));
        cg_op(f, OP_bs_start_match, 4, (UWord)fail, src, ms, (UWord)live);
    }
    int to_end = 0;
    for (int i = 0; i < p->nfields; i++) {
        Field *fd = &p->fields[i];
        Expr *v = fd->value;
        Spec s;
        if (!parse_spec(f, fd, &s)) break;
        if (plain_string(fd, &s)) {
            cg_op(f, OP_bs_match_string, 3, (UWord)fail, ms, lit_binary(v->str, v->len));
            continue;
        }
        UWord size = s.size;
        if (fd->size) size = cg_operand(f, fd->size, 0);
        else if (s.type == BS_BINARY) {
            if (i != p->nfields - 1) {
                cg_error(f, fd->line, fd->col, "a binary field without size is only allowed at the end of a binary pattern");
                break;
            }
            to_end = 1;
        }
        if (v->kind == E_STRING) {                    /* sized or typed characters */
            for (int c = 0; c < v->len; c++) {
                UWord t = REG_X(cg_alloc_x(f, R_TEMP));
                cg_op(f, OP_bs_get, 5, (UWord)fail, ms, spec_term(&s), size, t);
                cg_op(f, OP_is_eq_exact, 3, (UWord)fail, t, make_small(v->str[c]));
                cg_free(f, t);
            }
        } else if (cg_wild(v)) {
            UWord t = REG_X(cg_alloc_x(f, R_TEMP));
            cg_op(f, OP_bs_get, 5, (UWord)fail, ms, spec_term(&s), size, t);
            cg_free(f, t);
        } else if (to_end && f->head && v->kind == E_VAR && !cg_is_bound(f, v->name) &&
                   cg_bsm_donated(f, v->name)) {
            /* a tail handed on to a call: the state itself is the rest */
            if (s.unit > 1) cg_op(f, OP_bs_test_unit, 3, (UWord)fail, ms, (UWord)s.unit);
            if (!own) {
                cg_match(f, v, ms, fail);    /* the argument's register, as a plain variable pattern's */
            } else {
                UWord d = seg_dest(f, v);
                cg_move(f, ms, d);
                cg_match(f, v, d, fail);
                cg_free(f, d);
            }
        } else {
            UWord d = seg_dest(f, v);
            cg_op(f, OP_bs_get, 5, (UWord)fail, ms, spec_term(&s), size, d);
            cg_match(f, v, d, fail);
            cg_free(f, d);
        }
        cg_free(f, size);
    }
    if (!to_end) cg_op(f, OP_bs_test_tail, 2, (UWord)fail, ms);
    if (own) cg_free(f, ms);
}
