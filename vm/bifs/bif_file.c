/* bif_file.c — prim_file: the file primitives under stdlib/file.mini.
 *
 * Each BIF is a direct system call (or a short loop of them) made by the
 * calling process on its own scheduler: there is no file server, so two
 * processes reading two files never wait for each other. Results and error
 * atoms are Erlang/OTP's ({error, enoent}, eof, ...); a bad argument gives
 * {error, badarg}, which the library turns into an exception where Erlang
 * raises one.
 *
 * Open files are FileHandles on the owner's list (bif_file.h): the handle the
 * library sees is a small integer id, looked up on the calling process's own
 * list, so no lock is needed and no other process can reach the descriptor.
 * A handle may hold a read-ahead buffer (always used by read_line) and a
 * delayed-write buffer; any operation that needs the true file position
 * first writes out the one and gives back the unread part of the other. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bif.h"
#include "bif_file.h"
#include "binary.h"
#include "outbuf.h"
#include "term_build.h"

#define FM_READ 1
#define FM_WRITE 2
#define FM_APPEND 4
#define FM_EXCL 8
#define FM_READ_AHEAD 16
#define FM_DELAYED 32

#define READ_AHEAD_DEFAULT 65536
#define DELAYED_DEFAULT 65536

typedef struct FileHandle {
    struct FileHandle *next;
    UWord id;
    int fd, mode;
    unsigned char *rbuf;          /* read-ahead: bytes [rpos, rlen) are read  */
    size_t rpos, rlen, rcap;      /* from the file but not yet handed out     */
    unsigned char *wbuf;          /* delayed writes not yet written           */
    size_t wlen, wcap;
} FileHandle;

static atomic_uintptr_t next_id = 1;

/* ---- errors ---- */

static Term posix_atom(int e) {
    const char *s;
    switch (e) {
    case ENOENT: s = "enoent"; break;
    case EISDIR: s = "eisdir"; break;
    case EBADF: s = "ebadf"; break;
    case EINVAL: s = "einval"; break;
    case EEXIST: case ENOTEMPTY: s = "eexist"; break;
    case EPERM: s = "eperm"; break;
    case ENOTDIR: s = "enotdir"; break;
    case EACCES: s = "eacces"; break;
    case ENOSPC: s = "enospc"; break;
    case EMFILE: s = "emfile"; break;
    case ENFILE: s = "enfile"; break;
    case EXDEV: s = "exdev"; break;
    case ELOOP: s = "eloop"; break;
    case ENAMETOOLONG: s = "enametoolong"; break;
    case EROFS: s = "erofs"; break;
    case EBUSY: s = "ebusy"; break;
    case EFBIG: s = "efbig"; break;
    case ENXIO: s = "enxio"; break;
    case ESPIPE: s = "espipe"; break;
    case EAGAIN: s = "eagain"; break;
    case ENOMEM: s = "enomem"; break;
    case EDQUOT: s = "edquot"; break;
    case ENODEV: s = "enodev"; break;
    case ETXTBSY: s = "etxtbsy"; break;
    case EINTR: s = "eintr"; break;
    default: s = "eio"; break;
    }
    return atom_intern_cstr(s);
}

static Term err(Process *p, Term reason) { return tuple2(p, AM_error, reason); }
static Term err_errno(Process *p) { return err(p, posix_atom(errno)); }
#define ERR_BADARG(p) err((p), AM_badarg)

/* ---- file names ---- */

static void put_utf8(OutBuf *b, UWord c) {
    if (c < 0x80) ob_putc(b, (int)c);
    else if (c < 0x800) { ob_putc(b, 0xC0 | (int)(c >> 6)); ob_putc(b, 0x80 | (int)(c & 0x3F)); }
    else if (c < 0x10000) {
        ob_putc(b, 0xE0 | (int)(c >> 12)); ob_putc(b, 0x80 | (int)((c >> 6) & 0x3F));
        ob_putc(b, 0x80 | (int)(c & 0x3F));
    } else {
        ob_putc(b, 0xF0 | (int)(c >> 18)); ob_putc(b, 0x80 | (int)((c >> 12) & 0x3F));
        ob_putc(b, 0x80 | (int)((c >> 6) & 0x3F)); ob_putc(b, 0x80 | (int)(c & 0x3F));
    }
}

