/* emulator.c — the interpreter loop: threaded code with computed-goto dispatch.
 *
 * Each instruction is its handler's address followed by its operands (see
 * opcodes.def and loader.c); `pc` points at the instruction being run. The
 * loop is resumable: everything a process needs to go on (pc, cp, x
 * registers, stack) lives in the Process, so at the end of its reductions it
 * simply returns and a later call continues where it left off. Calls are
 * jumps; a frame is pushed on the process stack by `allocate`, never on the
 * C stack.
 *
 * Errors: a failing instruction sets the process's exception (class, reason)
 * and jumps to `raise`, which records the stack trace and unwinds the
 * process stack to the newest catch marker (put there by `try`/`catch`), or
 * ends the process when there is none. C helpers (BIFs, arithmetic) report
 * errors by returning THE_NON_VALUE, never by longjmp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "dist/dist.h"
#include "port.h"
#include "fatal.h"
#include "term_build.h"
#include "opcodes.h"
#include "atom.h"
#include "bif.h"
#include "arith.h"
#include "compare.h"
#include "literal.h"
#include "proc.h"
#include "timer.h"
#include "map.h"
#include "binary.h"
#include "gc.h"
#include "error_report.h"

#ifndef GC_STRESS
#define GC_STRESS 0
#endif

#define MAX_TRACE_DEPTH 8          /* frames in a stack trace, as Erlang's default */

static const void *handler_table[OP__COUNT];
static Instr normal_exit_code[1];
/* erlang:hibernate/3 leaves a process here with M, F, A in x0..x2 and an
 * empty stack: it waits for a message (leaving it queued), then applies
 * M:F(A), whose return ends the process.
 *     0: loop_rec 6, x3    3: call_ext_only 3, erlang:apply/3    6: wait 0, 3 */
static Instr hibernate_code[9];

void emulator_set_hibernate_apply(Export *apply3) { hibernate_code[5] = (Instr)apply3; }

const void *const *emulator_handlers(void) {
    if (!handler_table[0]) emulator_run(NULL);
    return handler_table;
}

Term exception_class_atom(int cls) {
    switch (cls) {
    case EXC_EXIT: return ATOM_TERM(exit);
    case EXC_THROW: return ATOM_TERM(throw);
    default: return ATOM_TERM(error);
    }
}

void emulator_setup_call(Process *p, Export *e, int arity) {
    p->pc = e->start_code;
    p->cp = normal_exit_code;
    p->arity = arity;
    p->exc_class = 0;
    p->exc_reason = THE_NON_VALUE;
    p->exc_trace = NIL;
}

/* ---- building error terms (all on the heap, through heap_alloc) ---- */

static Term args_list(Process *p, const Term *args, int n) {
    Term l = NIL;
    for (int i = n - 1; i >= 0; i--) l = cons(p, args[i], l);
    return l;
}

static Term raise_error(Process *p, Term reason) {
    p->exc_class = EXC_ERROR;
    p->exc_reason = reason;
    p->exc_trace = THE_NON_VALUE;
    return THE_NON_VALUE;
}

/* [{file, "f.mini"}, {line, L}] for a code location */
static Term location(Process *p, LoadedModule *m, int line) {
    Term loc = NIL;
    if (line > 0) loc = cons(p, tuple2(p, ATOM_TERM(line), make_small(line)), loc);
    if (m->file_term) loc = cons(p, tuple2(p, ATOM_TERM(file), m->file_term), loc);
    return loc;
}

/* One trace entry for the code at pc, or THE_NON_VALUE if it is not in a
 * module or is an expression typed at the shell (error_report.h). */
static Term trace_entry(Process *p, const Instr *pc) {
    LoadedModule *m; const FunctionInfo *fn; int line;
    if (!module_locate(pc, &m, &fn, &line) || error_is_shell_code(m->name)) return THE_NON_VALUE;
    return tuple4(p, m->name, fn->name, make_small(fn->arity), location(p, m, line));
}

/* The stack trace at pc: the current function, then the callers whose return
 * addresses are on the stack. `top` (if not THE_NON_VALUE) goes first, for
 * errors in BIFs and for function_clause, which Erlang reports with the
 * arguments. */
static Term build_trace(Process *p, const Instr *pc, const Instr *cp, Term top) {
    Term frames[MAX_TRACE_DEPTH];
    int n = 0;
    const FunctionInfo *cur = NULL;
    if (top != THE_NON_VALUE) frames[n++] = top;
    LoadedModule *m; int line;
    /* function_clause names the function itself in `top` */
    if (*pc != (Instr)handler_table[OP_func_info]) {
        Term e = trace_entry(p, pc);
        if (e != THE_NON_VALUE && n < MAX_TRACE_DEPTH) frames[n++] = e;
    }
    module_locate(pc, &m, &cur, &line);
    /* a function without a frame was called with cp as its return address */
    Term *s = p->stop;
    if (cp && cp != normal_exit_code && (s >= p->hend || !is_cp(s[0]) || cp_val(s[0]) != cp)) {
        const FunctionInfo *cf = NULL;
        if (module_locate(cp - 1, &m, &cf, &line) && cf != cur && n < MAX_TRACE_DEPTH) {
            Term e = trace_entry(p, cp - 1);
            if (e != THE_NON_VALUE) frames[n++] = e;
        }
    }
    for (; s < p->hend && n < MAX_TRACE_DEPTH; s++) {
        if (!is_cp(*s) || cp_val(*s) == normal_exit_code) continue;
        Term e = trace_entry(p, cp_val(*s) - 1);
        if (e != THE_NON_VALUE) frames[n++] = e;
    }
    Term l = NIL;
    for (int i = n - 1; i >= 0; i--) l = cons(p, frames[i], l);
    return l;
}

/* The newest catch marker on p's stack, and in *frame the frame it belongs
 * to (whose CP word is the last before it); NULL when there is none. */
static Term *newest_catch(Process *p, Term **frame) {
    *frame = NULL;
    for (Term *s = p->stop; s < p->hend; s++) {
        if (is_cp(*s)) *frame = s;
        else if (is_catch(*s)) return s;
    }
    return NULL;
}

/* Two numbers as doubles for a float operation: both floats, or a float
 * and a small integer (converted exactly as arith.c does). */
static inline int float_pair(Term a, Term b, double *x, double *y) {
    if (is_float(a)) {
        *x = float_val(a);
        if (is_float(b)) { *y = float_val(b); return 1; }
        if (is_small(b)) { *y = (double)small_val(b); return 1; }
        return 0;
    }
    if (is_small(a) && is_float(b)) {
        *x = (double)small_val(a);
        *y = float_val(b);
        return 1;
    }
    return 0;
}

/* Unpacks a proper list into x registers; returns its length or -1. */
static int unpack_args(Term *x, Term list, int first) {
    int n = 0;
    while (is_list(list)) {
        if (first + n >= MAX_REG - 2) return -1;
        x[first + n++] = list_head(list);
        list = list_tail(list);
    }
    return is_nil(list) ? n : -1;
}

RunResult emulator_run(Process *p) {
    if (!p) {
#define OP(name, fmt, doc) handler_table[OP_##name] = &&L_##name;
#include "opcodes.def"
#undef OP
        normal_exit_code[0] = (Instr)handler_table[OP_normal_exit];
        Instr *h = hibernate_code;
        h[0] = (Instr)handler_table[OP_loop_rec]; h[1] = (Instr)(h + 6); h[2] = (Instr)(3 << 3);
        h[3] = (Instr)handler_table[OP_call_ext_only]; h[4] = 3;
        h[6] = (Instr)handler_table[OP_wait]; h[7] = (Instr)h; h[8] = 3;
        return RUN_DONE;
    }

    Term *x = p->x;
    Term *E;
    const Instr *pc = p->pc;
    const Instr *cp = p->cp;
    SWord reds = p->reds > 0 ? p->reds : REDUCTIONS_PER_SLICE;
    Export *ep;                      /* target of do_call_export */
    const Instr *code;               /* its entry point, read once */
    int arity;                       /* arity of the call being made */
    Term top_frame = THE_NON_VALUE;  /* extra first trace entry for raise */
    int wait_live = 0;               /* x registers a wait keeps */
    Term bif_args[8];                /* a bif instruction's arguments */
    Term *marker, *frame;            /* the catch an exception goes to, its frame */
    double fr[MAX_FREG];             /* float registers: dead across calls and
                                        receives, so never saved (opcodes.h) */

    if (p->mbuf) reds -= (SWord)gc_ensure(p, 0, p->arity);
    if (p->out_of_memory) return RUN_EXIT;    /* sched.c makes it `killed` */
    E = p->stop;

/* E mirrors p->stop in a register: every change to the stack pointer writes
 * both, and E is reloaded after anything that may collect (which moves the
 * stack): gc_ensure and BIF calls. */
/* A register operand is already its slot's byte offset (opcodes.h: x_i is
 * i << 3, y_i is (i + 1) << 3 plus the tag 4), so a register is one load at
 * base + operand, with no shift: XREG for an operand known to be an x
 * register, YREG for a y register. */
#define XREG(w) (*(Term *)((char *)x + (UWord)(w)))
#define YREG(w) (*(Term *)((char *)E + ((UWord)(w) - 4)))
#define SRC(w) (operand_is_literal(w) ? (Term)(w) : operand_reg_y(w) ? YREG(w) : XREG(w))
#define DST(w) (*(operand_reg_y(w) ? &YREG(w) : &XREG(w)))
#define LOAD_E() (E = p->stop)
#define NEXT() goto *(const void *)*pc
#define DISPATCH(n) do { pc += (n); NEXT(); } while (0)
#define FAIL_TO(lbl) do { pc = (const Instr *)(lbl); NEXT(); } while (0)
#define TEST(cond, size) do { if (cond) DISPATCH(size); else FAIL_TO(pc[1]); } while (0)
#define RAISE() goto raise
#define ERROR(reason) do { raise_error(p, (reason)); RAISE(); } while (0)
/* reductions are counted on calls; at zero the process yields before entering */
#define ENTER(target, n) do {                                         \
        arity = (n); pc = (target);                                   \
        if (--reds <= 0) goto yield;                                  \
        NEXT();                                                       \
    } while (0)

    NEXT();

