/* test_parser.c — unit tests of the front end (lexer, macros, parser, checks).
 *
 * Each case parses a snippet and compares the tree, printed by
 * ast_dump_expr/ast_dump, with the expected S-expression; the last cases
 * feed garbage and check that the front end returns NULL without crashing.
 * Prints `ok N` per passing case and the differences otherwise; the exit
 * status is non-zero when any case fails. Error messages of these cases go
 * to stderr, which is sent to /dev/null while they run.
 */
#include <gc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include "frontend.h"

static int ntests, nfailed;

static void check(int ok, const char *what, const char *got, const char *want)
{
    ntests++;
    if (ok) { printf("ok %d %s\n", ntests, what); return; }
    nfailed++;
    printf("FAIL %d %s\n  got:  %s\n  want: %s\n", ntests, what, got ? got : "(null)", want ? want : "");
}

/* Silences stderr around calls that are expected to print errors. */
static int saved_stderr = -1;
static void quiet(int on)
{
    fflush(stderr);
    if (on) {
        saved_stderr = dup(2);
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        close(fd);
    } else if (saved_stderr >= 0) {
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
}

static char *dump_exprs(const char *src)
{
    int n = 0, inc = 0;
    Expr **es = parse_exprs("test", src, strlen(src), &n, &inc);
    if (!es) return NULL;
    char *buf; size_t len;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < n; i++) {
        if (i) fputs(" , ", f);
        ast_dump_expr(f, es[i]);
    }
    fclose(f);
    return buf;
}

static void expr_is(const char *src, const char *want)
{
    char *got = dump_exprs(src);
    check(got && strcmp(got, want) == 0, src, got, want);
}

static char *dump_module(const char *src)
{
    Module *m = parse_module("test.mini", src, strlen(src));
    if (!m) return NULL;
    char *buf; size_t len;
    FILE *f = open_memstream(&buf, &len);
    ast_dump(f, m);
    fclose(f);
    return buf;
}

static void module_contains(const char *what, const char *src, const char *want)
{
    char *got = dump_module(src);
    check(got && strstr(got, want) != NULL, what, got, want);
}

static int module_errors(const char *src)
{
    quiet(1);
    Module *m = parse_module("test.mini", src, strlen(src));
    int errs = m ? check_module(m) : -1;
    quiet(0);
    return errs;
}

