/* test_ets_split.c — an ordered_set with write_concurrency splits a
 * contended stripe by key range (ets_table.c, ets_oset_split_wanted): after
 * every split the stripes hold exactly the table's keys, in key order, each
 * stripe between its bounds, each tree a balanced AVL tree; every key is
 * routed to the stripe that holds it; the counts follow the objects; a
 * stripe of one object gives up instead of asking again at every wait; and
 * the table stops at ETS_OSET_MAX_STRIPES. Splitting is driven here by
 * setting the statistic by hand: the waits that set it in the VM depend on
 * timing, which a test must not. */
#include <stdio.h>
#include <stdlib.h>

#include "atom.h"
#include "ets.h"
#include "heap.h"

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define NKEYS 5000

static EtsObj *object(long k)
{
    Term t[3] = { make_tuple_header(2), make_small(k), make_small(k * 3) };
    return ets_obj_new(make_boxed(t), 0);
}

/* Height of a subtree, or -1 when it is not a balanced tree of correct
 * heights with keys in (lo, hi). */
static int avl_check(EtsTable *t, EtsObj *n, long lo, long hi, long *count)
{
    if (!n) return 0;
    long k = small_val(ets_key(t, n->term));
    if (k <= lo || k >= hi) return -1;
    int a = avl_check(t, n->left, lo, k, count), b = avl_check(t, n->right, k, hi, count);
    if (a < 0 || b < 0 || a - b > 1 || b - a > 1) return -1;
    int h = (a > b ? a : b) + 1;
    if (n->height != h) return -1;
    (*count)++;
    return h;
}

/* Every invariant of a split table holding keys 0..nkeys-1. */
static void check_table(EtsTable *t, long nkeys)
{
    long total = 0;
    for (int i = 0; i < t->nstripes; i++) {
        long lo = i == 0 ? -1 : small_val(tuple_elems(t->bounds[i - 1]->term)[0]) - 1;
        long hi = i == t->nstripes - 1 ? nkeys : small_val(tuple_elems(t->bounds[i]->term)[0]);
        long n = 0;
        CHECK(avl_check(t, t->stripes[i].root, lo, hi, &n) >= 0);
        CHECK(n == atomic_load(&t->stripes[i].size));
        total += n;
    }
    CHECK(total == nkeys);
    CHECK(ets_table_size(t) == nkeys);
    int misrouted = 0;
    for (long k = 0; k < nkeys; k++) {
        EtsStripe *s = ets_key_stripe(t, make_small(k), 0);
        if (!ets_stripe_find(t, s, make_small(k), 0, NULL)) misrouted++;
    }
    CHECK(misrouted == 0);
    /* keys outside the stored ones route to the ends */
    CHECK(ets_key_stripe(t, make_small(-5), 0) == &t->stripes[0]);
    CHECK(ets_key_stripe(t, make_small(nkeys + 5), 0) == &t->stripes[t->nstripes - 1]);
    /* walking the stripes in order gives the keys in order */
    long next = 0;
    int ordered = 1;
    for (int i = 0; i < t->nstripes; i++)
        for (EtsObj *o = ets_tree_step(t, &t->stripes[i], THE_NON_VALUE, 0); o;
             o = ets_tree_step(t, &t->stripes[i], ets_key(t, o->term), 0))
            if (small_val(ets_key(t, o->term)) != next++) ordered = 0;
    CHECK(ordered && next == nkeys);
}

/* Marks stripe i contended and lets the table split. */
static void contend(EtsTable *t, int i)
{
    atomic_store(&t->stripes[i].contention, ETS_OSET_SPLIT_AT + 1);
    atomic_store(&t->split_wanted, 1);
    ets_registry_rlock();
    ets_oset_split_wanted(t);            /* releases the read lock */
}

