# complete.sh — Tab completes `lists:fol` to `lists:fold`, module
# names (to `Module:`), and bound variables.
. "$(dirname "$0")/lib.sh"
start
expect_last "1>"
send -l 'lists:fol'
send Tab
expect_last "1> lists:fold"
send -l 'l'
send Tab
expect_last "1> lists:foldl("
send C-u
send -l 'rela'
send Tab
expect_last "1> relay:"
send C-u
line 'LongName = 5.'
expect_last "2>"
send -l 'LongN'
send Tab
expect_last "2> LongName"
line '.'
expect_last "3>"
line 'q().'
expect_exit 0
