#!/bin/sh
# dist_ring.sh MINI -- runs examples/dist_ring.mini over two Mini nodes on
# loopback (names carry this shell's PID; the second node is killed on exit)
# and checks the output's shape (the time varies).
MINI=${1:-bin/mini}
HOST=$(hostname | cut -d. -f1)
B=ringb$$
"$MINI" -sname $B -setcookie ring -pa examples -noshell -eval 'receive after infinity -> ok end' & BP=$!
trap 'kill $BP 2>/dev/null; wait $BP 2>/dev/null' EXIT INT TERM
i=0
while [ $i -lt 100 ] && ! epmd -names 2>/dev/null | grep -q "^name $B "; do sleep 0.1; i=$((i + 1)); done
out=$(timeout 60 "$MINI" -sname ringa$$ -setcookie ring -pa examples examples/dist_ring.mini "$B@$HOST" 100 11) ||
  { echo "dist_ring: exit status $?"; echo "$out"; exit 1; }
printf '%s\n' "$out" | sed -n 1p | grep -qxE "Ring of 100: 50 on ringa$$@$HOST, 50 on $B@$HOST" &&
printf '%s\n' "$out" | sed -n 2p | grep -qxE 'Finished\. Time:[0-9]+' &&
printf '%s\n' "$out" | sed -n 3p | grep -qx 'LED: 0' &&
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] ||
  { echo "dist_ring: unexpected output:"; echo "$out"; exit 1; }
