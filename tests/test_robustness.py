"""Compiler passes call the synthesizer in a loop: it must never crash, and must stay exact.

Random pairs of every size (including 0-bit tensors and heavy broadcasts), every element size,
every hardware preset and every option: the only exception allowed is LayoutError, and each
reported cost equals what bank_conflicts counts on the result.
"""

from __future__ import annotations

import random

import linlayout as ll
from linlayout import LayoutError, LinearLayout
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA

from randlayouts import random_out_bits, random_pair


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


JUNK = [None, -1, 0, 3, 2.5, "x", [], [1], {}, True, object(), (1, 2), [[1, 0]], "128B",
        "auto", 10**9]


def test_junk_arguments_raise_layout_error_only():
    """Every argument of the synthesis-level API, fed junk: LayoutError or a result, nothing
    else (no TypeError, no crash)."""
    from linlayout import examples
    from linlayout.swizzle.family import is_optimal, optimal_swizzles
    from linlayout.hardware import HardwareModel

    ex = examples.get("transpose")
    mem = ll.synthesize_swizzle(ex.store, ex.load, element_bits=32).layout

    def call(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except LayoutError:
            pass

    for j in JUNK + [ex.store]:
        call(ll.synthesize_swizzle, ex.store, ex.load, element_bits=j)
        call(ll.synthesize_swizzle, j, ex.load, element_bits=32)
        call(ll.synthesize_swizzle, ex.store, j, element_bits=32)
        for kw in ("hardware", "vectors", "instructions", "fixed",
                   "node_limit"):
            call(ll.synthesize_swizzle, ex.store, ex.load, element_bits=32, **{kw: j})
        for kw in ("hardware", "vector_elems", "instruction",
                   "element_bits"):
            kwargs = {"element_bits": 32, kw: j}
            call(ll.bank_conflicts, ex.load, mem, **kwargs)
            call(ll.simulate_bank_access, ex.load, mem, **kwargs)
        call(ll.bank_conflicts, j, mem, element_bits=32)
        call(ll.bank_conflicts, ex.load, j, element_bits=32)
        call(optimal_swizzles, ex.store, j, element_bits=32)
        call(is_optimal, j, ex.store, ex.load, element_bits=32)
        for kw in ("num_banks", "bank_bytes", "warp_size", "max_access_bytes",
                   "phase_overrides"):
            call(HardwareModel, **{kw: j})
