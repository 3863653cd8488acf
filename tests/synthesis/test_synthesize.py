"""linlayout.synthesis.synthesize: exact reported costs, valid bounds, the article's answer.

Every reported cost equals what bank_conflicts (and, on small tiles, the simulator) counts on
the result; the bound is a true lower bound and ``optimal`` means the result reaches it; the
result never costs more than the widest-common-vector layout of the Linear Layouts paper; on
random pairs of every size, element width, hardware preset and option the synthesizer never
crashes. Options: several loads, ldmatrix/stmatrix, pinned prefixes and fixed TMA modes.
(The objective itself — whole-tile wavefronts, then instructions — is checked against
exhaustive search and the simple alternatives in test_objective.py.)
"""

from __future__ import annotations

import random

import pytest

import linlayout as ll
from linlayout import (
    LayoutError,
    LinearLayout,
    bank_conflicts,
    examples,
    f2,
    simulate_bank_access,
    synthesize_swizzle,
)
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.synthesis import common_vector_layout

from tests.support import (
    BLOCKED_16X16,
    MMA_A,
    SYNTHESIS_JUNK,
    random_invertible,
    random_out_bits,
    random_pair,
    returns_or_raises_layout_error,
    split_out,
)


def test_article_transpose_gives_n_xor_2m_at_the_common_vector():
    ex = examples.get("transpose")
    common = common_vector_layout(ex.store, ex.load, element_bits=32)
    # bank bits are the columns n0..n4; segment bit j flips m_j and n_{j+1}: offset = 32m + (n ^ 2m)
    assert common.bases == {
        "vector": [],
        "bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
        "segment": [[1, 2], [2, 4], [4, 8], [8, 16]],
    }
    for side in (ex.store, ex.load):
        rep = bank_conflicts(side, common, element_bits=32)
        assert (rep.degree, rep.wavefronts_per_instruction, rep.instructions_per_warp) == (1, 1, 16)


def test_article_transpose_stores_four_rows_per_instruction():
    """Each thread of the store holds a column of 16 fp32: the synthesized layout lets it store
    4 of them (16 bytes) per instruction — same 32 wavefronts as the article's layout, 20
    instructions per warp instead of 32."""
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert (r.store.vector_elems, r.load.vector_elems) == (4, 1)
    assert (r.store.degree, r.load.degree) == (1, 1)
    assert (r.wavefronts_per_warp, r.instructions_per_warp) == (32, 20)
    assert r.optimal and r.at_floor and r.conflict_free
    assert (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp) == (32, 20)


@pytest.mark.parametrize("name", examples.names())
def test_every_example_is_conflict_free_and_exact(name):
    ex = examples.get(name)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    assert r.optimal
    assert r.store.degree == 1 and r.load.degree == 1
    for side, rep, instr in ((ex.store, r.store, "st.shared"), (ex.load, r.load, "ld.shared")):
        kw = dict(element_bits=ex.element_bits, instruction=instr)
        assert bank_conflicts(side, r.layout, **kw) == rep
        assert simulate_bank_access(side, r.layout, **kw) == rep


def test_blocked_to_mma_vectorises_two_bf16_on_both_sides_and_eight_on_the_store():
    ex = examples.get("blocked-mma")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    assert r.vector_elems == 2  # registers share only dim1 bit 0
    assert (r.store.vector_elems, r.load.vector_elems) == (8, 2)


def _cost(reports):
    return (sum(x.wavefronts_per_warp for x in reports),
            sum(x.instructions_per_warp for x in reports))


