"""linlayout.conflicts.simulate: the brute-force simulator on hand-checked cases.

Each expected report is worked out by hand from the bank model (word ``w`` lives in bank
``w % 32``; a bank serves one distinct word per wavefront; lanes asking for one word are served
together), not from the closed form. The closed form is checked against the simulator in
``tests/conflicts/test_closed_form.py``.
"""

from __future__ import annotations

import pytest

import linlayout as ll
from linlayout import LayoutError, LinearLayout, examples, f2, simulate_bank_access
from linlayout.conflicts.simulate import (
    MAX_SIMULATION_STEPS,
    check_simulation,
    element_locations,
    enumerated_alignment_log2,
    enumerated_vector_log2,
    phase_lanes_by_id,
    register_groups,
)
from linlayout.hardware import AMD_CDNA4, NVIDIA, bank_model, parse_instruction
from linlayout.hardware.access import alignment_log2, plan_vector

from tests.support import (
    MMA_A,
    ROW_MAJOR_16X16,
    SYNTHESIS_JUNK,
    article_memory,
    returns_or_raises_layout_error,
)


def identity_memory(bits: int) -> LinearLayout:
    """Offset i holds element i of a 1-D tensor of 2**bits elements."""
    return LinearLayout({"offset": [[1 << i] for i in range(bits)]}, {"dim0": 1 << bits})


#: A 32×32 tile stored row-major: element (r, c) at offset 32·r + c.
ROW_MAJOR_32X32 = LinearLayout({"offset": [[0, 1 << i] for i in range(5)]
                                + [[1 << i, 0] for i in range(5)]}, {"dim0": 32, "dim1": 32})
#: Lane i holds row i; its registers hold the 32 columns.
ROWS_PER_LANE = LinearLayout({"lane": [[1 << i, 0] for i in range(5)],
                              "register": [[0, 1 << i] for i in range(5)]},
                             {"dim0": 32, "dim1": 32})


def report(sim, *, degree, wavefronts, vector_elems, phases, instructions):
    assert (sim.degree, sim.wavefronts_per_instruction, sim.vector_elems, sim.phases, sim.instructions_per_warp) == (
        degree, wavefronts, vector_elems, phases, instructions)


def test_consecutive_words_take_one_wavefront():
    """Lane i reads fp32 element i: 32 words in 32 banks."""
    lanes = LinearLayout({"lane": [[1 << i] for i in range(5)]}, {"dim0": 32})
    sim = simulate_bank_access(lanes, identity_memory(5), element_bits=32)
    report(sim, degree=1, wavefronts=1, vector_elems=1, phases=1, instructions=1)
    assert sim.lanes_per_phase == 32 and sim.access_bits == 32 and sim.conflict_free
    assert sim.conflict_offsets == ()  # the simulator finds no directions, only counts


def test_stride_two_words_conflict_two_way_unless_vectorised():
    """Lane i holds fp32 elements 2i and 2i + 1. One element per instruction: lane i reads word
    2i, so lanes i and i + 16 share bank 2i mod 32 — 2-way, two instructions. Both elements as
    one 8-byte vector: half-warp phases of 16 lanes × 8 bytes = one row of banks each."""
    pairs = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    scalar = simulate_bank_access(pairs, identity_memory(6), element_bits=32, vector_elems=1)
    report(scalar, degree=2, wavefronts=2, vector_elems=1, phases=1, instructions=2)
    vector = simulate_bank_access(pairs, identity_memory(6), element_bits=32)
    report(vector, degree=1, wavefronts=2, vector_elems=2, phases=2, instructions=1)
    assert (vector.lanes_per_phase, vector.access_bits) == (16, 64)


def test_lanes_asking_for_one_word_are_served_together():
    """Every lane holds the same 32 elements (lanes broadcast): each instruction is one word."""
    same = LinearLayout({"register": [[1], [2], [4], [8], [16]], "lane": [[0]] * 5},
                        {"dim0": 32})
    sim = simulate_bank_access(same, identity_memory(5), element_bits=32, vector_elems=1)
    report(sim, degree=1, wavefronts=1, vector_elems=1, phases=1, instructions=32)


