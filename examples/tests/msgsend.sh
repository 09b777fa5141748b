#!/bin/sh
# msgsend.sh MINI -- runs examples/msgsend.mini (run/1 and run_alloc/1) at a small size
# and checks each line's shape and the sequence of sizes and messages.
# Run from the repository root: sh examples/tests/msgsend.sh bin/mini
MINI=${1:-bin/mini}
line='Pid <[0-9]+\.[0-9]+\.[0-9]+>, [0-9]+ (x|"x"): [0-9]+\.[0-9]+ s, \{heap_size,[0-9]+\}, GC \{[0-9]+,[0-9]+,0\}'
# expected (N, message) sequence: in the caller then in a spawned process, for x then "x"
expected='10000 x
20000 x
10000 x
20000 x
10000 "x"
20000 "x"
10000 "x"
20000 "x"'
for mode in "" alloc; do
  out=$("$MINI" examples/msgsend.mini $mode 20000) || { echo "msgsend $mode: exit status $?"; exit 1; }
  bad=$(printf '%s\n' "$out" | grep -cvxE "$line")
  got=$(printf '%s\n' "$out" | sed -E 's/^Pid [^,]*, ([0-9]+) ([^:]*):.*/\1 \2/')
  if [ "$bad" -ne 0 ] || [ "$got" != "$expected" ]; then
    echo "msgsend $mode: unexpected output:"; echo "$out"; exit 1
  fi
  # the first four lines come from one pid (the caller), the next four from another
  pids=$(printf '%s\n' "$out" | sed -E 's/^Pid ([^,]*),.*/\1/' | uniq | wc -l)
  [ "$pids" -eq 4 ] || { echo "msgsend $mode: expected 4 runs of pids, got:"; echo "$out"; exit 1; }
done