L_label: L_line:
    /* removed by the loader */
    UNREACHABLE();

L_func_info: {
    int a = (int)pc[3];
    /* where the function is, as OTP's function_clause frame says */
    LoadedModule *m; const FunctionInfo *fn; int line = 0;
    Term loc = module_locate(pc, &m, &fn, &line) ? location(p, m, line) : NIL;
    top_frame = tuple4(p, (Term)pc[1], (Term)pc[2], args_list(p, x, a), loc);
    raise_error(p, ATOM_TERM(function_clause));
    RAISE();
}

/* pushes a frame of n y slots (uninitialised) saving the CP; live: x
 * registers a collection must keep */
#define PUSH_FRAME(n, live) do {                                             \
    if ((size_t)(E - p->htop) < (n) + 1) {                                   \
        reds -= (SWord)gc_ensure(p, (n) + 1, (live));                        \
        LOAD_E();                                                            \
        if (p->out_of_memory || (size_t)(E - p->htop) < (n) + 1) goto out_of_memory; \
    }                                                                        \
    p->stop = E -= (n) + 1;                                                  \
    E[0] = make_cp(cp);                                                      \
} while (0)

L_allocate: {
    UWord n = pc[1];
    PUSH_FRAME(n, (int)pc[2]);
    for (UWord i = 1; i <= n; i++) E[i] = NIL;
    DISPATCH(3);
}

L_allocate_init: {                  /* the moves after it set every slot */
    PUSH_FRAME(pc[1], (int)pc[2]);
    DISPATCH(3);
}

L_deallocate: {
    cp = cp_val(E[0]);
    p->stop = E += pc[1] + 1;
    DISPATCH(2);
}

/* n free heap words, collecting with `live` x registers if needed */
#define TEST_HEAP(n, live) do {                                              \
    if ((size_t)(E - p->htop) < (n) || p->mbuf) {                            \
        reds -= (SWord)gc_ensure(p, (n), (live));                            \
        LOAD_E();                                                            \
        if (p->out_of_memory || (size_t)(E - p->htop) < (n)) goto out_of_memory; \
    }                                                                        \
} while (0)

L_test_heap:
    TEST_HEAP(pc[1], (int)pc[2]);
    DISPATCH(3);

L_call:
    cp = pc + 3;
    ENTER((const Instr *)pc[2], (int)pc[1]);

L_call_last:
    cp = cp_val(E[0]);
    p->stop = E += pc[3] + 1;
    ENTER((const Instr *)pc[2], (int)pc[1]);

L_call_only:
    ENTER((const Instr *)pc[2], (int)pc[1]);

L_call_ext:
    cp = pc + 3;
    ep = (Export *)pc[2]; arity = (int)pc[1];
    goto do_call_export;

L_call_ext_last:
    cp = cp_val(E[0]);
    p->stop = E += pc[3] + 1;
    ep = (Export *)pc[2]; arity = (int)pc[1];
    goto do_call_export;

L_call_ext_only:
    ep = (Export *)pc[2]; arity = (int)pc[1];
    goto do_call_export;

L_call_fun:
    cp = pc + 2;
    arity = (int)pc[1];
    goto do_call_fun;

L_call_fun_last:
    cp = cp_val(E[0]);
    p->stop = E += pc[2] + 1;
    arity = (int)pc[1];
    goto do_call_fun;

L_apply:
    cp = pc + 2;
    arity = (int)pc[1];
    goto do_apply;

L_apply_last:
    cp = cp_val(E[0]);
    p->stop = E += pc[2] + 1;
    arity = (int)pc[1];
    goto do_apply;

L_return:
    pc = cp;
    NEXT();

L_normal_exit:
    p->pc = pc;
    p->reds = reds;
    return RUN_DONE;

L_bif2:                                /* two arguments, the usual count: no loop */
    bif_args[0] = SRC(pc[6]);
    bif_args[1] = SRC(pc[7]);
    goto bif_call;
L_bif:
    for (UWord i = 0, n = pc[5]; i < n; i++) bif_args[i] = SRC(pc[6 + i]);
bif_call: {
    const BifEntry *b = (const BifEntry *)pc[2];
    UWord n = pc[5];
    Term *args = bif_args;
    p->live = (int)pc[3];
    p->reds = reds;
    p->pc = pc;                      /* where we are, for process_info */
    p->cp = cp;
    Term r = b->fn(p, args);
    reds = p->reds;
    LOAD_E();
    if (__builtin_expect(p->out_of_memory, 0)) goto out_of_memory;   /* heap.c */
    if (r == THE_NON_VALUE) {
        if (pc[1]) FAIL_TO(pc[1]);
        if (p->exc_trace != THE_NON_VALUE) goto unwind;     /* raise/3 gave the trace */
        if (p->exc_class == EXC_ERROR && b->fn != bif_error_1 && b->fn != bif_error_2)
            top_frame = tuple4(p, atom_intern_cstr(b->module), atom_intern_cstr(b->name),
                               args_list(p, args, (int)n), NIL);
        RAISE();
    }
    DST(pc[4]) = r;
    reds--;
    DISPATCH(6 + n);
}

/* The integer operators and element/2 called as BIFs (loader.c picks these
 * forms of `bif`): with two small integers (or a small index and a tuple)
 * the answer is computed here, with no call; otherwise the generic `bif`
 * runs the BIF, which handles big integers and raises errors with their
 * frame. Small integers are tagged 0011 in the low bits, so `band` and
 * `bor` of two tagged words are the tagged result. Each comes in two
 * forms: any operands, and the _x form, where the first argument and the
 * destination are x registers and the second an x register or a literal,
 * read without asking which; an integer operator also in a third, _xi,
 * where the second is a small integer literal and needs no type test. */
#define SRC_XL(w) (operand_is_literal(w) ? (Term)(w) : XREG(w))
#define BIF2_INLINE(A, B, D, cond, value) BIF2_INLINE_IF(A, B, D, is_small(b), cond, value)
#define BIF2_INLINE_IF(A, B, D, b_small, cond, value) do {                 \
        Term a = (A), b = (B);                                            \
        if (is_small(a) && (b_small) && (cond)) {                         \
            D = (value);                                                  \
            DISPATCH(8);                                                  \
        }                                                                 \
        goto L_bif;                                                       \
    } while (0)
#define BIF2_FORMS(name, cond, value)                                                      \
    L_bif_##name: BIF2_INLINE(SRC(pc[6]), SRC(pc[7]), DST(pc[4]), cond, value);            \
    L_bif_##name##_x: BIF2_INLINE(XREG(pc[6]), SRC_XL(pc[7]), XREG(pc[4]), \
                                  cond, value);                                            \
    L_bif_##name##_xi: BIF2_INLINE_IF(XREG(pc[6]), (Term)pc[7], XREG(pc[4]), 1, cond, value);
BIF2_FORMS(band, 1, a & b)
BIF2_FORMS(bor, 1, a | b)
BIF2_FORMS(bxor, 1, (a ^ b) | IMM_SMALL)
BIF2_FORMS(bsr, small_val(b) >= 0,
           make_small(small_val(a) >> (small_val(b) < 63 ? small_val(b) : 63)))
BIF2_FORMS(bsl, small_val(b) >= 0 && small_val(b) < SMALL_BITS &&
                small_val(a) >= MIN_SMALL >> small_val(b) && small_val(a) <= MAX_SMALL >> small_val(b),
           make_small((SWord)((UWord)small_val(a) << small_val(b))))
