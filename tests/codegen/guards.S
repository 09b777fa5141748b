module guards
exports kind/1 between/3 both/2 old/1

function kind/1
L1:
    line 4
    func_info guards, kind, 1
L2:
    is_integer L9, x0
    is_lt L9, 0, x0
    move pos_int, x0
    return
L9:
    is_integer L12, x0
    jump L11
L12:
    is_float L10, x0
L11:
    move number, x0
    return
L10:
    is_atom L14, x0
    jump L15
L14:
    is_list L13, x0
L15:
    move atom_or_list, x0
    return
L13:
    is_tuple_of_arity L16, x0, 2
    bif L16, erlang:element/2, 1, x1, [1, x0]
    is_eq_exact L16, x1, tag
    move tagged, x0
    return
L16:
    move other, x0
    return

function between/3
L3:
    line 10
    func_info guards, between, 3
L4:
    is_ge L17, x0, x1
    is_ge L17, x2, x0
    move true, x0
    return
L17:
    move false, x0
    return

function both/2
L5:
    line 13
    func_info guards, both, 2
L6:
    bif 0, erlang:'>'/2, 2, x2, [x0, 0]
    is_ne_exact L18, x2, true
    is_eq_exact L19, x2, false
    move false, x0
    return
L18:
    move x1, x0
    return
L19:
    move x2, x0
    test_heap 3, 1
    put_tuple x0, [badarg, x0]
    bif 0, erlang:error/1, 1, x0, [x0]

function old/1
L7:
    line 15
    func_info guards, old, 1
L8:
    is_integer L20, x0
    move int, x0
    return
L20:
    is_tuple L21, x0
    bif L21, erlang:size/1, 1, x1, [x0]
    is_eq L21, x1, 2
    move pair, x0
    return
L21:
    move other, x0
    return
