#!/bin/sh
# relay.sh MINI -- runs examples/relay.mini with one ring and with two rings at a
# small size and checks the output's shape (the times vary).
# Run from the repository root: sh examples/tests/relay.sh bin/mini
MINI=${1:-bin/mini}
out=$("$MINI" examples/relay.mini 100 10) || { echo "relay: exit status $?"; exit 1; }
n=$(printf '%s\n' "$out" | grep -cE '^Finished\. Time:[0-9]+$')
[ "$n" -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
  { echo "relay: unexpected output:"; echo "$out"; exit 1; }
out=$("$MINI" examples/relay.mini two 100 10) || { echo "relay two: exit status $?"; exit 1; }
n=$(printf '%s\n' "$out" | grep -cE '^Finished\. Time:[0-9]+$')
[ "$n" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] ||
  { echo "relay two: unexpected output:"; echo "$out"; exit 1; }
# a one-process ring (the head passes the token to itself)
out=$("$MINI" examples/relay.mini 1 5) || { echo "relay 1: exit status $?"; exit 1; }
printf '%s\n' "$out" | grep -qxE 'Finished\. Time:[0-9]+' ||
  { echo "relay 1: unexpected output:"; echo "$out"; exit 1; }
