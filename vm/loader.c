/* loader.c — from a CodeModule (vm/bytecode.h) to threaded code.
 *
 * Two passes over the generated words. The first finds the address of each
 * label once the pseudo-instructions (label, line) are dropped, and builds
 * the line table from the `line` markers. The second writes the final code:
 * each opcode number becomes the address of its handler in the emulator
 * (computed-goto dispatch), and each operand is linked according to its
 * format letter in opcodes.def: labels become code addresses, imports become
 * Export pointers, BIFs become BifEntry pointers, lambdas FunEntry pointers.
 */
#include <gc.h>
#include <stdio.h>
#include <string.h>

#include "loader.h"
#include "bytecode.h"
#include "bif.h"
#include "atom.h"
#include "emulator.h"
#include "literal.h"

static UWord fun_uniq(const CodeModule *cm, int lambda) {
    UWord h = 1469598103934665603ULL ^ (UWord)cm->name;
    h = (h ^ (UWord)lambda) * 1099511628211ULL;
    h = (h ^ (UWord)cm->lambdas[lambda].arity) * 1099511628211ULL;
    return h % 100000000;
}

/* Whether the moves that follow an allocate (in, up to end) set every one
 * of its y slots before anything else runs: then nothing can see a slot
 * before it holds a term (no collection, no exception, no jump in between),
 * and the frame need not be filled with [] first. */
static int frame_set_by_moves(const UWord *in, const UWord *end) {
    UWord n = in[1];
    if (n == 0 || n > 64) return 0;
    uint64_t want = n == 64 ? ~0ull : (1ull << n) - 1, set = 0;
    for (const UWord *j = in + opcode_instr_size(in); j < end && set != want; j += opcode_instr_size(j)) {
        if (j[0] == OP_line) continue;
        if (j[0] != OP_move || !operand_is_y(j[2])) return 0;
        int y = operand_y_index(j[2]);
        if (y < 0 || (UWord)y >= n) return 0;
        /* a move from a y slot not yet set would copy a stale word; one
         * from outside the frame is left to the plain allocate */
        if (operand_is_y(j[1])) {
            int from = operand_y_index(j[1]);
            if (from < 0 || (UWord)from >= n || !(set >> from & 1)) return 0;
        }
        set |= 1ull << y;
    }
    return set == want;
}

/* The fused handler for an instruction (already specialised: op) and the
 * one right after it in the loaded code (next, specialised: nop), or op.
 * A label or a line entry between them means they are not adjacent there
 * (a label's instruction may be reached by a jump, and the pair is then
 * not one step) and shows up here as next's opcode, so nothing is fused.
 * Chosen by counting the pairs that run (internals.md, "Loader and
 * modules"): the step of a list walk, the return from a function with a
 * frame, the moves into and out of a frame and before a tail call, two
 * fields taken from a tuple, a cons built after its heap check. */
static int fusable(UWord op) {
    return op == OP_is_nonempty_list_x || op == OP_deallocate || op == OP_move_xx ||
           op == OP_move_xy || op == OP_move_yx || op == OP_get_tuple_element || op == OP_test_heap ||
           op == OP_add_imm_xx || op == OP_sub_imm_xx || op == OP_mul_imm_xx;
}

