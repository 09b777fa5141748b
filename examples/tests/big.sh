#!/bin/sh
# big.sh MINI -- runs examples/big.mini (big:bang) at a small size and checks the output's shape.
# Run from the repository root: sh examples/tests/big.sh bin/mini
MINI=${1:-bin/mini}
for n in 1 50; do
  out=$("$MINI" examples/big.mini $n) || { echo "big $n: exit status $?"; exit 1; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
  printf '%s\n' "$out" | grep -qxE "big:bang\($n\): [0-9]+ us" ||
    { echo "big $n: unexpected output:"; echo "$out"; exit 1; }
done
