/* bif_io.h — the one path by which Mini writes to standard output.
 * Every io call hands its whole text to io_write_out() at once, under one
 * lock, so the output of two processes never interleaves inside a call. */
#ifndef MINI_BIF_IO_H
#define MINI_BIF_IO_H

#include <stddef.h>

/* Writes s[0..n) to stdout (fwrite + fflush) under the output lock. */
void io_write_out(const char *s, size_t n);
/* Flushes stdout and stderr under the output lock. */
void io_write_err(const char *s, size_t n);
void io_flush(void);
/* Flushes and ends the program with this status (halt/0,1). */
void io_halt(int status) __attribute__((noreturn));

#endif
