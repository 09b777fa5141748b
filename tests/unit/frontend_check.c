/* frontend_check.c — the compiler tested alone (`make frontend-check`).
 *
 * Linked against compiler/ and the term layer only (atoms, literals,
 * bignums, the bytecode contract's tables): no scheduler, emulator, loader
 * or BIF. If this links, the compiler depends on nothing else of the VM.
 * It then
 *   - compiles every module under tests/lang (and its helpers) and stdlib/
 *     to bytecode, each of which must compile without an error;
 *   - compiles every tests/errors/NAME.mini, which must fail with exactly
 *     the messages in NAME.err on stderr;
 *   - drives the shell's entry point through each of its outcomes.
 * Run from the repository root. Prints one line per failure and a count;
 * exits 1 if anything failed.
 */
#include <gc.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atom.h"
#include "compiler.h"

static int passed, failed;

static void fail(const char *what, const char *detail) {
    printf("FAIL %s: %s\n", what, detail);
    failed++;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = GC_MALLOC_ATOMIC(cap + 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = GC_MALLOC_ATOMIC(cap * 2 + 1);
            memcpy(nb, buf, n);
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .mini files of dir, sorted, as "dir/name" paths; *n of them. */
static char **list_sources(const char *dir, int *n) {
    DIR *d = opendir(dir);
    char **v = NULL;
    int cap = 0;
    *n = 0;
    if (!d) return NULL;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".mini") != 0) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            v = realloc(v, sizeof *v * (size_t)cap);
        }
        char *p = malloc(strlen(dir) + l + 2);
        sprintf(p, "%s/%s", dir, e->d_name);
        v[(*n)++] = p;
    }
    closedir(d);
    if (*n) qsort(v, (size_t)*n, sizeof *v, by_name);
    return v;
}

/* Compiles path with stderr going to a temporary file; returns the code (or
 * NULL) and, in *err, what was printed. */
static CodeModule *compile_capturing(const char *path, const char *expect, char **err, size_t *errlen) {
    size_t len;
    char *src = read_file(path, &len);
    if (!src) { *err = "cannot read"; *errlen = strlen(*err); return NULL; }
    char tmpl[] = "/tmp/frontend_check.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) { perror("mkstemp"); exit(2); }
    unlink(tmpl);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    CodeModule *cm = compiler_compile_module(path, src, len, expect);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    *err = GC_MALLOC_ATOMIC((size_t)n + 1);
    if (pread(fd, *err, (size_t)n, 0) != n) { perror("pread"); exit(2); }
    (*err)[n] = 0;
    *errlen = (size_t)n;
    close(fd);
    return cm;
}

/* Every module of dir compiles cleanly. by_name: stdlib modules are loaded
 * by name, so each must declare the module its file is named after. */
static void compile_all(const char *dir, int by_file_name) {
    int n;
    char **files = list_sources(dir, &n);
    if (n == 0) { fail(dir, "no .mini files found (run from the repository root)"); return; }
    for (int i = 0; i < n; i++) {
        char expect[256] = "";
        if (by_file_name) {
            const char *base = strrchr(files[i], '/') + 1;
            snprintf(expect, sizeof expect, "%.*s", (int)(strlen(base) - 5), base);
        }
        char *err;
        size_t errlen;
        CodeModule *cm = compile_capturing(files[i], by_file_name ? expect : NULL, &err, &errlen);
        if (!cm) fail(files[i], errlen ? err : "no code and no message");
        else if (errlen) fail(files[i], err);
        else if (cm->ncode == 0 || cm->nfunctions == 0) fail(files[i], "empty module");
        else passed++;
    }
}

/* Every error case prints exactly its .err and yields no code. */
static void check_errors(const char *dir) {
    int n;
    char **files = list_sources(dir, &n);
    if (n == 0) { fail(dir, "no .mini files found"); return; }
    for (int i = 0; i < n; i++) {
        char exp_path[512];
        snprintf(exp_path, sizeof exp_path, "%.*s.err", (int)(strlen(files[i]) - 5), files[i]);
        size_t explen;
        char *exp = read_file(exp_path, &explen);
        char *err;
        size_t errlen;
        CodeModule *cm = compile_capturing(files[i], NULL, &err, &errlen);
        if (!exp) fail(files[i], "no .err file");
        else if (cm) fail(files[i], "compiled, but it should fail");
        else if (errlen != explen || memcmp(err, exp, explen) != 0) {
            printf("FAIL %s: stderr differs\n--- expected\n%s--- got\n%s", files[i], exp, err);
            failed++;
        } else passed++;
    }
}

