"""ldmatrix/stmatrix whose layout repeats rows (a broadcast lane or register among the
directions spanning a matrix's 8 rows) are counted: each of the 8 threads of a matrix still
gives one row address (PTX ISA §9.7.14.5.15 "ldmatrix", §9.7.14.5.16 "stmatrix"), repeated
addresses are the same 16-byte row holding the same data, and the cost is that of the
distinct rows. Triton 3.9 emits such instructions on reduction scratch (the probe fixtures
below). The closed form and the brute-force replay agree; the synthesizer's geometry
(``matrix_geometry`` without ``duplicate_rows``) stays strict."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.hardware import parse_instruction
from linlayout.hardware.instructions import matrix_geometry

from tests.check.shared_memory.triton_fixtures import entries
from tests.support import OUT16, ROW_MAJOR_16X16

#: 16×16 fp16 stored with dim0 along the 32-byte rows (the .trans tile).
COL_MAJOR_16X16 = LinearLayout(
    {"offset": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8]]}, OUT16)


def _mma_a(register0=(0, 1), lane=None) -> LinearLayout:
    """MMA_A (tests.support) with its first register and lanes replaced."""
    lane = lane or [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
    return LinearLayout({"register": [list(register0), [8, 0], [0, 8]], "lane": lane}, OUT16)


def _both(dist, memory, instruction):
    closed = bank_conflicts(dist, memory, element_bits=16, instruction=instruction)
    replay = simulate_bank_access(dist, memory, element_bits=16, instruction=instruction)
    assert closed == replay, instruction
    return closed


# row-major 32-byte rows: MMA_A's rows 0..7 are dim0 0..7 at bytes 32r, rows r and r+4 share
# banks (degree 2 with all 8 rows distinct)
@pytest.mark.parametrize("lane4, lane2, degree", [
    ([4, 0], [1, 0], 2),   # 8 distinct rows
    ([0, 0], [1, 0], 1),   # lanes 16-31 repeat lanes 0-15: rows 0-3, one wavefront
    ([3, 0], [1, 0], 1),   # lane 4 = lanes 2 + 3: again rows 0-3
    ([4, 0], [0, 0], 2),   # rows 0, 2, 4, 6: bytes 0, 64, 128, 192 -> banks 0, 16, 0, 16
    ([0, 0], [0, 0], 1),   # one row, repeated 4 times
])
@pytest.mark.parametrize("instr", ["ldmatrix.x4", "ldmatrix.x1", "stmatrix.x2", "stmatrix.x4"])
def test_repeated_rows_cost_the_distinct_rows(lane4, lane2, degree, instr):
    lanes = [[0, 2], [0, 4], lane2, [2, 0], lane4]
    rep = _both(_mma_a(lane=lanes), ROW_MAJOR_16X16, instr)
    assert rep.degree == degree
    assert rep.wavefronts_per_instruction == parse_instruction(instr).matrices * degree


@pytest.mark.parametrize("register0, lane0, lane1, degree", [
    ((0, 1), [0, 2], [0, 4], 2),   # rows dim1 0..7 of 32 bytes: rows r, r+4 share banks
    ((0, 1), [0, 0], [0, 4], 2),   # rows 0, 1, 4, 5
    ((0, 0), [0, 2], [0, 4], 2),   # a broadcast row-pair register: rows 0, 2, 4, 6
    ((0, 1), [0, 2], [0, 0], 1),   # rows 0..3
])
@pytest.mark.parametrize("instr", ["ldmatrix.x4.trans", "stmatrix.x2.trans",
                                   "stmatrix.x1.trans"])
def test_repeated_trans_rows_cost_the_distinct_rows(register0, lane0, lane1, degree, instr):
    dist = _mma_a(register0, [lane0, lane1, [1, 0], [2, 0], [4, 0]])
    rep = _both(dist, COL_MAJOR_16X16, instr)
    assert rep.degree == degree
    # two registers beyond the row pair: 4 matrices per warp, whether or not register 0
    # is a broadcast
    assert rep.instructions_per_warp == 4 // parse_instruction(instr).matrices


@pytest.mark.parametrize("seed", range(30))
def test_closed_form_equals_replay_on_random_repeated_rows(seed):
    rng = random.Random(7000 + seed)
    lanes = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
    for i in (2, 3, 4):  # each row lane: kept, a broadcast, or another row lane's copy
        pick = rng.random()
        if pick < 0.3:
            lanes[i] = [0, 0]
        elif pick < 0.6:
            lanes[i] = [rng.choice([1, 2, 4, 3, 5, 6, 7]), 0]
    # a random 16-byte swizzle: XOR the second 16-byte block into some rows
    base = ROW_MAJOR_16X16.bases["offset"]
    swizzled = [[b[0], b[1] ^ (8 * rng.randrange(2) if b[0] else 0)] for b in base[3:]]
    memory = LinearLayout({"offset": base[:3] + swizzled}, dict(OUT16))
    for instr in ("ldmatrix.x4", "ldmatrix.x2", "stmatrix.x1", "stmatrix.x4"):
        _both(_mma_a(lane=lanes), memory, instr)


def test_a_broadcast_inside_the_row_is_still_refused():
    # lanes 0 and 1 fill the 16-byte row: a broadcast there writes one element twice
    # into the same row, which no bijective memory layout stores
    dist = _mma_a(lane=[[0, 0], [0, 4], [1, 0], [2, 0], [4, 0]])
    for engine in (bank_conflicts, simulate_bank_access):
        with pytest.raises(LayoutError):
            engine(dist, ROW_MAJOR_16X16, element_bits=16, instruction="ldmatrix.x4")


def test_the_synthesizer_geometry_stays_strict():
    instr = parse_instruction("stmatrix.x1.trans")
    register = [0 << 4 | 1]
    lane = [0, 2, 1 << 4, 2 << 4, 4 << 4]
    with pytest.raises(LayoutError, match="8 distinct rows"):
        matrix_geometry(instr, register, lane, 16)
    geom = matrix_geometry(instr, register, lane, 16, duplicate_rows=True)
    assert geom.rows == (1, 0, 2)


def test_tritons_repeated_row_tiles_are_counted():
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    counted = 0
    for s in ("corpus", "heldout", "reduce"):
        for name, e in entries(s).items():
            for op in check_module(read_ttgir(e["ttgir"], name), suggest=False).ops:
                for i in op.instructions:
                    assert "distinct rows" not in i.note, (name, op.access.line, i.note)
                    if name == "sort_M1_N1024_fp16_fp16_w16_100" \
                            and i.emitted.opcode.startswith("stmatrix"):
                        assert i.report is not None, (name, op.access.line, i.note)
                        counted += 1
    assert counted >= 14
