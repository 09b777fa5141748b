/* bytecode_check.c — whether a compiled module is safe to load.
 *
 * The loader (loader.c) indexes its tables with the operands it reads: a
 * label number indexes the label table, an import, BIF or lambda operand
 * indexes the module's lists, an opcode indexes the handler table, and a
 * count says how many words follow. The compiler always writes these right;
 * this check makes the loader's contract explicit and keeps it from reading
 * or writing outside its tables when handed anything else (the fuzzer in
 * tests/fuzz/fuzz_loader.c hands it mutated modules). It checks structure,
 * not meaning: a module that passes loads without touching memory it does
 * not own, but running it is only as safe as its producer made it.
 * A literal operand must be an immediate that exists (an atom in the table,
 * a small integer, a pid, a port, []) or point at the start of an object in
 * literal (Boehm) memory, where the code generator builds every constant
 * (literal.h): that rules out a number or a stray word read as a term when
 * an opcode or a count is wrong. What the object holds is taken as the term
 * its producer built.
 */
#include <gc.h>
#include "atom.h"
#include "bytecode.h"

/* y registers: a frame can have at most this many slots (the compiler's
 * frames are far smaller; the bound keeps slot arithmetic in range) */
#define MAX_Y_SLOTS (1u << 24)

static int reg_ok(UWord w)
{
    if (!operand_is_reg(w)) return 0;
    if (operand_is_x(w)) return operand_slot(w) < MAX_REG;
    if (operand_is_y(w)) return operand_slot(w) >= 1 && operand_slot(w) <= MAX_Y_SLOTS;
    return 0;
}

static int label_ok(const CodeModule *cm, UWord l, int may_be_zero)
{
    return l == 0 ? may_be_zero : l <= (UWord)cm->nlabels;
}

static int atom_ok(Term t)
{
    return is_atom(t) && atom_val(t) < atom_count();
}

static int immed_ok(Term t)
{
    return is_small(t) || atom_ok(t) || is_pid(t) || is_port(t) || is_nil(t);
}

/* A source operand: a register, or a literal (a literal's low bits are
 * never 00). */
static int src_ok(UWord w)
{
    if (operand_is_reg(w)) return reg_ok(w);
    if (is_immed((Term)w)) return immed_ok((Term)w);
    void *p = is_list((Term)w) ? (void *)list_ptr((Term)w) : (void *)boxed_ptr((Term)w);
    return p && GC_base(p) == p;
}

const char *bytecode_check(const CodeModule *cm)
{
    if (!cm || !atom_ok(cm->name)) return "the module name is not an atom";
    if (cm->nlabels < 0 || cm->nimports < 0 || cm->nfunctions < 0 || cm->nlambdas < 0)
        return "a negative count";
    if (cm->ncode && !cm->code) return "no code";
    for (int i = 0; i < cm->nimports; i++) {
        const CodeImport *im = &cm->imports[i];
        if (!atom_ok(im->module) || !atom_ok(im->name) || im->arity < 0 || im->arity >= MAX_REG)
            return "a bad import";
    }
    for (int i = 0; i < cm->nfunctions; i++) {
        const CodeFunction *f = &cm->functions[i];
        if (!atom_ok(f->name) || f->arity < 0 || f->arity >= MAX_REG) return "a bad function";
        if (!label_ok(cm, (UWord)f->label, 0) || f->label < 0 || f->info_label < 0 ||
            !label_ok(cm, (UWord)f->info_label, 0))
            return "a function's label out of range";
    }
    for (int i = 0; i < cm->nlambdas; i++) {
        const CodeLambda *l = &cm->lambdas[i];
        if (l->function < 0 || l->function >= cm->nfunctions || l->arity < 0 || l->nfree < 0 ||
            l->arity + l->nfree >= MAX_REG || !atom_ok(l->name))
            return "a bad lambda";
    }
    const UWord *c = cm->code;
    for (size_t i = 0; i < cm->ncode;) {
        if (c[i] >= OP__COUNT) return "an unknown opcode";
        /* normal_exit and the loader's specialised forms come last in
         * opcodes.def: the VM makes them, no producer may (fmove_lit's
         * operand, say, must be a float: specialise checks that, not this) */
        if (c[i] >= OP_normal_exit) return "an opcode only the VM makes";
        UWord op = c[i];
        size_t k = i + 1;
        for (const char *f = opcode_formats[op]; *f; f++) {
            if (k >= cm->ncode) return "an instruction runs past the end";
            UWord v = c[k++];
            switch (*f) {
            case 's': if (!src_ok(v)) return "a bad source operand"; break;
            case 'd': if (!reg_ok(v)) return "a bad destination register"; break;
            case 'i': break;
            case 'a': if (!atom_ok((Term)v)) return "an atom operand that is not an atom"; break;
            case 'l': if (!label_ok(cm, v, 0)) return "a label out of range"; break;
            case 'f': if (!label_ok(cm, v, 1)) return "a fail label out of range"; break;
            case 'e': if (v >= (UWord)cm->nimports) return "an import out of range"; break;
            case 'b': if (v >= (UWord)bif_count) return "a BIF out of range"; break;
            case 'F': if (v >= (UWord)cm->nlambdas) return "a lambda out of range"; break;
            case 'r': if (v >= MAX_FREG) return "a float register out of range"; break;
            case 'n':
                if (v > cm->ncode - k) return "an operand list runs past the end";
                for (UWord j = 0; j < v; j++)
                    if (!src_ok(c[k + j])) return "a bad source operand";
                k += v;
                break;
            case 'J':
                if (v > (cm->ncode - k) / 2) return "a jump table runs past the end";
                for (UWord j = 0; j < v; j++)
                    if (operand_is_reg(c[k + 2 * j]) || !src_ok(c[k + 2 * j]) || !label_ok(cm, c[k + 2 * j + 1], 0))
                        return "a bad jump table entry";
                k += 2 * v;
                break;
            default: return "an operand kind this check does not know";
            }
        }
        if (op == OP_label && !label_ok(cm, c[i + 1], 0)) return "a label number out of range";
        i = k;
    }
    return NULL;
}
