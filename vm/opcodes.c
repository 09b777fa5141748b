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
