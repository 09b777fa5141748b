/* codegen.c — a checked AST to bytecode (vm/bytecode.h).
 *
 * This file holds the module and function driver, the emitter, the register
 * allocator and variable tables, calls and the plain expressions. Patterns and
 * guards are in codegen_match.c; case/if/receive/try/catch, funs and list
 * comprehensions in codegen_ctl.c. The register discipline is described at the
 * top of codegen.h.
 *
 * Every module function, lambda and comprehension helper is a GenFun in one
 * queue, generated one after another (never nested in C). Each function clause
 * is first compiled as a frameless leaf when the body seems to allow it; if
 * the generator meets something needing a frame, the clause's code is thrown
 * away and compiled again with a frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "atom.h"
#include "records.h"
#include "types.h"

/* ---- small utilities ---------------------------------------------------- */

/* The atom a source name denotes. Source text is UTF-8 and the front end
 * keeps names so; the atom table's text is UTF-8 too (atom.h), so 'ÿÿ' is
 * the two-character atom list_to_atom([255,255]) makes, as in OTP. A byte
 * that does not start a valid UTF-8 sequence is taken as a Latin-1
 * character (and encoded).
 * With the atom table full (+t), atom_intern fails: the module cannot be
 * made. cg_atom then stands `undefined` in, so code generation runs to its
 * end, and codegen_module reports the limit once instead of one confusing
 * error per atom. The flag is per thread: modules compile on many. */
static __thread int cg_atoms_full;

/* The length of the valid UTF-8 sequence at s[i] (of n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t i, size_t n)
{
    unsigned c = s[i];
    size_t k = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    if (!k || i + k > n) return 0;
    UWord v = k == 1 ? c : c & (k == 2 ? 0x1F : k == 3 ? 0x0F : 0x07);
    for (size_t j = 1; j < k; j++) {
        if ((s[i + j] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i + j] & 0x3F);
    }
    static const UWord min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (v < min_of[k] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    return k;
}

Term cg_atom(const char *name) {
    size_t n = strlen(name), k = 0;
    char small[256], *buf = 2 * n < sizeof small ? small : GC_MALLOC_ATOMIC(2 * n + 1);
    const unsigned char *s = (const unsigned char *)name;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_seq(s, i, n);
        if (len) { memcpy(buf + k, s + i, len); k += len; i += len; continue; }
        buf[k++] = (char)(0xC0 | (s[i] >> 6));
        buf[k++] = (char)(0x80 | (s[i] & 0x3F));
        i++;
    }
    Term a = atom_intern(buf, k);
    if (a != THE_NON_VALUE) return a;
    cg_atoms_full = 1;
    return AM_undefined;
}

void cg_error(Fn *f, int line, int col, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    Module *m = f->g->m;
    diag_error(m->file, m->src, m->srclen, line, col, "%s", buf);
    f->g->errors++;
}

/* ---- emitting ------------------------------------------------------------ */

void cg_emit(Fn *f, UWord w) {
    Gen *g = f->g;
    GROW(g->code, g->ncode, g->capcode);
    g->code[g->ncode++] = w;
}

void cg_op(Fn *f, int op, int n, ...) {
    va_list ap;
    cg_emit(f, (UWord)op);
    va_start(ap, n);
    for (int i = 0; i < n; i++) cg_emit(f, va_arg(ap, UWord));
    va_end(ap);
}

int cg_new_label(Fn *f) { return ++f->g->nlabels; }

void cg_label(Fn *f, int l) { cg_op(f, OP_label, 1, (UWord)l); }

void cg_line(Fn *f, int line) {
    if (line <= 0 || line == f->g->cur_line) return;
    f->g->cur_line = line;
    cg_op(f, OP_line, 1, (UWord)line);
}

/* A frame-size operand, patched when the clause is done. */
void cg_fs(Fn *f) {
    GROW(f->patch, f->npatch, f->cappatch);
    f->patch[f->npatch++] = f->g->ncode;
    cg_emit(f, 0);
}

int cg_stub(Fn *f, int kind, UWord op, Term tag, int line) {
    GROW(f->stubs, f->nstubs, f->capstubs);
    Stub *s = &f->stubs[f->nstubs++];
    s->label = cg_new_label(f);
    s->kind = kind; s->op = op; s->tag = tag; s->line = line;
    return s->label;
}

void cg_move(Fn *f, UWord src, UWord dst) {
    Gen *g = f->g;
    if (src == dst) return;
    /* `move yB, xA` right after `move xA, yB` (nothing between, not even a
     * label): xA still holds the value. Saving an argument in a frame and
     * passing it on at once made this pair hundreds of times in the
     * library. */
    if (operand_is_y(src) && operand_is_x(dst) && g->last_move + 3 == g->ncode &&
        g->code[g->last_move] == OP_move && g->code[g->last_move + 1] == dst &&
        g->code[g->last_move + 2] == src)
        return;
    g->last_move = g->ncode;
    cg_op(f, OP_move, 2, src, dst);
}

void cg_return(Fn *f) {
    if (f->frame) { cg_emit(f, OP_deallocate); cg_fs(f); }
    cg_op(f, OP_return, 0);
}

/* ---- registers ----------------------------------------------------------- */

static int xneeded(Fn *f, int r) {
    int s = f->xs[r];
    return s == R_TEMP || s == R_ARG || (s == R_VAR && f->def[f->xvar[r]]);
}

/* The live count for an allocating instruction; fills holes below it. */
int cg_xlive(Fn *f) {
    int top = -1;
    for (int r = 0; r <= f->xhi; r++)
        if (xneeded(f, r)) top = r;
    for (int r = 0; r < top; r++)
        if (!xneeded(f, r)) {
            cg_move(f, NIL, REG_X(r));
            if (f->xs[r] == R_VAR) f->def[f->xvar[r]] = 1;   /* holds [] now */
        }
    return top + 1;
}

int cg_pick_x(Fn *f) {
    for (int r = 0; r < XMAX; r++)
        if (f->xs[r] == R_FREE) return r;
    if (!f->frame) f->retry = 1;
    else if (!f->g->errors) cg_error(f, f->gf->line, 1, "function too complex (out of registers)");
    return XMAX;
}

int cg_alloc_x(Fn *f, int state) {
    int r = cg_pick_x(f);
    f->xs[r] = (unsigned char)state;
    if (r > f->xhi) f->xhi = r;
    return r;
}

static void ygrow(Fn *f, int r) {
    if (r < f->capys) return;
    int nc = f->capys ? f->capys * 2 : 16;
    while (nc <= r) nc *= 2;
    unsigned char *n = GC_MALLOC_ATOMIC((size_t)nc);
    memset(n, 0, (size_t)nc);
    if (f->capys) memcpy(n, f->ys, (size_t)f->capys);
    f->ys = n; f->capys = nc;
}

/* From the lowest slot that may be free: a function whose variables all
 * live in y slots (thousands of them) would otherwise scan them all for
 * every new one. */
int cg_pick_y(Fn *f) {
    for (int r = f->yfree;; r++) {
        ygrow(f, r);
        if (f->ys[r] == R_FREE) { f->yfree = r; return r; }
    }
}

int cg_alloc_y(Fn *f, int state) {
    int r = cg_pick_y(f);
    f->ys[r] = (unsigned char)state;
    if (r + 1 > f->ymax) f->ymax = r + 1;
    return r;
}

void cg_free(Fn *f, UWord op) {
    if (op == NOOP || !operand_is_reg(op)) return;
    if (operand_is_x(op)) { if (f->xs[operand_x_index(op)] == R_TEMP) f->xs[operand_x_index(op)] = R_FREE; }
    else if (operand_y_index(op) < f->capys && f->ys[operand_y_index(op)] == R_TEMP) {
        f->ys[operand_y_index(op)] = R_FREE;
        if (operand_y_index(op) < f->yfree) f->yfree = operand_y_index(op);
    }
}

void cg_mark(Fn *f, UWord op) {
    if (op == NOOP || !operand_is_reg(op)) return;
    if (operand_is_x(op)) {
        int r = operand_x_index(op);
        if (f->xs[r] == R_FREE) f->xs[r] = R_TEMP;
        if (r > f->xhi) f->xhi = r;
    } else {
        int r = operand_y_index(op);
        ygrow(f, r);
        if (f->ys[r] == R_FREE) f->ys[r] = R_TEMP;
        if (r + 1 > f->ymax) f->ymax = r + 1;
    }
}

/* ---- variables ----------------------------------------------------------- */

/* Variables are found by hash: a function with thousands of them (a long
 * chain of matches) would otherwise cost their number squared. */
static unsigned var_hash(const char *name, int n) {
    uintptr_t h = (uintptr_t)name;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 32) & (unsigned)(n - 1);
}

static void var_reindex(Fn *f) {
    for (int i = 0; i < f->nvhead; i++) f->vhead[i] = -1;
    for (int i = 0; i < f->nv; i++) {
        unsigned h = var_hash(f->vn[i], f->nvhead);
        f->vnext[i] = f->vhead[h];
        f->vhead[h] = i;
    }
}

int cg_var_find(Fn *f, const char *name) {
    if (!f->nvhead) return -1;
    for (int i = f->vhead[var_hash(name, f->nvhead)]; i >= 0; i = f->vnext[i])
        if (f->vn[i] == name) return i;
    return -1;
}

