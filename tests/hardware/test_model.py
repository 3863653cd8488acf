"""linlayout.hardware.model: the bank models, their presets and which lanes share a phase.

NVIDIA's phases by lane id, AMD CDNA3/CDNA4's ds_read_b128 lane groups (as Triton's
SwizzleTest.cpp lists them), and the validation of every HardwareModel field.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, examples
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA, HardwareModel, bank_model

from tests.support import SYNTHESIS_JUNK, returns_or_raises_layout_error


def phase_groups(model, access_bits):
    masks = model.phase_masks(access_bits)
    groups = {}
    for lane in range(model.warp_size):
        key = tuple(bin(lane & m).count("1") & 1 for m in masks)
        groups.setdefault(key, []).append(lane)
    return sorted(groups.values())


def test_nvidia_phases_group_lanes_by_lane_id():
    assert phase_groups(NVIDIA, 32) == [list(range(32))]
    assert phase_groups(NVIDIA, 64) == [list(range(16)), list(range(16, 32))]
    assert phase_groups(NVIDIA, 128) == [list(range(i, i + 8)) for i in range(0, 32, 8)]
    assert phase_groups(NVIDIA, 16) == [list(range(32))]  # sub-word: one phase


def test_amd_cdna3_ds_read_b128_groups():
    """8 phases of 8 lanes: {0-3, 20-23}, {4-7, 16-19}, {8-11, 28-31}, {12-15, 24-27}, +32
    (Triton SwizzleTest.cpp, bruteforceBankConflictsPerWavefront64, 32 banks)."""
    def lanes(a, b):
        return list(range(a, a + 4)) + list(range(b, b + 4))

    want = [lanes(0, 20), lanes(4, 16), lanes(8, 28), lanes(12, 24)]
    want += [[x + 32 for x in g] for g in want]
    assert phase_groups(AMD_CDNA3, 128) == sorted(want)
    assert phase_groups(AMD_CDNA3, 32) == [list(range(32)), list(range(32, 64))]
    assert phase_groups(AMD_CDNA3, 64) == [list(range(i, i + 16)) for i in range(0, 64, 16)]


def test_amd_cdna4_ds_read_b128_groups():
    """4 phases of 16 lanes: T0-3, T12-15, T20-23, T24-27 | T4-7, T8-11, T16-19, T28-31 | +32."""
    def lanes(*starts):
        return sorted(x for s in starts for x in range(s, s + 4))

    want = [lanes(0, 12, 20, 24), lanes(4, 8, 16, 28)]
    want += [[x + 32 for x in g] for g in want]
    assert phase_groups(AMD_CDNA4, 128) == sorted(want)
    assert phase_groups(AMD_CDNA4, 32) == [list(range(64))]


def test_hardware_model_rejects_impossible_banks_and_phases():
    with pytest.raises(LayoutError, match="num_banks"):
        HardwareModel(num_banks=24)
    with pytest.raises(LayoutError, match="narrower"):
        HardwareModel(num_banks=2, bank_bytes=4)
    with pytest.raises(LayoutError, match="dependent"):
        HardwareModel(warp_size=64, num_banks=32, phase_overrides=((16, (1, 1, 2)),))
    with pytest.raises(LayoutError, match="row"):
        HardwareModel(warp_size=64, num_banks=32, phase_overrides=((16, (32,)),))
    with pytest.raises(LayoutError, match="mask"):
        HardwareModel(warp_size=64, phase_overrides=((16, (0, 4)),))
    with pytest.raises(LayoutError, match="HardwareModel"):
        bank_model(32, hardware="NVIDIA")
    lay = LinearLayout({"lane": [[1 << i] for i in range(6)]}, {"dim0": 64})
    mem = LinearLayout({"offset": [[1 << i] for i in range(6)]}, {"dim0": 64})
    with pytest.raises(LayoutError, match="lane"):
        bank_conflicts(lay, mem, element_bits=32)  # 64 lanes on a 32-lane NVIDIA warp
    assert bank_conflicts(lay, mem, element_bits=32, hardware=AMD_CDNA3).phases == 2


def test_junk_arguments_raise_layout_error_only():
    """Every field of HardwareModel, fed junk: LayoutError or a model, nothing else."""
    for j in SYNTHESIS_JUNK + [examples.get("transpose").store]:
        for kw in ("num_banks", "bank_bytes", "warp_size", "max_access_bytes",
                   "phase_overrides"):
            returns_or_raises_layout_error(HardwareModel, **{kw: j})


@pytest.mark.parametrize("hw", [NVIDIA, AMD_CDNA3, AMD_CDNA4, NVIDIA.with_banks(num_banks=16),
                                NVIDIA.with_banks(bank_bytes=8),
                                NVIDIA.with_banks(num_banks=64)], ids=lambda h: h.name)
def test_phase_info_is_the_hardware_rule(hw):
    """BankModel.phase_info: the hardware model's phase masks for the access width (halved
    when packed), the lanes their kernel spans, and the lane prefix exactly when those lanes
    are the unit lanes 1, 2, …, 2^(p−1) (a split by lane id)."""
    from linlayout import f2

    warp = hw.warp_size.bit_length() - 1
    for eb in (8, 16, 32, 64, 128):
        model = bank_model(eb, hw)
        for k in range(model.max_vector_log2 + 1):
            for packed in (False, True):
                bits = (eb << k) >> (1 if packed else 0)
                masks, lanes, prefix = model.phase_info(k, packed)
                assert masks == tuple(hw.phase_masks(bits))
                assert (masks, lanes) == (model.phase_masks(k, packed),
                                          model.phase_lanes(k, packed))
                # the lanes span the kernel of the phase functionals
                assert len(lanes) == warp - len(masks)
                assert all(bin(lane & m).count("1") % 2 == 0 for lane in lanes for m in masks)
                assert f2.rank(lanes) == len(lanes)
                units = tuple(1 << i for i in range(len(lanes)))
                assert (prefix is not None) == (lanes == units)
                assert prefix is None or prefix == len(lanes)
                # lane_prefix: the same split by lane id, worked out without masks
                assert model.lane_prefix(k, packed) == \
                    (None if hw.phase_overrides else prefix)
