/* lex.h — private interface between the pieces of the front end.
 *
 * The front end is a pipeline over token arrays rather than a token stream:
 * lexer.l turns the whole file into a TokVec, macros.c rewrites that vector
 * (-define, ?NAME, -ifdef...), and parse.c cuts the result into forms at each
 * terminating '.' and feeds every form to the bison parser (parser.y) through
 * a pull function. Working on whole arrays keeps macro expansion simple and
 * lets a syntax error in one form leave the others parseable, as erlc does.
 * Nothing here is global: every pass carries its own state, so several
 * threads (the shell, the compiler) may parse at once.
 */
#ifndef MINI_LEX_H
#define MINI_LEX_H

#include <stddef.h>
#include <stdint.h>
#include "ast.h"

typedef struct Token {
    int kind;               /* bison token number (parser.h); 0 at the end   */
    int line, col;          /* first character                              */
    int eline, ecol;        /* just after the last character                */
    const char *text;       /* source spelling, for error messages          */
    const char *name;       /* ATOM, VAR: interned name                     */
    int64_t ival;           /* INTEGER (also $c characters)                 */
    const char *big; int big_base; /* INTEGER too large for int64          */
    double fval;            /* FLOAT                                        */
    const int *str; int len;/* STRING: character codes                      */
} Token;

typedef struct TokVec { Token *v; int n, cap; } TokVec;

void tokvec_push(TokVec *tv, const Token *t);

/* Where diagnostics go, shared by all passes of one parse. */
typedef struct Source {
    const char *file, *src; size_t len;
    int errors;
    int quiet_eof;          /* parse_exprs: running out of text is not an error */
    int incomplete;         /* ... and it happened                              */
} Source;

/* lexer.l: the whole text to tokens, ended by a kind-0 token. Returns 0 and
 * prints (counting in s->errors) on a lexical error. */
int lex_source(Source *s, TokVec *out);

/* macros.c: expands -define/-undef/-ifdef/-ifndef/-else/-endif and ?NAME.
 * Returns 0 after printing errors. */
int macros_expand(Source *s, const TokVec *in, TokVec *out);

/* include.c: the path of an -include (lib: -include_lib) file named name,
 * seen from the file `from`, or NULL; and a file's whole text (NULL if it
 * cannot be read). */
char *include_find(const char *from, const char *name, int lib);
char *include_read(const char *path, size_t *len);

/* Spelling of a token for "syntax error before: X", Erlang style. */
const char *token_describe(const Token *t);

/* Grows a GC-allocated array of pointers; the parser's lists. */
typedef struct Vec { void **items; int n, cap; } Vec;
Vec *vec_new(void);
Vec *vec_push(Vec *v, void *item);

/* One function clause as the parser returns it, before grouping. */
typedef struct FunClause { const Token *name; Clause *clause; } FunClause;

/* What the bison parser works on: one form's tokens plus its results. */
typedef struct ParseState {
    Source *s;
    const Token *toks; int ntoks, pos;
    int start;              /* START_* token handed out first               */
    int started;
    Token eof;              /* returned after the last token                */
    const Token *last;      /* the token most recently handed to bison      */
    int failed;             /* an error was already reported for this form  */
    /* nesting bound (see parse.c) */
    int *levels; int nlevels, caplevels, ops, total;
    /* results */
    Vec *clauses;           /* START_FUNCTION: FunClause*                    */
    const Token *attr;      /* START_ATTR / START_RECORD: the attribute name */
    Vec *args;              /* START_ATTR: Expr*; START_EXPRS: Expr*         */
    const Token *recname;   /* START_RECORD */
    Vec *recfields;         /* START_RECORD: Field*                          */
} ParseState;

int parse_form(ParseState *ps);   /* parser.y: 0 when the form parsed */

#endif