static int name_atom(OutBuf *b, Term a) {
    size_t n, i = 0;
    const unsigned char *s = (const unsigned char *)atom_name(a, &n);
    while (i < n) put_utf8(b, atom_text_char(s, n, &i));
    return 0;
}

/* A deep list of characters and atoms (Erlang's flat or deep string name). */
static int name_list(OutBuf *b, Term t, int depth) {
    if (depth > 100) return -1;
    for (; is_list(t); t = list_tail(t)) {
        Term h = list_head(t);
        if (is_small(h)) {
            SWord c = small_val(h);
            if (c <= 0 || c > 0x10FFFF) return -1;
            put_utf8(b, (UWord)c);
        } else if (is_atom(h)) name_atom(b, h);
        else if (is_list(h) || h == NIL) { if (name_list(b, h, depth + 1) < 0) return -1; }
        else return -1;
    }
    return t == NIL ? 0 : -1;
}

/* The path of a file name term (string, deep list, atom or binary) in b,
 * NUL-terminated: 0, or -1 when it is not a file name (badarg). */
int file_name(OutBuf *b, Term t) {
    ob_init(b);
    int r;
    if (is_atom(t)) r = name_atom(b, t);
    else if (is_binary(t)) {
        size_t n;
        const unsigned char *s = bin_bytes(t, &n);
        ob_write(b, (const char *)s, n);
        r = 0;
    } else if (is_list(t) || t == NIL) r = name_list(b, t, 0);
    else r = -1;
    if (r == 0 && b->len && memchr(b->buf, 0, b->len)) r = -1;
    if (r < 0) { ob_free(b); return -1; }
    ob_cstr(b);
    return 0;
}

/* A character list of the UTF-8 text s[0..n) (bytes that are not UTF-8 are
 * taken one by one), as Erlang returns file names. */
Term file_text_to_list(Process *p, const char *s, size_t n) {
    if (n == 0) return NIL;
    Term *hp = heap_alloc(p, 2 * n), *last = NULL;
    Term res = NIL;
    size_t i = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (i < n) {
        UWord c = u[i];
        size_t len = 1;
        if (c >= 0xC0 && c < 0xF8) {
            size_t need = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
            UWord v = c & (0x3F >> need);
            size_t k = 1;
            while (k <= need && i + k < n && (u[i + k] & 0xC0) == 0x80) v = (v << 6) | (u[i + k++] & 0x3F);
            if (k == need + 1) { c = v; len = k; }
        }
        hp[0] = make_small((SWord)c);
        hp[1] = NIL;
        if (last) last[1] = make_list(hp); else res = make_list(hp);
        last = hp;
        hp += 2;
        i += len;
    }
    return res;
}

/* ---- handles ---- */

static FileHandle *handle_find(Process *p, Term id) {
    if (!is_small(id)) return NULL;
    for (FileHandle *h = p->files; h; h = h->next)
        if (h->id == (UWord)small_val(id)) return h;
    return NULL;
}

static int write_all(int fd, const unsigned char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        s += w; n -= (size_t)w;
    }
    return 0;
}

static int handle_flush(FileHandle *h) {
    if (h->wlen == 0) return 0;
    int r = write_all(h->fd, h->wbuf, h->wlen);
    h->wlen = 0;
    return r;
}

/* The kernel's position is the handle's again: pending writes out, unread
 * read-ahead given back. */
static int handle_sync(FileHandle *h) {
    int r = handle_flush(h);
    if (h->rlen > h->rpos) lseek(h->fd, -(off_t)(h->rlen - h->rpos), SEEK_CUR);
    h->rpos = h->rlen = 0;
    return r;
}

static int handle_close(FileHandle *h) {
    int r = handle_flush(h);
    int e = errno;
    if (close(h->fd) < 0 && r == 0) { r = -1; e = errno; }
    free(h->rbuf);
    free(h->wbuf);
    free(h);
    errno = e;
    return r;
}

