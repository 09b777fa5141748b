/* disasm.c — `mini -S`: a compiled module as readable text.
 *
 * One instruction a line, operands as opcodes.def describes them: registers
 * x0/y1, literals in Erlang syntax (as ~p prints them, on one line), labels
 * L4, imports m:f/a, BIFs erlang:'+'/2, lambdas by name. Each function starts
 * with a `function name/arity` header before its func_info label; local calls
 * are annotated with the function they reach. It reads the contract
 * (bytecode.h, opcodes.h) as the loader does, before loading, so it lives
 * with the VM that defines the contract, not in the compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "atom.h"
#include "print.h"
#include "outbuf.h"

static void put_atom(OutBuf *b, Term a) { print_atom(b, a); }

static void put_cstr_atom(OutBuf *b, const char *s) {
    if (print_atom_needs_quotes(s, strlen(s))) {
        ob_putc(b, '\'');
        for (; *s; s++) {
            if (*s == '\'' || *s == '\\') ob_putc(b, '\\');
            ob_putc(b, *s);
        }
        ob_putc(b, '\'');
    } else ob_puts(b, s);
}

static void put_operand(OutBuf *b, UWord w) {
    if (operand_is_reg(w)) {
        if (operand_is_y(w)) ob_printf(b, "y%d", operand_y_index(w));
        else ob_printf(b, "x%d", operand_x_index(w));
    } else {
        print_pretty(b, (Term)w, 1, 1L << 30, -1, 1);
    }
}

static const CodeFunction *fn_at_label(const CodeModule *cm, UWord l, int entry) {
    for (int i = 0; i < cm->nfunctions; i++)
        if ((UWord)(entry ? cm->functions[i].label : cm->functions[i].info_label) == l)
            return &cm->functions[i];
    return NULL;
}

static void put_fn(OutBuf *b, const CodeFunction *f) {
    put_atom(b, f->name);
    ob_printf(b, "/%d", f->arity);
}

/* For each label, the function whose code it is in (or NULL). */
static const CodeFunction **label_functions(const CodeModule *cm) {
    const CodeFunction **in = calloc((size_t)cm->nlabels + 1, sizeof *in);
    if (!in) return NULL;
    const CodeFunction *cur = NULL;
    for (size_t pc = 0; pc < cm->ncode;) {
        UWord op = cm->code[pc];
        if (op >= OP__COUNT) { pc++; continue; }
        if (op == OP_label) {
            UWord l = cm->code[pc + 1];
            const CodeFunction *f = fn_at_label(cm, l, 0);
            if (f) cur = f;
            if (l <= (UWord)cm->nlabels) in[l] = cur;
        }
        pc += opcode_instr_size(cm->code + pc);
    }
    return in;
}

void disasm_module(FILE *out, const CodeModule *cm) {
    OutBuf b;
    ob_init(&b);
    const CodeFunction **label_fn = label_functions(cm);
    ob_puts(&b, "module ");
    put_atom(&b, cm->name);
    ob_puts(&b, "\nexports");
    for (int i = 0; i < cm->nfunctions; i++)
        if (cm->functions[i].exported) { ob_putc(&b, ' '); put_fn(&b, &cm->functions[i]); }
    ob_putc(&b, '\n');
    for (size_t pc = 0; pc < cm->ncode;) {
        UWord op = cm->code[pc];
        if (op >= OP__COUNT) { ob_printf(&b, "    ?? %lu\n", (unsigned long)op); pc++; continue; }
        if (op == OP_label) {
            UWord l = cm->code[pc + 1];
            const CodeFunction *f = fn_at_label(cm, l, 0);
            if (f) { ob_puts(&b, "\nfunction "); put_fn(&b, f); ob_putc(&b, '\n'); }
            ob_printf(&b, "L%lu:\n", (unsigned long)l);
            pc += 2;
            continue;
        }
        ob_printf(&b, "    %s", opcode_names[op]);
        size_t k = pc + 1;
        const char *fmt = opcode_formats[op];
        const CodeFunction *target = NULL;
        int state = 0;
        for (const char *c = fmt; *c; c++) {
            ob_puts(&b, c == fmt ? " " : ", ");
            UWord v = cm->code[k++];
            switch (*c) {
            case 's': case 'd': put_operand(&b, v); break;
            case 'i': ob_printf(&b, "%lu", (unsigned long)v); break;
            case 'r': ob_printf(&b, "fr%lu", (unsigned long)v); break;
            case 'a': put_atom(&b, (Term)v); break;
            case 'l':
                ob_printf(&b, "L%lu", (unsigned long)v);
                if (op == OP_call || op == OP_call_last || op == OP_call_only) {
                    target = fn_at_label(cm, v, 1);
                    /* a call that hands on a match state enters past the
                     * start (compiler/codegen_bsm.c) */
                    if (!target && label_fn && v <= (UWord)cm->nlabels) { target = label_fn[v]; state = 1; }
                }
                break;
            case 'f':
                if (v) ob_printf(&b, "L%lu", (unsigned long)v);
                else ob_puts(&b, "0");
                break;
            case 'e':
                if (v < (UWord)cm->nimports) {
                    const CodeImport *im = &cm->imports[v];
                    put_atom(&b, im->module); ob_putc(&b, ':'); put_atom(&b, im->name);
                    ob_printf(&b, "/%d", im->arity);
                } else ob_printf(&b, "import?%lu", (unsigned long)v);
                break;
            case 'b':
                if (v < (UWord)bif_count) {
                    put_cstr_atom(&b, bif_names[v].module); ob_putc(&b, ':');
                    put_cstr_atom(&b, bif_names[v].name);
                    ob_printf(&b, "/%d", bif_names[v].arity);
                } else ob_printf(&b, "bif?%lu", (unsigned long)v);
                break;
            case 'F':
                if (v < (UWord)cm->nlambdas) {
                    put_atom(&b, cm->lambdas[v].name);
                    ob_printf(&b, "/%d", cm->lambdas[v].arity);
                } else ob_printf(&b, "lambda?%lu", (unsigned long)v);
                break;
            case 'n':
                ob_putc(&b, '[');
                for (UWord j = 0; j < v; j++) {
                    if (j) ob_puts(&b, ", ");
                    put_operand(&b, cm->code[k++]);
                }
                ob_putc(&b, ']');
                break;
            case 'J':
                ob_putc(&b, '[');
                for (UWord j = 0; j < v; j++) {
                    if (j) ob_puts(&b, ", ");
                    put_operand(&b, cm->code[k++]);
                    ob_printf(&b, " -> L%lu", (unsigned long)cm->code[k++]);
                }
                ob_putc(&b, ']');
                break;
            default: ob_printf(&b, "%lu", (unsigned long)v); break;
            }
        }
        if (target) { ob_puts(&b, "   % "); put_fn(&b, target); if (state) ob_puts(&b, ", its match state"); }
        ob_putc(&b, '\n');
        pc = k;
    }
    fwrite(b.buf, 1, b.len, out);
    ob_free(&b);
    free(label_fn);
}