int cg_var(Fn *f, const char *name) {
    int v = cg_var_find(f, name);
    if (v >= 0) return v;
    if (f->nv >= f->capv) {
        int nc = f->capv ? f->capv * 2 : 16;
        const char **vn = GC_MALLOC(sizeof *vn * (size_t)nc);
        UWord *vl = GC_MALLOC_ATOMIC(sizeof *vl * (size_t)nc);
        char *b = GC_MALLOC_ATOMIC((size_t)nc), *d = GC_MALLOC_ATOMIC((size_t)nc),
             *ib = GC_MALLOC_ATOMIC((size_t)nc), *fc = GC_MALLOC_ATOMIC((size_t)nc);
        short *fr = GC_MALLOC_ATOMIC(sizeof *fr * (size_t)nc);
        int *fg = GC_MALLOC_ATOMIC(sizeof *fg * (size_t)nc);
        if (f->nv) {
            memcpy(vn, f->vn, sizeof *vn * (size_t)f->nv);
            memcpy(vl, f->vloc, sizeof *vl * (size_t)f->nv);
            memcpy(b, f->bound, (size_t)f->nv);
            memcpy(d, f->def, (size_t)f->nv);
            memcpy(ib, f->inbody, (size_t)f->nv);
            memcpy(fc, f->fcap, (size_t)f->nv);
            memcpy(fr, f->vfr, sizeof *fr * (size_t)f->nv);
            memcpy(fg, f->vfgen, sizeof *fg * (size_t)f->nv);
        }
        f->vn = vn; f->vloc = vl; f->bound = b; f->def = d; f->inbody = ib; f->capv = nc;
        f->fcap = fc; f->vfr = fr; f->vfgen = fg;
        f->vnext = GC_MALLOC_ATOMIC(sizeof *f->vnext * (size_t)nc);
        f->nvhead = nc;
        f->vhead = GC_MALLOC_ATOMIC(sizeof *f->vhead * (size_t)nc);
        var_reindex(f);
    }
    v = f->nv++;
    unsigned h = var_hash(name, f->nvhead);
    f->vnext[v] = f->vhead[h];
    f->vhead[h] = v;
    f->vn[v] = name; f->vloc[v] = NOOP; f->bound[v] = 0; f->def[v] = 0; f->inbody[v] = 0;
    f->fcap[v] = 0; f->vfr[v] = -1; f->vfgen[v] = 0;
    return v;
}

int cg_is_self(Fn *f, Expr *e) {
    if (e->kind != E_VAR || !f->gf->self || e->name != f->gf->self) return 0;
    int v = cg_var_find(f, e->name);
    return v < 0 || !f->bound[v];
}

int cg_is_bound(Fn *f, const char *name) {
    int v = cg_var_find(f, name);
    if (v >= 0 && f->bound[v]) return 1;
    return f->gf->self && name == f->gf->self;
}

/* Binds variable v to the value in src. */
void cg_bind(Fn *f, int v, UWord src) {
    if (f->head) {
        f->vloc[v] = src;               /* an x register kept for the clause */
    } else {
        if (f->vloc[v] == NOOP) {       /* not seen by the body prepass */
            if (f->frame) f->vloc[v] = REG_Y(cg_alloc_y(f, R_VAR));
            else {
                int r = cg_alloc_x(f, R_VAR);
                f->xvar[r] = (short)v;
                f->vloc[v] = REG_X(r);
            }
        }
        cg_move(f, src, f->vloc[v]);
    }
    f->bound[v] = 1; f->def[v] = 1;
}

Expr *cg_mkvar(const char *name, int line) {
    Expr *e = ast_expr(E_VAR, line, 1);
    e->name = name;
    return e;
}

int cg_wild(Expr *p) { return p->kind == E_VAR && p->name[0] == '_' && p->name[1] == 0; }

/* ---- snapshots of the variable and register state, for branches ---------- */

Snap *cg_snap(Fn *f) {
    Snap *s = GC_MALLOC(sizeof *s);
    s->nv = f->nv;
    s->bound = GC_MALLOC_ATOMIC((size_t)f->nv + 1);
    s->def = GC_MALLOC_ATOMIC((size_t)f->nv + 1);
    if (f->nv) {                    /* no variables yet: the arrays may be NULL */
        memcpy(s->bound, f->bound, (size_t)f->nv);
        memcpy(s->def, f->def, (size_t)f->nv);
    }
    memcpy(s->xs, f->xs, sizeof s->xs);
    s->capys = f->capys;
    s->ys = GC_MALLOC_ATOMIC((size_t)f->capys + 1);
    if (f->capys) memcpy(s->ys, f->ys, (size_t)f->capys);
    return s;
}

static void restore_regs(Fn *f, Snap *s) {
    for (int r = 0; r < MAX_REG; r++)
        if (f->xs[r] != R_VAR) f->xs[r] = s->xs[r] == R_VAR ? R_FREE : s->xs[r];
    for (int r = 0; r < f->capys; r++)
        if (f->ys[r] != R_VAR) f->ys[r] = (r < s->capys && s->ys[r] != R_VAR) ? s->ys[r] : R_FREE;
    f->yfree = 0;
}

void cg_restore(Fn *f, Snap *s) {
    for (int v = 0; v < f->nv; v++) {
        f->bound[v] = v < s->nv ? s->bound[v] : 0;
        f->def[v] = v < s->nv ? s->def[v] : 0;
    }
    restore_regs(f, s);
}

void cg_merge_add(Fn *f, Merge *m) {
    if (!m->n) {
        m->nv = f->nv;
        m->bound = GC_MALLOC_ATOMIC((size_t)f->nv + 1);
        m->def = GC_MALLOC_ATOMIC((size_t)f->nv + 1);
        if (f->nv) {
            memcpy(m->bound, f->bound, (size_t)f->nv);
            memcpy(m->def, f->def, (size_t)f->nv);
        }
    } else {
        for (int v = 0; v < m->nv; v++) {
            int b = v < f->nv ? f->bound[v] : 0, d = v < f->nv ? f->def[v] : 0;
            m->bound[v] |= (char)b;
            m->def[v] &= (char)d;
        }
    }
    m->n++;
}

void cg_merge_end(Fn *f, Merge *m, Snap *pre) {
    restore_regs(f, pre);
    if (!m->n) { cg_restore(f, pre); return; }
    for (int v = 0; v < f->nv; v++) {
        f->bound[v] = v < m->nv ? m->bound[v] : 0;
        f->def[v] = v < m->nv ? m->def[v] : 0;
    }
}

/* ---- constants ----------------------------------------------------------- */

static size_t memo_hash(Expr *e, size_t cap) { return ((UWord)e >> 4) * 0x9E3779B97F4A7C15ULL % cap; }

static int memo_get(Gen *g, Expr *e, Term *t) {
    if (!g->capmemo) return 0;
    for (size_t i = memo_hash(e, g->capmemo);; i = (i + 1) % g->capmemo) {
        if (!g->memo[i].e) return 0;
        if (g->memo[i].e == e) { *t = g->memo[i].t; return 1; }
    }
}

static void memo_put(Gen *g, Expr *e, Term t) {
    if ((g->nmemo + 1) * 2 > g->capmemo) {
        size_t nc = g->capmemo ? g->capmemo * 2 : 256;
        struct ConstMemo *old = g->memo; size_t oc = g->capmemo;
        g->memo = GC_MALLOC(sizeof *g->memo * nc);
        g->capmemo = nc;
        g->nmemo = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i].e) memo_put(g, old[i].e, old[i].t);
    }
    size_t i = memo_hash(e, g->capmemo);
    while (g->memo[i].e && g->memo[i].e != e) i = (i + 1) % g->capmemo;
    if (!g->memo[i].e) g->nmemo++;
    g->memo[i].e = e; g->memo[i].t = t;
}

static Term const_leaf(Expr *e) {
    switch (e->kind) {
    case E_ATOM: return cg_atom(e->name);
    case E_INT: return e->big ? lit_integer_text(e->big, e->big_base, e->big_neg) : lit_integer(e->ival);
    case E_FLOAT: return lit_float(e->fval);
    case E_STRING: return lit_string(e->str, (size_t)e->len);
    case E_NIL: return NIL;
    case E_UNOP:
        if ((e->op == OP_NEG || e->op == OP_PLUS) && e->a) {
            Expr *a = e->a;
            int neg = e->op == OP_NEG;
            if (a->kind == E_INT) {
                if (a->big) return lit_integer_text(a->big, a->big_base, neg ^ a->big_neg);
                if (!neg) return lit_integer(a->ival);
                if (a->ival == INT64_MIN) return lit_integer_text("9223372036854775808", 10, 0);
                return lit_integer(-a->ival);
            }
            if (a->kind == E_FLOAT) return lit_float(neg ? -a->fval : a->fval);
        }
        return THE_NON_VALUE;
    default: return THE_NON_VALUE;
    }
}

/* Is e a constant? Then *out is it, as a literal term. Walks list tails
 * iteratively and memoizes, so checking every node of a long list is linear. */
int cg_const(Fn *f, Expr *e, Term *out) {
    Gen *g = f->g;
    Term t;
    if (memo_get(g, e, &t)) { if (t == THE_NON_VALUE) return 0; *out = t; return 1; }
    switch (e->kind) {
    case E_TUPLE: {
        Term *el = GC_MALLOC(sizeof(Term) * ((size_t)e->n + 1));
        t = THE_NON_VALUE;
        int ok = 1;
        for (int i = 0; i < e->n && ok; i++) ok = cg_const(f, e->elems[i], &el[i]);
        if (ok) t = lit_tuple(el, (size_t)e->n);
        memo_put(g, e, t);
        break;
    }
    case E_CONS: {
        /* collect the chain down to a non-cons or memoized tail */
        int n = 0, cap = 16;
        Expr **chain = GC_MALLOC(sizeof(Expr *) * (size_t)cap);
        Expr *c = e;
        Term tt;
        while (c->kind == E_CONS && !memo_get(g, c, &tt)) {
            if (n >= cap) {
                Expr **nc = GC_MALLOC(sizeof(Expr *) * (size_t)cap * 2);
                memcpy(nc, chain, sizeof(Expr *) * (size_t)n);
                chain = nc; cap *= 2;
            }
            chain[n++] = c;
            c = c->b;
        }
        Term tail;
        if (!cg_const(f, c, &tail)) tail = THE_NON_VALUE;
        for (int i = n - 1; i >= 0; i--) {
            Term h;
            if (tail != THE_NON_VALUE && cg_const(f, chain[i]->a, &h)) tail = lit_cons(h, tail);
            else tail = THE_NON_VALUE;
            memo_put(g, chain[i], tail);
        }
        t = tail;
        break;
    }
    default:
        t = const_leaf(e);
        if (e->kind == E_UNOP) memo_put(g, e, t);
        break;
    }
    if (t == THE_NON_VALUE) return 0;
    *out = t;
    return 1;
}

