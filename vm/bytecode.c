/* bytecode.c — the BIF index of the bytecode contract (bytecode.h): the
 * compiler resolves calls to BIF numbers here, and the loader turns a number
 * into the bif_table entry with the same index. Both tables are made from
 * bifs.def, so they agree; this one has no C functions, so the compiler links
 * without the BIFs. */
#include <string.h>

#include "bytecode.h"

const BifName bif_names[] = {
#define BIF(mod, name, arity, fn, guard) { mod, name, arity, guard },
#include "bifs.def"
#undef BIF
};
const int bif_count = (int)(sizeof bif_names / sizeof bif_names[0]);

/* Called at compile and load time only: a linear scan over a few hundred entries. */
int bif_lookup(const char *module, const char *name, int arity) {
    for (int i = 0; i < bif_count; i++) {
        const BifName *b = &bif_names[i];
        if (b->arity == arity && strcmp(b->name, name) == 0 && strcmp(b->module, module) == 0)
            return i;
    }
    return -1;
}
