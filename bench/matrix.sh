#!/usr/bin/env bash
# bench/matrix.sh [quick] -- the benchmark matrix: every pattern of
# bench/matrix.mini times every payload, on Mini (+S 1, +S 2, +S 4,
# -smp disable) and on Erlang/OTP (erl +S 1, +S 2, +S 4) side by side, each
# cell repeated (3 runs; 1 in quick mode), the median reported.
#
#   bench/matrix.sh            3 runs per cell            (make bench-matrix)
#   bench/matrix.sh quick      1 run per cell: a smoke check of every cell
#
# Raw rows (one per run) go to bench/results/<date>-matrix[-quick].csv and the
# tables of bench/matrix_report.py to the .txt beside it;
# bench/matrix_plot.py CSV draws the heat maps into docs/plots/.
#
# The runs go in rounds, every configuration once per round within a cell, so
# that a spell of slowness on this host (its vCPUs slow down by 1.5x for
# seconds at a time) lands on all configurations alike. Every run prints a
# checksum; when a cell is done, every run whose checksum differs from erl's
# (from Mini +S 1's when erl is not installed) is recorded as FAIL, never as a
# time; a crash or a non-zero exit is FAIL, a run over the timeout TIMEOUT.
# Modern erl has no -smp disable (its non-SMP emulator is gone since OTP 21):
# erl +S 1 stands for it.
#
# The host's two vCPUs are not always equal: for minutes at a time one runs
# the same single-threaded program 1.5-1.8x slower than the other, and which
# one changes. A cell whose work gathers on one scheduler (a crowd) then
# takes the time of whichever core the kernel put that thread on, in +S 1 and
# +S 2 alike. So each round also runs Mini +S 1 pinned to the first core and
# to the second (mini-S1c0, mini-S1c1, with taskset, when there are two cores
# or more and taskset is there): bench/matrix_report.py gives each cell's
# core asymmetry and judges the scaling targets again on the rounds whose
# cores were within 10% of each other.
#
# Environment: MINI (default bin/mini), ERL (default erl), RUNS (runs per
# cell), ONLY="fanout reqrep ..." (patterns), PAYLOADS="atom bin1k ..."
# (payloads), CONFIGS="mini-S1 mini-S2 ..." (configurations), T_OUT (seconds
# per run, default 60).
set -u
cd "$(dirname "$0")/.." || exit 2

MODE=matrix
[ "${1:-}" = quick ] && MODE=matrix-quick
if [ $MODE = matrix-quick ]; then RUNS=${RUNS:-1}; else RUNS=${RUNS:-3}; fi
MINI=${MINI:-bin/mini}
ERL=${ERL:-erl}
T_OUT=${T_OUT:-60}
ALL_PAYLOADS="atom tuple4 tuple12 list25 bin100 bin1k map20 list1000"
ONLY=${ONLY:-"cpu fanout fanout_hs many_to_one all_to_all pipeline reqrep timers float clock"}
PAYLOADS=${PAYLOADS:-$ALL_PAYLOADS}

