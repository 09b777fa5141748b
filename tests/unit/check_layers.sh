#!/bin/sh
# check_layers.sh — the include rules between the compiler and the VM
# (docs/internals.md, Code generation and bytecode), run by
# `make frontend-check`. Run from the repository root; prints each breach
# and exits 1 if there is one.
#   - a compiler/ file includes its own headers and, of the VM, only the term
#     layer and the bytecode contract;
#   - a VM file includes no compiler header but compiler.h.
fail=0
allowed=" term.h atom.h literal.h bytecode.h opcodes.h parser.h "   # parser.h: bison's, generated
for f in compiler/*; do
  for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    [ -e "compiler/$h" ] && continue
    case "$allowed" in *" $h "*) continue ;; esac
    echo "check_layers: $f includes $h (the compiler may use only the term layer and the contract)"
    fail=1
  done
done
for f in $(find vm shell -name '*.[ch]' 2>/dev/null); do
  for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    [ "$h" = compiler.h ] && continue
    [ -e "compiler/$h" ] || continue
    echo "check_layers: $f includes compiler/$h (the VM reaches the compiler through compiler.h)"
    fail=1
  done
done
[ $fail = 0 ] && echo "check_layers: compiler and VM include only across the contract"
exit $fail
