module fib
exports fib/1 sum/2

function fib/1
L1:
    line 5
    func_info fib, fib, 1
L2:
    is_eq_exact L5, x0, 0
    move 0, x0
    return
L5:
    is_eq_exact L6, x0, 1
    move 1, x0
    return
L6:
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
    is_eq_exact L7, x0, 0
    move x1, x0
    return
L7:
    line 11
    sub 0, 2, x0, 1, x2
    add 0, 3, x1, x0, x1
    move x2, x0
    call_only 2, L4   % sum/2
