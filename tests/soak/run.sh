#!/bin/sh
# run.sh — the soak (`make soak SECONDS=N`): tests/soak/soak.mini for N
# seconds with two schedulers (+S 2) and two async threads (+A 2). Passes
# when the program's last line is `soak ok` and it exits 0: every numbered
# message to a living process arrived exactly once, every port echo and
# timer tick once, every crash was one the program made, and memory stayed
# within its bound (soak.mini says which). Error reports from the processes
# it crashes on purpose go to build/soak.err.
#   sh tests/soak/run.sh BIN SECONDS
BIN=${1:-bin/mini}; SECS=${2:-60}
mkdir -p build
out=build/soak.out; err=build/soak.err
"$BIN" +S 2 +A 2 tests/soak/soak.mini "$SECS" >"$out" 2>"$err"; st=$?
cat "$out"
if [ $st -ne 0 ] || [ "$(tail -1 "$out")" != "soak ok" ]; then
    echo "FAIL: soak (status $st); the end of $err:"; tail -20 "$err"; exit 1
fi
echo "soak: $(grep -c 'ERROR REPORT' "$err") error reports from processes crashed on purpose ($err)"
