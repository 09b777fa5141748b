/* opcodes.c — the names and operand formats of the instruction set, made
 * from opcodes.def (the code generator, loader and disassembler use them). */
#include "opcodes.h"

const char *const opcode_names[OP__COUNT] = {
#define OP(name, fmt, doc) #name,
#include "opcodes.def"
#undef OP
};

const char *const opcode_formats[OP__COUNT] = {
#define OP(name, fmt, doc) fmt,
#include "opcodes.def"
#undef OP
};

size_t opcode_instr_size(const UWord *code)
{
    size_t n = 1;
    for (const char *f = opcode_formats[code[0]]; *f; f++) {
        if (*f == 'n') return n + 1 + code[n];
        if (*f == 'J') return n + 1 + 2 * code[n];
        n++;
    }
    return n;
}
