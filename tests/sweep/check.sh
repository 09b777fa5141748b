#!/bin/sh
# check.sh — the export sweep: for each tests/sweep/MOD.exports (the
# functions OTP 25 documents for MOD, one Name/Arity a line, written with
# erl once so the suite needs no erl), lists those Mini lacks: neither in
# an -export of stdlib/MOD.mini nor a BIF of MOD in vm/bifs/bifs.def.
# Prints "MOD: F/A ..." per module with gaps; exit status 1 if any.
# Usage: sh tests/sweep/check.sh [MOD...]   (default: every list)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
mods=$*
[ -n "$mods" ] || mods=$(ls tests/sweep/*.exports | sed 's|.*/||; s|\.exports$||')
status=0
for m in $mods; do
  have=$( {
    [ -f "stdlib/$m.mini" ] &&
      tr '\n' ' ' < "stdlib/$m.mini" | grep -o -- '-export *( *\[[^]]*\]' |
      sed 's/-export *( *\[//; s/\]//' | tr ',' '\n'
    grep "^BIF(\"$m\"," vm/bifs/bifs.def | sed 's/^BIF("[^"]*", *"\([^"]*\)", *\([0-9]*\).*/\1\/\2/'
  } | tr -d " '\t" | sort -u)
  missing=$(printf '%s\n' "$have" | sort -u > /tmp/sweep.$$; sort -u "tests/sweep/$m.exports" | comm -23 - /tmp/sweep.$$; rm -f /tmp/sweep.$$)
  if [ -n "$missing" ]; then
    echo "$m:" $missing
    status=1
  fi
done
exit $status
