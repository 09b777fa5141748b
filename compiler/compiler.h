/* compiler.h — the compiler as the VM sees it: source text in, a compiled
 * module (vm/bytecode.h) out. This is the only compiler header a VM file
 * includes; the VM loads what comes back (loader.h).
 *
 * Errors are printed as `file:line:col: message` with the source line and a
 * caret, to stderr, or handed to the shell's callback; bad input of any kind
 * yields NULL or an error status, never a crash. The result lives in Boehm
 * memory, as does everything the compiler makes.
 */
#ifndef MINI_COMPILER_H
#define MINI_COMPILER_H

#include <stddef.h>
#include <stdio.h>
#include "bytecode.h"

/* Compiles one module's source text. expect, when not NULL, is the module
 * name the file must declare (a module loaded by name). NULL after printing
 * the errors. */
CodeModule *compiler_compile_module(const char *file, const char *src, size_t len,
                                    const char *expect);

/* Where the next compiles on the calling thread print erlc's warnings
 * (unused variables and functions, shadowed variables), NULL for nowhere:
 * the shell's c/1,2 ask for them on standard output, as erl's c/1 and erlc
 * print them; `mini file.mini` on standard error, since standard output is
 * the program's; modules loaded by name from the code path do not ask. A
 * module name that does not match the file's goes there too, after the
 * warnings, as erl's c/1 reports it. compiler_warnings_off (-W0) silences
 * the warnings. */
void compiler_warnings_want(FILE *to);
extern int compiler_warnings_off;

/* Where -include and -include_lib look (compiler/include.c has the order):
 * `-I DIR` directories, the code path, and the library root whose App/
 * folders include_lib("App/...") names. Set at start-up, before any thread
 * compiles. */
/* Is name/arity one of Erlang's auto-imported BIFs (autoimport.def)? The
 * error reports write those without `erlang:`. */
int compiler_is_autoimported(const char *name, int arity);
void compiler_include_dir_add(const char *dir);
void compiler_code_dir_add(const char *dir);
void compiler_lib_root_set(const char *dir);
/* More -include directories for the compiles on the calling thread until
 * the next call (n = 0 clears): the shell's c(File, [{i, Dir}]). */
void compiler_include_dirs_extra(const char *const *dirs, int n);

/* ---- the shell ---- */

typedef enum {
    SHELL_OK,            /* code: a module whose '$eval'/N runs the line */
    SHELL_INCOMPLETE,    /* the text ends before the final '.': read more */
    SHELL_SYNTAX_ERROR,  /* erl does not count the command */
    SHELL_LINT_ERROR,    /* erl counts it */
    SHELL_SPECIAL,       /* the whole line is f(), f(X), b() or v(N) */
    SHELL_PIECES         /* a command among other expressions: run the pieces */
} ShellStatus;

typedef struct ShellCode {
    CodeModule *code;        /* SHELL_OK */
    char special;            /* SHELL_SPECIAL: 'f', 'b', 'v' or 'r' (rd/2) */
    const char *special_var; /* f(X): "X"; rd(N, D): "-record(N, D).";
                                NULL for f(), b() and v(N) */
    long special_n;          /* v(N): N (a small integer) */
    /* SHELL_PIECES: `X = 1, f(X), X = 2.` as "X = 1.", "f(X).", "X = 2.", to
     * run one after another, as erl's shell runs a line's expressions in
     * order: a command (f(), f(X), b(), v(N), rd(R, D)) changes what the
     * expressions after it see. Each piece keeps its place on the line
     * (the text before it blanked out, newlines kept), so an error names
     * the line and column erl names. */
    const char **pieces;
    int npieces;
} ShellCode;

/* Compiles `Expr, ..., Expr.` typed at the shell, with the names in bound
 * (nbound of them, NUL-terminated) bound, into a fresh module
 *
 *     '$eval'(Bound1, ..., BoundK) -> Expr, ..., '$R' = LastExpr,
 *                                     {'$R', [{'Name', Name} || every name bound after]}.
 *
 * recs (rlen bytes, may be 0) holds the shell's records as -record forms.
 * Local calls that are not auto-imported BIFs become shell_default:F(...)
 * calls, as in Erlang. Each error message goes to diag(ctx, line, col, msg)
 * instead of stderr. text must stay alive as long as the result (Boehm
 * memory): the compiler keeps pointers into it. */
ShellStatus compiler_compile_shell(const char *text, size_t len, const char *recs, size_t rlen,
                                   const char **bound, int nbound,
                                   void (*diag)(void *ctx, int line, int col, const char *msg),
                                   void *ctx, ShellCode *out);

/* Where the first expression sequence of src ends when more follows it on
 * the same input (`X = 1. Y = 2.` at the shell's prompt): the byte offset just
 * after its terminating '.', or 0 when there is only one (or the text does
 * not lex). Prints nothing. */
size_t compiler_shell_split(const char *src, size_t len);

/* A record as the shell keeps it: its fields' names and its -record form
 * as rl() prints it. */
typedef struct ShellRecord {
    const char *name;
    const char **fields; int nfields;
    const char *text;
} ShellRecord;

/* The records a source or include file defines ([0, *n)); NULL after a
 * syntax error, reported to diag(ctx, ...) (or stderr when diag is NULL). */
ShellRecord *compiler_read_records(const char *file, const char *src, size_t len, int *n,
                                   void (*diag)(void *ctx, int line, int col, const char *msg),
                                   void *ctx);

#endif
