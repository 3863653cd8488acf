"""side_options: cached per side, yet every call gets its own list and its own error."""

import pytest

import linlayout as ll
from linlayout import examples, f2
from linlayout.hardware.instructions import parse_instruction
from linlayout.hardware.kinds import distributed_columns
from linlayout.hardware.model import bank_model
from linlayout.synthesis.options import side_options


def _load_side():
    ex = examples.get("transpose")  # 32-bit elements
    model = bank_model(ex.element_bits)
    side = distributed_columns(ex.load, "load", model.warp_log2)
    return side, tuple(f2.echelon(side.register)), model, ex.load.total_out_bits


def test_repeated_calls_equal_and_independent():
    side, regs, model, d = _load_side()
    ll.clear_caches()
    first = side_options(1, side, regs, model, d)
    first.clear()  # the caller's list: mutating it leaves the cache alone
    again = side_options(1, side, regs, model, d)
    ll.clear_caches()
    cold = side_options(1, side, regs, model, d)
    assert again == cold and again


def test_explicit_matrix_error_raised_on_every_call():
    side, regs, model, d = _load_side()
    trans = [parse_instruction("ldmatrix.x4.trans")]  # 16-bit elements only
    messages = []
    for _ in range(2):
        with pytest.raises(ll.LayoutError) as info:
            side_options(1, side, regs, model, d, matrix=trans, plain=False)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "16-bit" in messages[0]
    # offered with ld/st.shared (not explicit), the same instruction is just left out
    opts = side_options(1, side, regs, model, d, matrix=trans, plain=True)
    assert opts and all(not o.is_matrix for o in opts)