void file_close_all(Process *p) {
    FileHandle *h = p->files;
    p->files = NULL;
    while (h) {
        FileHandle *next = h->next;
        handle_close(h);
        h = next;
    }
}

/* ---- open modes ---- */

/* Mode bits and buffer sizes from an open/2 mode list; -1 if it is not a
 * proper list of atoms and tuples. */
static int parse_modes(Term modes, int *mode, size_t *ra, size_t *dw) {
    *mode = 0; *ra = READ_AHEAD_DEFAULT; *dw = DELAYED_DEFAULT;
    for (; is_list(modes); modes = list_tail(modes)) {
        Term m = list_head(modes);
        if (is_atom(m)) {
            const char *s = atom_name(m, NULL);
            if (!strcmp(s, "read")) *mode |= FM_READ;
            else if (!strcmp(s, "write")) *mode |= FM_WRITE;
            else if (!strcmp(s, "append")) *mode |= FM_APPEND | FM_WRITE;
            else if (!strcmp(s, "exclusive")) *mode |= FM_EXCL | FM_WRITE;
            else if (!strcmp(s, "read_ahead")) *mode |= FM_READ_AHEAD;
            else if (!strcmp(s, "delayed_write")) *mode |= FM_DELAYED;
            /* others (raw, binary, sync, ...) are not ours, or are
             * ignored as Erlang/OTP 25 ignores an unknown mode */
        } else if (is_tuple(m)) {
            Term *e = boxed_ptr(m);
            UWord n = tuple_arity(m);
            const char *s = n >= 1 && is_atom(e[1]) ? atom_name(e[1], NULL) : "";
            if (n == 2 && !strcmp(s, "read_ahead") && is_small(e[2]) && small_val(e[2]) > 0) {
                *mode |= FM_READ_AHEAD; *ra = (size_t)small_val(e[2]);
            } else if (n == 3 && !strcmp(s, "delayed_write") && is_small(e[2]) && small_val(e[2]) >= 0
                       && is_small(e[3])) {
                *mode |= FM_DELAYED; *dw = (size_t)small_val(e[2]);
            }
            /* {encoding, E} is the library's business; others are ignored */
        } else return -1;
    }
    if (modes != NIL) return -1;
    if (!(*mode & (FM_READ | FM_WRITE))) *mode |= FM_READ;
    if (*ra > (64u << 20)) *ra = 64u << 20;
    if (*dw > (64u << 20)) *dw = 64u << 20;
    return 0;
}

static int open_flags(int mode) {
    int f = O_CLOEXEC;     /* never inherited by a program another module starts */
    if ((mode & FM_READ) && (mode & FM_WRITE)) f |= O_RDWR | O_CREAT;
    else if (mode & FM_WRITE) f |= O_WRONLY | O_CREAT | ((mode & (FM_APPEND | FM_EXCL)) ? 0 : O_TRUNC);
    else f |= O_RDONLY;
    if (mode & FM_APPEND) f |= O_APPEND;
    if (mode & FM_EXCL) f |= O_EXCL;
    return f;
}

/* Opens path; a directory is eisdir whatever the mode, as in Erlang. The
 * file's status is left in *st. */
static int open_stat(const char *path, int flags, struct stat *st) {
    int fd;
    do fd = open(path, flags, 0666); while (fd < 0 && errno == EINTR);
    if (fd < 0) return -1;
    if (fstat(fd, st) < 0) { int e = errno; close(fd); errno = e; return -1; }
    if (S_ISDIR(st->st_mode)) { close(fd); errno = EISDIR; return -1; }
    return fd;
}

static int open_path(const char *path, int flags) {
    struct stat st;
    return open_stat(path, flags, &st);
}

/* prim_file:open(Name, Modes) -> {ok, Id} | {error, Reason} */
Term bif_prim_file_open_2(Process *p, Term *args) {
    OutBuf name;
    int mode;
    size_t ra, dw;
    if (parse_modes(args[1], &mode, &ra, &dw) < 0) return ERR_BADARG(p);
    if (file_name(&name, args[0]) < 0) return ERR_BADARG(p);
    int fd = open_path(name.buf, open_flags(mode));
    ob_free(&name);
    if (fd < 0) return err_errno(p);
    FileHandle *h = calloc(1, sizeof *h);
    if (!h) { close(fd); return err(p, atom_intern_cstr("enomem")); }
    h->fd = fd;
    h->mode = mode;
    h->rcap = ra;
    h->wcap = mode & FM_DELAYED ? dw : 0;
    h->id = atomic_fetch_add(&next_id, 1);
    h->next = p->files;
    p->files = h;
    return tuple2(p, AM_ok, make_small((SWord)h->id));
}

