/* modcache.c — a CodeModule to bytes and back (see modcache.h).
 *
 * Layout (host words, every count checked on the way back):
 *
 *   "MINIMBC1"  fingerprint  source hash  source length
 *   atoms:      count, then each as length and bytes
 *   module:     atom index;  nlabels
 *   imports:    count, then (module, name, arity)
 *   functions:  count, then (name, arity, label, info_label, exported)
 *   lambdas:    count, then (function, arity, nfree, name)
 *   literals:   count, then each constant (encode_term)
 *   code:       count, then the words, an atom or constant operand as 0
 *               (so the file does not depend on this run's atom numbers)
 *   fixups:     count, then (position, kind, index): the atom or constant
 *               that goes at that position of the code
 *
 * The operands that hold terms are found by the instruction formats of
 * opcodes.def (s, a, n, J), as the loader reads them.
 */
#include <gc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modcache.h"
#include "atom.h"
#include "literal.h"
#include "loader.h"           /* module_read_file */
#include "compiler_id.h"      /* MINI_COMPILER_ID: a hash of compiler/ (Makefile) */

#define MAGIC "MINIMBC1"
#define MAX_DEPTH 10000      /* nesting of a constant; deeper is not cached */

enum { K_SMALL = 1, K_ATOM, K_NIL, K_TUPLE, K_LIST, K_RAW, K_EMPTY_MAP };
enum { FIX_ATOM = 0, FIX_LITERAL = 1 };

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s, strlen(s) + 1); }

/* What a cache must have been made by: the same instruction set, BIF table,
 * word layout and compiler sources. Computed once (a hundred thousand
 * instructions, as much as decoding a small module). */
static uint64_t the_fingerprint;
static pthread_once_t fingerprint_once = PTHREAD_ONCE_INIT;

static void compute_fingerprint(void) {
    uint64_t h = fnv_str(1469598103934665603ULL, MAGIC);
    uint64_t probe = 0x0102030405060708ULL;
    h = fnv(h, &probe, sizeof probe);                 /* byte order and word size */
    h = fnv_str(h, MINI_COMPILER_ID);
    for (int i = 0; i < OP__COUNT; i++) h = fnv_str(fnv_str(h, opcode_names[i]), opcode_formats[i]);
    for (int i = 0; i < bif_count; i++) {
        h = fnv_str(fnv_str(h, bif_names[i].module), bif_names[i].name);
        h = fnv(h, &bif_names[i].arity, sizeof bif_names[i].arity);
    }
    the_fingerprint = h;
}

static uint64_t fingerprint(void) {
    pthread_once(&fingerprint_once, compute_fingerprint);
    return the_fingerprint;
}

static uint64_t source_hash(const char *src, size_t len) {
    return fnv(1469598103934665603ULL, src, len);
}

/* ---- writing ---- */

typedef struct { unsigned char *b; size_t n, cap; int bad; } Buf;

typedef struct {
    Buf lits, fix;                    /* the constants, the fixups */
    uint32_t nlits, nfix;
    Term *atoms; uint32_t natoms;     /* every atom named, in order of first use */
    uint32_t *slots; uint32_t nslots; /* open addressing: atom -> index + 1 */
    int bad;                          /* a constant the format cannot hold, or no memory */
} Enc;

