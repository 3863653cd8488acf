"""linlayout.swizzle.synthesize: optimality, exact reported costs, and the article's answer.

Every reported cost equals what bank_conflicts (and, on small tiles, the simulator) counts on
the result; the bound is met; on random pairs of every size, element width, hardware preset and
option the synthesizer never crashes. Options: several loads, per-side and automatic vectors,
ldmatrix/stmatrix, pinned prefixes and fixed TMA modes.
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


def test_article_transpose_gives_n_xor_2m():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    # bank bits are the columns n0..n4; segment bit j flips m_j and n_{j+1}: offset = 32m + (n ^ 2m)
    assert r.layout.bases == {
        "vector": [],
        "bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
        "segment": [[1, 2], [2, 4], [4, 8], [8, 16]],
    }
    assert r.vector_elems == 1
    assert (r.store.degree, r.load.degree, r.store.wavefronts, r.load.wavefronts) == (1, 1, 1, 1)
    assert r.optimal
    assert r.bound.vector_elems == 1 and r.bound.store_degree == 1 and r.bound.load_degree == 1


@pytest.mark.parametrize("name", examples.names())
def test_every_example_is_conflict_free_and_exact(name):
    ex = examples.get(name)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    assert r.optimal
    assert r.store.degree == 1 and r.load.degree == 1
    for side, rep in ((ex.store, r.store), (ex.load, r.load)):
        assert bank_conflicts(side, r.layout, element_bits=ex.element_bits) == rep
        assert simulate_bank_access(side, r.layout, element_bits=ex.element_bits) == rep


def test_blocked_to_mma_vectorises_two_bf16():
    ex = examples.get("blocked-mma")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    assert r.vector_elems == 2  # registers share only dim1 bit 0


def _check_result(store, load, r, e, **hw):
    lay = r.layout
    assert lay.in_dim_names == ("vector", "bank", "segment")
    assert lay.is_invertible
    assert lay.out_dims == store.out_dims
    common = f2.intersection(store.dim_columns("register"), load.dim_columns("register"))
    threads = [c for lay in (store, load) for n in ("lane", "warp", "block")
               for c in lay.dim_columns(n)]
    # vector directions must avoid every lane/warp/block direction (aligned runs)
    usable = len(common) - (len(f2.intersection(common, threads)) if common and threads else 0)
    cap = max(0, 7 - (e.bit_length() - 1))
    assert r.vector_elems == 1 << min(usable, cap, store.total_out_bits)
    assert r.bound.vector_elems == r.vector_elems
    for side, rep in ((store, r.store), (load, r.load)):
        assert bank_conflicts(side, lay, element_bits=e, **hw) == rep
        assert rep.vector_elems >= r.vector_elems


def test_random_pairs_always_conflict_free():
    """With NVIDIA's bank model, two layouts can always be made conflict-free (feasibility
    is a dimension count), including the pairs where a careless first bank basis lets one
    side vectorise wider and brings conflicts back."""
    rng = random.Random(7)
    for i in range(400):
        d = rng.randint(5, 14)
        out_bits = random_out_bits(rng, d)
        unit = rng.random() < 0.5
        store, load = random_pair(rng, out_bits, unit=unit, warp_bits=rng.randint(0, 2),
                                  broadcast=rng.choice([0.0, 0.0, 0.2]))
        e = rng.choice([4, 8, 16, 32, 64, 128])
        r = synthesize_swizzle(store, load, element_bits=e)
        _check_result(store, load, r, e)
        assert r.store.degree == 1 and r.load.degree == 1, (i, store, load, e)
        assert r.optimal
        if d <= 10 and i % 4 == 0:
            assert simulate_bank_access(store, r.layout, element_bits=e) == r.store
            assert simulate_bank_access(load, r.layout, element_bits=e) == r.load


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
    """Other rows of banks: phases hold a row's worth of lanes, so two layouts can still be
    made conflict-free; the result meets its bound, and no random memory layout with the same
    vector beats the bound."""
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
        assert r.optimal and r.store.degree == 1 and r.load.degree == 1
        k = r.vector_elems.bit_length() - 1
        for _ in range(10):
            mem = _random_memory_with_vector(rng, store, load, k)
            for side, bound in ((store, r.bound.store_degree), (load, r.bound.load_degree)):
                rep = bank_conflicts(side, mem, element_bits=e, **hw)
                if rep.vector_elems == r.vector_elems:
                    assert rep.degree >= bound


def test_narrow_banks_split_the_warp():
    """16 banks of 4 bytes: a 4-byte access runs in two phases of 16 lanes."""
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32,
                            hardware=NVIDIA.with_banks(num_banks=16))
    assert (r.store.degree, r.load.degree) == (1, 1)
    assert (r.store.phases, r.store.lanes_per_phase, r.load.wavefronts) == (2, 16, 2)
    assert r.optimal


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
    assert r.optimal and r.bound.proven and r.bound.worst_degree == 1
    assert r.load is r.loads[0]
    for side, rep in ((rows, r.store), (cols, r.loads[0]), (diag, r.loads[1])):
        assert bank_conflicts(side, r.layout, element_bits=32) == rep
        assert simulate_bank_access(side, r.layout, element_bits=32) == rep


def test_three_accesses_that_block_each_other():
    """Phase spans ker(x0), ker(x1), ker(x0 ⊕ x1) cover F2^6: every segment direction lies in
    one of them, so the worst side is at least 2-way — proven by the search."""
    e = [1 << i for i in range(6)]
    a = _one_d(e[1:], [e[0]])
    b = _one_d([e[0]] + e[2:], [e[1]])
    c = _one_d([e[0] ^ e[1]] + e[2:], [e[0]])
    r = synthesize_swizzle(a, [b, c], element_bits=32)
    degrees = [r.store.degree] + [x.degree for x in r.loads]
    assert max(degrees) == 2 and sorted(degrees) == [1, 1, 2]
    assert r.bound.worst_degree == 2 and r.bound.proven and r.optimal
    assert (r.bound.store_degree, r.bound.load_degrees) == (1, (1, 1))  # per-side bounds alone


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
        if r.bound.proven:
            assert max([r.store.degree] + [x.degree for x in r.loads]) >= r.bound.worst_degree


def test_bound_reports_least_total():
    e = [1 << i for i in range(6)]
    a = _one_d(e[1:], [e[0]])
    b = _one_d([e[0]] + e[2:], [e[1]])
    c = _one_d([e[0] ^ e[1]] + e[2:], [e[0]])
    r = synthesize_swizzle(a, [b, c], element_bits=32)
    assert r.bound.sum_degrees == 4  # 1 + 1 + 2: one side must be 2-way
    assert len(r.bound.sum_witness) == r.layout.in_bits("segment")
    assert sum(1 << len(f2.intersection(r.bound.sum_witness, lanes)) for lanes in (
        a.dim_columns("lane"), b.dim_columns("lane"), c.dim_columns("lane"))) == 4
    ex = examples.get("transpose")
    assert synthesize_swizzle(ex.store, ex.load, element_bits=32).bound.sum_degrees == 2


def test_per_side_vectors_lower_the_instruction_count():
    """The article's store holds 16 rows per thread: with vectors="per_side" it stores 4 of
    them per instruction (16 bytes) and both sides stay conflict-free."""
    ex = examples.get("transpose")
    common = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    wide = synthesize_swizzle(ex.store, ex.load, element_bits=32, vectors="per_side")
    assert wide.vector_elems == common.vector_elems == 1
    assert wide.store.vector_elems == 4 and wide.load.vector_elems == 1
    assert (wide.store.degree, wide.load.degree) == (1, 1)
    assert wide.store.instructions < common.store.instructions
    total = lambda r: sum(x.instructions * x.wavefronts for x in (r.store, r.load))  # noqa: E731
    assert total(wide) <= total(common)
    assert bank_conflicts(ex.store, wide.layout, element_bits=32) == wide.store
    with pytest.raises(LayoutError, match="vectors"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, vectors="wide")
    with pytest.raises(LayoutError, match="at least one load"):
        synthesize_swizzle(ex.store, [], element_bits=32)


def test_auto_vectors_lower_wavefronts_on_the_fp16_transpose():
    """Scalar fp16 accesses pay a wavefront per instruction: letting one side load 8 elements
    takes 48 wavefronts per warp instead of 64 (Triton's layout also takes 48)."""
    ex = examples.get("transpose-128")
    common = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    auto = synthesize_swizzle(ex.store, ex.load, element_bits=16, vectors="auto")
    total = lambda r: sum(x.instructions * x.wavefronts for x in (r.store, r.load))  # noqa: E731
    assert (total(common), total(auto)) == (64, 48)
    assert max(auto.store.degree, auto.load.degree) == 1 and auto.optimal
    assert sorted([auto.store.vector_elems, auto.load.vector_elems]) == [1, 8]
    for side, rep in ((ex.store, auto.store), (ex.load, auto.load)):
        assert bank_conflicts(side, auto.layout, element_bits=16) == rep
    # word-wide common vectors: auto changes nothing (the article keeps n ⊕ 2m)
    tr = examples.get("transpose")
    assert synthesize_swizzle(tr.store, tr.load, element_bits=32, vectors="auto").layout == \
        synthesize_swizzle(tr.store, tr.load, element_bits=32).layout


def test_auto_picks_ldmatrix_for_the_mma_operand():
    from linlayout import synthesize_swizzle

    plain = synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16)
    auto = synthesize_swizzle(BLOCKED_16X16, MMA_A, element_bits=16, instructions="auto")
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
        for side, rep in ((store, auto.store), (load, auto.load)):
            instr = None if rep.instruction == "ld/st.shared" else rep.instruction
            assert bank_conflicts(side, auto.layout, element_bits=e, instruction=instr) == rep
        cost = lambda r: (sum(x.instructions * x.wavefronts for x in (r.store, r.load)),  # noqa: E731
                          sum(x.instructions for x in (r.store, r.load)))
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
    with pytest.raises(LayoutError, match="instructions"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed=[[1, 0]], instructions="auto")


