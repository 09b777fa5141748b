/* module.c — the module table, the export table and the code path.
 *
 * A module is found by name on the code path (the current directory, each
 * `-pa DIR`, then the `stdlib/` and `examples/` folders of the Mini root,
 * found from the binary's path or $MINI_ROOT: module_init), compiled in memory (front end, code generator) and handed to the
 * loader. Export entries are made on first reference and never move, so the
 * loaded code can hold pointers to them; loading a module fills in their
 * `code`. One lock serialises loading, so two processes calling a module that
 * is not loaded yet load it once.
 */
#include <gc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>

#include "module.h"
#include "boehm_oom.h"
#include "fatal.h"
#include "loader.h"
#include "modcache.h"
#include "atom.h"
#include "bif.h"
#include "compiler.h"
#include "emulator.h"
#include "opcodes.h"

#define EXPORT_BUCKETS 4096          /* power of two; chains stay short */
#define MAX_MODULES 4096
#define MAX_PATHS 64

typedef struct ExportNode { Export e; struct ExportNode *next; } ExportNode;

static ExportNode *export_buckets[EXPORT_BUCKETS];
static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* Written under load_lock; read without it (stack traces, process_info,
 * module_find), so entries and the count are published with release stores. */
static _Atomic(LoadedModule *) modules[MAX_MODULES];
static _Atomic int nmodules;

static const char *paths[MAX_PATHS];
static int npaths;
static const char *default_paths[2];

static unsigned export_hash(Term m, Term f, int a) {
    UWord h = (UWord)m * 31u + (UWord)f * 17u + (UWord)a;
    h ^= h >> 15;
    return (unsigned)(h & (EXPORT_BUCKETS - 1));
}

Export *export_get(Term module, Term name, int arity) {
    unsigned h = export_hash(module, name, arity);
    boehm_mutex_lock(&export_lock);
    ExportNode *n = export_buckets[h];
    for (; n; n = n->next)
        if (n->e.module == module && n->e.name == name && n->e.arity == arity) break;
    if (!n) {
        jmp_buf *j = boehm_oom_hold();          /* export_lock is held */
        n = GC_MALLOC_UNCOLLECTABLE(sizeof *n);
        boehm_oom_release(j);
        if (!n) FATAL("out of memory for an export entry");
        memset(n, 0, sizeof *n);
        n->e.module = module; n->e.name = name; n->e.arity = arity;
        /* where a process starting in this function begins: written once,
         * before anyone can see the entry */
        const void *const *handlers = emulator_handlers();
        n->e.start_code[0] = (Instr)handlers[OP_call_ext_only];
        n->e.start_code[1] = (Instr)arity;
        n->e.start_code[2] = (Instr)&n->e;
        n->next = export_buckets[h];
        export_buckets[h] = n;
    }
    pthread_mutex_unlock(&export_lock);
    return &n->e;
}

/* BIFs are reachable as exports too (apply/3, fun erlang:element/2). */
static void export_bifs(void) {
    for (int i = 0; i < bif_count; i++) {
        const BifEntry *b = &bif_table[i];
        Export *e = export_get(atom_intern_cstr(b->module), atom_intern_cstr(b->name), b->arity);
        e->bif = b;
    }
    export_get(ATOM_TERM(erlang), ATOM_TERM(apply), 2)->special = EXPORT_APPLY2;
    export_get(ATOM_TERM(erlang), ATOM_TERM(apply), 3)->special = EXPORT_APPLY3;
    export_get(ATOM_TERM(erlang), ATOM_TERM(hibernate), 3)->special = EXPORT_HIBERNATE;
    emulator_set_hibernate_apply(export_get(ATOM_TERM(erlang), ATOM_TERM(apply), 3));
}

LoadedModule *module_find(Term name) {
    int n = atomic_load_explicit(&nmodules, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        LoadedModule *m = atomic_load_explicit(&modules[i], memory_order_acquire);
        if (m->name == name) return m;
    }
    return NULL;
}

void module_add_path(const char *dir) {
    if (npaths < MAX_PATHS) paths[npaths++] = GC_STRDUP(dir);
    compiler_code_dir_add(dir);              /* -include searches the code path too */
}

/* Is dir a Mini root, a folder with stdlib/lists.mini in it? */
static int is_root(const char *dir) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/stdlib/lists.mini", dir);
    return access(path, R_OK) == 0;
}

