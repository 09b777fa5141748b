/* outbuf.h — a growable byte buffer for building text (term printing,
 * io:format). Memory is malloc'ed and owned by the buffer: ob_free() it. */
#ifndef MINI_OUTBUF_H
#define MINI_OUTBUF_H

#include <stddef.h>

typedef struct OutBuf {
    char *buf;
    size_t len, cap;
    int soft;                  /* ob_init_soft: memory refused sets failed */
    int failed;
} OutBuf;

/* Memory refused while growing a buffer stops the VM, unless the buffer was
 * made with ob_init_soft: then `failed` is set, what was written is dropped
 * and later writes are too, and the caller (a BIF building a result as big
 * as its input) checks `failed` and gives up. */
void ob_init(OutBuf *b);
void ob_init_soft(OutBuf *b);
void ob_free(OutBuf *b);
void ob_reserve(OutBuf *b, size_t extra);       /* room for `extra` more bytes */
void ob_write(OutBuf *b, const char *s, size_t n);
void ob_puts(OutBuf *b, const char *s);
void ob_pad(OutBuf *b, int c, size_t n);         /* n copies of byte c          */
void ob_printf(OutBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ob_cstr(OutBuf *b);                  /* NUL-terminated view          */
/* A writer's own scratch memory (a big integer's digits) was refused: as a
 * refused growth, `failed` for a soft buffer, else the VM stops. */
void ob_refused(OutBuf *b, size_t bytes);

static inline void ob_putc(OutBuf *b, int c) {
    if (b->len + 1 >= b->cap) {
        ob_reserve(b, 1);
        if (b->len + 1 >= b->cap) return;         /* failed (soft) */
    }
    b->buf[b->len++] = (char)c;
}

#endif
