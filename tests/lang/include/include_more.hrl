%% included by include_defs.hrl, found in the including file's directory
-define(MORE, more).
-ifdef(GREETING).
-define(SEEN_GREETING, true).
-endif.
twice_plus(X) -> ?TWICE(X) + 1.
