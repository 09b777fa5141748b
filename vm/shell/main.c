/* main.c — the `mini` command: flags as erl takes them, then the shell, a
 * file's main function, or the -s/-eval/-run sequence.
 *
 *   mini                               the interactive shell (stdlib/shell.mini)
 *   mini [flags] file.mini [args...]   compile file.mini, call main/1 with the
 *                                      arguments as strings (or main/0)
 *   mini -S file.mini                  print the module's bytecode
 *   mini -c DIR file.mini...           compile into DIR/Module.mbc (modcache.h)
 *   mini -noshell -s M F A... -eval E  run those in order, then keep running
 *
 * Without a file the first process is init:start(Actions, Shell)
 * (stdlib/init.mini): it runs each -s/-eval/-run action in order and then,
 * unless -noshell, becomes the shell. The VM ends when that first process
 * ends (q(), Ctrl-D, the end of piped input), or at halt/0,1 with its
 * status. With -noshell init waits, as erl's: the VM runs while other
 * processes exist, until halt/0,1 or init:stop/0,1 (an ordered shutdown).
 * With a file the VM ends when main returns.
 *
 * Bad flags get a short usage on stderr and exit status 2.
 */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atom.h"
#include "gc.h"
#include "term_build.h"
#include "bif.h"
#include "emulator.h"
#include "error_report.h"
#include "port.h"
#include "loader.h"
#include "modcache.h"
#include "compiler.h"
#include "proc.h"
#include "sched.h"
#include "shell.h"
#include "timer.h"
#include "bif_io.h"
#include "mem_limit.h"
#include "dist/dist.h"

#define MINI_VERSION "0.1"

static void usage(FILE *f) {
    fprintf(f,
        "usage: mini [flags] [file.mini [args...]]\n"
        "  (no file)           start the interactive shell\n"
        "  file.mini           run its main/1 (or main/0); the VM ends when main returns\n"
        "  -S file.mini        print the module's bytecode\n"
        "  -c DIR file.mini... compile each file into DIR/Module.mbc (the library's cache)\n"
        "  -W0                 no compiler warnings (unused variables, functions, ...)\n"
        "  -pa DIR             add DIR to the code path\n"
        "  -I DIR              add DIR to the -include search path\n"
        "  +S N | +S N:M       scheduler threads (N, at most 64), of which M online;\n"
        "                      as erl: 0 means one per core, a negative N that many\n"
        "                      fewer than the cores, and at most one per core online\n"
        "  -smp disable|enable|auto  one scheduler and no SMP machinery, or SMP\n"
        "  +A N                number of async driver threads\n"
        "  +P N                process limit (rounded up to a power of two)\n"
        "  +t N                atom limit\n"
        "  +hms N              default min_heap_size of processes (words)\n"
        "  +hmax N             default max_heap_size of processes (words, 0: none)\n"
        "  +hmaxk true|false   whether a process over max_heap_size is killed\n"
        "  +hmaxel true|false  whether it is reported\n"
        "  +MMax MB            ceiling on all process heaps (0: none; default 3/4\n"
        "                      of the memory, or of ulimit -v)\n"
        "  -noshell            no shell: run the actions below, then keep running while\n"
        "                      processes exist, until halt() or init:stop()\n"
        "  -s Mod [Fun [Arg...]]  call Mod:Fun([Arg...]) (atoms; Fun defaults to start)\n"
        "  -run Mod [Fun [Arg...]] the same with the arguments as strings\n"
        "  -eval Expr          evaluate the expressions Expr\n"
        "  -version            print the version on stderr and go on\n"
        "  +V                  print the version on stderr and stop\n"
        "  --version           print the version on stdout and stop\n"
        "  -help, --help       this text\n"
        "The library (stdlib/, examples/, lib/) is found beside the binary (bin/..\n"
        "or, installed, PREFIX/lib/mini) or in $MINI_ROOT.\n");
}

