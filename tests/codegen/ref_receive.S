module ref_receive
exports call/2 not_every_clause/2 call_between/2 module_info/0 module_info/1

function call/2
L1:
    line 8
    func_info ref_receive, call, 2
L2:
    recv_mark L11
    line 9
    bif 0, erlang:monitor/2, 2, x2, [process, x0]
    line 10
    bif 0, erlang:self/0, 3, x5, []
    move [], x3
    move [], x4
    test_heap 5, 6
    put_tuple x5, [call, x5, x2, x1]
    send x0, x5, x5
    recv_set L11
L11:
    loop_rec_filter L12, x5, [2, 2, 1, 0, x2, 5, 3, 0, 'DOWN', 1, x2, 2, process]
    is_tuple_of_arity L13, x5, 2
    get_tuple_element x5, 0, x6
    is_eq_exact L13, x6, x2
    get_tuple_element x5, 1, x3
    remove_message
    line 12
    bif 0, erlang:demonitor/2, 5, x5, [x2, [flush]]
    move x3, x0
    return
L13:
    is_tagged_tuple L14, x5, 5, 'DOWN'
    get_tuple_element x5, 1, x6
    is_eq_exact L14, x6, x2
    get_tuple_element x5, 2, x6
    is_eq_exact L14, x6, process
    get_tuple_element x5, 4, x4
    remove_message
    test_heap 3, 5
    put_tuple x0, [error, x4]
    return
L14:
    loop_rec_end L11
L12:
    wait L11, 5

function not_every_clause/2
L3:
    line 16
    func_info ref_receive, not_every_clause, 2
L4:
    line 17
    bif 0, erlang:make_ref/0, 2, x2, []
    line 18
    bif 0, erlang:self/0, 3, x4, []
    move [], x3
    test_heap 5, 5
    put_tuple x4, [call, x4, x2, x1]
    send x0, x4, x4
L15:
    loop_rec L16, x4
    is_tuple_of_arity L17, x4, 2
    get_tuple_element x4, 0, x5
    is_eq_exact L17, x5, x2
    get_tuple_element x4, 1, x3
    remove_message
    move x3, x0
    return
L17:
    is_eq_exact L18, x4, stop
    remove_message
    move stopped, x0
    return
L18:
    loop_rec_end L15
L16:
    wait L15, 4

function call_between/2
L5:
    line 24
    func_info ref_receive, call_between, 2
L6:
    line 25
    bif 0, erlang:make_ref/0, 2, x2, []
    line 26
    bif 0, erlang:self/0, 3, x4, []
    move [], x3
    test_heap 5, 5
    put_tuple x4, [call, x4, x2, x1]
    send x0, x4, x4
    line 27
    bif 0, io:format/1, 4, x4, ["waiting~n"]
L19:
    loop_rec_filter L20, x4, [1, 2, 1, 0, x2]
    is_tuple_of_arity L21, x4, 2
    get_tuple_element x4, 0, x5
    is_eq_exact L21, x5, x2
    get_tuple_element x4, 1, x3
    remove_message
    move x3, x0
    return
L21:
    loop_rec_end L19
L20:
    wait L19, 4

function module_info/0
L7:
    line 2
    func_info ref_receive, module_info, 0
L8:
    bif 0, erlang:get_module_info/1, 0, x0, [ref_receive]
    return

function module_info/1
L9:
    line 3
    func_info ref_receive, module_info, 1
L10:
    bif 0, erlang:get_module_info/2, 1, x0, [ref_receive, x0]
    return
