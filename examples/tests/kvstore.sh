#!/bin/sh
# kvstore.sh MINI -- runs the kvstore example application (examples/kvstore*.mini,
# examples/kvstore.app) and checks its standard output against kvstore.out and
# its reports on standard error against kvstore.reports. Both came from
# Erlang/OTP 25: the modules compiled with erlc and run with
# `erl -noshell -pa DIR -eval 'kvstore:main(), halt().'`, whose standard output
# holds the logger's reports too: kvstore.out is that output without the report
# blocks, kvstore.reports those blocks through the filter below (no timestamps,
# pids, stack frames, heap sizes or client stack traces, which differ).
# Run from the repository root: sh examples/tests/kvstore.sh bin/mini
MINI=${1:-bin/mini}
dir=$(dirname "$0")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MINI" $MINI_FLAGS examples/kvstore.mini >"$tmp/out" 2>"$tmp/err" </dev/null || { echo "kvstore: exit status $?"; exit 1; }
cmp -s "$tmp/out" "$dir/kvstore.out" || { echo "kvstore: unexpected output"; diff "$dir/kvstore.out" "$tmp/out"; exit 1; }
awk -f "$dir/report_filter.awk" "$tmp/err" >"$tmp/reports"
cmp -s "$tmp/reports" "$dir/kvstore.reports" || { echo "kvstore: unexpected reports"; diff "$dir/kvstore.reports" "$tmp/reports"; exit 1; }
