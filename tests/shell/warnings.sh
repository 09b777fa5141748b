# warnings.sh — erlc's warnings (unused variables and functions, shadowed
# variables), word for word and in erlc's layout: warnings.err is erlc's
# own output for warnings.mini copied to warnings.erl (only the file name
# changed). `mini FILE` prints them on standard error (standard output is
# the program's), the shell's c/1 on standard output as erl's c/1 does;
# -W0 silences them;
# a module loaded by name from the code path compiles silently.
BIN=${1:-bin/mini}
DIR=tests/shell
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$BIN" $DIR/warnings.mini > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
[ $st = 0 ] && [ "$(cat "$TMPD/out")" = ran ] || fail "run: status $st"
cmp -s $DIR/warnings.err "$TMPD/err" || { diff $DIR/warnings.err "$TMPD/err"; fail "mini FILE warnings"; }
"$BIN" -W0 $DIR/warnings.mini > "$TMPD/out" 2> "$TMPD/err" < /dev/null
[ "$(cat "$TMPD/out")" = ran ] && [ ! -s "$TMPD/err" ] || { cat "$TMPD/err"; fail "-W0 still warns"; }
# the shell's c/1: the same text on standard output, as erl's c/1 prints
# it, then {ok, Mod}
printf 'c("%s/warnings.mini").\nwarnings:main().\n' $DIR | "$BIN" > "$TMPD/out" 2> "$TMPD/err"
{ printf '1> '; cat $DIR/warnings.err; printf '{ok,warnings}\n2> ran\nok\n3> \n'; } > "$TMPD/want"
sed 1d "$TMPD/out" > "$TMPD/got"                  # (the banner)
cmp -s "$TMPD/want" "$TMPD/got" || { diff "$TMPD/want" "$TMPD/got"; fail "c/1 warnings"; }
[ ! -s "$TMPD/err" ] || { cat "$TMPD/err"; fail "c/1 wrote to standard error"; }
# loaded by name (the library's way): no warnings
"$BIN" -pa $DIR -noshell -s warnings main > "$TMPD/out" 2> "$TMPD/err" < /dev/null
[ "$(cat "$TMPD/out")" = ran ] && [ ! -s "$TMPD/err" ] || { cat "$TMPD/err"; fail "loading by name warns"; }
exit 0
