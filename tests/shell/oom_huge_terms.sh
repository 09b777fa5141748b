#!/bin/sh
# oom_huge_terms.sh — terms too big for the memory left cost the process that
# holds them, never the VM: under an address-space limit (ulimit -v) with
# malloc failing (+MMax 0), a process whose result is a 125 MB integer
# dies `killed`; one whose error reason holds a 60 MB integer four times
# dies, its report says the value is too large to print and its monitor
# sees `killed`; printing such an integer with
# io:format kills the printer; asking process_info for a dictionary whose
# list does not fit answers `undefined` (its owner dies for want of memory,
# as if before answering). docs/reliability.md
# describes the rules.
. "$(dirname "$0")/lib_ulimit.sh"     # BIN, TMPD, fail(); skipped under ASan

cat > "$TMPD/huge.mini" <<'MINI'
-module(huge).
-export([main/0]).
owner(N) -> receive {fill, M, From} -> fill_from(N + 1, M), From ! {filled, M}, owner(M) end.
fill_from(N, M) when N > M -> ok;
fill_from(N, M) -> put(N, N), fill_from(N + 1, M).
ask(A, RA, N) ->
    A ! {fill, N, self()},
    receive
        {filled, N} ->
            {P, R} = spawn_monitor(fun() ->
                case process_info(A, dictionary) of
                    undefined -> ok;
                    {dictionary, D} -> N = length(D)
                end end),
            receive {'DOWN', R, process, P, normal} -> ask(A, RA, 2 * N);
                    {'DOWN', R, process, P, Why} -> io:format("asker: ~p~n", [Why])
            end;
        {'DOWN', RA, process, A, Why} -> io:format("owner: ~p~n", [Why])
    end.
watch(Name, F) ->
    {P, R} = spawn_monitor(F),
    receive {'DOWN', R, process, P, Why} -> io:format("~s: ~p~n", [Name, Why]) end.
main() ->
    %% 1 bsl 500000000 is 62.5 MB; its square (125 MB, and as much again
    %% of scratch for the product) cannot be had
    watch("square", fun() -> X = 1 bsl 500000000, io:format("~p~n", [X * X > 0]) end),
    %% an error whose reason holds it four times: no room to copy the
    %% reason for the monitor, none for the report's text (the number
    %% itself, and its copy when the process collects, fit beside the
    %% VM's threads: 125 MB of address space with +S 2)
    watch("reason", fun() -> X = 1 bsl 500000000, erlang:error({huge, X, X, X}) end),
    %% its decimal text would need 2.4 GB of scratch
    watch("print", fun() -> X = 1 bsl 300000000, io:format("~p~n", [X]) end),
    %% a dictionary that doubles until its owner dies for memory, asked for
    %% after each doubling: each answer is the whole list or `undefined`
    {A, RA} = spawn_monitor(fun() -> owner(0) end),
    ask(A, RA, 250000),
    io:format("alive ~p~n", [lists:sum(lists:seq(1, 100))]).
MINI
want='square: killed
reason: killed
print: killed
owner: killed
alive 5050'

for flags in "+S 1" "+S 2" "-smp disable"; do
    (ulimit -v 300000; exec "$BIN" +MMax 0 $flags "$TMPD/huge.mini") > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    st=$?
    [ "$st" = 0 ] || { fail "$flags: exit status $st"; tail -3 "$TMPD/err"; }
    [ "$(cat "$TMPD/out")" = "$want" ] || { fail "$flags: output"; cat "$TMPD/out"; head -c 600 "$TMPD/err"; }
    grep -q '^Error in process <0\.[0-9]*\.0> with an exit value too large to print in the memory left$' "$TMPD/err" \
        || fail "$flags: no report for the error whose reason is too big"
done

[ "$fails" = 0 ] && echo "oom_huge_terms: all passed"
[ "$fails" = 0 ]
