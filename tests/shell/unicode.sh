# unicode.sh — what is typed at the prompt is UTF-8, decoded as source
# files are: "ü" is one character, <<"ü"/utf8>> two bytes, $ü is 252,
# and results print as erl's shell prints them on a UTF-8 terminal.
. "$(dirname "$0")/lib.sh"
export LANG=C.UTF-8
T="tmux -u -L $SOCK"
start
expect_last "1>"
line 'length("ü").'
expect_last "2>"
screen | grep -qx '1' || fail 'length("ü") is not 1'
line 'byte_size(<<"ü"/utf8>>).'
expect_last "3>"
screen | grep -qx '2' || fail '<<"ü"/utf8>> is not two bytes'
line '$ü.'
expect "252"
line '"日本".'
expect "[26085,26412]"
line '"ü".'
expect_last "6>"
screen | grep -qxF '"ü"' || fail '"ü" does not print as "ü"'
line '<<"ü"/utf8>>.'
expect '<<"ü"/utf8>>'
line 'io:format("~ts ~s~n", ["日本", "ü"]).'
expect "日本 ü"
line 'q().'
expect_exit 0
