/* format.h — the io:format / io_lib:format directive engine (OTP's
 * io_lib_format): ~F.P.PadModC with w p W P s c b B x X # + e f g i n ~,
 * field widths, precision, pad characters, '-' (left adjust), '*' (taken
 * from the arguments) and the t / l modifiers. */
#ifndef MINI_FORMAT_H
#define MINI_FORMAT_H

#include "term.h"
#include "outbuf.h"

/* Appends the text of io_lib:format(Fmt, Args) to b. Fmt is a character
 * list or an atom, Args a proper list. Returns 0, or -1 if the format or
 * the arguments are bad (the caller raises badarg; b then holds partial
 * text, which the caller discards). Columns for ~p start at 0 at the point
 * where this call starts writing, as in OTP. */
int format_run(OutBuf *b, Term fmt, Term args);

/* Appends the characters of an iolist / chardata (character codes,
 * nested lists; unicode allows codes above 255, written as UTF-8).
 * Returns -1 if it is not one. */
int format_chars(OutBuf *b, Term iolist, int unicode);

#endif
