#!/bin/sh
# otp_reports.sh MINI -- runs otp_reports.mini, which makes gen_statem,
# gen_event, gen_server and supervisor print their reports, and compares its
# standard output with otp_reports.out and its reports (standard error, through
# report_filter.awk) with otp_reports.reports. Both came from Erlang/OTP 25
# (/work/shared/tools/erl-expect examples/tests/otp_reports.mini: the report
# blocks, which OTP writes to standard output, filtered by report_filter.awk,
# and the rest of the output).
# Run from the repository root: sh examples/tests/otp_reports.sh bin/mini
MINI=${1:-bin/mini}
dir=$(dirname "$0")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MINI" $MINI_FLAGS "$dir/otp_reports.mini" >"$tmp/out" 2>"$tmp/err" </dev/null || { echo "otp_reports: exit status $?"; exit 1; }
cmp -s "$tmp/out" "$dir/otp_reports.out" || { echo "otp_reports: unexpected output"; diff "$dir/otp_reports.out" "$tmp/out"; exit 1; }
awk -f "$dir/report_filter.awk" "$tmp/err" >"$tmp/reports"
cmp -s "$tmp/reports" "$dir/otp_reports.reports" || { echo "otp_reports: unexpected reports"; diff "$dir/otp_reports.reports" "$tmp/reports"; exit 1; }
