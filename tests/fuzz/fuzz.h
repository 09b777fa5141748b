/* fuzz.h — what the libFuzzer targets in tests/fuzz share: starting the
 * parts of the VM they need (the heap, Boehm, atoms, the export table and
 * code path), once, as vm/shell/main.c does, and a sink for the compiler's
 * diagnostics so that the fuzzers' output stays readable. Built only by
 * `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#ifndef MINI_FUZZ_H
#define MINI_FUZZ_H

#include <gc.h>
#include <stddef.h>
#include <stdint.h>

#include "atom.h"
#include "compiler.h"
#include "frontend.h"
#include "heap.h"
#include "loader.h"

static inline void fuzz_diag_drop(void *ctx, int line, int col, const char *msg)
{
    (void)ctx; (void)line; (void)col; (void)msg;
}

/* Run from the repository root (tests/fuzz/run.sh does): the code path and
 * the include_lib root are the tree's, as frontend_check sets them. */
static inline void fuzz_init(void)
{
    heap_init();
    GC_INIT();
    atom_init();
    compiler_code_dir_add("stdlib");
    compiler_lib_root_set("lib");
    diag_hook = fuzz_diag_drop;
}

/* The input as a NUL-terminated string in Boehm memory (the compiler keeps
 * pointers into its source). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = GC_MALLOC_ATOMIC(size + 1);
    for (size_t i = 0; i < size; i++) s[i] = (char)data[i];
    s[size] = 0;
    return s;
}

#endif