/* the one quotient that does not fit is MIN_SMALL div -1 */
BIF2_FORMS(div, b != make_small(0) && (a != make_small(MIN_SMALL) || b != make_small(-1)),
           make_small(small_val(a) / small_val(b)))
BIF2_FORMS(rem, b != make_small(0), make_small(small_val(a) % small_val(b)))
/* the order of two small integers is that of their tagged words */
BIF2_FORMS(lt, 1, (SWord)a < (SWord)b ? AM_true : AM_false)
BIF2_FORMS(le, 1, (SWord)a <= (SWord)b ? AM_true : AM_false)
BIF2_FORMS(gt, 1, (SWord)a > (SWord)b ? AM_true : AM_false)
BIF2_FORMS(ge, 1, (SWord)a >= (SWord)b ? AM_true : AM_false)
#undef BIF2_FORMS
#undef BIF2_INLINE
#undef BIF2_INLINE_IF
#define ELEMENT_INLINE(I, T, D) do {                                       \
        Term i = (I), t = (T);                                            \
        if (is_small(i) && is_tuple(t) && small_val(i) >= 1 &&            \
            (UWord)small_val(i) <= tuple_arity(t)) {                      \
            D = tuple_elems(t)[small_val(i) - 1];                         \
            DISPATCH(8);                                                  \
        }                                                                 \
        goto L_bif;                                                       \
    } while (0)
L_bif_element: ELEMENT_INLINE(SRC(pc[6]), SRC(pc[7]), DST(pc[4]));
L_bif_element_x: ELEMENT_INLINE(XREG(pc[6]), SRC_XL(pc[7]), XREG(pc[4]));
#undef ELEMENT_INLINE

/* b is a small integer literal: adding its tagged form minus the tag adds
 * the values, and the overflow check is the machine's */
#define IMM_ARITH(A, D, overflow_op, slow) do {                             \
        Term a_ = (A);                                                    \
        SWord r_;                                                         \
        if (is_small(a_) && !overflow_op((SWord)a_, (SWord)(pc[4] - IMM_SMALL), &r_)) { \
            D = (Term)r_;                                                 \
            DISPATCH(6);                                                  \
        }                                                                 \
        goto slow;                                                        \
    } while (0)
L_add_imm: IMM_ARITH(SRC(pc[3]), DST(pc[5]), __builtin_add_overflow, L_add);
L_sub_imm: IMM_ARITH(SRC(pc[3]), DST(pc[5]), __builtin_sub_overflow, L_sub);
/* The same between x registers, the usual shape of a counter in a loop */
L_add_imm_xx: IMM_ARITH(XREG(pc[3]), XREG(pc[5]), __builtin_add_overflow, L_add);
L_sub_imm_xx: IMM_ARITH(XREG(pc[3]), XREG(pc[5]), __builtin_sub_overflow, L_sub);
/* From a y register to an x register: a counter kept across a call */
L_add_imm_yx: IMM_ARITH(YREG(pc[3]), XREG(pc[5]), __builtin_add_overflow, L_add);
L_sub_imm_yx: IMM_ARITH(YREG(pc[3]), XREG(pc[5]), __builtin_sub_overflow, L_sub);
#undef IMM_ARITH
/* b is a small integer literal: a's tagged word less its tag (its value
 * shifted over the tag) times b's value is the product's word less its
 * tag, and the machine's overflow check on it is the small-integer range
 * check (a 64-bit word holds a small integer's 60 bits shifted by 4) */
#define IMM_MUL(A, D) do {                                                 \
        Term a_ = (A);                                                    \
        SWord r_;                                                         \
        if (is_small(a_) &&                                               \
            !__builtin_mul_overflow((SWord)(a_ - IMM_SMALL), small_val((Term)pc[4]), &r_)) { \
            D = (Term)r_ + IMM_SMALL;                                     \
            DISPATCH(6);                                                  \
        }                                                                 \
        goto L_mul;                                                       \
    } while (0)
L_mul_imm: IMM_MUL(SRC(pc[3]), DST(pc[5]));
L_mul_imm_xx: IMM_MUL(XREG(pc[3]), XREG(pc[5]));
L_mul_imm_yx: IMM_MUL(YREG(pc[3]), XREG(pc[5]));
#undef IMM_MUL
/* Operands of unknown type: small integers first; then two floats, or a
 * float and a small integer, computed here and boxed straight on the heap
 * when there is room (no call, no fragment); anything else, and a result
 * that is not finite, goes to arith.c, which raises. */
#define ARITH_FLOATS(a, b, OP) do {                                        \
        double x_, y_, r_;                                                 \
        if (float_pair((a), (b), &x_, &y_) && isfinite(r_ = x_ OP y_) &&   \
            (size_t)(E - p->htop) >= FLOAT_WORDS) {                        \
            Term *hp_ = p->htop;                                           \
            p->htop = hp_ + FLOAT_WORDS;                                   \
            DST(pc[5]) = make_float_at(hp_, r_);                           \
            DISPATCH(6);                                                   \
        }                                                                  \
    } while (0)
/* Two small integers: for + and -, a's word plus or minus b's less its tag
 * is the result's word, and the overflow flag is the range check (as
 * IMM_ARITH); for *, the values' product, checked against the range. Each
 * form reads its operands its own way (A, B), writes D, and goes on to the
 * floats and the general case in `slow`. */
#define ADDSUB_SMALL(A, B, D, overflow_op, slow) do {                        \
        a = (A); b = (B);                                                   \
        if (is_small(a) && is_small(b) && !overflow_op((SWord)a, (SWord)(b - IMM_SMALL), &v)) { \
            D = (Term)v;                                                    \
            DISPATCH(6);                                                    \
        }                                                                   \
        goto slow;                                                          \
    } while (0)
#define MUL_SMALL(A, B, D) do {                                              \
        a = (A); b = (B);                                                   \
        if (is_small(a) && is_small(b) &&                                   \
            !__builtin_mul_overflow(small_val(a), small_val(b), &v) && fits_small(v)) { \
            D = make_small(v);                                              \
            DISPATCH(6);                                                    \
        }                                                                   \
        goto mul_slow;                                                      \
    } while (0)
L_add: {
    Term a, b, r;
    SWord v;
    ADDSUB_SMALL(SRC(pc[3]), SRC(pc[4]), DST(pc[5]), __builtin_add_overflow, add_slow);
L_sub:
    ADDSUB_SMALL(SRC(pc[3]), SRC(pc[4]), DST(pc[5]), __builtin_sub_overflow, sub_slow);
/* A y register and an x register into an x register: the shape of
 * arithmetic in a recursion that is not a tail call, a value kept across
 * the call and the call's result (fib(N - 1) + fib(N - 2), H + sum(T),
 * N * fact(N - 1)); read without asking what kind the operands are. */
L_add_yx:
    ADDSUB_SMALL(YREG(pc[3]), XREG(pc[4]), XREG(pc[5]), __builtin_add_overflow, add_slow);
L_mul_yx:
    MUL_SMALL(YREG(pc[3]), XREG(pc[4]), XREG(pc[5]));
L_mul_x:
    MUL_SMALL(XREG(pc[3]), SRC_XL(pc[4]), XREG(pc[5]));
L_mul:
    MUL_SMALL(SRC(pc[3]), SRC(pc[4]), DST(pc[5]));
#undef ADDSUB_SMALL
#undef MUL_SMALL
add_slow:
    ARITH_FLOATS(a, b, +);
    r = arith_add(p, a, b);
    goto arith_result;
sub_slow:
    ARITH_FLOATS(a, b, -);
    r = arith_sub(p, a, b);
    goto arith_result;
mul_slow:
    ARITH_FLOATS(a, b, *);
    r = arith_mul(p, a, b);
arith_result:
    if (r == THE_NON_VALUE) {
        if (pc[1]) FAIL_TO(pc[1]);
        int is_mul = *pc == (Instr)&&L_mul || *pc == (Instr)&&L_mul_x || *pc == (Instr)&&L_mul_yx ||
                     *pc == (Instr)&&L_mul_imm ||
                     *pc == (Instr)&&L_mul_imm_xx || *pc == (Instr)&&L_mul_imm_yx ||
                     *pc == (Instr)&&L_mul_add_imm_xx || *pc == (Instr)&&L_mul_sub_imm_xx ||
                     *pc == (Instr)&&L_mul_mul_imm_xx;
        int is_sub = *pc == (Instr)&&L_sub || *pc == (Instr)&&L_sub_imm || *pc == (Instr)&&L_sub_imm_xx ||
                     *pc == (Instr)&&L_sub_imm_yx || *pc == (Instr)&&L_sub_add_imm_xx ||
                     *pc == (Instr)&&L_sub_sub_imm_xx || *pc == (Instr)&&L_sub_mul_imm_xx;
        /* OTP 25 (JIT) raises from its inline sum with a small integer
         * literal, and from a difference with a non-negative one (which it
         * adds negated), without an erlang:'+' frame; otherwise the frame
         * names the operator and its operands */
        int lit_a = operand_is_literal(pc[3]) && is_small(a);
        int lit_b = operand_is_literal(pc[4]) && is_small(b);
        int inline_sum = !is_mul && (is_sub ? lit_b && small_val(b) >= 0 : lit_a || lit_b);
        if (!inline_sum)
            top_frame = tuple4(p, ATOM_TERM(erlang), atom_intern_cstr(is_mul ? "*" : is_sub ? "-" : "+"),
                               cons(p, a, cons(p, b, NIL)), NIL);
        RAISE();
    }
    DST(pc[5]) = r;
    DISPATCH(6);
}
#undef ARITH_FLOATS

