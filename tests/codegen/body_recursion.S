module body_recursion
exports map3/1 sum/1 pairs/1 tagged/2 mixed/2 acc/2 swap/3 module_info/0 module_info/1

function map3/1
L1:
    line 9
    func_info body_recursion, map3, 1
L2:
    is_nonempty_list L19, x0
    get_list x0, x1, x2
    allocate 1, 3
    move [], x0
    mul 0, 3, x1, 3, y0
    move x2, x0
    call 1, L2   % map3/1
    test_heap 2, 1
    put_list y0, x0, x0
    deallocate 1
    return
L19:
    is_nil L1, x0
    move [], x0
    return

function sum/1
L3:
    line 13
    func_info body_recursion, sum, 1
L4:
    is_nonempty_list L20, x0
    get_list x0, x1, x2
    allocate 1, 3
    move x1, y0
    move x2, x0
    call 1, L4   % sum/1
    add 0, 1, y0, x0, x0
    deallocate 1
    return
L20:
    is_nil L3, x0
    move 0, x0
    return

function pairs/1
L5:
    line 17
    func_info body_recursion, pairs, 1
L6:
    is_nonempty_list L21, x0
    get_list x0, x1, x2
    is_tuple_of_arity L21, x1, 2
    get_tuple_element x1, 0, x3
    get_tuple_element x1, 1, x4
    allocate 2, 5
    move x3, y0
    move x4, y1
    move x2, x0
    call 1, L6   % pairs/1
    test_heap 5, 1
    put_tuple x1, [y1, y0]
    put_list x1, x0, x0
    deallocate 2
    return
L21:
    is_nil L5, x0
    move [], x0
    return

function tagged/2
L7:
    line 21
    func_info body_recursion, tagged, 2
L8:
    is_nonempty_list L22, x1
    get_list x1, x2, x3
    allocate 2, 4
    move [], x1
    bif 0, erlang:element/2, 4, y0, [1, x2]
    move [], x1
    bif 0, erlang:'>'/2, 4, y1, [x2, x0]
    move x3, x1
    call 2, L8   % tagged/2
    test_heap 4, 1
    put_tuple x0, [y0, y1, x0]
    deallocate 2
    return
L22:
    is_nil L7, x1
    move done, x0
    return

function mixed/2
L9:
    line 25
    func_info body_recursion, mixed, 2
L10:
    is_nonempty_list L23, x1
    get_list x1, x2, x3
    allocate 2, 4
    move x2, y0
    move [], x1
    move [], x2
    add 0, 4, y0, x0, y1
    move x3, x1
    call 2, L10   % mixed/2
    test_heap 4, 1
    put_list x0, y0, x0
    put_list y1, x0, x0
    deallocate 2
    return
L23:
    is_nil L9, x1
    move [], x0
    return

function acc/2
L11:
    line 30
    func_info body_recursion, acc, 2
L12:
    is_nonempty_list L24, x0
    get_list x0, x2, x3
    mul 0, 4, x2, 2, x4
    test_heap 2, 5
    put_list x4, x1, x1
    move x3, x0
    call_only 2, L12   % acc/2
L24:
    is_nil L11, x0
    move x1, x0
    return

function swap/3
L13:
    line 33
    func_info body_recursion, swap, 3
L14:
    is_eq_exact L25, x0, 0
    test_heap 3, 3
    put_tuple x0, [x1, x2]
    return
L25:
    line 34
    sub 0, 3, x0, 1, x0
    test_heap 2, 3
    put_tuple x3, [x2]
    test_heap 2, 4
    put_list x1, [], x2
    move x3, x1
    call_only 3, L14   % swap/3

function module_info/0
L15:
    line 2
    func_info body_recursion, module_info, 0
L16:
    bif 0, erlang:get_module_info/1, 0, x0, [body_recursion]
    return

function module_info/1
L17:
    line 3
    func_info body_recursion, module_info, 1
L18:
    bif 0, erlang:get_module_info/2, 1, x0, [body_recursion, x0]
    return
