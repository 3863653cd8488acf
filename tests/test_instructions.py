"""ldmatrix / stmatrix: the closed form against a replay of the instruction."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, simulate_bank_access
from linlayout.instructions import parse_instruction

from randlayouts import random_invertible, split_out

OUT16 = {"dim0": 16, "dim1": 16}
# the mma v2 operand-A fragment of a 16×16 fp16 tile (Triton's dot operand, kWidth 2)
MMA_A = LinearLayout({"register": [[0, 1], [8, 0], [0, 8]],
                      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, OUT16)
ROW_MAJOR = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]},
                         OUT16)


def test_parse():
    i = parse_instruction("ldmatrix.x4.trans")
    assert (i.matrices, i.trans, i.store) == (4, True, False)
    assert parse_instruction(None).name == "ld/st.shared"
    assert parse_instruction("stmatrix.x2").store is True
    with pytest.raises(LayoutError, match="unknown instruction"):
        parse_instruction("ldmatrix.x8")


def test_row_major_16x16_fp16_is_two_way():
    """32-byte rows: ldmatrix rows 0 and 4 land in the same four banks."""
    for name, mats, instrs in (("ldmatrix.x4", 4, 1), ("ldmatrix.x2", 2, 2), ("ldmatrix.x1", 1, 4)):
        rep = bank_conflicts(MMA_A, ROW_MAJOR, element_bits=16, instruction=name)
        assert (rep.degree, rep.phases, rep.wavefronts, rep.instructions) == (2, mats, 2 * mats, instrs)
        assert rep == simulate_bank_access(MMA_A, ROW_MAJOR, element_bits=16, instruction=name)


def _random_matrix_case(rng, trans):
    """A random distributed layout (16-bit, 32 lanes) and a memory layout it can ldmatrix."""
    d = rng.randint(8, 11)
    a = rng.randint(0, d)
    out_bits = [a, d - a]
    out = {"dim0": 1 << a, "dim1": 1 << (d - a)}
    cols = random_invertible(rng, d, rng.random() < 0.5)
    lanes, regs = cols[:5], cols[5:]
    if trans:
        row = [lanes[2], lanes[3], lanes[4]]
    else:
        row = [regs[0], lanes[0], lanes[1]]
    rest = [c for c in cols if c not in row]
    mix = random_invertible(rng, len(rest), False)
    rest = [f2.apply(rest, m) for m in mix]
    mem = LinearLayout({"offset": [split_out(c, out_bits) for c in row + rest]}, out)
    lay = LinearLayout({"register": [split_out(c, out_bits) for c in regs],
                        "lane": [split_out(c, out_bits) for c in lanes]}, out)
    return lay, mem


@pytest.mark.parametrize("trans", [False, True])
def test_closed_form_matches_replay(trans):
    rng = random.Random(10 + trans)
    seen = set()
    for _ in range(120):
        lay, mem = _random_matrix_case(rng, trans)
        for n in (1, 2, 4):
            name = f"{'st' if rng.random() < 0.5 else 'ld'}matrix.x{n}" + (".trans" if trans else "")
            try:
                rep = bank_conflicts(lay, mem, element_bits=16, instruction=name)
            except LayoutError as exc:
                assert "matrices per instruction" in str(exc)  # too few registers for .xN
                with pytest.raises(LayoutError):
                    simulate_bank_access(lay, mem, element_bits=16, instruction=name)
                continue
            assert rep == simulate_bank_access(lay, mem, element_bits=16, instruction=name)
            seen.add(rep.degree)
    assert len(seen) > 1  # conflicts and conflict-free cases both exercised


def test_misplaced_rows_are_rejected_by_both():
    # column-major memory: a row of 8 fp16 is not contiguous along dim1
    col_major = LinearLayout({"offset": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8]]},
                             OUT16)
    for fn in (bank_conflicts, simulate_bank_access):
        with pytest.raises(LayoutError):
            fn(MMA_A, col_major, element_bits=16, instruction="ldmatrix.x4")
    with pytest.raises(LayoutError, match="16-bit"):
        bank_conflicts(MMA_A, ROW_MAJOR, element_bits=32, instruction="ldmatrix.x4.trans")
    with pytest.raises(LayoutError, match="vector_elems"):
        bank_conflicts(MMA_A, ROW_MAJOR, element_bits=16, instruction="ldmatrix.x4", vector_elems=2)
