# quit.sh — the banner shows the flags; q() exits 0, Ctrl-D on an empty line
# quits, halt(N) exits with status N.
. "$(dirname "$0")/lib.sh"
start +S 2:1 +A 3
expect "Mini 0.1 [smp:2:1] [async-threads:3]"
expect_last "1>"
line 'q().'
expect "ok"
expect_exit 0
rm -f "$TMPD/status"; $T kill-server
start -smp disable
expect "Mini 0.1 [smp disabled] [async-threads:0]"
expect_last "1>"
line 'X = 1 + 1.'
expect_last "2>"
send C-d
expect_exit 0
rm -f "$TMPD/status"; $T kill-server
start
expect_last "1>"
line 'halt(3).'
expect_exit 3
