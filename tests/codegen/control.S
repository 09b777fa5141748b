module control
exports classify/1 wait/1 safe/1 grade/1 module_info/0 module_info/1

function classify/1
L1:
    line 4
    func_info control, classify, 1
L2:
    is_nil L14, x0
    move empty, x0
    return
L14:
    is_nonempty_list L15, x0
    get_list x0, x1, x4
    is_nil L15, x4
    is_lt L15, 10, x1
    move {one,big}, x0
    return
L15:
    is_nonempty_list L13, x0
    get_tl x0, x3
    move x0, x2
    line 8
    move [], x1
    bif 0, erlang:length/1, 4, x4, [x2]
    test_heap 3, 5
    put_tuple x0, [x4, x3]
    return
L13:
    line 5
    case_end x0

function wait/1
L3:
    line 11
    func_info control, wait, 1
L4:
L16:
    loop_rec L17, x2
    is_tagged_tuple L18, x2, 2, msg
    get_tuple_element x2, 1, x1
    remove_message
    move x1, x0
    return
L18:
    is_eq_exact L19, x2, stop
    remove_message
    move stopped, x0
    return
L19:
    loop_rec_end L16
L17:
    line 15
    wait_timeout L16, x0, 1
    timeout
    move timeout, x0
    return

function safe/1
L5:
    line 18
    func_info control, safe, 1
L6:
    allocate 9, 1
    move x0, y2
    try y1, L20
    try y0, L21
    move y2, x0
    line 19
    call_fun 0
    try_end y0
    is_tagged_tuple L23, x0, 2, ok
    get_tuple_element x0, 1, y3
    move y3, y6
    jump L22
L21:
    try_case y0
    is_eq_exact L25, x0, throw
    move x1, y4
    test_heap 3, 0
    put_tuple y6, [thrown, y4]
    jump L22
L25:
    is_eq_exact L24, x0, error
    move x1, y4
    move x2, y5
    test_heap 4, 0
    put_tuple y6, [error, y4, y5]
    jump L22
L24:
    raise x0, x1, x2
L22:
    try_end y1
    line 25
    bif 0, io:format/1, 0, x0, ["done~n"]
    move y6, x0
    deallocate 9
    return
L20:
    try_case y1
    move x0, y6
    move x1, y7
    move x2, y8
    bif 0, io:format/1, 0, x0, ["done~n"]
    line 19
    raise y6, y7, y8
L23:
    try_case_end x0

function grade/1
L7:
    line 28
    func_info control, grade, 1
L8:
    is_ge L26, x0, 90
    move a, x0
    return
L26:
    is_ge L27, x0, 70
    move b, x0
    return
L27:
    move c, x0
    return

function module_info/0
L9:
    line 2
    func_info control, module_info, 0
L10:
    bif 0, erlang:get_module_info/1, 0, x0, [control]
    return

function module_info/1
L11:
    line 3
    func_info control, module_info, 1
L12:
    bif 0, erlang:get_module_info/2, 1, x0, [control, x0]
    return