def _check_result(store, load, r, e, **hw):
    lay = r.layout
    assert lay.in_dim_names == ("vector", "bank", "segment")
    assert lay.is_invertible
    assert lay.out_dims == store.out_dims
    for side, rep, instr in ((store, r.store, "st.shared"), (load, r.load, "ld.shared")):
        assert bank_conflicts(side, lay, element_bits=e, instruction=instr, **hw) == rep
        assert rep.vector_elems >= r.vector_elems
    bound = (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
    assert bound <= _cost(r.reports)
    assert r.optimal == (bound == _cost(r.reports))
    # never worse than the paper's objective: every side at the widest common vector
    common = common_vector_layout(store, load, element_bits=e, **hw)
    assert _cost(r.reports) <= _cost([bank_conflicts(s, common, element_bits=e, instruction=i,
                                                     **hw)
                                      for s, i in ((store, "st.shared"), (load, "ld.shared"))])


def test_random_pairs_are_exact_optimal_and_no_worse_than_a_common_vector():
    """With NVIDIA's bank model, two layouts can always be made conflict-free at their
    widest common vector (feasibility is a dimension count), so the result — which may pay
    a conflict for a wider vector only when that lowers the total — is never costlier, and
    almost always reaches its bound."""
    rng = random.Random(7)
    proven = 0
    for i in range(200):
        d = rng.randint(5, 14)
        out_bits = random_out_bits(rng, d)
        unit = rng.random() < 0.5
        store, load = random_pair(rng, out_bits, unit=unit, warp_bits=rng.randint(0, 2),
                                  broadcast=rng.choice([0.0, 0.0, 0.2]))
        e = rng.choice([4, 8, 16, 32, 64, 128])
        r = synthesize_swizzle(store, load, element_bits=e)
        _check_result(store, load, r, e)
        proven += r.optimal
        if d <= 10 and i % 4 == 0:
            assert simulate_bank_access(store, r.layout, element_bits=e,
                                        instruction="st.shared") == r.store
            assert simulate_bank_access(load, r.layout, element_bits=e,
                                        instruction="ld.shared") == r.load
    assert proven >= 190


def _random_memory_with_vector(rng, store, load, k):
    """A random memory layout whose first k offset bits lie in both register spans."""
    d = store.total_out_bits
    common = list(f2.intersection(store.dim_columns("register"), load.dim_columns("register")))
    vec = []
    while len(vec) < k:
        c = 0
        for b in common:
            if rng.random() < 0.5:
                c ^= b
        if c and not f2.in_span(c, vec):
            vec.append(c)
    cols = vec + f2.extend_basis(vec, random_invertible(rng, d, False))
    out_bits = [store.out_bits(n) for n in store.out_dim_names]
    return LinearLayout({"offset": [split_out(c, out_bits) for c in cols]}, store.out_dims)


@pytest.mark.parametrize("num_banks, bank_bytes", [(16, 4), (8, 4), (4, 4), (32, 8), (64, 4)])
def test_other_bank_models_stay_conflict_free_and_meet_the_bound(num_banks, bank_bytes):
    """Other rows of banks: the result is exact, no worse than a common vector, and no random
    memory layout beats the bound."""
    rng = random.Random(num_banks * 100 + bank_bytes)
    hw = dict(hardware=NVIDIA.with_banks(num_banks=num_banks, bank_bytes=bank_bytes))
    for _ in range(60):
        d = rng.randint(6, 11)
        out_bits = random_out_bits(rng, d)
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5,
                                  warp_bits=rng.randint(0, 1))
        e = rng.choice([8, 16, 32, 64])
        r = synthesize_swizzle(store, load, element_bits=e, **hw)
        _check_result(store, load, r, e, **hw)
        bound = (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
        k = r.vector_elems.bit_length() - 1
        for _ in range(10):
            mem = _random_memory_with_vector(rng, store, load, k)
            assert _cost([bank_conflicts(s, mem, element_bits=e, **hw)
                          for s in (store, load)]) >= bound


def test_narrow_banks_split_the_warp():
    """16 banks of 4 bytes (64-byte rows): every side still reaches its floor."""
    ex = examples.get("transpose")
    hw = NVIDIA.with_banks(num_banks=16)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32, hardware=hw)
    assert (r.store.degree, r.load.degree) == (1, 1)
    assert r.store.row_bytes == r.load.row_bytes == 64
    assert r.at_floor and r.optimal
    for side, rep in ((ex.store, r.store), (ex.load, r.load)):
        assert bank_conflicts(side, r.layout, element_bits=32, hardware=hw) == rep
    # a 4-byte access runs in two phases of 16 lanes
    plain = bank_conflicts(ex.store, r.layout, element_bits=32, hardware=hw, vector_elems=1)
    assert (plain.phases, plain.lanes_per_phase) == (2, 16)


def _ll(bases, out):
    return LinearLayout(bases, out)