/* prim_file:close(Id) -> ok | {error, Reason} */
Term bif_prim_file_close_1(Process *p, Term *args) {
    for (FileHandle **pp = &p->files; *pp; pp = &(*pp)->next) {
        FileHandle *h = *pp;
        if (is_small(args[0]) && h->id == (UWord)small_val(args[0])) {
            *pp = h->next;
            return handle_close(h) < 0 ? err_errno(p) : AM_ok;
        }
    }
    return err(p, atom_intern_cstr("einval"));
}

#define LOOKUP(p, h, id)                                                   \
    FileHandle *h = handle_find((p), (id));                                \
    if (!h) return err((p), atom_intern_cstr("einval"))

/* read(2) until n bytes or the end: the count read, or -1. */
static ssize_t read_full(int fd, unsigned char *d, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, d + got, n - got);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Fills the read-ahead buffer; the bytes now buffered, or -1. */
static ssize_t handle_fill(FileHandle *h) {
    if (h->rpos > 0 && h->rpos == h->rlen) h->rpos = h->rlen = 0;
    if (!h->rbuf) {
        if (h->rcap < 256) h->rcap = 256;
        h->rbuf = malloc(h->rcap);
        if (!h->rbuf) { errno = ENOMEM; return -1; }
    }
    if (h->rlen == h->rcap) {
        if (h->rpos > 0) {
            memmove(h->rbuf, h->rbuf + h->rpos, h->rlen - h->rpos);
            h->rlen -= h->rpos; h->rpos = 0;
        } else {
            unsigned char *nb = realloc(h->rbuf, h->rcap * 2);
            if (!nb) { errno = ENOMEM; return -1; }
            h->rbuf = nb; h->rcap *= 2;
        }
    }
    ssize_t r;
    do r = read(h->fd, h->rbuf + h->rlen, h->rcap - h->rlen); while (r < 0 && errno == EINTR);
    if (r < 0) return -1;
    h->rlen += (size_t)r;
    return r;
}

/* A large binary was just made. A loop of file BIF calls may run no
 * instruction that collects (nothing else allocates), so dead binaries
 * would pile up by the tens of megabytes and the memory they leave is
 * returned and faulted in again; once they are over the allowance
 * (binary_gc_due), end the time slice and have the scheduler make a minor
 * collection before the process runs again. */
static void binary_made(Process *p) {
    if (binary_gc_due(p)) {
        if (!p->gc_requested) p->gc_requested = GC_REQUEST_MINOR;
        p->reds = 0;
    }
}

/* prim_file:read(Id, N) -> {ok, Binary} | eof | {error, Reason} */
Term bif_prim_file_read_2(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    if (!is_small(args[1]) || small_val(args[1]) < 0) return ERR_BADARG(p);
    if (!(h->mode & FM_READ)) return err(p, atom_intern_cstr("ebadf"));
    if (handle_flush(h) < 0) return err_errno(p);
    size_t n = (size_t)small_val(args[1]);
    size_t buffered = h->rlen - h->rpos;
    if (buffered == 0 && (h->mode & FM_READ_AHEAD) && n < h->rcap) {
        if (handle_fill(h) < 0) return err_errno(p);
        buffered = h->rlen - h->rpos;
    }
    if (buffered >= n) {
        Term b = bin_from_bytes(p, h->rbuf + h->rpos, n);
        h->rpos += n;
        return tuple2(p, AM_ok, b);
    }
    /* the buffered bytes, then the rest straight from the file */
    unsigned char *d;
    Term b = bin_new(p, n, &d);
    if (buffered) memcpy(d, h->rbuf + h->rpos, buffered);
    h->rpos = h->rlen = 0;
    ssize_t got = read_full(h->fd, d + buffered, n - buffered);
    if (got < 0) return err_errno(p);
    got += (ssize_t)buffered;
    p->reds -= got / 4096;
    binary_made(p);
    if (got == 0) return atom_intern_cstr("eof");
    if ((size_t)got < n) b = bin_sub(p, b, 0, (size_t)got);
    return tuple2(p, AM_ok, b);
}