/* ---- module-level tables ------------------------------------------------- */

int cg_import(Gen *g, const char *mod, const char *name, int arity) {
    Term m = cg_atom(mod), n = cg_atom(name);
    for (int i = 0; i < g->nimports; i++)
        if (g->imports[i].module == m && g->imports[i].name == n && g->imports[i].arity == arity)
            return i;
    GROW(g->imports, g->nimports, g->capimports);
    g->imports[g->nimports].module = m;
    g->imports[g->nimports].name = n;
    g->imports[g->nimports].arity = arity;
    return g->nimports++;
}

GenFun *cg_find_local(Gen *g, const char *name, int arity) {
    for (int i = 0; i < g->ngfs; i++) {
        GenFun *gf = g->gfs[i];
        if (gf->name == name && gf->arity == arity && gf->kind == GF_CLAUSES) return gf;
    }
    return NULL;
}

GenFun *cg_new_genfun(Gen *g) {
    GenFun *gf = GC_MALLOC(sizeof *gf);
    GROW(g->gfs, g->ngfs, g->capgfs);
    gf->index = g->ngfs;
    g->gfs[g->ngfs++] = gf;
    gf->info_label = ++g->nlabels;
    gf->entry_label = ++g->nlabels;
    gf->self_lambda = -1;
    return gf;
}

static const Import *find_import(Gen *g, const char *name, int arity) {
    for (int i = 0; i < g->m->nimports; i++)
        if (g->m->imports[i].fn.name == name && g->m->imports[i].fn.arity == arity)
            return &g->m->imports[i];
    return NULL;
}

/* ---- calls --------------------------------------------------------------- */

static int is_apply(const char *mod, const char *name, int n) {
    return !strcmp(mod, "erlang") && !strcmp(name, "apply") && (n == 2 || n == 3);
}

void cg_classify(Fn *f, Expr *e, CallInfo *ci, int dry) {
    Gen *g = f->g;
    int n = e->n;
    memset(ci, 0, sizeof *ci);
    ci->args = e->elems; ci->nargs = n; ci->arity = n;
    if (e->mod) {
        if (e->mod->kind == E_ATOM && e->fun && e->fun->kind == E_ATOM) {
            ci->mod = e->mod->name; ci->name = e->fun->name;
            int b = is_apply(ci->mod, ci->name, n) ? -1 : bif_lookup(ci->mod, ci->name, n);
            if (b >= 0) { ci->kind = CK_BIF; ci->bif = b; }
            else {
                ci->kind = CK_EXT;
                if (!dry) ci->label = cg_import(g, ci->mod, ci->name, n);
            }
        } else {
            ci->kind = CK_APPLY;
            if (!dry) {
                ci->args = GC_MALLOC(sizeof(Expr *) * ((size_t)n + 2));
                if (n) memcpy(ci->args, e->elems, sizeof(Expr *) * (size_t)n);
                ci->args[n] = e->mod; ci->args[n + 1] = e->fun;
            }
            ci->nargs = n + 2;
        }
        return;
    }
    if (e->fun) {
        if (cg_is_self(f, e->fun) && f->gf->nparams == n) {
            GenFun *gf = f->gf;
            ci->kind = CK_LOCAL; ci->label = gf->entry_label; ci->arity = n + gf->nfree;
            ci->nargs = n + gf->nfree;
            if (!dry) {
                ci->args = GC_MALLOC(sizeof(Expr *) * ((size_t)ci->nargs + 1));
                if (n) memcpy(ci->args, e->elems, sizeof(Expr *) * (size_t)n);
                for (int i = 0; i < gf->nfree; i++) ci->args[n + i] = cg_mkvar(gf->free[i], e->line);
            }
            return;
        }
        ci->kind = CK_FUN;
        if (!dry) {
            ci->args = GC_MALLOC(sizeof(Expr *) * ((size_t)n + 1));
            if (n) memcpy(ci->args, e->elems, sizeof(Expr *) * (size_t)n);
            ci->args[n] = e->fun;
        }
        ci->nargs = n + 1;
        return;
    }
    /* local name(args) */
    ci->name = e->name;
    GenFun *gf = cg_find_local(g, e->name, n);
    if (gf) { ci->kind = CK_LOCAL; ci->label = cg_bsm_call_label(f, e, gf); return; }
    const Import *im = find_import(g, e->name, n);
    if (im) {
        ci->kind = CK_EXT; ci->mod = im->module;
        if (!dry) ci->label = cg_import(g, im->module, e->name, n);
        return;
    }
    ci->mod = "erlang";
    int b = is_apply("erlang", e->name, n) ? -1 : bif_lookup("erlang", e->name, n);
    if (b >= 0) { ci->kind = CK_BIF; ci->bif = b; return; }
    ci->kind = CK_EXT;
    if (!dry) ci->label = cg_import(g, "erlang", e->name, n);
}

/* Moves ops[i] to x(i) for all i at once (sources may be among the targets). */
static void parallel_move(Fn *f, UWord *ops, int n) {
    char *pend = GC_MALLOC_ATOMIC((size_t)n + 1);
    int left = 0;
    int scratch = n;
    for (int r = 0; r <= f->xhi; r++)
        if (f->xs[r] != R_FREE && r >= scratch) scratch = r + 1;
    for (int i = 0; i < n; i++) {
        pend[i] = ops[i] != REG_X(i);
        left += pend[i];
        if (operand_is_x(ops[i]) && operand_x_index(ops[i]) >= scratch) scratch = operand_x_index(ops[i]) + 1;
    }
    while (left) {
        int progress = 0;
        for (int i = 0; i < n; i++) {
            if (!pend[i]) continue;
            int blocked = 0;
            for (int j = 0; j < n; j++)
                if (j != i && pend[j] && ops[j] == REG_X(i)) { blocked = 1; break; }
            if (blocked) continue;
            cg_move(f, ops[i], REG_X(i));
            pend[i] = 0; left--; progress = 1;
        }
        if (!progress) {
            for (int i = 0; i < n; i++) {
                if (!pend[i]) continue;
                cg_move(f, REG_X(i), REG_X(scratch));
                for (int j = 0; j < n; j++)
                    if (pend[j] && ops[j] == REG_X(i)) ops[j] = REG_X(scratch);
                break;
            }
        }
    }
}

static int simple_expr(Fn *f, Expr *e) {
    Term t;
    if (e->kind == E_VAR) return !cg_is_self(f, e);
    return cg_const(f, e, &t);
}

typedef struct Mentions { Fn *f; UWord reg; int hit; } Mentions;

static void mention(void *ctx, const char *name, int weak) {
    (void)weak;
    Mentions *m = ctx;
    int v = cg_var_find(m->f, name);
    if (v >= 0 && m->f->vloc[v] == m->reg) m->hit = 1;
}

/* In a tail call from a leaf, may argument i be computed straight into
 * x(i)? Nothing runs after the call, so the value there is dead unless a
 * later argument reads it or an earlier one was left there; and an
 * operator, a list or a tuple writes its destination only with its last
 * instruction, after reading its operands (x(i) among them, as in
 * loop(N - 1, ...) or loop(T, [H | Acc]): the parts a list or tuple
 * builds first go to temporaries, which are never a register in use).
 * This saves the move that would follow: for an accumulating loop, one
 * instruction in eight. */
static int direct_arg(Fn *f, Expr **args, int n, int i, const UWord *ops) {
    Expr *e = args[i];
    Term t;
    if (cg_const(f, e, &t)) return 0;
    if (!(e->kind == E_BINOP && e->op != OP_SEND) && e->kind != E_UNOP && e->kind != E_CONS &&
        e->kind != E_TUPLE)
        return 0;
    UWord reg = REG_X(i);
    for (int k = 0; k < i; k++)
        if (ops[k] == reg) return 0;
    Mentions m = { f, reg, 0 };
    for (int j = i + 1; j < n && !m.hit; j++) cg_collect_vars(args[j], mention, &m, 0);
    return !m.hit;
}

/* In a clause with a frame, variables live in y slots, except those that
 * die at the body's first call (early_vars): they stay in x registers until
 * that call, the only place R_VAR x registers occur in a framed clause. */
static int early_in_x(Fn *f) {
    if (!f->frame) return 0;
    for (int r = 0; r <= f->xhi; r++)
        if (f->xs[r] == R_VAR) return 1;
    return 0;
}

/* After that call the registers are the callee's: the variables are dead. */
static void release_early(Fn *f) {
    if (!f->frame) return;
    for (int r = 0; r <= f->xhi; r++)
        if (f->xs[r] == R_VAR) {
            f->vloc[f->xvar[r]] = NOOP;
            f->xs[r] = R_FREE;
        }
}

