# multi.sh — several expressions on one line run one after another, each
# after its own prompt, as erl's shell does (`X = 1. Y = X + 1.`); an
# unfinished one continues on the next line, and a syntax error in the first
# does not lose the rest.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
line 'X = 1. Y = X + 1.'
expect "2> Y = X + 1."
expect_last "3>"
screen | grep -qx '2' || fail "Y = X + 1 did not print 2"
line 'Z = 3. W ='
expect "4> W ="
line 'Z + 1.'
expect_last "5>"
screen | grep -qx '4' || fail "W = Z + 1 did not print 4"
line 'foo(. ok.'
expect "* 1:5: syntax error before: '.'"
expect "5> ok."
expect_last "6>"
line 'q().'
expect_exit 0

# piped: no echo of the rest (nothing is echoed without a terminal), as erl
out=$(printf 'X = 1. Y = X + 1.\nZ = 5.\n' | "$BIN" 2>&1 | tail -n 4)
want=$(printf '1> 1\n2> 2\n3> 5\n4> ')
[ "$out" = "$want" ] || fail "piped: got '$out'"
