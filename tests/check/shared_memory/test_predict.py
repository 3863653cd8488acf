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
