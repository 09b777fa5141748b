/* test_proc_dict.c — the process dictionary's table (vm/proc_dict.c) as a
 * data structure: growth, replacing a value, erase from the middle of a
 * probe run (the shift back must keep every other key findable), and a
 * random run of puts and erases checked against a plain array model. Keys
 * are small integers (immediates), so no runtime is needed. */
#include <stdio.h>
#include <stdlib.h>

#include "proc_dict.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define KEYS 300
static Term model[KEYS];          /* THE_NON_VALUE: absent */

static void check_all(const ProcDict *d, const char *when) {
    uint32_t n = 0;
    for (int k = 0; k < KEYS; k++) {
        int64_t at = proc_dict_find(d, make_small(k));
        if (model[k] == THE_NON_VALUE) {
            CHECK(at < 0, "%s: key %d found after erase", when, k);
        } else {
            n++;
            CHECK(at >= 0 && d->kv[2 * at + 1] == model[k], "%s: key %d lost or wrong", when, k);
        }
    }
    CHECK((d ? d->used : 0) == n, "%s: used %u, model %u", when, d ? d->used : 0, n);
    uint32_t walked = 0;
    for (uint32_t i = 0; proc_dict_next(d, &i); i++) walked++;
    CHECK(walked == n, "%s: the walk met %u pairs, model %u", when, walked, n);
    if (d) CHECK(4 * (uint64_t)d->used <= 3 * ((uint64_t)d->mask + 1), "%s: over 3/4 full", when);
}

static void test_basic(void) {
    ProcDict *d = NULL;
    int failed;
    for (int k = 0; k < KEYS; k++) model[k] = THE_NON_VALUE;
    CHECK(proc_dict_find(d, make_small(1)) < 0, "empty table finds a key");
    for (int k = 0; k < 100; k++) {
        CHECK(proc_dict_put(&d, make_small(k), make_small(k * 2), &failed) == THE_NON_VALUE && !failed,
              "put of new key %d", k);
        model[k] = make_small(k * 2);
    }
    check_all(d, "after 100 puts");
    CHECK(proc_dict_put(&d, make_small(5), make_small(-1), &failed) == make_small(10), "replace returns the old value");
    model[5] = make_small(-1);
    for (int k = 0; k < 100; k += 3) {
        CHECK(proc_dict_erase(d, make_small(k)) == model[k], "erase %d returns its value", k);
        model[k] = THE_NON_VALUE;
    }
    CHECK(proc_dict_erase(d, make_small(0)) == THE_NON_VALUE, "erase of an absent key");
    check_all(d, "after erases");
    proc_dict_free(d);
}

static void test_random(void) {
    ProcDict *d = NULL;
    int failed;
    for (int k = 0; k < KEYS; k++) model[k] = THE_NON_VALUE;
    srand(7);
    for (int step = 0; step < 200000; step++) {
        int k = rand() % KEYS;
        if (rand() % 3) {
            Term v = make_small(step);
            Term old = proc_dict_put(&d, make_small(k), v, &failed);
            CHECK(old == model[k], "step %d: put %d returned the wrong old value", step, k);
            model[k] = v;
        } else {
            CHECK(proc_dict_erase(d, make_small(k)) == model[k], "step %d: erase %d", step, k);
            model[k] = THE_NON_VALUE;
        }
        if (step % 5000 == 0) check_all(d, "random run");
    }
    check_all(d, "end of random run");
    proc_dict_free(d);
}

int main(void) {
    test_basic();
    test_random();
    if (failures) { printf("test_proc_dict: %d failures\n", failures); return 1; }
    printf("test_proc_dict: ok\n");
    return 0;
}