/* Evaluates args into x0..x(n-1). */
static void setup_args(Fn *f, Expr **args, int n, int tail) {
    UWord *ops = GC_MALLOC(sizeof(UWord) * ((size_t)n + 1));
    if (n > XMAX) { cg_error(f, f->gf->line, 1, "too many arguments"); return; }
    if (!f->frame) {
        for (int i = 0; i < n; i++) {
            if (tail && direct_arg(f, args, n, i, ops)) {
                cg_expr(f, args[i], 0, REG_X(i));
                ops[i] = REG_X(i);
                if (f->xs[i] == R_FREE) f->xs[i] = R_TEMP;
                if (i > f->xhi) f->xhi = i;
            } else {
                ops[i] = cg_operand(f, args[i], 0);
            }
        }
        parallel_move(f, ops, n);
        for (int i = 0; i < n; i++) cg_free(f, ops[i]);
        for (int i = 0; i < n; i++) { f->xs[i] = f->xs[i] == R_FREE ? R_TEMP : f->xs[i]; if (i > f->xhi) f->xhi = i; }
        return;
    }
    int calls = 0;
    for (int i = 0; i < n && !calls; i++) calls = cg_has_call(f, args[i]);
    if (!calls && early_in_x(f)) {
        /* the body's first call, whose arguments make no call (early_vars):
         * variables still in x registers move as in a leaf */
        for (int i = 0; i < n; i++) ops[i] = cg_operand(f, args[i], 0);
        parallel_move(f, ops, n);
        for (int i = 0; i < n; i++) cg_free(f, ops[i]);
        for (int i = 0; i < n; i++) { f->xs[i] = f->xs[i] == R_FREE ? R_TEMP : f->xs[i]; if (i > f->xhi) f->xhi = i; }
        return;
    }
    for (int i = 0; i < n; i++)
        ops[i] = simple_expr(f, args[i]) ? cg_operand(f, args[i], 0) : NOOP;
    int last = -1;
    for (int i = 0; i < n; i++)
        if (ops[i] == NOOP && cg_has_call(f, args[i])) last = i;
    /* values computed by calls go to y slots, except the last one, which
     * goes straight to its x register (nothing that follows calls) */
    for (int i = 0; i < n; i++)
        if (ops[i] == NOOP && i != last && cg_has_call(f, args[i])) ops[i] = cg_operand(f, args[i], 1);
    if (last >= 0) {
        cg_expr(f, args[last], 0, REG_X(last));
        cg_mark(f, REG_X(last));
        ops[last] = REG_X(last);
    }
    for (int i = 0; i < n; i++) {
        if (i == last) continue;
        if (ops[i] != NOOP) cg_move(f, ops[i], REG_X(i));
        else cg_expr(f, args[i], 0, REG_X(i));
        cg_mark(f, REG_X(i));
    }
    for (int i = 0; i < n; i++)
        if (ops[i] != NOOP && operand_is_y(ops[i])) cg_free(f, ops[i]);
}

static void after_call(Fn *f) {
    for (int r = 0; r <= f->xhi; r++)
        if (f->xs[r] == R_TEMP) f->xs[r] = R_FREE;
}

void cg_call_info(Fn *f, CallInfo *ci, int tail, UWord dest, int line) {
    if (tail) dest = REG_X(0);
    if (ci->kind == CK_BIF) {
        UWord ops[MAX_REG];
        if (ci->nargs > 8) { cg_error(f, line, 1, "too many BIF arguments"); return; }
        cg_oplist(f, ci->args, ci->nargs, ops);
        if (!f->bif_fail) cg_line(f, line);
        int live = cg_xlive(f);
        cg_op(f, OP_bif, 4, (UWord)f->bif_fail, (UWord)ci->bif, (UWord)live, dest);
        cg_emit(f, (UWord)ci->nargs);
        for (int i = 0; i < ci->nargs; i++) cg_emit(f, ops[i]);
        for (int i = 0; i < ci->nargs; i++) cg_free(f, ops[i]);
        if (tail) cg_return(f);
        return;
    }
    if (!tail && !f->frame) f->retry = 1;
    if (f->frame)
        for (int r = 0; r <= f->xhi; r++)
            if (f->xs[r] == R_TEMP || f->xs[r] == R_ARG) {
                if (!f->g->errors) fprintf(stderr, "mini: internal: x%d live across a call at line %d\n", r, line);
                break;
            }
    setup_args(f, ci->args, ci->nargs, tail);
    cg_line(f, line);
    int n = ci->nargs;
    if (tail) {
        switch (ci->kind) {
        case CK_LOCAL:
            if (f->frame) { cg_op(f, OP_call_last, 2, (UWord)n, (UWord)ci->label); cg_fs(f); }
            else cg_op(f, OP_call_only, 2, (UWord)n, (UWord)ci->label);
            break;
        case CK_EXT:
            if (f->frame) { cg_op(f, OP_call_ext_last, 2, (UWord)n, (UWord)ci->label); cg_fs(f); }
            else cg_op(f, OP_call_ext_only, 2, (UWord)n, (UWord)ci->label);
            break;
        case CK_FUN: case CK_APPLY: {
            int op = ci->kind == CK_FUN ? OP_call_fun_last : OP_apply_last;
            UWord a = (UWord)(ci->kind == CK_FUN ? n - 1 : n - 2);
            if (f->frame) { cg_op(f, op, 1, a); cg_fs(f); }
            else {
                cg_op(f, OP_allocate, 2, (UWord)0, (UWord)n);
                cg_op(f, op, 2, a, (UWord)0);
            }
            break;
        }
        }
        after_call(f);
        release_early(f);
        f->frgen++;
        return;
    }
    switch (ci->kind) {
    case CK_LOCAL: cg_op(f, OP_call, 2, (UWord)n, (UWord)ci->label); break;
    case CK_EXT: cg_op(f, OP_call_ext, 2, (UWord)n, (UWord)ci->label); break;
    case CK_FUN: cg_op(f, OP_call_fun, 1, (UWord)(n - 1)); break;
    case CK_APPLY: cg_op(f, OP_apply, 1, (UWord)(n - 2)); break;
    }
    after_call(f);
    release_early(f);
    f->frgen++;                         /* the callee uses the float registers */
    cg_move(f, REG_X(0), dest);
}

void cg_call(Fn *f, Expr *e, int tail, UWord dest) {
    CallInfo ci;
    cg_classify(f, e, &ci, 0);
    cg_call_info(f, &ci, tail, dest, e->line);
}

/* ---- frame prediction / "does this clobber x registers" ----------------- */

static int pred_body(Fn *f, Expr **es, int n, int tail) {
    for (int i = 0; i < n; i++)
        if (cg_pred(f, es[i], tail && i == n - 1)) return 1;
    return 0;
}

/* 1 if evaluating e (in tail position or not) needs a frame. */
int cg_pred(Fn *f, Expr *e, int tail) {
    if (!e) return 0;
    switch (e->kind) {
    case E_VAR: case E_ATOM: case E_INT: case E_FLOAT: case E_STRING: case E_NIL:
    case E_FUN: case E_FUNREF:
        return 0;
    case E_CONS:                        /* long lists: walk the tails */
        for (; e->kind == E_CONS; e = e->b)
            if (cg_pred(f, e->a, 0)) return 1;
        return cg_pred(f, e, 0);
    case E_TUPLE: return pred_body(f, e->elems, e->n, 0);
    case E_MATCH: return cg_pred(f, e->b, 0);
    case E_BINOP:
        return cg_pred(f, e->a, 0) || cg_pred(f, e->b, 0);
    case E_UNOP: return cg_pred(f, e->a, 0);
    case E_ANDALSO: case E_ORELSE: return cg_pred(f, e->a, 0) || cg_pred(f, e->b, tail);
    case E_CALL: {
        CallInfo ci;
        cg_classify(f, e, &ci, 1);
        if (ci.kind != CK_BIF && !tail) return 1;
        if (pred_body(f, e->elems, e->n, 0)) return 1;
        if (ci.kind == CK_FUN) return cg_pred(f, e->fun, 0);
        if (ci.kind == CK_APPLY) return cg_pred(f, e->mod, 0) || cg_pred(f, e->fun, 0);
        return 0;
    }
    case E_BLOCK: return pred_body(f, e->body, e->nbody, tail);
    case E_RECEIVE:                     /* no frame of its own: cg_receive */
        if (cg_pred(f, e->timeout, 0) || pred_body(f, e->body, e->nbody, tail)) return 1;
        for (int i = 0; i < e->nclauses; i++)
            if (pred_body(f, e->clauses[i]->body, e->clauses[i]->nbody, tail)) return 1;
        return 0;
    case E_MAP: case E_MAP_UPDATE: return cg_map_pred(f, e);
    case E_BIN: return cg_bin_pred(f, e);
    case E_CASE:
        if (cg_pred(f, e->a, 0)) return 1;
        /* fall through */
    case E_IF:
        for (int i = 0; i < e->nclauses; i++)
            if (pred_body(f, e->clauses[i]->body, e->clauses[i]->nbody, tail)) return 1;
        return 0;
    case E_LC:
        if (tail && !e->b && e->n > 0 && e->elems[0]->kind == E_GENERATOR)
            return cg_pred(f, e->elems[0]->b, 0);
        return 1;
    case E_BIN_LC: {
        /* filters, then either the binary appended to the accumulator or,
         * at a generator, a call of its helper (codegen_ctl.c) */
        int i;
        for (i = 0; i < e->n && e->elems[i]->kind != E_GENERATOR; i++)
            if (cg_pred(f, e->elems[i], 0)) return 1;
        if (e->b && cg_pred(f, e->b, 0)) return 1;
        if (i < e->n) return !tail || cg_pred(f, e->elems[i]->b, 0);
        return cg_pred(f, e->a, 0);
    }
    default:
        return 1;
    }
}

int cg_has_call(Fn *f, Expr *e) { return cg_pred(f, e, 0); }

/* ---- expressions --------------------------------------------------------- */

void cg_make_self(Fn *f, UWord dest) {
    GenFun *gf = f->gf;
    UWord *ops = GC_MALLOC(sizeof(UWord) * ((size_t)gf->nfree + 1));
    for (int i = 0; i < gf->nfree; i++) {
        int v = cg_var_find(f, gf->free[i]);
        ops[i] = v >= 0 ? f->vloc[v] : NIL;
    }
    int live = cg_xlive(f);
    cg_op(f, OP_test_heap, 2, (UWord)(2 + gf->nfree), (UWord)live);
    cg_op(f, OP_make_fun, 3, (UWord)gf->self_lambda, dest, (UWord)gf->nfree);
    for (int i = 0; i < gf->nfree; i++) cg_emit(f, ops[i]);
}

/* The value of e somewhere: a literal, a variable's register, or a new
 * temporary (marked R_TEMP; release it with cg_free). With safe set in a
 * framed clause the value is never in an x register (it survives calls). */