static UWord fuse(UWord op, const UWord *in, const UWord *next, UWord nop) {
    switch (op) {
    case OP_is_nonempty_list_x:
        return nop == OP_get_list_xxx && next[1] == in[2] ? OP_is_nonempty_list_get_list : op;
    case OP_deallocate: return nop == OP_return ? OP_deallocate_return : op;
    case OP_move_xx:
        return nop == OP_move_xx ? OP_move_xx_move_xx : nop == OP_call_only ? OP_move_xx_call_only : op;
    case OP_move_xy: return nop == OP_move_xy ? OP_move_xy_move_xy : op;
    case OP_move_yx: return nop == OP_move_yx ? OP_move_yx_move_yx : op;
    case OP_get_tuple_element: return nop == OP_get_tuple_element ? OP_get_tuple_element_2 : op;
    case OP_test_heap: return nop == OP_put_list ? OP_test_heap_put_list : op;
    case OP_add_imm_xx: case OP_sub_imm_xx: case OP_mul_imm_xx: {
        /* the second operates on the first's result: an arithmetic chain */
        static const UWord pairs[3][3] = {
            { OP_add_add_imm_xx, OP_add_sub_imm_xx, OP_add_mul_imm_xx },
            { OP_sub_add_imm_xx, OP_sub_sub_imm_xx, OP_sub_mul_imm_xx },
            { OP_mul_add_imm_xx, OP_mul_sub_imm_xx, OP_mul_mul_imm_xx } };
        int first = op == OP_add_imm_xx ? 0 : op == OP_sub_imm_xx ? 1 : 2;
        int second = nop == OP_add_imm_xx ? 0 : nop == OP_sub_imm_xx ? 1 : nop == OP_mul_imm_xx ? 2 : -1;
        return second >= 0 && next[3] == in[5] ? pairs[first][second] : op;
    }
    default: return op;
    }
}

/* A literal operand that is a tuple of immediates (is_eq_exact_flat_tuple). */
static int flat_tuple_literal(UWord w) {
    if (!operand_is_literal(w) || !is_tuple((Term)w)) return 0;
    const Term *t = boxed_ptr((Term)w);
    for (UWord i = header_arity(t[0]); i > 0; i--)
        if (!is_immed(t[i])) return 0;
    return 1;
}

/* A faster form of a common instruction, chosen by the kinds of its operands
 * (the operands stay the same); or op itself. */
