#!/usr/bin/env bash
# bench/tcp_echo.sh [quick] -- TCP round trips per second over loopback, Mini
# and Erlang/OTP side by side (a benchmark, not a test): bench/tcp_echo.mini
# with 1 and 50 connections, the server side passive or {active, once}, both
# VMs with +S 1 and +S 2. Each cell is the median of RUNS runs (3; quick: 1);
# N round trips per connection (default 20000, split among the 50
# connections; quick: 5000). The rate comes from inside the program.
set -u
cd "$(dirname "$0")/.." || exit 2
MINI=${MINI:-bin/mini}
RUNS=${RUNS:-3}; N=${N:-20000}
[ "${1:-}" = quick ] && { RUNS=1; N=5000; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp bench/tcp_echo.mini "$tmp/tcp_echo.erl"
erlc -o "$tmp" "$tmp/tcp_echo.erl" || exit 1

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mini_run() { # sched mode conns n
  for _ in $(seq "$RUNS"); do timeout 300 "$MINI" +S "$1" bench/tcp_echo.mini "$2" "$3" "$4" | awk '/rt\/s/ {print $2}'; done | median
}
erl_run() {
  for _ in $(seq "$RUNS"); do
    timeout 300 erl +S "$1" -noshell -pa "$tmp" -eval "tcp_echo:main([\"$2\", \"$3\", \"$4\"]), halt()." | awk '/rt\/s/ {print $2}'
  done | median
}
k() { awk -v x="$1" 'BEGIN { printf "%.1fk", x / 1000 }'; }

echo "load before: $(uptime)"
echo
echo "| server side | conns | sched | Mini rt/s | erl rt/s | Mini/erl |"
echo "|---|---|---|---|---|---|"
for mode in passive once; do
  for conns in 1 50; do
    n=$N; [ "$conns" -gt 1 ] && n=$((N / conns))
    for s in 1 2; do
      m=$(mini_run "$s" "$mode" "$conns" "$n"); e=$(erl_run "$s" "$mode" "$conns" "$n")
      r=$(awk -v a="${m:-0}" -v b="${e:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
      echo "| $mode | $conns | +S $s | $(k "${m:-0}") | $(k "${e:-0}") | $r |"
    done
  done
done
