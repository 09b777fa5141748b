module float_regs
exports scale/2 neg/1 main/0 module_info/0 module_info/1

function m/5
L1:
    line 10
    func_info float_regs, m, 5
L2:
    is_eq_exact L15, x0, 50
    move 1, x0
    return
L15:
    fmove x1, fr0
    fmove x2, fr1
    line 12
    fmul 0, fr0, fr0, fr2
    line 13
    fmul 0, fr1, fr1, fr3
    fadd L16, fr2, fr3, fr4
    fmove 4.0, fr5
    is_flt L16, fr5, fr4
    move 0, x0
    return
L16:
    line 15
    add 0, 5, x0, 1, x0
    fsub 0, fr2, fr3, fr4
    fmove x3, fr5
    fadd 0, fr4, fr5, fr4
    fbox fr4, 5, x5
    fmove 2.0, fr4
    fmul 0, fr4, fr0, fr4
    fmul 0, fr4, fr1, fr4
    fmove x4, fr5
    fadd 0, fr4, fr5, fr4
    fbox fr4, 6, x2
    move x5, x1
    call_only 5, L2   % m/5

function scale/2
L3:
    line 19
    func_info float_regs, scale, 2
L4:
    is_float L3, x1
    fconv 0, x0, fr0
    fmove 2.0, fr1
    fdiv 0, fr0, fr1, fr0
    fmove x1, fr1
    fadd 0, fr0, fr1, fr0
    fbox fr0, 2, x0
    return

function keep/1
L5:
    line 23
    func_info float_regs, keep, 1
L6:
    allocate 2, 1
    move x0, y0
    line 24
    fmove y0, fr1
    fmove 3.0, fr2
    fmul 0, fr1, fr2, fr0
    fbox fr0, 0, y1
    move 4, x0
    move y1, x1
    line 25
    call 2, L4   % scale/2
    fmove x0, fr1
    line 26
    fmove y1, fr2
    fadd 0, fr2, fr1, fr2
    fbox fr2, 0, x0
    deallocate 2
    return

function neg/1
L7:
    line 28
    func_info float_regs, neg, 1
L8:
    is_float L7, x0
    fmove x0, fr0
    fnegate fr0, fr0
    fbox fr0, 1, x0
    return

function main/0
L9:
    line 30
    func_info float_regs, main, 0
L10:
    allocate 2, 0
    line 31
    fmove 3.0, fr1
    fmove 10.0, fr2
    fdiv 0, fr1, fr2, fr0
    fbox fr0, 0, y0
    move 0, x0
    move y0, x1
    move y0, x2
    move y0, x3
    move y0, x4
    line 32
    call 5, L2   % m/5
    move x0, y1
    move y0, x0
    call 1, L6   % keep/1
    test_heap 3, 1
    put_tuple x0, [y1, x0]
    deallocate 2
    return

function module_info/0
L11:
    line 2
    func_info float_regs, module_info, 0
L12:
    bif 0, erlang:get_module_info/1, 0, x0, [float_regs]
    return

function module_info/1
L13:
    line 3
    func_info float_regs, module_info, 1
L14:
    bif 0, erlang:get_module_info/2, 1, x0, [float_regs, x0]
    return
