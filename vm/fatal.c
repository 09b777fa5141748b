/* fatal.c — the one place the VM stops on an error it cannot go on after
 * (fatal.h says which errors those are). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fatal.h"

void fatal_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mini: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