# Triton SwizzleTest.cpp: Test64x128F16BlockedLinear32Bank / Test64x128F16BlockedMfma64Bank
OUT = {"dim0": 64, "dim1": 128}
SRC = {"register": [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]],
       "lane": [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0]],
       "warp": [[4, 0], [8, 0]]}


DST_LINEAR = {"register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [32, 0]],
              "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
              "warp": [[0, 0], [0, 0]]}


DST_MFMA = {"register": [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0]]}


@pytest.mark.parametrize("hw, dst", [(AMD_CDNA3, DST_LINEAR), (AMD_CDNA4, DST_MFMA)],
                         ids=["32-bank", "64-bank"])
def test_triton_amd_swizzle_cases_are_conflict_free(hw, dst):
    """Triton expects 0 extra wavefronts for both accesses; so do we, with exact counts."""
    src, dst = _ll(SRC, OUT), _ll(dst, OUT)
    r = synthesize_swizzle(src, dst, element_bits=16, hardware=hw)
    assert (r.store.degree, r.load.degree) == (1, 1) and r.optimal
    for side, rep in ((src, r.store), (dst, r.load)):
        assert simulate_bank_access(side, r.layout, element_bits=16, hardware=hw) == rep


def test_load_out_dims_in_another_order_are_accepted():
    ex = examples.get("transpose")
    flipped = ex.load.transpose_outs(["dim1", "dim0"])
    r = synthesize_swizzle(ex.store, flipped, element_bits=32)
    assert r.layout.out_dim_names == ("dim0", "dim1")
    assert r.load.degree == 1


def _one_d(lanes, regs, bits=6):
    out = {"dim0": 1 << bits}
    return LinearLayout({"register": [[r] for r in regs], "lane": [[x] for x in lanes]}, out)


def test_three_accesses_rows_columns_diagonals_conflict_free():
    """A 32×32 fp32 tile stored by rows and read by columns and by diagonals (lane i holds
    (i, i ⊕ r)): Lemma 9.5 does not apply to three subspaces, the exact search finds a
    segment span avoiding all three."""
    out = {"dim0": 32, "dim1": 32}
    rows = LinearLayout({"register": [[1 << i, 0] for i in range(5)],
                         "lane": [[0, 1 << i] for i in range(5)]}, out)
    cols = LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                         "lane": [[1 << i, 0] for i in range(5)]}, out)
    diag = LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                         "lane": [[1 << i, 1 << i] for i in range(5)]}, out)
    r = synthesize_swizzle(rows, [cols, diag], element_bits=32)
    assert r.store.degree == 1 and [x.degree for x in r.loads] == [1, 1]
    assert r.optimal and r.at_floor
    assert r.load is r.loads[0]
    for side, rep in ((rows, r.store), (cols, r.loads[0]), (diag, r.loads[1])):
        assert bank_conflicts(side, r.layout, element_bits=32) == rep
        assert simulate_bank_access(side, r.layout, element_bits=32) == rep


def test_three_accesses_that_block_each_other():
    """Phase spans ker(x0), ker(x1), ker(x0 ⊕ x1) cover F2^6: every segment direction lies in
    one of them, so with one vector width for all three sides one side is at least 2-way (the
    Linear Layouts paper's objective). Per-side vectors escape: each side reaches its own
    bound, and the result is proven."""
    e = [1 << i for i in range(6)]
    a = _one_d(e[1:], [e[0]])
    b = _one_d([e[0]] + e[2:], [e[1]])
    c = _one_d([e[0] ^ e[1]] + e[2:], [e[0]])
    common = common_vector_layout(a, [b, c], element_bits=32)
    degrees = sorted(bank_conflicts(s, common, element_bits=32).degree for s in (a, b, c))
    assert degrees[-1] >= 2
    r = synthesize_swizzle(a, [b, c], element_bits=32)
    for side, rep in zip((a, b, c), r.reports):
        assert bank_conflicts(side, r.layout, element_bits=32) == rep
    assert [x.degree for x in r.reports] == [1, 1, 1]
    assert r.optimal and r.gap == (0, 0)
    total = sum(bank_conflicts(s, common, element_bits=32).wavefronts_per_warp
                for s in (a, b, c))
    assert r.wavefronts_per_warp <= total


