# lib_ulimit.sh — the start of the tests that run Mini under an
# address-space limit (oom_runaway.sh, oom_bifs.sh, oom_huge_terms.sh),
# sourced as `. "$(dirname "$0")/lib_ulimit.sh"`: BIN from the first
# argument, a temporary folder TMPD, and fail(), which counts failures in
# `fails` for the script's last lines. AddressSanitizer reserves terabytes
# of address space for its shadow memory, so it cannot run under ulimit -v
# at all: under it the script says so and ends here, passing.
BIN=${1:-bin/mini}
case "$BIN" in
*-san*) echo "SKIPPED under AddressSanitizer: ulimit -v leaves its shadow memory no room"; exit 0 ;;
esac
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
