/* opcodes.h — the instruction set as C: enum, names, operand formats, and the
 * encoding of operands (registers, literals, segment specs). The list itself
 * is opcodes.def. With bytecode.h (the module format) this is the contract
 * between the compiler and the VM: both sides encode and decode operands
 * only through what is defined here. */
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
/* The words an instruction takes, operands included (code[0] a valid opcode). */
size_t opcode_instr_size(const UWord *code);

/* ---- operand encoding: the one definition of how an operand word reads ----
 *
 * Register operands carry the primary tag 00, which no literal term has, so
 * a source operand is either a register or the literal term itself:
 *
 *   x register i    i << 3                 (low bits 000)
 *   y register i    ((i + 1) << 3) | 4     (low bits 100; +1 because stop[0]
 *                                           holds the CP, so the slot number
 *                                           indexes the frame directly)
 *   literal         the term word          (low bits never 00)
 *
 * The code generator encodes with REG_X/REG_Y; the loader, the emulator and
 * the disassembler decode with the tests below. The emulator's SRC/DST read
 * operand_slot() straight into x[] or the frame, with no subtraction. */
#define MAX_REG 256            /* x registers: Erlang's limit on arity is 255 */
#define REG_X(i) ((UWord)(i) << 3)
#define REG_Y(i) ((((UWord)(i) + 1) << 3) | 4)
#define operand_is_reg(w) (((w) & 3) == 0)
#define operand_is_literal(w) (((w) & 3) != 0)
#define operand_is_x(w) (((w) & 7) == 0)
#define operand_is_y(w) (((w) & 7) == 4)
/* Of a register operand: its slot, the index into x[] for an x register and
 * into the frame (stop[]) for a y register; and whether it is a y register
 * (cheaper than operand_is_y once the operand is known to be a register). */
#define operand_slot(w) ((UWord)(w) >> 3)
#define operand_reg_y(w) ((w) & 4)
/* The register numbers as written in listings: x_i, y_i. */
#define operand_x_index(w) ((int)operand_slot(w))
#define operand_y_index(w) ((int)operand_slot(w) - 1)

/* Binary segment specs (the spec operand of bs_create and bs_get, a small
 * integer literal): type | flags | unit << BS_UNIT_SHIFT. */
enum { BS_INTEGER = 0, BS_FLOAT = 1, BS_BINARY = 2, BS_UTF8 = 3, BS_UTF16 = 4, BS_UTF32 = 5 };
#define BS_TYPE_MASK 7
#define BS_SIGNED 8
#define BS_LITTLE 16
/* On the first segment of an append: the value is a binary comprehension's
 * accumulator, which nothing else can see and which is dead after the
 * append, so binary.c may grow it in place instead of making a new one. */
#define BS_PRIVATE 32
#define BS_UNIT_SHIFT 8

/* Float registers fr0..fr(MAX_FREG-1): raw doubles, operand kind 'r' (the
 * register number). They live in the emulator's C frame: nothing is kept in
 * them across a call or a receive (codegen_float.c). */
#define MAX_FREG 256

#endif
