# tutorial.sh — runs every session of docs/tutorial.md in a terminal: the
# ```mini-session blocks, each started with its `$ bin/mini FLAGS` line.
# The commands (after `N> `) are typed one at a time; before the next one
# is typed, every line the transcript shows up to it must be on the screen,
# checked by shape: numbers (times, pids, counts, dates) and month names
# may differ, the rest must be as written. `...` stands for lines left out.
. "$(dirname "$0")/lib.sh"
DOC=$(dirname "$0")/../../docs/tutorial.md
[ -f "$DOC" ] || fail "no $DOC"

# one file per block: F flags / C command / E regex (a whole screen line)
awk -v dir="$TMPD" '
function shape(s,   r) {
    gsub(/[0-9]+/, "\001", s)
    gsub(/(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/, "\002", s)
    gsub(/[][\\.^$*+?(){}|\/]/, "\\\\&", s)
    gsub(/\001/, "[0-9]+", s)
    gsub(/\002/, "[A-Z][a-z][a-z]", s)
    return "^" s "$"
}
/^```mini-session$/ { n++; inb = 1; f = dir "/block" n; next }
/^```$/ && inb { inb = 0; close(f); next }
!inb { next }
/^\$ bin\/mini/ { sub(/^\$ bin\/mini ?/, ""); print "F " $0 > f; next }
$0 == "..." { next }
/^[0-9]+> / { c = $0; sub(/^[0-9]+> /, "", c); print "C " c > f; print "E " shape($0) > f; next }
{ print "E " shape($0) > f }
END { print n > (dir "/nblocks") }' "$DOC"
nb=$(cat "$TMPD/nblocks")
[ "$nb" -ge 6 ] || fail "only $nb sessions found in the tutorial"

# wait until each E line so far is on the screen as often as written so far
wait_seen() {
    i=0
    while [ $i -lt 600 ]; do
        screen > "$TMPD/screen"
        if awk -v scr="$TMPD/screen" '
            BEGIN { while ((getline l < scr) > 0) { sub(/[ \t]+$/, "", l); s[++ns] = l } }
            { re = $0; want[re]++ }
            END {
                for (re in want) {
                    got = 0
                    for (k = 1; k <= ns; k++) if (s[k] ~ re) got++
                    if (got < want[re]) { print "missing: " re > "/dev/stderr"; exit 1 }
                }
            }' "$TMPD/seen" 2> "$TMPD/missing"; then return 0; fi
        sleep 0.05; i=$((i + 1))
    done
    cat "$TMPD/missing" >&2
    fail "tutorial session $b: the transcript's lines did not all appear"
}

# a line typed before its prompt is drawn shows ahead of the prompt and
# breaks the line's shape: wait (up to 3 s) for a bare prompt first; output
# that a session prints after its prompt (the ring's) may leave none
wait_prompt() {
    i=0
    while [ $i -lt 60 ]; do
        last_line | grep -qE '^[0-9]+> *$' && return 0
        sleep 0.05; i=$((i + 1))
    done
}

b=1
while [ $b -le "$nb" ]; do
    flags=$(sed -n 's/^F //p' "$TMPD/block$b")
    # shellcheck disable=SC2086
    start $flags
    : > "$TMPD/seen"
    quit=0
    while IFS= read -r l; do
        case $l in
            "E "*) printf '%s\n' "${l#E }" >> "$TMPD/seen" ;;
            "C "*) wait_seen
                   wait_prompt
                   cmd=${l#C }
                   [ "$cmd" = "q()." ] && quit=1
                   line "$cmd" ;;
        esac
    done < "$TMPD/block$b"
    wait_seen
    [ $quit = 1 ] || line 'q().'
    expect_exit 0
    $T kill-server 2>/dev/null
    rm -f "$TMPD/status"
    b=$((b + 1))
done
echo "ok tutorial ($nb sessions)"
