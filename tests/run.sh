#!/bin/sh
# run.sh — the whole test suite behind `make test`.
#
#   tests/run.sh BIN UNIT_DIR
#
# Runs the C unit tests (every test_* binary in UNIT_DIR), then every kind of
# golden test, in parallel on all cores:
#   tests/lang/NAME.mini     stdout of `BIN NAME.mini` must equal NAME.out
#                            (expected output produced by Erlang/OTP); one
#                            whose first line is `skip: REASON` is skipped
#   tests/errors/NAME.mini   stderr must equal NAME.err, exit status 1
#   tests/codegen/NAME.mini  `BIN -S NAME.mini` must equal NAME.S
#   examples/tests/NAME.sh   a script that exits 0 on success
#   tests/shell/NAME.sh      the same, for the shell and the flags
#   tests/sweep/sweep.sh     OTP 25's exports (tests/sweep/*.exports) Mini must have
# MINI_FLAGS adds VM flags to every run (e.g. "+S 1"). ONLY selects a subset
# of the language tests by a glob (e.g. 'proc_*') and skips the other kinds;
# SAN_CHECK=1 also fails a test whose stderr has a sanitizer report. Ends with the line
# `N passed, M failed` and exits non-zero if anything failed.

one_test() {
  kind=$1; t=$2
  name=$(echo "$t" | tr '/' '_')
  out="$results/$name.out"; err="$results/$name.err"
  case $kind in
    unit)
      timeout "$TIMEOUT" "$t" >"$out" 2>"$err"; st=$?
      [ $st -eq 0 ] && ok=1 || ok=0 ;;
    lang)
      exp="${t%.mini}.out"
      timeout "$TIMEOUT" ./$BIN $MINI_FLAGS -pa tests/lang/helpers "$t" >"$out" 2>"$err" </dev/null; st=$?
      # a test that cannot run here (no IPv6 loopback...) says why on its
      # first line, `skip: REASON`, and is counted apart
      if [ $st -eq 0 ] && head -1 "$out" | grep -q '^skip: '; then
        echo "skip $kind $t ($(head -1 "$out" | cut -c7-))" > "$results/$name.result"; return
      fi
      [ $st -eq 0 ] && cmp -s "$out" "$exp" && ok=1 || ok=0 ;;
    errors)
      exp="${t%.mini}.err"
      timeout "$TIMEOUT" ./$BIN "$t" >"$out" 2>"$err" </dev/null; st=$?
      [ $st -eq 1 ] && cmp -s "$err" "$exp" && ok=1 || ok=0 ;;
    codegen)
      exp="${t%.mini}.S"
      timeout "$TIMEOUT" ./$BIN -S "$t" >"$out" 2>"$err" </dev/null; st=$?
      [ $st -eq 0 ] && cmp -s "$out" "$exp" && ok=1 || ok=0 ;;
    script)
      timeout "$TIMEOUT" sh "$t" "$BIN" >"$out" 2>"$err" </dev/null; st=$?
      [ $st -eq 0 ] && ok=1 || ok=0 ;;
    sweep)
      timeout "$TIMEOUT" sh "$t" >"$out" 2>"$err" </dev/null; st=$?
      [ $st -eq 0 ] && ok=1 || ok=0 ;;
  esac
  if [ $ok = 1 ] && [ -n "$SAN_CHECK" ] &&
     grep -qE 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
    ok=0
  fi
  if [ $ok = 1 ]; then
    echo "pass $kind $t" > "$results/$name.result"
  else
    {
      echo "FAIL $kind $t (exit $st)"
      case $kind in
        lang) diff "$exp" "$out" | head -20 ;;
        codegen) diff "$exp" "$out" | head -20 ;;
        errors) diff "$exp" "$err" | head -20 ;;
        sweep|script) head -40 "$out" ;;
      esac
      head -c 2000 "$err"
    } > "$results/$name.result"
  fi
}
# worker mode: xargs re-enters this script once per test
if [ "$1" = "--one" ]; then one_test "$2" "$3"; exit 0; fi

BIN=${1:-bin/mini}
UNIT_DIR=${2:-build/release/tests}
TIMEOUT=${TEST_TIMEOUT:-120}
JOBS=$(nproc 2>/dev/null || echo 2)
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
export BIN TIMEOUT results MINI_FLAGS SAN_CHECK

if [ -n "$ONLY" ]; then
  for t in tests/lang/$ONLY.mini; do [ -f "$t" ] && echo "lang $t"; done > "$results/list"
else
{
  for t in "$UNIT_DIR"/test_*; do [ -x "$t" ] && echo "unit $t"; done
  for t in tests/lang/*.mini; do [ -f "$t" ] && echo "lang $t"; done
  for t in tests/errors/*.mini; do [ -f "$t" ] && echo "errors $t"; done
  for t in tests/codegen/*.mini; do [ -f "$t" ] && echo "codegen $t"; done
  for t in examples/tests/*.sh; do [ -f "$t" ] && echo "script $t"; done
  echo "script tests/sweep/sweep.sh"
  # the shell and the command line (lib*.sh are their helpers, not tests)
  for t in tests/shell/*.sh; do case "${t##*/}" in lib*.sh) continue ;; esac; [ -f "$t" ] && echo "script $t"; done
} > "$results/list"
fi

xargs -r -P "$JOBS" -L 1 sh "$0" --one < "$results/list"
# distribution (nodes on loopback, Mini with Mini and with a real erl) runs
# after the rest, alone: its nodes time handshakes, ticks and replies, and
# the tests above would starve them
if [ -z "$ONLY" ]; then
  echo "script tests/dist/run.sh" >> "$results/list"
  sh "$0" --one script tests/dist/run.sh
fi
# Every test started must have left a result: a worker that dies (killed,
# out of memory, a shell error) counts as a failure instead of vanishing.
started=$(wc -l < "$results/list")
while read -r kind t; do
  name=$(echo "$t" | tr '/' '_')
  [ -f "$results/$name.result" ] || echo "FAIL $kind $t (no result: its worker died)" > "$results/$name.result"
done < "$results/list"
# a result's first line is its verdict; a failed script's output follows it
# and may have lines of its own that start with FAIL
verdicts=$(for f in "$results"/*.result; do head -n 1 "$f"; done 2>/dev/null)
passed=$(printf '%s\n' "$verdicts" | grep -c '^pass ')
failed=$(printf '%s\n' "$verdicts" | grep -c '^FAIL ')
skipped=$(printf '%s\n' "$verdicts" | grep -c '^skip ')
# -a: a failed test's output may hold bytes that are not text, and grep
# would then print "binary file matches" in place of every failure after it
cat "$results"/*.result 2>/dev/null | grep -av '^pass ' || true
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
if [ $((passed + failed + skipped)) -ne "$started" ]; then
  echo "run.sh: $started tests started but $((passed + failed + skipped)) results counted" >&2
  exit 1
fi
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
