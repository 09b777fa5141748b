/* fuzz_frontend.c — libFuzzer target: the whole compiler front end (lexer,
 * preprocessor, parser, records, checks, code generation) through its one
 * entry point, compiler_compile_module. Any input must give a module or
 * errors, never a crash, hang or sanitizer report; and whatever module it
 * gives must pass the loader's bytecode_check (the compiler never makes
 * code the loader refuses) and disassemble. Seeds: tests/lang, tests/errors,
 * tests/codegen (tests/fuzz/run.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fuzz_init();
    devnull = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = fuzz_text(data, size);
    CodeModule *cm = compiler_compile_module("fuzz.mini", src, size, NULL);
    if (cm) {
        const char *bad = bytecode_check(cm);
        if (bad) { fprintf(stderr, "the compiler made a module the loader refuses: %s\n", bad); abort(); }
        disasm_module(devnull, cm);
    }
    return 0;
}
