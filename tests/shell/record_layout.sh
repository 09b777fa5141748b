# record_layout.sh — the shell prints values as erl's shell does:
# io_lib_pretty with depth 30, line_max_chars 60 and the known records
# (rd/2) with their field names, laid out over lines as erl lays them out
# (the fields under each other, a long field name's value on a line of its
# own, records inside records, lists and maps). The expected transcript is
# erl's own for the same input.
BIN=${1:-bin/mini}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
cat > "$TMPD/in" <<'IN'
rd(p, {name, age, address}).
rd(very_long_record_name_for_testing, {a_very_long_field_name_number_one, b, another_quite_long_field_name}).
rd(e, {}).
rd(n, {left, right}).
#e{}.
[#e{}, #e{}].
#very_long_record_name_for_testing{a_very_long_field_name_number_one = {some, tuple, [1,2,3]}, b = "text", another_quite_long_field_name = #p{name = "N", age = 1}}.
#n{left = #n{left = #n{left = 1, right = 2}, right = #n{left = {a, b}, right = [x, y, z]}}, right = lists:seq(1, 30)}.
#p{name = {first, "Alexander", last, "the Great of Macedonia, king"}, age = [33, 34, 35], address = #{city => "Pella", country => "Macedonia"}}.
lists:duplicate(5, #p{name = "A", age = 1, address = "B"}).
{p, 1, 2}.
{p, 1, 2, 3}.
IN
cat > "$TMPD/want" <<'OUT'
1> p
2> very_long_record_name_for_testing
3> e
4> n
5> #e{}
6> [#e{},#e{}]
7> #very_long_record_name_for_testing{
    a_very_long_field_name_number_one = {some,tuple,[1,2,3]},
    b = "text",
    another_quite_long_field_name =
        #p{name = "N",age = 1,address = undefined}}
8> #n{left = #n{left = #n{left = 1,right = 2},
             right = #n{left = {a,b},right = [x,y,z]}},
   right = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,
            21,22,23,24,25,26|...]}
9> #p{name = {first,"Alexander",last,
                 "the Great of Macedonia, king"},
   age = "!\"#",
   address = #{city => "Pella",country => "Macedonia"}}
10> [#p{name = "A",age = 1,address = "B"},
 #p{name = "A",age = 1,address = "B"},
 #p{name = "A",age = 1,address = "B"},
 #p{name = "A",age = 1,address = "B"},
 #p{name = "A",age = 1,address = "B"}]
11> {p,1,2}
12> #p{name = 1,age = 2,address = 3}
13> 
OUT
"$BIN" < "$TMPD/in" 2>&1 | sed 1d > "$TMPD/out"
cmp -s "$TMPD/want" "$TMPD/out" || { diff "$TMPD/want" "$TMPD/out"; echo "FAIL: record layout"; exit 1; }
echo "record_layout: passed"
