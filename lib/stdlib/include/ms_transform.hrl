%% ms_transform.hrl -- in Erlang/OTP this include turns on the ms_transform
%% parse transform for ets:fun2ms/1. Mini's compiler always does that
%% rewrite (compiler/ms_transform.c), so there is nothing to declare here.
