/* test_modcache.c — the library's compiled-module cache (vm/modcache.c).
 *
 * Every stdlib module, and a module holding a constant of every kind the
 * code generator makes, goes to bytes and back and must print the same
 * bytecode (disasm_module) as the module compiled from source. A cache is
 * refused for another source (one byte changed, one byte more), another
 * module name, and every truncation and a sample of corruptions of the
 * file, without a crash (run under ASan by check-asan). Run from the
 * repository root (tests/run.sh does). */
#include <gc.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atom.h"
#include "compiler.h"
#include "modcache.h"
#include "loader.h"

static int failures, checks;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL line %d: ", __LINE__); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

/* Overwrites the stack below the caller, so that no dead pointer left
 * there by the decoder keeps a constant alive for the collector. */
static __attribute__((noinline)) void scrub_stack(int depth) {
    volatile char pad[1024];
    memset((char *)pad, 0, sizeof pad);
    if (depth > 0) scrub_stack(depth - 1);
}

static char *listing(const CodeModule *cm) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    disasm_module(f, cm);
    fclose(f);
    return buf;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)size + 1);
    *n = fread(b, 1, (size_t)size, f);
    fclose(f);
    return b;
}

/* src compiled, cached, read back: the same listing. Returns the cache's
 * bytes (caller frees) for the refusal checks, or NULL. */
static unsigned char *round_trip(const char *file, const char *src, size_t len, size_t *nbytes) {
    CodeModule *cm = compiler_compile_module(file, src, len, NULL);
    CHECK(cm != NULL, "%s compiles", file);
    if (!cm) return NULL;
    const char *path = "build/test_modcache.mbc";
    int w = modcache_write(path, cm, src, len);
    CHECK(w == 1, "%s: written (%d)", file, w);
    if (w != 1) return NULL;
    CodeModule *back = modcache_read(path, src, len, file, cm->name);
    CHECK(back != NULL, "%s: read back", file);
    if (!back) return NULL;
    /* the module alone must keep its constants alive until the loader
     * takes them: a collection, then memory handed out again, must not
     * change them (the code once was pointer-free memory to Boehm) */
    scrub_stack(64);
    GC_gcollect();
    for (int i = 0; i < 20000; i++) {
        size_t w = 1 + (size_t)i % 48;
        Term *junk = GC_MALLOC(w * sizeof(Term));
        for (size_t k = 0; k < w; k++) junk[k] = make_small(7);
    }
    char *a = listing(cm), *b = listing(back);
    CHECK(strcmp(a, b) == 0, "%s: the same bytecode after the cache", file);
    CHECK(strcmp(back->file, file) == 0, "%s: the file name is the caller's", file);
    free(a);
    free(b);
    unsigned char *bytes = slurp(path, nbytes);
    remove(path);
    return bytes;
}

static void test_library(void) {
    glob_t g;
    CHECK(glob("stdlib/*.mini", 0, NULL, &g) == 0, "stdlib found (run from the repository root)");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t len, nbytes;
        char *src = module_read_file(g.gl_pathv[i], &len);
        unsigned char *bytes = round_trip(g.gl_pathv[i], src, len, &nbytes);
        free(bytes);
    }
    CHECK(g.gl_pathc > 40, "the whole library (%zu modules)", g.gl_pathc);
    globfree(&g);
}

static const char constants_src[] =
    "-module(consts).\n"
    "-export([all/0, pick/1]).\n"
    "all() -> [1.5, -0.0, 1.0e300, 123456789012345678901234567890,\n"
    "          -98765432109876543210987654321, 576460752303423487, -576460752303423488,\n"
    "          <<>>, <<1,2,3>>, <<\"a binary longer than sixty-four bytes, which is no heap binary in a process\">>,\n"
    "          {}, {a, {b, {c, \"nested\"}}}, [a | b], [1, 2 | 3], \"caf\\x{e9} \\x{1F600}\",\n"
    "          #{}, 'quoted atom', '\\x{e9}t\\x{e9}', [[[[[[[[deep]]]]]]]], {[], [[]], {{}}},\n"
    "          lists:seq(1, 3), fun pick/1].\n"
    "pick({x, 1.25}) -> float;\n"
    "pick(<<\"key\">>) -> binary;\n"
    "pick([$a, $b]) -> string;\n"
    "pick(123456789012345678901234567890) -> big;\n"
    "pick(#{}) -> map;\n"
    "pick(X) when X =:= {p, [q]} -> tuple;\n"
    "pick(_) -> other.\n";

static void test_constants_and_refusals(void) {
    size_t len = strlen(constants_src), nbytes = 0;
    unsigned char *bytes = round_trip("consts.mini", constants_src, len, &nbytes);
    if (!bytes) return;
    Term mod = atom_intern_cstr("consts");
    CHECK(modcache_decode(bytes, nbytes, constants_src, len, "consts.mini", mod) != NULL,
          "the bytes decode");
    CHECK(modcache_decode(bytes, nbytes, constants_src, len, "consts.mini", 0) != NULL,
          "any module name");
    CHECK(modcache_decode(bytes, nbytes, constants_src, len, "consts.mini", atom_intern_cstr("other")) == NULL,
          "refused for another module name");
    char *changed = strdup(constants_src);
    changed[len - 3] = 'x';
    CHECK(modcache_decode(bytes, nbytes, changed, len, "consts.mini", mod) == NULL,
          "refused when a byte of the source changed");
    CHECK(modcache_decode(bytes, nbytes, constants_src, len - 1, "consts.mini", mod) == NULL,
          "refused for a shorter source");
    free(changed);
    int decoded = 0;
    for (size_t n = 0; n < nbytes; n++)
        decoded += modcache_decode(bytes, n, constants_src, len, "consts.mini", mod) != NULL;
    CHECK(decoded == 0, "every truncation refused (%d decoded)", decoded);
    unsigned char *bad = malloc(nbytes + 1);
    memcpy(bad, bytes, nbytes);
    bad[nbytes] = 0;
    CHECK(modcache_decode(bad, nbytes + 1, constants_src, len, "consts.mini", mod) == NULL,
          "refused with a byte too many");
    /* every byte flipped in turn: a refusal or a module the loader's check
     * of every opcode and operand accepts, never a crash */
    int refused = 0, unsafe = 0;
    for (size_t i = 0; i < nbytes; i++) {
        memcpy(bad, bytes, nbytes);
        bad[i] ^= 0xA5;
        CodeModule *cm = modcache_decode(bad, nbytes, constants_src, len, "consts.mini", mod);
        if (!cm) refused++;
        else if (bytecode_check(cm)) unsafe++;
    }
    CHECK(refused > 0, "flipped bytes refused: %d of %zu", refused, nbytes);
    CHECK(unsafe == 0, "no decoded module the loader would refuse (%d)", unsafe);
    free(bad);
    free(bytes);
}

int main(void) {
    GC_INIT();
    atom_init();
    compiler_lib_root_set("lib");             /* as module_init sets them for the root */
    compiler_code_dir_add("stdlib");
    test_library();
    test_constants_and_refusals();
    printf("test_modcache: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
