#!/usr/bin/env bash
# bench/run.sh [quick] -- runs every benchmark workload on Mini (+S 1, +S 2,
# -smp disable) and the same programs on Erlang/OTP (erl +S 1, +S 2) when erl is
# installed, and fib on lua5.4; each measurement is repeated (5 runs, 3 in quick
# mode) and the median is reported, with the ratios the targets are stated in.
#
#   bench/run.sh            full sizes, 5 runs each   (make bench)
#   bench/run.sh quick      smaller sizes where the ratio does not need them, 3 runs
#
# Raw numbers (one row per run) go to bench/results/<date>-<mode>.csv and the
# printed tables to bench/results/<date>-<mode>.txt; bench/report.py turns a csv
# into the tables again and bench/plot.py into docs/plots/*.svg.
#
# Times come from inside the programs (erlang:monotonic_time), so VM start-up
# and module loading are not counted: relay prints `Finished. Time:<us>`, big
# `<us> us`, hackbench `Time: <s>`, bench/*.mini and bench/timeit.mini
# `Time: <us> us`. Every run has a timeout; a run that fails, crashes or times
# out is recorded as FAIL/TIMEOUT, never as a number.
#
# Environment: MINI (default bin/mini), ERL (default erl), LUA (default lua5.4),
# RUNS (override the number of runs), ONLY="ring big ..." (a subset of workloads).
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

MODE=full
[ "${1:-}" = quick ] && MODE=quick
if [ $MODE = quick ]; then RUNS=${RUNS:-3}; else RUNS=${RUNS:-5}; fi

MINI=${MINI:-bin/mini}
ERL=${ERL:-erl}
LUA=${LUA:-lua5.4}
ONLY=${ONLY:-"fib lists ring two big hackbench threadring pingpong flood spawn idle pairs stream bigheaps"}

# ---------------------------------------------------------------- sizes
if [ $MODE = quick ]; then
  RING_N=1000; RING_CYCLES=3000
  BIG_NS="100 200 300"
  HB_GROUPS=10; HB_LOOPS=100
  TR_HOPS=1000000
  PP_N=200000
  FLOOD_MAX=640000; ERL_ALLOC_MAX=80000
  SPAWN_N=100000
  LISTS_REPS=3
  ERL_FLOOD_CONFIGS="erl-S1"
  T_OUT=120
else
  RING_N=1000; RING_CYCLES=10000
  BIG_NS="100 300 500 700"
  HB_GROUPS=10; HB_LOOPS=100
  TR_HOPS=5000000
  PP_N=1000000
  FLOOD_MAX=640000; ERL_ALLOC_MAX=160000
  SPAWN_N=1000000
  LISTS_REPS=5
  ERL_FLOOD_CONFIGS="erl-S1 erl-S2"
  T_OUT=300
fi
FIB_N=30
IDLE_N=10000


STAMP=$(date +%Y-%m-%d-%H%M)
mkdir -p bench/results
CSV=bench/results/$STAMP-$MODE.csv
TXT=bench/results/$STAMP-$MODE.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. bench/snapshot.sh
snapshot_mini run.sh "$TMP" examples

HAVE_ERL=0
if command -v "$ERL" >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1; then
  HAVE_ERL=1
  ERL_VSN=$("$ERL" -noshell -eval 'io:format("OTP ~s, erts ~s", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().' 2>/dev/null)
else
  ERL_VSN="not installed"
fi
HAVE_LUA=0
command -v "$LUA" >/dev/null 2>&1 && HAVE_LUA=1

{
  echo "# Mini benchmarks, mode=$MODE, runs=$RUNS, $(date -Iseconds)"
  echo "# host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# mini: $("$MINI" --version 2>&1) ($MINI_SRC, $(stat -c %y "$MINI_SRC" | cut -d. -f1), md5 $(md5sum < "$MINI" | cut -c1-12)), git $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- vm compiler stdlib 2>/dev/null || echo ' (+ uncommitted changes in vm/compiler/stdlib)')"
  echo "# erl: $ERL_VSN"
  echo "# lua: $([ $HAVE_LUA = 1 ] && "$LUA" -v 2>&1 | head -1 || echo 'not installed')"
  cc -O2 -o "$TMP/pagetouch" bench/pagetouch.c 2>/dev/null && echo "# $("$TMP/pagetouch")"
  echo "# sizes: ring $RING_N x $RING_CYCLES, big $BIG_NS, hackbench $HB_GROUPS x 20 x 20 x $HB_LOOPS, threadring $TR_HOPS hops, pingpong $PP_N, flood up to $FLOOD_MAX (erl alloc up to $ERL_ALLOC_MAX), spawn $SPAWN_N, idle $IDLE_N, fib $FIB_N, lists reps $LISTS_REPS"
  echo "workload,param,config,run,value,unit"
} > "$CSV"

