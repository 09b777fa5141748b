module guards
exports kind/1 between/3 both/2 old/1 module_info/0 module_info/1

function kind/1
L1:
    line 4
    func_info guards, kind, 1
L2:
    is_integer L13, x0
    is_lt L13, 0, x0
    move pos_int, x0
    return
L13:
    is_integer L16, x0
    jump L15
L16:
    is_float L14, x0
L15:
    move number, x0
    return
L14:
    is_atom L18, x0
    jump L19
L18:
    is_list L17, x0
L19:
    move atom_or_list, x0
    return
L17:
    is_tuple_of_arity L20, x0, 2
    bif L20, erlang:element/2, 1, x1, [1, x0]
    is_eq_exact L20, x1, tag
    move tagged, x0
    return
L20:
    move other, x0
    return

function between/3
L3:
    line 10
    func_info guards, between, 3
L4:
    is_ge L21, x0, x1
    is_ge L21, x2, x0
    move true, x0
    return
L21:
    move false, x0
    return

function both/2
L5:
    line 13
    func_info guards, both, 2
L6:
    bif 0, erlang:'>'/2, 2, x2, [x0, 0]
    is_ne_exact L22, x2, true
    is_eq_exact L23, x2, false
    move false, x0
    return
L22:
    move x1, x0
    return
L23:
    move x2, x0
    test_heap 3, 1
    put_tuple x0, [badarg, x0]
    bif 0, erlang:error/1, 1, x0, [x0]

function old/1
L7:
    line 15
    func_info guards, old, 1
L8:
    is_integer L24, x0
    move int, x0
    return
L24:
    is_tuple L25, x0
    bif L25, erlang:size/1, 1, x1, [x0]
    is_eq L25, x1, 2
    move pair, x0
    return
L25:
    move other, x0
    return

function module_info/0
L9:
    line 2
    func_info guards, module_info, 0
L10:
    bif 0, erlang:get_module_info/1, 0, x0, [guards]
    return

function module_info/1
L11:
    line 3
    func_info guards, module_info, 1
L12:
    bif 0, erlang:get_module_info/2, 1, x0, [guards, x0]
    return