/* "mini: +S: bad scheduler count: 100 (1..64)" names the flag and the value */
static int bad_value(const char *flag, const char *value, const char *why) {
    if (value) fprintf(stderr, "mini: %s: %s: %s\n", flag, why, value);
    else fprintf(stderr, "mini: %s: %s\n", flag, why);
    fprintf(stderr, "usage: mini [flags] [file.mini [args...]]   (mini --help lists the flags)\n");
    return 2;
}

static int bad_flag(const char *flag, const char *why) {
    fprintf(stderr, "mini: %s: %s\n", why, flag);
    fprintf(stderr, "usage: mini [flags] [file.mini [args...]]   (mini --help lists the flags)\n");
    return 2;
}

static int is_count(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++) if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* a count flag's value (at most 2^40), or -1 */
static long long count_arg(int argc, char **argv, int i) {
    if (i + 1 >= argc || !is_count(argv[i + 1]) || strlen(argv[i + 1]) > 13) return -1;
    return atoll(argv[i + 1]);
}

/* true|false, or -1 */
static int bool_arg(int argc, char **argv, int i) {
    if (i + 1 >= argc) return -1;
    return strcmp(argv[i + 1], "true") == 0 ? 1 : strcmp(argv[i + 1], "false") == 0 ? 0 : -1;
}

/* +S N[:M] as erl reads it: N > 0 schedulers, N <= 0 that many fewer
 * than the cores (at least 1); M online, 0 or absent meaning min(N,
 * cores), a negative M that many fewer than N. -1 for a bad value. */
static int sched_flag(const char *val, int cores, int *n, int *online) {
    char *end;
    long s = strtol(val, &end, 10);
    if (end == val || (*end && *end != ':')) return -1;
    if (s <= 0) s = cores + s < 1 ? 1 : cores + s;
    if (s > MAX_SCHEDULERS) return -1;
    long m = 0;
    if (*end == ':') {
        const char *ms = end + 1;
        m = strtol(ms, &end, 10);
        if (end == ms || *end) return -1;
        if (m < 0) m = s + m < 1 ? 1 : s + m;
    }
    if (m == 0) m = s < cores ? s : cores;
    if (m > s) return -1;
    *n = (int)s;
    *online = (int)m;
    return 0;
}

/* ---- building terms on a scratch heap (copied when the process spawns) ---- */

static Term make_string(Process *p, const char *s) {
    size_t n = strlen(s);
    Term r = NIL;
    Term *hp = heap_alloc(p, 2 * n + 1);
    for (size_t j = n; j-- > 0;) {
        hp[0] = make_small((unsigned char)s[j]);
        hp[1] = r;
        r = make_list(hp);
        hp += 2;
    }
    return r;
}

static Term tuple(Process *p, int n, const Term *v) {
    Term *hp = heap_alloc(p, (size_t)n + 1);
    hp[0] = make_tuple_header(n);
    for (int i = 0; i < n; i++) hp[i + 1] = v[i];
    return make_boxed(hp);
}

/* A list of strings, or of atoms. */
static Term make_args(Process *p, int argc, char **argv, int atoms) {
    Term list = NIL;
    for (int i = argc - 1; i >= 0; i--)
        list = cons(p, atoms ? atom_intern_cstr(argv[i]) : make_string(p, argv[i]), list);
    return list;
}

/* Runs module:fun(args) as the first process, and every process it starts,
 * until it ends; returns the exit status. */
static int run_first(Term module, Term fun, Term args) {
    uint64_t ref;
    if (dist_alive()) {
        /* net_kernel (stdlib/net_kernel.mini) owns the node's connections;
         * it and its fellow servers are registered before anything runs */
        dist_spawn_kernel(NULL);
    }
    Term pid = proc_spawn(NULL, module, fun, args, NULL, &ref);
    int status = sched_run(pid);
    async_shutdown();
    io_flush();
    return status == 0 ? 0 : 1;
}

/* mini -c DIR FILE...: each file compiled into DIR/Module.mbc, the cache
 * the code path loads library modules from (modcache.h; `make` runs it on
 * stdlib/). A module with a constant the cache cannot hold is left to be
 * compiled when it loads. */
