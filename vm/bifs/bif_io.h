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
/* The shell's reader (shell_reader.c) takes the same lock around readline,
 * and while a prompt is shown installs hooks that run, under the lock,
 * before and after each write (given the text), to redraw the prompt. */
typedef void (*IoHook)(const char *s, size_t n);
void io_lock(void);
void io_unlock(void);
void io_set_hooks_locked(IoHook before, IoHook after);
/* Whether the terminal takes UTF-8 (the interactive shell sets it, as erl's
 * shell device is unicode there): characters 128..255, which Mini's text
 * buffers hold as single Latin-1 bytes, are then written as UTF-8. */
void io_set_unicode_out(int on);
/* Flushes and ends the program with this status (halt/0,1). */
void io_halt(int status) __attribute__((noreturn));

#endif