# Sizes: chosen so that every cell takes about 150 ms on Mini +S 1 (the
# baseline binary on a two-core machine; see docs/benchmarks.md). The unit of
# Size is the pattern's (bench/matrix.mini): loops per sender for fanout and
# fanout_hs, messages per sender for many_to_one, rounds for all_to_all,
# messages for pipeline, calls per client for reqrep, LCG steps for cpu,
# sleeps per process for timers, grid side for float, readings per worker
# for clock. A pattern without payload has one cell, payload `none`.
size_of() {
  case "$1:$2" in
    cpu:none) echo 1000000 ;;
    timers:none) echo 15 ;;
    float:none) echo 480 ;;
    clock:none) echo 120000 ;;
    fanout:atom) echo 600 ;;       fanout:tuple4) echo 400 ;;
    fanout:tuple12) echo 150 ;;    fanout:list25) echo 60 ;;
    fanout:bin100) echo 400 ;;     fanout:bin1k) echo 150 ;;
    fanout:map20) echo 80 ;;       fanout:list1000) echo 10 ;;
    fanout_hs:atom) echo 800 ;;    fanout_hs:tuple4) echo 600 ;;
    fanout_hs:tuple12) echo 150 ;; fanout_hs:list25) echo 200 ;;
    fanout_hs:bin100) echo 400 ;;  fanout_hs:bin1k) echo 150 ;;
    fanout_hs:map20) echo 200 ;;   fanout_hs:list1000) echo 11 ;;
    many_to_one:atom) echo 30000 ;;   many_to_one:tuple4) echo 30000 ;;
    many_to_one:tuple12) echo 25000 ;; many_to_one:list25) echo 20000 ;;
    many_to_one:bin100) echo 25000 ;; many_to_one:bin1k) echo 25000 ;;
    many_to_one:map20) echo 20000 ;;  many_to_one:list1000) echo 400 ;;
    all_to_all:atom) echo 600 ;;   all_to_all:tuple4) echo 600 ;;
    all_to_all:tuple12) echo 300 ;; all_to_all:list25) echo 200 ;;
    all_to_all:bin100) echo 500 ;; all_to_all:bin1k) echo 300 ;;
    all_to_all:map20) echo 250 ;;  all_to_all:list1000) echo 4 ;;
    pipeline:atom) echo 200000 ;;  pipeline:tuple4) echo 150000 ;;
    pipeline:tuple12) echo 70000 ;; pipeline:list25) echo 50000 ;;
    pipeline:bin100) echo 150000 ;; pipeline:bin1k) echo 150000 ;;
    pipeline:map20) echo 60000 ;;  pipeline:list1000) echo 1500 ;;
    reqrep:atom) echo 15000 ;;     reqrep:tuple4) echo 12000 ;;
    reqrep:tuple12) echo 10000 ;;  reqrep:list25) echo 8000 ;;
    reqrep:bin100) echo 10000 ;;   reqrep:bin1k) echo 10000 ;;
    reqrep:map20) echo 9000 ;;     reqrep:list1000) echo 250 ;;
    *) echo "matrix.sh: no size for $1 $2" >&2; echo 0 ;;
  esac
}
payloads_of() {
  case $1 in cpu|timers|float|clock) echo none ;; *) echo "$PAYLOADS" ;; esac
}

STAMP=$(date +%Y-%m-%d-%H%M)
mkdir -p bench/results
CSV=bench/results/$STAMP-$MODE.csv
TXT=bench/results/$STAMP-$MODE.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. bench/snapshot.sh
snapshot_mini matrix.sh "$TMP"
cp bench/matrix.mini "$TMP/matrix.mini"

HAVE_ERL=0
ERLDIR=$TMP/erl
if command -v "$ERL" >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1; then
  mkdir -p "$ERLDIR"
  cp bench/matrix.mini "$ERLDIR/matrix.erl"
  if erlc -o "$ERLDIR" "$ERLDIR/matrix.erl" >"$TMP/erlc.log" 2>&1; then
    HAVE_ERL=1
    ERL_VSN=$("$ERL" -noshell -eval 'io:format("OTP ~s, erts ~s", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().' 2>/dev/null)
  else
    echo "matrix.sh: erlc failed:"; cat "$TMP/erlc.log"; ERL_VSN="erlc failed"
  fi
else
  ERL_VSN="not installed"
  echo "matrix.sh: erl is not installed: the erl columns are skipped and checksums are checked against Mini +S 1"
fi
DEFAULT_CONFIGS="mini-S1 mini-S2 mini-S4 mini-nosmp"
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
  DEFAULT_CONFIGS="$DEFAULT_CONFIGS mini-S1c0 mini-S1c1"
fi
[ $HAVE_ERL = 1 ] && DEFAULT_CONFIGS="$DEFAULT_CONFIGS erl-S1 erl-S2 erl-S4"
CONFIGS=${CONFIGS:-$DEFAULT_CONFIGS}
REF=mini-S1
[ $HAVE_ERL = 1 ] && REF=erl-S1

{
  echo "# Mini benchmark matrix, mode=$MODE, runs=$RUNS, $(date -Iseconds)"
  echo "# host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# mini: $("$MINI" --version 2>&1) ($MINI_SRC, $(stat -c %y "$MINI_SRC" | cut -d. -f1), md5 $(md5sum < "$MINI" | cut -c1-12)), git $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- vm compiler stdlib 2>/dev/null || echo ' (+ uncommitted changes in vm/compiler/stdlib)')"
  echo "# erl: $ERL_VSN (erl has no -smp disable: erl +S 1 stands for it)"
  echo "# configs: $CONFIGS; checksums checked against $REF"
  echo "pattern,payload,size,config,run,value,unit,checksum"
} > "$CSV"

