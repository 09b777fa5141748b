/* ast.c — allocation of AST nodes and interning of names.
 *
 * Everything is Boehm memory (see ast.h): nodes are zero-filled so that an
 * unused field is NULL/0. Names are interned in a hash table so that equal
 * names are the same pointer; the table is the one piece of shared state in
 * the front end, so it is guarded by a mutex for concurrent parses (shell,
 * compiler threads). Interned strings are never dropped, like atoms.
 */
#include <gc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "ast.h"

void *ast_alloc(size_t size)
{
    return GC_MALLOC(size ? size : 1);   /* GC_MALLOC memory is zeroed */
}

Expr *ast_expr(ExprKind kind, int line, int col)
{
    Expr *e = ast_alloc(sizeof *e);
    e->kind = kind;
    e->line = line;
    e->col = col;
    return e;
}

typedef struct InternEntry { const char *s; size_t len; uint64_t hash; } InternEntry;

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static InternEntry *intern_tab;   /* GC_MALLOC_UNCOLLECTABLE: a root itself */
static size_t intern_cap, intern_n;

static uint64_t intern_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

static void intern_grow(void)
{
    size_t ncap = intern_cap ? intern_cap * 2 : 1024;
    InternEntry *nt = GC_MALLOC_UNCOLLECTABLE(sizeof *nt * ncap);
    memset(nt, 0, sizeof *nt * ncap);
    for (size_t i = 0; i < intern_cap; i++) {
        if (!intern_tab[i].s) continue;
        size_t j = intern_tab[i].hash & (ncap - 1);
        while (nt[j].s) j = (j + 1) & (ncap - 1);
        nt[j] = intern_tab[i];
    }
    if (intern_tab) GC_FREE(intern_tab);
    intern_tab = nt;
    intern_cap = ncap;
}

const char *ast_intern(const char *s, size_t len)
{
    uint64_t h = intern_hash(s, len);
    pthread_mutex_lock(&intern_lock);
    if ((intern_n + 1) * 2 > intern_cap) intern_grow();
    size_t j = h & (intern_cap - 1);
    while (intern_tab[j].s) {
        if (intern_tab[j].hash == h && intern_tab[j].len == len && memcmp(intern_tab[j].s, s, len) == 0) {
            const char *r = intern_tab[j].s;
            pthread_mutex_unlock(&intern_lock);
            return r;
        }
        j = (j + 1) & (intern_cap - 1);
    }
    char *copy = GC_MALLOC_ATOMIC(len + 1);
    memcpy(copy, s, len);
    copy[len] = 0;
    intern_tab[j].s = copy;
    intern_tab[j].len = len;
    intern_tab[j].hash = h;
    intern_n++;
    pthread_mutex_unlock(&intern_lock);
    return copy;
}

/* The operator as source text names it (the BIF it calls: erlang:'+'/2). */
const char *ast_op_name(Op op) {
    switch (op) {
    case OP_ADD: return "+"; case OP_SUB: return "-"; case OP_MUL: return "*";
    case OP_FDIV: return "/"; case OP_IDIV: return "div"; case OP_REM: return "rem";
    case OP_BAND: return "band"; case OP_BOR: return "bor"; case OP_BXOR: return "bxor";
    case OP_BSL: return "bsl"; case OP_BSR: return "bsr"; case OP_BNOT: return "bnot";
    case OP_NOT: return "not"; case OP_AND: return "and"; case OP_OR: return "or";
    case OP_XOR: return "xor"; case OP_EQ: return "=="; case OP_NE: return "/=";
    case OP_EXACT_EQ: return "=:="; case OP_EXACT_NE: return "=/="; case OP_LT: return "<";
    case OP_GT: return ">"; case OP_LE: return "=<"; case OP_GE: return ">=";
    case OP_APPEND: return "++"; case OP_SUBTRACT: return "--"; case OP_SEND: return "!";
    case OP_NEG: return "-"; case OP_PLUS: return "+";
    }
    return "?";
}
