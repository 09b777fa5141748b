/* test_ets_hash.c — a set's chains stay short for the key shapes programs
 * use (ets.h, ets_hash): consecutive integers, negative ones, integers in
 * strides of 1000 and of 1024, powers of two and three times powers of
 * two, atoms, random 40-bit integers, and {user, N} tuples (a boxed key,
 * hashed by the term hash), each inserted into a real set
 * table (the buckets its own rule sizes and indexes). A uniform hash walks
 * about 1.5 objects to find a key at the table's fill (up to one object a
 * bucket) and its longest chain in a few thousand keys is about 6; each
 * shape must stay within 1.7 and 9. With write_concurrency the keys spread
 * over the 64 stripes (the hash's top bits): none is empty and none holds
 * three times its share. */
#include <stdio.h>
#include <stdlib.h>

#include "atom.h"
#include "ets.h"
#include "heap.h"

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static Process *owner;

static EtsObj *object(Term key)
{
    Term t[3] = { make_tuple_header(2), key, make_small(0) };
    return ets_obj_new(make_boxed(t), ets_hash(key));
}

static EtsTable *table(const char *name, int write_conc, const Term *keys, int n)
{
    int why = 0;
    EtsTable *t = ets_create(owner, atom_intern_cstr(name), 0, ETS_SET, ETS_PUBLIC, 1,
                             0, write_conc, ATOM_TERM(none), AM_undefined, &why);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++) {
        EtsObj *o = object(keys[i]);
        ets_stripe_insert(t, ets_key_stripe(t, keys[i], o->hash), o);
    }
    CHECK(ets_table_size(t) == n);
    return t;
}

/* The mean number of objects a successful lookup walks, and the longest
 * chain, over every stripe's buckets. */
static void chains(EtsTable *t, double *mean, long *longest)
{
    long walked = 0, keys = 0;
    *longest = 0;
    for (int i = 0; i < t->nstripes; i++) {
        EtsStripe *s = &t->stripes[i];
        for (size_t b = 0; b < s->nbuckets; b++) {
            long len = 0;
            for (EtsObj *o = s->buckets[b]; o; o = o->next) walked += ++len;
            keys += len;
            if (len > *longest) *longest = len;
        }
    }
    *mean = keys ? (double)walked / (double)keys : 0;
}

static void shape(const char *name, const Term *keys, int n)
{
    EtsTable *t = table(name, 0, keys, n);
    double mean; long longest;
    chains(t, &mean, &longest);
    if (mean > 1.7 || longest > 9)
        fprintf(stderr, "%s: %.2f objects a lookup, longest chain %ld\n", name, mean, longest);
    CHECK(mean <= 1.7);
    CHECK(longest <= 9);
    ets_registry_wlock();
    ets_destroy_locked(t);
    ets_registry_wunlock();
}

#define N 3000
static Term keys[N];

int main(void)
{
    atom_init();
    owner = process_new_memory(0);
    owner->pid = make_small(1);

    for (int i = 0; i < 1000; i++) keys[i] = make_small(i);
    shape("seq1000", keys, 1000);
    for (int i = 0; i < N; i++) keys[i] = make_small(i);
    shape("seq3000", keys, N);
    for (int i = 0; i < 1000; i++) keys[i] = make_small(-i);
    shape("negative", keys, 1000);
    for (int i = 0; i < 1000; i++) keys[i] = make_small((SWord)i * 1000);
    shape("stride1000", keys, 1000);
    for (int i = 0; i < 1000; i++) keys[i] = make_small((SWord)i * 1024);
    shape("stride1024", keys, 1000);
    int n = 0;
    for (int b = 0; b < 55; b++) {
        keys[n++] = make_small((SWord)1 << b);
        keys[n++] = make_small((SWord)3 << b);
    }
    shape("powers_of_two", keys, n);
    char buf[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(buf, sizeof buf, "key_%d", i);
        keys[i] = atom_intern_cstr(buf);
    }
    shape("atoms", keys, 1000);
    /* boxed keys take the term hash (OTP's make_internal_hash): records'
     * keys are often tuples such as {user, Id} */
    {
        static Term tups[1000][3];
        for (int i = 0; i < 1000; i++) {
            tups[i][0] = make_tuple_header(2);
            tups[i][1] = atom_intern_cstr("user");
            tups[i][2] = make_small(i);
            keys[i] = make_boxed(tups[i]);
        }
        shape("tuple_keys", keys, 1000);
    }
    srand(7);
    for (int i = 0; i < N; i++)
        keys[i] = make_small(((SWord)rand() << 20 ^ rand()) & (((SWord)1 << 40) - 1));
    shape("random", keys, N);

    /* write_concurrency: the stripes share the keys out */
    for (int i = 0; i < N; i++) keys[i] = make_small(i);
    EtsTable *t = table("striped", 1, keys, N);
    CHECK(t->nstripes == 64);
    long least = N, most = 0;
    for (int i = 0; i < t->nstripes; i++) {
        long c = atomic_load(&t->stripes[i].size);
        if (c < least) least = c;
        if (c > most) most = c;
    }
    CHECK(least > 0);
    CHECK(most < 3 * N / 64);
    ets_registry_wlock();
    ets_destroy_locked(t);
    ets_registry_wunlock();

    printf("test_ets_hash: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
