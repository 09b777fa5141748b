# limits.sh — the process and atom limits (+P, +t) and what happens at them:
# system_info reports them, spawn past +P raises system_limit, a full atom
# table makes list_to_atom raise system_limit and a module that would need
# new atoms fail to load with one clear message and a system_limit error
# (not a compiler error per atom), and the VM goes on. docs/reliability.md.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

cat > "$TMPD/atoms.mini" <<'MINI'
-module(atoms).
-export([main/0]).
fill(N) ->
    try list_to_atom("fill_" ++ integer_to_list(N)) of _ -> fill(N + 1)
    catch error:R -> R end.
main() ->
    io:format("~p~n", [erlang:system_info(atom_limit)]),
    io:format("~p~n", [fill(0)]),
    io:format("~p~n", [erlang:system_info(atom_count) =:= erlang:system_info(atom_limit)]),
    {'EXIT', {Why, _}} = (catch queue:new()),
    io:format("~p~n", [Why]),
    io:format("~p~n", [list_to_existing_atom("fill_1")]),
    io:format("alive~n").
MINI
"$BIN" +t 8192 "$TMPD/atoms.mini" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
[ "$(cat "$TMPD/out")" = '8192
system_limit
true
system_limit
fill_1
alive' ] || { fail "+t 8192"; cat "$TMPD/out"; }
grep -q 'internal' "$TMPD/err" && fail "+t 8192: internal compiler errors"
[ "$(grep -c 'system_limit: the atom table is full' "$TMPD/err")" = 1 ] || { fail "+t 8192: message"; cat "$TMPD/err"; }

cat > "$TMPD/procs.mini" <<'MINI'
-module(procs).
-export([main/0]).
spawn_all(0, Acc) -> {ok, Acc};
spawn_all(N, Acc) ->
    try spawn(fun() -> receive stop -> ok end end) of P -> spawn_all(N - 1, [P | Acc])
    catch error:R -> {R, Acc} end.
main() ->
    io:format("~p~n", [erlang:system_info(process_limit)]),
    {R, Ps} = spawn_all(5000, []),
    io:format("~p ~p~n", [R, length(Ps) + 1 =< 1024]),
    [P ! stop || P <- Ps],
    timer:sleep(50),
    {ok, Ps2} = spawn_all(500, []),
    [P ! stop || P <- Ps2],
    io:format("alive~n").
MINI
"$BIN" +P 1024 "$TMPD/procs.mini" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
[ "$(cat "$TMPD/out")" = '1024
system_limit true
alive' ] || { fail "+P 1024"; cat "$TMPD/out" "$TMPD/err" | head; }

cat > "$TMPD/defaults.mini" <<'MINI'
-module(defaults).
-export([main/0]).
main() ->
    io:format("~p ~p~n", [erlang:system_info(process_limit), erlang:system_info(atom_limit)]).
MINI
[ "$("$BIN" "$TMPD/defaults.mini")" = "1048576 1048576" ] || fail "default limits"

for bad in "+P 10" "+P x" "+t 100" "+hmax 10" "+hmaxk maybe" "+MMax" "+hms -1"; do
    # shellcheck disable=SC2086
    "$BIN" $bad "$TMPD/defaults.mini" > /dev/null 2> "$TMPD/err" < /dev/null
    st=$?
    [ "$st" = 2 ] && grep -q '^usage: mini' "$TMPD/err" || fail "bad flag $bad: status $st"
done

[ "$fails" = 0 ] && echo "limits: all passed"
[ "$fails" = 0 ]
