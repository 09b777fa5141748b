# lib.sh — helpers for the shell tests: drive `mini` in a tmux pane.
#
# Sourced by tests/shell/*.sh, which run as `sh SCRIPT bin/mini`. Each test
# gets its own tmux server (-L), so tests run in parallel and never touch
# the user's sessions, and its own HOME (for ~/.mini_history). Nothing
# sleeps for a fixed time to wait for output: expect() polls the pane.

BIN=${1:-bin/mini}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SOCK=mini_test_$$
TMPD=$(mktemp -d)
export HOME=$TMPD
T="tmux -L $SOCK"

cleanup() { $T kill-server 2>/dev/null; rm -rf "$TMPD"; }
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "---- screen ----" >&2
    $T capture-pane -p -t S -S -200 >&2 2>/dev/null
    exit 1
}

# start [flags...]: mini in a 120x40 pane; its exit status lands in $TMPD/status
start() {
    # a server killed just before may still be going away: wait for it, and
    # try again if tmux reports that the new one died while starting
    i=0
    while $T has-session 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    for attempt in 1 2 3 4 5; do
        $T new-session -d -s S -x 120 -y 40 \
            "cd '$(pwd)' && HOME='$TMPD' '$BIN' $*; echo \$? > '$TMPD/status'; sleep 60" \
            2>/dev/null && $T has-session -t S 2>/dev/null && return 0
        sleep 0.2
    done
    fail "tmux would not start"
}

screen() { $T capture-pane -p -t S -S -200; }

# expect TEXT [SECONDS]: wait until the pane shows TEXT (a fixed string)
expect() {
    want=$1; limit=${2:-10}; i=0
    while [ $i -lt $((limit * 20)) ]; do
        screen | grep -qF -- "$want" && return 0
        sleep 0.05; i=$((i + 1))
    done
    fail "did not see: $want"
}

# last_line_is TEXT: the cursor's line (the prompt line) reads TEXT
last_line() { screen | grep -v '^$' | tail -n 1; }
expect_last() {
    want=$1; limit=${2:-10}; i=0
    while [ $i -lt $((limit * 20)) ]; do
        [ "$(last_line)" = "$want" ] && return 0
        sleep 0.05; i=$((i + 1))
    done
    fail "last line is '$(last_line)', not '$want'"
}

send() { $T send-keys -t S "$@"; }
line() { $T send-keys -t S -l "$1"; $T send-keys -t S Enter; }

# expect_exit STATUS: wait for mini to end with that status
expect_exit() {
    i=0
    while [ $i -lt 200 ] && [ ! -s "$TMPD/status" ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$TMPD/status" ] || fail "mini did not exit"
    st=$(cat "$TMPD/status")
    [ "$st" = "$1" ] || fail "exit status $st, expected $1"
}
