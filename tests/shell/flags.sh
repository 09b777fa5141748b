# flags.sh — every command-line flag, good and bad, without a
# terminal: exit statuses, output, and the usage message for bad flags.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
check() {   # check NAME EXPECTED_STATUS EXPECTED_STDOUT_SUBSTRING -- command...
    name=$1; want=$2; text=$3; shift 4
    "$@" > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
    if [ "$st" != "$want" ]; then
        echo "FAIL $name: status $st, expected $want"; cat "$TMPD/out" "$TMPD/err" | head -5; fails=$((fails+1))
    elif [ -n "$text" ] && ! grep -qF -- "$text" "$TMPD/out"; then
        echo "FAIL $name: stdout lacks '$text'"; cat "$TMPD/out" "$TMPD/err" | head -5; fails=$((fails+1))
    fi
}
bad() {     # bad NAME -- command...: status 2 and a usage line on stderr
    name=$1; shift 2
    "$@" > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
    if [ "$st" != 2 ] || ! grep -q '^usage: mini' "$TMPD/err"; then
        echo "FAIL $name: status $st (want 2 and usage on stderr)"; cat "$TMPD/err" | head -3; fails=$((fails+1))
    fi
}

mkdir "$TMPD/lib"
cat > "$TMPD/lib/flagmod.mini" <<'MINI'
-module(flagmod).
-export([start/0, hello/0, args/1, fail/0, main/1]).
start() -> io:format("started~n").
hello() -> io:format("hello~n").
args(L) -> io:format("args ~p~n", [L]).
fail() -> 1 = 2.
main(Args) -> io:format("main ~p~n", [Args]), halt(length(Args)).
MINI
cat > "$TMPD/crash.mini" <<'MINI'
-module(crash).
-export([main/0]).
main() -> io:format("before~n"), erlang:error(boom).
MINI

check version 0 "Mini 0.1" -- $BIN --version
check help 0 "-noshell" -- $BIN --help
check pa_s 0 "hello" -- $BIN -pa "$TMPD/lib" -noshell -s flagmod hello
check s_default_fun 0 "started" -- $BIN -pa "$TMPD/lib" -noshell -s flagmod
check s_atoms 0 "args [a,b]" -- $BIN -pa "$TMPD/lib" -noshell -s flagmod args a b -s init stop
check run_strings 0 'args ["a","b"]' -- $BIN -pa "$TMPD/lib" -noshell -run flagmod args a b
check eval 0 "42" -- $BIN -noshell -eval 'io:format("~p~n", [6 * 7])'
check eval_dot 0 "3" -- $BIN -noshell -eval 'X = 1, io:format("~p~n", [X + 2]).'
check eval_halt 5 "" -- $BIN -noshell -eval 'halt(5)'
check eval_stop 0 "x" -- $BIN -noshell -eval 'io:format("x~n"), init:stop(), io:format("not printed~n")'
check eval_error 1 "" -- $BIN -noshell -eval '1 = 2'
grep -q "no match of right hand side value 2" "$TMPD/err" || { echo "FAIL eval_error: no report"; fails=$((fails+1)); }
check eval_syntax 1 "" -- $BIN -noshell -eval 'foo('
check s_error 1 "" -- $BIN -pa "$TMPD/lib" -noshell -s flagmod fail
check s_init_stop 0 "" -- $BIN -noshell -s init stop
check order 0 "hello" -- $BIN -pa "$TMPD/lib" -noshell -eval 'io:format("first~n")' -s flagmod hello
head -1 "$TMPD/out" | grep -qx first || { echo "FAIL order: -eval did not run first"; fails=$((fails+1)); }
check smp_disable 0 "hello" -- $BIN -smp disable -pa "$TMPD/lib" -noshell -s flagmod hello
check smp_enable 0 "hello" -- $BIN -smp enable -pa "$TMPD/lib" -noshell -s flagmod hello
check S_N 0 "[2,2]" -- $BIN +S 2 -noshell -eval 'io:format("~p~n", [[erlang:system_info(schedulers), erlang:system_info(schedulers_online)]])'
check S_NM 0 "[3,1]" -- $BIN +S 3:1 -noshell -eval 'io:format("~p~n", [[erlang:system_info(schedulers), erlang:system_info(schedulers_online)]])'
check A_N 0 "hello" -- $BIN +A 4 -pa "$TMPD/lib" -noshell -s flagmod hello
check file_args 2 'main ["x","y"]' -- $BIN "$TMPD/lib/flagmod.mini" x y
check file_crash 1 "before" -- $BIN "$TMPD/crash.mini"
check file_flags 0 'main []' -- $BIN +S 1 -smp disable "$TMPD/lib/flagmod.mini"

bad unknown -- $BIN -frobnicate
bad unknown_plus -- $BIN +Q 1
bad S_missing -- $BIN +S
bad S_word -- $BIN +S many
bad S_zero -- $BIN +S 0
bad S_online -- $BIN +S 2:3
bad S_colon -- $BIN +S 2:
bad A_missing -- $BIN +A
bad A_word -- $BIN +A x
bad smp_word -- $BIN -smp sometimes
bad smp_missing -- $BIN -smp
bad pa_missing -- $BIN -pa
bad s_missing -- $BIN -s
bad run_missing -- $BIN -run -noshell
bad eval_missing -- $BIN -eval

[ $fails -eq 0 ] || { echo "$fails flag checks failed"; exit 1; }