def test_several_loads_report_exact_costs_above_the_bound():
    rng = random.Random(21)
    for _ in range(40):
        d = rng.randint(6, 10)
        out_bits = random_out_bits(rng, d)
        store, load1 = random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0)
        _, load2 = random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0)
        e = rng.choice([8, 16, 32])
        r = synthesize_swizzle(store, [load1, load2], element_bits=e, node_limit=50_000)
        assert len(r.loads) == 2
        for side, rep in ((store, r.store), (load1, r.loads[0]), (load2, r.loads[1])):
            assert bank_conflicts(side, r.layout, element_bits=e) == rep
        bound = (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
        assert bound <= _cost(r.reports)
        assert r.optimal == (bound == _cost(r.reports))


def test_bound_is_the_sum_of_the_sides_best_accesses():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert [sb.side for sb in r.bound.sides] == ["store", "load"]
    assert sum(sb.wavefronts_per_warp for sb in r.bound.sides) == r.bound.wavefronts_per_warp
    assert sum(sb.instructions_per_warp for sb in r.bound.sides) == \
        r.bound.instructions_per_warp
    assert "reaches the bound" in r.bound.argument
    assert r.bound.to_dict()["reached"] is True


def test_per_side_vectors_lower_the_instruction_count():
    """The article's store holds 16 rows per thread: it stores 4 of them per instruction (16
    bytes) and both sides stay conflict-free — fewer instructions than at the common vector."""
    ex = examples.get("transpose")
    common = common_vector_layout(ex.store, ex.load, element_bits=32)
    wide = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert wide.vector_elems == 1
    assert wide.store.vector_elems == 4 and wide.load.vector_elems == 1
    assert (wide.store.degree, wide.load.degree) == (1, 1)
    at_common = bank_conflicts(ex.store, common, element_bits=32)
    assert wide.store.instructions_per_warp < at_common.instructions_per_warp
    assert bank_conflicts(ex.store, wide.layout, element_bits=32) == wide.store
    with pytest.raises(TypeError):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, vectors="wide")
    with pytest.raises(LayoutError, match="at least one load"):
        synthesize_swizzle(ex.store, [], element_bits=32)


def test_auto_vectors_lower_wavefronts_on_the_fp16_transpose():
    """Scalar fp16 accesses pay a wavefront per instruction: letting one side load 8 elements
    takes 48 wavefronts per warp instead of 64 (Triton's layout also takes 48)."""
    ex = examples.get("transpose-128")
    common = common_vector_layout(ex.store, ex.load, element_bits=16)
    auto = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    total = lambda reps: sum(x.wavefronts_per_warp for x in reps)  # noqa: E731
    assert total([bank_conflicts(s, common, element_bits=16) for s in (ex.store, ex.load)]) == 64
    assert total(auto.reports) == 48
    assert max(auto.store.degree, auto.load.degree) == 1 and auto.optimal
    assert sorted([auto.store.vector_elems, auto.load.vector_elems]) == [1, 8]
    for side, rep in ((ex.store, auto.store), (ex.load, auto.load)):
        assert bank_conflicts(side, auto.layout, element_bits=16) == rep


def test_auto_picks_ldmatrix_for_the_mma_operand():
    from linlayout import synthesize_swizzle

    plain = synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16)
    auto = synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16, instructions="auto")
    assert auto.load.instruction == "ldmatrix.x4" and auto.store.instruction == "ld/st.shared"
    assert (auto.store.degree, auto.load.degree) == (1, 1)
    assert auto.store.vector_elems == 8  # the ldmatrix rows are the store's registers: v8 stores

    def cost(r):
        return (sum(x.wavefronts_per_warp for x in (r.store, r.load)),
                sum(x.instructions_per_warp for x in (r.store, r.load)))
    assert cost(auto) < cost(plain)
    assert auto.optimal
    assert bank_conflicts(MMA_A, auto.layout, element_bits=16, instruction="ldmatrix.x4") == auto.load
    assert simulate_bank_access(MMA_A, auto.layout, element_bits=16,
                                instruction="ldmatrix.x4") == auto.load
    assert bank_conflicts(BLOCKED_16X16, auto.layout, element_bits=16) == auto.store


