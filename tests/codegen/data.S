module data
exports lit/0 build/2 swap/1 prefix/1 send/2 big/1 module_info/0 module_info/1

function lit/0
L1:
    line 4
    func_info data, lit, 0
L2:
    move {ok,[1,2.5,"abc",{nested,[]}],-7,123456789012345678901234567890}, x0
    return

function build/2
L3:
    line 6
    func_info data, build, 2
L4:
    test_heap 11, 2
    put_tuple x2, [x0, x1]
    put_list x0, [], x3
    put_list x1, x3, x3
    put_list x0, x3, x3
    put_list x2, x3, x0
    return

function swap/1
L5:
    line 8
    func_info data, swap, 1
L6:
    is_tuple_of_arity L5, x0, 2
    get_tuple_element x0, 0, x1
    get_tuple_element x0, 1, x2
    test_heap 3, 3
    put_tuple x0, [x2, x1]
    return

function prefix/1
L7:
    line 10
    func_info data, prefix, 1
L8:
    is_nonempty_list L17, x0
    get_list x0, x1, x2
    is_eq_exact L17, x1, 103
    is_nonempty_list L17, x2
    get_list x2, x3, x4
    is_eq_exact L17, x3, 101
    is_nonempty_list L17, x4
    get_list x4, x5, x6
    is_eq_exact L17, x5, 116
    is_nonempty_list L17, x6
    get_list x6, x7, x8
    is_eq_exact L17, x7, 32
    test_heap 3, 9
    put_tuple x0, [get, x8]
    return
L17:
    is_nonempty_list L18, x0
    get_list x0, x1, x2
    is_eq_exact L18, x1, 112
    is_nonempty_list L18, x2
    get_list x2, x3, x4
    is_eq_exact L18, x3, 117
    is_nonempty_list L18, x4
    get_list x4, x5, x6
    is_eq_exact L18, x5, 116
    is_nonempty_list L18, x6
    get_list x6, x7, x8
    is_eq_exact L18, x7, 32
    test_heap 3, 9
    put_tuple x0, [put, x8]
    return
L18:
    move unknown, x0
    return

function send/2
L9:
    line 14
    func_info data, send, 2
L10:
    test_heap 3, 2
    put_tuple x2, [ping, x1]
    send x0, x2, x2
    move sent, x0
    return

function big/1
L11:
    line 16
    func_info data, big, 1
L12:
    is_eq_exact L19, x0, 123456789012345678901234567890
    move yes, x0
    return
L19:
    is_eq_exact L20, x0, -1
    move minus_one, x0
    return
L20:
    move no, x0
    return

function module_info/0
L13:
    line 2
    func_info data, module_info, 0
L14:
    bif 0, erlang:get_module_info/1, 0, x0, [data]
    return

function module_info/1
L15:
    line 3
    func_info data, module_info, 1
L16:
    bif 0, erlang:get_module_info/2, 1, x0, [data, x0]
    return
