/* iolist.c — the walk of iolist.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolist.h"

int iolist_visit(Term t, const IolistVisitor *v)
{
    Term small_stack[32];
    Term *stack = small_stack;
    size_t sp = 0, cap = 32;
    int rc = 0;
    for (;;) {
        if (is_list(t)) {
            Term h = list_head(t);
            if (is_small(h)) {
                if (v->on_int(v->ctx, small_val(h)) < 0) { rc = -1; break; }
                t = list_tail(t);
                continue;
            }
            if (v->is_leaf(h)) {
                if (v->on_leaf(v->ctx, h) < 0) { rc = -1; break; }
                t = list_tail(t);
                continue;
            }
            if (!is_list(h) && !is_nil(h)) { rc = -1; break; }
            if (sp == cap) {             /* the rest of this list waits */
                Term *ns = malloc(2 * cap * sizeof *ns);
                if (!ns) { fputs("mini: out of memory\n", stderr); abort(); }
                memcpy(ns, stack, sp * sizeof *ns);
                if (stack != small_stack) free(stack);
                stack = ns;
                cap *= 2;
            }
            stack[sp++] = list_tail(t);
            t = h;
        } else if (is_nil(t)) {
            if (sp == 0) break;
            t = stack[--sp];
        } else if (v->is_leaf(t)) {      /* a binary tail, or the whole term */
            if (v->on_leaf(v->ctx, t) < 0) { rc = -1; break; }
            t = NIL;
        } else {
            rc = -1;
            break;
        }
    }
    if (stack != small_stack) free(stack);
    return rc;
}
