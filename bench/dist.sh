#!/bin/sh
# bench/dist.sh [MINI] -- distribution throughput on loopback: round trips
# per second and one-way messages per second between two nodes, for
# Mini-Mini, Mini-erl (Mini calls), erl-Mini (erl calls) and erl-erl, with
# bench/dist_bench.mini on both sides (compiled by erlc for erl). Each pair
# runs REPS times (default 3); the median is printed. A benchmark, not a test.
MINI=${1:-bin/mini}
ROUNDS=${ROUNDS:-20000}
MSGS=${MSGS:-200000}
REPS=${REPS:-3}
HOST=$(hostname | cut -d. -f1)
TMP=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
cp bench/dist_bench.mini "$TMP/dist_bench.erl"
erlc -o "$TMP" "$TMP/dist_bench.erl" || exit 1
wait_node() { i=0; while [ $i -lt 100 ] && ! epmd -names | grep -q "^name $1 "; do sleep 0.1; i=$((i + 1)); done; }
serve() {   # kind name
    if [ "$1" = mini ]; then "$MINI" -sname "$2" -setcookie bench bench/dist_bench.mini serve &
    else erl -sname "$2" -setcookie bench -pa "$TMP" -noshell -eval 'dist_bench:serve().' & fi
    PIDS="$PIDS $!"
    wait_node "$2"
}
client() {  # kind name server
    if [ "$1" = mini ]; then "$MINI" -sname "$2" -setcookie bench bench/dist_bench.mini client "$3@$HOST" $ROUNDS $MSGS
    else erl -sname "$2" -setcookie bench -pa "$TMP" -noshell -eval "dist_bench:main([\"client\", \"$3@$HOST\", \"$ROUNDS\", \"$MSGS\"]), halt()."; fi
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-10s %12s %12s\n' pair "rt/s" "msg/s"
for pair in mini-mini mini-erl erl-mini erl-erl; do
    c=${pair%-*}; s=${pair#*-}
    S=bs$$$c$s
    serve $s $S
    : > "$TMP/out"
    r=1
    while [ $r -le $REPS ]; do client $c bc$$$c$s$r $S >> "$TMP/out"; r=$((r + 1)); done
    rt=$(awk '$1 == "rt/s" { print $2 }' "$TMP/out" | median)
    ms=$(awk '$1 == "msg/s" { print $2 }' "$TMP/out" | median)
    printf '%-10s %12s %12s\n' "$pair" "$rt" "$ms"
done
