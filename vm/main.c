/* main.c — the `mini` command: flags, then run a file's main function.
 *
 *   mini [flags] file.mini [args...]   compile file.mini, call main/1 with the
 *                                      arguments as strings (or main/0)
 *   mini -S file.mini                  print the module's bytecode
 *
 * Flags follow erl's: +S N, -smp disable|enable, +A N, -pa DIR. Bad flags get
 * a usage message and exit status 2.
 */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atom.h"
#include "bif.h"
#include "emulator.h"
#include "error_report.h"
#include "loader.h"
#include "bytecode.h"
#include "frontend.h"
#include "proc.h"
#include "sched.h"
#include "timer.h"
#include "bif_io.h"

#define MINI_VERSION "0.1"

static void usage(FILE *f) {
    fprintf(f,
        "usage: mini [flags] [file.mini [args...]]\n"
        "  -S file.mini      print the module's bytecode\n"
        "  -pa DIR           add DIR to the code path\n"
        "  +S N              number of scheduler threads\n"
        "  -smp disable      one scheduler, no SMP machinery\n"
        "  +A N              number of async driver threads\n"
        "  --version         print the version\n"
        "  --help            this text\n");
}

static int bad_flag(const char *flag) {
    fprintf(stderr, "mini: bad flag: %s\n", flag);
    usage(stderr);
    return 2;
}

static int is_count(const char *s) {
    if (!s || !*s) return 0;
    for (; *s; s++) if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* A list of strings (lists of character codes) on p's heap. */
static Term make_args(Process *p, int argc, char **argv) {
    Term list = NIL;
    for (int i = argc - 1; i >= 0; i--) {
        size_t n = strlen(argv[i]);
        Term s = NIL;
        Term *hp = heap_alloc(p, 2 * n + 2);
        for (size_t j = n; j-- > 0;) {
            hp[0] = make_small((unsigned char)argv[i][j]);
            hp[1] = s;
            s = make_list(hp);
            hp += 2;
        }
        hp[0] = s; hp[1] = list;
        list = make_list(hp);
    }
    return list;
}

/* Runs M:main(Args) (or M:main()) as the first process, and every process
 * it starts, until it ends; returns the exit status. */
static int run_main(Term module, int arity, int argc, char **argv) {
    Term args = NIL;
    Process *tmp = NULL;
    if (arity == 1) {
        tmp = process_new_memory(MIN_HEAP_SIZE);
        args = make_args(tmp, argc, argv);
        Term *hp = heap_alloc(tmp, 2);
        hp[0] = args; hp[1] = NIL;
        args = make_list(hp);
    }
    uint64_t ref;
    Term pid = proc_spawn(NULL, module, ATOM_TERM(main), args, 0, 0, &ref);
    if (tmp) process_free_memory(tmp);
    int status = sched_run(pid);
    io_flush();
    return status == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    GC_INIT();
    atom_init();
    timer_init();
    proc_init();
    module_init(argv[0]);
    int show_code = 0;
    int schedulers = (int)sysconf(_SC_NPROCESSORS_ONLN), online = -1, smp = 1;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-S") == 0) show_code = 1;
        else if (strcmp(a, "-pa") == 0) {
            if (i + 1 >= argc) return bad_flag(a);
            module_add_path(argv[++i]);
        } else if (strcmp(a, "+S") == 0) {
            /* +S N or +S N:M (schedulers : online) */
            if (i + 1 >= argc) return bad_flag(a);
            char *colon = strchr(argv[i + 1], ':');
            if (colon) *colon = 0;
            if (!is_count(argv[i + 1]) || (colon && !is_count(colon + 1))) return bad_flag(a);
            schedulers = atoi(argv[i + 1]);
            online = colon ? atoi(colon + 1) : -1;
            if (schedulers < 1 || schedulers > 64 || online == 0 || online > schedulers)
                return bad_flag(a);
            i++;
        } else if (strcmp(a, "+A") == 0) {
            if (i + 1 >= argc || !is_count(argv[i + 1])) return bad_flag(a);
            i++;
        } else if (strcmp(a, "-smp") == 0) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "disable") && strcmp(argv[i + 1], "enable")))
                return bad_flag(a);
            smp = strcmp(argv[i + 1], "enable") == 0;
            i++;
        } else if (strcmp(a, "-noshell") == 0) {
        } else if (strcmp(a, "--version") == 0) {
            printf("Mini %s\n", MINI_VERSION);
            return 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' || a[0] == '+') return bad_flag(a);
        else break;
    }
    if (i >= argc) {
        printf("Mini %s\nThe interactive shell is not built yet; run a file: mini file.mini\n",
               MINI_VERSION);
        return 0;
    }
    const char *file = argv[i++];
    if (show_code) {
        size_t len;
        char *src = module_read_file(file, &len);
        if (!src) { fprintf(stderr, "%s: cannot read file\n", file); return 1; }
        Module *m = parse_module(file, src, len);
        if (!m || check_module(m) > 0) return 1;
        CodeModule *cm = codegen_module(m);
        if (!cm) return 1;
        disasm_module(stdout, cm);
        return 0;
    }
    LoadedModule *lm = module_load_file(file);
    if (!lm) return 1;
    Export *e = export_get(lm->name, ATOM_TERM(main), 1);
    int arity = 1;
    if (!e->code) { e = export_get(lm->name, ATOM_TERM(main), 0); arity = 0; }
    if (!e->code) {
        fprintf(stderr, "%s: no exported main/0 or main/1\n", file);
        return 1;
    }
    sched_init(schedulers, smp);
    if (online > 0) sched_set_online(online);
    return run_main(lm->name, arity, argc - i, argv + i);
}
