#!/bin/sh
# stdin.sh MINI -- standard input for programs (`mini prog.mini < input`):
#  1. tests/shell/stdin_io.mini on stdin_io.in must print stdin_io.out, which
#     came from Erlang/OTP 25 on the same input;
#  2. a process waiting for input blocks no scheduler: with +S 1 and
#     -smp disable, stdin_wait.mini prints "ready" while its reader waits on a
#     FIFO nobody has written yet; only then is the input written.
MINI=${1:-bin/mini}
dir=tests/shell
for flags in "" "+S 1" "+S 2" "-smp disable"; do
  out=$("$MINI" $flags $dir/stdin_io.mini < $dir/stdin_io.in) || { echo "stdin_io ($flags): exit status $?"; exit 1; }
  [ "$out" = "$(cat $dir/stdin_io.out)" ] || { echo "stdin_io ($flags): differs:"; printf '%s\n' "$out" | diff $dir/stdin_io.out -; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for flags in "+S 1" "-smp disable" "+S 2"; do
  mkfifo "$tmp/in"
  "$MINI" $flags $dir/stdin_wait.mini < "$tmp/in" > "$tmp/out" 2>&1 &
  pid=$!
  exec 3> "$tmp/in"
  i=0
  until grep -q '^ready' "$tmp/out"; do
    i=$((i + 1))
    [ $i -gt 500 ] && { echo "stdin_wait ($flags): no 'ready' while the reader waits"; kill $pid; exit 1; }
    sleep 0.02
  done
  printf 'first\nsecond\n' >&3
  exec 3>&-
  wait $pid || { echo "stdin_wait ($flags): exit status $?"; exit 1; }
  expected='ready 5000050000
got "first\n"
then "second\n"'
  [ "$(cat "$tmp/out")" = "$expected" ] || { echo "stdin_wait ($flags): unexpected:"; cat "$tmp/out"; exit 1; }
  rm -f "$tmp/in" "$tmp/out"
done
echo ok
