/* fuzz_loader.c — libFuzzer target: the module loader (vm/loader.c) and its
 * bytecode_check (vm/bytecode_check.c), with the disassembler.
 *
 * There is no bytecode file format: the loader takes the CodeModule the
 * compiler hands it. So this target compiles real modules at start (the
 * tests/lang files up to 8 KB, sorted by name) and each input is a list of
 * mutations of one of them: overwrite a word with a small number, a
 * register, an opcode, or one of the module's own literal operands (so that
 * a boxed literal is a real term: a literal cannot be checked from its word
 * alone, see bytecode_check.c); truncate the code; change the label count,
 * a function's labels, a lambda's function. The mutated module must either be
 * refused by bytecode_check, or load (loader_load) and disassemble, without
 * a crash or sanitizer report. The code array is malloc'ed at its exact
 * size, so a read past its end is an ASan report.
 *
 * Input: 2 bytes (which module), then records of 6 bytes: position (3
 * bytes, modulo the code size), kind (1), value (2). The seeds (made by
 * run.sh) are one record per kind over a few modules.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "emulator.h"

#define MAX_SEEDS 400
static CodeModule *mods[MAX_SEEDS];
static UWord *lits[MAX_SEEDS];           /* each module's literal operands */
static size_t nlits[MAX_SEEDS];
static int nmods;

/* The literal operand words of a compiled module (by the formats). */
static void collect_literals(int m)
{
    const CodeModule *cm = mods[m];
    lits[m] = malloc(sizeof(UWord) * (cm->ncode + 1));
    for (size_t i = 0; i < cm->ncode;) {
        size_t k = i + 1;
        for (const char *f = opcode_formats[cm->code[i]]; *f; f++) {
            UWord v = cm->code[k++];
            if ((*f == 's' && operand_is_literal(v)) || *f == 'a') lits[m][nlits[m]++] = v;
            else if (*f == 'n') {
                for (UWord j = 0; j < v; j++)
                    if (operand_is_literal(cm->code[k + j])) lits[m][nlits[m]++] = cm->code[k + j];
                k += v;
            } else if (*f == 'J') {
                for (UWord j = 0; j < v; j++) lits[m][nlits[m]++] = cm->code[k + 2 * j];
                k += 2 * v;
            }
        }
        i = k;
    }
}
static FILE *devnull;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void compile_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".mini") == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        char *src = module_read_file(path, &len);
        if (src && len <= 8192 && nmods < MAX_SEEDS) {
            CodeModule *cm = compiler_compile_module(path, src, len, NULL);
            if (cm && cm->ncode > 0) mods[nmods++] = cm;
        }
        free(names[i]);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fuzz_init();
    module_init("bin/mini");
    emulator_handlers();
    devnull = fopen("/dev/null", "w");
    compile_dir("tests/lang");
    if (nmods == 0) { fprintf(stderr, "fuzz_loader: no modules under tests/lang (run from the tree's root)\n"); exit(1); }
    for (int i = 0; i < nmods; i++)      /* the compiler's own output must pass */
        if (bytecode_check(mods[i])) { fprintf(stderr, "%s refused\n", mods[i]->file); abort(); }
    for (int i = 0; i < nmods; i++) collect_literals(i);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int which = (data[0] << 8 | data[1]) % nmods;
    const CodeModule *orig = mods[which];
    CodeModule m = *orig;
    UWord *code = malloc(sizeof(UWord) * orig->ncode);
    memcpy(code, orig->code, sizeof(UWord) * orig->ncode);
    CodeFunction *fns = malloc(sizeof(CodeFunction) * (size_t)(orig->nfunctions + 1));
    if (orig->nfunctions) memcpy(fns, orig->functions, sizeof(CodeFunction) * (size_t)orig->nfunctions);
    CodeLambda *lams = malloc(sizeof(CodeLambda) * (size_t)(orig->nlambdas + 1));
    if (orig->nlambdas) memcpy(lams, orig->lambdas, sizeof(CodeLambda) * (size_t)orig->nlambdas);
    m.code = code; m.functions = fns; m.lambdas = lams;

    for (size_t r = 2; r + 6 <= size && m.ncode > 0; r += 6) {
        size_t pos = ((size_t)data[r] << 16 | (size_t)data[r + 1] << 8 | data[r + 2]) % m.ncode;
        int kind = data[r + 3] % 9;
        unsigned val = (unsigned)data[r + 4] << 8 | data[r + 5];
        switch (kind) {
        case 0: code[pos] = val & 3 ? (UWord)val << 2 : val; break;  /* a number, never a pointer */
        case 1: if (nlits[which]) code[pos] = lits[which][val % nlits[which]]; break;  /* a literal of the module */
        case 2: code[pos] = val & 1 ? REG_Y(val >> 1) : REG_X(val >> 1); break;
        case 3: code[pos] = val % (OP__COUNT + 4); break;             /* an opcode, or just past them */
        case 4: m.ncode = pos; break;                                 /* truncated */
        case 5: m.nlabels = (int)(val % (unsigned)(orig->nlabels + 3)); break;
        case 6: if (m.nfunctions) fns[val % (unsigned)m.nfunctions].label = (int)(pos % (size_t)(orig->nlabels + 3)); break;
        case 7: if (m.nlambdas) lams[val % (unsigned)m.nlambdas].function = (int)(pos % (size_t)(orig->nfunctions + 3)) - 1; break;
        default: code[pos] = make_small((int)val - 32768); break;     /* a small integer literal */
        }
    }
    if (!bytecode_check(&m)) {
        disasm_module(devnull, &m);
        if (!loader_load(&m)) { fprintf(stderr, "fuzz_loader: checked, yet not loaded\n"); abort(); }
    }
    free(code); free(fns); free(lams);
    return 0;
}
