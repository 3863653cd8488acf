"""ldmatrix / stmatrix: the closed form against a replay of the instruction."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, simulate_bank_access
from linlayout.hardware.instructions import parse_instruction

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


BLOCKED = LinearLayout({"register": [[0, 1], [0, 2], [0, 4]],
                        "lane": [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, OUT16)


def test_auto_picks_ldmatrix_for_the_mma_operand():
    from linlayout import synthesize_swizzle

    plain = synthesize_swizzle(BLOCKED, MMA_A, element_bits=16)
    auto = synthesize_swizzle(BLOCKED, MMA_A, element_bits=16, instructions="auto")
    assert auto.load.instruction == "ldmatrix.x4" and auto.store.instruction == "ld/st.shared"
    assert (auto.store.degree, auto.load.degree) == (1, 1)
    assert auto.store.vector_elems == 8  # the ldmatrix rows are the store's registers: v8 stores

    def cost(r):
        return (sum(x.instructions * x.wavefronts for x in (r.store, r.load)),
                sum(x.instructions for x in (r.store, r.load)))
    assert cost(auto) < cost(plain)
    assert auto.optimal
    assert bank_conflicts(MMA_A, auto.layout, element_bits=16, instruction="ldmatrix.x4") == auto.load
    assert simulate_bank_access(MMA_A, auto.layout, element_bits=16,
                                instruction="ldmatrix.x4") == auto.load
    assert bank_conflicts(BLOCKED, auto.layout, element_bits=16) == auto.store


def test_explicit_instructions():
    from linlayout import synthesize_swizzle

    r = synthesize_swizzle(BLOCKED, MMA_A, element_bits=16, instructions=(None, "ldmatrix.x2"))
    assert r.load.instruction == "ldmatrix.x2" and r.load.degree == 1
    with pytest.raises(LayoutError, match="store"):
        synthesize_swizzle(BLOCKED, MMA_A, element_bits=16, instructions=("ldmatrix.x4", None))
    with pytest.raises(LayoutError, match="one instruction per side"):
        synthesize_swizzle(BLOCKED, MMA_A, element_bits=16, instructions=("ldmatrix.x4",))
    with pytest.raises(LayoutError, match="16-bit"):
        synthesize_swizzle(BLOCKED, MMA_A, element_bits=32, instructions=(None, "ldmatrix.x4.trans"))


def test_auto_on_random_pairs_is_exact_and_no_worse():
    from linlayout import synthesize_swizzle

    from randlayouts import random_pair

    rng = random.Random(12)
    for _ in range(40):
        d = rng.randint(7, 10)
        a = rng.randint(0, d)
        store, load = random_pair(rng, [a, d - a], unit=rng.random() < 0.7, warp_bits=0)
        e = rng.choice([8, 16, 32])
        auto = synthesize_swizzle(store, load, element_bits=e, instructions="auto")
        plain = synthesize_swizzle(store, load, element_bits=e)
        for side, rep in ((store, auto.store), (load, auto.load)):
            instr = None if rep.instruction == "ld/st.shared" else rep.instruction
            assert bank_conflicts(side, auto.layout, element_bits=e, instruction=instr) == rep
        cost = lambda r: (sum(x.instructions * x.wavefronts for x in (r.store, r.load)),  # noqa: E731
                          sum(x.instructions for x in (r.store, r.load)))
        assert cost(auto) <= cost(plain)
