/* driver.c — a stand-in for `bin/mini FILE` while the VM is being written:
 * parses and checks one file with the front end and prints what it prints.
 * Used to produce and verify tests/errors/NAME.err (see gen.sh).
 * Exit status: 0 if the module is clean, 1 after errors.
 * With -P the tree is dumped to stdout. */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frontend.h"

int main(int argc, char **argv)
{
    GC_INIT();
    int dump = 0;
    int i = 1;
    if (i < argc && strcmp(argv[i], "-P") == 0) { dump = 1; i++; }
    if (i >= argc) { fprintf(stderr, "usage: driver [-P] file.mini\n"); return 2; }
    FILE *f = fopen(argv[i], "rb");
    if (!f) { perror(argv[i]); return 2; }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    Module *m = parse_module(argv[i], buf, len);
    if (!m) return 1;
    if (check_module(m) > 0) return 1;
    if (dump) ast_dump(stdout, m);
    return 0;
}