/* ---- floats: raw doubles in fr (compiler/codegen_float.c) ---- */
#define FLOAT_ERROR() do { if (pc[1]) FAIL_TO(pc[1]); ERROR(AM_badarith); } while (0)
#define FLOAT_OP(expr) do {                                               \
        double r_ = (expr);                                               \
        if (__builtin_expect(!isfinite(r_), 0)) FLOAT_ERROR();            \
        fr[pc[4]] = r_;                                                   \
        DISPATCH(5);                                                      \
    } while (0)
L_fmove:
    fr[pc[2]] = float_val(SRC(pc[1]));
    DISPATCH(3);
L_fmove_x:
    fr[pc[2]] = float_val(XREG(pc[1]));
    DISPATCH(3);
L_fmove_lit:
    memcpy(&fr[pc[2]], &pc[1], sizeof(double));
    DISPATCH(3);
L_fconv: {
    Term t = SRC(pc[2]);
    double d;
    if (is_small(t)) d = (double)small_val(t);
    else if (is_float(t)) d = float_val(t);
    else if (!term_to_double(t, &d)) FLOAT_ERROR();  /* not a number, or a too big integer */
    fr[pc[3]] = d;
    DISPATCH(4);
}
#define FBOX_HEAP() do {                  /* GC_STRESS builds collect at every box */ \
        if ((size_t)(E - p->htop) < FLOAT_WORDS || p->mbuf || GC_STRESS) { \
            reds -= (SWord)gc_ensure(p, FLOAT_WORDS, (int)pc[2]);          \
            LOAD_E();                                                      \
            if (p->out_of_memory || (size_t)(E - p->htop) < FLOAT_WORDS)   \
                goto out_of_memory;                                        \
        }                                                                  \
    } while (0)
L_fbox: {
    FBOX_HEAP();
    Term *hp = p->htop;
    p->htop = hp + FLOAT_WORDS;
    DST(pc[3]) = make_float_at(hp, fr[pc[1]]);
    DISPATCH(4);
}
L_fbox_x: {
    FBOX_HEAP();
    Term *hp = p->htop;
    p->htop = hp + FLOAT_WORDS;
    XREG(pc[3]) = make_float_at(hp, fr[pc[1]]);
    DISPATCH(4);
}
#undef FBOX_HEAP
L_fcopy:
    fr[pc[2]] = fr[pc[1]];
    DISPATCH(3);
L_fadd: FLOAT_OP(fr[pc[2]] + fr[pc[3]]);
L_fsub: FLOAT_OP(fr[pc[2]] - fr[pc[3]]);
L_fmul: FLOAT_OP(fr[pc[2]] * fr[pc[3]]);
L_fdiv: FLOAT_OP(fr[pc[2]] / fr[pc[3]]);
L_fnegate:                           /* as OTP 25's: 0.0 - x, so -(0.0) is 0.0 */
    fr[pc[2]] = 0.0 - fr[pc[1]];
    DISPATCH(3);
L_is_flt: TEST(fr[pc[2]] < fr[pc[3]], 4);
L_is_fge: TEST(fr[pc[2]] >= fr[pc[3]], 4);
#undef FLOAT_OP

L_move:
    DST(pc[2]) = SRC(pc[1]);
    DISPATCH(3);
L_move_xx:
    XREG(pc[2]) = XREG(pc[1]);
    DISPATCH(3);
L_move_xy:
    YREG(pc[2]) = XREG(pc[1]);
    DISPATCH(3);
L_move_yx:
    XREG(pc[2]) = YREG(pc[1]);
    DISPATCH(3);
L_move_cx:
    XREG(pc[2]) = (Term)pc[1];
    DISPATCH(3);

/* [head | tail] from operands h and t into operand d, on words test_heap
 * reserved; then on past `size` words of code */
#define PUT_LIST(h, t, d, size) do {                                         \
    Term *hp_ = p->htop;                                                     \
    hp_[0] = SRC(h);                                                         \
    hp_[1] = SRC(t);                                                         \
    p->htop = hp_ + 2;                                                       \
    DST(d) = make_list(hp_);                                                 \
    DISPATCH(size);                                                          \
} while (0)

/* Fused pairs (opcodes.def, loader.c): the second instruction's operands
 * are read where they are, after its handler word at pc[k]. */
/* two moves, in order (the second may read what the first wrote) */
#define MOVE_PAIR(R1, W1, R2, W2) do { W1(pc[2]) = R1(pc[1]); W2(pc[5]) = R2(pc[4]); DISPATCH(6); } while (0)
L_move_xx_move_xx: MOVE_PAIR(XREG, XREG, XREG, XREG);   /* move_xx at pc and at pc + 3 */
L_move_xy_move_xy: MOVE_PAIR(XREG, YREG, XREG, YREG);   /* move_xy at pc and at pc + 3 */
L_move_yx_move_yx: MOVE_PAIR(YREG, XREG, YREG, XREG);   /* move_yx at pc and at pc + 3 */
#undef MOVE_PAIR
L_move_xx_call_only:                   /* move_xx at pc, call_only at pc + 3 */
    XREG(pc[2]) = XREG(pc[1]);
    pc += 3;
    ENTER((const Instr *)pc[2], (int)pc[1]);
L_get_tuple_element_2:                 /* get_tuple_element at pc and at pc + 4 */
    DST(pc[3]) = tuple_elems(SRC(pc[1]))[pc[2]];
    DST(pc[7]) = tuple_elems(SRC(pc[5]))[pc[6]];
    DISPATCH(8);
L_test_heap_put_list:                  /* test_heap at pc, put_list at pc + 3 */
    TEST_HEAP(pc[1], (int)pc[2]);
    PUT_LIST(pc[4], pc[5], pc[6], 7);
L_deallocate_return:                   /* deallocate at pc, return at pc + 2 */
    cp = cp_val(E[0]);
    p->stop = E += pc[1] + 1;
    pc = cp;
    NEXT();
L_is_nonempty_list_get_list: {         /* is_nonempty_list_x at pc, get_list_xxx at pc + 3 */
    Term l = XREG(pc[2]);
    if (!is_list(l)) FAIL_TO(pc[1]);
    Term h = list_head(l), t = list_tail(l);
    XREG(pc[5]) = h;
    XREG(pc[6]) = t;
    DISPATCH(7);
}

#define GET_LIST(S, DH, DT) do {                                           \
        Term l_ = (S);                                                    \
        Term h_ = list_head(l_), t_ = list_tail(l_);                      \
        DH = h_;                                                          \
        DT = t_;                                                          \
        DISPATCH(4);                                                      \
    } while (0)
L_get_list: GET_LIST(SRC(pc[1]), DST(pc[2]), DST(pc[3]));

/* the same with every operand an x register: the step of a list walk */
L_get_list_xxx: GET_LIST(XREG(pc[1]), XREG(pc[2]), XREG(pc[3]));
#undef GET_LIST

L_get_hd:
    DST(pc[2]) = list_head(SRC(pc[1]));
    DISPATCH(3);

L_get_tl:
    DST(pc[2]) = list_tail(SRC(pc[1]));
    DISPATCH(3);

L_get_tuple_element:
    DST(pc[3]) = tuple_elems(SRC(pc[1]))[pc[2]];
    DISPATCH(4);

L_put_list:
    PUT_LIST(pc[1], pc[2], pc[3], 4);

L_put_tuple: {
    UWord n = pc[2];
    Term *hp = p->htop;
    hp[0] = make_tuple_header(n);
    for (UWord i = 0; i < n; i++) hp[1 + i] = SRC(pc[3 + i]);
    p->htop = hp + n + 1;
    DST(pc[1]) = make_boxed(hp);
    DISPATCH(3 + n);
}