/* prim_file:read_line(Id) -> {ok, Binary} | eof | {error, Reason}: the line
 * with its "\n" ("\r\n" becomes "\n", as in Erlang), or the last bytes. */
Term bif_prim_file_read_line_1(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    if (!(h->mode & FM_READ)) return err(p, atom_intern_cstr("ebadf"));
    if (handle_flush(h) < 0) return err_errno(p);
    size_t scanned = 0;
    for (;;) {
        unsigned char *s = h->rbuf ? h->rbuf + h->rpos : NULL;
        size_t avail = h->rlen - h->rpos;
        unsigned char *nl = avail > scanned ? memchr(s + scanned, '\n', avail - scanned) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - s) + 1;
            Term b;
            if (len >= 2 && nl[-1] == '\r') {
                unsigned char *d;
                b = bin_new(p, len - 1, &d);
                memcpy(d, s, len - 2);
                d[len - 2] = '\n';
            } else b = bin_from_bytes(p, s, len);
            h->rpos += len;
            return tuple2(p, AM_ok, b);
        }
        scanned = avail;                 /* relative to rpos, which a fill keeps */
        ssize_t r = handle_fill(h);
        if (r < 0) return err_errno(p);
        if (r == 0) {
            avail = h->rlen - h->rpos;
            if (avail == 0) return atom_intern_cstr("eof");
            Term b = bin_from_bytes(p, h->rbuf + h->rpos, avail);
            h->rpos = h->rlen;
            return tuple2(p, AM_ok, b);
        }
    }
}

/* The bytes of iodata: a pointer into a binary, or into b. -1 if not iodata. */
static int iodata_bytes(Term t, OutBuf *b, const unsigned char **s, size_t *n) {
    ob_init(b);
    if (is_binary(t)) { *s = bin_bytes(t, n); return 0; }
    if (bin_iolist_bytes(b, t) < 0) { ob_free(b); return -1; }
    *s = (const unsigned char *)b->buf;
    *n = b->len;
    return 0;
}