UWord cg_operand(Fn *f, Expr *e, int safe) {
    Term t;
    if (cg_const(f, e, &t)) return t;
    if (e->kind == E_VAR && !cg_is_self(f, e)) {
        int v = cg_var_find(f, e->name);
        if (v >= 0 && f->vloc[v] == NOOP && f->vfr[v] >= 0) {
            cg_fneeds_box(f, v);            /* a float variable without a term home */
            return NIL;
        }
        if (v < 0 || f->vloc[v] == NOOP) {
            if (!f->g->errors) fprintf(stderr, "mini: internal: variable %s has no location (line %d)\n", e->name, e->line);
            return NIL;
        }
        return f->vloc[v];
    }
    UWord dest = (safe && f->frame) ? REG_Y(cg_pick_y(f)) : REG_X(cg_pick_x(f));
    if (!safe && f->frame && f->xs[0] == R_VAR && e->kind == E_CALL) {
        /* the body's first call, with a variable it reads still in x0
         * (early_vars): the call frees x0 and leaves its result there */
        CallInfo ci;
        cg_classify(f, e, &ci, 1);
        if (ci.kind != CK_BIF) dest = REG_X(0);
    }
    cg_expr(f, e, 0, dest);
    cg_mark(f, dest);
    return dest;
}

/* Operands for several expressions evaluated in order: each value that a
 * later evaluation's call could clobber is kept in a y slot. */
void cg_oplist(Fn *f, Expr **es, int n, UWord *ops) {
    char *later = GC_MALLOC_ATOMIC((size_t)n + 1);
    int any = 0;
    for (int i = n - 1; i >= 0; i--) {
        later[i] = (char)any;
        if (f->frame && !any && cg_has_call(f, es[i])) any = 1;
    }
    for (int i = 0; i < n; i++) ops[i] = cg_operand(f, es[i], later[i]);
}

static void emit_bif(Fn *f, const char *name, int line, UWord dest, UWord *ops, int n) {
    int b = bif_lookup("erlang", name, n);
    if (b < 0) { cg_error(f, line, 1, "internal: no BIF erlang:%s/%d", name, n); return; }
    if (!f->bif_fail) cg_line(f, line);
    int live = cg_xlive(f);
    cg_op(f, OP_bif, 4, (UWord)f->bif_fail, (UWord)b, (UWord)live, dest);
    cg_emit(f, (UWord)n);
    for (int i = 0; i < n; i++) cg_emit(f, ops[i]);
}

/* Code typed at the shell raises operator errors as erl_eval does: through
 * the operator's BIF, so the stack trace starts with {erlang,'/',[1,0],[]}
 * and the shell can say `in operator '/'/2 called as 1 / 0`. Compiled
 * modules keep the inline instructions (and, as BEAM, no such frame). */
int cg_ops_as_calls(Fn *f) {
    return strncmp(f->g->m->name, "$shell_eval_", 12) == 0;
}

static void cg_binop(Fn *f, Expr *e, UWord dest) {
    if (cg_is_farith(f, e)) { cg_farith(f, e, dest); return; }
    UWord ops[2];
    Expr *es[2] = { e->a, e->b };
    /* a commutative operator takes a constant on the right, as BEAM's
     * compiler puts it: the error frame then lists the operands as OTP's
     * does (erlang:'*'(X, 2) for 2 * X), and a small integer on the right
     * lets the loader use add_imm. Constants have no side effects, so the
     * order of evaluation is unchanged. */
    Term ca, cb;
    if ((e->op == OP_ADD || e->op == OP_MUL || e->op == OP_BAND || e->op == OP_BOR ||
         e->op == OP_BXOR) && cg_const(f, e->a, &ca) && !cg_const(f, e->b, &cb)) {
        es[0] = e->b; es[1] = e->a;
    }
    cg_oplist(f, es, 2, ops);
    if ((e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) && !cg_ops_as_calls(f)) {
        if (!f->bif_fail) cg_line(f, e->line);
        int live = cg_xlive(f);
        int op = e->op == OP_ADD ? OP_add : e->op == OP_SUB ? OP_sub : OP_mul;
        cg_op(f, op, 5, (UWord)f->bif_fail, (UWord)live, ops[0], ops[1], dest);
    } else {
        emit_bif(f, ast_op_name(e->op), e->line, dest, ops, 2);
    }
    cg_free(f, ops[0]); cg_free(f, ops[1]);
}

static void cg_unop(Fn *f, Expr *e, UWord dest) {
    if (cg_is_farith(f, e)) { cg_farith(f, e, dest); return; }
    UWord op = cg_operand(f, e->a, 0);
    emit_bif(f, ast_op_name(e->op), e->line, dest, &op, 1);
    cg_free(f, op);
}

/* A send takes its operands where they are and keeps every x register (it
 * never collects), like a BIF: a loop that sends needs no frame to save its
 * variables across it. */
static void cg_send(Fn *f, Expr *e, int tail, UWord dest) {
    UWord ops[2];
    Expr *es[2] = { e->a, e->b };
    if (tail) dest = REG_X(0);
    cg_oplist(f, es, 2, ops);
    cg_line(f, e->line);
    cg_op(f, OP_send, 3, ops[0], ops[1], dest);
    cg_free(f, ops[0]); cg_free(f, ops[1]);
    if (tail) cg_return(f);
}

/* Building lists and tuples: evaluate the non-constant leaves, one test_heap
 * for the whole skeleton, then put_list/put_tuple bottom-up. */
typedef struct Skel { Expr **leaves; int n, cap; UWord *ops; int words; int next; } Skel;

static int skeleton(Fn *f, Expr *e) {
    Term t;
    return (e->kind == E_CONS || e->kind == E_TUPLE) && !cg_const(f, e, &t);
}

static void skel_leaf(Fn *f, Skel *s, Expr *e);

static void skel_collect(Fn *f, Skel *s, Expr *e) {
    if (e->kind == E_TUPLE) {
        s->words += e->n + 1;
        for (int i = 0; i < e->n; i++) skel_leaf(f, s, e->elems[i]);
        return;
    }
    while (skeleton(f, e) && e->kind == E_CONS) {
        s->words += 2;
        skel_leaf(f, s, e->a);
        e = e->b;
    }
    skel_leaf(f, s, e);
}

static void skel_leaf(Fn *f, Skel *s, Expr *e) {
    Term t;
    if (cg_const(f, e, &t)) return;
    if (skeleton(f, e)) { skel_collect(f, s, e); return; }
    GROW(s->leaves, s->n, s->cap);
    s->leaves[s->n++] = e;
}

static UWord skel_build(Fn *f, Skel *s, Expr *e, UWord dest);

static UWord skel_value(Fn *f, Skel *s, Expr *e) {
    Term t;
    if (cg_const(f, e, &t)) return t;
    if (skeleton(f, e)) return skel_build(f, s, e, NOOP);
    return s->ops[s->next++];
}

static UWord skel_build(Fn *f, Skel *s, Expr *e, UWord dest) {
    if (e->kind == E_TUPLE) {
        UWord *src = GC_MALLOC(sizeof(UWord) * ((size_t)e->n + 1));
        for (int i = 0; i < e->n; i++) src[i] = skel_value(f, s, e->elems[i]);
        for (int i = 0; i < e->n; i++) if (operand_is_x(src[i])) cg_free(f, src[i]);
        if (dest == NOOP) dest = REG_X(cg_alloc_x(f, R_TEMP));
        cg_op(f, OP_put_tuple, 2, dest, (UWord)e->n);
        for (int i = 0; i < e->n; i++) cg_emit(f, src[i]);
        return dest;
    }
    int n = 0, cap = 8;
    UWord *heads = GC_MALLOC(sizeof(UWord) * (size_t)cap);
    while (skeleton(f, e) && e->kind == E_CONS) {
        if (n >= cap) {
            UWord *nh = GC_MALLOC(sizeof(UWord) * (size_t)cap * 2);
            memcpy(nh, heads, sizeof(UWord) * (size_t)n);
            heads = nh; cap *= 2;
        }
        heads[n++] = skel_value(f, s, e->a);
        e = e->b;
    }
    UWord tail = skel_value(f, s, e);
    for (int i = n - 1; i >= 0; i--) {
        if (operand_is_x(tail)) cg_free(f, tail);
        if (operand_is_x(heads[i])) cg_free(f, heads[i]);
        UWord d = (i == 0 && dest != NOOP) ? dest : REG_X(cg_alloc_x(f, R_TEMP));
        cg_op(f, OP_put_list, 3, heads[i], tail, d);
        tail = d;
    }
    return tail;
}

static void cg_construct(Fn *f, Expr *e, UWord dest) {
    Skel s;
    memset(&s, 0, sizeof s);
    skel_collect(f, &s, e);
    s.ops = GC_MALLOC(sizeof(UWord) * ((size_t)s.n + 1));
    cg_oplist(f, s.leaves, s.n, s.ops);
    int live = cg_xlive(f);
    cg_op(f, OP_test_heap, 2, (UWord)s.words, (UWord)live);
    /* leaves in y stay marked until the end; x ones are freed as consumed */
    skel_build(f, &s, e, dest);
    for (int i = 0; i < s.n; i++) cg_free(f, s.ops[i]);
}

static void cg_match_expr(Fn *f, Expr *e, UWord dest) {
    Expr *p = e->a;
    if (p->kind == E_VAR && !cg_wild(p) && !cg_is_bound(f, p->name)) {
        int v = cg_var(f, p->name);
        if (f->fcap[v] && cg_fbind(f, v, e->b, dest)) return;
        if (f->vloc[v] == NOOP) {
            if (f->frame) f->vloc[v] = REG_Y(cg_alloc_y(f, R_VAR));
            else { int r = cg_alloc_x(f, R_VAR); f->xvar[r] = (short)v; f->vloc[v] = REG_X(r); }
        }
        cg_expr(f, e->b, 0, f->vloc[v]);
        f->bound[v] = 1; f->def[v] = 1;
        if (dest != NOOP) cg_move(f, f->vloc[v], dest);
        return;
    }
    if (cg_wild(p)) { cg_expr(f, e->b, 0, dest); return; }
    UWord s = cg_operand(f, e->b, 0);
    int bad = cg_stub(f, ST_BADMATCH, s, 0, e->line);
    cg_match(f, p, s, bad);
    if (dest != NOOP) cg_move(f, s, dest);
    cg_free(f, s);
}