L_make_fun: {
    const FunEntry *fe = (const FunEntry *)pc[1];
    UWord n = pc[3];
    Term *hp = p->htop;
    hp[0] = make_header(1 + n, BOXED_FUN);
    hp[1] = (Term)fe;
    for (UWord i = 0; i < n; i++) hp[2 + i] = SRC(pc[4 + i]);
    p->htop = hp + n + 2;
    DST(pc[2]) = make_boxed(hp);
    DISPATCH(4 + n);
}

L_is_integer:      TEST(is_integer(SRC(pc[2])), 3);
L_is_float:        TEST(is_float(SRC(pc[2])), 3);
L_is_number:       TEST(is_number(SRC(pc[2])), 3);
L_is_atom:         TEST(is_atom(SRC(pc[2])), 3);
L_is_boolean: {
    Term t = SRC(pc[2]);
    TEST(t == AM_true || t == AM_false, 3);
}
L_is_pid:          TEST(is_any_pid(SRC(pc[2])), 3);
L_is_port:         TEST(is_any_port(SRC(pc[2])), 3);
L_is_reference:    TEST(is_any_ref(SRC(pc[2])), 3);
L_is_nil:          TEST(is_nil(SRC(pc[2])), 3);
L_is_list: {
    Term t = SRC(pc[2]);
    TEST(is_list(t) || is_nil(t), 3);
}
L_is_nonempty_list: TEST(is_list(SRC(pc[2])), 3);
L_is_tuple:        TEST(is_tuple(SRC(pc[2])), 3);
#define TEST_TUPLE_OF_ARITY(T) do {                                        \
        Term t_ = (T);                                                    \
        TEST(is_tuple(t_) && tuple_arity(t_) == pc[3], 4);                \
    } while (0)
#define TEST_TAGGED_TUPLE(T) do {                                          \
        Term t_ = (T);                                                    \
        TEST(is_tuple(t_) && tuple_arity(t_) == pc[3] && tuple_elems(t_)[0] == (Term)pc[4], 5); \
    } while (0)
L_is_tuple_of_arity: TEST_TUPLE_OF_ARITY(SRC(pc[2]));
L_is_tagged_tuple:   TEST_TAGGED_TUPLE(SRC(pc[2]));
L_is_function:     TEST(is_fun(SRC(pc[2])), 3);
/* the type tests a clause head makes most, of an x register (loader.c) */
L_is_nil_x:            TEST(is_nil(XREG(pc[2])), 3);
L_is_nonempty_list_x:  TEST(is_list(XREG(pc[2])), 3);
L_is_tuple_of_arity_x: TEST_TUPLE_OF_ARITY(XREG(pc[2]));
L_is_tagged_tuple_x:   TEST_TAGGED_TUPLE(XREG(pc[2]));
#undef TEST_TUPLE_OF_ARITY
#undef TEST_TAGGED_TUPLE
L_is_function2: {
    Term f = SRC(pc[2]), a = SRC(pc[3]);
    int ok = 0;
    if (is_fun(f) && is_small(a)) {
        SWord want = small_val(a);
        if (boxed_kind(f) == BOXED_FUN) ok = ((const FunEntry *)boxed_ptr(f)[1])->arity == want;
        else ok = ((const Export *)boxed_ptr(f)[1])->arity == want;
    }
    TEST(ok, 4);
}
L_is_binary:       TEST(is_binary(SRC(pc[2])), 3);        /* binaries: binary.h */
L_is_bitstring:    TEST(is_bitstring(SRC(pc[2])), 3);
L_is_map:          TEST(is_boxed_kind(SRC(pc[2]), BOXED_MAP), 3);

L_is_eq_exact_imm:
    TEST(SRC(pc[2]) == (Term)pc[3], 4);
L_is_eq_exact_imm_x:
    TEST(XREG(pc[2]) == (Term)pc[3], 4);
L_is_ne_exact_imm:
    TEST(SRC(pc[2]) != (Term)pc[3], 4);
/* =:= and =/= against a literal tuple whose elements are immediates, as a
 * constant pattern such as check({nil, nil}) compiles: a tuple equals it
 * exactly when its header and every element are the same words (a boxed
 * element is never =:= an immediate), so nothing is called; before,
 * term_eq_exact was a tenth of binary-trees. Where these two sit moved
 * other handlers' timings (code layout): at the end of this function
 * n-body ran 7% slower, just before L_is_eq fib ran 9% slower (pinned,
 * five to seven rounds in turns); here, before L_is_eq_exact, nothing
 * measured moved by more than 2%. */
#define FLAT_TUPLE_EQUAL(A, B, EQ) do {                                  \
        Term a_ = (A), b_ = (B);                                          \
        EQ = 1;                                                           \
        if (a_ != b_) {                                                   \
            const Term *y_ = boxed_ptr(b_);                               \
            if (!is_boxed(a_) || boxed_ptr(a_)[0] != y_[0]) EQ = 0;       \
            else {                                                        \
                const Term *x_ = boxed_ptr(a_);                           \
                for (UWord i_ = header_arity(y_[0]); i_ > 0; i_--)        \
                    if (x_[i_] != y_[i_]) { EQ = 0; break; }              \
            }                                                             \
        }                                                                 \
    } while (0)
L_is_eq_exact_flat_tuple: {
    int eq;
    FLAT_TUPLE_EQUAL(SRC(pc[2]), (Term)pc[3], eq);
    TEST(eq, 4);
}
L_is_ne_exact_flat_tuple: {
    int eq;
    FLAT_TUPLE_EQUAL(SRC(pc[2]), (Term)pc[3], eq);
    TEST(!eq, 4);
}
#undef FLAT_TUPLE_EQUAL

L_is_eq_exact: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    TEST(terms_exactly_equal(a, b), 4);
}
L_is_ne_exact: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    TEST(!terms_exactly_equal(a, b), 4);
}
L_is_eq: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    TEST(a == b || term_eq(a, b), 4);
}
L_is_ne: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    TEST(!(a == b || term_eq(a, b)), 4);
}
/* two floats compare as doubles (there is no NaN, and -0.0 == 0.0 as in
 * Erlang's order) */
L_is_lt: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    if (is_small(a) && is_small(b)) TEST((SWord)a < (SWord)b, 4);
    if (is_float(a) && is_float(b)) TEST(float_val(a) < float_val(b), 4);
    TEST(term_compare(a, b) < 0, 4);
}
L_is_ge: {
    Term a = SRC(pc[2]), b = SRC(pc[3]);
    if (is_small(a) && is_small(b)) TEST((SWord)a >= (SWord)b, 4);
    if (is_float(a) && is_float(b)) TEST(float_val(a) >= float_val(b), 4);
    TEST(term_compare(a, b) >= 0, 4);
}
/* A guard against a constant (N < 2, N > 0, N >= Max): an x register
 * against a small integer literal, on either side, needs one type test;
 * any other type takes the general form, whose operands are the same. */
L_is_lt_xi: if (is_small(XREG(pc[2]))) TEST((SWord)XREG(pc[2]) < (SWord)pc[3], 4); goto L_is_lt;
L_is_lt_ix: if (is_small(XREG(pc[3]))) TEST((SWord)pc[2] < (SWord)XREG(pc[3]), 4); goto L_is_lt;
L_is_ge_xi: if (is_small(XREG(pc[2]))) TEST((SWord)XREG(pc[2]) >= (SWord)pc[3], 4); goto L_is_ge;
L_is_ge_ix: if (is_small(XREG(pc[3]))) TEST((SWord)pc[2] >= (SWord)XREG(pc[3]), 4); goto L_is_ge;

L_select_val: {
    Term v = SRC(pc[1]);
    UWord n = pc[3];
    for (UWord i = 0; i < n; i++) {
        Term lit = (Term)pc[4 + 2 * i];
        if (terms_exactly_equal(v, lit))
            FAIL_TO(pc[5 + 2 * i]);
    }
    FAIL_TO(pc[2]);
}

L_select_val_imm: {
    /* an immediate equals exactly only its own word; a boxed value equals none */
    Term v = SRC(pc[1]);
    const Instr *pair = pc + 4;
    UWord lo = 0, hi = pc[3];
    while (lo < hi) {
        UWord mid = (lo + hi) / 2;
        if ((Term)pair[2 * mid] < v) lo = mid + 1;
        else hi = mid;
    }
    if (lo < pc[3] && (Term)pair[2 * lo] == v) FAIL_TO(pair[2 * lo + 1]);
    FAIL_TO(pc[2]);
}

L_jump:
    FAIL_TO(pc[1]);

