/* fuzz_shell.c — libFuzzer target: the shell's reading of typed text. The
 * reader thread (vm/shell/shell_reader.c) only moves lines; what reads them
 * is the shell's half of the compiler: compiler_shell_split, which finds
 * where one expression sequence ends when more follow on the line, and
 * compiler_compile_shell, which compiles each with names bound. This runs
 * the input through both as shell.mini does (split, compile each piece,
 * and the remainder), with a few names bound. Any input must give a status,
 * never a crash; a module it gives must pass bytecode_check. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fuzz_init();
    diag_hook = NULL;                 /* compile_shell passes its own */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *bound[] = { "X", "Y", "Acc" };
    char *text = fuzz_text(data, size);
    size_t left = size;
    for (int pieces = 0; pieces < 64; pieces++) {
        size_t cut = compiler_shell_split(text, left);
        if (cut > left) { fprintf(stderr, "split past the end: %zu of %zu\n", cut, left); abort(); }
        size_t n = cut ? cut : left;
        ShellCode sc;
        ShellStatus st = compiler_compile_shell(text, n, "", 0, bound, pieces % 4, fuzz_diag_drop, NULL, &sc);
        if (st == SHELL_OK && (!sc.code || bytecode_check(sc.code))) {
            fprintf(stderr, "the shell compiled a module the loader refuses\n");
            abort();
        }
        if (!cut) break;
        /* the rest as a string of its own: compile_shell keeps pointers into it */
        text = fuzz_text((const uint8_t *)text + cut, left - cut);
        left -= cut;
    }
    return 0;
}
