/* iolist.c — the walk of iolist.h. */
#include "iolist.h"
#include "wordstack.h"

int iolist_visit(Term t, const IolistVisitor *v)
{
    WordStack stack;                     /* the rests of the lists entered */
    ws_init(&stack);
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
            ws_push(&stack, list_tail(t));   /* the rest of this list waits */
            t = h;
        } else if (is_nil(t)) {
            if (stack.n == 0) break;
            t = ws_pop(&stack);
        } else if (v->is_leaf(t)) {      /* a binary tail, or the whole term */
            if (v->on_leaf(v->ctx, t) < 0) { rc = -1; break; }
            t = NIL;
        } else {
            rc = -1;
            break;
        }
    }
    ws_free(&stack);
    return rc;
}