# ---------------------------------------------------------------- erl: compile every .mini once
ERLDIR=$TMP/erl
if [ $HAVE_ERL = 1 ]; then
  mkdir -p "$ERLDIR"
  for f in examples/*.mini bench/*.mini; do cp "$f" "$ERLDIR/$(basename "$f" .mini).erl"; done
  for f in "$ERLDIR"/*.erl; do
    erlc -o "$ERLDIR" "$f" >"$TMP/erlc.log" 2>&1 || { echo "run.sh: erlc failed for $(basename "$f"):"; cat "$TMP/erlc.log"; }
  done
else
  echo "run.sh: erl is not installed: Erlang/OTP columns are skipped (apt-get install erlang-base)"
fi

MINI_CONFIGS="mini-S1 mini-S2 mini-nosmp"
ERL_CONFIGS=""
[ $HAVE_ERL = 1 ] && ERL_CONFIGS="erl-S1 erl-S2"

# run_one CONFIG FILE ARGS...: runs one program under CONFIG with a timeout,
# output in $TMP/out; returns 0, or 124 on timeout, or the exit status.
run_one() {
  local config=$1 file=$2; shift 2
  local mod; mod=$(basename "$file" .mini)
  case $config in
    mini-S1)    timeout -k 5 "$T_OUT" "$MINI" +S 1 -pa bench "$file" "$@" ;;
    mini-S2)    timeout -k 5 "$T_OUT" "$MINI" +S 2 -pa bench "$file" "$@" ;;
    mini-nosmp) timeout -k 5 "$T_OUT" "$MINI" -smp disable -pa bench "$file" "$@" ;;
    erl-S*)
      local s=${config#erl-S} args=""
      [ $# -gt 0 ] && { args=$(printf '"%s",' "$@"); args=${args%,}; }
      ERL_CRASH_DUMP_SECONDS=0 timeout -k 5 "$T_OUT" "$ERL" -noshell +S "$s" -pa "$ERLDIR" \
        -eval "$mod:main([$args]), halt()." ;;
    lua) timeout -k 5 "$T_OUT" "$LUA" "${file%.mini}.lua" "$@" ;;
  esac </dev/null >"$TMP/out" 2>"$TMP/err"
}

# record WORKLOAD PARAM CONFIG RUN VALUE UNIT
record() { echo "$1,$2,$3,$4,$5,$6" >> "$CSV"; }

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# measure WORKLOAD PARAM UNIT PARSER "CONFIGS" FILE ARGS...: RUNS rounds, each
# running the program once under every config in turn, so the configs are
# measured side by side: this host's vCPUs slow down and speed up by 1.5x for
# seconds at a time, and running one config's runs back to back let such a
# spell land on one config alone. PARSER reads $TMP/out and prints one number
# (or nothing when the output is not as expected). Lines the program prints
# starting with `checksum` are shown once per config.
measure() {
  local w=$1 p=$2 unit=$3 parser=$4 configs=$5; shift 5
  local r rc v c
  local -A vals=()
  : > "$TMP/notes"
  for r in $(seq 1 "$RUNS"); do
    for c in $configs; do
      run_one "$c" "$@"; rc=$?
      v=$($parser < "$TMP/out")
      if [ $rc = 124 ] || [ $rc = 137 ]; then v=TIMEOUT
      elif [ $rc != 0 ] || [ -z "$v" ]; then v=FAIL; echo "    $c run $r: exit $rc: $(head -c 300 "$TMP/err" "$TMP/out" | tr '\n' ' ')"
      fi
      record "$w" "$p" "$c" "$r" "$v" "$unit"
      vals[$c]="${vals[$c]:-} $v"
      [ "$r" = 1 ] && grep -h '^checksum' "$TMP/out" | sed "s/^/    $c /" >> "$TMP/notes"
    done
  done
  for c in $configs; do
    printf '  %-10s %-14s %-11s runs:%s  median %s %s\n' "$w" "$p" "$c" "${vals[$c]}" \
      "$(echo ${vals[$c]} | tr ' ' '\n' | grep -E '^[0-9.]+$' | median)" "$unit"
  done
  cat "$TMP/notes"
}

# parsers
p_time_us()   { sed -n 's/^Time: \([0-9]*\) us$/\1/p' | tail -1; }
p_hackbench() { sed -n 's/^Time: \([0-9.]*\)$/\1/p' | tail -1 | awk '{printf "%d\n", $1 * 1000000}'; }
p_relay()     { sed -n 's/^Finished\. Time:\([0-9]*\)$/\1/p' | sort -n | tail -1; }
p_relay_two() { sed -n 's/^Finished\. Time:\([0-9]*\)$/\1/p' | sort -n | awk '{v[NR]=$1} END {if (NR==2) print v[2]}'; }
p_big()       { sed -n 's/^big:bang([0-9]*): \([0-9]*\) us$/\1/p'; }
p_idle()      { sed -n 's/^bytes per process: \([0-9]*\)$/\1/p'; }
p_idle_pi()   { sed -n 's/^process_info memory: \([0-9]*\)$/\1/p'; }

want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

echo "Mini benchmarks ($MODE, $RUNS runs each, medians); raw rows in $CSV"
head -7 "$CSV" | sed 's/^# /  /'

# ---------------------------------------------------------------- fib, lists
if want fib; then
  echo "fib($FIB_N):"
  if [ $HAVE_LUA = 1 ]; then measure fib "$FIB_N" us p_time_us "$MINI_CONFIGS $ERL_CONFIGS lua" bench/fib.mini "$FIB_N"
  else measure fib "$FIB_N" us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/fib.mini "$FIB_N"; echo "  lua5.4 not installed: skipped"; fi
fi
if want lists; then
  echo "lists_bench ($LISTS_REPS reps):"
  measure lists "$LISTS_REPS" us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/lists_bench.mini "$LISTS_REPS"
fi

# ---------------------------------------------------------------- ring, two rings
if want ring; then
  echo "ring ($RING_N processes + LED, $RING_CYCLES cycles):"
  measure ring "${RING_N}x${RING_CYCLES}" us p_relay "$MINI_CONFIGS $ERL_CONFIGS" examples/relay.mini "$RING_N" "$RING_CYCLES"
fi
if want two; then
  echo "two rings at once (time of the slower ring):"
  measure two "${RING_N}x${RING_CYCLES}" us p_relay_two "$MINI_CONFIGS $ERL_CONFIGS" examples/relay.mini two "$RING_N" "$RING_CYCLES"
fi

# ---------------------------------------------------------------- big:bang
if want big; then
  echo "big:bang(N):"
  for n in $BIG_NS; do
    measure big "$n" us p_big "$MINI_CONFIGS $ERL_CONFIGS" examples/big.mini "$n"
  done
fi

# ---------------------------------------------------------------- hackbench (+ futex calls)
if want hackbench; then
  echo "hackbench ($HB_GROUPS groups x 20 x 20, $HB_LOOPS loops):"
  measure hackbench "${HB_GROUPS}x${HB_LOOPS}" us p_hackbench "$MINI_CONFIGS $ERL_CONFIGS" examples/hackbench.mini "$HB_GROUPS" "$HB_LOOPS"
  msgs=$((HB_GROUPS * 20 * 20 * HB_LOOPS))
  if command -v strace >/dev/null 2>&1; then
    for c in mini-S2 ${ERL_CONFIGS:+erl-S2}; do
      if [ $c = mini-S2 ]; then
        timeout -k 5 "$T_OUT" strace -f -c -e trace=futex -o "$TMP/strace" "$MINI" +S 2 examples/hackbench.mini "$HB_GROUPS" "$HB_LOOPS" >/dev/null 2>&1
      else
        ERL_CRASH_DUMP_SECONDS=0 timeout -k 5 "$T_OUT" strace -f -c -e trace=futex -o "$TMP/strace" "$ERL" -noshell +S 2 -pa "$ERLDIR" \
          -eval "hackbench:main([\"$HB_GROUPS\",\"$HB_LOOPS\"]), halt()." </dev/null >/dev/null 2>&1
      fi
      calls=$(awk '$NF == "futex" {print $4}' "$TMP/strace" 2>/dev/null | head -1)
      [ -z "$calls" ] && calls=0
      record hackbench_futex "${HB_GROUPS}x${HB_LOOPS}" "$c" 1 "$calls" calls
      record hackbench_futex_per_msg "${HB_GROUPS}x${HB_LOOPS}" "$c" 1 "$(awk -v a="$calls" -v m="$msgs" 'BEGIN {printf "%.5f", a / m}')" calls/msg
      echo "  strace -f -c -e trace=futex, $c: $calls futex calls for $msgs messages"
    done
  else
    echo "  strace not installed: futex count skipped"
  fi
fi

# ---------------------------------------------------------------- threadring, pingpong
if want threadring; then
  echo "threadring (503 processes, $TR_HOPS hops):"
  measure threadring "$TR_HOPS" us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/timeit.mini threadring "$TR_HOPS"
fi
if want pingpong; then
  echo "pingpong ($PP_N round trips):"
  measure pingpong "$PP_N" us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/timeit.mini pingpong "$PP_N"
fi

# ---------------------------------------------------------------- self-send flood
flood_run() {  # CONFIG RUN MAX VARIANTS...: one run of flood.mini
  local c=$1 r=$2 max=$3; shift 3
  local rc
  run_one "$c" bench/flood.mini "$max" "$@"; rc=$?
  if [ $rc != 0 ]; then
    echo "    $c run $r: exit $rc: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
    for v in "$@"; do record flood "$v:all" "$c" "$r" "$([ $rc = 124 ] && echo TIMEOUT || echo FAIL)" us; done
  fi
  awk -v c="$c" -v r="$r" '$1 == "flood" {
      print "flood," $2 ":" $3 "," c "," r "," $4 ",us"
      print "flood_gc," $2 ":" $3 "," c "," r "," $5 ",gcs" }' "$TMP/out" >> "$CSV"
}
if want flood; then
  echo "self-send flood (10k .. $FLOOD_MAX):"
  [ $HAVE_ERL = 1 ] || ERL_FLOOD_CONFIGS=""
  for r in $(seq 1 "$RUNS"); do      # rounds, the configs side by side (see measure)
    for c in $MINI_CONFIGS; do flood_run "$c" "$r" "$FLOOD_MAX" cold_atom atom string spawned spawned_string alloc; done
    for c in $ERL_FLOOD_CONFIGS; do
      flood_run "$c" "$r" "$FLOOD_MAX" cold_atom atom string spawned spawned_string
      flood_run "$c" "$r" "$ERL_ALLOC_MAX" alloc
    done
  done
  for c in $MINI_CONFIGS $ERL_FLOOD_CONFIGS; do echo "  flood $c: $RUNS runs done"; done
fi

# ---------------------------------------------------------------- spawn, idle
p_spawn() { sed -n 's/^Time: \([0-9]*\) us$/\1/p'; }
if want spawn; then
  echo "spawn ($SPAWN_N spawns):"
  measure spawn "$SPAWN_N" us p_spawn "$MINI_CONFIGS $ERL_CONFIGS" bench/spawn.mini "$SPAWN_N"
fi
# conversations queued in front of CPU-bound work: the counter-shape of the
# steal rule that takes at least up to the first busy process
if want pairs; then
  echo "pairs and hogs (50 pairs x 20000 trips, 4 hogs):"
  measure pairs_hogs 50 us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/pairs_hogs.mini 50 4 20000 20000000
fi
# one producer streaming to a slower consumer: the counter-shape of any rule
# that charges senders for their receiver's queue (docs/internals.md)
if want stream; then
  echo "stream to a slower consumer (200000 messages, 40 work steps each):"
  measure stream_backlog 200000 us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/stream_backlog.mini 200000 40
fi
# heaps of megabytes collected over and over: where heap blocks come from
# (vm/heap_block.c); `many` is the counter-shape of keeping a few per thread
if want bigheaps; then
  echo "big heaps (grow: 4 processes x 3 rounds of 100000; many: 16 processes, 10 rounds):"
  measure bigheaps_grow 4 us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/bigheaps.mini grow 4 100000 3
  measure bigheaps_many 16 us p_time_us "$MINI_CONFIGS $ERL_CONFIGS" bench/bigheaps.mini many 16 60000 10
fi
if want idle; then
  echo "idle processes ($IDLE_N):"
  for c in $MINI_CONFIGS $ERL_CONFIGS; do
    measure idle "$IDLE_N" bytes p_idle "$c" bench/idle.mini "$IDLE_N"     # exact: no rounds needed
    v=$(p_idle_pi < "$TMP/out"); record idle_process_info "$IDLE_N" "$c" 1 "${v:-FAIL}" bytes
  done
fi

echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$CSV"
echo
python3 bench/report.py "$CSV" | tee "$TXT"
echo
echo "raw: $CSV   tables: $TXT   plots: python3 bench/plot.py $CSV"