# run_one CONFIG PATTERN PAYLOAD SIZE: one run, output in $TMP/out; returns
# its exit status (124 or 137 on timeout).
run_one() {
  local config=$1
  shift
  case $config in
    mini-S1)    timeout -k 5 "$T_OUT" "$MINI" +S 1 "$TMP/matrix.mini" "$@" ;;
    mini-S2)    timeout -k 5 "$T_OUT" "$MINI" +S 2 "$TMP/matrix.mini" "$@" ;;
    mini-S4)    timeout -k 5 "$T_OUT" "$MINI" +S 4 "$TMP/matrix.mini" "$@" ;;
    mini-nosmp) timeout -k 5 "$T_OUT" "$MINI" -smp disable "$TMP/matrix.mini" "$@" ;;
    mini-S1c*)  timeout -k 5 "$T_OUT" taskset -c "${config#mini-S1c}" "$MINI" +S 1 "$TMP/matrix.mini" "$@" ;;
    erl-S*)
      ERL_CRASH_DUMP_SECONDS=0 timeout -k 5 "$T_OUT" "$ERL" -noshell +S "${config#erl-S}" -pa "$ERLDIR" \
        -eval "matrix:main([\"$1\",\"$2\",\"$3\"]), halt()." ;;
    *) echo "matrix.sh: unknown config $config" >&2; return 2 ;;
  esac </dev/null >"$TMP/out" 2>"$TMP/err"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# cell PATTERN PAYLOAD SIZE: RUNS rounds of every config; rows are written
# when the cell is done, with FAIL for a checksum that differs from $REF's.
cell() {
  local pat=$1 pl=$2 size=$3 r c rc v sum ref
  local rows=()
  for r in $(seq 1 "$RUNS"); do
    for c in $CONFIGS; do
      run_one "$c" "$pat" "$pl" "$size"; rc=$?
      v=$(sed -n 's/^Time: \([0-9]*\) us$/\1/p' "$TMP/out" | tail -1)
      sum=$(sed -n 's/^checksum: //p' "$TMP/out" | tail -1 | tr -d ' ' | tr ',' ';')
      if [ $rc = 124 ] || [ $rc = 137 ]; then v=TIMEOUT
      elif [ $rc != 0 ] || [ -z "$v" ] || [ -z "$sum" ]; then
        v=FAIL; echo "    $pat $pl $c run $r: exit $rc: $(head -c 300 "$TMP/err" "$TMP/out" | tr '\n' ' ')"
      fi
      rows+=("$c $r $v ${sum:--}")
    done
  done
  # the reference checksum: the most common one among $REF's runs
  ref=$(printf '%s\n' "${rows[@]}" | awk -v ref="$REF" '$1 == ref && $4 != "-" {print $4}' | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
  local line
  for line in "${rows[@]}"; do
    set -- $line
    c=$1; r=$2; v=$3; sum=$4
    if [ -n "$ref" ] && [ "$sum" != - ] && [ "$sum" != "$ref" ]; then
      echo "    $pat $pl $c run $r: checksum $sum, $REF gave $ref: FAIL"
      v=FAIL
    fi
    echo "$pat,$pl,$size,$c,$r,$v,us,$sum" >> "$CSV"
  done
  [ -z "$ref" ] && echo "    $pat $pl: no checksum from $REF to check against"
  local out="" vals
  for c in $CONFIGS; do
    vals=$(printf '%s\n' "${rows[@]}" | awk -v c="$c" '$1 == c {print $3}' | grep -E '^[0-9]+$' | median)
    out="$out $c $([ "$vals" = - ] && echo - || awk -v v="$vals" 'BEGIN {printf "%.0f", v / 1000}')"
  done
  printf '  %-11s %-8s %7s ms:%s\n' "$pat" "$pl" "$size" "$out"
}

echo "Mini benchmark matrix ($MODE, $RUNS runs per cell, medians in ms); raw rows in $CSV"
sed -n 's/^# /  /p' "$CSV"
for pat in $ONLY; do
  for pl in $(payloads_of "$pat"); do
    cell "$pat" "$pl" "$(size_of "$pat" "$pl")"
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$CSV"
echo
python3 bench/matrix_report.py "$CSV" | tee "$TXT"
echo
echo "raw: $CSV   tables: $TXT   heat maps: python3 bench/matrix_plot.py $CSV"
