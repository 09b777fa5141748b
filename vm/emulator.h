/* emulator.h — the bytecode interpreter loop.
 *
 * emulator_run() runs one process until it finishes, raises an exception
 * nobody catches, runs out of reductions (it then saves pc, cp and its live
 * x registers in the process and returns, to be resumed later by calling
 * emulator_run again), or waits for a message. Erlang recursion never
 * recurses in C: calls are jumps and frames live on the process stack.
 */
#ifndef MINI_EMULATOR_H
#define MINI_EMULATOR_H

#include "process.h"
#include "module.h"

#define REDUCTIONS_PER_SLICE 4000  /* Erlang's budget per time slice */

typedef enum {
    RUN_DONE,        /* the first function returned: normal exit      */
    RUN_EXCEPTION,   /* uncaught exception in p->exc_class/reason/trace */
    RUN_YIELD,       /* reductions used up; runnable again            */
    RUN_WAIT,        /* wants to wait in receive: the scheduler marks
                        its mailbox (mailbox_try_wait) when done with it */
    RUN_EXIT         /* killed by a signal: reason in p->exit_reason  */
} RunResult;

/* Runs p with p->reds reductions (a full slice if 0); leaves what is left
 * of them in p->reds. */
RunResult emulator_run(Process *p);

/* The handler address of every opcode, for the loader. */
const void *const *emulator_handlers(void);

/* Sets up p to call export e with p->x[0..arity-1] as arguments. */
void emulator_setup_call(Process *p, Export *e, int arity);
/* erlang:hibernate/3 wakes through erlang:apply/3 (module.c gives its export) */
void emulator_set_hibernate_apply(Export *apply3);

/* The class atom of an exception class (EXC_*). */
Term exception_class_atom(int cls);

#endif
