"""linlayout.hardware.instructions: ldmatrix / stmatrix, named and placed.

Instruction names parse to their matrices and transposition; an ldmatrix of the mma operand
from a row-major tile costs what its 16-byte rows say; rows the instruction cannot read are
rejected by the counter and the simulator alike.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.hardware.instructions import parse_instruction

from tests.support import MMA_A, OUT16, ROW_MAJOR_16X16


def test_instruction_names_parse_to_matrices_and_transposition():
    i = parse_instruction("ldmatrix.x4.trans")
    assert (i.matrices, i.trans, i.store) == (4, True, False)
    assert parse_instruction(None).name == "ld/st.shared"
    assert parse_instruction("stmatrix.x2").store is True
    with pytest.raises(LayoutError, match="unknown instruction"):
        parse_instruction("ldmatrix.x8")


def test_ldmatrix_from_row_major_16x16_fp16_is_two_way():
    """32-byte rows: ldmatrix rows 0 and 4 land in the same four banks."""
    for name, mats, instrs in (("ldmatrix.x4", 4, 1), ("ldmatrix.x2", 2, 2), ("ldmatrix.x1", 1, 4)):
        rep = bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction=name)
        assert (rep.degree, rep.phases, rep.wavefronts_per_instruction, rep.instructions_per_warp) == (2, mats, 2 * mats, instrs)
        assert rep == simulate_bank_access(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction=name)


def test_misplaced_rows_are_rejected_by_both():
    # column-major memory: a row of 8 fp16 is not contiguous along dim1
    col_major = LinearLayout({"offset": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8]]},
                             OUT16)
    for fn in (bank_conflicts, simulate_bank_access):
        with pytest.raises(LayoutError):
            fn(MMA_A, col_major, element_bits=16, instruction="ldmatrix.x4")
    with pytest.raises(LayoutError, match="16-bit"):
        bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=32, instruction="ldmatrix.x4.trans")
    with pytest.raises(LayoutError, match="vector_elems"):
        bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction="ldmatrix.x4", vector_elems=2)
