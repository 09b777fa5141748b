/* outbuf.c — growable byte buffer (see outbuf.h). */
#include "outbuf.h"
#include "fatal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ob_init(OutBuf *b) { b->buf = NULL; b->len = b->cap = 0; b->soft = b->failed = 0; }

void ob_init_soft(OutBuf *b) { ob_init(b); b->soft = 1; }

void ob_free(OutBuf *b) { int soft = b->soft; free(b->buf); ob_init(b); b->soft = soft; }

void ob_reserve(OutBuf *b, size_t extra) {
    size_t need = extra < (size_t)-1 / 2 ? b->len + extra + 1 : (size_t)-1;   /* +1: a NUL */
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need && cap <= (size_t)-1 / 2) cap *= 2;
    if (cap < need) cap = need;
    char *nb = need < b->len ? NULL : realloc(b->buf, cap);   /* need < len: wrapped */
    if (!nb && b->soft && !b->buf && (b->buf = malloc(64)))
        b->cap = 64;
    if (!nb && b->soft && b->buf) {
        /* the old buffer stays valid: keep it for the failed writes */
        b->failed = 1;
        b->len = 0;
        return;
    }
    if (!nb) FATAL("out of memory for an output buffer of %zu bytes", cap);
    b->buf = nb;
    b->cap = cap;
}

void ob_refused(OutBuf *b, size_t bytes) {
    if (!b->soft) FATAL("out of memory for %zu bytes of text", bytes);
    b->failed = 1;
    b->len = 0;
}

void ob_write(OutBuf *b, const char *s, size_t n) {
    if (!n) return;
    ob_reserve(b, n);
    if (b->len + n >= b->cap) return;             /* failed (soft) */
    memcpy(b->buf + b->len, s, n);
    b->len += n;
}

void ob_puts(OutBuf *b, const char *s) { ob_write(b, s, strlen(s)); }

void ob_pad(OutBuf *b, int c, size_t n) {
    if (!n) return;
    ob_reserve(b, n);
    if (b->len + n >= b->cap) return;             /* failed (soft) */
    memset(b->buf + b->len, c, n);
    b->len += n;
}

void ob_printf(OutBuf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) { ob_write(b, tmp, (size_t)n); return; }
    ob_reserve(b, (size_t)n);
    if (b->len + (size_t)n >= b->cap) return;     /* failed (soft) */
    va_start(ap, fmt);
    vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *ob_cstr(OutBuf *b) {
    ob_reserve(b, 0);
    b->buf[b->len] = '\0';
    return b->buf;
}
