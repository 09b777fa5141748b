%% included by include_basic.mini with -include_lib
-define(FROM_LIB, from_lib).