/* ---- binaries (binary.c does the work) ---- */
L_bs_create: {
    UWord n = pc[4];
    if (binary_gc_due(p)) {                      /* large binaries are piling up */
        reds -= (SWord)gc_collect(p, 0, (int)pc[2], 0);
        LOAD_E();                                /* the stack moved */
    }
    Term small_ops[96], *ops = n <= 96 ? small_ops : malloc(n * sizeof(Term));
    if (!ops) FATAL("out of memory for %zu operands of a bit-syntax construction", (size_t)n);
    for (UWord i = 0; i < n; i++) ops[i] = SRC(pc[5 + i]);
    Term r = bs_create(p, ops, n);
    if (ops != small_ops) free(ops);
    if (r == THE_NON_VALUE) {
        if (pc[1]) FAIL_TO(pc[1]);
        RAISE();
    }
    DST(pc[3]) = r;
    DISPATCH(5 + n);
}
L_bs_append_int: {
    /* the operands: spec, Acc, all, spec, V, K. What bs_append (binary.c)
     * does for a ProcBin whose buffer ends where Acc does and has room,
     * without the call: K / 8 bytes of V written after Acc's; a private
     * accumulator (a binary comprehension's) grows in place, any other Acc
     * gets a new ProcBin of the longer length, on the heap if it has room. */
    Term acc = SRC(pc[6]), v = SRC(pc[9]);
    UWord s0 = (UWord)small_val((Term)pc[5]), s1 = (UWord)small_val((Term)pc[8]);
    UWord nb = (UWord)small_val((Term)pc[10]) / 8;
    if (is_small(v) && is_boxed(acc) && header_subtag(boxed_ptr(acc)[0]) == BOXED_REFC_BIN &&
        !binary_gc_due(p) && ((s0 & BS_PRIVATE) || (size_t)(E - p->htop) >= PROC_BIN_WORDS)) {
        Term *pb = boxed_ptr(acc);
        Binary *b = (Binary *)pb[PB_VAL];
        UWord have = pb[PB_SIZE];
        if (bin_can_append(b, have * 8, have + nb)) {
            UWord u = (UWord)small_val(v);
            unsigned char *d = b->data + have;
            if (s1 & BS_LITTLE)
                for (UWord k = 0; k < nb; k++, u >>= 8) d[k] = (unsigned char)u;
            else
                for (UWord k = nb; k-- > 0; u >>= 8) d[k] = (unsigned char)u;
            b->used_bits = (have + nb) * 8;
            if (s0 & BS_PRIVATE) {
                p->bin_vheap += nb;
                pb[PB_SIZE] = have + nb;
                DST(pc[3]) = acc;
            } else {
                atomic_fetch_add_explicit(&b->refc, 1, memory_order_relaxed);
                Term *hp = p->htop;
                p->htop = hp + PROC_BIN_WORDS;
                DST(pc[3]) = proc_bin_at(p, hp, b, have + nb, nb);
            }
            DISPATCH(5 + 6);
        }
    }
    goto L_bs_create;
}
L_bs_start_match: {
    /* the state: a sub-binary of the source's bits, on the heap. It has a
     * live count so that it can collect: a parser that recurses on the
     * rest of its binary starts a state a step and may have no other
     * instruction that checks the heap, so without one its states would
     * pile up in fragments until the process next yields. */
    if (!is_bitstring(SRC(pc[2]))) FAIL_TO(pc[1]);
    TEST_HEAP(SUB_BIN_WORDS, (int)pc[4]);
    Term t = SRC(pc[2]);                      /* read again: it may have moved */
    const Term *o = boxed_ptr(t);
    UWord kind = header_subtag(o[0]), offs = 0, bits;
    Term orig = t;
    if (kind == BOXED_SUB_BIN) { orig = o[SB_ORIG]; offs = o[SB_OFFS]; bits = o[SB_BITS]; }
    else if (kind == BOXED_HEAP_BIN) bits = o[1] * 8;
    else bits = o[PB_SIZE] * 8;
    Term *hp = p->htop;
    p->htop = hp + SUB_BIN_WORDS;
    DST(pc[3]) = sub_bin_at(hp, orig, offs, bits);
    DISPATCH(5);
}
L_bs_get_int: {
    /* whole bytes from a byte boundary: at most 7 of them, so the value
     * is a small integer whatever its sign */
    Term *m = boxed_ptr(XREG(pc[2]));
    UWord spec = (UWord)small_val((Term)pc[3]), n = (UWord)small_val((Term)pc[4]);
    UWord left = m[SB_BITS], pos = m[SB_OFFS];
    if (((pos | n) & 7) == 0) {
        if (n > left) FAIL_TO(pc[1]);
        const unsigned char *s = bin_orig_data(m[SB_ORIG]) + pos / 8;
        UWord v = 0;
        if (spec & BS_LITTLE)
            for (UWord k = n / 8; k-- > 0;) v = v << 8 | s[k];
        else
            for (UWord k = 0; k < n / 8; k++) v = v << 8 | s[k];
        SWord sv = (SWord)v;
        if ((spec & BS_SIGNED) && (v >> (n - 1)) & 1) sv = (SWord)(v | (~(UWord)0 << (n - 1)));
        m[SB_OFFS] = pos + n;
        m[SB_BITS] = left - n;
        DST(pc[5]) = make_small(sv);
        DISPATCH(6);
    }
    goto L_bs_get;
}
L_bs_get_tail: {
    /* a large rest: the state itself, as bs_get (binary.c) explains */
    Term ms = XREG(pc[2]);
    const Term *m = boxed_ptr(ms);
    UWord unit = (UWord)small_val((Term)pc[3]) >> BS_UNIT_SHIFT;
    if (m[SB_OFFS] % 8 == 0 && m[SB_BITS] / 8 > BIN_HEAP_LIMIT &&
        (unit == 1 || (unit == 8 && m[SB_BITS] % 8 == 0))) {
        DST(pc[5]) = ms;
        DISPATCH(6);
    }
    goto L_bs_get;
}
L_bs_get_utf8: {
    /* one, two and three-byte characters from a byte boundary; anything
     * else (four bytes, and every malformed sequence, which must fail as
     * binary.c's utf8_decode decides) through the call */
    Term *m = boxed_ptr(XREG(pc[2]));
    UWord left = m[SB_BITS], pos = m[SB_OFFS], n = 0, cp = 0;
    if (pos % 8 == 0 && left >= 8) {
        const unsigned char *s = bin_orig_data(m[SB_ORIG]) + pos / 8;
        if (s[0] < 0x80) {
            n = 8; cp = s[0];
        } else if ((s[0] & 0xE0) == 0xC0 && left >= 16 && (s[1] & 0xC0) == 0x80) {
            cp = (UWord)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
            if (cp >= 0x80) n = 16;                          /* not overlong */
        } else if ((s[0] & 0xF0) == 0xE0 && left >= 24 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
            cp = (UWord)(s[0] & 0x0F) << 12 | (UWord)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
            if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) n = 24;   /* no surrogates */
        }
        if (n) {
            m[SB_OFFS] = pos + n;
            m[SB_BITS] = left - n;
            DST(pc[5]) = make_small((SWord)cp);
            DISPATCH(6);
        }
    }
    goto L_bs_get;
}
L_bs_get: {
    Term r = bs_get(p, SRC(pc[2]), SRC(pc[3]), SRC(pc[4]));
    if (r == THE_NON_VALUE) FAIL_TO(pc[1]);
    DST(pc[5]) = r;
    DISPATCH(6);
}
L_bs_match_string:
    TEST(bs_match_string(SRC(pc[2]), SRC(pc[3])), 4);
L_bs_test_tail:
    TEST(bs_at_end(SRC(pc[2])), 3);
L_bs_test_unit:
    TEST(pc[3] != 0 && boxed_ptr(SRC(pc[2]))[SB_BITS] % pc[3] == 0, 4);
L_bs_get_position:
    DST(pc[2]) = make_small((SWord)boxed_ptr(SRC(pc[1]))[SB_OFFS]);
    DISPATCH(3);
L_bs_set_position: {
    /* the end (offset + bits) stays where it is */
    Term *m = boxed_ptr(SRC(pc[1]));
    UWord pos = (UWord)small_val(SRC(pc[2]));
    m[SB_BITS] += m[SB_OFFS] - pos;
    m[SB_OFFS] = pos;
    DISPATCH(3);
}

L_badmatch:
    ERROR(tuple2(p, ATOM_TERM(badmatch), SRC(pc[1])));
L_case_end:
    ERROR(tuple2(p, ATOM_TERM(case_clause), SRC(pc[1])));
L_if_end:
    ERROR(ATOM_TERM(if_clause));
L_try_case_end:
    ERROR(tuple2(p, ATOM_TERM(try_clause), SRC(pc[1])));

L_try: L_catch:
    DST(pc[1]) = make_catch(pc[2]);
    DISPATCH(3);

L_try_end:
    DST(pc[1]) = NIL;
    DISPATCH(2);

L_try_case:
    DST(pc[1]) = NIL;
    x[0] = x[1]; x[1] = x[2]; x[2] = x[3];
    DISPATCH(2);

