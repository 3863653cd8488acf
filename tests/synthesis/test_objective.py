"""synthesize_swizzle minimises what the hardware pays for the whole tile, and proves it.

The objective: total wavefronts per warp over the sides (each at the widest vector the layout
admits), then total instructions (or the other order); ``optimal`` only when the result
reaches a bound no layout beats — checked here against exhaustive search on small tiles and
against the simple alternatives on random Triton-encoding pairs.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, examples, ptx
from linlayout import synthesize_swizzle
from linlayout.hardware import bank_model
from linlayout.triton import blocked, dot_operand, nvidia_mma
from linlayout.triton.encodings.sampling import random_pair
from tests.support import papers_module


def _key(reports, weights=None, objective="wavefronts"):
    ws = weights or [1] * len(reports)
    w = sum(wt * r.wavefronts_per_warp for r, wt in zip(reports, ws))
    n = sum(wt * r.instructions_per_warp for r, wt in zip(reports, ws))
    return (w, n) if objective == "wavefronts" else (n, w)


def _bound_key(res, objective="wavefronts"):
    b = res.bound
    w, n = b.wavefronts_per_warp, b.instructions_per_warp
    return (w, n) if objective == "wavefronts" else (n, w)


@pytest.fixture(scope="module")
def gemm_tile():
    """64x64 fp16: blocked [1,8] store, mma v2 dot-operand A load, 4 warps."""
    store = blocked([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([64, 64])
    load = dot_operand(0, nvidia_mma(2, [4, 1], [16, 8]), k_width=2).to_linear_layout([64, 64])
    return store, load


def test_each_side_vectorises_as_widely_as_it_can(gemm_tile):
    store, load = gemm_tile
    r = synthesize_swizzle(store, load, element_bits=16)
    assert (r.store.vector_elems, r.load.vector_elems) == (8, 2)
    assert (r.store.instructions_per_warp, r.load.instructions_per_warp) == (4, 16)
    assert (r.wavefronts_per_warp, r.instructions_per_warp) == (32, 20)
    assert r.wavefront_floor == 32 and r.at_floor and r.conflict_free
    assert r.optimal and r.gap == (0, 0)
    assert (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp) == (32, 20)


def test_ldmatrix_when_allowed_cuts_the_load_instructions(gemm_tile):
    store, load = gemm_tile
    r = synthesize_swizzle(store, load, element_bits=16, instructions="auto")
    assert r.load.instruction.startswith("ldmatrix.x4")
    assert (r.wavefronts_per_warp, r.instructions_per_warp) == (32, 8) and r.optimal


def test_a_tma_mode_combines_with_ldmatrix(gemm_tile):
    store, load = gemm_tile
    r = synthesize_swizzle(store, load, element_bits=16, fixed="128B",
                           instructions=(None, "ldmatrix.x4"))
    assert r.store.wavefronts_per_warp == 16 and r.load.wavefronts_per_warp == 16
    assert r.load.instruction == "ldmatrix.x4" and r.load.instructions_per_warp == 4
    assert r.optimal and r.bound.method == "exhaustive"
    assert r.tma_mode is not None and r.tma_mode.mode.value == "128B"
    assert any("TMA" in n and "no bank conflicts" in n for n in r.notes)


def test_a_tma_store_is_not_counted(gemm_tile):
    store, load = gemm_tile
    r = synthesize_swizzle(store, load, element_bits=16, fixed="128B",
                           instructions=("tma", "ldmatrix.x4"))
    assert (r.wavefronts_per_warp, r.instructions_per_warp) == (16, 4)
    assert r.counted == (False, True)
    with pytest.raises(LayoutError, match="tma"):
        synthesize_swizzle(store, load, element_bits=16, instructions=("tma", None))
    with pytest.raises(LayoutError, match="store"):
        synthesize_swizzle(store, load, element_bits=16, fixed="128B",
                           instructions=(None, "tma"))


def test_the_fixed_textbook_swizzle_is_not_claimed_better_than_it_is(gemm_tile):
    store, load = gemm_tile
    free = synthesize_swizzle(store, load, element_bits=16)
    tma = synthesize_swizzle(store, load, element_bits=16, fixed="128B")
    assert _key(tma.reports) >= _key(free.reports)


def test_weights_count_a_load_that_runs_often():
    ex = examples.get("transpose-128")
    once = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    often = synthesize_swizzle(ex.store, ex.load, element_bits=16, weights=(1, 8))
    assert often.weights == (1, 8)
    assert often.wavefronts_per_warp == (often.store.wavefronts_per_warp
                                         + 8 * often.load.wavefronts_per_warp)
    assert often.load.wavefronts_per_warp <= once.load.wavefronts_per_warp


def test_the_instructions_objective_minimises_instructions_first():
    rng = random.Random(3)
    for _ in range(25):
        store, load, bits, _ = random_pair(rng)
        a = synthesize_swizzle(store, load, element_bits=bits)
        b = synthesize_swizzle(store, load, element_bits=bits, objective="instructions")
        assert b.instructions_per_warp <= a.instructions_per_warp or not b.optimal
        if a.optimal and b.optimal:
            assert a.wavefronts_per_warp <= b.wavefronts_per_warp


@pytest.mark.parametrize("bad, match", [
    (dict(objective="speed"), "objective"),
    (dict(weights=(1,)), "weights"),
    (dict(weights=(1, 0)), "weights"),
    (dict(weights="12"), "weights"),
    (dict(instructions=("ldmatrix.x4", None)), "ldmatrix"),
    (dict(instructions=(None,)), "one instruction per side"),
])
def test_bad_options_are_refused(bad, match):
    ex = examples.get("transpose")
    with pytest.raises(LayoutError, match=match):
        synthesize_swizzle(ex.store, ex.load, element_bits=32, **bad)


def test_results_are_deterministic():
    rng = random.Random(9)
    for _ in range(10):
        store, load, bits, _ = random_pair(rng)
        a = synthesize_swizzle(store, load, element_bits=bits)
        b = synthesize_swizzle(store, load, element_bits=bits)
        assert a.layout == b.layout and a.reports == b.reports


def test_the_reports_are_what_bank_conflicts_counts():
    rng = random.Random(4)
    for _ in range(30):
        store, load, bits, _ = random_pair(rng)
        r = synthesize_swizzle(store, load, element_bits=bits)
        assert r.store == bank_conflicts(store, r.layout, element_bits=bits)
        assert r.load == bank_conflicts(load, r.layout, element_bits=bits)


def test_conflicted_reports_carry_their_conflict_offsets():
    """The search counts without conflict bases; the result's reports have them, exactly as
    bank_conflicts gives them (tiles read by three loads are often conflicted)."""
    rng = random.Random(0)
    conflicted = 0
    while not conflicted:
        store, load, bits, _ = random_pair(rng)
        loads = [load]
        while len(loads) < 3:
            _, other, _, _ = random_pair(rng, element_bits=(bits,))
            if other.out_dims == store.out_dims:
                loads.append(other)
        r = synthesize_swizzle(store, loads, element_bits=bits)
        for side, rep in zip([store] + loads, r.reports):
            assert rep == bank_conflicts(side, r.layout, element_bits=bits)
            if rep.degree > 1:
                conflicted += 1
                assert len(rep.conflict_offsets) == rep.degree.bit_length() - 1


# ----------------------------------------------------------------- exhaustive, small tiles
EXHAUSTIVE = papers_module("papers/synthesis/exhaustive_small_tiles.py")
TINY = EXHAUSTIVE.HARDWARE
_layout_classes = EXHAUSTIVE.layout_classes
_random_side = EXHAUSTIVE.random_side


@pytest.mark.parametrize("seed", range(8))
def test_no_layout_of_a_small_tile_costs_less(seed):
    rng = random.Random(seed)
    d = 4
    hw = TINY[seed % len(TINY)]
    e = rng.choice([b for b in (8, 16, 32) if b <= hw.max_access_bytes * 8])
    lanes = hw.warp_size.bit_length() - 1
    out = rng.choice([{"dim0": 16}, {"dim0": 4, "dim1": 4}, {"dim0": 2, "dim1": 8}])
    nwarp = rng.randint(0, 1)
    nreg = max(0, d - lanes - nwarp + rng.randint(0, 1))
    nsides = 3 if seed % 4 == 3 else 2
    sides = [_random_side(rng, out, nreg, lanes, nwarp) for _ in range(nsides)]
    objective = ("wavefronts", "instructions")[seed % 2]
    weights = [rng.choice([1, 2]) for _ in range(nsides)]
    res = synthesize_swizzle(sides[0], sides[1:] if nsides > 2 else sides[1], element_bits=e,
                             hardware=hw, objective=objective, weights=weights)
    r = min(bank_model(e, hw).seg_lo, d)
    best = min(_key([bank_conflicts(s, LinearLayout.from_columns(cols, {"offset": 1 << d}, out),
                                    element_bits=e, hardware=hw) for s in sides],
                    weights, objective)
               for cols in _layout_classes(d, r))
    got = _key(res.reports, weights, objective)
    assert _bound_key(res, objective) <= best  # the bound is a true lower bound
    assert got >= best
    if res.optimal:
        assert got == best
    assert got == best, f"synthesized {got}, exhaustive minimum {best}"


# ----------------------------------------------------------------- the simple alternatives
def _triton_algorithm():
    return papers_module("papers/linear_layouts/triton_algorithm.py").triton_swizzle


def _row_major(out_dims, fastest_first):
    names = list(out_dims)
    cols = [[1 << i if m == n else 0 for m in names] for n in fastest_first
            for i in range(out_dims[n].bit_length() - 1)]
    return LinearLayout({"offset": cols}, out_dims)


def _alternatives(store, load, bits, triton_swizzle):
    names = list(store.out_dims)
    for order in (names, names[::-1]):
        yield _row_major(store.out_dims, order)
    for mode in ptx.MATCH_ORDER:
        for _, mem in ptx.tma_layouts(mode, store.out_dims, bits):
            yield mem
    t = triton_swizzle(store, load, bits)
    if t.layout is not None:
        yield t.layout


@pytest.mark.parametrize("seed", range(4))
def test_never_costlier_than_row_major_tma_or_tritons_algorithm(seed):
    triton_swizzle = _triton_algorithm()
    rng = random.Random(100 + seed)
    pairs = [random_pair(rng) for _ in range(40)]
    if seed == 0:
        pairs += [(ex.store, ex.load, ex.element_bits, name) for name in examples.names()
                  for ex in [examples.get(name)]]
    for store, load, bits, what in pairs:
        r = synthesize_swizzle(store, load, element_bits=bits)
        mine = _key(r.reports)
        assert _bound_key(r) <= mine
        for mem in _alternatives(store, load, bits, triton_swizzle):
            alt = _key([bank_conflicts(s, mem, element_bits=bits) for s in (store, load)])
            assert mine <= alt, f"{what}: {alt} beats {mine}"
