#!/bin/sh
# deps.sh — checks for the build dependencies (flex, bison, Boehm GC and readline
# headers, a C compiler, PCRE2 for the re module) and what the test suite uses (tmux drives the shell
# tests), and installs the missing ones with apt-get when it can.
# `deps.sh test` adds what only the suite needs: erlang-base, whose epmd is the
# name server of the distribution tests and whose erl is their interop peer
# (never a build dependency).
# `deps.sh fuzz` checks for what `make fuzz` needs on top: clang and its
# libFuzzer runtime (Debian: clang, libclang-rt-dev); the normal build never needs them.
missing=""
if [ "$1" = fuzz ]; then
  command -v clang >/dev/null 2>&1 || missing="$missing clang"
  printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}\n' \
    | clang -fsanitize=fuzzer -x c -o /dev/null - >/dev/null 2>&1 || missing="$missing libclang-rt-dev"
fi
if [ "$1" = test ]; then
  command -v epmd >/dev/null 2>&1 && command -v erl >/dev/null 2>&1 || missing="$missing erlang-base"
fi
command -v flex  >/dev/null 2>&1 || missing="$missing flex"
command -v bison >/dev/null 2>&1 || missing="$missing bison"
command -v cc    >/dev/null 2>&1 || missing="$missing gcc"
command -v make  >/dev/null 2>&1 || missing="$missing make"
command -v tmux  >/dev/null 2>&1 || missing="$missing tmux"
for h in gc.h:libgc-dev readline/readline.h:libreadline-dev pcre2.h:libpcre2-dev; do
  hdr=${h%%:*}; pkg=${h#*:}
  printf '#define PCRE2_CODE_UNIT_WIDTH 8\n#include <%s>\nint main(void){return 0;}\n' "$hdr" | cc -E -x c - >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y$missing"
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo "
else
  echo "Missing build dependencies:$missing" >&2
  echo "Install them with:  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "Installing:$missing"
${sudo}apt-get update -q >/dev/null && ${sudo}$cmd || { echo "could not install:$missing" >&2; exit 1; }