static void unsupported(Fn *f, Expr *e, const char *what) {
    cg_error(f, e->line, e->col, "not supported yet: %s", what);
}

static void cg_expr1(Fn *f, Expr *e, int tail, UWord dest);

/* Float registers written in one branch of a construct and killed in
 * another (a call) must not pass for valid after it: see codegen_float.c. */
void cg_expr(Fn *f, Expr *e, int tail, UWord dest) {
    switch (e->kind) {
    case E_CASE: case E_IF: case E_RECEIVE: case E_TRY: case E_CATCH: case E_LC: case E_BIN_LC:
    case E_ANDALSO: case E_ORELSE: {
        int gen = f->frgen;
        if (e->kind == E_RECEIVE) f->frgen++;      /* it may suspend: from its wait on */
        cg_expr1(f, e, tail, dest);
        if (f->frgen != gen) f->frgen++;
        return;
    }
    default:
        cg_expr1(f, e, tail, dest);
    }
}

static void cg_expr1(Fn *f, Expr *e, int tail, UWord dest) {
    Term t;
    if (tail) dest = REG_X(0);
    if (cg_const(f, e, &t)) {
        if (dest != NOOP) cg_move(f, t, dest);
        if (tail) cg_return(f);
        return;
    }
    if (dest == NOOP && e->kind != E_MATCH) {     /* effect only */
        UWord o = cg_operand(f, e, 0);
        cg_free(f, o);
        return;
    }
    switch (e->kind) {
    case E_VAR:
        if (cg_is_self(f, e)) cg_make_self(f, dest);
        else cg_move(f, cg_operand(f, e, 0), dest);
        break;
    case E_CONS: case E_TUPLE: cg_construct(f, e, dest); break;
    case E_MATCH: cg_match_expr(f, e, dest); break;
    case E_BINOP:
        if (e->op == OP_SEND) { cg_send(f, e, tail, dest); return; }
        cg_binop(f, e, dest);
        break;
    case E_UNOP: cg_unop(f, e, dest); break;
    case E_ANDALSO: case E_ORELSE: cg_shortcircuit(f, e, tail, dest); return;
    case E_CALL: cg_call(f, e, tail, dest); return;
    case E_FUN: cg_fun(f, e, dest); break;
    case E_FUNREF: cg_funref(f, e, dest); break;
    case E_BLOCK: cg_body(f, e->body, e->nbody, tail, dest); return;
    case E_CASE: cg_case(f, e, tail, dest); return;
    case E_IF: cg_if(f, e, tail, dest); return;
    case E_RECEIVE: cg_receive(f, e, tail, dest); return;
    case E_TRY: cg_try(f, e, tail, dest); return;
    case E_CATCH: cg_catch(f, e, dest); break;
    case E_LC: case E_BIN_LC: cg_lc(f, e, tail, dest); return;    /* codegen_ctl.c */
    case E_RECORD: case E_RECORD_UPDATE: case E_RECORD_FIELD: unsupported(f, e, "records"); break;
    case E_MAP: case E_MAP_UPDATE: cg_map(f, e, dest); break;       /* codegen_map.c */
    case E_BIN: cg_bin_construct(f, e, dest); break;           /* codegen_bin.c */
    default: cg_error(f, e->line, e->col, "internal: unexpected expression"); break;
    }
    if (tail) cg_return(f);
}

void cg_effect(Fn *f, Expr *e) {
    if (e->kind == E_MATCH) { cg_match_expr(f, e, NOOP); return; }
    cg_expr(f, e, 0, NOOP);
}

void cg_body(Fn *f, Expr **es, int n, int tail, UWord dest) {
    for (int i = 0; i < n - 1; i++) {
        cg_ref_mark(f, es, n, i);
        cg_effect(f, es[i]);
    }
    if (n > 0) cg_expr(f, es[n - 1], tail, dest);
}

/* ---- variables a piece of code mentions ---------------------------------- */

static void walk_clauses(Clause **cs, int n, void (*fn)(void *, const char *, int), void *ctx, int mode);

/* Calls fn(ctx, name, weak) for every variable name in e. Mode 0 walks
 * everything. Mode 1 (a clause body's prepass) reports the parts compiled in
 * another function (fun bodies; a list comprehension after its first
 * generator's list) as weak: there a name only matters if it is a variable
 * of this function already, passed on as a free variable. Mode 2: all weak. */
void cg_collect_vars(Expr *e, void (*fn)(void *, const char *, int), void *ctx, int mode) {
    while (e) {
        switch (e->kind) {
        case E_VAR:
            if (!(e->name[0] == '_' && e->name[1] == 0)) fn(ctx, e->name, mode == 2);
            return;
        case E_FUN:
            walk_clauses(e->clauses, e->nclauses, fn, ctx, mode ? 2 : 0);
            return;
        case E_LC: case E_BIN_LC:
            if (mode == 1) {
                int i;
                for (i = 0; i < e->n; i++) {
                    Expr *q = e->elems[i];
                    if (q->kind == E_GENERATOR) { cg_collect_vars(q->b, fn, ctx, 1); break; }
                    cg_collect_vars(q, fn, ctx, 1);
                }
                if (i < e->n) {
                    if (e->elems[i]->bitgen)    /* sizes in <<X:N>> <= B may name free variables */
                        cg_collect_vars(e->elems[i]->a, fn, ctx, 2);
                    for (int j = i + 1; j < e->n; j++) cg_collect_vars(e->elems[j], fn, ctx, 2);
                    cg_collect_vars(e->a, fn, ctx, 2);
                    cg_collect_vars(e->b, fn, ctx, 2);
                    return;
                } else {
                    cg_collect_vars(e->a, fn, ctx, 1);
                }
                e = e->b;
                continue;
            }
            for (int i = 0; i < e->n; i++) cg_collect_vars(e->elems[i], fn, ctx, mode);
            cg_collect_vars(e->b, fn, ctx, mode);
            e = e->a;
            continue;
        case E_CONS:
            cg_collect_vars(e->a, fn, ctx, mode);
            e = e->b;
            continue;
        case E_MATCH:                   /* in binding order */
            cg_collect_vars(e->b, fn, ctx, mode);
            e = e->a;
            continue;
        default:
            break;
        }
        if (e->a) cg_collect_vars(e->a, fn, ctx, mode);
        if (e->mod) cg_collect_vars(e->mod, fn, ctx, mode);
        if (e->fun) cg_collect_vars(e->fun, fn, ctx, mode);
        for (int i = 0; i < e->n; i++) cg_collect_vars(e->elems[i], fn, ctx, mode);
        if (e->body != e->elems)
            for (int i = 0; i < e->nbody; i++) cg_collect_vars(e->body[i], fn, ctx, mode);
        walk_clauses(e->clauses, e->nclauses, fn, ctx, mode);
        walk_clauses(e->catches, e->ncatches, fn, ctx, mode);
        for (int i = 0; i < e->nafter; i++) cg_collect_vars(e->after[i], fn, ctx, mode);
        if (e->timeout) cg_collect_vars(e->timeout, fn, ctx, mode);
        for (int i = 0; i < e->nfields; i++) {
            if (e->fields[i].key) cg_collect_vars(e->fields[i].key, fn, ctx, mode);
            if (e->fields[i].value) cg_collect_vars(e->fields[i].value, fn, ctx, mode);
            if (e->fields[i].size) cg_collect_vars(e->fields[i].size, fn, ctx, mode);
        }
        e = e->b;
    }
}

static void walk_clauses(Clause **cs, int n, void (*fn)(void *, const char *, int), void *ctx, int mode) {
    for (int i = 0; i < n; i++) {
        Clause *c = cs[i];
        for (int j = 0; j < c->npat; j++)
            if (c->patterns[j]) cg_collect_vars(c->patterns[j], fn, ctx, mode);
        if (c->guard)
            for (int a = 0; a < c->guard->nalts; a++)
                for (int t = 0; t < c->guard->alts[a].ntests; t++)
                    cg_collect_vars(c->guard->alts[a].tests[t], fn, ctx, mode);
        for (int j = 0; j < c->nbody; j++) cg_collect_vars(c->body[j], fn, ctx, mode);
    }
}

/* ---- catch markers ------------------------------------------------------ */

/* The emulator unwinds to the first catch marker above the stack top, so in a
 * frame an inner try/catch must use a lower y slot than the one around it:
 * the marker of nesting depth d is y(cmax-1-d), cmax the deepest nesting. */
static int max2(int a, int b) { return a > b ? a : b; }

static int catch_depth(Expr *e);

static int catch_depth_body(Expr **es, int n) {
    int d = 0;
    for (int i = 0; i < n; i++) d = max2(d, catch_depth(es[i]));
    return d;
}

static int catch_depth_clauses(Clause **cs, int n) {
    int d = 0;
    for (int i = 0; i < n; i++) d = max2(d, catch_depth_body(cs[i]->body, cs[i]->nbody));
    return d;
}