static int cache_files(const char *dir, int n, char **files) {
    int status = 0;
    for (int k = 0; k < n; k++) {
        size_t len, alen;
        char *src = module_read_file(files[k], &len);
        if (!src) { fprintf(stderr, "%s: cannot read file\n", files[k]); status = 1; continue; }
        CodeModule *cm = compiler_compile_module(files[k], src, len, NULL);
        if (!cm) { status = 1; continue; }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.mbc", dir, atom_name(cm->name, &alen));
        int r = modcache_write(path, cm, src, len);
        if (r < 0) { fprintf(stderr, "%s: cannot write\n", path); status = 1; }
        else if (r == 0) fprintf(stderr, "%s: not cached (a constant the cache cannot hold)\n", files[k]);
    }
    return status;
}

static int run_file(const char *file, int show_code, int argc, char **argv) {
    if (show_code) {
        size_t len;
        char *src = module_read_file(file, &len);
        if (!src) { fprintf(stderr, "%s: cannot read file\n", file); return 1; }
        CodeModule *cm = compiler_compile_module(file, src, len, NULL);
        if (!cm) return 1;
        disasm_module(stdout, cm);
        return 0;
    }
    compiler_warnings_want(stderr);    /* erlc's warnings for this file, not the library's */
    LoadedModule *lm = module_load_file(file);
    compiler_warnings_want(NULL);
    if (!lm) return 1;
    Export *e = export_get(lm->name, ATOM_TERM(main), 1);
    int arity = 1;
    if (!export_code(e)) { e = export_get(lm->name, ATOM_TERM(main), 0); arity = 0; }
    if (!export_code(e)) {
        fprintf(stderr, "%s: no exported main/0 or main/1\n", file);
        return 1;
    }
    Process *tmp = process_new_memory(MIN_HEAP_SIZE);
    Term args = arity == 1 ? cons(tmp, make_args(tmp, argc, argv, 0), NIL) : NIL;
    int st = run_first(lm->name, ATOM_TERM(main), args);
    process_free_memory(tmp);
    return st;
}

