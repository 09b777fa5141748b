#!/bin/sh
# oom_bifs.sh — a BIF whose result is as big as its input, asked for more
# memory than the system gives, kills only the process that called it: under
# an address-space limit (ulimit -v) with malloc failing (+MMax 0), each
# call below runs in its own process on an input that fits, for a result
# that cannot; each process dies `killed` with an error report, and the VM
# answers the next request. docs/reliability.md describes the rule.
. "$(dirname "$0")/lib_ulimit.sh"     # BIN, TMPD, fail(); skipped under ASan

cat > "$TMPD/bigbifs.mini" <<'MINI'
-module(bigbifs).
-export([main/0]).
%% B: 20 MB; every result below is 200 MB or more
big() -> binary:copy(<<"ab">>, 10000000).
etf_list(N) -> <<131, 108, N:32, (binary:copy(<<97, 1>>, N))/binary, 106>>.
run(Name, F) ->
    {P, R} = spawn_monitor(fun() -> erlang:garbage_collect(), F() end),
    receive {'DOWN', R, process, P, Why} -> io:format("~s: ~p~n", [Name, Why]) end.
main() ->
    run("binary_to_list", fun() -> binary_to_list(big()) end),
    run("binary_to_list/3", fun() -> binary_to_list(big(), 1, 20000000) end),
    run("binary:bin_to_list", fun() -> binary:bin_to_list(big()) end),
    run("bitstring_to_list", fun() -> bitstring_to_list(big()) end),
    run("iolist_to_binary", fun() -> B = big(), iolist_to_binary([B || _ <- lists:seq(1, 15)]) end),
    run("list_to_binary", fun() -> B = big(), list_to_binary([B || _ <- lists:seq(1, 15)]) end),
    run("binary:copy", fun() -> binary:copy(big(), 20) end),
    run("term_to_binary", fun() -> B = big(), term_to_binary(list_to_tuple([B || _ <- lists:seq(1, 15)])) end),
    run("binary_to_term", fun() -> binary_to_term(etf_list(15000000)) end),
    run("tuple_to_list", fun() -> tuple_to_list(erlang:make_tuple(12000000, a)) end),
    run("make_tuple/3", fun() -> T = erlang:make_tuple(16000000, a, [{1, b}]), erlang:make_tuple(16000000, T, []) end),
    run("list_to_tuple", fun() -> list_to_tuple(binary_to_list(binary:copy(<<"a">>, 9000000))) end),
    run("append_element", fun() -> T = erlang:make_tuple(12000000, a), {erlang:append_element(T, b), erlang:append_element(T, c)} end),
    run("lists:reverse", fun() -> L = binary_to_list(binary:copy(<<"a">>, 7000000)), {lists:reverse(L), lists:reverse(L)} end),
    run("++", fun() -> L = binary_to_list(binary:copy(<<"a">>, 7000000)), {L ++ [x], L ++ [y]} end),
    run("unicode:characters_to_list", fun() -> unicode:characters_to_list(big()) end),
    %% copies out of ETS: a 12 MB object, asked for sixteen times over
    T = ets:new(t, [public, bag]),
    [] = ets:tab2list(T),                    % its module loaded while there is room
    Me = self(),
    spawn(fun() -> ets:insert(T, {k, erlang:make_tuple(1500000, a)}), Me ! inserted end),
    receive inserted -> ok end,
    run("ets:lookup", fun() -> [ets:lookup(T, k) || _ <- lists:seq(1, 16)] end),
    run("ets:lookup_element", fun() -> [ets:lookup_element(T, k, 2) || _ <- lists:seq(1, 16)] end),
    run("ets:tab2list", fun() -> [ets:tab2list(T) || _ <- lists:seq(1, 16)] end),
    run("ets:select", fun() -> [ets:select(T, [{'_', [], ['$_']}]) || _ <- lists:seq(1, 16)] end),
    io:format("alive ~p~n", [lists:sum(lists:seq(1, 100))]).
MINI
want='binary_to_list: killed
binary_to_list/3: killed
binary:bin_to_list: killed
bitstring_to_list: killed
iolist_to_binary: killed
list_to_binary: killed
binary:copy: killed
term_to_binary: killed
binary_to_term: killed
tuple_to_list: killed
make_tuple/3: killed
list_to_tuple: killed
append_element: killed
lists:reverse: killed
++: killed
unicode:characters_to_list: killed
ets:lookup: killed
ets:lookup_element: killed
ets:tab2list: killed
ets:select: killed
alive 5050'
nwant=20

for flags in "+S 1" "+S 2" "-smp disable"; do
    (ulimit -v 200000; exec "$BIN" +MMax 0 $flags "$TMPD/bigbifs.mini") > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    st=$?
    [ "$st" = 0 ] || fail "$flags: exit status $st"
    [ "$(cat "$TMPD/out")" = "$want" ] || { fail "$flags: output"; cat "$TMPD/out"; head -c 600 "$TMPD/err"; }
    n=$(grep -c '^     Context: ' "$TMPD/err")
    [ "$n" = "$nwant" ] || { fail "$flags: $n error reports, want $nwant"; head -c 600 "$TMPD/err"; }
done

[ "$fails" = 0 ] && echo "oom_bifs: all passed"
[ "$fails" = 0 ]
