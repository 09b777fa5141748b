# oom_runaway.sh — a process that cannot get memory dies alone: under an
# address-space limit (ulimit -v) with and without the VM's memory ceiling,
# and under a small ceiling alone, runaway processes (endless consing, a
# non-tail recursion, lists:duplicate(1 bsl 62, a), lists:seq to 2^40) are
# killed, their monitors see `killed`, an error report names each, and the
# VM answers the next request. Then the ceiling kills the largest process,
# not the one asking, and a sender that cannot have the copy of its message
# dies. docs/reliability.md describes the limits.
. "$(dirname "$0")/lib_ulimit.sh"     # BIN, TMPD, fail(); skipped under ASan

cat > "$TMPD/runaway.mini" <<'MINI'
-module(runaway).
-export([main/0]).
grow(L) -> grow([x | L]).
deep(0) -> 0;
deep(N) -> 1 + deep(N + 1).
run(Name, F) ->
    {P, R} = spawn_monitor(F),
    receive {'DOWN', R, process, P, Why} -> io:format("~s: ~p~n", [Name, Why]) end.
main() ->
    run("cons", fun() -> grow([]) end),
    run("deep", fun() -> deep(1) end),
    run("duplicate", fun() -> lists:duplicate(1 bsl 62, a) end),
    run("seq", fun() -> length(lists:seq(1, 1 bsl 40)) end),
    io:format("alive ~p~n", [lists:sum(lists:seq(1, 100))]).
MINI
want='cons: killed
deep: killed
duplicate: killed
seq: killed
alive 5050'

# run NAME ULIMIT_KB FLAGS...: the four runaways die, the VM goes on
run() {
    name=$1; lim=$2; shift 2
    (ulimit -v "$lim"; exec "$BIN" "$@" "$TMPD/runaway.mini") > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    st=$?
    [ "$st" = 0 ] || fail "$name: exit status $st"
    [ "$(cat "$TMPD/out")" = "$want" ] || { fail "$name: output"; cat "$TMPD/out"; }
    n=$(grep -c '^     Context: ' "$TMPD/err")
    [ "$n" = 4 ] || { fail "$name: $n error reports, want 4"; head -c 600 "$TMPD/err"; }
    grep -q '^     Process:            <0\.[0-9]*\.0> $' "$TMPD/err" || fail "$name: no report names the process"
}
run "ulimit -v, malloc fails" 200000 +MMax 0
run "ulimit -v, default ceiling" 200000
run "ceiling only" unlimited +MMax 48

# The ceiling kills the largest process (a holder of a big list, waiting),
# not the smaller one whose collection crossed it.
cat > "$TMPD/victim.mini" <<'MINI'
-module(victim).
-export([main/0]).
main() ->
    Self = self(),
    {Big, RB} = spawn_monitor(fun() -> L = lists:seq(1, 2000000), Self ! held, receive _ -> length(L) end end),
    receive held -> ok end,
    {Small, RS} = spawn_monitor(fun() -> Self ! {small, length(lists:seq(1, 1500000))} end),
    receive {'DOWN', RB, process, Big, Why} -> io:format("big: ~p~n", [Why]) end,
    receive {small, N} -> io:format("small: ~p~n", [N]) end,
    receive {'DOWN', RS, process, Small, W2} -> io:format("small: ~p~n", [W2]) end,
    io:format("alive~n").
MINI
for flags in "+S 1" "+S 2" "-smp disable"; do
    timeout 60 "$BIN" $flags +MMax 48 "$TMPD/victim.mini" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    [ "$(cat "$TMPD/out")" = 'big: killed
small: 1500000
small: normal
alive' ] || { fail "ceiling victim ($flags)"; cat "$TMPD/out"; head -c 600 "$TMPD/err"; }
done
grep -q 'Context:            VM memory ceiling reached' "$TMPD/err" || fail "ceiling victim: no report"

# A sender whose copy of a message cannot be had dies (the copies it sent
# before wait in a queue that is never read); the VM goes on.
cat > "$TMPD/sendbig.mini" <<'MINI'
-module(sendbig).
-export([main/0]).
main() ->
    Self = self(),
    Sink = spawn(fun() -> receive never -> ok end end),
    {P, R} = spawn_monitor(fun() ->
        L = lists:seq(1, 3000000),
        Self ! built,
        [Sink ! L || _ <- lists:seq(1, 8)],
        Self ! {sent, length(L)}
    end),
    receive built -> io:format("built~n"); {'DOWN', R, process, P, W} -> io:format("~p~n", [W]) end,
    receive {'DOWN', R, process, P, Why} -> io:format("sender: ~p~n", [Why]);
            {sent, N} -> io:format("sent ~p~n", [N]) end,
    exit(Sink, kill),
    io:format("alive~n").
MINI
(ulimit -v 400000; exec "$BIN" +MMax 0 "$TMPD/sendbig.mini") > "$TMPD/out" 2> "$TMPD/err" < /dev/null
[ "$(cat "$TMPD/out")" = 'built
sender: killed
alive' ] || { fail "big send"; cat "$TMPD/out"; head -c 600 "$TMPD/err"; }

[ "$fails" = 0 ] && echo "oom_runaway: all passed"
[ "$fails" = 0 ]
