# records.sh — records at the shell's prompt, checked side by side with erl
# 25 (the transcript below is erl's, line for line, but the banner): rd/2
# and a bad declaration, record expressions, updates, matching and guards,
# rl/0,1, rr/1,2 from a module's source (with an -include'd file) and
# from include files and wildcards, rr(file) (a library module's source),
# rf/0,1, values, b() and rp/1 printed
# with field names, errors for unknown records, a missing file or module.
# Then on a terminal: a record holding Unicode text, as erl prints it
# ("日本" as a list of integers: erl's printable range is Latin-1).
. "$(dirname "$0")/lib.sh"
D=$TMPD/work
mkdir -p "$D/inc"
cat > "$D/geo.mini" <<'MINI'
-module(geo).
-include("inc/shapes.hrl").
-export([origin/0, unit/0, sq/0]).
-record(point, {x = 0, y = 0}).
-record(circle, {center = #point{}, radius = 1 :: integer(),
                 label = "c"}).
origin() -> #point{}.
unit() -> #circle{}.
sq() -> #square{}.
MINI
cat > "$D/inc/shapes.hrl" <<'HRL'
%% shapes
-record(square, {side = 1, color}).
-record(tri, {a, b, c}).
HRL
echo '-record(pair, {left, right = []}).' > "$D/inc/extra.hrl"

cd "$D"
cat > "$TMPD/in" <<'IN'
rd(point, {x, y = 2}).
#point{x = 1}.
P = #point{x = 5}.
P#point.x.
#point{y = Y} = P.
Y.
P#point{y = [a, "b"]}.
case P of #point{x = X} when X > 1 -> {big, X}; _ -> small end.
F = fun(R) when is_record(R, point) -> R#point.x; (_) -> no end, {F(P), F({point, 1})}.
#point.y.
record_info(fields, point).
rl().
rd(bad, nope).
rd(c, {p = #nope{}}).
#nope{}.
rr(geo).
rl().
geo:origin().
geo:unit().
{geo:sq(), [P]}.
rl([point, tri]).
rf(circle).
rr(geo, circle).
geo:unit().
rf().
P.
rr(geo, [circle, point]).
geo:unit().
rr("inc/*.hrl").
[#tri{a = 1, b = 2, c = 3}, #pair{left = x}].
rf().
rr("inc/extra.hrl", pair).
f().
Z = #pair{}.
b().
rp(Z).
rr(file).
{ok, FI} = file:read_file_info("geo.mini"), FI#file_info.type.
rr("nofile.hrl").
rr(nomod).
IN
"$BIN" < "$TMPD/in" > "$TMPD/out" 2> "$TMPD/err"
cat > "$TMPD/want" <<'OUT'
Mini shell V0.1  (quit with q(). or Ctrl-D)
1> point
2> #point{x = 1,y = 2}
3> #point{x = 5,y = 2}
4> 5
5> #point{x = 5,y = 2}
6> 2
7> #point{x = 5,y = [a,"b"]}
8> {big,5}
9> {5,no}
10> 3
11> [x,y]
12> -record(point,{x, y = 2}).
ok
13> ** exception exit: "bad record declaration"
14> * 1:12: record nope undefined
15> * 1:1: record nope undefined
16> [circle,point,square,tri]
17> -record(circle,{center = #point{}, radius = 1 :: integer(), label = "c"}).
-record(point,{x = 0, y = 0}).
-record(square,{side = 1, color}).
-record(tri,{a, b, c}).
ok
18> #point{x = 0,y = 0}
19> #circle{center = #point{x = 0,y = 0},radius = 1,label = "c"}
20> {#square{side = 1,color = undefined},[#point{x = 5,y = 2}]}
21> -record(point,{x = 0, y = 0}).
-record(tri,{a, b, c}).
ok
22> ok
23> ** exception exit: "record point undefined"
24> {circle,#point{x = 0,y = 0},1,"c"}
25> []
26> {point,5,2}
27> [circle,point]
28> #circle{center = #point{x = 0,y = 0},radius = 1,label = "c"}
29> [pair,square,tri]
30> [#tri{a = 1,b = 2,c = 3},#pair{left = x,right = []}]
31> []
32> [pair]
33> ok
34> #pair{left = undefined,right = []}
35> Z = #pair{left = undefined,right = []}
ok
36> #pair{left = undefined,right = []}
ok
37> [file_descriptor,file_info]
38> regular
39> []
40> {error,nofile}
41> 
OUT
cmp -s "$TMPD/want" "$TMPD/out" || { diff "$TMPD/want" "$TMPD/out"; fail "piped transcript"; }

# on a terminal (a unicode device): text in a record's fields as erl shows it
start
expect_last "1>"
line 'rd(note, {text = "ü", tags = []}).'
expect_last "2>"
line '#note{tags = ["日本"]}.'
expect '#note{text = "ü",tags = [[26085,26412]]}'
line 'rl(note).'
expect '-record(note,{text = "ü", tags = []}).'
line 'q().'
expect_exit 0