/* The root holds stdlib/, examples/ and lib/. It is $MINI_ROOT when set;
 * otherwise it is found from the binary's own path, never the current
 * directory: the source tree's bin/mini has it one level up (bin/..), an
 * installed PREFIX/bin/mini in PREFIX/lib/mini (make install). */
static int find_root(const char *argv0, char *root, size_t size) {
    const char *env = getenv("MINI_ROOT");
    if (env && *env) {
        snprintf(root, size, "%s", env);
        return is_root(root);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) { snprintf(exe, sizeof exe, "%s", argv0); n = (ssize_t)strlen(exe); }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0; else strcpy(exe, ".");
    snprintf(root, size, "%s/..", exe);
    if (is_root(root)) return 1;
    snprintf(root, size, "%s/../lib/mini", exe);
    if (is_root(root)) return 1;
    snprintf(root, size, "%s/..", exe);
    return 0;
}

static char root_dir[PATH_MAX];

const char *module_root(void) { return root_dir; }

int module_init(const char *argv0) {
    boehm_oom_install();           /* compile_and_load's jump on a refusal */
    boehm_reserve_take();          /* and the room it retries in */
    int found = find_root(argv0, root_dir, sizeof root_dir);
    char buf[PATH_MAX + 32];
    snprintf(buf, sizeof buf, "%s/stdlib", root_dir);
    default_paths[0] = GC_STRDUP(buf);
    snprintf(buf, sizeof buf, "%s/examples", root_dir);
    default_paths[1] = GC_STRDUP(buf);
    compiler_code_dir_add(default_paths[0]);
    snprintf(buf, sizeof buf, "%s/lib", root_dir);   /* include_lib("App/..."): lib/App/... */
    compiler_lib_root_set(buf);
    export_bifs();
    return found;
}

char *module_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = GC_MALLOC_ATOMIC(cap + 1);
    if (!buf) { fclose(f); return NULL; }
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = GC_MALLOC_ATOMIC(cap * 2 + 1);
            if (!nb) { fclose(f); return NULL; }
            memcpy(nb, buf, n);
            buf = nb; cap *= 2;
        }
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Compiles source text and loads it. Returns the module or NULL (errors
 * printed). `expect` is the module name the file must declare, or 0. Boehm's
 * heap refused while compiling or loading makes it NULL too (boehm_oom.h):
 * the module is as good as missing. Called with load_lock held. */
static LoadedModule *compile_once(const char *path, const char *src, size_t len, Term expect,
                                  const char *cache, int *was_refused) {
    size_t alen;
    jmp_buf refused;
    if (setjmp(refused)) {
        boehm_oom_release(NULL);
        *was_refused = 1;
        return NULL;
    }
    boehm_oom_release(&refused);
    CodeModule *cm = cache ? modcache_read(cache, src, len, path, expect) : NULL;
    if (!cm) cm = compiler_compile_module(path, src, len, expect ? atom_name(expect, &alen) : NULL);
    LoadedModule *lm = cm ? loader_load(cm) : NULL;
    boehm_oom_release(NULL);
    return lm;
}

/* A refusal gives back the address space held in reserve (boehm_oom.h) and
 * tries once more; a module that then loads takes the reserve up again. */
static LoadedModule *compile_and_load(const char *path, const char *src, size_t len, Term expect,
                                      const char *cache) {
    int refused = 0;
    LoadedModule *lm = compile_once(path, src, len, expect, cache, &refused);
    if (refused && boehm_reserve_release()) {
        refused = 0;
        lm = compile_once(path, src, len, expect, cache, &refused);
        if (!refused) boehm_reserve_take();
    }
    if (refused) fprintf(stderr, "mini: out of memory compiling %s\n", path);
    return lm;
}

void module_register(LoadedModule *lm) {
    int n = atomic_load_explicit(&nmodules, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&modules[i], memory_order_relaxed)->name == lm->name) {
            atomic_store_explicit(&modules[i], lm, memory_order_release);
            return;
        }
    if (n < MAX_MODULES) {
        atomic_store_explicit(&modules[n], lm, memory_order_release);
        atomic_store_explicit(&nmodules, n + 1, memory_order_release);
    }
}

