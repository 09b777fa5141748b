/* bif_file.h — the file primitives' one link to process lifetime.
 *
 * An open file is a FileHandle on the list of the process that opened it
 * (p->files); only that process may use it, and when it dies proc_exit
 * closes every handle still on the list, so a descriptor never outlives its
 * owner whatever the way it died. */
#ifndef MINI_BIF_FILE_H
#define MINI_BIF_FILE_H

#include "process.h"
#include "outbuf.h"

/* Closes (flushing delayed writes) every file p still has open. */
void file_close_all(Process *p);

/* The path of a file name term (string, deep list of characters and atoms,
 * atom or binary; characters above 127 as UTF-8) in b, NUL-terminated: 0,
 * or -1 (b then needs no freeing) when it is not a file name. */
int file_name(OutBuf *b, Term t);
/* The UTF-8 text s[0..n) as a character list (a byte that is not part of
 * UTF-8 stands for itself), as Erlang returns file names. */
Term file_text_to_list(Process *p, const char *s, size_t n);

/* Holds (1) or lets go (0) the environment's lock for reading: the spawn
 * driver copies `environ` for a program under it (bif_os.c). */
void os_env_read_lock(int lock);

#endif