/* prim_file:write(Id, IoData) -> ok | {error, Reason} */
Term bif_prim_file_write_2(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    if (!(h->mode & FM_WRITE)) return err(p, atom_intern_cstr("ebadf"));
    OutBuf b;
    const unsigned char *s;
    size_t n;
    if (iodata_bytes(args[1], &b, &s, &n) < 0) return ERR_BADARG(p);
    int r = 0;
    if (h->rlen > h->rpos) r = handle_sync(h);
    else h->rpos = h->rlen = 0;
    if (r == 0 && h->wcap > 0 && n < h->wcap) {
        if (!h->wbuf) h->wbuf = malloc(h->wcap);
        if (h->wlen + n > h->wcap) r = handle_flush(h);
        if (r == 0 && h->wbuf) { memcpy(h->wbuf + h->wlen, s, n); h->wlen += n; n = 0; }
    }
    if (r == 0 && n > 0) r = handle_flush(h) < 0 ? -1 : write_all(h->fd, s, n);
    int e = errno;
    p->reds -= (SWord)(n / 4096);
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

/* prim_file:position(Id, Location) -> {ok, Offset} | {error, Reason} */
Term bif_prim_file_position_2(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    Term loc = args[1];
    int whence = SEEK_SET;
    Term off = loc;
    if (is_atom(loc)) {
        const char *s = atom_name(loc, NULL);
        off = make_small(0);
        if (!strcmp(s, "bof")) whence = SEEK_SET;
        else if (!strcmp(s, "cur")) whence = SEEK_CUR;
        else if (!strcmp(s, "eof")) whence = SEEK_END;
        else return ERR_BADARG(p);
    } else if (is_tuple(loc) && tuple_arity(loc) == 2 && is_atom(boxed_ptr(loc)[1])) {
        const char *s = atom_name(boxed_ptr(loc)[1], NULL);
        off = boxed_ptr(loc)[2];
        if (!strcmp(s, "bof")) whence = SEEK_SET;
        else if (!strcmp(s, "cur")) whence = SEEK_CUR;
        else if (!strcmp(s, "eof")) whence = SEEK_END;
        else return ERR_BADARG(p);
    }
    if (!is_small(off)) return ERR_BADARG(p);
    if (handle_sync(h) < 0) return err_errno(p);
    off_t r = lseek(h->fd, (off_t)small_val(off), whence);
    if (r < 0) return err_errno(p);
    return tuple2(p, AM_ok, make_small((SWord)r));
}

/* prim_file:pread(Id, Offset, N) -> {ok, Binary} | eof | {error, Reason} */
Term bif_prim_file_pread_3(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    if (!is_small(args[1]) || small_val(args[1]) < 0 || !is_small(args[2]) || small_val(args[2]) < 0)
        return err(p, atom_intern_cstr("einval"));
    if (!(h->mode & FM_READ)) return err(p, atom_intern_cstr("ebadf"));
    if (handle_flush(h) < 0) return err_errno(p);
    size_t n = (size_t)small_val(args[2]);
    off_t at = (off_t)small_val(args[1]);
    unsigned char *d;
    Term b = bin_new(p, n, &d);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(h->fd, d + got, n - got, at + (off_t)got);
        if (r < 0) { if (errno == EINTR) continue; return err_errno(p); }
        if (r == 0) break;
        got += (size_t)r;
    }
    binary_made(p);
    if (got == 0) return atom_intern_cstr("eof");    /* also for 0 bytes, as Erlang */
    if (got < n) b = bin_sub(p, b, 0, got);
    return tuple2(p, AM_ok, b);
}

/* prim_file:pwrite(Id, Offset, IoData) -> ok | {error, Reason} */
Term bif_prim_file_pwrite_3(Process *p, Term *args) {
    LOOKUP(p, h, args[0]);
    if (!is_small(args[1]) || small_val(args[1]) < 0) return err(p, atom_intern_cstr("einval"));
    if (!(h->mode & FM_WRITE)) return err(p, atom_intern_cstr("ebadf"));
    OutBuf b;
    const unsigned char *s;
    size_t n;
    if (iodata_bytes(args[2], &b, &s, &n) < 0) return ERR_BADARG(p);
    int r = handle_sync(h);   /* the bytes it replaces may be buffered */
    off_t at = (off_t)small_val(args[1]);
    while (r == 0 && n > 0) {
        ssize_t w = pwrite(h->fd, s, n, at);
        if (w < 0) { if (errno == EINTR) continue; r = -1; break; }
        s += w; n -= (size_t)w; at += w;
    }
    int e = errno;
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

/* ---- whole files ---- */

/* prim_file:read_file(Name) -> {ok, Binary} | {error, Reason}. One open,
 * one fstat, reads straight into the binary, one close: a regular file is
 * read up to the size fstat gave (as Erlang does), anything else to its end. */
Term bif_prim_file_read_file_1(Process *p, Term *args) {
    OutBuf name;
    if (file_name(&name, args[0]) < 0) return ERR_BADARG(p);
    struct stat st;
    int fd = open_stat(name.buf, O_RDONLY | O_CLOEXEC, &st);
    ob_free(&name);
    if (fd < 0) return err_errno(p);
    size_t size = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
    unsigned char *d;
    Term b = bin_new(p, size, &d);
    ssize_t got = read_full(fd, d, size);
    if (got < 0) { int e = errno; close(fd); errno = e; return err_errno(p); }
    if (size == 0) {
        /* no size to trust (/proc, a pipe, a device): read to the end */
        OutBuf all;
        ob_init(&all);
        for (;;) {
            ob_reserve(&all, 65536);
            ssize_t r = read(fd, all.buf + all.len, 65536);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) { int e = errno; ob_free(&all); close(fd); errno = e; return err_errno(p); }
            if (r == 0) break;
            all.len += (size_t)r;
        }
        b = bin_from_bytes(p, all.buf, all.len);
        got = (ssize_t)all.len;
        ob_free(&all);
    } else if ((size_t)got < size) b = bin_sub(p, b, 0, (size_t)got);   /* it shrank */
    close(fd);
    p->reds -= got / 4096;
    binary_made(p);
    return tuple2(p, AM_ok, b);
}

