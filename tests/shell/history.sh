# history.sh — the up arrow recalls the previous line, and the
# history is kept in ~/.mini_history across runs.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
line 'Val = 6 * 7.'
expect "42"
# keys sent before readline shows the prompt are echoed by the terminal
# itself (^[[A): wait for the prompt
expect_last "2>"
send Up
expect_last "2> Val = 6 * 7."
send C-u
line 'q().'
expect_exit 0
grep -qxF 'Val = 6 * 7.' "$HOME/.mini_history" || fail "history file lacks the line"
rm -f "$TMPD/status"
$T kill-server
start
expect_last "1>"
send Up Up
expect_last "1> Val = 6 * 7."
send Enter
expect "42"
line 'q().'
expect_exit 0