typedef struct Msgs { int n; char last[256]; } Msgs;

static void collect(void *ctx, int line, int col, const char *msg) {
    Msgs *m = ctx;
    m->n++;
    snprintf(m->last, sizeof m->last, "%d:%d: %s", line, col, msg);
}

/* The shell's records (-record forms) the next shell_case lines see. */
static const char *shell_records = "";

/* One shell line: its status, and for SHELL_SPECIAL what it asks for. */
static void shell_case(const char *line, const char **bound, int nbound, ShellStatus want,
                       char special, const char *var, long n, const char *msg) {
    char *text = GC_MALLOC_ATOMIC(strlen(line) + 1);
    strcpy(text, line);
    Msgs m = { 0, "" };
    ShellCode sc;
    ShellStatus st = compiler_compile_shell(text, strlen(text), shell_records, strlen(shell_records),
                                            bound, nbound, collect, &m, &sc);
    char what[300];
    snprintf(what, sizeof what, "shell line \"%s\"", line);
    if (st != want) { fail(what, "wrong status"); return; }
    if (st == SHELL_OK && (!sc.code || sc.code->nfunctions < 1)) { fail(what, "no code"); return; }
    if (st == SHELL_SPECIAL &&
        (sc.special != special || sc.special_n != n ||
         (var ? !sc.special_var || strcmp(sc.special_var, var) : sc.special_var != NULL))) {
        fail(what, "wrong special command");
        return;
    }
    if (msg && (m.n != 1 || strcmp(m.last, msg) != 0)) { fail(what, m.n ? m.last : "no message"); return; }
    if (!msg && m.n) { fail(what, m.last); return; }
    passed++;
}

static void check_shell(void) {
    const char *xy[] = { "X", "Y" };
    shell_case("X + Y.", xy, 2, SHELL_OK, 0, NULL, 0, NULL);
    shell_case("Z = X * 2, {Z, lists:reverse([Y])}.", xy, 2, SHELL_OK, 0, NULL, 0, NULL);
    shell_case("X = ", NULL, 0, SHELL_INCOMPLETE, 0, NULL, 0, NULL);
    shell_case("f().", NULL, 0, SHELL_SPECIAL, 'f', NULL, 0, NULL);
    shell_case("f(X).", xy, 2, SHELL_SPECIAL, 'f', "X", 0, NULL);
    shell_case("b().", NULL, 0, SHELL_SPECIAL, 'b', NULL, 0, NULL);
    shell_case("v(-1).", NULL, 0, SHELL_SPECIAL, 'v', NULL, -1, NULL);
    shell_case("v(3).", NULL, 0, SHELL_SPECIAL, 'v', NULL, 3, NULL);
    shell_case("1 + .", NULL, 0, SHELL_SYNTAX_ERROR, 0, NULL, 0, "1:5: syntax error before: '.'");
    shell_case("W + 1.", NULL, 0, SHELL_LINT_ERROR, 0, NULL, 0, "1:1: variable 'W' is unbound");
    /* records: rd/2 as a whole line; the shell's records reach the line */
    shell_case("rd(p, {x, y = 2}).", NULL, 0, SHELL_SPECIAL, 'r', "-record(p, {x, y = 2}).\n", 0, NULL);
    shell_case("#p{x = 1}.", NULL, 0, SHELL_LINT_ERROR, 0, NULL, 0, "1:1: record p undefined");
    shell_records = "-record(p,{x, y = 2}).\n";
    shell_case("P = #p{x = 1}, P#p.y.", NULL, 0, SHELL_OK, 0, NULL, 0, NULL);
    shell_case("#p{z = 1}.", NULL, 0, SHELL_LINT_ERROR, 0, NULL, 0, "1:4: field z undefined in record p");
    shell_records = "";
    /* two sequences on one line split after the first '.' */
    const char *two = "X = 1. Y = 2.";
    if (compiler_shell_split(two, strlen(two)) != 6) fail("compiler_shell_split", "wrong offset");
    else passed++;
    if (compiler_shell_split("X = 1.", 6) != 0) fail("compiler_shell_split", "split a single sequence");
    else passed++;
}

int main(void) {
    GC_INIT();
    atom_init();
    /* as the VM sets them from its binary's place (module.c), from the tree's root */
    compiler_code_dir_add("stdlib");
    compiler_lib_root_set("lib");
    compile_all("tests/lang", 0);
    compile_all("tests/lang/helpers", 1);
    compile_all("stdlib", 1);
    check_errors("tests/errors");
    check_shell();
    printf("frontend-check: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
