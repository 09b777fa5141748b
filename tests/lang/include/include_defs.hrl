%% included by include_basic.mini: macros, a record and a nested include
-define(GREETING, "hello").
-define(TWICE(X), (2 * (X))).
-record(pt, {x = 0, y = 0}).
-include("include_more.hrl").
