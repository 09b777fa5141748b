# flags.sh — every command-line flag, good and bad, without a
# terminal: exit statuses, output, and the usage message for bad flags.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
check() {   # check NAME EXPECTED_STATUS EXPECTED_STDOUT_SUBSTRING -- command...
    name=$1; want=$2; text=$3; shift 4
    # a run that does not end is named (status 124), not the whole test's timeout
    timeout 30 "$@" > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
    if [ "$st" != "$want" ]; then
        echo "FAIL $name: status $st, expected $want"; cat "$TMPD/out" "$TMPD/err" | head -5; fails=$((fails+1))
    elif [ -n "$text" ] && ! grep -qF -- "$text" "$TMPD/out"; then
        echo "FAIL $name: stdout lacks '$text'"; cat "$TMPD/out" "$TMPD/err" | head -5; fails=$((fails+1))
    fi
}
bad() {     # bad NAME -- command...: status 2 and a usage line on stderr
    name=$1; shift 2
    timeout 30 "$@" > "$TMPD/out" 2> "$TMPD/err" < /dev/null; st=$?
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
# a shell command among -eval's expressions is refused as a lone one is
check eval_command 1 "" -- $BIN -noshell -eval 'X = 1, f(X), io:format("~p~n", [X])'
grep -q "work only at the shell's prompt" "$TMPD/err" || { echo "FAIL eval_command: no message"; fails=$((fails+1)); }
check s_error 1 "" -- $BIN -pa "$TMPD/lib" -noshell -s flagmod fail
check s_init_stop 0 "" -- $BIN -noshell -s init stop
check order 0 "hello" -- $BIN -pa "$TMPD/lib" -noshell -eval 'io:format("first~n")' -s flagmod hello
head -1 "$TMPD/out" | grep -qx first || { echo "FAIL order: -eval did not run first"; fails=$((fails+1)); }
check smp_disable 0 "hello" -- $BIN -smp disable -pa "$TMPD/lib" -noshell -s flagmod hello
check smp_enable 0 "hello" -- $BIN -smp enable -pa "$TMPD/lib" -noshell -s flagmod hello
# +S as erl: N schedulers, min(N, cores) online unless :M says; 0 is one
# per core, a negative N counts down from the cores
SI='io:format("~p~n", [[erlang:system_info(schedulers), erlang:system_info(schedulers_online)]])'
CORES=$(getconf _NPROCESSORS_ONLN)
min() { [ "$1" -lt "$2" ] && echo "$1" || echo "$2"; }
check S_N 0 "[2,$(min 2 "$CORES")]" -- $BIN +S 2 -noshell -eval "$SI"
check S_NM 0 "[3,1]" -- $BIN +S 3:1 -noshell -eval "$SI"
check S_zero 0 "[$CORES,$CORES]" -- $BIN +S 0 -noshell -eval "$SI"
check S_zero_zero 0 "[$CORES,$CORES]" -- $BIN +S 0:0 -noshell -eval "$SI"
check S_above_cores 0 "[$((CORES + 3)),$CORES]" -- $BIN +S $((CORES + 3)) -noshell -eval "$SI"
check S_above_online 0 "[$((CORES + 3)),$((CORES + 3))]" -- $BIN +S $((CORES + 3)):$((CORES + 3)) -noshell -eval "$SI"
check S_negative 0 "[$(( CORES > 1 ? CORES - 1 : 1 ))," -- $BIN +S -1 -noshell -eval "$SI"
check S_max 0 "[64,$(min 64 "$CORES")]" -- $BIN +S 64 -noshell -eval "$SI"
check smp_auto 0 "hello" -- $BIN -smp auto -pa "$TMPD/lib" -noshell -s flagmod hello
check S_smp_disable 0 "[1,1]" -- $BIN +S 4 -smp disable -noshell -eval "$SI"
check P_N 0 "4096" -- $BIN +P 4096 -noshell -eval 'io:format("~p~n", [erlang:system_info(process_limit)])'
check t_N 0 "ok" -- $BIN +t 10000 -noshell -eval 'io:format("ok~n")'
check hms 0 "ok" -- $BIN +hms 500 -noshell -eval 'io:format("ok~n")'
check hmax 0 "ok" -- $BIN +hmax 100000 +hmaxk true +hmaxel false -noshell -eval 'io:format("ok~n")'
check MMax 0 "ok" -- $BIN +MMax 512 -noshell -eval 'io:format("ok~n")'
check I_dir 0 "ok" -- $BIN -I "$TMPD" -noshell -eval 'io:format("ok~n")'
check show_code 0 "main" -- $BIN -S "$TMPD/lib/flagmod.mini"
# -version: on stderr, and the VM goes on; +V: on stderr, and stops
check dash_version 0 "went on" -- $BIN -version -noshell -eval 'io:format("went on~n")'
grep -q "^Mini (SMP,ASYNC_THREADS) emulator version 0.1$" "$TMPD/err" || { echo "FAIL -version: stderr"; fails=$((fails+1)); }
check plus_V 0 "" -- $BIN +V -noshell -eval 'io:format("not run~n")'
grep -q "emulator version 0.1" "$TMPD/err" && ! grep -q "not run" "$TMPD/out" || { echo "FAIL +V"; fails=$((fails+1)); }
check dash_help 0 "-noshell" -- $BIN -help
grep -q "MINI_ROOT" "$TMPD/out" || { echo "FAIL -help: no word of MINI_ROOT"; fails=$((fails+1)); }
check A_N 0 "hello" -- $BIN +A 4 -pa "$TMPD/lib" -noshell -s flagmod hello
check file_args 2 'main ["x","y"]' -- $BIN "$TMPD/lib/flagmod.mini" x y
check file_crash 1 "before" -- $BIN "$TMPD/crash.mini"
check file_flags 0 'main []' -- $BIN +S 1 -smp disable "$TMPD/lib/flagmod.mini"

bad unknown -- $BIN -frobnicate
bad unknown_plus -- $BIN +Q 1
bad S_missing -- $BIN +S
bad S_word -- $BIN +S many
bad S_too_many -- $BIN +S 65
bad S_online_word -- $BIN +S 2:x
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

bad P_small -- $BIN +P 10
bad t_small -- $BIN +t 10
bad hmax_small -- $BIN +hmax 10
bad hmaxk_word -- $BIN +hmaxk maybe
bad A_large -- $BIN +A 5000

# a bad value is named in the message, not just the flag
for v in "+S 100" "+S many" "-smp sometimes" "+A x" "+P 10" "+t 10" "+hmax 10" "+hmaxk maybe"; do
    # shellcheck disable=SC2086
    $BIN $v > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    val=${v#* }
    grep -q "^mini: ${v%% *}: .*: $val\$" "$TMPD/err" || { echo "FAIL message for $v:"; head -1 "$TMPD/err"; fails=$((fails+1)); }
done

[ $fails -eq 0 ] || { echo "$fails flag checks failed"; exit 1; }