def test_explicit_instructions_per_side():
    from linlayout import synthesize_swizzle

    r = synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16, instructions=(None, "ldmatrix.x2"))
    assert r.load.instruction == "ldmatrix.x2" and r.load.degree == 1
    with pytest.raises(LayoutError, match="store"):
        synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16, instructions=("ldmatrix.x4", None))
    with pytest.raises(LayoutError, match="one instruction per side"):
        synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16, instructions=("ldmatrix.x4",))
    with pytest.raises(LayoutError, match="16-bit"):
        synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=32, instructions=(None, "ldmatrix.x4.trans"))


def test_auto_on_random_pairs_is_exact_and_no_worse():
    from linlayout import synthesize_swizzle

    from tests.support import random_pair

    rng = random.Random(12)
    for _ in range(40):
        d = rng.randint(7, 10)
        a = rng.randint(0, d)
        store, load = random_pair(rng, [a, d - a], unit=rng.random() < 0.7, warp_bits=0)
        e = rng.choice([8, 16, 32])
        auto = synthesize_swizzle(store, load, element_bits=e, instructions="auto")
        plain = synthesize_swizzle(store, load, element_bits=e)
        for side, rep, plain_instr in ((store, auto.store, "st.shared"),
                                       (load, auto.load, "ld.shared")):
            instr = plain_instr if rep.instruction == "ld/st.shared" else rep.instruction
            assert bank_conflicts(side, auto.layout, element_bits=e, instruction=instr) == rep
        cost = lambda r: (sum(x.wavefronts_per_warp for x in (r.store, r.load)),  # noqa: E731
                          sum(x.instructions_per_warp for x in (r.store, r.load)))
        assert cost(auto) <= cost(plain)


def test_fixed_prefix_is_honoured():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[1, 0], [2, 0]])
    assert r.layout.columns[:2] == (1, 2)  # offset bits 0, 1 = m0, m1 (the store's registers)
    assert r.store.vector_elems == 4 and r.load.vector_elems == 1
    assert (r.store.degree, r.load.degree) == (1, 1) and r.optimal
    for side, rep in ((ex.store, r.store), (ex.load, r.load)):
        assert bank_conflicts(side, r.layout, element_bits=32) == rep
    # pinning the load's lane direction m0 next to n0 still leaves a conflict-free completion
    r2 = synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[0, 1]])
    assert r2.layout.columns[0] == 1 << 4 and r2.load.degree == 1


def test_fixed_prefix_rejects_dependent_or_too_long_prefixes():
    ex = examples.get("transpose")
    with pytest.raises(LayoutError, match="dependent"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[1, 0], [1, 0]])
    with pytest.raises(LayoutError, match="fixed"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[1, 0, 0]])
    with pytest.raises(LayoutError, match="at most"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32,
                           fixed=[[0, 1 << i] for i in range(5)] + [[1, 0]])
    with pytest.raises(LayoutError, match="matrix instructions"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[1, 0]], instructions="auto")


@pytest.mark.parametrize("mode", ["none", "32B", "64B", "128B"])
def test_fixed_tma_mode_is_the_exact_minimum(mode):
    from linlayout import ptx

    ex = examples.get("transpose-128")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16, fixed=mode)
    assert r.optimal and r.bound.method == "exhaustive"
    best = min(_cost([bank_conflicts(s, mem, element_bits=16) for s in (ex.store, ex.load)])
               for _, mem in ptx.tma_layouts(mode, ex.store.out_dims, 16))
    assert _cost(r.reports) == best
    assert r.tma_mode is not None and r.tma_mode.mode.value == mode
    assert bank_conflicts(ex.load, r.layout, element_bits=16) == r.load


def test_fixed_tma_errors():
    ex = examples.get("transpose")
    with pytest.raises(LayoutError):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed="97B")
    with pytest.raises(LayoutError, match="tma"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, instructions=("tma", None))
    assert synthesize_swizzle(ex.store, ex.load, element_bits=32).tma_mode is None


