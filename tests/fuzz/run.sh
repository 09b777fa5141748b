#!/bin/sh
# run.sh — runs the libFuzzer targets (`make fuzz`): first every input in
# tests/fuzz/regress/TARGET (each once crashed that target; it must not now),
# then TARGET for SECONDS seconds from its corpus (build/fuzz-corpus/TARGET,
# kept between runs) and its seeds. Fails if any target finds a crash, a
# hang (an input over 20 s), a leak or a sanitizer report; the input is
# saved as build/fuzz-crashes/TARGET-*. Run from the tree's root.
#   sh tests/fuzz/run.sh BINDIR SECONDS TARGET...
BINDIR=$1; SECS=$2; shift 2
ROOT=$(pwd)
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p build/fuzz-crashes
status=0
byte() { printf "\\$(printf '%o' "$1")"; }
seeds() {     # the seed directory of target $1
    d=build/fuzz-seeds/$1
    rm -rf "$d"; mkdir -p "$d"
    case $1 in
    frontend) cp tests/lang/*.mini tests/errors/*.mini tests/codegen/*.mini "$d"/ ;;
    shell)    cp tests/fuzz/seeds/shell/* "$d"/
              for f in tests/lang/*.mini; do       # function bodies make shell lines
                  sed -n 's/^[a-z_]*(.*) *-> *\(.*\)\.$/\1./p' "$f" | head -5 > "$d/$(basename "$f" .mini)"
              done ;;
    etf)      for f in tests/fuzz/seeds/etf/*; do  # the first byte picks /1, [safe], [safe, used]
                  for m in 0 1 2; do { byte $m; cat "$f"; } > "$d/$m-$(basename "$f")"; done
              done ;;
    loader)   i=0                                  # one mutation of each kind, over a few modules
              while [ $i -lt 40 ]; do
                  for b in 0 $((i % 8)) 0 0 $((i * 3)) $((i % 10)) 0 $((i + 1)); do byte $b; done > "$d/m$i"
                  i=$((i + 1))
              done ;;
    esac
    echo "$d"
}
for t in "$@"; do
    bin=$BINDIR/fuzz_$t
    if [ -d "tests/fuzz/regress/$t" ] && [ -n "$(ls "tests/fuzz/regress/$t")" ]; then
        echo "== fuzz_$t: the regression inputs"
        "$bin" -runs=0 tests/fuzz/regress/$t/* >build/fuzz-crashes/$t-regress.log 2>&1 || {
            echo "FAIL: fuzz_$t crashes on a regression input"; tail -30 build/fuzz-crashes/$t-regress.log; status=1; continue; }
    fi
    corpus=build/fuzz-corpus/$t
    mkdir -p "$corpus"
    s=$(seeds "$t")
    echo "== fuzz_$t: $SECS s"
    t0=$(date +%s)
    "$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=3072 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$ROOT/build/fuzz-crashes/$t-" \
        "$corpus" "$s" >build/fuzz-crashes/$t.log 2>&1
    rc=$?
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' build/fuzz-crashes/$t.log | tail -2
    echo "   fuzz_$t ran $(( $(date +%s) - t0 )) s, corpus $(ls "$corpus" | wc -l) inputs, status $rc"
    if [ $rc -ne 0 ]; then
        echo "FAIL: fuzz_$t found a crash (build/fuzz-crashes/$t.log):"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written' build/fuzz-crashes/$t.log | head -10
        status=1
    fi
done
exit $status
