"""ldmatrix/stmatrix are counted whatever order a 16-byte row holds its bytes in: the bank
cost is that of the 8 row addresses of each 8×8 matrix (PTX ISA "ldmatrix"), and a compiler
renames registers to match (Triton 3.9 ``lowerLdStMatrix``). The closed form and the
brute-force replay agree on such layouts and refuse the same others; the synthesizer's
construction keeps the strict order (``check_memory`` without ``any_row_order``)."""

from __future__ import annotations

import itertools
import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, simulate_bank_access
from linlayout.hardware import parse_instruction
from linlayout.hardware.instructions import check_memory, matrix_geometry

from tests.check.shared_memory.triton_fixtures import entries
from tests.support import MMA_A, OUT16, ROW_MAJOR_16X16

def _both(dist: LinearLayout, memory: LinearLayout, instruction: str, bits: int = 16):
    """(closed form, replay) of one access, or the LayoutError each raised."""
    out = []
    for engine in (bank_conflicts, simulate_bank_access):
        try:
            out.append(engine(dist, memory, element_bits=bits, instruction=instruction))
        except LayoutError as exc:
            out.append(type(exc))
    return out


def _with_offsets(memory: LinearLayout, bases: list) -> LinearLayout:
    return LinearLayout({"offset": bases}, dict(memory.out_dims))


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_a_permuted_row_costs_what_the_row_costs(order):
    base = ROW_MAJOR_16X16.bases["offset"]
    permuted = _with_offsets(ROW_MAJOR_16X16, [base[i] for i in order] + base[3:])
    closed, sim = _both(MMA_A, permuted, "ldmatrix.x4")
    want = bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction="ldmatrix.x4")
    assert closed == sim == want


def test_the_chunk_register_need_not_be_the_first_register():
    # MMA_A's first register holds dim1 bit 0; store its third register (dim1 bit 3) in the
    # row instead, and dim1 bit 0 above it: only a renaming of registers away
    base = ROW_MAJOR_16X16.bases["offset"]
    swapped = _with_offsets(ROW_MAJOR_16X16, [[0, 8], [0, 2], [0, 4], [0, 1]] + base[4:])
    closed, sim = _both(MMA_A, swapped, "ldmatrix.x4")
    assert closed == sim
    assert closed.instruction == "ldmatrix.x4" and closed.instructions_per_warp == 1


def test_lanes_leaving_the_row_are_refused_by_both():
    # lane 2 (dim0 bit 0: a matrix row) inside the 16-byte row, a register outside it
    base = ROW_MAJOR_16X16.bases["offset"]
    broken = _with_offsets(ROW_MAJOR_16X16, [[1, 0]] + base[1:4] + [[0, 1]] + base[5:])
    assert _both(MMA_A, broken, "ldmatrix.x4") == [LayoutError, LayoutError]


@pytest.mark.parametrize("seed", range(40))
def test_closed_form_equals_replay_on_swizzled_permuted_rows(seed):
    rng = random.Random(seed)
    base = ROW_MAJOR_16X16.bases["offset"]
    row = base[:3]
    rng.shuffle(row)
    # XOR the second 16-byte block (dim1 bit 3) into some rows: a random 16-byte swizzle
    swizzled = [[b[0], b[1] ^ (8 * rng.randrange(2) if b[0] else 0)] for b in base[3:]]
    for instr in ("ldmatrix.x4", "ldmatrix.x2", "ldmatrix.x1", "stmatrix.x4"):
        closed, sim = _both(MMA_A, _with_offsets(ROW_MAJOR_16X16, row + swizzled), instr)
        assert closed is not LayoutError, instr
        assert closed == sim, instr


def _random_basis(rng: random.Random, vectors: list[int]) -> list[int]:
    """A random basis of span(vectors)."""
    while True:
        out = [f2.apply(vectors, rng.randrange(1, 1 << len(vectors))) for _ in vectors]
        if f2.rank(out) == len(vectors):
            return out


