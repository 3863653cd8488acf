"""linlayout.hardware.access: the one ld/st.shared access rule (vector width and alignment).

The counters (:mod:`linlayout.conflicts`) and the swizzle synthesizer
(:mod:`linlayout.synthesis.plans`) both take their vector from this module; these tests pin the
rule itself and check that the closed form, the simulator's enumeration and the synthesizer's
flat-column form agree with it.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, simulate_bank_access
from linlayout.hardware import AMD_CDNA4, NVIDIA, bank_model
from linlayout.hardware.access import (
    alignment_log2,
    check_vector,
    default_vector_log2,
    plan_access,
    plan_vector,
    warp_bytes,
    widest_vector_log2,
)
from linlayout.hardware.kinds import Distributed
from linlayout.synthesis.plans import side_report

from tests.support import random_distributed, random_memory_vectorisable

OUT = {"dim0": 64}
ROW_MAJOR = LinearLayout({"offset": [[1 << i] for i in range(6)]}, OUT)


def test_alignment_is_the_lowest_set_bit_of_every_thread_offset():
    assert alignment_log2([]) == 64
    assert alignment_log2([0, 0]) == 64
    assert alignment_log2([4, 8, 0]) == 2
    assert alignment_log2([6, 16]) == 1
    assert alignment_log2(iter([8, 24])) == 3


def test_widest_vector_follows_the_registers_and_the_caps():
    model = bank_model(32)  # NVIDIA: at most 4 × 32 bits
    cols = [1 << i for i in range(6)]
    regs = f2.echelon([1, 2, 4])
    assert widest_vector_log2(cols, 6, regs, model) == 2  # the 128-bit access caps 8 → 4
    assert widest_vector_log2(cols, 6, regs, bank_model(16)) == 3
    assert widest_vector_log2(cols, 6, regs, model, align_log2=1) == 1
    assert widest_vector_log2(cols, 6, f2.echelon([2, 4]), model) == 0  # offset 1 not held


def test_default_vector_asks_for_the_alignment_only_when_registers_back_a_vector():
    model = bank_model(32)
    cols = [1 << i for i in range(6)]
    calls = []

    def threads():
        calls.append(1)
        return [2, 8]

    assert default_vector_log2(cols, 6, f2.echelon([2]), model, threads) == 0
    assert not calls
    assert default_vector_log2(cols, 6, f2.echelon([1, 4]), model, threads) == 1
    assert calls
    assert default_vector_log2(cols, 6, f2.echelon([1, 2]), model, lambda: [4], cap_log2=1) == 1


def test_check_vector_messages():
    model = bank_model(32)
    cols = tuple(1 << i for i in range(6))
    assert check_vector(2, cols, 6, (1, 2), model) == 1
    with pytest.raises(LayoutError, match="exceeds the 128-bit widest access"):
        check_vector(8, cols, 6, (1, 2, 4), model)
    with pytest.raises(LayoutError, match="held in one thread's registers"):
        check_vector(4, cols, 6, (1,), model)
    with pytest.raises(LayoutError, match="straddle"):
        check_vector(2, cols, 6, (1,), model, align_log2=0)
    with pytest.raises(LayoutError):
        check_vector(3, cols, 6, (1, 2), model)


def test_plan_vector_refuses_lanes_in_another_cta():
    out = {"dim0": 64}
    mem = LinearLayout({"offset": [[1 << i] for i in range(5)], "block": [[32]]}, out)
    lay = LinearLayout({"lane": [[1], [2], [4], [8], [32]], "register": [[16]]}, out)
    with pytest.raises(LayoutError, match="another CTA"):
        plan_vector(plan_access(lay, mem), bank_model(32))


def test_warp_bytes_counts_broadcast_once_and_rounds_up():
    model = bank_model(32)
    assert warp_bytes([1, 2, 0], [4], model) == 8 * 4
    assert warp_bytes([1], [], bank_model(1)) == 1


@pytest.mark.parametrize("hardware", [NVIDIA, AMD_CDNA4])
def test_counters_and_synthesizer_use_the_same_vector(hardware):
    """bank_conflicts, the simulator's enumeration and swizzle.plans.side_report (flat
    columns) pick the same default vector and count the same on random pairs."""
    rng = random.Random(7)
    lane_bits = hardware.warp_size.bit_length() - 1
    counted = 0
    for _ in range(150):
        out_bits = [rng.randint(2, 4), rng.randint(2, 4)]
        while sum(out_bits) < lane_bits + 1:
            out_bits[0] += 1
        lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                                 warp_bits=rng.randint(0, 1), broadcast=0.1,
                                 lane_bits=lane_bits)
        mem = random_memory_vectorisable(rng, lay, unit=rng.random() < 0.5)
        e = rng.choice([8, 16, 32])
        model = bank_model(e, hardware)
        plan = plan_access(lay, mem, model.warp_log2)
        try:
            inv, _, k = plan_vector(plan, model)
            want = bank_conflicts(lay, mem, element_bits=e, hardware=hardware)
        except LayoutError:
            continue
        assert want.vector_elems == 1 << k
        assert simulate_bank_access(lay, mem, element_bits=e, hardware=hardware) == want
        side = Distributed(plan.register, plan.lane, plan.warp, plan.block)
        d = plan.offset_bits
        got = side_report(plan.memory_cols, inv, side, f2.echelon(plan.register), model, d)
        assert got == want
        counted += 1
    assert counted > 50
