# install.sh — `make install PREFIX=...` puts the binary, the library and
# the man page in place, and the installed binary finds its library from
# its own path, whatever the current directory; a binary copied alone says
# where it looked and how to fix it; MINI_ROOT points it at a library.
BIN=${1:-bin/mini}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
TOP=$(pwd)
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
P=$TMPD/prefix
# -o: install the binary under test as it is, never rebuild it
make -s -C "$TOP" -o "$BIN" install PREFIX="$P" BIN="$BIN" > "$TMPD/make.out" 2>&1 \
    || { cat "$TMPD/make.out"; fail "make install"; }
[ -x "$P/bin/mini" ] || fail "no $P/bin/mini"
[ -f "$P/lib/mini/stdlib/lists.mini" ] || fail "no stdlib"
[ -f "$P/lib/mini/examples/ring.mini" ] || [ -f "$P/lib/mini/examples/relay.mini" ] || fail "no examples"
[ -f "$P/lib/mini/lib/kernel/include/file.hrl" ] || fail "no include files"
[ -f "$P/share/man/man1/mini.1" ] || fail "no man page"
grep -q '^\.TH MINI 1' "$P/share/man/man1/mini.1" || fail "man page header"

mkdir "$TMPD/elsewhere"
cd "$TMPD/elsewhere" || fail "cd"
cat > prog.mini <<'MINI'
-module(prog).
-export([main/0]).
main() -> io:format("~p~n", [lists:sum(lists:seq(1, 10))]).
MINI
out=$("$P/bin/mini" prog.mini 2>&1) || fail "installed binary: $out"
[ "$out" = 55 ] || fail "installed binary printed '$out'"
out=$("$P/bin/mini" -noshell -eval 'io:format("~s~n", [string:uppercase("ok")])' 2>&1)
[ "$out" = OK ] || fail "-eval with the installed library: '$out'"
# an example module is on the code path
out=$("$P/bin/mini" -noshell -eval 'io:format("~p~n", [code:ensure_loaded(relay)])' 2>&1)
echo "$out" | grep -q 'module,relay' || fail "examples not on the code path: '$out'"
# the shell, from piped input
out=$(echo 'lists:reverse([1,2,3]).' | "$P/bin/mini" 2>&1)
echo "$out" | grep -qxF '1> [3,2,1]' || fail "installed shell: '$out'"

# a binary copied alone: a clear message and status 1
cp "$P/bin/mini" "$TMPD/elsewhere/lonely"
./lonely prog.mini > out 2> err; st=$?
[ $st -eq 1 ] || fail "lonely binary: status $st"
grep -q "cannot find the Mini library" err && grep -q "MINI_ROOT" err || { cat err; fail "lonely binary: message"; }
# MINI_ROOT gives it one; a wrong MINI_ROOT is named
out=$(MINI_ROOT="$P/lib/mini" ./lonely prog.mini 2>&1)
[ "$out" = 55 ] || fail "MINI_ROOT: '$out'"
MINI_ROOT="$TMPD/nowhere" ./lonely prog.mini > out 2> err; st=$?
[ $st -eq 1 ] && grep -q "MINI_ROOT=$TMPD/nowhere" err || { cat err; fail "wrong MINI_ROOT"; }
echo "ok install"
