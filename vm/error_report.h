/* error_report.h — exceptions in Erlang's words, for the user to read:
 * `** exception error: no match of right hand side value 2` and the stack
 * trace lines beneath it, as the Erlang shell prints them. */
#ifndef MINI_ERROR_REPORT_H
#define MINI_ERROR_REPORT_H

#include "process.h"
#include "outbuf.h"

/* Appends the report of exception (class, reason, trace) to b. */
void error_format(OutBuf *b, int cls, Term reason, Term trace);
/* Appends `=ERROR REPORT==== <date> ===` and a newline, as OTP's logger. */
void error_report_header(OutBuf *b);
/* The modules that run the shell ('$shell_eval_N', shell, init): the
 * shell's report leaves their trailing frames out. */
int error_is_shell_module(Term m);
/* A throwaway module that holds an expression typed at the shell: like
 * erl_eval's interpreted code, it has no frames in stack traces. */
int error_is_shell_code(Term m);
/* Prints the process's uncaught exception to stderr. */
void report_uncaught(Process *p);

#endif