def test_reading_a_column_of_a_row_major_tile():
    """Lane i reads row i of a 32×32 fp32 row-major tile. One element: every lane's word
    32·i + c is in bank c — 32-way. Four-element vectors: quarter-warp phases of 8 lanes whose
    16-byte chunks all start in bank 0 (rows are 128 bytes) — 8-way per phase."""
    scalar = simulate_bank_access(ROWS_PER_LANE, ROW_MAJOR_32X32, element_bits=32,
                                  vector_elems=1)
    report(scalar, degree=32, wavefronts=32, vector_elems=1, phases=1, instructions=32)
    vector = simulate_bank_access(ROWS_PER_LANE, ROW_MAJOR_32X32, element_bits=32)
    report(vector, degree=8, wavefronts=32, vector_elems=4, phases=4, instructions=8)


def test_the_article_row_major_read_is_16_way():
    """The article's transposing load from row-major memory: lanes 0-15 read rows 0-15 of one
    column (bank n), lanes 16-31 of the next — 16 distinct words in each of two banks."""
    ex = examples.get("transpose")
    load = simulate_bank_access(ex.load, article_memory(None), element_bits=32)
    report(load, degree=16, wavefronts=16, vector_elems=1, phases=1, instructions=16)
    store = simulate_bank_access(ex.store, article_memory(None), element_bits=32)
    assert (store.degree, store.wavefronts_per_instruction) == (1, 1)


def test_sub_word_elements_share_words():
    """fp16, lane i -> element i: lanes 2k and 2k + 1 read the two halves of word k (16 words,
    no conflict). int8, lanes 0-15 -> bytes 0-15 (words 0-3) and lanes 16-31 -> bytes 128-143
    (words 32-35): banks 0-3 each hold two words — 2-way."""
    halves = LinearLayout({"lane": [[1 << i] for i in range(5)]}, {"dim0": 32})
    sim = simulate_bank_access(halves, identity_memory(5), element_bits=16)
    report(sim, degree=1, wavefronts=1, vector_elems=1, phases=1, instructions=1)
    assert sim.access_bits == 16
    bytes_ = LinearLayout({"lane": [[1], [2], [4], [8], [128]], "register": [[16], [32], [64]]},
                          {"dim0": 256})
    sim = simulate_bank_access(bytes_, identity_memory(8), element_bits=8, vector_elems=1)
    report(sim, degree=2, wavefronts=2, vector_elems=1, phases=1, instructions=8)


def test_sixteen_banks_serve_a_warp_in_two_phases():
    """16 banks of 4 bytes: a row of banks holds 16 words, so 32 consecutive words take two
    phases of 16 lanes, each conflict-free."""
    lanes = LinearLayout({"lane": [[1 << i] for i in range(5)]}, {"dim0": 32})
    sim = simulate_bank_access(lanes, identity_memory(5), element_bits=32,
                               hardware=NVIDIA.with_banks(num_banks=16))
    report(sim, degree=1, wavefronts=2, vector_elems=1, phases=2, instructions=1)
    assert sim.lanes_per_phase == 16


def test_ldmatrix_replay_of_the_mma_operand():
    """ldmatrix.x4 of the mma operand from a row-major 16×16 fp16 tile: rows are 32 bytes, so
    rows r and r + 4 of a matrix start in the same four banks — 2-way, in each of 4 phases."""
    sim = simulate_bank_access(MMA_A, ROW_MAJOR_16X16, element_bits=16,
                               instruction="ldmatrix.x4")
    report(sim, degree=2, wavefronts=8, vector_elems=8, phases=4, instructions=1)
    assert (sim.lanes_per_phase, sim.access_bits, sim.instruction) == (8, 128, "ldmatrix.x4")
    with pytest.raises(LayoutError, match="vector_elems does not apply to ldmatrix.x4"):
        simulate_bank_access(MMA_A, ROW_MAJOR_16X16, element_bits=16,
                             instruction="ldmatrix.x4", vector_elems=2)