def test_tma_mode_on_degenerate_tiles():
    one_row = LinearLayout({"lane": [[0, 1 << i] for i in range(5)],
                            "register": [[0, 32], [0, 64], [0, 128]]}, {"dim0": 1, "dim1": 256})
    r = ll.synthesize_swizzle(one_row, one_row, element_bits=32, fixed="none")
    assert r.store.degree == 1
    scalar = LinearLayout({"lane": [[0]] * 5}, {"dim0": 1})
    try:
        ll.synthesize_swizzle(scalar, scalar, element_bits=32, fixed="128B")
    except LayoutError as exc:
        assert "TMA cannot" in str(exc)


def test_bad_arguments_raise_layout_error():
    ex = examples.get("transpose")
    with pytest.raises(LayoutError, match="element_bits"):
        synthesize_swizzle(ex.store, ex.load, element_bits=12)
    with pytest.raises(LayoutError, match="same out dims"):
        synthesize_swizzle(ex.store, LinearLayout({"lane": [[1]]}, {"x": 2}), element_bits=32)
    with pytest.raises(LayoutError, match="size"):
        other = LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 32})
        synthesize_swizzle(ex.store, other, element_bits=32)
    with pytest.raises(LayoutError, match="offset"):
        synthesize_swizzle(ex.store, LinearLayout({"offset": [[1, 0]]}, {"dim0": 16, "dim1": 32}),
                           element_bits=32)
    with pytest.raises(LayoutError):
        synthesize_swizzle(None, ex.load, element_bits=32)
    with pytest.raises(LayoutError):
        synthesize_swizzle(ex.store, "x", element_bits=32)


def test_synthesis_never_crashes_and_stays_exact():
    rng = random.Random(2026)
    ok = 0
    for _ in range(250):
        d = rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 12])
        out_bits = random_out_bits(rng, d) if d else [0, 0]
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5,
                                  warp_bits=rng.randint(0, 2),
                                  broadcast=rng.choice([0.0, 0.3, 0.8]))
        kw = dict(element_bits=rng.choice([1, 2, 4, 8, 16, 32, 64, 128]),
                  hardware=rng.choice([NVIDIA, NVIDIA, AMD_CDNA3, AMD_CDNA4]))
        opt = rng.choice([{}, {"objective": "instructions"}, {"instructions": "auto"},
                          {"fixed": "128B"}, {"fixed": "none"}, {"weights": None}])
        loads = [load] if rng.random() < 0.8 else [load, random_pair(rng, out_bits, unit=True,
                                                                     warp_bits=0)[1]]
        try:
            r = ll.synthesize_swizzle(store, loads, **kw, **opt, node_limit=5000)
        except LayoutError:
            continue
        ok += 1
        for i, (side, rep) in enumerate(zip([store, *loads], [r.store, *r.loads])):
            plain_instr = "ld.shared" if i else "st.shared"  # a load's return may be packed
            instr = plain_instr if rep.instruction == "ld/st.shared" else rep.instruction
            assert ll.bank_conflicts(side, r.layout, **kw, instruction=instr) == rep
    assert ok > 150


def test_junk_arguments_raise_layout_error_only():
    """Every argument of synthesize_swizzle, fed junk: LayoutError or a result, nothing else
    (no TypeError, no crash)."""
    ex = examples.get("transpose")
    for j in SYNTHESIS_JUNK + [ex.store]:
        returns_or_raises_layout_error(ll.synthesize_swizzle, ex.store, ex.load, element_bits=j)
        returns_or_raises_layout_error(ll.synthesize_swizzle, j, ex.load, element_bits=32)
        returns_or_raises_layout_error(ll.synthesize_swizzle, ex.store, j, element_bits=32)
        for kw in ("hardware", "objective", "weights", "instructions", "fixed",
                   "node_limit"):
            returns_or_raises_layout_error(ll.synthesize_swizzle, ex.store, ex.load,
                                           element_bits=32, **{kw: j})


def test_results_are_cached_by_value():
    ex = examples.get("blocked-mma")
    synthesize_swizzle.cache_clear()
    a = synthesize_swizzle(ex.store, ex.load, element_bits=16, weights=[1, 2])
    b = synthesize_swizzle(ex.store, [ex.load], element_bits=16, weights=(1, 2))
    c = synthesize_swizzle(ex.store, ex.load, element_bits=16, weights=(1, 2))
    assert a is c and a.layout == b.layout
    d = synthesize_swizzle(ex.store, ex.load, element_bits=16, weights=(2, 1))
    assert d is not a and d.weights == (2, 1)
    with pytest.raises(LayoutError):  # junk is not cached: it is validated each time
        synthesize_swizzle(ex.store, ex.load, element_bits=16.5)
    with pytest.raises(LayoutError):
        synthesize_swizzle(ex.store, ex.load, element_bits=16, weights={"a": 1})
    synthesize_swizzle.cache_clear()
    assert synthesize_swizzle(ex.store, ex.load, element_bits=16, weights=(1, 2)) is not a


