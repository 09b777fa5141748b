# error_format.sh — runtime errors at the prompt in OTP 25's words:
# `in operator '/'/2 called as 1 / 0`, the `*** argument N:` notes of BIFs,
# `no function clause matching m:f(Args) (file, line N)`, strings as
# strings, module-qualified names, no frames of the shell's own modules.
# error_format.out is erl's transcript of error_format.in (Erlang/OTP 25,
# without its banner); only the line numbers inside lists.erl and
# lists.mini differ, and the comparison leaves those out.
BIN=${1:-bin/mini}
DIR=$(dirname "$0")
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
norm() { sed -E 's/\((lists)\.(erl|mini), line [0-9]+\)/(\1, line N)/'; }
$BIN < "$DIR/error_format.in" > "$TMPD/raw" 2>&1; st=$?
sed '1d;$d' "$TMPD/raw" | norm > "$TMPD/got"
norm < "$DIR/error_format.out" > "$TMPD/want"
if [ $st -ne 0 ] || ! cmp -s "$TMPD/want" "$TMPD/got"; then
    echo "FAIL: status $st; diff erl mini:"; diff "$TMPD/want" "$TMPD/got"; exit 1
fi
# a crash report names no shell module: the frames of a fun typed at the
# shell are left out, as erl's interpreted funs have none
printf 'spawn(fun() -> 1/0 end).\ntimer:sleep(200).\n' | $BIN > "$TMPD/out" 2>&1
grep -qxF "{badarith,[{erlang,'/',[1,0],[]}]}" "$TMPD/out" && ! grep -q 'shell_eval' "$TMPD/out" \
    || { echo "FAIL: crash report"; cat "$TMPD/out"; exit 1; }
echo "ok error_format"
