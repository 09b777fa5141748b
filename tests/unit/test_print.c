/* test_print.c — the term printer and the io_lib:format engine against text
 * produced by Erlang/OTP 25 (`erl`).
 *
 * Each case is the Erlang text {Format, Args}; the test reads it with a small
 * term reader into a static heap, runs format_run() and compares with what
 * io_lib:format(Format, Args) gave in erl ("<badarg>" where erl raised
 * badarg). Then: a million-element list (no C recursion on tails), pids,
 * ports, refs, funs, and the print_* entry points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atom.h"
#include "bif.h"
#include "process.h"
#include "format.h"
#include "module.h"
#include "print.h"

static Term heap[1 << 23];
static size_t hused;

static Term *alloc(size_t n) {
    if (hused + n > sizeof heap / sizeof heap[0]) { fprintf(stderr, "test heap full\n"); exit(2); }
    Term *p = heap + hused;
    hused += n;
    return p;
}

static Term cons(Term h, Term t) { Term *p = alloc(2); p[0] = h; p[1] = t; return make_list(p); }

/* ---- a reader for Erlang term text ---- */

static const char *src;

static void ws(void) { while (*src == ' ' || *src == '\t' || *src == '\n') src++; }

static int esc_char(void) {                 /* after a backslash */
    int c = *src++;
    switch (c) {
    case 'n': return '\n'; case 't': return '\t'; case 'r': return '\r';
    case 'e': return 27; case 'b': return '\b'; case 'f': return '\f';
    case 'v': return '\v'; case 'd': return 127; case 's': return ' ';
    }
    if (c >= '0' && c <= '7') {
        int v = c - '0';
        for (int k = 0; k < 2 && *src >= '0' && *src <= '7'; k++) v = v * 8 + (*src++ - '0');
        return v;
    }
    return c;
}

static Term read_term(void);

static Term read_number(void) {
    const char *start = src;
    int neg = 0;
    if (*src == '-') { neg = 1; src++; }
    const char *d0 = src;
    while (*src >= '0' && *src <= '9') src++;
    if (*src == '.' && src[1] >= '0' && src[1] <= '9') {
        src++;
        while (*src >= '0' && *src <= '9') src++;
        if (*src == 'e' || *src == 'E') {
            src++;
            if (*src == '-' || *src == '+') src++;
            while (*src >= '0' && *src <= '9') src++;
        }
        return make_float_at(alloc(FLOAT_WORDS), strtod(start, NULL));
    }
    uint64_t limbs[64] = {0};
    size_t n = 1;
    for (const char *p = d0; p < src; p++) {
        unsigned __int128 carry = (unsigned)(*p - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 v = (unsigned __int128)limbs[i] * 10 + carry;
            limbs[i] = (uint64_t)v;
            carry = v >> 64;
        }
        if (carry) limbs[n++] = (uint64_t)carry;
    }
    if (n == 1 && limbs[0] <= (uint64_t)MAX_SMALL + (neg ? 1 : 0))
        return make_small(neg ? -(SWord)limbs[0] : (SWord)limbs[0]);
    Term *p = alloc(n + 1);
    p[0] = make_header(n, neg ? BOXED_NEG_BIG : BOXED_POS_BIG);
    memcpy(p + 1, limbs, n * sizeof limbs[0]);
    return make_boxed(p);
}

static Term read_seq(char close, Term *tail) {  /* elements as a list */
    size_t n = 0;
    *tail = NIL;
    ws();
    if (*src == close) { src++; return NIL; }
    Term *items = malloc(4096 * sizeof *items);   /* off the C stack: nesting is deep */
    for (;;) {
        items[n++] = read_term();
        ws();
        if (*src == ',') { src++; continue; }
        if (*src == '|') { src++; *tail = read_term(); ws(); }
        if (*src != close) { fprintf(stderr, "reader: expected %c at %s\n", close, src); exit(2); }
        src++;
        break;
    }
    Term l = *tail;
    while (n > 0) l = cons(items[--n], l);
    free(items);
    return l;
}

