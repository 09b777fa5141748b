#!/bin/sh
# pingpong.sh MINI -- runs examples/pingpong.mini and checks its line.
# Run from the repository root: sh examples/tests/pingpong.sh bin/mini
MINI=${1:-bin/mini}
for n in 0 1 10000; do
  out=$("$MINI" examples/pingpong.mini $n) || { echo "pingpong $n: exit status $?"; exit 1; }
  [ "$out" = "pingpong done: $n" ] || { echo "pingpong $n: unexpected output: $out"; exit 1; }
done