L_catch_end:
    DST(pc[1]) = NIL;
    if (x[0] == THE_NON_VALUE) {
        /* an exception was caught: make `catch`'s value */
        if (x[1] == ATOM_TERM(throw)) x[0] = x[2];
        else if (x[1] == ATOM_TERM(exit)) x[0] = tuple2(p, ATOM_TERM(EXIT), x[2]);
        else x[0] = tuple2(p, ATOM_TERM(EXIT), tuple2(p, x[2], x[3]));
    }
    DISPATCH(2);

L_raise: {
    Term cls = SRC(pc[1]);
    p->exc_class = cls == ATOM_TERM(throw) ? EXC_THROW : cls == ATOM_TERM(exit) ? EXC_EXIT : EXC_ERROR;
    p->exc_reason = SRC(pc[2]);
    p->exc_trace = SRC(pc[3]);
    goto unwind;
}

L_send: {
    Term to = SRC(pc[1]), msg = SRC(pc[2]);
    if (is_port(to)) {
        port_send(p, to, msg);               /* a port command (vm/io/port.c) */
        reds -= 1;
        DST(pc[3]) = msg;
        DISPATCH(4);
    }
    if (__builtin_expect(is_boxed(to), 0)) {
        if (is_ref(to)) {                    /* an alias (proc_alias.c) */
            reds -= (SWord)proc_send_alias(p, to, msg);
            if (__builtin_expect(p->out_of_memory, 0)) goto out_of_memory;
            DST(pc[3]) = msg;
            DISPATCH(4);
        }
        /* another node's pid, or {Name, Node} (vm/dist) */
        long r = dist_send(p, to, msg);
        if (r >= 0) {
            reds -= r;
            DST(pc[3]) = msg;
            DISPATCH(4);
        }
    }
    if (!is_pid(to)) {
        Term name = to;
        if (!is_atom(to) || (to = proc_whereis(to)) == THE_NON_VALUE) {
            top_frame = tuple4(p, ATOM_TERM(erlang), atom_intern_cstr("!"),
                               cons(p, name, cons(p, msg, NIL)), NIL);
            ERROR(AM_badarg);
        }
    }
    reds -= (SWord)proc_send(p, to, msg);
    if (__builtin_expect(p->out_of_memory, 0)) goto out_of_memory;   /* no room for the copy */
    DST(pc[3]) = msg;
    DISPATCH(4);
}

/* m = the message at the receive position, draining the inbox when the
 * private queue is used up; none: on to the wait at pc[1]. */
#define CURRENT_MESSAGE(m) do {                                             \
        (m) = mailbox_current(&p->mbox);                                    \
        if (!(m)) {                                                         \
            proc_drain(p);                                                  \
            if (p->exiting) goto exit_by_signal;                            \
            (m) = mailbox_current(&p->mbox);                                \
            if (!(m)) FAIL_TO(pc[1]);                                       \
        }                                                                   \
    } while (0)

L_loop_rec: {
    Message *m;
    CURRENT_MESSAGE(m);
    DST(pc[2]) = m->term;
    DISPATCH(3);
}

/* A receive whose clauses all match tuples: a message no clause's arity and
 * fixed elements (literals, variables bound before the receive) allow is
 * skipped here, without running the clauses' tests one instruction at a
 * time; in a selective receive that waits for one reply among many queued
 * messages, that is most of its work (codegen_ctl.c, cg_loop_rec). */
L_loop_rec_filter: {
    const Instr *filter = pc + 4;
    for (;;) {
        Message *m;
        CURRENT_MESSAGE(m);
        Term t = m->term;
        if (is_tuple(t)) {
            const Term *el = tuple_elems(t);
            UWord arity = tuple_arity(t);
            const Instr *c = filter + 1;
            for (SWord k = small_val((Term)filter[0]); k > 0; k--) {
                UWord want = (UWord)small_val((Term)c[0]), ntests = (UWord)small_val((Term)c[1]);
                int pass = arity == want;
                for (UWord i = 0; pass && i < ntests; i++) {
                    pass = terms_exactly_equal(el[small_val((Term)c[2 + 2 * i])], SRC(c[3 + 2 * i]));
                }
                if (pass) {
                    DST(pc[2]) = t;
                    DISPATCH(4 + pc[3]);
                }
                c += 2 + 2 * ntests;
            }
        }
        mailbox_advance(&p->mbox);
        reds--;
    }
}

L_loop_rec_end:
    mailbox_advance(&p->mbox);
    reds--;
    FAIL_TO(pc[1]);

L_remove_message:
    proc_remove_message(p);
    if (p->wait_ref) { timer_cancel_timeout(p->wait_timer, p->wait_ref); p->wait_ref = 0; }
    p->timed_out = 0;
    DISPATCH(1);

L_wait:
    wait_live = (int)pc[2];
    pc = (const Instr *)pc[1];
    if (mailbox_has_new(&p->mbox)) NEXT();       /* something came meanwhile */
    goto suspend;

L_wait_timeout: {
    if (p->timed_out) DISPATCH(4);               /* on to `timeout` */
    Term t = SRC(pc[2]);
    wait_live = (int)pc[3];
    if (t == ATOM_TERM(infinity)) {
        pc = (const Instr *)pc[1];
        if (mailbox_has_new(&p->mbox)) NEXT();
        goto suspend;
    }
    /* Erlang's range: 0 .. 16#FFFFFFFF milliseconds (about 49.7 days) */
    if (!is_small(t) || small_val(t) < 0 || (UWord)small_val(t) > 0xFFFFFFFFu)
        ERROR(ATOM_TERM(timeout_value));
    if (t == make_small(0)) DISPATCH(4);
    if (!p->wait_ref) {
        uint64_t ms = (uint64_t)small_val(t);
        p->wait_ref = proc_new_ref();
        p->wait_timer = timer_add_timeout(ms, p->pid, p->wait_ref);
    }
    pc = (const Instr *)pc[1];
    if (mailbox_has_new(&p->mbox)) NEXT();
    goto suspend;
}

L_timeout:
    mailbox_rewind(&p->mbox);
    p->wait_ref = 0;
    p->timed_out = 0;
    DISPATCH(1);

/* A receive that only messages holding a new reference can match skips the
 * ones queued before the reference was made (codegen_ctl.c decides when):
 * recv_mark remembers where the queue ended, recv_set starts the receive
 * there. The mark is for one receive (its loop's address), so a mark left by
 * other code is never used by the wrong receive; mailbox_remove keeps it
 * valid when a message before it goes. */
L_recv_mark:
    proc_drain(p);
    if (p->exiting) goto exit_by_signal;
    p->mbox.mark = p->mbox.last;
    p->mbox.mark_for = (const void *)pc[1];
    DISPATCH(2);

L_recv_set:
    if (p->mbox.mark && p->mbox.mark_for == (const void *)pc[1]) p->mbox.save = p->mbox.mark;
    p->mbox.mark = NULL;
    DISPATCH(2);

/* ---- maps (map.c): they allocate with heap_alloc, so no live count ---- */
#define PUT_MAP(exact) do {                                                   \
        Term m_ = SRC(pc[2]);                                               \
        UWord n_ = pc[4];                                                   \
        if (!is_map_term(m_)) {                                             \
            if (pc[1]) FAIL_TO(pc[1]);                                      \
            ERROR(tuple2(p, ATOM_TERM(badmap), m_));                        \
        }                                                                   \
        Term small_[16];                                                    \
        Term *kv_ = n_ <= 16 ? small_ : malloc(n_ * sizeof(Term));          \
        if (!kv_) FATAL("out of memory for %zu words of map pairs", (size_t)n_); \
        for (UWord i_ = 0; i_ < n_; i_++) kv_[i_] = SRC(pc[5 + i_]);        \
        Term missing_ = NIL;                                                \
        Term r_ = map_put_pairs(p, m_, kv_, n_ / 2, (exact), &missing_);    \
        if (kv_ != small_) free(kv_);                                       \
        if (r_ == THE_NON_VALUE) {                                          \
            if (pc[1]) FAIL_TO(pc[1]);                                      \
            ERROR(tuple2(p, ATOM_TERM(badkey), missing_));                  \
        }                                                                   \
        DST(pc[3]) = r_;                                                    \
        /* a flat map's update copies it, a tree's copies one path */   \
        reds -= map_is_flat(r_) ? (SWord)(map_size(r_) / 64) : 1;          \
        DISPATCH(5 + n_);                                                   \
    } while (0)
L_put_map_assoc:
    PUT_MAP(0);
L_put_map_exact:
    PUT_MAP(1);
#undef PUT_MAP

