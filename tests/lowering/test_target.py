"""linlayout.lowering.target: targets by name, and the target a hardware preset stands for."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.lowering import Target
from linlayout.lowering.target import TARGETS, default_target


@pytest.mark.parametrize("text, want", [
    ("cuda:90", Target("cuda", 90, 32)), ("sm80", Target("cuda", 80, 32)),
    ("sm_100", Target("cuda", 100, 32)), ("hip:gfx942", Target("hip", "gfx942", 64)),
    ("gfx950", Target("hip", "gfx950", 64)), (" CUDA:75 ", Target("cuda", 75, 32)),
])
def test_targets_are_read_as_triton_spells_them(text, want):
    assert Target.parse(text) == want and Target.parse(want) is want


@pytest.mark.parametrize("bad", ["cuda:", "sm9", "hip:gfx", "nvidia", "", None, 90,
                                 "cuda:" + "9" * 40])
def test_unknown_targets_are_refused(bad):
    with pytest.raises(LayoutError, match="target"):
        Target.parse(bad)


def test_presets_stand_for_a_target_and_back():
    assert [default_target(h).name for h in (NVIDIA, AMD_CDNA3, AMD_CDNA4)] == [
        "cuda:90", "hip:gfx942", "hip:gfx950"]
    for name in TARGETS:
        t = Target.parse(name)
        assert default_target(t.hardware()).threads_per_warp == t.threads_per_warp
