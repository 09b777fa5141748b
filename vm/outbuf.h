/* outbuf.h — a growable byte buffer for building text (term printing,
 * io:format). Memory is malloc'ed and owned by the buffer: ob_free() it. */
#ifndef MINI_OUTBUF_H
#define MINI_OUTBUF_H

#include <stddef.h>

typedef struct OutBuf {
    char *buf;
    size_t len, cap;
} OutBuf;

void ob_init(OutBuf *b);
void ob_free(OutBuf *b);
void ob_reserve(OutBuf *b, size_t extra);       /* room for `extra` more bytes */
void ob_write(OutBuf *b, const char *s, size_t n);
void ob_puts(OutBuf *b, const char *s);
void ob_pad(OutBuf *b, int c, size_t n);         /* n copies of byte c          */
void ob_printf(OutBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ob_cstr(OutBuf *b);                  /* NUL-terminated view          */

static inline void ob_putc(OutBuf *b, int c) {
    if (b->len + 1 >= b->cap) ob_reserve(b, 1);
    b->buf[b->len++] = (char)c;
}

#endif