L_get_map_elements: {
    Term m = SRC(pc[2]);
    UWord n = pc[3];
    for (UWord i = 0; i < n; i += 2) {
        Term v = map_get(m, SRC(pc[4 + i]));
        if (v == THE_NON_VALUE) FAIL_TO(pc[1]);
        DST(pc[5 + i]) = v;
    }
    DISPATCH(4 + n);
}

/* Two of the _imm forms of add, sub and mul in a row, the second on the
 * first's result (loader.c, fuse): `X * 69069 + 12345`, `(N - 1) * 2`.
 * Each handler stores and the next loads the x register between them, and
 * that store and load are on the loop's critical path: a load that must
 * wait for a store still in flight costs about as much as the arithmetic
 * (perf annotate of an LCG loop: the samples sat on the instruction after
 * each such load). Here the first result goes on in a machine register; it
 * is stored too, since the register may be live. Only the small-integer
 * path is fused: anything else falls back to the first instruction's own
 * handler (a big first result) or the second's (a big second one), which
 * handle it as they always do. IMM_STEP_* restate the arithmetic of
 * IMM_ARITH and IMM_MUL above; rewriting those two through these steps
 * gave the same instructions in another order, and spectral-norm and fib
 * ran 5-6% slower (pinned, five rounds), so the plain forms stay as they
 * were measured. */
#define IMM_STEP_add(A, IMM, R) !__builtin_add_overflow((SWord)(A), (SWord)((IMM) - IMM_SMALL), &(R))
#define IMM_STEP_sub(A, IMM, R) !__builtin_sub_overflow((SWord)(A), (SWord)((IMM) - IMM_SMALL), &(R))
#define IMM_STEP_mul(A, IMM, R) \
    (!__builtin_mul_overflow((SWord)((A) - IMM_SMALL), small_val((Term)(IMM)), &(R)) && ((R) += IMM_SMALL, 1))
#define ARITH_PAIR(first, second)                                          \
    L_##first##_##second##_imm_xx: {     /* at pc + 6: the second */       \
        Term a_ = XREG(pc[3]);                                            \
        SWord r1_, r2_;                                                   \
        if (is_small(a_) && IMM_STEP_##first(a_, pc[4], r1_)) {           \
            XREG(pc[5]) = (Term)r1_;                                      \
            if (IMM_STEP_##second((Term)r1_, pc[10], r2_)) {              \
                XREG(pc[11]) = (Term)r2_;                                 \
                DISPATCH(12);                                             \
            }                                                             \
            DISPATCH(6);                                                  \
        }                                                                 \
        goto L_##first;                                                   \
    }
ARITH_PAIR(add, add) ARITH_PAIR(add, sub) ARITH_PAIR(add, mul)
ARITH_PAIR(sub, add) ARITH_PAIR(sub, sub) ARITH_PAIR(sub, mul)
ARITH_PAIR(mul, add) ARITH_PAIR(mul, sub) ARITH_PAIR(mul, mul)
#undef ARITH_PAIR
#undef IMM_STEP_add
#undef IMM_STEP_sub
#undef IMM_STEP_mul

/* The scheduler marks the mailbox as waiting once it is done with p: from
 * then on a sender may wake p and another thread may run it. */
suspend:
    p->pc = pc;
    p->cp = cp;
    p->reds = reds;
    p->arity = wait_live;            /* the scheduler keeps x0..x(live-1), as
                                        for a yield; a GC before it resumes
                                        takes them as roots */
    return RUN_WAIT;

/* The collector could not give the process the room it needs (gc.h): it
 * dies here, before it writes past its heap; sched.c sees out_of_memory. */
out_of_memory:
exit_by_signal:
    p->pc = pc;
    p->cp = cp;
    p->reds = reds;
    return RUN_EXIT;

/* ---- calls through export entries, funs and apply ---- */
do_call_export:
    if ((code = export_code(ep))) ENTER(code, arity);
    if (ep->bif) {
        p->live = arity;
        p->reds = reds;
        p->pc = pc;                  /* where we are, for process_info */
        p->cp = cp;
        Term r = ep->bif->fn(p, x);
        reds = p->reds;
        LOAD_E();
        if (__builtin_expect(p->out_of_memory, 0)) goto out_of_memory;
        if (r == THE_NON_VALUE) {
            if (p->exc_trace != THE_NON_VALUE) goto unwind; /* raise/3 gave the trace */
            if (p->exc_class == EXC_ERROR && ep->bif->fn != bif_error_1 && ep->bif->fn != bif_error_2)
                top_frame = tuple4(p, ep->module, ep->name, args_list(p, x, arity), NIL);
            RAISE();
        }
        x[0] = r;
        reds--;
        pc = cp;
        NEXT();
    }
    if (ep->special == EXPORT_APPLY3) {
        Term m = x[0], f = x[1];
        int n = unpack_args(x, x[2], 0);
        if (n < 0 || !is_atom(m) || !is_atom(f)) ERROR(AM_badarg);
        ep = export_get(m, f, n);
        arity = n;
        goto do_call_export;
    }
    if (ep->special == EXPORT_APPLY2) {
        Term f = x[0];
        int n = unpack_args(x, x[1], 0);
        if (n < 0) ERROR(AM_badarg);
        x[n] = f;
        arity = n;
        goto do_call_fun;
    }
    if (ep->special == EXPORT_HIBERNATE) {
        /* The stack goes (catches too), and the process waits in
         * hibernate_code with a full collection due when it wakes: what a
         * hibernating process keeps is its M, F, A and its queue. */
        if (!is_atom(x[0]) || !is_atom(x[1]) || unpack_args(x, x[2], 3) < 0) {
            top_frame = tuple4(p, ep->module, ep->name, args_list(p, x, 3), NIL);
            ERROR(AM_badarg);
        }
        p->stop = E = p->hend;
        cp = normal_exit_code;
        p->gc_requested = GC_REQUEST_FULL;
        mailbox_rewind(&p->mbox);
        pc = hibernate_code;
        arity = 3;
        NEXT();
    }
    if (module_ensure_loaded(ep->module) && (code = export_code(ep))) ENTER(code, arity);
    top_frame = tuple4(p, ep->module, ep->name, args_list(p, x, arity), NIL);
    /* a module that could not be loaded for want of atoms: Erlang's error
     * for a full table */
    raise_error(p, atom_count() >= atom_limit() && !module_find(ep->module)
                       ? ATOM_TERM(system_limit) : ATOM_TERM(undef));
    RAISE();

do_call_fun: {
    Term f = x[arity];
    if (is_boxed(f) && boxed_kind(f) == BOXED_FUN) {
        const FunEntry *fe = (const FunEntry *)boxed_ptr(f)[1];
        if (fe->arity != arity) {
            ERROR(tuple2(p, ATOM_TERM(badarity), tuple2(p, f, args_list(p, x, arity))));
        }
        int nfree = (int)header_arity(boxed_ptr(f)[0]) - 1;
        for (int i = 0; i < nfree; i++) x[arity + i] = boxed_ptr(f)[2 + i];
        ENTER(fe->code, arity + nfree);
    }
    if (is_boxed(f) && boxed_kind(f) == BOXED_EXPORT) {
        ep = (Export *)boxed_ptr(f)[1];
        if (ep->arity != arity)
            ERROR(tuple2(p, ATOM_TERM(badarity), tuple2(p, f, args_list(p, x, arity))));
        goto do_call_export;
    }
    ERROR(tuple2(p, ATOM_TERM(badfun), f));
}

do_apply: {
    Term m = x[arity], f = x[arity + 1];
    if (!is_atom(m) || !is_atom(f)) ERROR(AM_badarg);
    ep = export_get(m, f, arity);
    goto do_call_export;
}

yield:
    p->pc = pc;
    p->cp = cp;
    p->arity = arity;
    p->reds = 0;
    return RUN_YIELD;

/* ---- exceptions ---- */
raise:
    /* A throw that a `catch` takes (its value is the thrown term) has no
     * use for a trace, and building one (locating each frame's function
     * and line, a list of tuples) cost more than the rest of the throw */
    marker = newest_catch(p, &frame);
    p->exc_trace = p->exc_class == EXC_THROW && marker &&
                   *catch_val(*marker) == (Instr)handler_table[OP_catch_end]
                 ? NIL : build_trace(p, pc, cp, top_frame);
    top_frame = THE_NON_VALUE;
    if (marker) goto to_handler;
    goto uncaught;
unwind:
    marker = newest_catch(p, &frame);
    if (!marker) goto uncaught;
to_handler:
    p->stop = E = frame;
    pc = catch_val(*marker);
    cp = cp_val(frame[0]);
    x[0] = THE_NON_VALUE;
    x[1] = exception_class_atom(p->exc_class);
    x[2] = p->exc_reason;
    x[3] = p->exc_trace;
    NEXT();
uncaught:
    p->pc = pc;
    p->cp = cp;
    p->reds = reds;
    return RUN_EXCEPTION;
}
