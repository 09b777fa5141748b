#!/bin/sh
# gen.sh — (re)generates or verifies tests/errors/*.err with the front-end
# driver (driver.c), until bin/mini can do it: run from the repository root.
#   sh tests/errors/gen.sh          regenerate every .err
#   sh tests/errors/gen.sh check    compare instead, exit 1 on a difference
set -e
drv=build/release/frontc
objs="build/release/compiler/ast.o build/release/compiler/diag.o build/release/compiler/parse.o \
build/release/compiler/macros.o build/release/compiler/check.o build/release/compiler/ast_dump.o \
build/release/gen/parser.o build/release/gen/lexer.o"
make -s $objs
cc -std=gnu11 -Wall -Wextra -O2 -Icompiler -Ibuild/release/gen -o $drv tests/errors/driver.c $objs -lgc
fail=0
for src in tests/errors/*.mini; do
  err=${src%.mini}.err
  set +e
  $drv "$src" 2>/tmp/mini_err.$$ >/dev/null
  rc=$?
  set -e
  if [ $rc -ne 1 ]; then echo "FAIL $src: exit status $rc"; fail=1; fi
  if [ "$1" = check ]; then
    cmp -s /tmp/mini_err.$$ "$err" || { echo "FAIL $src: stderr differs"; fail=1; }
  else
    cp /tmp/mini_err.$$ "$err"
  fi
done
rm -f /tmp/mini_err.$$
exit $fail