int main(int argc, char **argv) {
    heap_init();
    /* Boehm's collection at start-up finds an empty heap; all it did was
     * read our static memory, faulting in every page of it (about 25 ms of
     * every start on a virtual machine). Later collections skip the big
     * static tables that hold no pointer into Boehm's heap. */
    GC_set_dont_precollect(1);
    GC_INIT();
    proc_table_unscanned();
    pool_unscanned();
    atom_init();
    timer_init();
    int have_root = module_init(argv[0]);
    mem_limit_init();
    int show_code = 0, noshell = 0;
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    int schedulers = cores < MAX_SCHEDULERS ? cores : MAX_SCHEDULERS, online = -1, smp = 1, async = 0;
    const char *node_name = NULL, *cookie = NULL;      /* -sname/-name, -setcookie */
    int longnames = 0, hidden = 0;
    /* -s/-eval/-run in order, as a Mini list built on a scratch heap */
    Process *tmp = process_new_memory(MIN_HEAP_SIZE);
    Term actions = NIL, *last = &actions;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-S") == 0) show_code = 1;
        else if (strcmp(a, "-c") == 0) {
            if (i + 2 >= argc) return bad_flag(a, "missing directory or file after");
            process_free_memory(tmp);
            return cache_files(argv[i + 1], argc - i - 2, argv + i + 2);
        }
        else if (strcmp(a, "-W0") == 0) compiler_warnings_off = 1;
        else if (strcmp(a, "-I") == 0) {
            if (i + 1 >= argc) return bad_flag(a, "missing directory after");
            compiler_include_dir_add(argv[++i]);
        } else if (strncmp(a, "-I", 2) == 0 && a[2]) {
            compiler_include_dir_add(a + 2);
        } else if (strcmp(a, "-pa") == 0) {
            if (i + 1 >= argc) return bad_flag(a, "missing directory after");
            module_add_path(argv[++i]);
        } else if (strcmp(a, "+S") == 0) {
            /* +S N or +S N:M as erl: N <= 0 counts from the cores, M
             * defaults to min(N, cores) */
            if (i + 1 >= argc) return bad_value(a, NULL, "missing scheduler count");
            const char *val = argv[++i];
            if (sched_flag(val, cores, &schedulers, &online) < 0)
                return bad_value(a, val, "bad scheduler count (N or N:M, N at most 64, M at most N)");
        } else if (strcmp(a, "+A") == 0) {
            if (i + 1 >= argc) return bad_value(a, NULL, "missing count 0..1024");
            if (!is_count(argv[i + 1]) || strlen(argv[i + 1]) > 5 || atoi(argv[i + 1]) > 1024)
                return bad_value(a, argv[i + 1], "bad count (0..1024)");
            async = atoi(argv[++i]);
        } else if (strcmp(a, "+P") == 0 || strcmp(a, "+t") == 0 || strcmp(a, "+hms") == 0 ||
                   strcmp(a, "+hmax") == 0 || strcmp(a, "+MMax") == 0) {
            long long n = count_arg(argc, argv, i);
            if (i + 1 >= argc) return bad_value(a, NULL, "missing count");
            if (n < 0) return bad_value(a, argv[i + 1], "bad count");
            if (a[1] == 'P') {
                if (n < 1024 || n > (1LL << 27)) return bad_value(a, argv[i + 1], "bad number of processes (1024..134217727)");
                proc_table_init((size_t)n);
            } else if (a[1] == 't') {
                if (n < 8192 || n > (1LL << 26)) return bad_value(a, argv[i + 1], "bad atom table size (8192..67108864)");
                atom_set_limit((size_t)n);
            } else if (a[1] == 'M') {
                mem_set_ceiling_mb((size_t)n);
            } else if (strcmp(a, "+hms") == 0) {
                proc_default_min_heap = (size_t)n;
            } else {
                if (n != 0 && n < 233) return bad_value(a, argv[i + 1], "bad heap size (0 or at least 233 words)");
                mem_default_max_heap = (size_t)n;
            }
            i++;
        } else if (strcmp(a, "+hmaxk") == 0 || strcmp(a, "+hmaxel") == 0) {
            int b = bool_arg(argc, argv, i);
            if (b < 0) return bad_value(a, i + 1 < argc ? argv[i + 1] : NULL, "takes true or false");
            if (a[5] == 'k') mem_default_max_heap_kill = b;
            else mem_default_max_heap_log = b;
            i++;
        } else if (strcmp(a, "-smp") == 0) {
            if (i + 1 >= argc) return bad_value(a, NULL, "missing enable, auto or disable");
            if (strcmp(argv[i + 1], "disable") && strcmp(argv[i + 1], "enable") && strcmp(argv[i + 1], "auto"))
                return bad_value(a, argv[i + 1], "takes enable, auto or disable");
            smp = strcmp(argv[i + 1], "disable") != 0;
            i++;
        } else if (strcmp(a, "-sname") == 0 || strcmp(a, "-name") == 0) {
            if (i + 1 >= argc) return bad_flag(a, "missing node name after");
            node_name = argv[++i];
            longnames = a[1] == 'n';
        } else if (strcmp(a, "-setcookie") == 0) {
            if (i + 1 >= argc) return bad_flag(a, "missing cookie after");
            cookie = argv[++i];
        } else if (strcmp(a, "-kernel") == 0) {
            /* erl's -App Key Value for the one kernel parameter Mini reads */
            if (i + 2 >= argc) return bad_flag(a, "missing parameter and value after");
            char *end;
            long t = strtol(argv[i + 2], &end, 10);
            if (strcmp(argv[i + 1], "net_ticktime")) return bad_flag(a, "only net_ticktime can be set with");
            if (*end || end == argv[i + 2] || t < 1 || t > 1000000)
                return bad_flag(a, "net_ticktime must be a whole number of seconds, 1 or more, after");
            dist_set_ticktime(t);
            i += 2;
        } else if (strcmp(a, "-hidden") == 0) {
            hidden = 1;
        } else if (strcmp(a, "-noshell") == 0) {
            noshell = 1;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "-run") == 0) {
            /* -s Mod [Fun [Args...]]: the words up to the next flag */
            int is_run = a[1] == 'r';
            if (i + 1 >= argc || argv[i + 1][0] == '-' || argv[i + 1][0] == '+')
                return bad_flag(a, "missing module after");
            int j = i + 1;
            while (j < argc && argv[j][0] != '-' && argv[j][0] != '+') j++;
            Term v[4];
            v[0] = atom_intern_cstr(is_run ? "run" : "s");
            v[1] = atom_intern_cstr(argv[i + 1]);
            v[2] = atom_intern_cstr(j > i + 2 ? argv[i + 2] : "start");
            v[3] = j > i + 3 ? make_args(tmp, j - (i + 3), argv + i + 3, !is_run) : NIL;
            Term act = tuple(tmp, 4, v);
            if (j <= i + 3) {   /* no arguments: M:F(), as erl calls it */
                Term w[3] = { v[0], v[1], v[2] };
                act = tuple(tmp, 3, w);
            }
            *last = cons(tmp, act, NIL);
            last = &list_ptr(*last)[1];
            i = j - 1;
        } else if (strcmp(a, "-eval") == 0) {
            if (i + 1 >= argc) return bad_flag(a, "missing expression after");
            Term v[2] = { atom_intern_cstr("eval"), make_string(tmp, argv[++i]) };
            *last = cons(tmp, tuple(tmp, 2, v), NIL);
            last = &list_ptr(*last)[1];
        } else if (strcmp(a, "--version") == 0) {
            printf("Mini %s\n", MINI_VERSION);
            return 0;
        } else if (strcmp(a, "-version") == 0 || strcmp(a, "+V") == 0) {
            /* erl's: the version on stderr; +V stops there, -version goes on */
            fprintf(stderr, "Mini (SMP,ASYNC_THREADS) emulator version %s\n", MINI_VERSION);
            if (a[0] == '+') return 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' || a[0] == '+') return bad_value(a, NULL, "unknown flag");
        else break;
    }
    if (!have_root) {
        const char *env = getenv("MINI_ROOT");
        if (env && *env)
            fprintf(stderr, "mini: cannot find the Mini library: no stdlib/lists.mini in "
                            "MINI_ROOT=%s\n", env);
        else
            fprintf(stderr, "mini: cannot find the Mini library: no stdlib/lists.mini in %s "
                            "or %s/lib/mini; install with `make install PREFIX=...` or set "
                            "MINI_ROOT to the folder that holds stdlib/\n", module_root(), module_root());
        return 1;
    }
    sched_init(schedulers, smp);
    if (online > 0 && smp) sched_set_online(online);
    async_init(async);
    port_drivers_init();
    if (node_name && dist_start(node_name, longnames, cookie, hidden) < 0) return 1;
    if (!node_name && cookie) dist_preset_cookie(cookie);

    if (i < argc) {
        process_free_memory(tmp);
        return run_file(argv[i], show_code, argc - i - 1, argv + i + 1);
    }
    if (show_code) return bad_flag("-S", "no file to show after");

    char banner[160];
    if (smp)
        snprintf(banner, sizeof banner, "Mini %s [smp:%d:%d] [async-threads:%d]", MINI_VERSION,
                 sched_count(), sched_online(), async);
    else
        snprintf(banner, sizeof banner, "Mini %s [smp disabled] [async-threads:%d]", MINI_VERSION, async);
    if (!noshell) shell_reader_start(banner);
    Term v[2] = { actions, noshell ? AM_false : AM_true };
    Term args = cons(tmp, v[0], cons(tmp, v[1], NIL));
    int st = run_first(atom_intern_cstr("init"), atom_intern_cstr("start"), args);
    process_free_memory(tmp);
    return st;
}