int main(void)
{
    atom_init();
    Process *owner = process_new_memory(0);
    owner->pid = make_small(1);
    int why = 0;
    EtsTable *t = ets_create(owner, atom_intern_cstr("split"), 0, ETS_ORDERED_SET, ETS_PUBLIC, 1,
                             0, 1, ATOM_TERM(none), AM_undefined, &why);
    CHECK(t != NULL && t->oset_split && t->nstripes == 1);
    /* inserted in a scrambled order, so the one tree is built by rotations */
    for (long i = 0; i < NKEYS; i++) {
        long k = (i * 7919) % NKEYS;
        EtsObj *o = object(k);
        ets_stripe_insert(t, ets_key_stripe(t, ets_key(t, o->term), 0), o);
    }
    check_table(t, NKEYS);

    /* one split: two stripes, the bound the middle key */
    contend(t, 0);
    CHECK(t->nstripes == 2);
    CHECK(small_val(tuple_elems(t->bounds[0]->term)[0]) == NKEYS / 2);
    CHECK(atomic_load(&t->split_wanted) == 0);
    check_table(t, NKEYS);

    /* an uncontended stripe does not split when another one asks */
    atomic_store(&t->split_wanted, 1);
    ets_registry_rlock();
    ets_oset_split_wanted(t);
    CHECK(t->nstripes == 2);

    /* split the last stripe, then the first, then ones in the middle:
     * stripes after the split one move up with their bounds */
    contend(t, 1);
    contend(t, 0);
    contend(t, 2);
    CHECK(t->nstripes == 5);
    check_table(t, NKEYS);

    /* new keys go where the bounds say, and so do deletes */
    for (long k = NKEYS; k < NKEYS + 100; k++) {
        EtsObj *o = object(k);
        ets_stripe_insert(t, ets_key_stripe(t, ets_key(t, o->term), 0), o);
    }
    check_table(t, NKEYS + 100);
    for (long k = NKEYS + 99; k >= NKEYS; k--)
        CHECK(ets_stripe_delete_key(t, ets_key_stripe(t, make_small(k), 0), make_small(k), 0) == 1);
    check_table(t, NKEYS);

    /* every stripe contended at once, until no room is left */
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < t->nstripes; i++) atomic_store(&t->stripes[i].contention, ETS_OSET_SPLIT_AT + 1);
        atomic_store(&t->split_wanted, 1);
        ets_registry_rlock();
        ets_oset_split_wanted(t);
    }
    CHECK(t->nstripes == ETS_OSET_MAX_STRIPES);
    check_table(t, NKEYS);
    /* and the note no longer asks for a split */
    ets_oset_note(t, &t->stripes[0], 1);
    ets_oset_note(t, &t->stripes[0], 1);
    ets_oset_note(t, &t->stripes[0], 1);
    ets_oset_note(t, &t->stripes[0], 1);
    ets_oset_note(t, &t->stripes[0], 1);
    CHECK(atomic_load(&t->split_wanted) == 0);

    /* a stripe of one object cannot split: it gives up for thousands of
     * waits rather than asking at every one */
    int why2 = 0;
    EtsTable *u = ets_create(owner, atom_intern_cstr("hot"), 0, ETS_ORDERED_SET, ETS_PUBLIC, 1,
                             1, 1, ATOM_TERM(none), AM_undefined, &why2);
    EtsObj *o = object(42);
    ets_stripe_insert(u, ets_key_stripe(u, make_small(42), 0), o);
    contend(u, 0);
    CHECK(u->nstripes == 1);
    CHECK(atomic_load(&u->stripes[0].contention) == ETS_OSET_GAVE_UP);
    for (int i = 0; i < 100; i++) ets_oset_note(u, &u->stripes[0], 1);
    CHECK(atomic_load(&u->split_wanted) == 0);
    /* the statistic's rule: waits add, quick takes subtract down to a floor */
    atomic_store(&u->stripes[0].contention, 0);
    for (int i = 0; i < 5000; i++) ets_oset_note(u, &u->stripes[0], 0);
    CHECK(atomic_load(&u->stripes[0].contention) == ETS_OSET_FLOOR);
    for (int i = 0; i < 9; i++) ets_oset_note(u, &u->stripes[0], 1);
    CHECK(atomic_load(&u->stripes[0].contention) == ETS_OSET_FLOOR + 9 * ETS_OSET_CONTENDED);
    CHECK(atomic_load(&u->split_wanted) == 1);

    /* a table that split frees all it holds */
    ets_registry_wlock();
    ets_destroy_locked(t);
    ets_destroy_locked(u);
    ets_registry_wunlock();
    process_free_memory(owner);

    printf("test_ets_split: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