LoadedModule *module_load_file(const char *path) {
    size_t len;
    char *src = module_read_file(path, &len);
    if (!src) { fprintf(stderr, "%s: cannot read file\n", path); return NULL; }
    boehm_mutex_lock(&load_lock);
    LoadedModule *lm = compile_and_load(path, src, len, 0, NULL);
    pthread_mutex_unlock(&load_lock);
    return lm;
}

/* builtin: a folder beside the binary (stdlib/, examples/), whose modules
 * name their file without the folder in stack traces, as OTP's modules
 * say {file,"lists.erl"}: where the VM was installed is no business of the
 * program's. */
static int try_dir(const char *dir, const char *name, Term mod, int builtin) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.mini", dir, name);
    if (access(path, R_OK) != 0) return -1;
    size_t len;
    char *src = module_read_file(path, &len);
    if (!src) return -1;
    /* "./x.mini" reads better as "x.mini" in messages */
    const char *shown = strcmp(dir, ".") == 0 ? GC_STRDUP(path + 2)
                        : builtin ? GC_STRDUP(strrchr(path, '/') + 1) : GC_STRDUP(path);
    /* the library's modules come compiled from the root's ebin/ when the
     * cache there was made from this source (modcache.h) */
    char cache[PATH_MAX + 32];
    if (builtin) snprintf(cache, sizeof cache, "%s/ebin/%s.mbc", root_dir, name);
    return compile_and_load(shown, src, len, mod, builtin ? cache : NULL) != NULL;
}

/* Finds mod on the code path and loads it, even if already loaded (the
 * shell's l/1). Call with load_lock held. */
static int load_from_path(Term mod) {
    size_t len;
    const char *name = atom_name(mod, &len);
    int r = -1;
    if (strchr(name, '/') == NULL) {
        r = try_dir(".", name, mod, 0);
        for (int i = 0; r < 0 && i < npaths; i++) r = try_dir(paths[i], name, mod, 0);
        for (int i = 0; r < 0 && i < 2; i++)
            if (default_paths[i]) r = try_dir(default_paths[i], name, mod, 1);
    }
    return r;
}

int module_reload(Term mod) {
    boehm_mutex_lock(&load_lock);
    int r = load_from_path(mod);
    pthread_mutex_unlock(&load_lock);
    return r;
}

LoadedModule *module_load_compiled(const struct CodeModule *cm) {
    boehm_mutex_lock(&load_lock);
    LoadedModule *lm = loader_load(cm);
    pthread_mutex_unlock(&load_lock);
    return lm;
}

LoadedModule *module_nth(int i) {
    boehm_mutex_lock(&load_lock);
    LoadedModule *lm = i >= 0 && i < nmodules ? modules[i] : NULL;
    pthread_mutex_unlock(&load_lock);
    return lm;
}

const char *module_path_nth(int i) {
    if (i == 0) return ".";
    if (i - 1 < npaths) return paths[i - 1];
    i -= 1 + npaths;
    return i < 2 ? default_paths[i] : NULL;
}

int module_ensure_loaded(Term mod) {
    boehm_mutex_lock(&load_lock);
    int ok = module_find(mod) != NULL;
    if (!ok) {
        ok = load_from_path(mod) > 0;
    }
    pthread_mutex_unlock(&load_lock);
    return ok;
}

int module_locate(const Instr *pc, LoadedModule **modp, const FunctionInfo **fnp, int *line) {
    int n = atomic_load_explicit(&nmodules, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        LoadedModule *m = atomic_load_explicit(&modules[i], memory_order_acquire);
        if (pc < m->code || pc >= m->code + m->ncode) continue;
        /* functions are laid out in order: the last one starting at or before pc */
        const FunctionInfo *fn = NULL;
        int lo = 0, hi = m->nfunctions - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (m->functions[mid].info <= pc) { fn = &m->functions[mid]; lo = mid + 1; }
            else hi = mid - 1;
        }
        UWord off = (UWord)(pc - m->code);
        int ln = 0;
        lo = 0; hi = m->nlines - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (m->lines[mid].offset <= off) { ln = m->lines[mid].line; lo = mid + 1; }
            else hi = mid - 1;
        }
        if (modp) *modp = m;
        if (fnp) *fnp = fn;
        if (line) *line = ln;
        return fn != NULL;
    }
    return 0;
}
