#!/bin/sh
# threadring.sh MINI -- runs examples/threadring.mini and checks the holder's number:
# (N rem 503) + 1.
# Run from the repository root: sh examples/tests/threadring.sh bin/mini
MINI=${1:-bin/mini}
for pair in "0 1" "502 503" "1000 498" "100000 407"; do
  set -- $pair
  out=$("$MINI" examples/threadring.mini "$1") || { echo "threadring $1: exit status $?"; exit 1; }
  [ "$out" = "$2" ] || { echo "threadring $1: expected $2, got: $out"; exit 1; }
done
