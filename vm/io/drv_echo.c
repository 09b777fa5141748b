/* drv_echo.c — the `echo` driver: the smallest driver there is, for tests
 * and as the example in docs/drivers.md. It behaves as `cat` does behind
 * {spawn, "cat"}: every command comes back to the owner as
 * {Port, {data, Data}}. Its controls exercise the rest of the interface:
 *   1  the data back as the reply
 *   2  the data back upper-cased
 *   3  driver_failure with the data as an atom: the port closes with it
 *   4  the data back as {Port, {data, Data}}, but through an async job
 * any other: badarg.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "atom.h"

typedef struct Echo { DrvPort *port; } Echo;

static void *echo_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)command; (void)opts; (void)err;
    Echo *e = malloc(sizeof *e);
    if (e) e->port = port;
    return e;
}

static void echo_stop(void *drv) { free(drv); }

static void echo_output(void *drv, const char *buf, size_t len) {
    Echo *e = drv;
    driver_output(e->port, buf, len);
}

typedef struct EchoJob { size_t len; char bytes[]; } EchoJob;

static void echo_work(void *data) { (void)data; }      /* the copy is the work */

static void echo_ready(void *drv, void *data) {
    Echo *e = drv;
    EchoJob *j = data;
    driver_output(e->port, j->bytes, j->len);
    free(j);
}

static long echo_control(void *drv, unsigned cmd, const char *buf, size_t len, DrvBuf *reply) {
    Echo *e = drv;
    switch (cmd) {
    case 1: case 2:
        if (len > reply->size && !(reply->buf = malloc(len))) return -1;
        for (size_t i = 0; i < len; i++)
            reply->buf[i] = cmd == 2 ? (char)toupper((unsigned char)buf[i]) : buf[i];
        return (long)len;
    case 3: {
        char name[256];
        size_t n = len < sizeof name - 1 ? len : sizeof name - 1;
        memcpy(name, buf, n);
        name[n] = 0;
        driver_failure(e->port, atom_intern_cstr(name));
        return 0;
    }
    case 4: {
        EchoJob *j = malloc(sizeof *j + len);
        if (!j) return -1;
        j->len = len;
        memcpy(j->bytes, buf, len);
        if (driver_async(e->port, echo_work, j, free) < 0) { free(j); return -1; }
        return 0;
    }
    default:
        return -1;
    }
}

const DrvEntry drv_echo = {
    .name = "echo",
    .start = echo_start,
    .stop = echo_stop,
    .output = echo_output,
    .control = echo_control,
    .ready_async = echo_ready,
};