static int catch_depth(Expr *e) {
    int d = 0;
    while (e) {
        switch (e->kind) {
        case E_FUN: case E_FUNREF: return d;
        case E_CATCH: return max2(d, 1 + catch_depth(e->a));
        case E_TRY: {
            int in = max2(catch_depth_body(e->body, e->nbody),
                          max2(catch_depth_clauses(e->clauses, e->nclauses),
                               max2(catch_depth_clauses(e->catches, e->ncatches),
                                    catch_depth_body(e->after, e->nafter))));
            return max2(d, in + (e->ncatches ? 1 : 0) + (e->nafter ? 1 : 0));
        }
        case E_LC: case E_BIN_LC:
            for (int i = 0; i < e->n; i++) {
                Expr *q = e->elems[i];
                if (q->kind == E_GENERATOR) return max2(d, catch_depth(q->b));
                d = max2(d, catch_depth(q));
            }
            d = max2(d, catch_depth(e->a));
            e = e->b;
            continue;
        case E_CONS:
            d = max2(d, catch_depth(e->a));
            e = e->b;
            continue;
        default:
            break;
        }
        if (e->mod) d = max2(d, catch_depth(e->mod));
        if (e->fun) d = max2(d, catch_depth(e->fun));
        d = max2(d, catch_depth_body(e->elems, e->n));
        if (e->body != e->elems) d = max2(d, catch_depth_body(e->body, e->nbody));
        d = max2(d, catch_depth_clauses(e->clauses, e->nclauses));
        d = max2(d, catch_depth_clauses(e->catches, e->ncatches));
        d = max2(d, catch_depth_body(e->after, e->nafter));
        if (e->timeout) d = max2(d, catch_depth(e->timeout));
        if (e->a) d = max2(d, catch_depth(e->a));
        for (int i = 0; i < e->nfields; i++) {     /* map keys and values, segments */
            Field *fl = &e->fields[i];
            if (fl->key) d = max2(d, catch_depth(fl->key));
            if (fl->value) d = max2(d, catch_depth(fl->value));
            if (fl->size) d = max2(d, catch_depth(fl->size));
        }
        e = e->b;
    }
    return d;
}

int cg_marker(Fn *f) {
    int d = f->cdepth++;
    if (d >= f->cmax) {
        if (!f->g->errors) fprintf(stderr, "mini: internal: catch nesting miscounted\n");
        return cg_alloc_y(f, R_TEMP);
    }
    return f->cmax - 1 - d;
}

void cg_marker_end(Fn *f) { f->cdepth--; }

static void mark_inbody(void *ctx, const char *name, int weak) {
    Fn *f = ctx;
    if (weak && cg_var_find(f, name) < 0) return;
    if (f->gf->self && name == f->gf->self) {
        int v = cg_var_find(f, name);
        if (v < 0 || !f->bound[v]) return;
    }
    int v = cg_var(f, name);
    f->inbody[v] = 1;
}

/* ---- functions ----------------------------------------------------------- */

static Fn *fn_new(Gen *g, GenFun *gf, int frame) {
    Fn *f = GC_MALLOC(sizeof *f);
    f->g = g; f->gf = gf; f->frame = frame; f->xhi = -1;
    return f;
}

static void emit_stubs(Fn *f) {
    for (int i = 0; i < f->nstubs; i++) {
        Stub *s = &f->stubs[i];
        cg_label(f, s->label);
        cg_line(f, s->line);
        switch (s->kind) {
        case ST_BADMATCH: cg_op(f, OP_badmatch, 1, s->op); break;
        case ST_CASE_END: cg_op(f, OP_case_end, 1, s->op); break;
        case ST_IF_END: cg_op(f, OP_if_end, 0); break;
        case ST_TRY_CASE_END: cg_op(f, OP_try_case_end, 1, s->op); break;
        case ST_ERROR_TUPLE: {
            cg_move(f, s->op, REG_X(0));
            cg_op(f, OP_test_heap, 2, (UWord)3, (UWord)1);
            cg_op(f, OP_put_tuple, 4, REG_X(0), (UWord)2, s->tag, REG_X(0));
            cg_op(f, OP_bif, 6, (UWord)0, (UWord)bif_lookup("erlang", "error", 1), (UWord)1,
                  REG_X(0), (UWord)1, REG_X(0));
            break;
        }
        }
    }
}

typedef struct VarCount { Fn *f; unsigned short *n; } VarCount;

static void count_var(void *ctx, const char *name, int weak) {
    (void)weak;
    VarCount *c = ctx;
    int v = cg_var_find(c->f, name);
    if (v >= 0) c->n[v]++;
}

/* The variables of a framed clause that need no y slot: those read only by
 * the first call the body makes, when that call's arguments make no call,
 * so that nothing runs between the allocate and the call that could clobber
 * an x register. The first call is the body's first expression (or X = it),
 * or, when its arguments make calls, the first of those arguments, and so
 * on inward (setup_args evaluates the arguments that call first, in order):
 * in foldl_1(F, F(Hd, Acc), Tail) it is F(Hd, Acc), and Hd and Acc die
 * there. Without this every variable the body reads was moved to a y slot
 * and back (foldl_1: seven moves and four slots, now four and two). BEAM's
 * compiler gets the same from its liveness analysis. Fills early[v] for
 * the clause's variables; 0 when there are none, or too many to count. */
#define EARLY_MAX_VARS 256

/* A value computed before the first call without touching another x
 * register than a fresh temporary: arithmetic, comparisons and BIFs over
 * variables and constants. */
static int plain_leaf(Fn *f, Expr *e) {
    Term t;
    if (cg_const(f, e, &t)) return 1;
    switch (e->kind) {
    case E_VAR: return !cg_is_self(f, e);
    case E_BINOP: return e->op != OP_SEND && plain_leaf(f, e->a) && plain_leaf(f, e->b);
    case E_UNOP: return plain_leaf(f, e->a);
    case E_CALL: {
        CallInfo ci;
        cg_classify(f, e, &ci, 1);
        if (ci.kind != CK_BIF) return 0;
        for (int i = 0; i < e->n; i++)
            if (!plain_leaf(f, e->elems[i])) return 0;
        return 1;
    }
    default: return 0;
    }
}

/* A body that starts by building a list or tuple, or by an operator, one
 * of whose parts calls ([X * 3 | map(T)], H + sum(T)): the parts are
 * evaluated in order (cg_oplist), those before the one that calls are
 * computed into y slots, so the variables they read die there, as the
 * call's own do. Returns the part that calls (NULL if there is none, or a
 * part before it is not plain) and the computed parts before it in
 * *before. A bare variable before the call is read after it, when the
 * list is built: it is no computed part, so it is not counted there. */
static Expr *first_call_part(Fn *f, Expr *e, Expr ***before, int *nbefore) {
    Expr **parts, *pair[2];
    int n;
    Skel s;
    if (e->kind == E_CONS || e->kind == E_TUPLE) {
        memset(&s, 0, sizeof s);
        skel_collect(f, &s, e);
        parts = s.leaves;
        n = s.n;
    } else if (e->kind == E_BINOP && e->op != OP_SEND && !cg_is_farith(f, e)) {
        pair[0] = e->a;
        pair[1] = e->b;
        parts = pair;
        n = 2;
    } else {
        return e;
    }
    Expr **computed = GC_MALLOC(sizeof(Expr *) * ((size_t)n + 1));
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (cg_has_call(f, parts[i])) {
            *before = computed;
            *nbefore = k;
            return parts[i];
        }
        if (!plain_leaf(f, parts[i])) return NULL;
        if (parts[i]->kind != E_VAR) computed[k++] = parts[i];
    }
    return NULL;
}

static int early_vars(Fn *f, Clause *c, char *early) {
    if (c->nbody == 0 || f->nv > EARLY_MAX_VARS) return 0;
    Expr *e0 = c->body[0], *call = e0->kind == E_MATCH ? e0->b : e0;
    Expr **before = NULL;
    int nbefore = 0;
    call = first_call_part(f, call, &before, &nbefore);
    if (!call) return 0;
    for (;;) {
        if (call->kind != E_CALL) return 0;
        CallInfo ci;
        cg_classify(f, call, &ci, 1);
        if (ci.kind == CK_BIF) return 0;
        if ((call->fun && cg_has_call(f, call->fun)) || (call->mod && cg_has_call(f, call->mod)))
            return 0;
        int first = -1;
        for (int i = 0; i < call->n && first < 0; i++)
            if (cg_has_call(f, call->elems[i])) first = i;
        if (first < 0) break;
        call = call->elems[first];
    }
    /* read only there: as often in the call as in the whole expression,
     * and not at all in the rest of the body (the counts stay far below
     * 65,536: a clause's source is not that long) */
    unsigned short in_call[EARLY_MAX_VARS] = {0}, in_e0[EARLY_MAX_VARS] = {0};
    VarCount cc = { f, in_call }, ce = { f, in_e0 };
    cg_collect_vars(call, count_var, &cc, 1);
    for (int i = 0; i < nbefore; i++) cg_collect_vars(before[i], count_var, &cc, 1);
    cg_collect_vars(e0, count_var, &ce, 1);
    for (int i = 1; i < c->nbody; i++) cg_collect_vars(c->body[i], count_var, &ce, 1);
    int any = 0;
    for (int v = 0; v < f->nv; v++) any |= early[v] = in_call[v] > 0 && in_call[v] == in_e0[v];
    return any;
}

