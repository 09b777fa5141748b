# errors.sh — a syntax error and a runtime error leave the shell
# usable with its bindings; unbound variables; Ctrl-C stops a running
# command; f(X), b(), v(N); an exception replaces the evaluator.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
line 'X = 1, Y = [a, {b, "str"}].'
expect '[a,{b,"str"}]'
line 'foo(.'
expect "* 1:5: syntax error before: '.'"
expect_last "2>"
line 'X = 2.'
expect "** exception error: no match of right hand side value 2"
expect_last "3>"
line 'Z.'
expect "* 1:1: variable 'Z' is unbound"
line 'X + 1.'
expect_last "5>"
screen | grep -qx '2' || fail "X + 1 did not give 2"
line 'lists:seq(1, 3) ++ [length(Y)].'
expect "[1,2,3,2]"
line '1 +'
expect_last "6>"
screen | grep -qx '6> 1 +' || fail "no continuation line"
line '2.'
expect_last "7>"
screen | grep -qx '3' || fail "1 + 2 over two lines"
line 'b().'
expect 'Y = [a,{b,"str"}]'
line 'f(X).'
expect_last "9>"
line 'X.'
expect "* 1:1: variable 'X' is unbound"
line 'v(6) * 10.'
expect_last "11>"
screen | grep -v '^$' | tail -n 2 | grep -qx '30' || fail "v(6) * 10 is not 30"
line 'v(6).'
expect_last "12>"
screen | grep -v '^$' | tail -n 2 | grep -qx '3' || fail "v(6) is not 3"
line 'P = self().'
expect_last "13>"
line '1/0.'
expect "** exception error: an error occurred when evaluating an arithmetic expression"
line 'P =:= self().'
expect "false"
line 'timer:sleep(60000).'
sleep 0.2
send C-c
expect "** exception exit: killed"
expect_last "16>"
line 'self() ! hello, flush().'
expect "Shell got hello"
line 'q().'
expect_exit 0
