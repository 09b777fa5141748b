/* bif.h — built-in functions: the C signature and the table made from bifs.def.
 *
 * A BIF takes its arguments in an array and returns the result, or
 * THE_NON_VALUE after setting the process's exception (bif_raise and the
 * BIF_ERROR macro). It allocates with heap_alloc() and never collects, unless
 * it documents otherwise (garbage_collect/0 uses p->live). The emulator
 * counts a reduction per call; a BIF that does more work may spend more by
 * lowering p->reds.
 */
#ifndef MINI_BIF_H
#define MINI_BIF_H

#include "atom.h"
#include "heap.h"
#include "bytecode.h"

typedef Term (*BifFn)(Process *p, Term *args);

typedef struct BifEntry {
    const char *module, *name;
    int arity;
    BifFn fn;
    int guard;                 /* allowed in guards */
} BifEntry;

#define BIF(mod, name, arity, fn, guard) Term fn(Process *p, Term *args);
#include "bifs.def"
#undef BIF

/* Indexed as bif_names (bytecode.h: bif_lookup, bif_count). */
extern const BifEntry bif_table[];

/* Sets the process's exception and returns THE_NON_VALUE. */
Term bif_raise(Process *p, int cls, Term reason);
#define BIF_ERROR(p, reason) return bif_raise((p), EXC_ERROR, (reason))
/* {Tag, Value} errors such as {badkey, K} */
Term bif_raise_tagged(Process *p, Term tag, Term value);

/* hp = words for a result in proportion to the input, or return: when the
 * system refuses them the process dies for want of memory (killed, with a
 * report: gc.h), never the VM. bif_out_of_memory marks the process so (a
 * BIF whose malloc'ed buffer or binary was refused calls it itself) and
 * returns system_limit, which is what a caller other than the emulator
 * (which sees the process marked first) gets. */
Term bif_out_of_memory(Process *p);
#define BIF_ALLOC(p, hp, words) \
    do { if (!((hp) = heap_alloc_try((p), (words)))) return bif_out_of_memory(p); } while (0)

/* Erlang's true or false for a C condition. */
#define BOOL(c) ((c) ? AM_true : AM_false)

/* MD5 of n bytes (bif_digest.c; the distribution handshake uses it too). */
void digest_md5(const void *bytes, size_t n, unsigned char out[16]);

#endif