/* prim_file:write_file(Name, IoData, Modes) -> ok | {error, Reason} */
Term bif_prim_file_write_file_3(Process *p, Term *args) {
    int mode;
    size_t ra, dw;
    if (parse_modes(args[2], &mode, &ra, &dw) < 0) return ERR_BADARG(p);
    mode = (mode & ~FM_READ) | FM_WRITE;
    OutBuf data, name;
    const unsigned char *s;
    size_t n;
    if (iodata_bytes(args[1], &data, &s, &n) < 0) return ERR_BADARG(p);
    if (file_name(&name, args[0]) < 0) { ob_free(&data); return ERR_BADARG(p); }
    int fd = open_path(name.buf, open_flags(mode));
    ob_free(&name);
    int r = fd < 0 ? -1 : write_all(fd, s, n);
    int e = errno;
    if (fd >= 0 && close(fd) < 0 && r == 0) { r = -1; e = errno; }
    ob_free(&data);
    p->reds -= (SWord)(n / 4096);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

/* prim_file:copy(Source, Destination) -> {ok, Bytes} | {error, Reason} */
Term bif_prim_file_copy_2(Process *p, Term *args) {
    OutBuf src, dst;
    if (file_name(&src, args[0]) < 0) return ERR_BADARG(p);
    if (file_name(&dst, args[1]) < 0) { ob_free(&src); return ERR_BADARG(p); }
    int in = open_path(src.buf, O_RDONLY | O_CLOEXEC);
    int out = in < 0 ? -1 : open_path(dst.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
    int e = errno;
    ob_free(&src);
    ob_free(&dst);
    if (out < 0) { if (in >= 0) close(in); errno = e; return err_errno(p); }
    unsigned char buf[65536];
    size_t total = 0;
    int r = 0;
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { r = got < 0 ? -1 : 0; break; }
        if (write_all(out, buf, (size_t)got) < 0) { r = -1; break; }
        total += (size_t)got;
    }
    e = errno;
    close(in);
    if (close(out) < 0 && r == 0) { r = -1; e = errno; }
    p->reds -= (SWord)(total / 4096);
    if (r < 0) { errno = e; return err_errno(p); }
    return tuple2(p, AM_ok, make_small((SWord)total));
}

/* ---- directories and names ---- */

typedef int (*PathOp)(const char *path);
static int op_mkdir(const char *s) { return mkdir(s, 0777); }
static int op_rmdir(const char *s) { return rmdir(s); }
static int op_chdir(const char *s) { return chdir(s); }
static int op_unlink(const char *s) {
    int r = unlink(s);
    if (r < 0 && errno == EISDIR) errno = EPERM;   /* Erlang's answer for a directory */
    return r;
}

static Term path_op(Process *p, Term name, PathOp op) {
    OutBuf b;
    if (file_name(&b, name) < 0) return ERR_BADARG(p);
    int r = op(b.buf);
    int e = errno;
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

Term bif_prim_file_make_dir_1(Process *p, Term *args) { return path_op(p, args[0], op_mkdir); }
Term bif_prim_file_del_dir_1(Process *p, Term *args) { return path_op(p, args[0], op_rmdir); }
Term bif_prim_file_delete_1(Process *p, Term *args) { return path_op(p, args[0], op_unlink); }
Term bif_prim_file_set_cwd_1(Process *p, Term *args) { return path_op(p, args[0], op_chdir); }

Term bif_prim_file_rename_2(Process *p, Term *args) {
    OutBuf a, b;
    if (file_name(&a, args[0]) < 0) return ERR_BADARG(p);
    if (file_name(&b, args[1]) < 0) { ob_free(&a); return ERR_BADARG(p); }
    int r = rename(a.buf, b.buf);
    int e = errno;
    ob_free(&a);
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

/* prim_file:change_mode(Name, Mode) -> ok | {error, Reason} */
Term bif_prim_file_change_mode_2(Process *p, Term *args) {
    if (!is_small(args[1]) || small_val(args[1]) < 0) return ERR_BADARG(p);
    OutBuf b;
    if (file_name(&b, args[0]) < 0) return ERR_BADARG(p);
    int r = chmod(b.buf, (mode_t)small_val(args[1]) & 07777);
    int e = errno;
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    return AM_ok;
}

/* prim_file:list_dir(Name) -> {ok, [Filename]} | {error, Reason} */
Term bif_prim_file_list_dir_1(Process *p, Term *args) {
    OutBuf b;
    if (file_name(&b, args[0]) < 0) return ERR_BADARG(p);
    DIR *d = opendir(b.buf);
    int e = errno;
    ob_free(&b);
    if (!d) { errno = e; return err_errno(p); }
    Term res = NIL;
    struct dirent *ent;
    size_t n = 0;
    while ((ent = readdir(d)) != NULL) {
        const char *s = ent->d_name;
        if (!strcmp(s, ".") || !strcmp(s, "..")) continue;
        res = cons(p, file_text_to_list(p, s, strlen(s)), res);
        n++;
    }
    closedir(d);
    p->reds -= (SWord)(n / 16);
    return tuple2(p, AM_ok, res);
}

/* prim_file:get_cwd() -> {ok, Dir} | {error, Reason} */
Term bif_prim_file_get_cwd_0(Process *p, Term *args) {
    (void)args;
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf)) return err_errno(p);
    return tuple2(p, AM_ok, file_text_to_list(p, buf, strlen(buf)));
}

static Term datetime(Process *p, time_t t) {
    struct tm tm;
    localtime_r(&t, &tm);
    Term date = tuple3(p, make_small(tm.tm_year + 1900), make_small(tm.tm_mon + 1), make_small(tm.tm_mday));
    Term tod = tuple3(p, make_small(tm.tm_hour), make_small(tm.tm_min), make_small(tm.tm_sec));
    return tuple2(p, date, tod);
}

/* prim_file:read_file_info(Name, Follow) -> {ok, #file_info{}} | {error, Reason}
 * (Follow false: lstat, for read_link_info). */
Term bif_prim_file_read_file_info_2(Process *p, Term *args) {
    OutBuf b;
    if (file_name(&b, args[0]) < 0) return ERR_BADARG(p);
    struct stat st;
    int r = args[1] == AM_false ? lstat(b.buf, &st) : stat(b.buf, &st);
    int e = errno;
    int acc = r == 0 ? (access(b.buf, R_OK) == 0) | (access(b.buf, W_OK) == 0) << 1 : 0;
    ob_free(&b);
    if (r < 0) { errno = e; return err_errno(p); }
    const char *type = S_ISREG(st.st_mode) ? "regular" : S_ISDIR(st.st_mode) ? "directory"
                     : S_ISLNK(st.st_mode) ? "symlink" : (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) ? "device"
                     : "other";
    static const char *const access_names[] = {"none", "read", "write", "read_write"};
    Term *hp = heap_alloc(p, 15);
    Term info = make_boxed(hp);
    hp[0] = make_tuple_header(14);
    hp[1] = atom_intern_cstr("file_info");
    hp[2] = make_small((SWord)st.st_size);
    hp[3] = atom_intern_cstr(type);
    hp[4] = atom_intern_cstr(access_names[acc]);
    hp[5] = datetime(p, st.st_atime);
    hp[6] = datetime(p, st.st_mtime);
    hp[7] = datetime(p, st.st_ctime);
    hp[8] = make_small((SWord)st.st_mode);
    hp[9] = make_small((SWord)st.st_nlink);
    hp[10] = make_small((SWord)st.st_dev);
    hp[11] = make_small((SWord)st.st_rdev);
    hp[12] = make_small((SWord)(st.st_ino & (((UWord)1 << 58) - 1)));
    hp[13] = make_small((SWord)st.st_uid);
    hp[14] = make_small((SWord)st.st_gid);
    return tuple2(p, AM_ok, info);
}
