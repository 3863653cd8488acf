"""Hardware models: presets, phase groups, and the counters under AMD's wave64 rules."""

from __future__ import annotations

import random

import pytest

from linlayout import (
    LayoutError,
    LinearLayout,
    bank_conflicts,
    simulate_bank_access,
    synthesize_swizzle,
)
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA, HardwareModel, bank_model

from randlayouts import random_distributed, random_memory, random_memory_vectorisable, random_out_bits


def phase_groups(model, access_bits):
    masks = model.phase_masks(access_bits)
    groups = {}
    for lane in range(model.warp_size):
        key = tuple(bin(lane & m).count("1") & 1 for m in masks)
        groups.setdefault(key, []).append(lane)
    return sorted(groups.values())


def test_nvidia_phases_by_lane_id():
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


@pytest.mark.parametrize("hw", [AMD_CDNA3, AMD_CDNA4], ids=lambda h: h.name)
def test_closed_form_matches_simulator_on_amd(hw):
    rng = random.Random(hash(hw.name) & 0xFFFF)
    for _ in range(300):
        d = rng.randint(6, 11)
        out_bits = random_out_bits(rng, d)
        lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                                 warp_bits=rng.randint(0, 1), lane_bits=6,
                                 broadcast=rng.choice([0.0, 0.2]))
        mem = (random_memory_vectorisable(rng, lay, unit=False) if rng.random() < 0.6
               else random_memory(rng, out_bits, unit=True))
        e = rng.choice([8, 16, 32, 64])
        assert bank_conflicts(lay, mem, element_bits=e, hardware=hw) == simulate_bank_access(
            lay, mem, element_bits=e, hardware=hw)


def _ll(bases, out):
    return LinearLayout(bases, out)


# Triton SwizzleTest.cpp: Test64x128F16BlockedLinear32Bank / Test64x128F16BlockedMfma64Bank
OUT = {"dim0": 64, "dim1": 128}
SRC = {"register": [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]],
       "lane": [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0]],
       "warp": [[4, 0], [8, 0]]}
DST_LINEAR = {"register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [32, 0]],
              "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
              "warp": [[0, 0], [0, 0]]}
DST_MFMA = {"register": [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0]]}


@pytest.mark.parametrize("hw, dst", [(AMD_CDNA3, DST_LINEAR), (AMD_CDNA4, DST_MFMA)],
                         ids=["32-bank", "64-bank"])
def test_triton_amd_swizzle_cases_are_conflict_free(hw, dst):
    """Triton expects 0 extra wavefronts for both accesses; so do we, with exact counts."""
    src, dst = _ll(SRC, OUT), _ll(dst, OUT)
    r = synthesize_swizzle(src, dst, element_bits=16, hardware=hw)
    assert (r.store.degree, r.load.degree) == (1, 1) and r.optimal
    for side, rep in ((src, r.store), (dst, r.load)):
        assert simulate_bank_access(side, r.layout, element_bits=16, hardware=hw) == rep


def test_hardware_validation():
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
