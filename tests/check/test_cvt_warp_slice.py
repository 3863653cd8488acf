"""A convert whose source is a slice of a blocked layout with a broadcast warp bit
(``tests/data/cvt_warp_slice_probe.ttgir``: a 2x16x32 i8 ``tt.reduce`` over dim 0 of
``#blocked`` with warpsPerCTA [2, 1, 2], order [1, 0, 2], so its result is broadcast over
warp bit 0 and keeps warp bit 1; converted to ``#blocked1`` with warpsPerCTA [1, 4]).
Triton 3.9 lowers it (cuda:90, compiled with ``papers/triton_lowering/probe_compile.py``)
with warp shuffles — ``shfl.sync.idx.b32`` x2, ``selp.b32`` x1, ``prmt.b32`` x6 before
``-O3`` — not through shared memory: the destination's warp bit 0 is held by the source's
lane 4, its warp bit 1 is the source's (``linlayout.lowering.decompose.warp_broadcast_bits``).
"""

from __future__ import annotations

import json

from linlayout.check import check_files, render_json
from tests.support import DATA


def test_the_slice_convert_shuffles_within_each_warp():
    (doc,) = json.loads(render_json(check_files([str(DATA / "cvt_warp_slice_probe.ttgir")]),
                                    1, False))["files"]
    (op,) = [o for o in doc["ops"] if o["line"] == 43]
    assert op["op"] == "convert_layout" and not op["uses_shared_memory"]
    got = {i["ptx"]: i["per_thread"] for i in op["instructions"]}
    assert got == {"shfl.sync.idx.b32": 2, "selp.b32": 1, "prmt.b32": 6}
