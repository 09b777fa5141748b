#!/bin/sh
# asyncfiles.sh MINI -- runs examples/asyncfiles.mini at small sizes. First
# with `keep`: the totals must match what wc (and, if python3 is there, an
# FNV-1a of every 64th byte) says of the files it wrote. Then the same
# program under every async/scheduler combination: the output must be the
# same line every time, and no temporary directory may be left behind.
# Run from the repository root: sh examples/tests/asyncfiles.sh bin/mini
MINI=${1:-bin/mini}
P=3; F=5; K=8
out=$("$MINI" examples/asyncfiles.mini $P $F $K keep 2>/dev/null) || { echo "keep: exit status $?"; exit 1; }
dir=$(printf '%s\n' "$out" | tail -1)
line=$(printf '%s\n' "$out" | head -1)
[ -d "$dir" ] || { echo "keep: no directory: $out"; exit 1; }
set -- $(cat "$dir"/f*.txt | wc -l -w -c)
want="asyncfiles $P x $F x $K KB: lines $(($1 * P)) words $(($2 * P)) bytes $(($3 * P))"
case "$line" in
  "$want checksum "*) ;;
  *) echo "keep: counts differ from wc:"; echo " got  $line"; echo " want $want"; rm -rf "$dir"; exit 1 ;;
esac
if command -v python3 >/dev/null 2>&1; then
  sum=$(python3 - "$dir" $P $F <<'PY'
import sys
d, procs, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
M = 4294967291
per = 0
for i in range(1, files + 1):
    b = open("%s/f%d.txt" % (d, i), "rb").read()
    h = 2166136261
    for k in range(0, len(b), 64):
        h = ((h ^ b[k]) * 16777619) & 0xffffffff
    per = (per * 31 + h) % M
tot = 0
for _ in range(procs):
    tot = (tot * 31 + per) % M
print(tot)
PY
)
  [ "$line" = "$want checksum $sum" ] || { echo "keep: checksum differs: $line (want $sum)"; rm -rf "$dir"; exit 1; }
fi
rm -rf "$dir"
before=$(ls -d /tmp/mini-asyncfiles-* 2>/dev/null | wc -l)
ref=$("$MINI" examples/asyncfiles.mini small 2>/dev/null) || { echo "small: exit status $?"; exit 1; }
printf '%s\n' "$ref" | grep -qxE 'asyncfiles 12 x 34 x 16 KB: lines [0-9]+ words [0-9]+ bytes [0-9]+ checksum [0-9]+' ||
  { echo "small: unexpected output: $ref"; exit 1; }
for flags in "+A 0" "+A 1" "+A 2" "+A 4" "+S 1" "+S 2" "+S 2 +A 4" "-smp disable" "-smp disable +A 2"; do
  got=$("$MINI" $flags examples/asyncfiles.mini small 2>/dev/null) || { echo "$flags: exit status $?"; exit 1; }
  [ "$got" = "$ref" ] || { echo "$flags: output differs:"; echo " $got"; echo " $ref"; exit 1; }
done
after=$(ls -d /tmp/mini-asyncfiles-* 2>/dev/null | wc -l)
[ "$after" -le "$before" ] || { echo "temporary directories left behind"; exit 1; }
