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