@pytest.mark.parametrize("seed", range(60))
def test_closed_form_and_replay_refuse_the_same_random_memories(seed):
    # the row's 3 offset bits: any basis of the 8-element rows (bytes in any order); above
    # them any basis of the rest, sometimes with row bits mixed in (rows mid-row: refused)
    rng = random.Random(1000 + seed)
    flat = [b[0] << 4 | b[1] for b in ROW_MAJOR_16X16.bases["offset"]]
    high = _random_basis(rng, flat[3:])
    high = [h ^ (f2.apply(flat[:3], rng.randrange(8)) if rng.random() < 0.2 else 0)
            for h in high]
    cols = _random_basis(rng, flat[:3]) + high
    memory = LinearLayout({"offset": [[v >> 4, v & 15] for v in cols]}, dict(OUT16))
    for instr in ("ldmatrix.x4", "ldmatrix.x4.trans", "stmatrix.x2", "ldmatrix.x1"):
        closed, sim = _both(MMA_A, memory, instr)
        assert (closed is LayoutError) == (sim is LayoutError), instr
        if closed is not LayoutError:
            assert closed == sim, instr


def test_the_random_memories_are_mostly_counted():
    counted = 0
    for seed in range(60):
        rng = random.Random(1000 + seed)
        flat = [b[0] << 4 | b[1] for b in ROW_MAJOR_16X16.bases["offset"]]
        high = _random_basis(rng, flat[3:])
        cols = _random_basis(rng, flat[:3]) + high
        memory = LinearLayout({"offset": [[v >> 4, v & 15] for v in cols]}, dict(OUT16))
        counted += _both(MMA_A, memory, "ldmatrix.x4")[0] is not LayoutError
    assert counted == 60


def test_the_trans_row_may_hold_its_lanes_in_any_order():
    # .trans: lanes 2, 3, 4 run along the 16-byte row (dim0 of MMA_A); store them reversed
    col_major = [[1, 0], [2, 0], [4, 0], [8, 0]] + [[0, 1], [0, 2], [0, 4], [0, 8]]
    reversed_row = [[4, 0], [2, 0], [1, 0]] + col_major[3:]
    strict = _both(MMA_A, _with_offsets(ROW_MAJOR_16X16, col_major), "ldmatrix.x4.trans")
    relaxed = _both(MMA_A, _with_offsets(ROW_MAJOR_16X16, reversed_row), "ldmatrix.x4.trans")
    assert strict[0] == strict[1] and relaxed[0] == relaxed[1]
    assert relaxed[0] == strict[0]


def test_the_synthesizer_keeps_the_strict_order():
    instr = parse_instruction("ldmatrix.x4")
    register = [0 << 4 | 1, 8 << 4, 0 << 4 | 8]
    lane = [2, 4, 1 << 4, 2 << 4, 4 << 4]
    geom = matrix_geometry(instr, register, lane, 16)
    # offset bits: dim1 bits 1, 0, 2 (the row's chunk and lane 0 swapped), then the rest
    mem = [2, 1, 4, 8, 16, 32, 64, 128]
    inv = f2.inverse(mem)
    with pytest.raises(LayoutError, match="in that order"):
        check_memory(instr, geom, inv, register, lane, [], 16)
    rows, bits = check_memory(instr, geom, inv, register, lane, [], 16, any_row_order=True)
    assert bits == 3 and all(r & 7 == 0 for r in rows)


def test_tritons_matrix_scratch_tiles_are_counted():
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    seen = 0
    for s in ("convert", "heldout", "reduce"):
        for name, e in entries(s).items():
            for op in check_module(read_ttgir(e["ttgir"], name), suggest=False).ops:
                for i in op.instructions:
                    assert "contiguous bytes" not in i.note, (name, i.note)
                    seen += i.emitted.opcode.startswith(("ldmatrix", "stmatrix"))
    assert seen