def test_lowering_triton_reports_what_triton_emits_and_refuses_what_does_not_apply():
    from linlayout.synthesis import Transfer, lower_sides
    from linlayout.lowering import Target

    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32, lowering="triton",
                           target="cuda:90")
    assert (r.lowering, r.target) == ("triton", "cuda:90")
    sides = lower_sides(r.layout, Transfer.make(ex.store, ex.load, element_bits=32),
                        Target.parse("cuda:90"))
    assert [s.report for s in sides] == [r.store, r.load]
    assert r.load.instruction == "ldmatrix.x4" and r.optimal
    assert r.to_dict()["lowering"] == "triton"
    for kw, match in [({"lowering": "llvm"}, "lowering must be"),
                      ({"lowering": "triton", "instructions": "auto"}, "leave instructions"),
                      ({"target": "cuda:90"}, "only applies"),
                      ({"lowering": "triton", "target": "hip:gfx942"}, "64-lane")]:
        with pytest.raises(LayoutError, match=match):
            synthesize_swizzle(ex.store, ex.load, element_bits=32, **kw)


def test_constructions_shared_between_searches_give_the_same_results():
    """lowering="triton" searches every chunk order of the registers; the ld/st.shared
    constructions they share are remembered between searches and calls (keyed by what they
    depend on). Computing every result cold, then all again warm in the other order, gives
    the same results."""
    from linlayout.triton.encodings.sampling import random_pair as triton_pair

    rng = random.Random(8)
    pairs = [triton_pair(rng) for _ in range(6)]
    cold = []
    for store, load, bits, _ in pairs:
        ll.clear_caches()
        cold.append(synthesize_swizzle(store, load, element_bits=bits, lowering="triton"))
    ll.clear_caches()
    for (store, load, bits, _), want in reversed(list(zip(pairs, cold))):
        synthesize_swizzle.cache_clear()  # the result cache only
        got = synthesize_swizzle(store, load, element_bits=bits, lowering="triton")
        assert got == want


def _brute_force_layouts(rng, cols, d):
    """Layouts to count by brute force around a synthesized one: every permutation of the
    unit vectors (d ≤ 6), random invertible layouts, and the synthesized columns with a few
    random column additions and swaps (the near-optimal layouts a too-high bound would
    wrongly exclude)."""
    import itertools

    if d <= 6:
        for perm in itertools.permutations(range(d)):
            yield [1 << i for i in perm]
    for _ in range(400):
        yield random_invertible(rng, d, False)
    for _ in range(1500):
        out = list(cols)
        for _ in range(rng.randint(1, 3)):
            i, j = rng.sample(range(d), 2)
            if rng.random() < 0.5:
                out[i] ^= out[j]
            else:
                out[i], out[j] = out[j], out[i]
        yield out


def _paired_cases():
    """Tiles whose bound is raised by pairing the sides' vectors (method "paired"): three
    small random ones (5–7 bits, 4 or 8 banks) and a Triton 8-bit mma pair where every
    cheaper assignment gives a 4-element load beside a 16-element store, 4-way at best."""
    from linlayout.triton.encodings.sampling import random_pair as triton_pair

    rng = random.Random(0)
    small = []
    while len(small) < 3:
        d = rng.randint(5, 7)
        out_bits = random_out_bits(rng, d)
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0)
        bits = rng.choice([8, 16, 32])
        hw = NVIDIA.with_banks(num_banks=rng.choice([4, 8]))
        try:
            r = synthesize_swizzle(store, load, element_bits=bits, hardware=hw)
        except LayoutError:
            continue
        if r.bound.method == "paired":
            small.append((store, load, bits, hw, r))
    tri = random.Random(1)
    store, load, bits, _ = [triton_pair(tri) for _ in range(5)][4]
    r = synthesize_swizzle(store, load, element_bits=bits)
    assert r.bound.method == "paired"
    return small + [(store, load, bits, NVIDIA, r)]


