/* diag.c — error messages with the offending source line and a caret.
 *
 * Every pass of the compiler reports through diag_error, so all messages look
 * alike: `file:line:col: message`, the source line as written (tabs kept),
 * then col-1 spaces and a '^'. Columns count characters, not bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include "frontend.h"

__thread void (*diag_hook)(void *ctx, int line, int col, const char *msg);
__thread void *diag_hook_ctx;

void diag_error(const char *file, const char *src, size_t srclen,
                int line, int col, const char *fmt, ...)
{
    va_list ap;
    /* build the whole message first so concurrent reports do not interleave */
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (diag_hook) { diag_hook(diag_hook_ctx, line, col, msg); return; }

    const char *p = src, *end = src ? src + srclen : NULL;
    int l = 1;
    while (p && p < end && l < line) {
        if (*p++ == '\n') l++;
    }
    const char *q = p;
    if (p && l == line)
        while (q < end && *q != '\n') q++;
    else
        q = p = NULL;

    flockfile(stderr);
    fprintf(stderr, "%s:%d:%d: %s\n", file ? file : "nofile", line, col, msg);
    if (p) fwrite(p, 1, (size_t)(q - p), stderr);
    fputc('\n', stderr);
    for (int i = 1; i < col; i++) fputc(' ', stderr);
    fputs("^\n", stderr);
    funlockfile(stderr);
}
