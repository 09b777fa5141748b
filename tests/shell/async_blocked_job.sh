#!/bin/sh
# async_blocked_job.sh MINI -- a finished async job is delivered even while
# the next job on its thread blocks. A textscan port is given a small file,
# then a named pipe nobody writes to yet: the second job blocks in open(2)
# until the program, having received the first result, writes to the pipe.
# The first completion's wake-up is one the thread may put off while it has
# more jobs (sched_external_settle), and no scheduler may sleep past the
# longest such delay while an async thread is at work (external_bound in
# vm/sched.c); before that, with every scheduler asleep, the first result
# waited for the blocked job and the program never ended. Runs with async
# threads only: with +A 0 the job would block a scheduler, as in Erlang.
MINI=${1:-bin/mini}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/fifo" || { echo "FAIL no mkfifo"; exit 1; }
printf 'one two\nthree\n' > "$dir/small.txt"
cat > "$dir/blocked.mini" <<'MINI'
-module(blocked).
-export([main/1]).
main([Dir]) ->
    Port = open_port({spawn_driver, "textscan"}, []),
    port_command(Port, Dir ++ "/small.txt"),
    port_command(Port, Dir ++ "/fifo"),
    receive {Port, {data, {L1, W1, B1, _}}} -> io:format("first: ~p ~p ~p~n", [L1, W1, B1]) end,
    ok = file:write_file(Dir ++ "/fifo", <<"four five six\n">>),
    receive {Port, {data, {L2, W2, B2, _}}} -> io:format("second: ~p ~p ~p~n", [L2, W2, B2]) end,
    port_close(Port).
MINI
want='first: 2 3 14
second: 1 3 14'
fails=0
for flags in "+A 1" "-smp disable +A 1" "-smp disable +A 4" "+S 1 +A 1" "+S 2 +A 2" "+S 4:4 +A 3"; do
    got=$(timeout 20 "$MINI" $flags "$dir/blocked.mini" "$dir" 2>&1); st=$?
    if [ "$st" != 0 ] || [ "$got" != "$want" ]; then
        echo "FAIL $flags: exit $st"; echo "$got" | head -5; fails=$((fails + 1))
    fi
done
[ "$fails" = 0 ] && echo "async_blocked_job: all passed"
[ "$fails" = 0 ]
