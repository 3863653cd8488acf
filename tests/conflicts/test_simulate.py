"""linlayout.conflicts.simulate: the brute-force simulator on hand-checked cases."""

from __future__ import annotations

import linlayout as ll
from linlayout import examples

from tests.support import SYNTHESIS_JUNK, returns_or_raises_layout_error


def test_junk_arguments_raise_layout_error_only():
    """Every argument of simulate_bank_access, fed junk: LayoutError or a result, nothing
    else."""
    ex = examples.get("transpose")
    mem = ll.synthesize_swizzle(ex.store, ex.load, element_bits=32).layout
    for j in SYNTHESIS_JUNK + [ex.store]:
        for kw in ("hardware", "vector_elems", "instruction", "element_bits"):
            kwargs = {"element_bits": 32, kw: j}
            returns_or_raises_layout_error(ll.simulate_bank_access, ex.load, mem, **kwargs)
