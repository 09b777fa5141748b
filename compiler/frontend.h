/* frontend.h — the compiler's front end: source text to a checked AST.
 *
 * parse_module() runs the flex lexer, the macro expander and the bison parser
 * over one file's text; check_module() then looks for the errors Erlang's
 * compiler reports (unbound and unsafe variables, undefined functions, ...).
 * Both print every problem as `file:line:col: message`, followed by the
 * source line and a caret, to stderr, and never abort the program: bad input
 * of any kind yields an error count, not a crash.
 */
#ifndef MINI_FRONTEND_H
#define MINI_FRONTEND_H

#include "ast.h"
#include <stdio.h>

/* Parses a whole module. Returns NULL after printing errors. */
Module *parse_module(const char *file, const char *src, size_t len);

/* Parses a sequence of expressions separated by ',' and ended by '.', as the
 * shell and `-eval` read them. Returns NULL after printing errors; sets
 * *incomplete (when not NULL) to 1 instead of printing when the text ends
 * before the final '.', so the shell can ask for more lines. */
Expr **parse_exprs(const char *file, const char *src, size_t len, int *nexprs,
                   int *incomplete);

/* Checks a parsed module; prints each error; returns the number of errors. */
int check_module(Module *m);
/* Prints erlc's warnings for a module that checked clean (warnings.c) on
 * `to`; returns their number. */
int warnings_module(Module *m, FILE *to);
/* The byte offsets of the commas between a shell line's top-level
 * expressions (at most max; -1 when the line does not lex), and a piece of
 * the line in its place: text[from, to) after blanks for what comes before
 * it, then tail (shell_pieces.c). */
int shell_top_commas(const char *text, size_t len, size_t *offs, int max);
char *shell_piece_text(const char *text, size_t from, size_t to, const char *tail);
/* Checks the shell's expressions with `bound` names bound (m gives the file
 * name and source for messages); *after gets the names bound afterwards. */
int check_exprs(Module *m, Expr **body, int n, const char **bound, int nbound,
                const char ***after, int *nafter);

/* When set (per thread: the shell compiles on a scheduler), diag_error hands
 * each message here instead of printing it, so the shell can print
 * `* line:col: message` as erl's shell does. */
extern __thread void (*diag_hook)(void *ctx, int line, int col, const char *msg);
extern __thread void *diag_hook_ctx;

/* Prints `file:line:col: message`, the source line and a caret under col. */
void diag_error(const char *file, const char *src, size_t srclen,
                int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Prints the tree in a readable, stable form (for `mini -P` and tests). */
#include <stdio.h>
void ast_dump(FILE *out, const Module *m);
/* The same for one expression (shell, tests). */
void ast_dump_expr(FILE *out, const Expr *e);

#endif