static UWord specialise(UWord op, const UWord *in, const UWord *end) {
#define IS_IMM(w) (operand_is_literal(w) && is_immed((Term)(w)))
#define IS_SMALL_LIT(w) (operand_is_literal(w) && is_small((Term)(w)))
    switch (op) {
    case OP_allocate: return frame_set_by_moves(in, end) ? OP_allocate_init : op;
    case OP_is_eq_exact:
        if (flat_tuple_literal(in[3])) return OP_is_eq_exact_flat_tuple;
        if (!IS_IMM(in[3])) return op;
        return operand_is_x(in[2]) ? OP_is_eq_exact_imm_x : OP_is_eq_exact_imm;
    case OP_is_ne_exact:
        if (flat_tuple_literal(in[3])) return OP_is_ne_exact_flat_tuple;
        return IS_IMM(in[3]) ? OP_is_ne_exact_imm : op;
    case OP_is_nil: return operand_is_x(in[2]) ? OP_is_nil_x : op;
    case OP_is_nonempty_list: return operand_is_x(in[2]) ? OP_is_nonempty_list_x : op;
    case OP_is_tuple_of_arity: return operand_is_x(in[2]) ? OP_is_tuple_of_arity_x : op;
    case OP_is_tagged_tuple: return operand_is_x(in[2]) ? OP_is_tagged_tuple_x : op;
    case OP_get_list:
        return operand_is_x(in[1]) && operand_is_x(in[2]) && operand_is_x(in[3]) ? OP_get_list_xxx : op;
    case OP_is_lt:
    case OP_is_ge: {
        int xi = operand_is_x(in[2]) && IS_SMALL_LIT(in[3]);
        int ix = IS_SMALL_LIT(in[2]) && operand_is_x(in[3]);
        if (op == OP_is_lt) return xi ? OP_is_lt_xi : ix ? OP_is_lt_ix : op;
        return xi ? OP_is_ge_xi : ix ? OP_is_ge_ix : op;
    }
    case OP_move:
        if (operand_is_x(in[1]) && operand_is_x(in[2])) return OP_move_xx;
        if (operand_is_x(in[1]) && operand_is_y(in[2])) return OP_move_xy;
        if (operand_is_y(in[1]) && operand_is_x(in[2])) return OP_move_yx;
        if (operand_is_literal(in[1]) && operand_is_x(in[2])) return OP_move_cx;
        return op;
    case OP_add:
    case OP_sub: {
        if (op == OP_add && operand_is_y(in[3]) && operand_is_x(in[4]) && operand_is_x(in[5]))
            return OP_add_yx;
        if (!is_small((Term)in[4]) || !operand_is_literal(in[4])) return op;
        int xx = operand_is_x(in[3]) && operand_is_x(in[5]);
        int yx = operand_is_y(in[3]) && operand_is_x(in[5]);
        if (op == OP_add) return xx ? OP_add_imm_xx : yx ? OP_add_imm_yx : OP_add_imm;
        return xx ? OP_sub_imm_xx : yx ? OP_sub_imm_yx : OP_sub_imm;
    }
    case OP_fbox: return operand_is_x(in[3]) ? OP_fbox_x : op;
    case OP_bif: {
        if (in[5] != 2) return op;
        Term (*fn)(Process *, Term *) = bif_table[in[2]].fn;
        UWord plain = OP_bif2;
        UWord form = fn == bif_band_2 ? OP_bif_band : fn == bif_bor_2 ? OP_bif_bor
                   : fn == bif_bxor_2 ? OP_bif_bxor : fn == bif_bsl_2 ? OP_bif_bsl
                   : fn == bif_bsr_2 ? OP_bif_bsr : fn == bif_div_2 ? OP_bif_div
                   : fn == bif_rem_2 ? OP_bif_rem : fn == bif_element_2 ? OP_bif_element
                   : fn == bif_lt_2 ? OP_bif_lt : fn == bif_le_2 ? OP_bif_le
                   : fn == bif_gt_2 ? OP_bif_gt : fn == bif_ge_2 ? OP_bif_ge : plain;
        if (form == plain) return plain;
        /* the _x form follows its generic form, and an integer operator's
         * _xi form its _x form (opcodes.def) */
        if (!operand_is_x(in[4]) || !operand_is_x(in[6]) || operand_is_y(in[7])) return form;
        if (form != OP_bif_element && operand_is_literal(in[7]) && is_small((Term)in[7])) return form + 2;
        return form + 1;
    }
    case OP_mul:
        if (operand_is_literal(in[4]) && is_small((Term)in[4])) {
            int xx = operand_is_x(in[3]) && operand_is_x(in[5]);
            int yx = operand_is_y(in[3]) && operand_is_x(in[5]);
            return xx ? OP_mul_imm_xx : yx ? OP_mul_imm_yx : OP_mul_imm;
        }
        if (operand_is_y(in[3]) && operand_is_x(in[4]) && operand_is_x(in[5])) return OP_mul_yx;
        return operand_is_x(in[3]) && !operand_is_y(in[4]) && operand_is_x(in[5]) ? OP_mul_x : op;
    case OP_bs_get: {
        /* the spec is a literal (codegen_bin.c); the size a literal or a register */
        if (!operand_is_x(in[2]) || !IS_SMALL_LIT(in[3])) return op;
        UWord spec = (UWord)small_val((Term)in[3]);
        UWord type = spec & BS_TYPE_MASK, unit = spec >> BS_UNIT_SHIFT;
        if (type == BS_INTEGER && unit == 1 && IS_SMALL_LIT(in[4]) &&
            small_val((Term)in[4]) >= 1 && small_val((Term)in[4]) <= 56)
            return OP_bs_get_int;
        if (type == BS_BINARY && (Term)in[4] == ATOM_TERM(all)) return OP_bs_get_tail;
        if (type == BS_UTF8) return OP_bs_get_utf8;
        return op;
    }
    case OP_select_val: {
        for (UWord j = 0; j < in[3]; j++)
            if (!IS_IMM(in[4 + 2 * j])) return op;
        return OP_select_val_imm;
    }
    case OP_bs_create: {
        /* <<Acc/binary, V:K>>, K a literal number of whole bytes up to 7 */
        if (in[4] != 6 || !IS_SMALL_LIT(in[5]) || (Term)in[7] != ATOM_TERM(all) ||
            !IS_SMALL_LIT(in[8]) || !IS_SMALL_LIT(in[10]))
            return op;
        UWord s0 = (UWord)small_val((Term)in[5]), s1 = (UWord)small_val((Term)in[8]);
        SWord k = small_val((Term)in[10]);
        if ((s0 & BS_TYPE_MASK) != BS_BINARY || (s1 & BS_TYPE_MASK) != BS_INTEGER ||
            (s1 >> BS_UNIT_SHIFT) != 1 || k < 8 || k > 56 || k % 8)
            return op;
        return OP_bs_append_int;
    }
    case OP_fmove:
        if (operand_is_x(in[1])) return OP_fmove_x;
        if (operand_is_literal(in[1]) && is_float((Term)in[1])) return OP_fmove_lit;
        return op;
    default: return op;
    }
#undef IS_IMM
#undef IS_SMALL_LIT
}

