#!/bin/sh
# setup.sh — what the benchmarks need beyond the build, installed with
# apt-get when missing: Erlang/OTP (erl, erlc: the other VM of every
# comparison), Lua 5.4 (fib), strace (hackbench's futex count) and
# matplotlib for the charts (bench/plot.py, bench/matrix_plot.py). `make
# bench` and `make bench-matrix` run it first; it is harmless to run again.
missing=""
command -v erl    >/dev/null 2>&1 || missing="$missing erlang-base"
command -v erlc   >/dev/null 2>&1 || missing="$missing erlang-base"
command -v lua5.4 >/dev/null 2>&1 || missing="$missing lua5.4"
command -v strace >/dev/null 2>&1 || missing="$missing strace"
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || missing="$missing python3-matplotlib"
missing=$(echo "$missing" | tr ' ' '\n' | sort -u | tr '\n' ' ')
[ -z "$(echo "$missing" | tr -d ' ')" ] && exit 0
cmd="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo "
else
  echo "Missing for the benchmarks: $missing" >&2
  echo "Install them with:  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "Installing: $missing"
${sudo}apt-get update -q >/dev/null && ${sudo}$cmd || { echo "could not install: $missing" >&2; exit 1; }
