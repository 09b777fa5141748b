#!/bin/sh
# check.sh — the library sweep: does Mini have every function OTP 25 exports?
#
#   sh tests/sweep/check.sh [BIN]
#
# tests/sweep/MOD.exports lists the exports of OTP 25's module MOD, one
# `name/arity` a line (made with erl: MOD:module_info(exports), module_info
# left out), so the suite never needs erl. A function counts as present when
# stdlib/MOD.mini exports it or vm/bifs/bifs.def has it as a BIF of MOD: the
# two places a call to MOD:F/A can land. The compiler refuses a module that
# exports an undefined function, and make frontend-check compiles every stdlib
# module, so an exported name is a defined one. Prints each missing function
# as `missing MOD:F/A` and exits 1 if there is any.
cd "$(dirname "$0")/../.." || exit 2
missing=0
for list in tests/sweep/*.exports; do
  mod=$(basename "$list" .exports)
  have=$(mktemp)
  {
    # BIFs: BIF("mod", "name", arity, ...)
    sed -n 's/^BIF("'"$mod"'", "\([^"]*\)", \([0-9]*\),.*/\1\/\2/p' vm/bifs/bifs.def
    # -export([...]) attributes of stdlib/MOD.mini (they may span lines)
    if [ -f "stdlib/$mod.mini" ]; then
      sed 's/%.*//' "stdlib/$mod.mini" | tr '\n' ' ' |
        grep -o -- '-export *( *\[[^]]*\]' | sed 's/^-export *( *\[//; s/\]$//' |
        tr ',' '\n' | sed "s/[[:space:]]//g; s/^'\\(.*\\)'\\//\\1\\//" | grep -v '^$'
    fi
  } | sort -u > "$have"
  while read -r fa; do
    [ -n "$fa" ] || continue
    if ! grep -qxF -- "$fa" "$have"; then
      echo "missing $mod:$fa"
      missing=$((missing + 1))
    fi
  done < "$list"
  rm -f "$have"
done
if [ "$missing" -ne 0 ]; then
  echo "sweep: $missing functions missing"
  exit 1
fi
exit 0