LoadedModule *loader_load(const CodeModule *cm) {
    const char *bad = bytecode_check(cm);
    if (bad) {                       /* never from the compiler: see bytecode_check.c */
        fprintf(stderr, "%s: cannot load: %s\n", cm && cm->file ? cm->file : "module", bad);
        return NULL;
    }
    const void *const *handlers = emulator_handlers();
    size_t *label_at = GC_MALLOC_ATOMIC(sizeof(size_t) * (size_t)(cm->nlabels + 1));
    memset(label_at, 0, sizeof(size_t) * (size_t)(cm->nlabels + 1));
    int nlines = 0;

    /* pass 1: label positions and the size of the final code */
    size_t out = 0;
    for (size_t i = 0; i < cm->ncode; i += opcode_instr_size(cm->code + i)) {
        UWord op = cm->code[i];
        if (op == OP_label) label_at[cm->code[i + 1]] = out;
        else if (op == OP_line) nlines++;
        else out += opcode_instr_size(cm->code + i);
    }

    LoadedModule *lm = GC_MALLOC(sizeof *lm);
    lm->name = cm->name;
    lm->file = cm->file;
    if (cm->file) {
        /* the file name as a string, for stack traces: made once, here */
        size_t n = strlen(cm->file);
        int *codes = GC_MALLOC_ATOMIC(sizeof(int) * (n + 1));
        for (size_t i = 0; i < n; i++) codes[i] = (unsigned char)cm->file[i];
        lm->file_term = lit_string(codes, n);
    }
    lm->ncode = out;
    lm->code = GC_MALLOC(sizeof(Instr) * (out + 1));
    lm->lines = GC_MALLOC_ATOMIC(sizeof(LineEntry) * (size_t)(nlines + 1));
    Export **imports = GC_MALLOC(sizeof(Export *) * (size_t)(cm->nimports + 1));
    for (int i = 0; i < cm->nimports; i++)
        imports[i] = export_get(cm->imports[i].module, cm->imports[i].name, cm->imports[i].arity);
    lm->nlambdas = cm->nlambdas;
    lm->lambdas = GC_MALLOC(sizeof(FunEntry) * (size_t)(cm->nlambdas + 1));

#define LABEL(n) ((n) ? (UWord)(lm->code + label_at[(n)]) : (UWord)0)
    /* pass 2: write threaded code */
    out = 0;
    for (size_t i = 0; i < cm->ncode; i += opcode_instr_size(cm->code + i)) {
        const UWord *in = cm->code + i;
        UWord op = in[0];
        if (op == OP_label) continue;
        if (op == OP_line) {
            lm->lines[lm->nlines].offset = out;
            lm->lines[lm->nlines].line = (int)in[1];
            lm->nlines++;
            continue;
        }
        Instr *w = lm->code + out;
        UWord sop = specialise(op, in, cm->code + cm->ncode);
        const UWord *next = in + opcode_instr_size(in);
        if (next < cm->code + cm->ncode && fusable(sop))
            sop = fuse(sop, in, next, specialise(next[0], next, cm->code + cm->ncode));
        w[0] = (Instr)handlers[sop];
        size_t k = 1;
        for (const char *f = opcode_formats[op]; *f; f++, k++) {
            UWord v = in[k];
            switch (*f) {
            case 'l': case 'f': w[k] = LABEL(v); break;
            case 'e': w[k] = (UWord)imports[v]; break;
            case 'b': w[k] = (UWord)&bif_table[v]; break;
            case 'F': w[k] = (UWord)&lm->lambdas[v]; break;
            case 'n':
                w[k] = v;
                for (UWord j = 0; j < v; j++) w[k + 1 + j] = in[k + 1 + j];
                k += v;
                break;
            case 'J':
                w[k] = v;
                for (UWord j = 0; j < v; j++) {
                    w[k + 1 + 2 * j] = in[k + 1 + 2 * j];
                    w[k + 2 + 2 * j] = LABEL(in[k + 2 + 2 * j]);
                }
                k += 2 * v;
                break;
            default: w[k] = v; break;
            }
        }
        if (sop == OP_select_val_imm) {             /* pairs in word order, for a binary search */
            UWord *pair = (UWord *)w + 4, n = w[3];
            for (UWord j = 1; j < n; j++) {         /* stable: the first of equal keys wins */
                UWord key = pair[2 * j], to = pair[2 * j + 1], m = j;
                while (m > 0 && pair[2 * (m - 1)] > key) {
                    pair[2 * m] = pair[2 * (m - 1)];
                    pair[2 * m + 1] = pair[2 * (m - 1) + 1];
                    m--;
                }
                pair[2 * m] = key;
                pair[2 * m + 1] = to;
            }
        }
        if (sop == OP_fmove_lit) {                   /* the double itself, not a term */
            double d = float_val((Term)in[1]);
            memcpy(&w[1], &d, sizeof d);
        }
        out += k;
    }

    lm->nfunctions = cm->nfunctions;
    lm->functions = GC_MALLOC(sizeof(FunctionInfo) * (size_t)(cm->nfunctions + 1));
    for (int i = 0; i < cm->nfunctions; i++) {
        const CodeFunction *cf = &cm->functions[i];
        FunctionInfo *fi = &lm->functions[i];
        fi->name = cf->name;
        fi->arity = cf->arity;
        fi->info = (const Instr *)LABEL(cf->info_label);
        fi->entry = (const Instr *)LABEL(cf->label);
    }
    /* module_locate's binary search wants them in code order */
    for (int i = 1; i < lm->nfunctions; i++) {
        FunctionInfo t = lm->functions[i];
        int j = i - 1;
        while (j >= 0 && lm->functions[j].info > t.info) { lm->functions[j + 1] = lm->functions[j]; j--; }
        lm->functions[j + 1] = t;
    }
    for (int i = 0; i < cm->nlambdas; i++) {
        const CodeLambda *cl = &cm->lambdas[i];
        FunEntry *fe = &lm->lambdas[i];
        fe->module = cm->name;
        fe->name = cl->name;
        fe->index = i;
        fe->arity = cl->arity;
        fe->nfree = cl->nfree;
        fe->uniq = fun_uniq(cm, i);
        fe->code = (const Instr *)LABEL(cm->functions[cl->function].label);
    }
#undef LABEL
    module_register(lm);
    for (int i = 0; i < cm->nfunctions; i++) {
        const CodeFunction *cf = &cm->functions[i];
        if (!cf->exported) continue;
        Export *e = export_get(cm->name, cf->name, cf->arity);
        /* published with release: a scheduler that reads the entry
         * (export_code, acquire) also sees the code written above */
        smp_store_release(&e->code, (const Instr *)(lm->code + label_at[cf->label]));
    }
    return lm;
}
