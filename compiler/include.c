/* include.c — where -include and -include_lib find their files.
 *
 * -include("F"): F as given if absolute; else in the including file's
 * directory, the current directory, each `-I DIR` (in order), then the code
 * path (each `-pa DIR`, then `stdlib/`), as erlc searches its include path.
 * -include_lib("App/Rest"): first the same search; then App's directory in
 * the library root, the `lib/` folder beside `stdlib/` (so
 * include_lib("kernel/include/file.hrl") is lib/kernel/include/file.hrl in
 * the repository), as OTP takes code:lib_dir(App).
 *
 * The lists are filled in by the VM at start-up (compiler.h), before any
 * thread compiles, and only read afterwards.
 */
#include <gc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "frontend.h"

enum { INCLUDE_DIRS_MAX = 64 };

static const char *include_dirs[INCLUDE_DIRS_MAX];   /* -I */
static int ninclude;
static const char *code_dirs[INCLUDE_DIRS_MAX];      /* the code path */
static int ncode;
static const char *lib_root;

static void dir_push(const char **v, int *n, const char *dir) {
    if (*n < INCLUDE_DIRS_MAX) v[(*n)++] = GC_STRDUP(dir);
}

void compiler_include_dir_add(const char *dir) { dir_push(include_dirs, &ninclude, dir); }
void compiler_code_dir_add(const char *dir) { dir_push(code_dirs, &ncode, dir); }
void compiler_lib_root_set(const char *dir) { lib_root = GC_STRDUP(dir); }

/* dir/name if that file can be read, else NULL. */
static char *include_try(const char *dir, size_t dirlen, const char *name) {
    size_t n = dirlen + strlen(name) + 2;
    char *p = GC_MALLOC_ATOMIC(n);
    if (dirlen) snprintf(p, n, "%.*s/%s", (int)dirlen, dir, name);
    else snprintf(p, n, "%s", name);
    return access(p, R_OK) == 0 ? p : NULL;
}

/* {i, Dir} options of the shell's c/2, for the compile running on this
 * thread only: searched after the including file's directory, before -I. */
static __thread const char *const *extra_dirs;
static __thread int nextra;

void compiler_include_dirs_extra(const char *const *dirs, int n) { extra_dirs = dirs; nextra = n; }

char *include_find(const char *from, const char *name, int lib) {
    if (name[0] == '/') return access(name, R_OK) == 0 ? GC_STRDUP(name) : NULL;
    const char *slash = from ? strrchr(from, '/') : NULL;
    char *p = slash ? include_try(from, (size_t)(slash - from), name) : include_try("", 0, name);
    for (int i = 0; !p && i < nextra; i++) p = include_try(extra_dirs[i], strlen(extra_dirs[i]), name);
    for (int i = 0; !p && i < ninclude; i++) p = include_try(include_dirs[i], strlen(include_dirs[i]), name);
    for (int i = 0; !p && i < ncode; i++) p = include_try(code_dirs[i], strlen(code_dirs[i]), name);
    if (!p && lib && lib_root) p = include_try(lib_root, strlen(lib_root), name);
    return p;
}

char *include_read(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = GC_MALLOC_ATOMIC(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *nb = GC_MALLOC_ATOMIC(cap * 2 + 1);
        memcpy(nb, buf, n);
        buf = nb; cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (err) return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}
