/* bif.c — the BIF table (made once from bifs.def; lookup by name is the
 * contract's bif_lookup, bytecode.c) and raising exceptions from BIFs. */
#include "bif.h"
#include "gc.h"
#include "mem_limit.h"

const BifEntry bif_table[] = {
#define BIF(mod, name, arity, fn, guard) { mod, name, arity, fn, guard },
#include "bifs.def"
#undef BIF
};

/* The stack trace is left as THE_NON_VALUE: the emulator builds it where it
 * sees the exception (it knows the pc). */
Term bif_raise(Process *p, int cls, Term reason) {
    p->exc_class = cls;
    p->exc_reason = reason;
    p->exc_trace = THE_NON_VALUE;
    return THE_NON_VALUE;
}

Term bif_raise_tagged(Process *p, Term tag, Term value) {
    Term *hp = heap_alloc(p, 3);
    hp[0] = make_tuple_header(2);
    hp[1] = tag;
    hp[2] = value;
    return bif_raise(p, EXC_ERROR, make_boxed(hp));
}

Term bif_out_of_memory(Process *p) {
    gc_out_of_memory(p, OOM_NOMEM);           /* (once: heap_alloc_try may have) */
    p->reds = 0;
    return bif_raise(p, EXC_ERROR, ATOM_TERM(system_limit));
}