def test_junk_arguments_raise_layout_error_only():
    """Every argument of simulate_bank_access, fed junk: LayoutError or a result, nothing
    else."""
    ex = examples.get("transpose")
    mem = ll.synthesize_swizzle(ex.store, ex.load, element_bits=32).layout
    for j in SYNTHESIS_JUNK + [ex.store]:
        for kw in ("hardware", "vector_elems", "instruction", "element_bits"):
            kwargs = {"element_bits": 32, kw: j}
            returns_or_raises_layout_error(ll.simulate_bank_access, ex.load, mem, **kwargs)


def test_oversize_simulation_is_refused_up_front():
    """A 2^30-element tensor once enumerated for minutes; now it is refused at once
    with the size, the limit and the closed-form alternative."""
    out = {"dim0": 1 << 15, "dim1": 1 << 15}
    lay = LinearLayout({"register": [[0, 1 << i] for i in range(15)] +
                        [[1 << i, 0] for i in range(10)],
                        "lane": [[1 << i, 0] for i in range(10, 15)]}, out)
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(15)] +
                        [[1 << i, 0] for i in range(15)]}, out)
    with pytest.raises(LayoutError, match=rf"2\^30 memory locations.*limit of "
                       rf"{MAX_SIMULATION_STEPS}.*bank_conflicts"):
        simulate_bank_access(lay, mem, element_bits=16)
    assert ll.bank_conflicts(lay, mem, element_bits=16).degree >= 1  # the closed form answers
    ex = examples.get("transpose")
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(5)] + [[1 << i, 0] for i in range(4)]},
                       {"dim0": 16, "dim1": 32})
    with pytest.raises(LayoutError, match="limit of 100"):
        simulate_bank_access(ex.store, mem, element_bits=32, limit=100)
    with pytest.raises(LayoutError, match="limit"):
        simulate_bank_access(ex.store, mem, element_bits=32, limit="big")
    assert simulate_bank_access(ex.store, mem, element_bits=32, limit=1024) == \
        ll.bank_conflicts(ex.store, mem, element_bits=32)


@pytest.mark.parametrize("name", examples.names())
def test_named_steps_agree_with_the_access_rule(name):
    """The simulator's steps, by enumeration, find what the algebra of
    :mod:`linlayout.hardware.access` finds: locations, alignment, vector, instructions."""
    ex = examples.get(name)
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(ex.load.out_bits("dim1"))] +
                        [[1 << i, 0] for i in range(ex.load.out_bits("dim0"))]},
                       ex.load.out_dims)
    for lay in (ex.store, ex.load):
        model = bank_model(ex.element_bits)
        plan = check_simulation(lay, mem, model, parse_instruction(None), None, None)
        where = element_locations(plan)
        inv = f2.inverse(plan.memory_cols)
        assert all(where[elem] == f2.apply(inv, elem) for elem in list(where)[:256])
        offs = [f2.apply(inv, c) for c in plan.lane + plan.warp + plan.block]
        align = enumerated_alignment_log2(plan, where)
        assert align == min(alignment_log2(offs), plan.offset_bits)
        reg_elems = [f2.apply(plan.register, r) for r in range(1 << len(plan.register))]
        k = enumerated_vector_log2(plan, reg_elems, model, None, align, 64)
        assert k == plan_vector(plan, model)[2]
        groups = register_groups(reg_elems, where, k)
        assert sorted(r for g in groups for r in g) == list(range(len(reg_elems)))
        assert len(groups) == simulate_bank_access(lay, mem, element_bits=ex.element_bits
                                                   ).instructions_per_warp


@pytest.mark.parametrize("hardware", [NVIDIA, AMD_CDNA4])
@pytest.mark.parametrize("vector_log2", [0, 1, 2])
def test_phase_lanes_by_id_are_the_cosets_of_the_model_phase(hardware, vector_log2):
    model = bank_model(32, hardware)
    phases = phase_lanes_by_id(model, vector_log2)
    assert sorted(lane for p in phases for lane in p) == list(range(hardware.warp_size))
    first = next(p for p in phases if 0 in p)
    assert sorted(first) == sorted(f2.span_elements(model.phase_lanes(vector_log2)))
    assert len({len(p) for p in phases}) == 1
