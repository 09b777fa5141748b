/* opcodes.h — the instruction set as C: enum, names, operand formats, and the
 * encoding of register operands. The list itself is opcodes.def. */
#ifndef MINI_OPCODES_H
#define MINI_OPCODES_H

#include "term.h"

typedef enum {
#define OP(name, fmt, doc) OP_##name,
#include "opcodes.def"
#undef OP
    OP__COUNT
} Opcode;

extern const char *const opcode_names[OP__COUNT];
extern const char *const opcode_formats[OP__COUNT];

/* Register operands carry the primary tag 00, which no literal term has:
 * x registers as (i << 3), y registers as ((i + 1) << 3) | 4, the +1 because
 * stop[0] holds the CP. */
#define REG_X(i) ((UWord)(i) << 3)
#define REG_Y(i) ((((UWord)(i) + 1) << 3) | 4)
#define operand_is_reg(w) (((w) & 3) == 0)
#define operand_is_y(w) (((w) & 7) == 4)
#define operand_reg_index(w) ((UWord)(w) >> 3)   /* x: i; y: i + 1 */

/* Float registers fr0..fr(MAX_FREG-1): raw doubles, operand kind 'r' (the
 * register number). They live in the emulator's C frame: nothing is kept in
 * them across a call or a receive (codegen_float.c). */
#define MAX_FREG 256

#endif
