module funs
exports adder/1 fact/0 refs/0 squares/1 pairs/2 module_info/0 module_info/1

function adder/1
L1:
    line 4
    func_info funs, adder, 1
L2:
    test_heap 3, 1
    make_fun '-adder/1-fun-0-'/1, x0, [x0]
    return

function fact/0
L3:
    line 6
    func_info funs, fact, 0
L4:
    test_heap 2, 0
    make_fun '-fact/0-fun-1-'/1, x0, []
    return

function refs/0
L5:
    line 8
    func_info funs, refs, 0
L6:
    test_heap 2, 0
    make_fun '-refs/0-fun-2-'/1, x0, []
    bif 0, erlang:make_fun/3, 1, x1, [lists, reverse, 1]
    test_heap 3, 2
    put_tuple x0, [x0, x1]
    return

function squares/1
L7:
    line 10
    func_info funs, squares, 1
L8:
    call_only 1, L22   % '-squares/1-lc$^0/1-0-'/1

function pairs/2
L9:
    line 12
    func_info funs, pairs, 2
L10:
    call_only 2, L24   % '-pairs/2-lc$^1/1-0-'/2

function module_info/0
L11:
    line 2
    func_info funs, module_info, 0
L12:
    bif 0, erlang:get_module_info/1, 0, x0, [funs]
    return

function module_info/1
L13:
    line 3
    func_info funs, module_info, 1
L14:
    bif 0, erlang:get_module_info/2, 1, x0, [funs, x0]
    return

function '-adder/1-fun-0-'/2
L15:
    line 4
    func_info funs, '-adder/1-fun-0-', 2
L16:
    add 0, 2, x0, x1, x0
    return

function '-fact/0-fun-1-'/1
L17:
    line 6
    func_info funs, '-fact/0-fun-1-', 1
L18:
    is_eq_exact L25, x0, 0
    move 1, x0
    return
L25:
    allocate 1, 1
    move x0, y0
    sub 0, 0, y0, 1, x0
    call 1, L18   % '-fact/0-fun-1-'/1
    mul 0, 1, y0, x0, x0
    deallocate 1
    return

function '-refs/0-fun-2-'/1
L19:
    line 8
    func_info funs, '-refs/0-fun-2-', 1
L20:
    call_only 1, L2   % adder/1

function '-squares/1-lc$^0/1-0-'/1
L21:
    line 10
    func_info funs, '-squares/1-lc$^0/1-0-', 1
L22:
    is_nonempty_list L26, x0
    get_list x0, x1, x2
    allocate 3, 3
    move x1, y0
    move x2, y1
    bif L27, erlang:'rem'/2, 0, x0, [y0, 2]
    is_eq_exact L27, x0, 0
    mul 0, 0, y0, y0, y2
    move y1, x0
    call 1, L22   % '-squares/1-lc$^0/1-0-'/1
    test_heap 2, 1
    put_list y2, x0, x0
    deallocate 3
    return
L27:
    move y1, x0
    call_last 1, L22, 3   % '-squares/1-lc$^0/1-0-'/1
L26:
    is_nil L28, x0
    move [], x0
    return
L28:
    test_heap 3, 1
    put_tuple x1, [bad_generator, x0]
    bif 0, erlang:error/1, 2, x0, [x1]
    return

function '-pairs/2-lc$^1/1-0-'/2
L23:
    line 12
    func_info funs, '-pairs/2-lc$^1/1-0-', 2
L24:
    is_nonempty_list L29, x0
    get_list x0, x2, x3
    allocate 3, 4
    move x2, y0
    move x3, y1
    move x1, y2
    move y2, x0
    move y0, x1
    move y1, x2
    move y2, x3
    call_last 4, L31, 3   % '-pairs/2-lc$^2/1-0-'/4
L29:
    is_nil L32, x0
    move [], x0
    return
L32:
    test_heap 3, 2
    put_tuple x2, [bad_generator, x0]
    bif 0, erlang:error/1, 3, x0, [x2]
    return

function '-pairs/2-lc$^2/1-0-'/4
L30:
    line 12
    func_info funs, '-pairs/2-lc$^2/1-0-', 4
L31:
    is_nonempty_list L33, x0
    get_list x0, x4, x5
    allocate 5, 6
    move x4, y0
    move x5, y1
    move x1, y2
    move x2, y3
    move x3, y4
    is_ne_exact L34, y2, y0
    move y1, x0
    move y2, x1
    move y3, x2
    move y4, x3
    call 4, L31   % '-pairs/2-lc$^2/1-0-'/4
    test_heap 5, 1
    put_tuple x1, [y2, y0]
    put_list x1, x0, x0
    deallocate 5
    return
L34:
    move y1, x0
    move y2, x1
    move y3, x2
    move y4, x3
    call_last 4, L31, 5   % '-pairs/2-lc$^2/1-0-'/4
L33:
    is_nil L35, x0
    move x2, x0
    move x3, x1
    call_only 2, L24   % '-pairs/2-lc$^1/1-0-'/2
L35:
    test_heap 3, 4
    put_tuple x4, [bad_generator, x0]
    bif 0, erlang:error/1, 5, x0, [x4]
    return
