# noshell.sh — `-noshell -s` keeps the VM running after the start function
# returns, while processes exist: a server started by -s answers requests
# (lines on standard input) until one of them calls init:stop(), which
# shuts down in order (a process trapping exits sees `shutdown`, output
# before the halt is all there) and exits 0. Without init:stop() the run
# ends when the last other process ends; `mini file.mini` ends with main.
BIN=${1:-bin/mini}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fail() { echo "FAIL: $*"; cat "$TMPD/out" "$TMPD/err" 2>/dev/null | head -20; exit 1; }
cat > "$TMPD/echo_srv.mini" <<'MINI'
-module(echo_srv).
-export([start/0, serve/1, watcher/0, main/0]).
start() ->
    spawn(?MODULE, serve, [1]),
    register(watcher, spawn(?MODULE, watcher, [])),
    io:format("started~n").
serve(N) ->
    case io:get_line("") of
        "stop\n" -> io:format("stopping~n"), ok = init:stop(), io:format("stop returned~n");
        eof -> ok;
        Line -> io:format("answer ~w: ~s", [N, Line]), serve(N + 1)
    end.
watcher() ->
    process_flag(trap_exit, true),
    receive {'EXIT', _, Why} -> io:format("watcher got ~p~n", [Why]) end.
main() -> start(), io:format("main returns~n").
MINI
# the requests come one at a time, each after the answer to the one before
mkfifo "$TMPD/in"
( cd "$TMPD" && "$BIN" -pa . -noshell -s echo_srv < in > out 2> err; echo $? > status ) &
exec 3> "$TMPD/in"
wait_for() {
    i=0
    while ! grep -qxF -- "$1" "$TMPD/out" 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 400 ] || fail "did not see '$1'"; sleep 0.05
    done
}
wait_for "started"
for n in 1 2 3; do echo "ping$n" >&3; wait_for "answer $n: ping$n"; done
echo stop >&3
i=0
while [ ! -s "$TMPD/status" ]; do i=$((i + 1)); [ $i -lt 400 ] || fail "no exit after init:stop()"; sleep 0.05; done
exec 3>&-
[ "$(cat "$TMPD/status")" = 0 ] || fail "status $(cat "$TMPD/status")"
cat > "$TMPD/want" <<'OUT'
started
answer 1: ping1
answer 2: ping2
answer 3: ping3
stopping
stop returned
watcher got shutdown
OUT
# the server's own `shutdown` may come before or after its last line: sort
sort "$TMPD/want" > "$TMPD/want.s"; sort "$TMPD/out" > "$TMPD/out.s"
cmp -s "$TMPD/want.s" "$TMPD/out.s" || { diff "$TMPD/want" "$TMPD/out"; fail "output"; }
[ -s "$TMPD/err" ] && fail "stderr not empty"

# no init:stop(): the VM ends (0) when the last other process has ended,
# after its output
"$BIN" -noshell -eval 'spawn(fun() -> receive after 100 -> io:format("late~n") end end)' \
    > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
[ $st = 0 ] && [ "$(cat "$TMPD/out")" = late ] || fail "late process: status $st"
# many processes ending at once, on every scheduler set-up: the run ends
# with 0 once the last has gone, never with a deadlock report
for flags in "-smp disable" "+S 1" "+S 2" "+S 4"; do
    "$BIN" $flags -noshell -eval '[spawn(fun() -> receive after 1 -> ok end end) || _ <- lists:seq(1, 20000)]' \
        > "$TMPD/out" 2>&1 < /dev/null; st=$?
    [ $st = 0 ] && [ ! -s "$TMPD/out" ] || fail "20000 processes with $flags: status $st"
done
# -s init stop from the command line, after the actions before it
"$BIN" -noshell -eval 'io:format("a~n")' -s init stop > "$TMPD/out" 2>&1 < /dev/null; st=$?
[ $st = 0 ] && [ "$(cat "$TMPD/out")" = a ] || fail "-s init stop: status $st"
# init:stop(3) exits 3 after the shutdown
"$BIN" -noshell -eval 'init:stop(3)' > "$TMPD/out" 2>&1 < /dev/null; st=$?
[ $st = 3 ] || fail "init:stop(3) gave $st"
# a file's main: the VM ends when main returns, other processes or not
( cd "$TMPD" && "$BIN" echo_srv.mini > out 2> err < /dev/null ); st=$?
[ $st = 0 ] && [ "$(cat "$TMPD/out")" = "started
main returns" ] || fail "file mode: status $st"
"$BIN" --help | grep -q "the VM ends when main returns" || fail "--help does not say when a file's run ends"
exit 0
