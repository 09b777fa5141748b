%% The kvstore example application (examples/kvstore.mini runs it).
{application, kvstore,
 [{description, "A small sharded key-value store"},
  {vsn, "1.0.0"},
  {modules, [kvstore, kvstore_app, kvstore_sup, kvstore_shard, kvstore_conn]},
  {registered, [kvstore_sup, kvstore_conn_sup]},
  {applications, [kernel, stdlib]},
  {mod, {kvstore_app, []}},
  {env, [{shards, 4}, {password, "secret"}]}]}.
