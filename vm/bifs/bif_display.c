/* bif_display.c — erlang:display/1, display_string/1 and display_nl/0: the
 * runtime's own printer, which writes straight to standard output (the
 * string one to standard error), bypassing io, as OTP's erts printer does.
 * Its text is not ~w's: floats are "%e" (1.500000e+00), maps have no spaces
 * (#{a=>1}), a list of printable characters is a string and a binary is
 * text only when every byte is printable ASCII. */
#include <stdio.h>

#include "bif.h"
#include "bif_io.h"
#include "atom.h"
#include "binary.h"
#include "map.h"
#include "outbuf.h"
#include "print.h"
#include "format.h"

/* erlang:display/1 is a debugging aid: it recurses, bounded at this depth
 * (about 300 bytes of C stack a level), and prints "..." below it. */
#define DISPLAY_MAX_NEST 1000

static int display_string_char(Term c) {
    if (!is_small(c)) return 0;
    SWord v = small_val(c);
    return (v >= 32 && v <= 126) || (v >= 160 && v <= 255);
}

static void display_rec(OutBuf *b, Term t, int nest) {
    if (nest > DISPLAY_MAX_NEST) { ob_puts(b, "..."); return; }
    if (is_float(t)) { ob_printf(b, "%e", float_val(t)); return; }
    if (is_list(t)) {
        Term l = t;
        while (is_list(l) && display_string_char(list_head(l))) l = list_tail(l);
        if (is_nil(l)) {
            ob_putc(b, '"');
            for (l = t; is_list(l); l = list_tail(l)) ob_putc(b, (int)small_val(list_head(l)));
            ob_putc(b, '"');
            return;
        }
        ob_putc(b, '[');
        for (l = t;;) {
            display_rec(b, list_head(l), nest + 1);
            l = list_tail(l);
            if (is_list(l)) { ob_putc(b, ','); continue; }
            if (!is_nil(l)) { ob_putc(b, '|'); display_rec(b, l, nest + 1); }
            break;
        }
        ob_putc(b, ']');
        return;
    }
    if (is_tuple(t)) {
        UWord n = tuple_arity(t);
        ob_putc(b, '{');
        for (UWord i = 0; i < n; i++) {
            if (i) ob_putc(b, ',');
            display_rec(b, tuple_elems(t)[i], nest + 1);
        }
        ob_putc(b, '}');
        return;
    }
    if (is_map_term(t)) {
        UWord n = map_size(t);
        ob_puts(b, "#{");
        for (UWord i = 0; i < n; i++) {
            if (i) ob_putc(b, ',');
            display_rec(b, map_key_at(t, i), nest + 1);
            ob_puts(b, "=>");
            display_rec(b, map_val_at(t, i), nest + 1);
        }
        ob_putc(b, '}');
        return;
    }
    if (is_binary(t)) {
        size_t n;
        const unsigned char *s = bin_bytes(t, &n);
        size_t i = 0;
        while (i < n && s[i] >= 32 && s[i] <= 126) i++;
        if (n > 0 && i == n) {
            ob_puts(b, "<<\"");
            ob_write(b, (const char *)s, n);
            ob_puts(b, "\">>");
            return;
        }
    }
    print_term(b, t, PRINT_WRITE);              /* atoms, numbers, pids, funs, ... */
}

Term bif_display_1(Process *p, Term *args) {
    (void)p;
    OutBuf b;
    ob_init(&b);
    display_rec(&b, args[0], 0);
    ob_puts(&b, "\r\n");                      /* OTP's line end here, on any stdout */
    io_write_out(b.buf, b.len);
    ob_free(&b);
    return AM_true;
}

Term bif_display_nl_0(Process *p, Term *args) {
    (void)p; (void)args;
    io_write_out("\r\n", 2);
    return AM_true;
}

Term bif_display_string_1(Process *p, Term *args) {
    OutBuf b;
    ob_init(&b);
    if (format_chars(&b, args[0], 0) < 0) { ob_free(&b); BIF_ERROR(p, AM_badarg); }
    io_write_err(b.buf, b.len);
    ob_free(&b);
    return AM_true;
}
