/* shell_pieces.c — cutting a shell line into the pieces that run one after
 * another (compile.c, SHELL_PIECES): the commas between its top-level
 * expressions, found on the line's tokens, so that commas inside brackets,
 * blocks, strings and comments do not count, and the pieces' texts, each in
 * its place on the line. */
#include <string.h>

#include "frontend.h"
#include "lex.h"
#include "parser.h"

/* Whether the token opens or closes a bracket or a block. `fun` opens a
 * block (closed by `end`) only as `fun (` or `fun Name(`: `fun m:f/1` does
 * not. */
static int opens(const Token *t) {
    switch (t->kind) {
    case '(': case '[': case '{': case T_LTLT:
    case T_BEGIN: case T_CASE: case T_IF: case T_RECEIVE: case T_TRY:
        return 1;
    case T_FUN:
        return t[1].kind == '(' || (t[1].kind == T_VAR && t[2].kind == '(');
    default:
        return 0;
    }
}

static int closes(const Token *t) {
    return t->kind == ')' || t->kind == ']' || t->kind == '}' || t->kind == T_GTGT ||
           t->kind == T_END;
}

/* The byte offset of a 1-based line and column counted in characters (the
 * lexer's way: UTF-8 continuation bytes do not advance the column). */
static size_t offset_of(const char *text, size_t len, int line, int col) {
    size_t i = 0;
    for (int l = 1; l < line && i < len; i++)
        if (text[i] == '\n') l++;
    for (int c = 1; i < len && (c < col || (text[i] & 0xC0) == 0x80); i++)
        if ((text[i] & 0xC0) != 0x80) c++;
    return i;
}

int shell_top_commas(const char *text, size_t len, size_t *offs, int max) {
    Source s = { .file = "shell", .src = text, .len = len, .quiet_eof = 1 };
    TokVec tv = {0};
    if (!lex_source(&s, &tv)) return -1;
    int depth = 0, n = 0;
    /* the lexer ends the vector with an end token (kind 0), so t[1] and
     * t[2] exist wherever `fun` does */
    for (int i = 0; i < tv.n && tv.v[i].kind; i++) {
        const Token *t = &tv.v[i];
        if (opens(t)) depth++;
        else if (closes(t)) depth--;
        else if (t->kind == ',' && depth == 0 && n < max)
            offs[n++] = offset_of(text, len, t->line, t->col);
    }
    return n;
}

/* text[from, to) with every character before `from` blanked out to one
 * space (newlines kept, so lines and columns stay), then `tail` */
char *shell_piece_text(const char *text, size_t from, size_t to, const char *tail) {
    size_t nt = strlen(tail), k = 0;
    char *r = ast_alloc(to + nt + 1);
    for (size_t i = 0; i < from; i++)
        if ((text[i] & 0xC0) != 0x80) r[k++] = text[i] == '\n' ? '\n' : ' ';
    memcpy(r + k, text + from, to - from);
    memcpy(r + k + (to - from), tail, nt + 1);
    return r;
}
