#!/usr/bin/env escript
%% otp_source.escript -- writes MODULE.erl for each OTP module named, from
%% the debug information of the installed .beam: the functions, records and
%% exports as erl_pp prints them (macros expanded), without specs and types
%% (which Mini does not read). stdlib/array, gb_trees, gb_sets, sets and
%% rand (split in two, see rand.mini) were taken from OTP 25 with it.
%%   escript tools/otp_source.escript array gb_trees
main(Mods) ->
    [begin
        M = list_to_atom(Ms),
        {ok, {_, [{abstract_code, {_, Forms}}]}} = beam_lib:chunks(code:which(M), [abstract_code]),
        Keep = [clean(F) || F <- Forms, keep(F)],
        Src = [[erl_pp:form(F), case element(1, F) of function -> "\n"; _ -> "" end] || F <- Keep],
        file:write_file(Ms ++ ".erl", Src)
     end || Ms <- Mods].
keep({attribute,_,module,_}) -> true;
keep({attribute,_,export,_}) -> true;
keep({attribute,_,record,_}) -> true;
keep({attribute,_,_,_}) -> false;
keep({eof,_}) -> false;
keep(_) -> true.
clean({attribute,A,record,{N,Fs}}) ->
    {attribute,A,record,{N,[case F of {typed_record_field,RF,_} -> RF; _ -> F end || F <- Fs]}};
clean(F) -> F.
