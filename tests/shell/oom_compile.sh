#!/bin/sh
# oom_compile.sh — a module compiled on demand when the compiler's memory
# (Boehm's heap) is refused does not crash the VM: the load fails with a
# line naming the file, the call raises `undef`, as for a module that cannot
# be loaded, and later loads that fit still work. Boehm's heap is capped
# with its own GC_MAXIMUM_HEAP_SIZE: room for the standard library, not for
# a 2,000-function module. docs/reliability.md describes the rule.
BIN=${1:-bin/mini}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

{
    echo "-module(bigmod)."
    echo "-export([f0/1])."
    i=0
    while [ $i -lt 2000 ]; do
        echo "f$i(X) -> [{X, $i, \"text $i here\", [a, b, c, {d, e}]} | f$((i + 1))(X - 1)]."
        i=$((i + 1))
    done
    echo "f2000(_) -> []."
} > "$TMPD/bigmod.mini"
cat > "$TMPD/small.mini" <<'MINI'
-module(small).
-export([f/0]).
f() -> ok.
MINI
cat > "$TMPD/cmain.mini" <<'MINI'
-module(cmain).
-export([main/0]).
call(F) ->
    case catch F() of
        {'EXIT', {E, _}} -> E;
        L when is_list(L) -> length(L);
        A -> A
    end.
main() ->
    io:format("start ~p~n", [lists:sum(lists:seq(1, 10))]),
    io:format("big: ~p~n", [call(fun() -> bigmod:f0(3) end)]),
    io:format("small: ~p~n", [call(fun() -> small:f() end)]),
    io:format("alive ~p~n", [lists:sum(lists:seq(1, 100))]).
MINI
want='start 55
big: undef
small: ok
alive 5050'

for flags in "+S 1" "+S 2" "-smp disable"; do
    (cd "$TMPD" && GC_MAXIMUM_HEAP_SIZE=12M exec "$BIN" $flags cmain.mini) > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    st=$?
    [ "$st" = 0 ] || { fail "$flags: exit status $st"; tail -3 "$TMPD/err"; }
    [ "$(cat "$TMPD/out")" = "$want" ] || { fail "$flags: output"; cat "$TMPD/out"; tail -5 "$TMPD/err"; }
    grep -q '^mini: out of memory compiling bigmod.mini$' "$TMPD/err" || fail "$flags: no line for the refused compile"
done
# the same module compiles with room
(cd "$TMPD" && exec "$BIN" -eval 'io:format("~p~n", [length(bigmod:f0(3))]), halt().') > "$TMPD/out" 2>&1 < /dev/null
[ "$(cat "$TMPD/out")" = 2000 ] || { fail "with room: output"; tail -5 "$TMPD/out"; }

[ "$fails" = 0 ] && echo "oom_compile: all passed"
[ "$fails" = 0 ]