static void errors_are(const char *what, const char *src, int want)
{
    int got = module_errors(src);
    char g[32], w[32];
    snprintf(g, sizeof g, "%d errors", got);
    snprintf(w, sizeof w, "%d errors", want);
    check(got == want, what, g, w);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

int main(void)
{
    GC_INIT();

    /* precedence and associativity */
    expr_is("1 + 2 * 3.", "(+ 1 (* 2 3))");
    expr_is("1 * 2 + 3.", "(+ (* 1 2) 3)");
    expr_is("1 - 2 - 3.", "(- (- 1 2) 3)");
    expr_is("a ++ b ++ c.", "(++ a (++ b c))");
    expr_is("X = Y = 1.", "(= X (= Y 1))");
    expr_is("A ! B ! C.", "(! A (! B C))");
    expr_is("not a andalso b.", "(andalso (not a) b)");
    expr_is("a orelse b andalso c.", "(orelse a (andalso b c))");
    expr_is("-1 - -2.", "(- (- 1) (- 2))");
    expr_is("catch 1 + 2.", "(catch (+ 1 2))");
    expr_is("A = catch 1.", "(= A (catch 1))");
    expr_is("1 < 2 andalso 3 >= 4.", "(andalso (< 1 2) (>= 3 4))");
    expr_is("a band b bor c.", "(bor (band a b) c)");
    expr_is("X =:= Y, X =/= Y, X == Y, X /= Y, X =< Y.",
            "(=:= X Y) , (=/= X Y) , (== X Y) , (/= X Y) , (=< X Y)");
    expr_is("- - X.", "(- (- X))");
    expr_is("bnot 1 div 2 rem 3.", "(rem (div (bnot 1) 2) 3)");
    expr_is("m:f(1) + 2.", "(+ (call m:f 1) 2)");
    expr_is("M:F(X).", "(call M:F X)");
    expr_is("F(X).", "(apply F X)");
    expr_is("(fun() -> 1 end)().", "(apply (fun (clause () 1)))");
    expr_is("fun foo/2.", "(fun foo/2)");
    expr_is("fun m:foo/2.", "(fun m:foo/2)");
    expr_is("R#r.a#r.b.", "(record_field (record_field R r a) r b)");

    /* literals */
    expr_is("16#ff, 2#101, 36#z, $a, $\\n, $\\s, 1_000.", "255 , 5 , 35 , 97 , 10 , 32 , 1000");
    expr_is("9223372036854775807.", "9223372036854775807");
    expr_is("9223372036854775808.", "9223372036854775808");
    expr_is("16#FFFFFFFFFFFFFFFFFF.", "16#FFFFFFFFFFFFFFFFFF");
    expr_is("1.5, 1.0e10, 2.5E-3.", "1.5 , 10000000000.0 , 0.0025");
    expr_is("\"a\\n\\t\\\"\\\\\".", "\"a\\n\\t\\\"\\\\\"");
    expr_is("\"\\e\\s\\d\\x41\\x{263A}\\101\\^a\".", "\"\\x{1B} \\x{7F}A\\x{263A}A\\x{1}\"");
    expr_is("\"ab\" \"cd\"   \"e\".", "\"abcde\"");
    expr_is("'with spaces', 'a\\'b', abc@d.", "'with spaces' , 'a\\'b' , abc@d");
    expr_is("[1, 2 | T].", "[1, 2 | T]");
    expr_is("[].", "[]");
    expr_is("{}.", "{}");
    expr_is("\"\".", "\"\"");

    /* constructs */
    expr_is("[X || {X, _} <- L, X > 1].", "(lc X (<- {X, _} L) (> X 1))");
    expr_is("case X of 1 when X > 0, X < 2; X == 3 -> a; _ -> b end.",
            "(case X (clause (1) (when ((> X 0) (< X 2)) ((== X 3))) a) (clause (_) b))");
    expr_is("if X -> a; true -> b end.", "(if (clause () (when (X)) a) (clause () (when (true)) b))");
    expr_is("receive {a, X} -> X after 10 -> t end.",
            "(receive (clause ({a, X}) X) (after 10 t))");
    expr_is("receive after 0 -> ok end.", "(receive (after 0 ok))");
    expr_is("try f() of V -> V catch E -> E; error:R:S -> S; _:_ -> x after y end.",
            "(try ((call f)) (of (clause (V) V)) (catch (clause (throw E -) E) (clause (error R S) S) (clause (_ _ -) x)) (after y))");
    expr_is("try a after b end.", "(try (a) (after b))");
    expr_is("begin 1, 2 end.", "(begin 1 2)");
    expr_is("fun F(0) -> 1; F(N) -> N end.", "(fun F (clause (0) 1) (clause (N) N))");
    expr_is("#r{a = 1, _ = 2}.", "(record r (a 1) (_ 2))");
    expr_is("R#r{a = 1}.", "(record R r (a 1))");
    expr_is("#r.a.", "(record_index r a)");
    expr_is("#{a => 1}.", "(map (=> a 1))");
    expr_is("M#{a := 1, b => 2}.", "(map M (:= a 1) (=> b 2))");
    expr_is("<<1, X:8, Y:16/big-unsigned, R/binary, \"abc\", Z:N/unit:8>>.",
            "(bin (1) (X:8) (Y:16/big-unsigned) (R/binary) (\"abc\") (Z:N/unit:8))");
    expr_is("<< <<X>> || X <- L >>.", "(bin_lc (bin (X)) (<- X L))");
    expr_is("f(X = 1, {A, B} = g()).", "(call f (= X 1) (= {A, B} (call g)))");

    /* macros */
    module_contains("macro constant and arguments",
        "-module(m).\n-define(N, 42).\n-define(ADD(A, B), (A + B)).\nf() -> ?ADD(?N, 1).\n",
        "(clause () (+ 42 1))");
    module_contains("?MODULE ?MODULE_STRING ?LINE ?FILE",
        "-module(mm).\nf() -> {?MODULE, ?MODULE_STRING,\n ?LINE, ?FILE}.\n",
        "{mm, \"mm\", 3, \"test.mini\"}");
    {
        char *d = dump_module("-module(m).\n-define(A, 1).\n-ifdef(A).\nf() -> yes.\n-else.\nf() -> no.\n-endif.\n"
                              "-ifndef(A).\ng() -> no.\n-endif.\n");
        check(d && strstr(d, "(clause () yes)") && !strstr(d, "no"), "ifdef chooses a branch", d, "yes only");
    }
    module_contains("attributes", "-module(m).\n-export([f/0]).\n-import(lists, [map/2]).\n"
                    "-compile(export_all).\n-vsn(\"1\").\n-spec f() -> ok.\n-type t() :: {a, b}.\n"
                    "-record(r, {a, b = 2 :: integer(), c :: atom()}).\nf() -> ok.\n",
                    "(export f/0)\n(export_all)\n(import lists map/2)\n(record r a (b 2) c)\n");

    /* checks */
    errors_are("clean module", "-module(m).\n-export([f/1]).\nf(X) -> case X of {A} -> A; [A] -> A end.\n", 0);
    errors_are("unbound", "-module(m).\nf() -> X.\n", 1);
    errors_are("sibling binding is not visible", "-module(m).\nf() -> {X = 1, X}.\n", 1);
    errors_are("unsafe case", "-module(m).\nf(X) -> case X of 1 -> Y = 1; _ -> ok end, Y.\n", 1);
    errors_are("bound in all clauses", "-module(m).\nf(X) -> case X of 1 -> Y = 1; _ -> Y = 2 end, Y.\n", 0);
    errors_are("unsafe catch", "-module(m).\nf() -> catch (Y = 1), Y.\n", 1);
    errors_are("fun shadows", "-module(m).\nf(X) -> F = fun(X) -> X end, F(X).\n", 0);
    errors_are("fun vars do not escape", "-module(m).\nf() -> fun(Y) -> Y end, Y.\n", 1);
    errors_are("lc vars local", "-module(m).\nf(L) -> [X || X <- L], X.\n", 1);
    errors_are("undefined function", "-module(m).\nf() -> g().\n", 1);
    errors_are("BIF and import", "-module(m).\n-import(lists, [map/2]).\nf(L) -> map(fun hd/1, L), self().\n", 0);
    errors_are("undefined export", "-module(m).\n-export([g/0]).\n", 1);
    errors_are("already defined", "-module(m).\nf() -> 1.\nf() -> 2.\n", 1);
    errors_are("head mismatch", "-module(m).\nf() -> 1; g() -> 2.\n", -1);
    errors_are("no module", "f() -> 1.\n", 1);
    errors_are("record field", "-module(m).\n-record(r, {a}).\nf() -> #r{b = 1}.\n", 1);
    errors_are("binary size var", "-module(m).\nf(<<N:8, X:N/binary>>) -> X.\n", 0);
    errors_are("guard bif ok, user fun not", "-module(m).\nf(X) when is_integer(X), g(X) -> X.\ng(_) -> 1.\n", 1);
    errors_are("undefined macro", "-module(m).\nf() -> ?X.\n", -1);
    errors_are("circular macro", "-module(m).\n-define(A, ?A).\nf() -> ?A.\n", -1);

    /* incomplete input for the shell */
    {
        int inc = 0, n = 0;
        Expr **e = parse_exprs("shell", "foo(1,", 6, &n, &inc);
        check(!e && inc == 1, "incomplete: open call", NULL, "NULL, incomplete");
        e = parse_exprs("shell", "X = \"abc", 8, &n, &inc);
        check(!e && inc == 1, "incomplete: open string", NULL, "NULL, incomplete");
        e = parse_exprs("shell", "1 + 2", 5, &n, &inc);
        check(!e && inc == 1, "incomplete: no dot", NULL, "NULL, incomplete");
        quiet(1);
        e = parse_exprs("shell", "1 + ).", 6, &n, &inc);
        quiet(0);
        check(!e && inc == 0, "complete but wrong", NULL, "NULL, not incomplete");
        e = parse_exprs("shell", "X = 1, X + 1.\n", 14, &n, &inc);
        check(e && n == 2 && inc == 0, "complete", NULL, "2 exprs");
    }

    /* deep nesting gives an error, not a crash */
    {
        size_t n = 200000;
        char *src = malloc(n * 2 + 64);
        size_t k = (size_t)sprintf(src, "-module(m).\nf() -> ");
        for (size_t i = 0; i < n; i++) src[k++] = '(';
        src[k++] = '1';
        for (size_t i = 0; i < n; i++) src[k++] = ')';
        k += (size_t)sprintf(src + k, ".\n");
        quiet(1);
        Module *m = parse_module("deep", src, k);
        quiet(0);
        check(m == NULL, "200000 nested parentheses rejected", NULL, "NULL");
        k = (size_t)sprintf(src, "-module(m).\nf() -> 1");
        for (size_t i = 0; i < 50000; i++) k += (size_t)sprintf(src + k, "+1");
        k += (size_t)sprintf(src + k, ".\n");
        quiet(1);
        m = parse_module("long", src, k);
        quiet(0);
        check(m == NULL, "50000-operator chain rejected", NULL, "NULL");
        /* a long flat list is fine and is checked without deep recursion */
        k = (size_t)sprintf(src, "-module(m).\nf() -> [");
        for (size_t i = 0; i < 100000; i++) k += (size_t)sprintf(src + k, "%s1", i ? "," : "");
        k += (size_t)sprintf(src + k, "].\n");
        m = parse_module("list", src, k);
        check(m && check_module(m) == 0, "100000-element list accepted", NULL, "module");
        free(src);
    }

    /* garbage never crashes */
    {
        int survived = 1;
        static const char *const pieces[] = {
            "(", ")", "[", "]", "{", "}", "<<", ">>", "fun", "end", "case", "of", "->", ";",
            ",", ".", ". ", "X", "a", "1", "\"s", "'q", "?", "?M(", "-define(", "#", "#{",
            ":", "when", "try", "catch", "receive", "after", "=", "!", "$", "%", "\n", "\0",
            "\xff", "\xc3\xa9", "-module(m).\n", "f() -> ", "-record(r,{a", "16#", "1.0e",
        };
        for (int round = 0; round < 300; round++) {
            size_t n = 64 + rng() % 4096;
            char *buf = GC_MALLOC_ATOMIC(n + 16);
            size_t k = 0;
            int mode = round % 2;
            while (k < n) {
                if (mode == 0) buf[k++] = (char)(rng() & 0xff);
                else {
                    const char *p = pieces[rng() % (sizeof pieces / sizeof pieces[0])];
                    size_t l = strlen(p) ? strlen(p) : 1;
                    if (k + l > n) break;
                    memcpy(buf + k, p, l);
                    k += l;
                }
            }
            quiet(1);
            Module *m = parse_module("garbage", buf, k);
            if (m) check_module(m);
            int nn, inc;
            parse_exprs("garbage", buf, k, &nn, &inc);
            parse_exprs("garbage", buf, k, &nn, NULL);
            quiet(0);
            if (mode == 0 && m) survived = 0;   /* random bytes cannot be a module */
        }
        check(survived, "random input: no crash, NULL for raw bytes", NULL, NULL);
    }

    printf("%d tests, %d failed\n", ntests, nfailed);
    return nfailed ? 1 : 0;
}
