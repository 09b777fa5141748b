/* shell.h — the C side of the interactive shell: the reader thread
 * (shell_reader.c) and the compiling of shell expressions (shell_eval.c).
 * The shell itself is a Mini process: stdlib/shell.mini. */
#ifndef MINI_SHELL_H
#define MINI_SHELL_H

#include "process.h"
#include "outbuf.h"

/* 1 when standard input and output are a terminal (readline is used). */
int shell_reader_interactive(void);
/* Starts the reader thread, which sends input lines to the process that
 * asks for them (erlang:'$shell_read'/2); the banner is the shell's first line. */
void shell_reader_start(const char *banner);

/* A list of character codes as text in b (UTF-8 above 127); -1 if not one. */
int shell_list_to_text(Term l, OutBuf *b);
/* Bytes as a list of character codes on p's heap. */
Term shell_text_to_list(Process *p, const char *s, size_t n);

#endif