static void put(Buf *b, const void *p, size_t n) {
    if (b->bad || n == 0) return;                     /* an empty part may have no buffer */
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->n + n) cap *= 2;
        unsigned char *nb = realloc(b->b, cap);
        if (!nb) { b->bad = 1; return; }
        b->b = nb; b->cap = cap;
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void put32(Buf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put64(Buf *b, uint64_t v) { put(b, &v, sizeof v); }

static uint32_t atom_slot(Term a, uint32_t nslots) {
    return (uint32_t)((a * 0x9E3779B97F4A7C15ULL) >> 40) & (nslots - 1);
}

static uint32_t atom_index(Enc *e, Term a) {
    if (e->natoms * 2 >= e->nslots) {                 /* grow and rehash */
        uint32_t ns = e->nslots ? e->nslots * 2 : 1024;
        uint32_t *slots = calloc(ns, sizeof *slots);
        Term *atoms = realloc(e->atoms, sizeof *atoms * ns);
        if (atoms) e->atoms = atoms;
        if (!slots || !atoms) { free(slots); e->bad = 1; return 0; }
        for (uint32_t i = 0; i < e->natoms; i++) {
            uint32_t s = atom_slot(atoms[i], ns);
            while (slots[s]) s = (s + 1) & (ns - 1);
            slots[s] = i + 1;
        }
        free(e->slots);
        e->slots = slots; e->nslots = ns;
    }
    uint32_t s = atom_slot(a, e->nslots);
    for (; e->slots[s]; s = (s + 1) & (e->nslots - 1))
        if (e->atoms[e->slots[s] - 1] == a) return e->slots[s] - 1;
    e->atoms[e->natoms] = a;
    e->slots[s] = ++e->natoms;
    return e->natoms - 1;
}

static void encode_term(Enc *e, Term t, int depth) {
    Buf *b = &e->lits;
    if (depth > MAX_DEPTH) { e->bad = 1; return; }
    if (is_small(t)) { put32(b, K_SMALL); put64(b, (uint64_t)t); return; }
    if (is_atom(t)) { put32(b, K_ATOM); put32(b, atom_index(e, t)); return; }
    if (is_nil(t)) { put32(b, K_NIL); return; }
    if (is_list(t)) {
        uint32_t n = 0;
        Term c = t;
        for (; is_list(c); c = list_tail(c)) n++;
        put32(b, K_LIST); put32(b, n);
        for (c = t; is_list(c); c = list_tail(c)) encode_term(e, list_head(c), depth + 1);
        encode_term(e, c, depth + 1);
        return;
    }
    if (!is_boxed(t)) { e->bad = 1; return; }         /* a pid, a port: never a constant */
    if (t == lit_map_empty()) { put32(b, K_EMPTY_MAP); return; }
    const Term *p = boxed_ptr(t);
    UWord arity = header_arity(p[0]);
    switch (header_subtag(p[0])) {
    case BOXED_TUPLE:
        put32(b, K_TUPLE); put32(b, (uint32_t)arity);
        for (UWord i = 1; i <= arity; i++) encode_term(e, p[i], depth + 1);
        return;
    case BOXED_POS_BIG: case BOXED_NEG_BIG: case BOXED_FLOAT: case BOXED_HEAP_BIN:
        /* words with no pointer in them: the header and the payload as they are */
        put32(b, K_RAW); put32(b, (uint32_t)(arity + 1));
        put(b, p, sizeof(Term) * (arity + 1));
        return;
    default:
        e->bad = 1;                                    /* a fun, a ref, a map with keys */
    }
}

/* A term operand at code[pos]: an atom or a constant gets a fixup; other
 * immediates (small integers, []) stay in the code as they are. */
static void operand_term(Enc *e, const UWord *code, size_t pos) {
    Term t = (Term)code[pos];
    if (is_atom(t)) {
        put64(&e->fix, pos); put32(&e->fix, FIX_ATOM); put32(&e->fix, atom_index(e, t));
    } else if (is_list(t) || is_boxed(t)) {
        encode_term(e, t, 0);
        put64(&e->fix, pos); put32(&e->fix, FIX_LITERAL); put32(&e->fix, e->nlits++);
    } else {
        if (!is_small(t) && !is_nil(t)) e->bad = 1;
        return;
    }
    e->nfix++;
}

/* Every term operand of the code, found by the instruction formats. */
static void scan_code(Enc *e, const CodeModule *cm) {
    const UWord *code = cm->code;
    for (size_t i = 0; i < cm->ncode && !e->bad;) {
        UWord op = code[i];
        if (op >= OP__COUNT) { e->bad = 1; return; }
        size_t at = i + 1;
        for (const char *f = opcode_formats[op]; *f; f++) {
            if (at >= cm->ncode) { e->bad = 1; return; }
            if (*f == 'n' || *f == 'J') {            /* a count, then sources or pairs; always last */
                int pairs = *f == 'J';
                UWord n = code[at++];
                if (n > (cm->ncode - at) >> pairs) { e->bad = 1; return; }
                for (UWord k = 0; k < n; k++, at += 1 + (size_t)pairs)
                    if (pairs || operand_is_literal(code[at])) operand_term(e, code, at);
                break;
            }
            if ((*f == 's' && operand_is_literal(code[at])) || *f == 'a') operand_term(e, code, at);
            at++;
        }
        i = at;
    }
}

int modcache_write(const char *path, const CodeModule *cm, const char *src, size_t len) {
    Enc e = {0};
    Buf out = {0};
    scan_code(&e, cm);
    /* the tables name atoms too: all of them indexed before the atom table is written */
    uint32_t mod = atom_index(&e, cm->name);
    for (int i = 0; i < cm->nimports; i++) {
        atom_index(&e, cm->imports[i].module);
        atom_index(&e, cm->imports[i].name);
    }
    for (int i = 0; i < cm->nfunctions; i++) atom_index(&e, cm->functions[i].name);
    for (int i = 0; i < cm->nlambdas; i++) atom_index(&e, cm->lambdas[i].name);
    int result = 0;
    if (e.lits.bad || e.fix.bad) e.bad = 1;
    UWord *code = e.bad ? NULL : malloc(sizeof(UWord) * cm->ncode);
    if (!code) e.bad = 1;
    if (!e.bad) {
        /* a fixed-up word is written as 0: the file does not depend on
         * where this run's atom table put an atom */
        memcpy(code, cm->code, sizeof(UWord) * cm->ncode);
        for (size_t k = 0; k < e.fix.n; k += 16) {
            uint64_t pos;
            memcpy(&pos, e.fix.b + k, sizeof pos);
            code[pos] = 0;
        }
        put(&out, MAGIC, 8);
        put64(&out, fingerprint());
        put64(&out, source_hash(src, len));
        put64(&out, len);
        put32(&out, e.natoms);
        for (uint32_t i = 0; i < e.natoms; i++) {
            size_t alen;
            const char *name = atom_name(e.atoms[i], &alen);
            put32(&out, (uint32_t)alen);
            put(&out, name, alen);
        }
        put32(&out, mod);
        put32(&out, (uint32_t)cm->nlabels);
        put32(&out, (uint32_t)cm->nimports);
        for (int i = 0; i < cm->nimports; i++) {
            put32(&out, atom_index(&e, cm->imports[i].module));
            put32(&out, atom_index(&e, cm->imports[i].name));
            put32(&out, (uint32_t)cm->imports[i].arity);
        }
        put32(&out, (uint32_t)cm->nfunctions);
        for (int i = 0; i < cm->nfunctions; i++) {
            const CodeFunction *f = &cm->functions[i];
            put32(&out, atom_index(&e, f->name));
            put32(&out, (uint32_t)f->arity); put32(&out, (uint32_t)f->label);
            put32(&out, (uint32_t)f->info_label); put32(&out, (uint32_t)f->exported);
        }
        put32(&out, (uint32_t)cm->nlambdas);
        for (int i = 0; i < cm->nlambdas; i++) {
            const CodeLambda *l = &cm->lambdas[i];
            put32(&out, (uint32_t)l->function); put32(&out, (uint32_t)l->arity);
            put32(&out, (uint32_t)l->nfree); put32(&out, atom_index(&e, l->name));
        }
        put32(&out, e.nlits);
        put(&out, e.lits.b, e.lits.n);
        put64(&out, cm->ncode);
        put(&out, code, sizeof(UWord) * cm->ncode);
        put32(&out, e.nfix);
        put(&out, e.fix.b, e.fix.n);
    }
    if (!e.bad && !out.bad) {
        /* written whole under another name, then renamed: a reader never
         * sees half a file */
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        result = -1;
        if (f) {
            int ok = fwrite(out.b, 1, out.n, f) == out.n;
            if (fclose(f) != 0) ok = 0;
            if (ok && rename(tmp, path) == 0) result = 1;
            else remove(tmp);
        }
    }
    free(code); free(out.b); free(e.lits.b); free(e.fix.b); free(e.atoms); free(e.slots);
    return result;
}

/* ---- reading ---- */

typedef struct {
    const unsigned char *b; size_t n, at;
    int bad;
    Term *atoms; uint32_t natoms;
} Dec;

static int get(Dec *d, void *p, size_t n) {
    if (d->bad || n > d->n - d->at) { d->bad = 1; memset(p, 0, n); return 0; }
    memcpy(p, d->b + d->at, n);
    d->at += n;
    return 1;
}
static uint32_t get32(Dec *d) { uint32_t v; get(d, &v, sizeof v); return v; }
static uint64_t get64(Dec *d) { uint64_t v; get(d, &v, sizeof v); return v; }

static Term get_atom(Dec *d) {
    uint32_t i = get32(d);
    if (i >= d->natoms) { d->bad = 1; return NIL; }
    return d->atoms[i];
}

/* A count of things of at least `each` bytes that the rest of the file can hold. */
static uint32_t get_count(Dec *d, size_t each) {
    uint32_t n = get32(d);
    if (each && n > (d->n - d->at) / each) { d->bad = 1; return 0; }
    return n;
}

static Term decode_term(Dec *d, int depth) {
    if (d->bad || depth > MAX_DEPTH) { d->bad = 1; return NIL; }
    switch (get32(d)) {
    case K_SMALL: {
        Term t = (Term)get64(d);
        if (!is_small(t)) d->bad = 1;
        return d->bad ? NIL : t;
    }
    case K_ATOM: return get_atom(d);
    case K_NIL: return NIL;
    case K_EMPTY_MAP: return lit_map_empty();
    case K_TUPLE: {
        uint32_t n = get_count(d, 4);
        Term *el = n ? GC_MALLOC(sizeof(Term) * n) : NULL;
        if (n && !el) { d->bad = 1; return NIL; }
        for (uint32_t i = 0; i < n && !d->bad; i++) el[i] = decode_term(d, depth + 1);
        return d->bad ? NIL : lit_tuple(el, n);
    }
    case K_LIST: {
        uint32_t n = get_count(d, 4);
        Term *el = n ? GC_MALLOC(sizeof(Term) * n) : NULL;
        if (n && !el) { d->bad = 1; return NIL; }
        for (uint32_t i = 0; i < n && !d->bad; i++) el[i] = decode_term(d, depth + 1);
        Term t = decode_term(d, depth + 1);
        for (uint32_t i = n; i > 0 && !d->bad; i--) t = lit_cons(el[i - 1], t);
        return d->bad ? NIL : t;
    }
    case K_RAW: {
        uint32_t w = get_count(d, sizeof(Term));
        if (w == 0) { d->bad = 1; return NIL; }
        Term *p = lit_alloc(w);
        get(d, p, sizeof(Term) * w);
        if (d->bad) return NIL;
        UWord kind = header_subtag(p[0]);
        if (header_arity(p[0]) + 1 != w ||
            (kind != BOXED_POS_BIG && kind != BOXED_NEG_BIG && kind != BOXED_FLOAT &&
             kind != BOXED_HEAP_BIN)) {
            d->bad = 1;
            return NIL;
        }
        return make_boxed(p);
    }
    default:
        d->bad = 1;
        return NIL;
    }
}

CodeModule *modcache_decode(const unsigned char *b, size_t n, const char *src, size_t len,
                            const char *file, Term expect) {
    Dec d = { .b = b, .n = n };
    char magic[8];
    get(&d, magic, 8);
    if (d.bad || memcmp(magic, MAGIC, 8) != 0) return NULL;
    if (get64(&d) != fingerprint() || get64(&d) != source_hash(src, len) || get64(&d) != len || d.bad)
        return NULL;
    d.natoms = get_count(&d, 4);
    d.atoms = GC_MALLOC(sizeof(Term) * (d.natoms + 1));
    if (!d.atoms) return NULL;
    for (uint32_t i = 0; i < d.natoms && !d.bad; i++) {
        uint32_t alen = get_count(&d, 1);
        if (d.bad || alen > 255 * 4) return NULL;
        char name[255 * 4 + 1];
        get(&d, name, alen);
        if (d.bad) return NULL;
        d.atoms[i] = atom_intern(name, alen);
        if (!is_atom(d.atoms[i])) return NULL;         /* the atom table is full */
    }
    CodeModule *cm = GC_MALLOC(sizeof *cm);
    if (!cm) return NULL;
    cm->name = get_atom(&d);
    if (expect && cm->name != expect) return NULL;
    cm->file = file;
    cm->nlabels = (int)get32(&d);
    cm->nimports = (int)get_count(&d, 12);
    cm->imports = GC_MALLOC(sizeof *cm->imports * ((size_t)cm->nimports + 1));
    for (int i = 0; i < cm->nimports && !d.bad; i++) {
        cm->imports[i].module = get_atom(&d);
        cm->imports[i].name = get_atom(&d);
        cm->imports[i].arity = (int)get32(&d);
    }
    cm->nfunctions = (int)get_count(&d, 20);
    cm->functions = GC_MALLOC(sizeof *cm->functions * ((size_t)cm->nfunctions + 1));
    for (int i = 0; i < cm->nfunctions && !d.bad; i++) {
        CodeFunction *f = &cm->functions[i];
        f->name = get_atom(&d);
        f->arity = (int)get32(&d); f->label = (int)get32(&d);
        f->info_label = (int)get32(&d); f->exported = (int)get32(&d);
    }
    cm->nlambdas = (int)get_count(&d, 16);
    cm->lambdas = GC_MALLOC(sizeof *cm->lambdas * ((size_t)cm->nlambdas + 1));
    for (int i = 0; i < cm->nlambdas && !d.bad; i++) {
        CodeLambda *l = &cm->lambdas[i];
        l->function = (int)get32(&d); l->arity = (int)get32(&d);
        l->nfree = (int)get32(&d); l->name = get_atom(&d);
    }
    uint32_t nlits = get_count(&d, 4);
    Term *lits = GC_MALLOC(sizeof(Term) * ((size_t)nlits + 1));
    if (!lits || d.bad) return NULL;
    for (uint32_t i = 0; i < nlits && !d.bad; i++) lits[i] = decode_term(&d, 0);
    uint64_t ncode = get64(&d);
    if (d.bad || ncode == 0 || ncode > (d.n - d.at) / 8) return NULL;
    cm->ncode = (size_t)ncode;
    /* scanned, as the code generator's is: until the loader has taken
     * them, the code is all that keeps the constants alive */
    cm->code = GC_MALLOC(sizeof(UWord) * cm->ncode);
    if (!cm->code) return NULL;
    get(&d, cm->code, sizeof(UWord) * cm->ncode);
    uint32_t nfix = get_count(&d, 16);
    for (uint32_t i = 0; i < nfix && !d.bad; i++) {
        uint64_t pos = get64(&d);
        uint32_t kind = get32(&d), idx = get32(&d);
        if (pos >= cm->ncode) { d.bad = 1; break; }
        if (kind == FIX_ATOM) cm->code[pos] = idx < d.natoms ? d.atoms[idx] : (d.bad = 1, 0);
        else if (kind == FIX_LITERAL) cm->code[pos] = idx < nlits ? lits[idx] : (d.bad = 1, 0);
        else d.bad = 1;
    }
    if (d.bad || d.at != d.n || cm->nlabels < 0 || (size_t)cm->nlabels > cm->ncode) return NULL;
    /* what the loader would refuse is refused here, quietly: the module is
     * then compiled from its source instead */
    return bytecode_check(cm) ? NULL : cm;
}

CodeModule *modcache_read(const char *path, const char *src, size_t len, const char *file, Term expect) {
    size_t n;
    const char *b = module_read_file(path, &n);       /* loader.h: NULL if there is none */
    return b ? modcache_decode((const unsigned char *)b, n, src, len, file, expect) : NULL;
}
