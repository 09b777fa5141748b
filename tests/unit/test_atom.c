/* test_atom.c — unit tests for the atom table (atom.c): preloaded atoms sit
 * at their ATOM_INDEX_*, intern/lookup/name round trips, the length limit,
 * many atoms (the hash table grows, names survive Boehm collections), and
 * interning from four threads at once gives one index per text.
 */
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atom.h"

static int checks, failures;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static int name_is(Term a, const char *text)
{
    size_t len;
    const char *n = atom_name(a, &len);
    return n && len == strlen(text) && memcmp(n, text, len) == 0 && n[len] == '\0';
}

static void test_preloaded(void)
{
    CHECK(atom_count() >= ATOM__PRELOADED);
    CHECK(name_is(AM_false, "false"));
    CHECK(name_is(AM_true, "true"));
    CHECK(name_is(AM_ok, "ok"));
    CHECK(name_is(ATOM_TERM(nonode), "nonode@nohost"));
    CHECK(name_is(ATOM_TERM(EXIT), "EXIT"));
    CHECK(name_is(ATOM_TERM(wall_clock), "wall_clock"));
    CHECK(atom_intern_cstr("true") == AM_true);
    CHECK(atom_intern_cstr("badarith") == AM_badarith);
    CHECK(atom_lookup("undefined", 9) == AM_undefined);
    CHECK(atom_val(AM_false) == 0);
    /* every preloaded atom is where its enum says */
    static const char *const texts[] = {
#define ATOM(id, text) text,
#include "atoms.def"
#undef ATOM
    };
    int ok = 1;
    for (int i = 0; i < ATOM__PRELOADED; i++)
        if (!name_is(make_atom(i), texts[i]) || atom_intern_cstr(texts[i]) != make_atom(i))
            ok = 0;
    CHECK(ok);
}

static void test_round_trips(void)
{
    UWord before = atom_count();
    CHECK(atom_lookup("hello_world", 11) == THE_NON_VALUE);
    Term a = atom_intern("hello_world", 11);
    CHECK(is_atom(a));
    CHECK(atom_count() == before + 1);
    CHECK(atom_intern_cstr("hello_world") == a);
    CHECK(atom_lookup("hello_world", 11) == a);
    CHECK(atom_count() == before + 1);
    CHECK(name_is(a, "hello_world"));
    /* a prefix, and text that is not NUL-terminated */
    Term b = atom_intern("hello_worldXYZ", 5);
    CHECK(b != a && name_is(b, "hello"));
    /* empty atom, and an embedded NUL */
    Term e = atom_intern("", 0);
    CHECK(is_atom(e) && name_is(e, ""));
    Term z = atom_intern("a\0b", 3);
    size_t len;
    const char *n = atom_name(z, &len);
    CHECK(len == 3 && memcmp(n, "a\0b", 4) == 0);
    CHECK(z != atom_intern_cstr("a"));
    /* the length limit */
    char buf[MAX_ATOM_LENGTH + 2];
    memset(buf, 'x', sizeof buf);
    Term longest = atom_intern(buf, MAX_ATOM_LENGTH);
    CHECK(is_atom(longest));
    n = atom_name(longest, &len);
    CHECK(len == MAX_ATOM_LENGTH && n[len] == '\0');
    CHECK(atom_intern(buf, MAX_ATOM_LENGTH + 1) == THE_NON_VALUE);
    CHECK(atom_lookup(buf, MAX_ATOM_LENGTH + 1) == THE_NON_VALUE);
    /* not an atom, or an index never handed out */
    CHECK(atom_name(make_small(1), &len) == NULL);
    CHECK(atom_name(make_atom(atom_count() + 5), &len) == NULL);
}

static void test_many(void)
{
    enum { N = 100000 };
    UWord before = atom_count();
    Term *terms = malloc(N * sizeof *terms);
    char buf[32];
    for (int i = 0; i < N; i++) {
        int len = snprintf(buf, sizeof buf, "many_%d", i);
        terms[i] = atom_intern(buf, (size_t)len);
    }
    CHECK(atom_count() == before + N);
    GC_gcollect();                         /* names must survive Boehm */
    GC_gcollect();
    /* scribble over freed memory would show here */
    for (int i = 0; i < 1000; i++)
        (void)GC_MALLOC_ATOMIC(64);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        int len = snprintf(buf, sizeof buf, "many_%d", i);
        if (atom_val(terms[i]) != before + (UWord)i) ok = 0;
        if (!name_is(terms[i], buf)) ok = 0;
        if (atom_lookup(buf, (size_t)len) != terms[i]) ok = 0;
    }
    CHECK(ok);
    free(terms);
}

enum { THREADS = 4, SHARED = 20000, OWN = 5000 };
static Term results[THREADS][SHARED + OWN];

static void *intern_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    char buf[32];
    for (int k = 0; k < SHARED + OWN; k++) {
        /* the threads walk the shared names in different orders */
        static const int step[THREADS] = { 1, 3, 7, 11 };   /* coprime to SHARED */
        int i = k < SHARED ? (int)(((long)k * step[t]) % SHARED) : k;
        int len = i < SHARED ? snprintf(buf, sizeof buf, "shared_%d", i)
                             : snprintf(buf, sizeof buf, "own_%d_%d", t, i);
        results[t][i] = atom_intern(buf, (size_t)len);
        size_t nl;
        const char *n = atom_name(results[t][i], &nl);
        if (!n || nl != (size_t)len || memcmp(n, buf, nl) != 0)
            results[t][i] = THE_NON_VALUE;
    }
    return NULL;
}

static int cmp_term(const void *a, const void *b)
{
    Term x = *(const Term *)a, y = *(const Term *)b;
    return x < y ? -1 : x > y;
}

static void test_threads(void)
{
    UWord before = atom_count();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, intern_worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    CHECK(atom_count() == before + SHARED + THREADS * OWN);
    int same = 1;
    for (int i = 0; i < SHARED; i++)
        for (int t = 1; t < THREADS; t++)
            if (results[t][i] != results[0][i]) same = 0;
    CHECK(same);
    /* all distinct texts got distinct indexes, all new */
    size_t n = SHARED + THREADS * OWN, k = 0;
    Term *all = malloc(n * sizeof *all);
    for (int i = 0; i < SHARED; i++)
        all[k++] = results[0][i];
    for (int t = 0; t < THREADS; t++)
        for (int i = SHARED; i < SHARED + OWN; i++)
            all[k++] = results[t][i];
    qsort(all, n, sizeof *all, cmp_term);
    int unique = 1;
    for (size_t i = 0; i < n; i++) {
        if (!is_atom(all[i]) || atom_val(all[i]) < before) unique = 0;
        if (i && all[i] == all[i - 1]) unique = 0;
    }
    CHECK(unique);
    free(all);
}

int main(void)
{
    GC_INIT();
    atom_init();
    atom_init();                           /* idempotent */
    test_preloaded();
    test_round_trips();
    test_many();
    test_threads();
    printf("test_atom: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
