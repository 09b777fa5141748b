/* drv_textscan.c — the `textscan` driver: reads files on an async thread
 * and answers with counts, the workload of a report where a linked-in
 * driver reading files got no faster with more cores.
 *
 * A command is a file's name. The driver reads the file on the port's
 * async thread (inline with +A 0) and sends the owner, in the order the
 * commands came,
 *     {Port, {data, {Lines, Words, Bytes, Sample}}}
 * a term rather than bytes: Lines counts newlines, Words maximal runs of
 * bytes other than space, tab, CR and LF, Bytes the file's size, and
 * Sample is an FNV-1a hash (32 bits) of every 64th byte (offsets 0, 64,
 * 128, ...), so that two files of the same shape still differ. A file
 * that cannot be read answers {Port, {data, {error, Posix}}}.
 *
 * Controls, for a program that needs files to scan (the `file` module is
 * not needed for it); each replies "ok" or the error's name:
 *   1  Data is a directory template ending in XXXXXX: mkdtemp; replies the
 *      directory made
 *   2  Data is "Path\0Contents": writes the file
 *   3  Data is a path: deletes the file
 *   4  Data is a path: removes the (empty) directory
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "atom.h"
#include "textscan_count.h"

typedef struct Scan { DrvPort *port; } Scan;

typedef struct ScanJob {
    int err;                       /* errno, 0 if read */
    unsigned long lines, words, bytes;
    uint32_t sample;
    char path[];
} ScanJob;

static void *scan_start(DrvPort *port, const char *command, const DrvOpts *opts, Term *err) {
    (void)command; (void)opts; (void)err;
    Scan *s = malloc(sizeof *s);
    if (s) s->port = port;
    return s;
}

static void scan_stop(void *drv) { free(drv); }

/* On the async thread: only the job's own memory is touched. */
static void scan_work(void *data) {
    ScanJob *j = data;
    int fd = open(j->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { j->err = errno; return; }
    enum { CHUNK = 64 * 1024 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) { close(fd); j->err = ENOMEM; return; }
    unsigned long lines = 0, words = 0, off = 0;
    uint32_t h = 2166136261u;
    int in_word = 0;
    for (;;) {
        ssize_t n = read(fd, buf, CHUNK);
        if (n < 0) { if (errno == EINTR) continue; j->err = errno; break; }
        if (n == 0) break;
        textscan_count(buf, (size_t)n, &lines, &words, &in_word);
        /* every 64th byte of the file: offsets 0, 64, ... */
        for (unsigned long k = (64 - off % 64) % 64; k < (unsigned long)n; k += 64) {
            h ^= buf[k];
            h *= 16777619u;
        }
        off += (unsigned long)n;
    }
    free(buf);
    close(fd);
    j->lines = lines; j->words = words; j->bytes = off; j->sample = h;
}

static Term count_term(unsigned long n) { return make_small((SWord)n); }

static const char *errno_name(int e) {
    switch (e) {
    case ENOENT: return "enoent";
    case EACCES: return "eacces";
    case EISDIR: return "eisdir";
    case ENOTDIR: return "enotdir";
    case ENOTEMPTY: return "eexist";     /* Erlang's name for it */
    case EEXIST: return "eexist";
    case ENOMEM: return "enomem";
    case EINVAL: return "einval";
    default: return "eio";
    }
}

static void scan_ready(void *drv, void *data) {
    Scan *s = drv;
    ScanJob *j = data;
    Term *hp = driver_heap(s->port, 5 + 3);
    if (j->err) {
        hp[0] = make_tuple_header(2); hp[1] = ATOM_TERM(error);
        hp[2] = atom_intern_cstr(errno_name(j->err));
    } else {
        hp[0] = make_tuple_header(4); hp[1] = count_term(j->lines); hp[2] = count_term(j->words);
        hp[3] = count_term(j->bytes); hp[4] = make_small(j->sample);
    }
    Term r = make_boxed(hp);
    hp[5] = make_tuple_header(2); hp[6] = ATOM_TERM(data); hp[7] = r;
    driver_output_term(s->port, make_boxed(hp + 5));
    free(j);
}

static void scan_output(void *drv, const char *buf, size_t len) {
    Scan *s = drv;
    ScanJob *j = calloc(1, sizeof *j + len + 1);
    if (!j) { driver_failure(s->port, ATOM_TERM(enomem)); return; }
    memcpy(j->path, buf, len);
    if (memchr(buf, 0, len)) j->err = ENOENT;        /* no such name on disk */
    if (driver_async(s->port, scan_work, j, free) < 0) {
        free(j);
        driver_failure(s->port, ATOM_TERM(enomem));
    }
}

/* A reply of text: "ok", a directory's name, or an error's name. */
static long reply_text(DrvBuf *reply, const char *text) {
    size_t n = strlen(text);
    if (n > reply->size && !(reply->buf = malloc(n))) return -1;
    memcpy(reply->buf, text, n);
    return (long)n;
}

static long scan_control(void *drv, unsigned cmd, const char *buf, size_t len, DrvBuf *reply) {
    (void)drv;
    char *arg = malloc(len + 1);
    if (!arg) return -1;
    memcpy(arg, buf, len);
    arg[len] = 0;
    long r = -1;
    int ok = 0;
    switch (cmd) {
    case 1:
        if (len >= 6 && mkdtemp(arg)) { r = reply_text(reply, arg); free(arg); return r; }
        break;
    case 2: {
        size_t plen = strlen(arg);
        if (plen == len) { errno = EINVAL; break; }
        int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) break;
        const char *p = buf + plen + 1;
        size_t left = len - plen - 1;
        ok = 1;
        while (left > 0) {
            ssize_t w = write(fd, p, left);
            if (w < 0) { if (errno == EINTR) continue; ok = 0; break; }
            p += w; left -= (size_t)w;
        }
        if (close(fd) != 0) ok = 0;
        break;
    }
    case 3: ok = unlink(arg) == 0; break;
    case 4: ok = rmdir(arg) == 0; break;
    default:
        free(arg);
        return -1;
    }
    free(arg);
    return reply_text(reply, ok ? "ok" : errno_name(errno));
}

const DrvEntry drv_textscan = {
    .name = "textscan",
    .start = scan_start,
    .stop = scan_stop,
    .output = scan_output,
    .control = scan_control,
    .ready_async = scan_ready,
};