def test_paired_bound_is_never_above_a_layouts_cost():
    """Brute force: on tiles whose bound is raised by pairing the sides' vectors, no counted
    layout costs less than the bound, and the result is proven optimal exactly when it
    costs the bound."""
    rng = random.Random(2)
    for store, load, bits, hw, r in _paired_cases():
        bound = (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
        assert bound <= _cost(r.reports)
        assert r.optimal == (bound == _cost(r.reports))
        dims = {n: store.out_dims[n] for n in store.out_dim_names}
        d = store.total_out_bits
        for cols in _brute_force_layouts(rng, list(r.layout.columns), d):
            layout = LinearLayout.from_columns(cols, {"offset": 1 << d}, dims)
            cost = _cost([bank_conflicts(side, layout, element_bits=bits, hardware=hw,
                                         instruction=instr)
                          for side, instr in ((store, "st.shared"), (load, "ld.shared"))])
            assert cost >= bound, (cols, cost, bound)


def _triton_tiles(count: int, nloads: int, seed: int) -> list[tuple]:
    """``count`` random Triton tiles (store, loads, element_bits) read by ``nloads`` loads."""
    from linlayout.triton.encodings.sampling import random_pair as triton_pair

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        store, load, bits, _ = triton_pair(rng)
        loads = [load]
        while len(loads) < nloads:
            _, other, _, _ = triton_pair(rng, element_bits=(bits,))
            if other.out_dims == store.out_dims:
                loads.append(other)
        out.append((store, loads, bits))
    return out


def _records(tiles: list[tuple], **kw) -> list:
    out = []
    for store, loads, bits in tiles:
        ll.clear_caches()
        r = synthesize_swizzle(store, loads, element_bits=bits, **kw)
        out.append((r.layout, r.store, r.loads, r.optimal, r.bound, r.notes))
    return out


@pytest.mark.parametrize("nloads, node_limit", [(3, 200_000), (4, 200_000), (4, 40)])
def test_pruned_search_gives_the_unpruned_result(monkeypatch, nloads, node_limit):
    """The search leaves constructions unbuilt only where their floors prove the result
    cannot change (three or more sides: the floor over every wider assignment; at the end:
    the fallback layouts' key): on random multi-load Triton tiles every result — layout,
    reports, optimality, bound, notes — is the one the unpruned search gives, with fewer
    constructions in all (a tight node budget included: there the search falls back to
    the unpruned order whenever the budget was used after pruning)."""
    from linlayout.synthesis import synthesize as mod

    tiles = _triton_tiles(30 if nloads == 3 else 12, nloads, seed=3 + nloads)
    built = [0]
    real = mod.build_plan

    def counted(*args, **kw):
        built[0] += 1
        return real(*args, **kw)

    monkeypatch.setattr(mod, "build_plan", counted)
    pruned = _records(tiles, node_limit=node_limit)
    fewer = built[0]
    built[0] = 0
    monkeypatch.setattr(mod, "PRUNE", False)
    unpruned = _records(tiles, node_limit=node_limit)
    assert pruned == unpruned
    assert fewer < built[0]


@pytest.mark.parametrize("node_limit", [30, 50_000])
def test_pruned_search_gives_the_unpruned_result_where_segments_are_searched(monkeypatch,
                                                                             node_limit):
    """Random layouts read by two to four loads, where the exact segment search runs (and,
    with a budget of 30 nodes, runs out): where its budget was used after the pruned search
    left the order of constructions, the search runs again in order, so every result is the
    unpruned one."""
    from linlayout.synthesis import synthesize as mod

    rng = random.Random(21)
    tiles = []
    for _ in range(30):
        out_bits = random_out_bits(rng, rng.randint(6, 10))
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0)
        loads = [load] + [random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0)[1]
                          for _ in range(rng.randint(1, 3))]
        tiles.append((store, loads, rng.choice([8, 16, 32])))
    pruned = _records(tiles, node_limit=node_limit)
    monkeypatch.setattr(mod, "PRUNE", False)
    assert pruned == _records(tiles, node_limit=node_limit)