@pytest.mark.parametrize("mode", ["none", "32B", "64B", "128B"])
def test_fixed_tma_mode_is_the_exact_minimum(mode):
    from linlayout import ptx

    ex = examples.get("transpose-128")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16, fixed=mode)
    assert r.optimal and r.bound.proven
    best = None
    for _, mem in ptx.tma_layouts(mode, ex.store.out_dims, 16):
        degs = [bank_conflicts(s, mem, element_bits=16).degree for s in (ex.store, ex.load)]
        sc = (max(degs), sum(degs))
        best = sc if best is None or sc < best else best
    assert (max(r.store.degree, r.load.degree), r.store.degree + r.load.degree) == best
    assert r.tma_mode is not None and r.tma_mode.mode.value == mode
    assert bank_conflicts(ex.load, r.layout, element_bits=16) == r.load


def test_fixed_tma_errors():
    ex = examples.get("transpose")
    with pytest.raises(LayoutError):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed="97B")
    with pytest.raises(LayoutError, match="combined"):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, fixed="128B", instructions="auto")
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
        opt = rng.choice([{}, {"vectors": "per_side"}, {"instructions": "auto"},
                          {"fixed": "128B"}, {"fixed": "none"}])
        loads = [load] if rng.random() < 0.8 else [load, random_pair(rng, out_bits, unit=True,
                                                                     warp_bits=0)[1]]
        try:
            r = ll.synthesize_swizzle(store, loads, **kw, **opt, node_limit=5000)
        except LayoutError:
            continue
        ok += 1
        for side, rep in zip([store, *loads], [r.store, *r.loads]):
            instr = None if rep.instruction == "ld/st.shared" else rep.instruction
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
        for kw in ("hardware", "vectors", "instructions", "fixed",
                   "node_limit"):
            returns_or_raises_layout_error(ll.synthesize_swizzle, ex.store, ex.load,
                                           element_bits=32, **{kw: j})
