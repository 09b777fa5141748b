#!/usr/bin/env bash
# bench/ets.sh [quick | scale] -- ETS throughput, Mini and Erlang/OTP side by side (a
# benchmark, not a test): lookup / insert / update_counter / hot (one key's
# counter bumped by every process) from 1, 2 and 4
# processes on a set and an ordered_set, plain and with read_concurrency /
# write_concurrency, both VMs with +S 2 (this machine has 2 cores); then the
# read-mostly lines (lookup, read_concurrency) with +S 1 against +S 2 for the
# scaling ratio. Each cell is the median of RUNS runs (3; quick: 1); in the
# main table Mini and erl run in turns and Mini/erl is the median of the
# rounds' ratios. The
# operation count per process is N (default 1,000,000; quick 200,000).
# Prints a markdown table; times come from inside the program.
#
# bench/ets.sh scale -- scaling only: each shape (op table options, 2
# processes) run with +S 1 and +S 2, on Mini (MINI) and on erl, in ROUNDS
# interleaved rounds (default 7: every shape and both flags once per round,
# so a burst of load elsewhere hits both sides alike); prints the median
# ops/s of each and the ratio of the medians. The `none` shape is the
# benchmark loop without ETS: what the machine and the schedulers give.
set -u
cd "$(dirname "$0")/.." || exit 2
MINI=${MINI:-bin/mini}
RUNS=${RUNS:-3}; N=${N:-1000000}
[ "${1:-}" = quick ] && { RUNS=1; N=200000; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp bench/ets_bench.mini "$tmp/ets_bench.erl"
erlc -o "$tmp" "$tmp/ets_bench.erl" || exit 1

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mini_run() { # sched args...
  local s=$1; shift
  for _ in $(seq "$RUNS"); do timeout 300 "$MINI" +S "$s" bench/ets_bench.mini "$@" | awk '/ops\/s/ {print $2}'; done | median
}
erl_run() {
  local s=$1; shift
  local a; a=$(printf '"%s",' "$@")
  for _ in $(seq "$RUNS"); do
    timeout 300 erl +S "$s" -noshell -pa "$tmp" -eval "ets_bench:main([${a%,}]), halt()." | awk '/ops\/s/ {print $2}'
  done | median
}
k() { awk -v x="$1" 'BEGIN { printf "%.0fk", x / 1000 }'; }

if [ "${1:-}" = scale ]; then
  ROUNDS=${ROUNDS:-7}; N=${N:-1000000}
  shapes="none:set:plain lookup:set:plain lookup:set:rc lookup:ordered_set:rc read_mostly:set:rc read_mostly:set:rcwc update_counter:set:wc update_counter:set:rc insert:set:plain"
  echo "load before: $(uptime)"
  for r in $(seq "$ROUNDS"); do
    for sh in $shapes; do
      IFS=: read -r op type conc <<<"$sh"
      for s in 1 2; do
        echo "$sh mini $s $(timeout 300 "$MINI" +S "$s" bench/ets_bench.mini "$op" "$type" "$conc" 2 "$N" | awk '/ops\/s/ {print $2}')"
        echo "$sh erl $s $(timeout 300 erl +S "$s" -noshell -pa "$tmp" -eval "ets_bench:main([\"$op\",\"$type\",\"$conc\",\"2\",\"$N\"]), halt()." | awk '/ops\/s/ {print $2}')"
      done
    done
  done > "$tmp/scale"
  echo
  echo "| op | table | options | Mini +S 1 | Mini +S 2 | ratio | erl +S 1 | erl +S 2 | ratio |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for sh in $shapes; do
    IFS=: read -r op type conc <<<"$sh"
    med() { awk -v k="$sh" -v v="$1" -v s="$2" '$1 == k && $2 == v && $3 == s {print $4}' "$tmp/scale" | median; }
    m1=$(med mini 1); m2=$(med mini 2); e1=$(med erl 1); e2=$(med erl 2)
    echo "| $op | $type | $conc | $(k "$m1") | $(k "$m2") | $(awk -v a="$m2" -v b="$m1" 'BEGIN{printf "%.2f", a/b}') | $(k "$e1") | $(k "$e2") | $(awk -v a="$e2" -v b="$e1" 'BEGIN{printf "%.2f", a/b}') |"
  done
  echo
  echo "load after: $(uptime)"
  exit 0
fi

echo "load before: $(uptime)"
echo
echo "| op | table | options | procs | Mini ops/s | erl ops/s | Mini/erl |"
echo "|---|---|---|---|---|---|---|"
for op in lookup insert update_counter hot; do
  for type in set ordered_set; do
    case $op in lookup) concs="plain rc";; *) concs="plain wc";; esac
    [ $type = ordered_set ] && [ $op != lookup ] && concs="plain wc"
    for conc in $concs; do
      for p in 1 2 4; do
        # Mini and erl in turns, RUNS rounds: a slow spell of the host falls
        # on both, and the ratio is the median of the rounds' ratios
        for _ in $(seq "$RUNS"); do
          m=$(RUNS=1 mini_run 2 $op $type $conc $p "$N"); e=$(RUNS=1 erl_run 2 $op $type $conc $p "$N")
          echo "$m $e"
        done > "$tmp/line"
        m=$(awk '{print $1}' "$tmp/line" | median); e=$(awk '{print $2}' "$tmp/line" | median)
        r=$(awk '$2 > 0 {printf "%.4f\n", $1 / $2}' "$tmp/line" | median)
        r=$(awk -v r="$r" 'BEGIN { if (r != "") printf "%.2f", r; else print "-" }')
        echo "| $op | $type | $conc | $p | $(k "$m") | $(k "$e") | $r |"
      done
    done
  done
done
echo
echo "Scaling of the read-mostly lines (lookup, 2 processes): +S 2 over +S 1"
echo
echo "| table | options | Mini +S 1 | Mini +S 2 | ratio | erl +S 1 | erl +S 2 | ratio |"
echo "|---|---|---|---|---|---|---|---|"
for type in set ordered_set; do
  for conc in plain rc; do
    m1=$(mini_run 1 lookup $type $conc 2 "$N"); m2=$(mini_run 2 lookup $type $conc 2 "$N")
    e1=$(erl_run 1 lookup $type $conc 2 "$N"); e2=$(erl_run 2 lookup $type $conc 2 "$N")
    echo "| $type | $conc | $(k "$m1") | $(k "$m2") | $(awk -v a="$m2" -v b="$m1" 'BEGIN{printf "%.2f", a/b}') | $(k "$e1") | $(k "$e2") | $(awk -v a="$e2" -v b="$e1" 'BEGIN{printf "%.2f", a/b}') |"
  done
done
echo
echo "load after: $(uptime)"
