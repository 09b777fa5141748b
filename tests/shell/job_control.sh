# job_control.sh — Ctrl-G at a prompt opens erl's user switch menu: h/?
# lists the commands, j the jobs, s starts a shell that becomes the
# current job, c N connects (each shell keeps its bindings), i interrupts,
# k kills, unknown jobs and commands are reported in erl's words, Ctrl-C in
# the menu shows its prompt again, q quits. Ctrl-C during an evaluation
# keeps its behaviour (the shell and its bindings stay), and help() says
# so. The error formats are checked at a live prompt too.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
line 'X = 1.'
expect_last "2>"
send -l 'half typed'
send C-g
expect "User switch command"
expect_last " -->"
line 'h'
expect "  c [nn]            - connect to job"
expect "  s [shell]         - start local shell"
line 'j'
expect "   1* {shell,start,[init]}"
line 's'
expect_last " -->"
line 'j'
expect "   2* {shell,start,[]}"
screen | grep -qxF '   1  {shell,start,[init]}' || fail "job 1 not listed as not current"
line 'c 2'
expect "Mini shell V0.1"
expect_last "1>"
line 'X = 5.'
expect_last "2>"
send C-g
expect_last " -->"
line 'c 9'
expect "Unknown job"
line 'zz'
expect "Unknown command"
send C-c
expect_last " -->"
line 'k 1'
expect "Job 1 is Mini's first process"
line 'c 1'
expect_last "2>"
# job 1 kept its binding; the half-typed line was dropped

line 'X.'
expect_last "3>"
screen | grep -qx '1' || fail "job 1 lost X"
# i interrupts job 2's running command; connecting shows it was killed
send C-g
expect_last " -->"
line 'c 2'
expect_last "2>"
line 'receive after infinity -> ok end.'
sleep 0.3
send C-c
expect "** exception exit: killed"
expect_last "3>"
line 'X.'
expect_last "4>"
screen | grep -qx '5' || fail "job 2 lost X after Ctrl-C"
send C-g
expect_last " -->"
line 'i 2'
expect_last " -->"
line 'c 2'
expect_last "4>"
send C-g
expect_last " -->"
line 'k 2'
line 'j'
expect "   1  {shell,start,[init]}"
# the listing after the last `j` has job 1 alone
screen | tac | sed '/--> j$/q' | grep -qF '{shell,start,[]}' && fail "job 2 still listed after k 2"
line 'c'
expect "Unknown job"
line 'c 1'
expect_last "3>"
line 'help().'
expect "Ctrl-C stops a running command"
expect "Ctrl-G at a prompt"
# errors at a live prompt, in erl's words
line 'element(1, a).'
expect "        *** argument 2: not a tuple"
line '1 / 0.'
expect "     in operator  '/'/2"
expect "        called as 1 / 0"
line 'atom_to_list("abc").'
expect '        called as atom_to_list("abc")'
send C-g
expect_last " -->"
line 'q'
expect_exit 0
echo "ok job_control"