static Term read_term(void) {
    ws();
    char c = *src;
    if (c == '[') { src++; Term t; return read_seq(']', &t); }
    if (c == '{') {
        src++;
        Term t, l = read_seq('}', &t);
        size_t n = 0;
        for (Term x = l; is_list(x); x = list_tail(x)) n++;
        Term *p = alloc(n + 1);
        p[0] = make_tuple_header(n);
        n = 0;
        for (Term x = l; is_list(x); x = list_tail(x)) p[++n] = list_head(x);
        return make_boxed(p);
    }
    if (c == '"') {
        src++;
        static int cs[4096]; size_t n = 0;      /* not live across recursion */
        while (*src != '"') {
            int ch = (unsigned char)*src++;
            if (ch == '\\') ch = esc_char();
            cs[n++] = ch;
        }
        src++;
        Term l = NIL;
        while (n > 0) l = cons(make_small(cs[--n]), l);
        return l;
    }
    if (c == '\'') {
        src++;
        static char name[1024]; size_t n = 0;
        while (*src != '\'') {
            int ch = (unsigned char)*src++;
            if (ch == '\\') ch = esc_char();
            name[n++] = (char)ch;
        }
        src++;
        return atom_intern(name, n);
    }
    if (c == '$') {
        src++;
        int ch = (unsigned char)*src++;
        if (ch == '\\') ch = esc_char();
        return make_small(ch);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return read_number();
    const char *s = src;
    while ((*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z') ||
           (*src >= '0' && *src <= '9') || *src == '_' || *src == '@')
        src++;
    if (src == s) { fprintf(stderr, "reader: bad input at %s\n", s); exit(2); }
    return atom_intern(s, (size_t)(src - s));
}

static Term parse(const char *text) { src = text; return read_term(); }

/* ---- cases from erl ---- */

struct Case { const char *in, *out; };
static const struct Case cases[] = {
    {"{\"~w\", [[{a,\"abc\"},1.5,'Hello']]}", "[{a,[97,98,99]},1.5,'Hello']"},
    {"{\"~p\", [[{a,\"abc\"},1.5,'Hello']]}", "[{a,\"abc\"},1.5,'Hello']"},
    {"{\"~w ~w ~w ~w ~w\", ['hello world','Caps','','a-b','case']}", "'hello world' 'Caps' '' 'a-b' 'case'"},
    {"{\"~p ~p ~p ~p ~p ~p\", ['end','of',maybe,else,'cond',a@b]}", "'end' 'of' maybe else 'cond' a@b"},
    {"{\"~p ~p ~p ~p ~p\", ['a.b',aB_9,'_x','a\\nb','it\\'s']}", "'a.b' aB_9 '_x' 'a\\nb' 'it\\'s'"},
    {"{\"~p ~w\", ['a\\\\b','A']}", "'a\\\\b' 'A'"},
    {"{\"~p ~w\", [[1,2|3], [1,2|3]]}", "[1,2|3] [1,2|3]"},
    {"{\"~p ~w\", [\"a\\nb\\\"c\\\\\", \"a\\nb\\\"c\\\\\"]}", "\"a\\nb\\\"c\\\\\" [97,10,98,34,99,92]"},
    {"{\"~p ~p ~p ~p ~p\", [[7], [27,8,12,11], [127], [200,201], \"tab\\tq\"]}", "[7] \"\\e\\b\\f\\v\" [127] \"\310""\311""\" \"tab\\tq\""},
    {"{\"~p ~p ~p\", [[0], [], {}]}", "[0] [] {}"},
    {"{\"~p ~p ~p ~p\", [1.0e10, 1.0e16, 123456789.0, 0.1]}", "1.0e10 1.0e16 123456789.0 0.1"},
    {"{\"~p ~p ~p ~p ~p\", [1.0e-5, 0.001, 1.0e-4, -0.0, 2.5e-300]}", "1.0e-5 0.001 0.0001 -0.0 2.5e-300"},
    {"{\"~p ~p ~p ~p\", [1.7976931348623157e308, 100.0, 5.0e-324, 12345678912345.0]}", "1.7976931348623157e308 100.0 5.0e-324 12345678912345.0"},
    {"{\"~p ~p ~p ~p\", [0.0015, 1.5e-3, 3.14159, -2.5]}", "0.0015 0.0015 3.14159 -2.5"},
    {"{\"~p ~w\", [-42, -1152921504606846976]}", "-42 -1152921504606846976"},
    {"{\"~p ~w\", [1152921504606846976, 123456789012345678901234567890123456789]}", "1152921504606846976 123456789012345678901234567890123456789"},
    {"{\"~p\", [-98765432109876543210987654321]}", "-98765432109876543210987654321"},
    {"{\"~p\", [[123456789012345678901234567890,-18446744073709551616,18446744073709551615]]}", "[123456789012345678901234567890,-18446744073709551616,18446744073709551615]"},
    {"{\"~w\", [{a,{b,{c,[d,e,[f]]}},\"x\"}]}", "{a,{b,{c,[d,e,[f]]}},[120]}"},
    {"{\"~p\", [[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40]]}", "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,\n 29,30,31,32,33,34,35,36,37,38,39,40]"},
    {"{\"~p\", [[aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc,dddddddddddd,eeeeeeeeeeeeeee,ffffffffffffff,gggggggggg]]}", "[aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc,dddddddddddd,eeeeeeeeeeeeeee,\n ffffffffffffff,gggggggggg]"},
    {"{\"~p\", [{aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc,dddddddddddd,eeeeeeeeeeeeeee,ffffffffffffff,gggggggggg}]}", "{aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc,dddddddddddd,eeeeeeeeeeeeeee,\n            ffffffffffffff,gggggggggg}"},
    {"{\"~p\", [{tag,[aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc],{dddddddddddd,eeeeeeeeeeeeeee},ffffffffffffff,gggggggggg}]}", "{tag,[aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc],\n     {dddddddddddd,eeeeeeeeeeeeeee},\n     ffffffffffffff,gggggggggg}"},
    {"{\"~p\", [[{key1,\"value number one\"},{key2,\"value number two\"},{key3,\"value number three\"},{key4,[1,2,3]}]]}", "[{key1,\"value number one\"},\n {key2,\"value number two\"},\n {key3,\"value number three\"},\n {key4,[1,2,3]}]"},
    {"{\"~p\", [{state,{config,\"some/path/to/file.txt\",[verbose,debug,{level,3}]},[{pid,1},{pid,2}],undefined,12345678}]}", "{state,{config,\"some/path/to/file.txt\",[verbose,debug,{level,3}]},\n       [{pid,1},{pid,2}],\n       undefined,12345678}"},
    {"{\"~p\", [[[1,2,3,4,5,6,7,8,9,10],[11,12,13,14,15,16,17,18,19,20],[21,22,23,24,25,26,27,28,29,30],[31,32]]]}", "[[1,2,3,4,5,6,7,8,9,10],\n [11,12,13,14,15,16,17,18,19,20],\n [21,22,23,24,25,26,27,28,29,30],\n [31,32]]"},
    {"{\"~p\", [{a_very_long_tag_name_that_goes_on_and_on,[1,2,3],{x,y,z},\"a string that is long enough\"}]}", "{a_very_long_tag_name_that_goes_on_and_on,\n    [1,2,3],\n    {x,y,z},\n    \"a string that is long enough\"}"},
    {"{\"~p\", [{[a,b],[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccccccccccc,dddd]}]}", "{[a,b],\n [aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n  ccccccccccccccccccccccccccccccc,dddd]}"},
    {"{\"~p\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccccccccccc|dddd]]}", "[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n ccccccccccccccccccccccccccccccc|dddd]"},
    {"{\"~p\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccccccccccc|{dddd,eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee}]]}", "[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n ccccccccccccccccccccccccccccccc|\n {dddd,eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee}]"},
    {"{\"~p\", [[\"abcdefghijklmnopqrstuvwxyz\",\"abcdefghijklmnopqrstuvwxyz\",\"abcdefghijklmnopqrstuvwxyz\",\"abcdefghijklmnopqrstuvwxyz\"]]}", "[\"abcdefghijklmnopqrstuvwxyz\",\"abcdefghijklmnopqrstuvwxyz\",\n \"abcdefghijklmnopqrstuvwxyz\",\"abcdefghijklmnopqrstuvwxyz\"]"},
    {"{\"~p\", [{{{{{{{{{{{{{{{{{{{{{{{{{{{{a,b}}}}}}}}}}}}}}}}}}}}}}}}}}}}]}", "{{{{{{{{{{{{{{{{{{{{{{{{{{{{a,b}}}}}}}}}}}}}}}}}}}}}}}}}}}}"},
    {"{\"~p\", [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"},
    {"{\"~p\", [{error,{badmatch,[{very_long_key_name_number_one,1234567890},{very_long_key_name_number_two,\"string\"}]}}]}", "{error,{badmatch,[{very_long_key_name_number_one,1234567890},\n                  {very_long_key_name_number_two,\"string\"}]}}"},
    {"{\"~p\", [{ok,[{a,1},{b,2},{c,3},{d,4},{e,5},{f,6},{g,7},{h,8},{i,9},{j,10},{k,11},{l,12},{m,13},{n,14}]}]}", "{ok,[{a,1},\n     {b,2},\n     {c,3},\n     {d,4},\n     {e,5},\n     {f,6},\n     {g,7},\n     {h,8},\n     {i,9},\n     {j,10},\n     {k,11},\n     {l,12},\n     {m,13},\n     {n,14}]}"},
    {"{\"~p\", [{'Quoted Tag',[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccc]}]}", "{'Quoted Tag',[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,\n               bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccc]}"},
    {"{\"~p\", [{1,[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccc]}]}", "{1,\n [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n  ccccccccccccc]}"},
    {"{\"~p\", [{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,{bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,[ccccccccccccccccccccccc,dddddddddddddddddddddd,eeeeeeeeeeeeeeeeeeeeeeee]}}]}", "{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,\n    {bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n        [ccccccccccccccccccccccc,dddddddddddddddddddddd,\n         eeeeeeeeeeeeeeeeeeeeeeee]}}"},
    {"{\"~p\", [[{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,{bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,[ccccccccccccccccccccccc,dddddddddddddddddddddd,eeeeeeeeeeeeeeeeeeeeeeee]}}]]}", "[{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,\n     {bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n         [ccccccccccccccccccccccc,dddddddddddddddddddddd,\n          eeeeeeeeeeeeeeeeeeeeeeee]}}]"},
    {"{\"~p\", [{x,{y,{z,{w,{aaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbb,cccccccccccccccccccccccccccccc,ddddddddd}}}}}]}", "{x,{y,{z,{w,{aaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n                                    cccccccccccccccccccccccccccccc,\n                                    ddddddddd}}}}}"},
    {"{\"prefix text here: ~p~n\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccc]]}", "prefix text here: [aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n                   ccccccccccccccccccccccc]\n"},
    {"{\"a ~p b ~p~n\", [{aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbb},{ccccccccccccccccccccccccccccccccc,dddddddddddddddddddddddd}]}", "a {aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbb} b {ccccccccccccccccccccccccccccccccc,\n                                                    dddddddddddddddddddddddd}\n"},
    {"{\"\\t~p~n\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccccccccccccc]]}", "\011""[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n         ccccccccccccccccccccccccccccccccc]\n"},
    {"{\"~40p\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,ccccccccccccccccccccccccccccccccc]]}", "[aaaaaaaaaaaaaaaaaaaaaaa,\n bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n ccccccccccccccccccccccccccccccccc]"},
    {"{\"~.10p\", [[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,cccccccccccccccccccccccc]]}", "[aaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,\n          cccccccccccccccccccccccc]"},
    {"{\"~P\", [[1,2,3,4,5,6,7,8,9,10], 5]}", "[1,2,3,4|...]"},
    {"{\"~P\", [{a,{b,{c,{d,{e}}}}}, 3]}", "{a,{...}}"},
    {"{\"~P|~P|~P\", [\"abcdef\", 2, \"abcdef\", 1, [a,b|c], 3]}", "\"abcdef\"|[...]|[a,b|...]"},
    {"{\"~W|~W|~W\", [[1,2,3,4,5,{a,b,c,d}], 3, {a,[b,c],d}, 2, [[[[a]]]], 3]}", "[1,2|...]|{a,...}|[[[...]]]"},
    {"{\"~W|~W\", [[a,b|c], 3, [a,b|c], 4]}", "[a,b|...]|[a,b|c]"},
    {"{\"~10w|~-10w|~3w|~10.5w|\", [abc, abc, abcdef, abcdefgh]}", "       abc|abc       |***|     *****|"},
    {"{\"~s|~10s|~-10s|~3s|~.3s|~10.3s|~-10.3s|~5.5s|\", [\"abc\", \"abc\", \"abc\", \"abcdef\", \"abcdef\", \"abcdef\", \"abcdef\", \"ab\"]}", "abc|       abc|abc       |abc|abc|       abc|abc       |   ab|"},
    {"{\"~s ~s ~s\", [hello, [$a,[$b,[$c]],\"d\"], 'Quoted Atom']}", "hello abcd Quoted Atom"},
    {"{\"~10.3.xs|~.*s|\", [\"abcdef\", 2, \"xyz\"]}", "xxxxxxxabc|xy|"},
    {"{\"~c|~5c|~.3c|~5.3c|~-5.3c|~5.3.*c|\", [$a, $b, $c, $d, $e, $-, $f]}", "a|bbbbb|ccc|  ddd|eee  |--fff|"},
    {"{\"~b ~b ~B ~.16B ~.16b ~.2b ~8.2.0b ~-8b|\", [42, -42, 255, 255, 255, 5, 5, 7]}", "42 -42 255 FF ff 101 00000101 7       |"},
    {"{\"~.36B ~.36b ~b ~.16B\", [123456789, 123456789, 12345678901234567890123, -12345678901234567890123]}", "21I3V9 21i3v9 12345678901234567890123 -29D42B64E76714244CB"},
    {"{\"~x ~.16x ~.16X ~.16X ~.16x\", [255, \"0x\", 255, \"0x\", 255, '0x', -255, \"0x\", 255, [$#]]}", "0x255 0xff 0xFF -0xFF #ff"},
    {"{\"~# ~.16# ~.2+ ~.16+ ~10.16#|\", [255, 255, 5, -255, 255]}", "10#255 16#FF 2#101 -16#ff      16#FF|"},
    {"{\"~f ~.2f ~.0f ~10.3f ~-10.3f| ~.3.0f\", [3.14159, 2.675, 1.0, 3.14159, 3.14159, 2.5]}", "<badarg>"},
    {"{\"~.1f ~.1f ~.2f ~.2f ~f ~f\", [0.05, 0.95, 0.005, 99.999, 1.0e10, -0.0]}", "0.1 0.9 0.01 100.00 10000000000.000000 -0.000000"},
    {"{\"~f ~.3f ~f\", [1.0e-10, 123456.789, 1.0e20]}", "0.000000 123456.789 100000000000000000000.000000"},
    {"{\"~e ~.3e ~.2e ~15.4e| ~e ~e\", [3.14159, 2.5, 9.99, 1234.5, 0.0, -1.0e-10]}", "3.14159e+0 2.50e+0 1.0e+1        1.235e+3| 0.00000e+0 -1.00000e-10"},
    {"{\"~g ~g ~g ~g ~g ~g ~g\", [3.14159, 0.5, 0.05, 12345.0, 1234.5, 1.0e100, 0.0]}", "3.14159 0.500000 5.00000e-2 1.23450e+4 1234.50 1.00000e+100 0.00000e+0"},
    {"{\"~.3g ~.1g ~.2g ~10.3g|\", [3.14159, 0.5, 123.0, 2.5]}", "3.14 0.5 1.2e+2       2.50|"},
    {"{\"~~ ~5~ ~n~3n~i~w\", [ignored, x]}", "~ ~~~~~ \n\n\n\nx"},
    {"{\"~p~n\", [{a,\"string with \\\"quotes\\\" and \\\\ backslash\"}]}", "{a,\"string with \\\"quotes\\\" and \\\\ backslash\"}\n"},
    {"{\"~ts ~tp ~lp ~lp\", [\"abc\", \"abc\", \"abc\", [a,\"bc\"]]}", "abc \"abc\" [97,98,99] [a,[98,99]]"},
    {"{\"~w ~p\", [abc]}", "<badarg>"},
    {"{\"~d\", [1]}", "<badarg>"},
    {"{\"~s\", [[256]]}", "<badarg>"},
    {"{\"~s\", [{a}]}", "<badarg>"},
    {"{\"~c\", [a]}", "<badarg>"},
    {"{\"~f\", [1]}", "<badarg>"},
    {"{\"~b\", [1.0]}", "<badarg>"},
    {"{\"~.1e\", [1.0]}", "<badarg>"},
    {"{\"~\", []}", "<badarg>"},
    {"{\"~p\", []}", "<badarg>"},
    {"{\"~3.5c\", [$a]}", "<badarg>"},
    {"{\"~*w|~*w|\", [5, a, -5, b]}", "    a|b    |"},
    {"{\"~p\", [[[a,b,c],[d,e,f]|g]]}", "[[a,b,c],[d,e,f]|g]"},
    {"{\"~p\", [[{aaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb},{ccccccccccccccccccccc,ddddddddddddddddddddddddd}|eeeeeeeeeeeeeee]]}", "[{aaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb},\n {ccccccccccccccccccccc,ddddddddddddddddddddddddd}|\n eeeeeeeeeeeeeee]"},
    {"{\"~p\", [{\"abc\",'def',123,4.5,[],{},[[]],{{}}}]}", "{\"abc\",def,123,4.5,[],{},[[]],{{}}}"},
    {"{\"~p\", [[$a,$b,[$c]]]}", "[97,98,\"c\"]"},
    {"{\"~p\", [[97,98|99]]}", "[97,98|99]"},
    {"{\"~p\", [[10,13,9]]}", "\"\\n\\r\\t\""},
    {"{\"~p\", [[160,255,161]]}", "\"\240""\377""\241""\""},
    {"{\"~p\", [[159]]}", "[159]"},
    {"{\"~p\", [[256]]}", "[256]"},
    {"{\"~p\", [[-1]]}", "[-1]"},
    {"{\"~w\", [[{},[],{[]},[{}]]]}", "[{},[],{[]},[{}]]"},
};

static int failures;
#define SP40 "                                        "   /* io_lib_pretty:print(T, 40, 60, -1) */

static void check(const char *what, const char *got, size_t glen, const char *want) {
    if (glen == strlen(want) && memcmp(got, want, glen) == 0) return;
    failures++;
    printf("FAIL %s\n  want: %s\n  got:  %.*s\n", what, want, (int)glen, got);
}

static void run_cases(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Term t = parse(cases[i].in);
        OutBuf b; ob_init(&b);
        int rc = format_run(&b, tuple_elems(t)[0], tuple_elems(t)[1]);
        if (rc < 0) { b.len = 0; ob_puts(&b, "<badarg>"); }
        check(cases[i].in, b.buf ? b.buf : "", b.len, cases[i].out);
        ob_free(&b);
    }
}

static void check_term(const char *what, Term t, int mode, const char *want) {
    OutBuf b; ob_init(&b);
    print_term(&b, t, mode);
    check(what, b.buf ? b.buf : "", b.len, want);
    ob_free(&b);
}

static void run_million(void) {
    const long n = 1000000;
    Term l = NIL;
    for (long i = n; i >= 1; i--) l = cons(make_small(i), l);
    OutBuf b; ob_init(&b);
    print_term(&b, l, PRINT_WRITE);
    OutBuf w; ob_init(&w);
    ob_putc(&w, '[');
    for (long i = 1; i <= n; i++) ob_printf(&w, i > 1 ? ",%ld" : "%ld", i);
    ob_putc(&w, ']');
    check("million ~w", b.buf, b.len, ob_cstr(&w));
    /* ~p: same text with line breaks every 80 columns; compare without them */
    OutBuf p; ob_init(&p);
    print_term(&p, l, PRINT_PRINT);
    size_t k = 0, lines = 1, maxline = 0, cur = 0;
    for (size_t i = 0; i < p.len; i++) {
        if (p.buf[i] == '\n') { lines++; if (cur > maxline) maxline = cur; cur = 0; continue; }
        cur++;
        if (p.buf[i] != ' ') p.buf[k++] = p.buf[i];
    }
    check("million ~p (joined)", p.buf, k, ob_cstr(&w));
    if (lines < 10000 || maxline > 80) {
        failures++;
        printf("FAIL million ~p layout: %zu lines, longest %zu\n", lines, maxline);
    }
    ob_free(&b); ob_free(&w); ob_free(&p);
    /* a long improper list and a long string */
    l = make_small(0);
    for (long i = 0; i < n; i++) l = cons(make_small('a'), l);
    ob_init(&p);
    print_term(&p, l, PRINT_PRINT);
    if (p.len < (size_t)n * 2 || memcmp(p.buf + p.len - 5, "97|0]", 5) != 0) {
        failures++;
        printf("FAIL long improper list\n");
    }
    ob_free(&p);
}

static void run_special(void) {
    check_term("pid", make_pid(42), PRINT_WRITE, "<0.42.0>");
    check_term("port", make_port(7), PRINT_PRINT, "#Port<0.7>");
    Term *r = alloc(2);
    r[0] = make_header(1, BOXED_REF); r[1] = 12345;
    check_term("ref", make_boxed(r), PRINT_WRITE, "#Ref<0.0.0.12345>");
    static FunEntry fe;
    fe.module = atom_intern_cstr("mymod"); fe.index = 3; fe.uniq = 98765;
    Term *f = alloc(2);
    f[0] = make_header(1, BOXED_FUN); f[1] = (Term)&fe;
    check_term("fun", make_boxed(f), PRINT_WRITE, "#Fun<mymod.3.98765>");
    static Export ex;
    ex.module = atom_intern_cstr("lists"); ex.name = atom_intern_cstr("map"); ex.arity = 2;
    Term *e = alloc(2);
    e[0] = make_header(1, BOXED_EXPORT); e[1] = (Term)&ex;
    check_term("export", make_boxed(e), PRINT_PRINT, "fun lists:map/2");
    Term tup = parse("{a,\"abc\",[1|2],'B c'}");
    check_term("print_term ~p", tup, PRINT_PRINT, "{a,\"abc\",[1|2],'B c'}");
    check_term("print_term ~w", tup, PRINT_WRITE, "{a,[97,98,99],[1|2],'B c'}");
    check_term("min small", make_small(MIN_SMALL), PRINT_WRITE, "-576460752303423488");
    check_term("max small", make_small(MAX_SMALL), PRINT_WRITE, "576460752303423487");
    OutBuf b; ob_init(&b);
    print_integer(&b, parse("-340282366920938463463374607431768211455"), 16, 1);
    check("big hex", b.buf, b.len, "-ffffffffffffffffffffffffffffffff");
    b.len = 0;
    print_integer(&b, parse("18446744073709551616"), 2, 0);
    check("big bin", b.buf, b.len, "10000000000000000000000000000000000000000000000000000000000000000");
    b.len = 0;
    print_pretty(&b, parse("[aaaaaaaaaa,bbbbbbbbbbbb,cccccccccccc,dddddddddddd]"), 40, 60, -1, 1);
    check("pretty col 40", b.buf, b.len, "[aaaaaaaaaa,\n" SP40 "bbbbbbbbbbbb,\n" SP40 "cccccccccccc,\n" SP40 "dddddddddddd]");
    ob_free(&b);
    /* deep nesting prints in full, as OTP does, with no C recursion:
     * [[[...[]...]]] 100000 deep is the same text in ~p and ~w */
    enum { DEEP = 100000 };
    Term d = NIL;
    for (int i = 0; i < DEEP; i++) d = cons(d, NIL);
    char *want = malloc(2 * DEEP + 3);
    memset(want, '[', DEEP + 1);
    memset(want + DEEP + 1, ']', DEEP + 1);
    want[2 * DEEP + 2] = 0;
    ob_init(&b);
    print_term(&b, d, PRINT_PRINT);
    check("deep nesting ~p", b.buf, b.len, want);
    b.len = 0;
    print_term(&b, d, PRINT_WRITE);
    check("deep nesting ~w", b.buf, b.len, want);
    free(want);
    ob_free(&b);
}


/* ---- BIFs: run one by name and print the result (or the exception) ---- */

static Process *proc;

static void bif_case(const char *name, int arity, const char *args_text, const char *want) {
    int i = bif_lookup("erlang", name, arity);
    if (i < 0) i = bif_lookup("io_lib", name, arity);
    if (i < 0) { failures++; printf("FAIL no BIF %s/%d\n", name, arity); return; }
    Term args[4];
    Term l = parse(args_text);                /* the arguments as a list */
    for (int k = 0; k < arity; k++, l = list_tail(l)) args[k] = list_head(l);
    Term r = bif_table[i].fn(proc, args);
    OutBuf b; ob_init(&b);
    if (r == THE_NON_VALUE) {
        ob_puts(&b, proc->exc_class == EXC_ERROR ? "error:" : proc->exc_class == EXC_EXIT ? "exit:" : "throw:");
        print_term(&b, proc->exc_reason, PRINT_WRITE);
    } else {
        print_term(&b, r, PRINT_PRINT);
    }
    char what[256];
    snprintf(what, sizeof what, "%s/%d %s", name, arity, args_text);
    check(what, b.buf, b.len, want);
    ob_free(&b);
}

static void run_bifs(void) {
    proc = process_new_memory(1000);
    char big[1200];
    /* expected values from erl */
    bif_case("element", 2, "[2,{a,b,c}]", "b");
    bif_case("element", 2, "[0,{a}]", "error:badarg");
    bif_case("element", 2, "[2,{a}]", "error:badarg");
    bif_case("element", 2, "[1,[a]]", "error:badarg");
    bif_case("setelement", 3, "[2,{a,b,c},x]", "{a,x,c}");
    bif_case("setelement", 3, "[4,{a,b,c},x]", "error:badarg");
    bif_case("tuple_size", 1, "[{a,b}]", "2");
    bif_case("size", 1, "[{}]", "0");
    bif_case("size", 1, "[[a]]", "error:badarg");
    bif_case("length", 1, "[[a,b,c]]", "3");
    bif_case("length", 1, "[[]]", "0");
    bif_case("length", 1, "[[a,b|c]]", "error:badarg");
    bif_case("hd", 1, "[[]]", "error:badarg");
    bif_case("hd", 1, "[[x|y]]", "x");
    bif_case("tl", 1, "[[x|y]]", "y");
    bif_case("tl", 1, "[foo]", "error:badarg");
    bif_case("++", 2, "[[1,2],[3]]", "[1,2,3]");
    bif_case("++", 2, "[[1,2],3]", "[1,2|3]");
    bif_case("++", 2, "[[],x]", "x");
    bif_case("++", 2, "[[1|2],[3]]", "error:badarg");
    bif_case("--", 2, "[[1,2,3,1,2],[2,1,x]]", "[3,1,2]");
    bif_case("--", 2, "[[1,1.0,1],[1.0]]", "[1,1]");
    bif_case("--", 2, "[[a,b,c,a,b,c,a],[a,a,c,c,c,z,y,x,w,v,u,t,s,r,q,p,o,n,m]]", "[b,b,a]");
    bif_case("--", 2, "[[1,2|3],[1]]", "error:badarg");
    bif_case("--", 2, "[[1,2],[1|2]]", "error:badarg");
    bif_case("atom_to_list", 1, "['Hello world']", "\"Hello world\"");
    bif_case("atom_to_list", 1, "['']", "[]");
    bif_case("atom_to_list", 1, "[\"x\"]", "error:badarg");
    bif_case("list_to_atom", 1, "[\"hello\"]", "hello");
    bif_case("list_to_atom", 1, "[\"A b\"]", "'A b'");
    bif_case("list_to_atom", 1, "[[a]]", "error:badarg");
    bif_case("list_to_atom", 1, "[[104|105]]", "error:badarg");
    strcpy(big, "[\"");
    for (int k = 0; k < 256; k++) strcat(big, "a");
    strcat(big, "\"]");
    bif_case("list_to_atom", 1, big, "error:system_limit");
    big[strlen(big) - 3] = '\0';
    strcat(big, "\"]");
    {
        char want[300];
        memset(want, 'a', 255);
        want[255] = 0;
        bif_case("list_to_atom", 1, big, want);
    }
    bif_case("list_to_existing_atom", 1, "[\"hello\"]", "hello");
    bif_case("list_to_existing_atom", 1, "[\"no_such_atom_here_zzz\"]", "error:badarg");
    bif_case("tuple_to_list", 1, "[{a,{b},[c]}]", "[a,{b},[c]]");
    bif_case("tuple_to_list", 1, "[{}]", "[]");
    bif_case("list_to_tuple", 1, "[[a,b]]", "{a,b}");
    bif_case("list_to_tuple", 1, "[[a|b]]", "error:badarg");
    bif_case("make_tuple", 2, "[3,x]", "{x,x,x}");
    bif_case("make_tuple", 2, "[-1,x]", "error:badarg");
    bif_case("append_element", 2, "[{a,b},c]", "{a,b,c}");
    bif_case("is_function", 2, "[foo,1]", "false");
    bif_case("is_function", 2, "[foo,-1]", "error:badarg");
    bif_case("is_boolean", 1, "[true]", "true");
    bif_case("is_list", 1, "[[]]", "true");
    bif_case("is_tuple", 1, "[[]]", "false");
    bif_case("throw", 1, "[{my,ball}]", "throw:{my,ball}");
    bif_case("error", 2, "[oops,[1,2]]", "error:oops");
    bif_case("exit", 1, "[normal]", "exit:normal");
    /* process dictionary */
    bif_case("put", 2, "[k1,v1]", "undefined");
    bif_case("put", 2, "[k2,v2]", "undefined");
    bif_case("put", 2, "[k3,v3]", "undefined");
    bif_case("put", 2, "[k2,v22]", "v2");
    bif_case("get", 1, "[k2]", "v22");
    bif_case("get", 1, "[k9]", "undefined");
    bif_case("put", 2, "[1,int]", "undefined");
    bif_case("get", 1, "[1.0]", "undefined");
    bif_case("erase", 1, "[k1]", "v1");
    bif_case("erase", 1, "[k1]", "undefined");
    bif_case("erase", 1, "[k2]", "v22");
    bif_case("erase", 1, "[k3]", "v3");
    /* the order is the table's (Erlang's is its own table's, undefined):
     * integer keys, whose place does not move when the VM's list of atoms
     * grows (an atom key's hash is its index in the atom table) */
    bif_case("put", 2, "[12,v12]", "undefined");
    bif_case("put", 2, "[13,v13]", "undefined");
    bif_case("get_keys", 0, "[]", "[13,1,12]");
    bif_case("get", 0, "[]", "[{13,v13},{1,int},{12,v12}]");
    bif_case("erase", 0, "[]", "[{13,v13},{1,int},{12,v12}]");
    bif_case("get", 0, "[]", "[]");
    /* io_lib:format */
    bif_case("format", 2, "[\"~p-~w~n\",[\"ab\",\"ab\"]]", "\"\\\"ab\\\"-[97,98]\\n\"");
    bif_case("format", 2, "[\"~p\",[]]", "error:badarg");
    bif_case("format", 2, "[\"~d\",[1]]", "error:badarg");
    bif_case("format", 2, "[\"abc\",x]", "error:badarg");
    bif_case("format", 2, "[hello,[]]", "\"hello\"");
    process_free_memory(proc);
}

int main(void) {
    atom_init();
    run_cases();
    run_special();
    run_bifs();
    run_million();
    if (failures) { printf("test_print: %d failure(s)\n", failures); return 1; }
    printf("test_print: all %zu format cases and special cases passed\n", sizeof cases / sizeof cases[0]);
    return 0;
}
