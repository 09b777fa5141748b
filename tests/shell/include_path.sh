# include_path.sh — where -include and -include_lib look: the including
# file's directory, `-I DIR` (both `-I DIR` and `-IDIR`), the code path
# (`-pa DIR`); a file found nowhere is a located compile error.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
mkdir "$TMPD/src" "$TMPD/idir" "$TMPD/pa"
echo '-define(FROM_I, from_i).' > "$TMPD/idir/i.hrl"
echo '-define(FROM_PA, from_pa).' > "$TMPD/pa/p.hrl"
echo '-define(FROM_LIB, from_lib).' > "$TMPD/idir/l.hrl"
cat > "$TMPD/src/incm.mini" <<'MINI'
-module(incm).
-export([main/0]).
-include("i.hrl").
-include("p.hrl").
-include_lib("l.hrl").
main() -> io:format("~p ~p ~p~n", [?FROM_I, ?FROM_PA, ?FROM_LIB]).
MINI
want='from_i from_pa from_lib'
got=$("$BIN" -I "$TMPD/idir" -pa "$TMPD/pa" "$TMPD/src/incm.mini" 2>&1)
[ "$got" = "$want" ] || { echo "FAIL -I DIR: $got"; fails=$((fails+1)); }
got=$("$BIN" -I"$TMPD/idir" -pa "$TMPD/pa" "$TMPD/src/incm.mini" 2>&1)
[ "$got" = "$want" ] || { echo "FAIL -IDIR: $got"; fails=$((fails+1)); }
# without -I: the error names the file, line and column of the name
"$BIN" -pa "$TMPD/pa" "$TMPD/src/incm.mini" > "$TMPD/out" 2> "$TMPD/err"; st=$?
grep -q "incm.mini:3:10: can't find include file \"i.hrl\"" "$TMPD/err" && [ $st = 1 ] ||
    { echo "FAIL missing include: status $st"; cat "$TMPD/err"; fails=$((fails+1)); }
# a file that includes itself stops with an error, not a hang
printf -- '-module(selfinc).\n-include("selfinc.hrl").\n' > "$TMPD/src/selfinc.mini"
echo '-include("selfinc.hrl").' > "$TMPD/src/selfinc.hrl"
timeout 20 "$BIN" "$TMPD/src/selfinc.mini" > "$TMPD/out" 2> "$TMPD/err"; st=$?
[ $st = 1 ] && grep -q 'too many nested includes' "$TMPD/err" ||
    { echo "FAIL self include: status $st"; head -3 "$TMPD/err"; fails=$((fails+1)); }
[ $fails = 0 ] && echo "include_path: all passed"
exit $fails
