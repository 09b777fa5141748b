%% file.hrl -- the records of OTP's kernel/include/file.hrl that Mini's file
%% module returns: #file_info{} from file:read_file_info/1 and
%% file:read_link_info/1 (and OTP's #file_descriptor{}, so that the shell's
%% rr(file) knows the records erl's knows). Include it as Erlang code does:
%%     -include_lib("kernel/include/file.hrl").
%% (the library folder is stdlib/, so this file is stdlib/kernel/include/file.hrl).
-record(file_info,
        {size,          % bytes
         type,          % device | directory | other | regular | symlink
         access,        % read | write | read_write | none
         atime,         % {{Y,Mo,D},{H,Mi,S}}, local time
         mtime,
         ctime,
         mode,          % the permission and type bits (st_mode)
         links,
         major_device,
         minor_device,
         inode,
         uid,
         gid}).

-record(file_descriptor,
        {module,        % the module that handles the file
         data}).        % its data
