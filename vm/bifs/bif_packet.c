/* bif_packet.c — erlang:decode_packet/3 for the packet types raw (0),
 * 1, 2, 4 (a big-endian length header) and line, with the options
 * packet_size, line_length and line_delimiter: {ok, Packet, Rest},
 * {more, Length | undefined}, or {error, invalid} when a packet is longer
 * than packet_size, as OTP's. The HTTP and the other protocol types are not
 * here (badarg). */
#include <string.h>

#include "bif.h"
#include "atom.h"
#include "binary.h"
#include "term_build.h"

static Term more(Process *p, Term len) { return tuple2(p, atom_intern_cstr("more"), len); }

static Term packet(Process *p, Term bin, size_t off, size_t len, size_t size) {
    Term pkt = bin_sub(p, bin, off, len);
    Term rest = bin_sub(p, bin, off + len, size - off - len);
    return tuple3(p, AM_ok, pkt, rest);
}

Term bif_decode_packet_3(Process *p, Term *args) {
    Term type = args[0], bin = args[1], opts = args[2];
    int hdr;
    if (type == atom_intern_cstr("raw") || type == make_small(0)) hdr = 0;
    else if (type == make_small(1) || type == make_small(2) || type == make_small(4)) hdr = (int)small_val(type);
    else if (type == atom_intern_cstr("line")) hdr = -1;
    else BIF_ERROR(p, AM_badarg);
    if (!is_bitstring(bin)) BIF_ERROR(p, AM_badarg);
    size_t max_plen = 0, trunc_len = 0;
    int delim = '\n';
    for (; is_list(opts); opts = list_tail(opts)) {
        Term o = list_head(opts);
        if (!is_tuple(o) || tuple_arity(o) != 2) BIF_ERROR(p, AM_badarg);
        Term k = tuple_elems(o)[0], v = tuple_elems(o)[1];
        if (!is_small(v) || small_val(v) < 0) BIF_ERROR(p, AM_badarg);
        if (k == atom_intern_cstr("packet_size")) max_plen = (size_t)small_val(v);
        else if (k == atom_intern_cstr("line_length")) trunc_len = (size_t)small_val(v);
        else if (k == atom_intern_cstr("line_delimiter") && small_val(v) <= 255) delim = (int)small_val(v);
        else BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(opts)) BIF_ERROR(p, AM_badarg);
    size_t n;
    const unsigned char *s = bin_bytes(bin, &n);     /* whole bytes */
    Term invalid = tuple2(p, AM_error, atom_intern_cstr("invalid"));
    if (hdr == 0) return n == 0 ? more(p, AM_undefined) : packet(p, bin, 0, n, n);
    if (hdr > 0) {
        if (n < (size_t)hdr) return more(p, AM_undefined);
        size_t plen = 0;
        for (int i = 0; i < hdr; i++) plen = plen << 8 | s[i];
        if (max_plen && plen > max_plen) return invalid;
        if (n < (size_t)hdr + plen) return more(p, make_small((SWord)(hdr + plen)));
        return packet(p, bin, (size_t)hdr, plen, n);
    }
    /* line: up to and including the delimiter */
    const unsigned char *nl = n ? memchr(s, delim, n) : NULL;
    if (!nl) {
        if (max_plen && n > max_plen) return invalid;
        if (trunc_len && n >= trunc_len) return packet(p, bin, 0, trunc_len, n);
        return more(p, AM_undefined);
    }
    size_t len = (size_t)(nl - s) + 1;
    if (max_plen && len > max_plen) return invalid;
    if (trunc_len && len > trunc_len) len = trunc_len;
    return packet(p, bin, 0, len, n);
}
