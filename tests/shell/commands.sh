# commands.sh — the shell's commands, in erl's words and layout (checked
# side by side with erl 25): pwd/cd/ls (ls's columns), h(), e(N), v(N) in
# an expression, f() and b() inside expressions, an unknown command
# (`undefined shell command foo/0`, never shell_default), catch_exception,
# i/3, regs() and m(Mod)'s layout, rp/1; and c/1,2: .mini and .erl
# sources, {i, Dir} and {d, M[, V]}, a missing file, a module named unlike
# its file.
. "$(dirname "$0")/lib.sh"
D=$TMPD/work
mkdir -p "$D/lsdir" "$D/inc"
( cd "$D/lsdir" && touch a.txt bbbbbbbbbbbbbbbbbbbb.mini c dd eeeeeeeee )
cat > "$D/hello.mini" <<'MINI'
-module(hello).
-include("defs.hrl").
-export([hi/0]).
-ifdef(LOUD).
hi() -> {?GREETING, loud, ?LEVEL}.
-else.
hi() -> {?GREETING, quiet}.
-endif.
MINI
echo '-define(GREETING, "hello").' > "$D/inc/defs.hrl"
printf -- '-module(bar).\n' > "$D/foo.erl"
printf -- '-module(plain).\n-export([x/0]).\nx() -> 42.\n' > "$D/plain.erl"

# piped: the transcript must match line for line
cd "$D"
printf '%s\n' 'cd("lsdir").' 'ls().' 'pwd().' 'ls("nonexist").' 'cd("..").' \
    'X = 5.' '1+1.' 'h().' 'e(7).' 'v(7) + 1.' 'foo().' 'foo(1,2).' \
    'Y = 2, f().' 'b().' 'catch_exception(true).' 'P = self(), 1/0.' \
    'self() =:= v(-2).' 'is_list(i(0,1,0)).' 'rp(lists:seq(1,3)).' \
    'c(hello).' 'c(hello, [{i, "inc"}]).' 'hello:hi().' \
    "c(hello, [report, {d, 'LOUD'}, {d, 'LEVEL', 3}, {i, \"inc\"}])." 'hello:hi().' \
    'c(foo).' 'c(nofile).' 'c("nofile.erl").' 'c(plain).' 'plain:x().' 'c("./plain.erl").' \
    | "$BIN" > "$TMPD/out" 2> "$TMPD/err"; st=$?
cat > "$TMPD/want" <<OUT
Mini shell V0.1  (quit with q(). or Ctrl-D)
1> $D/lsdir
ok
2> a.txt                         bbbbbbbbbbbbbbbbbbbb.mini     
c                             dd                            
eeeeeeeee                     
ok
3> $D/lsdir
ok
4> no such file or directory
ok
5> $D
ok
6> 5
7> 2
8> 1: cd("lsdir")
-> ok
2: ls()
-> ok
3: pwd()
-> ok
4: ls("nonexist")
-> ok
5: cd("..")
-> ok
6: X = 5
-> 5
7: 1+1
-> 2
ok
9> 2
10> 3
11> ** exception error: undefined shell command foo/0
12> ** exception error: undefined shell command foo/2
13> ok
14> ok
15> false
16> * exception error: an error occurred when evaluating an arithmetic expression
    in operator  '/'/2
       called as 1 / 0
17> false
18> true
19> [1,2,3]
ok
20> error
21> {ok,hello}
22> {"hello",quiet}
23> {ok,hello}
24> {"hello",loud,3}
25> foo.erl: Module name 'bar' does not match file name 'foo'
error
26> {error,non_existing}
27> nofile.erl: no such file or directory
error
28> {ok,plain}
29> 42
30> {ok,plain}
31> 
OUT
cmp -s "$TMPD/want" "$TMPD/out" || { diff "$TMPD/want" "$TMPD/out"; fail "piped transcript"; }
grep -q "can't find include file \"defs.hrl\"" "$TMPD/err" || fail "no include error for c(hello)"

# on a terminal: regs() and m(Mod) in erl's layout, the prompt still works
start
expect_last "1>"
line 'regs().'
expect "** Registered procs on node nonode@nohost **"
expect "Name                  Pid          Initial Call                      Reds Msgs"
expect "** Registered ports on node nonode@nohost **"
line 'c(plain), m(plain).'
expect "Module: plain"
expect "Object file: plain.erl"
expect "         x/0"
line 'ls("lsdir").'
expect "eeeeeeeee"
line 'q().'
expect_exit 0
