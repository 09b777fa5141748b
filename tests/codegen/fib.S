module fib
exports fib/1 sum/2 module_info/0 module_info/1

function fib/1
L1:
    line 5
    func_info fib, fib, 1
L2:
    is_eq_exact L9, x0, 0
    move 0, x0
    return
L9:
    is_eq_exact L10, x0, 1
    move 1, x0
    return
L10:
    allocate 2, 1
    move x0, y0
    line 7
    sub 0, 0, y0, 1, x0
    call 1, L2   % fib/1
    move x0, y1
    sub 0, 0, y0, 2, x0
    call 1, L2   % fib/1
    add 0, 1, y1, x0, x0
    deallocate 2
    return

function sum/2
L3:
    line 10
    func_info fib, sum, 2
L4:
    is_eq_exact L11, x0, 0
    move x1, x0
    return
L11:
    line 11
    sub 0, 2, x0, 1, x2
    add 0, 3, x1, x0, x1
    move x2, x0
    call_only 2, L4   % sum/2

function module_info/0
L5:
    line 2
    func_info fib, module_info, 0
L6:
    bif 0, erlang:get_module_info/1, 0, x0, [fib]
    return

function module_info/1
L7:
    line 3
    func_info fib, module_info, 1
L8:
    bif 0, erlang:get_module_info/2, 1, x0, [fib, x0]
    return
