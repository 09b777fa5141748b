# pieces.sh — shell commands inside a line's expressions act where they
# stand, as erl's shell runs a line's expressions in order: `f(X), X = 2`
# forgets X before `X = 2`, `b()` shows the bindings made before it,
# `rd(R, Def), #R{...}` uses the record it declared, `v(N)` after other
# expressions; an error stops the line and gives back the bindings it began
# with; errors name erl's line and column. The expected transcript is
# erl's own for the same input.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
cat > "$TMPD/in" <<'IN'
X = 1.
f(X), X = 2.
X.
A = 5, b(), A + 1.
rd(r, {a}), 3.
#r{a = 1}.
rd(s, {b}), #s{b = 1}.
Y = 7, f(), Y = 8.
b().
Z = 1, f(Z), Z.
lists:sum([1]), v(1).
K = 1, f(), 1/0, Q = 3.
b().
A2 = 1, f(A2). B2 = 2.
A2.
L = [1,2], f(L), F = fun(X) -> X, ok end, L = {3,
 [4, 5]}, F(L).
R = case 1 of 1 -> f(), 2 end.
IN
cat > "$TMPD/want" <<'OUT'
1> 1
2> 2
3> 2
4> A = 5
X = 2
6
5> 3
6> #r{a = 1}
7> #s{b = 1}
8> 8
9> Y = 8
ok
10> * 1:14: variable 'Z' is unbound
11> 1
12> ** exception error: an error occurred when evaluating an arithmetic expression
     in operator  '/'/2
        called as 1 / 0
13> Y = 8
ok
14> ok
15> 2
16> * 1:1: variable 'A2' is unbound
17> ok
18> 2
19> 
OUT
"$BIN" < "$TMPD/in" 2>&1 | sed 1d > "$TMPD/out"
cmp -s "$TMPD/want" "$TMPD/out" || { diff "$TMPD/want" "$TMPD/out"; echo "FAIL: pieces"; exit 1; }
echo "pieces: passed"
