#!/bin/sh
# sweep.sh — which exports of Erlang/OTP 25's modules Mini lacks.
#
#   tests/sweep/sweep.sh [BIN] [MODULE.exports ...]
#
# Each tests/sweep/MODULE.exports lists what OTP 25's MODULE exports (written
# into the repository, so no erl is needed), one `Name/Arity must` or
# `Name/Arity skip: why` a line. The script has Mini load MODULE
# (code:ensure_loaded/1) and ask erlang:function_exported/3 for each one,
# prints every function Mini lacks, and exits 1 if one marked `must` is
# among them. With no files given it sweeps every tests/sweep/*.exports.
BIN=${1:-bin/mini}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- tests/sweep/*.exports
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
{
    echo '-module(sweep_check).'
    echo '-export([main/0]).'
    echo 'main() ->'
    echo '    Fs = ['
    for f in "$@"; do
        mod=$(basename "$f" .exports)
        # Name/Arity must|skip: why  ->  {mod, Name, Arity, must|skip},
        sed -n "s#^\(.*\)/\([0-9][0-9]*\) \(must\|skip\).*#        {$mod, \1, \2, \3},#p" "$f"
    done
    echo '        end_of_list],'
    echo '    Missing = [{M, F, A, K} || {M, F, A, K} <- lists:droplast(Fs),'
    echo '               code:ensure_loaded(M) =:= code:ensure_loaded(M),'
    echo '               not erlang:function_exported(M, F, A)],'
    echo '    [io:format("missing ~w:~w/~w~s~n", [M, F, A, case K of must -> ""; skip -> " (skipped)" end])'
    echo '     || {M, F, A, K} <- Missing],'
    echo '    Must = length([x || {_, _, _, must} <- Missing]),'
    echo '    io:format("~w functions checked, ~w missing, ~w of them must be there~n",'
    echo '              [length(Fs) - 1, length(Missing), Must]),'
    echo '    halt(case Must of 0 -> 0; _ -> 1 end).'
} > "$TMPD/sweep_check.mini"
"$BIN" "$TMPD/sweep_check.mini"
