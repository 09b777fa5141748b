/* job_control.h — erl's user switch menu (Ctrl-G) over several shells.
 *
 * A job is a shell process (stdlib/shell.mini). Every shell asks the reader
 * for its lines with erlang:'$shell_read'/2; job_control decides whose
 * request the terminal serves: the current job's, and nobody's while the
 * menu is open. The others' requests wait until `c N` connects to them.
 * The menu runs on the reader thread with the output lock held, as every
 * readline call does (shell_reader.c). */
#ifndef MINI_JOB_CONTROL_H
#define MINI_JOB_CONTROL_H

#include "process.h"

/* From '$shell_read': p wants a line after prompt. Returns 1 if the reader
 * should read it now (p is the current job and the menu is closed), 0 if
 * the request waits. */
int job_read_request(Process *p, const char *prompt, int continued);
/* The current job got its line (or an interrupt): it no longer waits. */
void job_delivered(void);
/* Binds Ctrl-G in readline (terminal only). */
void job_control_init(void);
/* In the reader's line handler: 1 if Ctrl-G ended the line, and the menu is
 * now open (the line is dropped). Output lock held. */
int job_menu_take_locked(void);
/* Ctrl-D on an empty line: 1 if it opened the menu instead of ending the
 * shell (a job other than the first, which ends Mini). Output lock held. */
int job_eof_locked(void);
/* Ctrl-C: 1 if the menu is open (it shows its prompt again). Lock held. */
int job_interrupt_locked(void);

/* shell_reader.c's side, for the menu: post a request to the reader, and
 * show a prompt whose lines go to handler (NULL: stop reading). */
void reader_post(Term pid, const char *prompt, int continued);
void reader_prompt_locked(const char *prompt, void (*handler)(char *));

#endif
