# pipe.sh — the shell reading piped input (no terminal, no
# readline): prompts are printed for each expression as erl prints them,
# results and errors come in order, and the end of input ends the VM (0).
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
printf '%s\n' 'io:format("hi~n").' 'X = 1.' 'X.' 'foo(.' 'Y.' 'X = 2.' 'X.' '1 +' '2.' \
    '[{a, "text"} | lists:seq(1, 40)].' 'self() ! m, flush().' 'f().' 'b().' \
    'throw(up).' 'exit(bye).' 'undefined_mod:f(1).' \
    | $BIN > "$TMPD/out" 2> "$TMPD/err"; st=$?
cat > "$TMPD/want" <<'OUT'
Mini shell V0.1  (quit with q(). or Ctrl-D)
1> hi
ok
2> 1
3> 1
4> * 1:5: syntax error before: '.'
4> * 1:1: variable 'Y' is unbound
5> ** exception error: no match of right hand side value 2
6> 1
7> 3
8> [{a,"text"},
 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,
 24,25,26,27,28|...]
9> Shell got m
ok
10> ok
11> ok
12> ** exception throw: up
13> ** exception exit: bye
14> ** exception error: undefined function undefined_mod:f/1
15> 
OUT
if [ $st -ne 0 ] || ! cmp -s "$TMPD/want" "$TMPD/out"; then
    echo "FAIL: status $st; diff want got:"; diff "$TMPD/want" "$TMPD/out"; cat "$TMPD/err"; exit 1
fi
# halt(N) from piped input gives status N, after the output before it
printf 'io:format("bye~n"), halt(7).\n' | $BIN > "$TMPD/out"; st=$?
[ $st -eq 7 ] && grep -qx '1> bye' "$TMPD/out" || { echo "FAIL: halt(7) gave $st"; cat "$TMPD/out"; exit 1; }
# q() prints ok, then stops with 0
printf 'q().\n1 + 1.\n' | $BIN > "$TMPD/out"; st=$?
[ $st -eq 0 ] && grep -qx '1> ok' "$TMPD/out" && ! grep -q '^2' "$TMPD/out" || { echo "FAIL: q() gave $st"; cat "$TMPD/out"; exit 1; }
exit 0
