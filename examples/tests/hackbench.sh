#!/bin/sh
# hackbench.sh MINI -- runs examples/hackbench.mini at a small size and checks the output's shape.
# Run from the repository root: sh examples/tests/hackbench.sh bin/mini
MINI=${1:-bin/mini}
for args in "1 1" "2 10"; do
  out=$("$MINI" examples/hackbench.mini $args) || { echo "hackbench $args: exit status $?"; exit 1; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
  printf '%s\n' "$out" | grep -qxE 'Time: [0-9]+\.[0-9]+' ||
    { echo "hackbench $args: unexpected output:"; echo "$out"; exit 1; }
done
