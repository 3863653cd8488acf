"""Op-by-op predictions of the private scratch (``linlayout.check.shared_memory.predict``)."""

from __future__ import annotations

import pytest

from linlayout.triton.encodings import blocked
from linlayout.check.shared_memory.predict import predict_private
from linlayout.check.target import parse_target


def _histogram(elements: int, bins: int, lanes: int, warps: int, target: str):
    enc = blocked([1], [lanes], [warps], [0])
    operand = enc.to_linear_layout([elements])
    result = enc.to_linear_layout([bins])
    pred = predict_private("histogram", operand, result, 32, parse_target(target, lanes), None)
    return {s.emitted.side: (s.emitted.opcode, s.emitted.per_thread) for s in pred.sides}


def test_nvidia_histogram_issues_one_shared_atomic_per_element():
    sides = _histogram(512, 16, 32, 4, "cuda:90")  # 4 elements per thread
    assert sides["atomic"] == ("atom.relaxed.sys.shared.add.u32", 4)
    assert sides["store"][1] == sides["load"][1] == 1


@pytest.mark.parametrize("elements, bins, warps, atomics", [
    (512, 256, 1, 4),    # 8 elements per thread, 4 bins per lane
    (4096, 64, 16, 1),   # one bin per lane
    (512, 16, 1, 1),     # fewer bins than lanes: padded to one per lane
    (64, 256, 16, 4),    # fewer elements than threads: still one atomic per owned bin
])
def test_amd_histogram_issues_one_atomic_per_bin_a_lane_owns(elements, bins, warps, atomics):
    # AMD's HistogramOpToLLVM.cpp: a warp-level histogram from ballots, then each lane adds
    # the max(bins, 64) / 64 bins it owns (the held-out probes' AMDGCN agrees)
    assert _histogram(elements, bins, 64, warps, "hip:gfx942")["atomic"] == ("ds_add_u32",
                                                                              atomics)


def test_a_matrix_is_as_wide_as_one_rounds_words():
    """2 words per thread moved in 2 rounds: two ldmatrix.x1, not one .x2
    (transferWithinBlockSwizzling lowers each round's registers on their own)."""
    from linlayout.check.shared_memory.predict import predict_convert
    from linlayout.check.target import parse_target
    from linlayout.layout import LinearLayout

    src = LinearLayout({"register": [[8], [32], [16]], "lane": [[0], [0], [1], [0], [2]],
                        "warp": [[4]]}, {"dim0": 64})
    dst = LinearLayout({"register": [[32], [0], [0]], "lane": [[8], [16], [2], [4], [1]],
                        "warp": [[0]]}, {"dim0": 64})
    p = predict_convert(src, dst, 32, parse_target("cuda:90", 32))
    assert p.plan.reps == 2
    load = p.sides[1].emitted
    assert (load.opcode, load.per_thread) == ("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 2)
