# ring.sh — the ring session. relay:start/2 returns ok at once and
# the head prints `Finished. Time:` later, while the prompt is live: the
# output lands above the prompt and the half-typed line is redrawn.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
line 'Led = led:start(1).'
expect_last "2>"
line 'Head = relay:create_ring(1000,Led).'
expect_last "3>"
line 'relay:start(Head,100).'
expect "ok"
expect "Finished. Time:"
expect_last "4>"
# again, with a line half typed when the output arrives
line 'relay:start(Head,1500).'
expect_last "5>"
send -l 'abc'
i=0; while [ "$(screen | grep -c 'Finished. Time:')" -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
[ "$(screen | grep -c 'Finished. Time:')" -ge 2 ] || fail "second ring run did not finish"
expect_last "5> abc"
screen | grep -A1 'Time:' | tail -n 1 | grep -q '^5> abc$' || fail "prompt not redrawn below the output"
send C-u
line 'Led.'
expect "<0.3.0>"
line 'q().'
expect_exit 0
