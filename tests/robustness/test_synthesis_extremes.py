"""Synthesis on the inputs that grew without bound before: many loads, big tiles.

Behaviour is asserted, never time: how many assignments the search examines (counted by
wrapping its vector-chain test), that repeated loads are merged with exact reports, and that
oversize tiles are refused up front.
"""

from __future__ import annotations

import pytest

import linlayout.synthesis.synthesize as synth
from linlayout import (LayoutError, LinearLayout, examples, simulate_bank_access,
                       synthesize_swizzle)
from linlayout.synthesis import (MAX_ASSIGNMENTS, MAX_LOADS, MAX_PADDING_ELEMENTS,
                                 synthesize_padding)


def _counting(monkeypatch) -> list[int]:
    calls = [0]
    real = synth.chain_dims_ok

    def counted(assignment, problem):
        calls[0] += 1
        return real(assignment, problem)

    monkeypatch.setattr(synth, "chain_dims_ok", counted)
    return calls


def test_repeated_loads_are_one_side(monkeypatch):
    ex = examples.get("transpose-128")
    weighted = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits,
                                  weights=(1, 12))
    calls = _counting(monkeypatch)
    many = synthesize_swizzle(ex.store, [ex.load] * 12, element_bits=ex.element_bits)
    assert calls[0] <= 100  # was tens of thousands of rejected assignments
    assert many.optimal and len(many.loads) == 12 and len(many.bound.sides) == 13
    assert many.layout == weighted.layout
    assert all(r == weighted.load for r in many.loads)
    assert many.wavefronts_per_warp == weighted.wavefronts_per_warp


def _rand(seed: int) -> LinearLayout:
    return LinearLayout.random({"register": 16, "lane": 32, "warp": 8},
                               {"dim0": 64, "dim1": 64}, rng=seed, surjective=True)


def test_many_distinct_loads_stop_at_the_budget(monkeypatch):
    monkeypatch.setattr(synth, "MAX_ASSIGNMENTS", 64)
    calls = _counting(monkeypatch)
    r = synthesize_swizzle(_rand(0), [_rand(i) for i in range(1, 9)], element_bits=16,
                           node_limit=2000)
    assert calls[0] <= 2 * 64  # the search and the ld/st-only fallback, each within budget
    if not r.optimal:
        assert r.bound.wavefronts_per_warp <= r.wavefronts_per_warp
        assert any("MAX_ASSIGNMENTS" in n for n in r.notes) or not r.bound.reached


def test_too_many_distinct_loads_are_refused():
    loads = [_rand(i) for i in range(1, MAX_LOADS + 2)]
    with pytest.raises(LayoutError, match="MAX_LOADS"):
        synthesize_swizzle(_rand(0), loads, element_bits=16)


def test_oversize_padding_is_refused_at_once():
    big = LinearLayout.random({"register": 64, "lane": 32, "warp": 64},
                              {"dim0": 512, "dim1": 256}, rng=1, surjective=True)
    assert 512 * 256 > MAX_PADDING_ELEMENTS
    with pytest.raises(LayoutError) as info:
        synthesize_padding(big, big, element_bits=16)
    msg = str(info.value)
    assert "\n" not in msg and "131072" in msg and str(MAX_PADDING_ELEMENTS) in msg
    assert MAX_ASSIGNMENTS > 0


@pytest.mark.parametrize("bases", [
    {"register": [[0, 0]] * 4, "lane": [[0, 0]] * 5},  # writes one element
    {"register": [[1, 0], [2, 0], [4, 0], [0, 0]],  # never reaches dim0 bit 3
     "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]},
])
def test_a_store_writing_part_of_the_tile_is_counted_exactly(bases):
    """A store that does not cover the tile is accepted (documented in docs/library.md):
    the result is a bijective memory layout and each side's count is what the simulator
    counts on it, so the answer is exact for the accesses as given."""
    ex = examples.get("transpose")
    store = LinearLayout(bases, {"dim0": 16, "dim1": 32})
    assert not store.is_surjective
    r = synthesize_swizzle(store, ex.load, element_bits=32)
    assert r.layout.is_surjective and r.layout.is_injective
    assert simulate_bank_access(store, r.layout, element_bits=32,
                                instruction="st.shared") == r.store
    assert simulate_bank_access(ex.load, r.layout, element_bits=32,
                                instruction="ld.shared") == r.load
    assert r.wavefronts_per_warp >= r.bound.wavefronts_per_warp
