%% etf_seeds.erl — writes the seed corpus of fuzz_etf (tests/fuzz/seeds/etf):
%% Erlang/OTP's term_to_binary of terms with every encoding binary_to_term
%% reads. Run from tests/fuzz: erlc etf_seeds.erl && erl -noshell -s etf_seeds main -s init stop
-module(etf_seeds).
-export([main/0]).

main() ->
    Terms = [0, 255, 256, -1, 1 bsl 31, 1 bsl 70, -(1 bsl 200), 1.5, -0.0, 1.0e300,
             a, '', 'élan', 'ünïcödé', list_to_atom(lists:duplicate(255, $z)),
             [], "abc", [1, 2 | 3], lists:seq(1, 300), [a, "b", <<"c">>],
             {}, {a, b}, list_to_tuple(lists:seq(1, 300)),
             <<>>, <<1, 2, 3>>, <<1:3>>, <<0:1000>>,
             #{}, #{a => 1, b => [2]}, maps:from_list([{I, I} || I <- lists:seq(1, 40)]),
             #{#{k => v} => {x}},
             self(), make_ref(), fun lists:map/2, fun(X) -> X + 1 end,
             {[#{a => {<<"x">>, 1.0}}], [[[[[]]]]], "str\x{400}"}],
    Opts = [[], [compressed], [{minor_version, 1}], [{minor_version, 2}]],
    lists:foldl(fun(T, N) ->
                        lists:foldl(fun(O, M) ->
                                            B = term_to_binary(T, O),
                                            ok = file:write_file(io_lib:format("seeds/etf/t~3..0B", [M]), B),
                                            M + 1
                                    end, N, Opts)
                end, 0, Terms),
    ok.
