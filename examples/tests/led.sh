#!/bin/sh
# led.sh MINI -- runs examples/led.mini and checks its (deterministic) output.
# Run from the repository root: sh examples/tests/led.sh bin/mini
MINI=${1:-bin/mini}
out=$("$MINI" examples/led.mini) || { echo "led: exit status $?"; exit 1; }
expected='start: 1
after one toggle: 0
after six toggles: 1
on/off led: on'
[ "$out" = "$expected" ] || { echo "led: unexpected output:"; echo "$out"; exit 1; }
