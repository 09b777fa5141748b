# compile_chain.sh — the compiler's checks and code generation take time in
# proportion to the number of variables in scope, not its square or cube: a
# generated function of 6,000 chained matches (`X2 = X1 + 1, ...`), each
# line also binding inside sibling expressions, compiles and runs, and
# the warnings pass reports the unused ones. (This
# asserts the result, not the time; docs/reliability.md gives the timing of
# the 50,000-line chain.)
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
n=6000
{
    echo '-module(chain).'
    echo '-export([main/0]).'
    echo 'main() ->'
    echo '    X1 = 1,'
    i=2
    while [ $i -le $n ]; do
        p=$((i - 1))
        if [ $((i % 100)) = 0 ]; then
            echo "    {X$i, _} = {X$p + 1, Y$i = X$p},"
        else
            echo "    X$i = X$p + 1,"
        fi
        i=$((i + 1))
    done
    echo "    io:format(\"~p ~p~n\", [X$n, Y$n])."
} > "$TMPD/chain.mini"
out=$(timeout 120 "$BIN" "$TMPD/chain.mini" 2>"$TMPD/err")
[ "$out" = "$n $((n - 1))" ] || { echo "FAIL compile_chain: got '$out'"; head -5 "$TMPD/err"; exit 1; }
# the warnings pass walks the same chain: Y100 ... Y5900 are unused, as
# erlc says (Y6000 is printed)
w=$(grep -c "Warning: variable 'Y[0-9]*' is unused" "$TMPD/err")
[ "$w" = $((n / 100 - 1)) ] || { echo "FAIL compile_chain: $w unused-variable warnings"; exit 1; }
echo "compile_chain: passed"