static void clause_body(Fn *f, Clause *c, int fail, int state, int reset, Expr *key) {
    GenFun *gf = f->gf;
    for (int i = 0; i < gf->arity; i++) f->xs[i] = R_ARG;
    f->xhi = gf->arity - 1;
    if (state) {                      /* the state's start position (codegen_bsm.c) */
        f->xs[gf->arity] = R_ARG;
        f->xhi = gf->arity;
        f->state_pat = c->patterns[gf->state_arg];
        f->state_reset = reset;
        f->state_key = key;
        if (key) {                    /* and the first byte, read already */
            f->xs[gf->arity + 1] = R_ARG;
            f->xhi = gf->arity + 1;
        }
    }
    cg_bsm_clause(f, c);
    f->head = 1;
    f->bif_fail = fail;
    for (int i = 0; i < gf->nparams && i < c->npat; i++) cg_match(f, c->patterns[i], REG_X(i), fail);
    for (int i = 0; i < gf->nfree; i++) {
        int v = cg_var(f, gf->free[i]);
        if (!f->bound[v]) cg_bind(f, v, REG_X(gf->nparams + i));
    }
    cg_guard(f, c->guard, fail);
    f->bif_fail = 0;
    for (int i = 0; i < c->nbody; i++) cg_collect_vars(c->body[i], mark_inbody, f, 1);
    cg_fvars(f, c);
    if (f->frame) {
        f->cmax = catch_depth_body(c->body, c->nbody);
        for (int i = 0; i < f->cmax; i++) { ygrow(f, i); f->ys[i] = R_VAR; }
        f->ymax = f->cmax;
        int live = cg_xlive(f);
        cg_emit(f, OP_allocate); cg_fs(f); cg_emit(f, (UWord)live);
        char early[EARLY_MAX_VARS];
        int nearly = early_vars(f, c, early) ? f->nv : 0;
        short keep[MAX_REG];
        for (int r = 0; r < MAX_REG; r++) keep[r] = -1;
        for (int v = 0; v < f->nv; v++) {
            if (!f->inbody[v]) { f->vloc[v] = NOOP; continue; }
            if (!f->bound[v] && f->fcap[v] && !cg_fboxed(f, v)) { f->vloc[v] = NOOP; continue; }
            if (v < nearly && early[v] && f->bound[v] && !f->fcap[v] && operand_is_x(f->vloc[v]) &&
                keep[operand_x_index(f->vloc[v])] < 0) {
                keep[operand_x_index(f->vloc[v])] = (short)v;    /* stays where it is */
                continue;
            }
            UWord y = REG_Y(cg_alloc_y(f, R_VAR));
            if (f->bound[v]) cg_move(f, f->vloc[v], y);
            f->vloc[v] = y;
        }
        f->xhi = -1;
        for (int r = 0; r < MAX_REG; r++) {
            f->xs[r] = keep[r] < 0 ? R_FREE : R_VAR;
            if (keep[r] >= 0) { f->xvar[r] = keep[r]; f->xhi = r; }
        }
    } else {
        for (int v = 0; v < f->nv; v++) {
            if (!f->inbody[v] || f->bound[v]) continue;
            if (f->fcap[v] && !cg_fboxed(f, v)) continue;     /* lives in a float register */
            int r = cg_alloc_x(f, R_VAR);
            f->xvar[r] = (short)v;
            f->vloc[v] = REG_X(r);
        }
    }
    f->head = 0;
    cg_fpreload(f, c);
    cg_body(f, c->body, c->nbody, 1, REG_X(0));
    for (int i = 0; i < f->npatch; i++) f->g->code[f->patch[i]] = (UWord)f->ymax;
    emit_stubs(f);
}

static int predict_frame(Fn *f, Clause *c) {
    return pred_body(f, c->body, c->nbody, 1);
}

static void gen_clause(Gen *g, GenFun *gf, Clause *c, int fail, int state, int reset, Expr *key) {
    size_t ncode = g->ncode;
    int ngfs = g->ngfs, nlambdas = g->nlambdas, nfrefs = g->nfrefs, line = g->cur_line;
    int fc = g->fun_counter, lc = g->lc_counter, errors = g->errors;
    Fn *probe = fn_new(g, gf, 0);
    int frame = predict_frame(probe, c);
    BoxSet *boxset = GC_MALLOC(sizeof *boxset);
    for (;;) {
        Fn *f = fn_new(g, gf, frame);
        f->boxset = boxset;
        clause_body(f, c, fail, state, reset, key);
        if (((f->retry && !frame) || f->fretry) && g->errors == errors) {
            g->ncode = ncode; g->ngfs = ngfs; g->nlambdas = nlambdas; g->nfrefs = nfrefs;
            g->last_move = SIZE_MAX;
            g->cur_line = line; g->fun_counter = fc; g->lc_counter = lc;
            if (f->retry) frame = 1;
            continue;
        }
        break;
    }
}

static void gen_function(Gen *g, GenFun *gf) {
    Fn *f = fn_new(g, gf, 0);
    g->cur_line = -1;
    cg_label(f, gf->info_label);
    cg_line(f, gf->line);
    cg_op(f, OP_func_info, 3, g->modname, cg_atom(gf->name), (UWord)gf->arity);
    cg_label(f, gf->entry_label);
    switch (gf->kind) {
    case GF_FUNREF_LOCAL:
        cg_op(f, OP_call_only, 2, (UWord)gf->arity, (UWord)gf->target_label);
        return;
    case GF_FUNREF_EXT:
        cg_op(f, OP_call_ext_only, 2, (UWord)gf->arity, (UWord)gf->target_import);
        return;
    }
    /* a state argument: one match state for its clauses (codegen_bsm.c) */
    int sa = cg_state_arg(g, gf), ns = sa >= 0 ? gf->state_clauses : 0;
    int after = ns == 0 || ns == gf->nclauses ? gf->info_label : ++g->nlabels;
    if (sa >= 0) {
        cg_op(f, OP_bs_start_match, 4, (UWord)after, REG_X(sa), REG_X(sa), (UWord)gf->arity);
        cg_label(f, gf->state_label);
        cg_op(f, OP_bs_get_position, 2, REG_X(sa), REG_X(gf->arity));
    }
    int moved = 0;                      /* a clause before may have moved the state */
    for (int i = 0; i < gf->nclauses;) {
        int run = i < ns ? cg_bsm_byte_run(gf, i) : 0;
        Expr *var = run >= 1 && i + run < ns ? cg_bsm_var_byte(gf, i + run) : NULL;
        int select = run >= 2 || var;
        int next = i + (select ? run + (var != NULL) : 1);
        int last = next == gf->nclauses;
        int fail = last && ns != gf->nclauses ? gf->info_label : ++g->nlabels;
        if (select) {
            /* clauses that start with different bytes, and perhaps one after
             * them that takes any byte: read the byte once and jump to the
             * one clause it may be (codegen_bsm.c) */
            UWord key = REG_X(gf->arity + 1), spec = make_small(BS_INTEGER | (1 << BS_UNIT_SHIFT));
            int any = var ? ++g->nlabels : fail, again = var ? ++g->nlabels : fail;
            if (moved) cg_op(f, OP_bs_set_position, 2, REG_X(sa), REG_X(gf->arity));
            cg_op(f, OP_bs_get, 5, (UWord)fail, REG_X(sa), spec, make_small(8), key);
            int *at = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)run);
            cg_op(f, OP_select_val, 3, key, (UWord)any, (UWord)run);
            for (int j = 0; j < run; j++) {
                at[j] = ++g->nlabels;
                cg_emit(f, make_small(cg_bsm_run_byte(gf, i + j)));
                cg_emit(f, (UWord)at[j]);
            }
            for (int j = 0; j < run; j++) {
                cg_label(f, at[j]);
                gen_clause(g, gf, cg_bsm_after_byte(gf, i + j), again, 1, 0, NULL);
            }
            if (var) {
                /* a clause of the run failed after its byte: read it again */
                cg_label(f, again);
                cg_op(f, OP_bs_set_position, 2, REG_X(sa), REG_X(gf->arity));
                cg_op(f, OP_bs_get, 5, (UWord)fail, REG_X(sa), spec, make_small(8), key);
                cg_label(f, any);
                gen_clause(g, gf, cg_bsm_after_byte(gf, i + run), fail, 1, 0, var);
            }
            moved = 1;
        } else {
            gen_clause(g, gf, gf->clauses[i], fail, i < ns, moved, NULL);
            if (i < ns && gf->clauses[i]->patterns[sa]->nfields > 0) moved = 1;
        }
        i = next;
        if (last && ns != gf->nclauses) break;
        cg_label(f, fail);
        if (i == ns) {
            /* none of the state's clauses matched: the argument as it came */
            cg_op(f, OP_bs_set_position, 2, REG_X(sa), REG_X(gf->arity));
            if (after == gf->info_label) cg_op(f, OP_jump, 1, (UWord)gf->info_label);
            else cg_label(f, after);
        }
    }
}

static int is_exported(Module *m, const char *name, int arity) {
    if (m->export_all) return 1;
    for (int i = 0; i < m->nexports; i++)
        if (m->exports[i].name == name && m->exports[i].arity == arity) return 1;
    return 0;
}

CodeModule *codegen_module(Module *m) {
    Gen *g = GC_MALLOC(sizeof *g);
    g->m = m;
    g->last_move = SIZE_MAX;
    cg_atoms_full = 0;
    records_lower(m);                 /* records become tuples (records.c) */
    types_infer(m);                   /* which expressions yield floats (types.c) */
    g->modname = cg_atom(m->name ? m->name : "nofile");
    for (int i = 0; i < m->nfunctions; i++) {
        Function *fn = m->functions[i];
        GenFun *gf = cg_new_genfun(g);
        gf->name = fn->name; gf->arity = fn->arity; gf->nparams = fn->arity;
        gf->clauses = fn->clauses; gf->nclauses = fn->nclauses;
        gf->line = fn->line;
        gf->top = fn->name; gf->top_arity = fn->arity;
        gf->exported = is_exported(m, fn->name, fn->arity);
    }
    for (int i = 0; i < g->ngfs; i++) gen_function(g, g->gfs[i]);
    if (cg_atoms_full) {
        fprintf(stderr, "%s: system_limit: the atom table is full (%lu atoms, +t raises it)\n",
                m->file ? m->file : "nofile", (unsigned long)atom_limit());
        return NULL;
    }
    if (g->errors) return NULL;

    CodeModule *cm = GC_MALLOC(sizeof *cm);
    cm->name = g->modname;
    cm->file = m->file;
    cm->code = g->code; cm->ncode = g->ncode;
    cm->nlabels = g->nlabels;
    cm->imports = g->imports; cm->nimports = g->nimports;
    cm->nfunctions = g->ngfs;
    cm->functions = GC_MALLOC(sizeof(CodeFunction) * ((size_t)g->ngfs + 1));
    for (int i = 0; i < g->ngfs; i++) {
        GenFun *gf = g->gfs[i];
        CodeFunction *cf = &cm->functions[i];
        cf->name = cg_atom(gf->name);
        cf->arity = gf->arity;
        cf->label = gf->entry_label;
        cf->info_label = gf->info_label;
        cf->exported = gf->exported;
    }
    cm->lambdas = g->lambdas; cm->nlambdas = g->nlambdas;
    return cm;
}
