#!/bin/sh
# file_eacces.sh MINI -- file calls without permission give {error, eacces}
# as in Erlang/OTP 25 (expected output file_eacces.out came from erl run the
# same way). Root passes every permission check, so as root the program runs
# as the user nobody (setpriv); without setpriv the test says it is skipped.
MINI=${1:-bin/mini}
dir=tests/shell
if [ "$(id -u)" = 0 ]; then
  if ! command -v setpriv >/dev/null 2>&1; then
    echo "file_eacces: SKIPPED: running as root and setpriv is missing, so no user lacks permissions"
    exit 0
  fi
  run() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  # nobody may not reach this tree (a clone in a `mktemp -d` folder is
  # 0700): the binary, its library (stdlib/, lib/) and the program go to a folder anyone
  # can read
  pub=$(mktemp -d)
  trap 'rm -rf "$pub"' EXIT
  chmod 755 "$pub"
  mkdir "$pub/bin" "$pub/$dir" -p
  cp "$MINI" "$pub/bin/mini"
  cp -r stdlib lib "$pub/"
  cp $dir/file_eacces.mini $dir/file_eacces.out "$pub/$dir/"
  MINI=$pub/bin/mini
  cd "$pub" || exit 1
else
  run() { "$@"; }
fi
out=$(run "$MINI" $dir/file_eacces.mini) || { echo "file_eacces: exit status $?"; echo "$out"; exit 1; }
[ "$out" = "$(cat $dir/file_eacces.out)" ] || { echo "file_eacces: differs:"; printf '%s\n' "$out" | diff $dir/file_eacces.out -; exit 1; }
echo ok
