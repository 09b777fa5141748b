/* bif_io.c — io:format/1,2, io:put_chars/1, io:nl/0, io:write/1 and
 * io_lib:format/2, over the format engine (format.c) and the printer
 * (print.c). Bad formats or arguments raise badarg, as in Erlang. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bif.h"
#include "atom.h"
#include "bif_io.h"
#include "binary.h"
#include "format.h"
#include "print.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set (under out_lock) by the shell's reader while readline shows a prompt:
 * `before` takes the prompt and the half-typed line off the screen, `after`
 * puts them back below the text just written (shell_reader.c). */
static IoHook hook_before, hook_after;

void io_lock(void) { pthread_mutex_lock(&out_lock); }
void io_unlock(void) { pthread_mutex_unlock(&out_lock); }

void io_set_hooks_locked(IoHook before, IoHook after) {
    hook_before = before;
    hook_after = after;
}

static int unicode_out;

void io_set_unicode_out(int on) { unicode_out = on; }

/* The length of a UTF-8 sequence at s for a code point above 255 (the only
 * ones print_char encodes), or 0. A two-byte sequence for 128..255 cannot
 * come from print_char, so such bytes are two Latin-1 characters. */
static size_t wide_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t k = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (k == 0 || k > n || c < 0xC4) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return k;
}

/* Writes the text to f, Latin-1 bytes as UTF-8 when the terminal is unicode. */
static void write_text(const char *s, size_t n, FILE *f) {
    if (!unicode_out) { fwrite(s, 1, n, f); return; }
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && u[run] < 0x80) run++;
        fwrite(s + i, 1, run - i, f);
        i = run;
        if (i == n) break;
        size_t k = wide_seq(u + i, n - i);
        if (k) { fwrite(s + i, 1, k, f); i += k; continue; }
        fputc(0xC0 | (u[i] >> 6), f);
        fputc(0x80 | (u[i] & 0x3F), f);
        i++;
    }
}

void io_write_out(const char *s, size_t n) {
    pthread_mutex_lock(&out_lock);
    if (hook_before && n) hook_before(s, n);
    if (n) write_text(s, n, stdout);
    fflush(stdout);
    if (hook_after && n) hook_after(s, n);
    pthread_mutex_unlock(&out_lock);
}

/* Error reports: the same lock, so a report never splits a line of output. */
void io_write_err(const char *s, size_t n) {
    pthread_mutex_lock(&out_lock);
    if (hook_before && n) hook_before(s, n);
    fflush(stdout);
    if (n) write_text(s, n, stderr);
    fflush(stderr);
    if (hook_after && n) hook_after(s, n);
    pthread_mutex_unlock(&out_lock);
}

void io_flush(void) {
    pthread_mutex_lock(&out_lock);
    fflush(stdout);
    fflush(stderr);
    pthread_mutex_unlock(&out_lock);
}

void io_halt(int status) {
    /* keep the lock: no other thread's output after this point */
    pthread_mutex_lock(&out_lock);
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

static Term do_format(Process *p, Term fmt, Term args) {
    OutBuf b;
    ob_init_soft(&b);           /* a text memory cannot hold kills the caller */
    if (format_run(&b, fmt, args) < 0) {
        ob_free(&b);
        BIF_ERROR(p, AM_badarg);
    }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    io_write_out(b.buf, b.len);
    p->reds -= (SWord)(b.len / 64);
    ob_free(&b);
    return AM_ok;
}

Term bif_io_format_1(Process *p, Term *args) { return do_format(p, args[0], NIL); }

/* io:'$format'(Device, Format, Args), under io:format/3 (stdlib/io.mini,
 * which sends the text of any other device to it as an io request):
 * standard_error goes to stderr (the shell's -eval reports there);
 * standard_io, user and the group leader to stdout. */
Term bif_io_format_3(Process *p, Term *args) {
    Term dev = args[0];
    if (dev != atom_intern_cstr("standard_error")) {
        if (dev != atom_intern_cstr("standard_io") && dev != atom_intern_cstr("user") && !is_pid(dev))
            BIF_ERROR(p, AM_badarg);
        return do_format(p, args[1], args[2]);
    }
    OutBuf b;
    ob_init_soft(&b);
    if (format_run(&b, args[1], args[2]) < 0) {
        ob_free(&b);
        BIF_ERROR(p, AM_badarg);
    }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    io_write_err(b.buf, b.len);
    ob_free(&b);
    return AM_ok;
}

Term bif_io_format_2(Process *p, Term *args) { return do_format(p, args[0], args[1]); }

/* io:'$format_bin'(Format, Args): the text io:format would write, as a
 * UTF-8 binary, for io:format/3 to a file (stdlib/io.mini). */
Term bif_io_format_bin_2(Process *p, Term *args) {
    OutBuf b;
    ob_init_soft(&b);
    if (format_run(&b, args[0], args[1]) < 0) {
        ob_free(&b);
        BIF_ERROR(p, AM_badarg);
    }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    Term r = bin_from_bytes(p, b.buf, b.len);
    p->reds -= (SWord)(b.len / 64);
    ob_free(&b);
    return r;
}

Term bif_io_put_chars_1(Process *p, Term *args) {
    OutBuf b;
    ob_init_soft(&b);
    if (format_chars(&b, args[0], 1) < 0) {
        ob_free(&b);
        BIF_ERROR(p, AM_badarg);
    }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    io_write_out(b.buf, b.len);
    ob_free(&b);
    return AM_ok;
}

Term bif_io_nl_0(Process *p, Term *args) {
    (void)p; (void)args;
    io_write_out("\n", 1);
    return AM_ok;
}

Term bif_io_write_1(Process *p, Term *args) {
    OutBuf b;
    ob_init_soft(&b);
    print_term(&b, args[0], PRINT_WRITE);
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    io_write_out(b.buf, b.len);
    ob_free(&b);
    return AM_ok;
}

/* io_lib:format/2: a flat list of character codes (one per byte written;
 * Erlang returns a deep list that prints the same). */
Term bif_io_lib_format_2(Process *p, Term *args) {
    OutBuf b;
    ob_init_soft(&b);
    if (format_run(&b, args[0], args[1]) < 0) {
        ob_free(&b);
        BIF_ERROR(p, AM_badarg);
    }
    if (b.failed) { ob_free(&b); return bif_out_of_memory(p); }
    Term res = NIL;
    if (b.len > 0) {
        Term *hp = heap_alloc_try(p, 2 * b.len);
        if (!hp) { ob_free(&b); return bif_out_of_memory(p); }
        res = make_list(hp);
        for (size_t i = 0; i < b.len; i++, hp += 2) {
            hp[0] = make_small((unsigned char)b.buf[i]);
            hp[1] = i + 1 < b.len ? make_list(hp + 2) : NIL;
        }
    }
    ob_free(&b);
    return res;
}
