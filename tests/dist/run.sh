#!/bin/sh
# tests/dist/run.sh MINI — distribution tests on loopback: two Mini nodes,
# then a Mini node and a real `erl -sname` node in both directions, and a
# wrong cookie. Node names carry this shell's PID, every node started is
# killed on exit, and the erl tests are skipped (with the reason printed)
# only when erl is not installed.
MINI="${1:-bin/mini} $MINI_FLAGS"
DIR=$(dirname "$0")
TMP=$(mktemp -d)
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
HOST=$(hostname | cut -d. -f1)
FAIL=0
check() {   # name file expected-lines
    if printf '%s\n' "$3" | diff -u - "$2" >"$TMP/diff"; then echo "ok   dist_$1"
    else { echo "FAIL dist_$1"; cat "$TMP/diff"; head -c 1500 "$2"; } | tee /dev/stderr; FAIL=1; fi
}
# wait until epmd knows name $1 (a node registers before it serves)
wait_node() {
    i=0
    while [ $i -lt 100 ]; do
        epmd -names 2>/dev/null | grep -q "^name $1 " && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
EXPECT="alive true
ping pong
nodes true
named send ok
rpc [1,2,3]
rpc node true
remote pid true true
pid send ok
etf roundtrip true
ping bad pang
monitor down normal
monitor name down noproc
demonitor true
no DOWN after demonitor
remote spawn true
spawn on no node true
link exit normal
no EXIT after unlink
spawn_link exit boom9 true
spawn_link caller died, remote kaput
spawn_monitor down boom10 true
spawn_monitor demonitor true
no DOWN after spawn_monitor demonitor
spawn_link on no node noconnection
spawn_monitor on no node noconnection
remote saw boom
erpc back [2,1]"

# Mini serves, Mini calls
S=ds$$; C=dc$$
$MINI -sname $S -setcookie dtest "$DIR/peer.mini" serve & PIDS="$PIDS $!"
wait_node $S
timeout 60 $MINI -sname ${C}s -setcookie dtest "$DIR/peer.mini" stress "$S@$HOST" >"$TMP/st" 2>&1
check stress "$TMP/st" "stress [ok]"
timeout 30 $MINI -sname $C -setcookie dtest "$DIR/peer.mini" call "$S@$HOST" >"$TMP/mm" 2>&1
check mini_mini "$TMP/mm" "$EXPECT"

# a node that dies: DOWN noconnection, nodedown from monitor_node and
# monitor_nodes, then pang and sends that go nowhere
watch() {   # name of the node to kill, its pid, output file
    i=0
    while [ $i -lt 200 ] && ! grep -q ready "$3" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
    kill -9 "$2"
    wait "$2" 2>/dev/null
}
WATCH_EXPECT="ready
down noconnection
nodedown
nodedown
link noconnection
spawn_link noconnection
spawn_monitor noconnection
nodes []
ping pang
send to down node hi"
$MINI -sname ${S}w -setcookie dtest "$DIR/peer.mini" serve & W=$!; PIDS="$PIDS $W"
wait_node ${S}w
timeout 40 $MINI -sname ${C}w -setcookie dtest "$DIR/peer.mini" watch "${S}w@$HOST" >"$TMP/w" 2>&1 & WC=$!
watch ${S}w $W "$TMP/w"; wait $WC
check mini_node_down "$TMP/w" "$WATCH_EXPECT"

# a node that stops answering but keeps its socket open (SIGSTOP): found
# gone by the ticks, within net_ticktime (-kernel net_ticktime 4: a tick a
# second, down after four silent ones)
$MINI -sname ${S}t -setcookie dtest -kernel net_ticktime 4 "$DIR/peer.mini" serve & T=$!; PIDS="$PIDS $T"
wait_node ${S}t
timeout 60 $MINI -sname ${C}t -setcookie dtest -kernel net_ticktime 4 "$DIR/peer.mini" tick "${S}t@$HOST" >"$TMP/t" 2>&1 & TC=$!
i=0
while [ $i -lt 200 ] && ! grep -q ready "$TMP/t" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
kill -STOP $T
wait $TC
kill -CONT $T; kill $T
check net_ticktime "$TMP/t" "ticktime 4
ready
nodedown in time"

# examples/dist_ring.mini: the LED ring over two nodes, half the relays on
# each, from the command line and from the shell of the first node
EX="$DIR/../../examples"
ring_norm() { grep -v '^Mini shell' | sed -e 's/Time:[0-9]*/Time:T/' -e "s/$1@$HOST/A/" -e "s/${S}r@$HOST/B/"; }
$MINI -sname ${S}r -setcookie dtest -pa "$EX" -noshell -eval 'receive after infinity -> ok end' & PIDS="$PIDS $!"
wait_node ${S}r
timeout 30 $MINI -sname ${C}r -setcookie dtest "$EX/dist_ring.mini" "${S}r@$HOST" 100 10 2>&1 | ring_norm ${C}r >"$TMP/r"
check ring "$TMP/r" "Ring of 100: 50 on A, 50 on B
Finished. Time:T
LED: 1"
printf "dist_ring:run('${S}r@$HOST', 100, 10).\nq().\n" |
    timeout 30 $MINI -sname ${C}R -setcookie dtest -pa "$EX" 2>&1 | ring_norm ${C}R >"$TMP/rs"
check ring_shell "$TMP/rs" "1> Ring of 100: 50 on A, 50 on B
Finished. Time:T
LED: 1
ok
2> ok"

# a hidden node; global names between two Mini nodes
$MINI -sname ${S}h -setcookie dtest "$DIR/peer.mini" serve & PIDS="$PIDS $!"
wait_node ${S}h
timeout 30 $MINI -sname ${C}h -hidden -setcookie dtest "$DIR/peer.mini" hidden "${S}h@$HOST" >"$TMP/h" 2>&1
check hidden "$TMP/h" "ping pong
visible [] hidden true
seen as true
not visible there []"
timeout 30 $MINI -sname ${C}G -setcookie dtest "$DIR/peer.mini" global "${S}h@$HOST" >"$TMP/g" 2>&1
check global "$TMP/g" "register yes
again no
whereis here true
whereis there true
global send ok
unregister ok
gone there undefined"

# garbage, a truncated handshake and an absurd length: the node drops
# those connections and still answers
if command -v bash >/dev/null 2>&1; then
    PORT=$(epmd -names | awk -v n=${S}h '$2 == n { print $5 }')
    bash -c "printf 'garbage\\n' >/dev/tcp/127.0.0.1/$PORT; printf '\\000\\010N\\000' >/dev/tcp/127.0.0.1/$PORT; printf '\\377\\377xx' >/dev/tcp/127.0.0.1/$PORT; printf '\\000\\030N\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\006no_at!' >/dev/tcp/127.0.0.1/$PORT" 2>/dev/null
    timeout 30 $MINI -sname ${C}x -setcookie dtest "$DIR/peer.mini" badcookie "${S}h@$HOST" >"$TMP/x" 2>&1
    check garbage_survived "$TMP/x" "ping pong"
else
    echo "skip dist_garbage_survived: no bash for /dev/tcp"
fi

timeout 30 $MINI -setcookie dtest "$DIR/peer.mini" start ${C}k "${S}h@$HOST" >"$TMP/k" 2>&1
check net_kernel_start "$TMP/k" "before nonode@nohost false
started true true
again error
ping pong"

# ~/.erlang.cookie: made when missing (20 capital letters, owner read-only),
# refused when others can read it
mkdir "$TMP/home"
HOME="$TMP/home" timeout 10 $MINI -sname ${C}c -noshell -eval 'io:format("~s~n", [erlang:get_cookie()])' >"$TMP/ck" 2>&1
if [ "$(cat "$TMP/ck")" = "$(cat "$TMP/home/.erlang.cookie")" ] && grep -qxE '[A-Z]{20}' "$TMP/ck" &&
   [ "$(stat -c %a "$TMP/home/.erlang.cookie")" = 400 ]; then echo "ok   dist_cookie_file_made"
else echo "FAIL dist_cookie_file_made"; cat "$TMP/ck"; FAIL=1; fi
chmod 644 "$TMP/home/.erlang.cookie"
if HOME="$TMP/home" timeout 10 $MINI -sname ${C}d -noshell -eval 'ok' >/dev/null 2>"$TMP/ck2"; then
    echo "FAIL dist_cookie_file_refused (started)"; FAIL=1
elif grep -q "accessible by owner only" "$TMP/ck2"; then echo "ok   dist_cookie_file_refused"
else echo "FAIL dist_cookie_file_refused"; cat "$TMP/ck2"; FAIL=1; fi

# wrong cookie: refused, the node stays up
$MINI -sname ${S}b -setcookie right "$DIR/peer.mini" serve 2>"$TMP/refused" & PIDS="$PIDS $!"
wait_node ${S}b
timeout 30 $MINI -sname ${C}b -setcookie wrong "$DIR/peer.mini" badcookie "${S}b@$HOST" >"$TMP/bc" 2>/dev/null
check bad_cookie "$TMP/bc" "ping pang"
grep -q "rejected" "$TMP/refused" && echo "ok   dist_bad_cookie_logged" || { echo "FAIL dist_bad_cookie_logged"; FAIL=1; }

# long names (-name Name@Host): the peer's port is asked of the epmd of the
# host its name names (here an address literal), by Mini and by erl
$MINI -name ${S}l@127.0.0.1 -setcookie dtest "$DIR/peer.mini" serve & PIDS="$PIDS $!"
wait_node ${S}l
timeout 30 $MINI -name ${C}l@127.0.0.1 -setcookie dtest -noshell -eval "
N = list_to_atom(\"${S}l@127.0.0.1\"),
io:format(\"~p ~p~n\", [node() =:= list_to_atom(\"${C}l@127.0.0.1\"), net_adm:ping(N)]),
io:format(\"rpc ~p~n\", [rpc:call(N, erlang, node, [], 5000) =:= N])" >"$TMP/l" 2>&1
LONG_EXPECT="true pong
rpc true"
if command -v erl >/dev/null 2>&1; then
    timeout 30 erl -name de$$l@127.0.0.1 -setcookie dtest -noshell -eval "
io:format(\"erl ~p~n\", [net_adm:ping(list_to_atom(\"${S}l@127.0.0.1\"))]), halt()." >>"$TMP/l" 2>&1
    LONG_EXPECT="$LONG_EXPECT
erl pong"
else
    echo "skip dist_long_names with erl: erl is not installed"
fi
check long_names "$TMP/l" "$LONG_EXPECT"

# name taken
timeout 10 $MINI -sname ${S}b -setcookie right -noshell -eval ok >/dev/null 2>"$TMP/taken"
grep -q "in use" "$TMP/taken" && echo "ok   dist_name_taken" || { echo "FAIL dist_name_taken"; cat "$TMP/taken"; FAIL=1; }

if ! command -v erl >/dev/null 2>&1; then
    echo "skip dist_erl_*: erl is not installed (apt-get install erlang-base)"
    exit $FAIL
fi

# Mini serves, erl calls
E=de$$
$MINI -sname ${S}c -setcookie dtest "$DIR/peer.mini" serve & PIDS="$PIDS $!"
wait_node ${S}c
timeout 30 erl -sname $E -setcookie dtest -noshell -eval "
N = list_to_atom(\"${S}c@$HOST\"),
io:format(\"ping ~p~n\", [net_adm:ping(N)]),
%% the node is in epmd before its main registers echo: wait for the name
W = fun Wt(0) -> ok; Wt(K) -> case rpc:call(N, erlang, whereis, [echo], 5000) of Pe when is_pid(Pe) -> ok; _ -> timer:sleep(25), Wt(K - 1) end end,
W(200),
{echo, N} ! {self(), hello},
receive {echoed, hello} -> io:format(\"named send ok~n\") after 5000 -> io:format(\"timeout~n\") end,
io:format(\"rpc ~p~n\", [rpc:call(N, lists, seq, [1,3], 5000)]),
R = make_ref(),
[begin {echo, N} ! {self(), {t2b, T}},
       receive {t2b, B, S} -> io:format(\"t2b ~p ~p~n\", [B =:= term_to_binary(T), re:run(S, Re) =/= nomatch]) after 5000 -> io:format(\"timeout~n\") end
 end || {T, Re} <- [{self(), \"^<[1-9][0-9]*[.][0-9]+[.][0-9]+>$\"}, {R, \"^#Ref<[1-9][0-9]*([.][0-9]+){3}>$\"},
                    {hd(erlang:ports()), \"^#Port<[1-9][0-9]*[.][0-9]+>$\"}, {{self(), [R]}, \"^{<.*>,[[]#Ref<.*>[]]}$\"}]],
Self = self(),
Sp = spawn(N, erlang, send, [Self, {spawned, N}]),
receive {spawned, N} -> io:format(\"remote spawn ~p~n\", [node(Sp) =:= N]) after 5000 -> io:format(\"timeout~n\") end,
P = rpc:call(N, erlang, whereis, [echo], 5000),
P ! {self(), pid},
receive {echoed, pid} -> io:format(\"pid send ok~n\") after 5000 -> io:format(\"timeout~n\") end,
process_flag(trap_exit, true),
Sl = spawn_link(N, timer, sleep, [100]),
receive {'EXIT', Sl, Rs} -> io:format(\"spawn_link exit ~p~n\", [Rs]) after 5000 -> io:format(\"timeout~n\") end,
Q = spawn(N, timer, sleep, [300]),
link(Q),
receive {'EXIT', Q, Rq} -> io:format(\"link exit ~p~n\", [Rq]) after 5000 -> io:format(\"timeout~n\") end,
Sb = spawn_link(N, erlang, exit, [boom]),
receive {'EXIT', Sb, Rb} -> io:format(\"spawn_link exit ~p~n\", [Rb]) after 5000 -> io:format(\"timeout~n\") end,
Pc = spawn(fun() -> Self ! {child, spawn_link(N, timer, sleep, [infinity])}, receive die -> exit(kaput) end end),
Qc = receive {child, C} -> C after 5000 -> undefined end,
Mc = monitor(process, Qc),
Pc ! die,
receive {'DOWN', Mc, process, Qc, Rc} -> io:format(\"spawn_link caller died, remote ~p~n\", [Rc]) after 5000 -> io:format(\"timeout~n\") end,
{Pm, Mm} = spawn_monitor(N, erlang, exit, [boom]),
receive {'DOWN', Mm, process, Pm, Rm} -> io:format(\"spawn_monitor down ~p~n\", [Rm]) after 5000 -> io:format(\"timeout~n\") end,
halt()." >"$TMP/em" 2>&1
check erl_to_mini "$TMP/em" "ping pong
named send ok
rpc [1,2,3]
t2b true true
t2b true true
t2b true true
t2b true true
remote spawn true
pid send ok
spawn_link exit normal
link exit normal
spawn_link exit boom
spawn_link caller died, remote kaput
spawn_monitor down boom"

# erl serves, Mini calls
E2=df$$
erl -sname $E2 -setcookie dtest -noshell -eval "register(echo, spawn(fun L() -> receive {F, M} -> F ! {echoed, M}, L(); stop -> ok end end))." >/dev/null 2>&1 & PIDS="$PIDS $!"
wait_node $E2
timeout 30 $MINI -sname ${C}e -setcookie dtest "$DIR/peer.mini" call "$E2@$HOST" erl >"$TMP/me" 2>&1
check mini_to_erl "$TMP/me" "$EXPECT"

E3=dg$$
erl -sname $E3 -setcookie dtest -noshell -eval "register(echo, spawn(fun L() -> receive {F, M} -> F ! {echoed, M}, L(); stop -> ok end end))." >/dev/null 2>&1 & W=$!; PIDS="$PIDS $W"
wait_node $E3
timeout 40 $MINI -sname ${C}g -setcookie dtest "$DIR/peer.mini" watch "$E3@$HOST" >"$TMP/wg" 2>&1 & WC=$!
watch $E3 $W "$TMP/wg"; wait $WC
check erl_node_down "$TMP/wg" "$WATCH_EXPECT"
exit $FAIL
