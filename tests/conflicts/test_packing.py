"""Return packing of wide loads (NVIDIA): an ``ld.shared`` of 8 or 16 bytes per lane whose lanes
``n`` and ``n ^ 1`` (or ``n ^ 2``) share their address runs in the phases of an access half as
wide. Measured on an H200 (``papers/hardware/``: the ``pack`` and ``broadcast`` cases); here the
closed form is held to the simulator, and both to the measured numbers."""

from __future__ import annotations

import dataclasses
import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.hardware import AMD_CDNA3, NVIDIA, HardwareModel, bank_model

from tests.support import random_distributed, random_memory_vectorisable


def line(n: int, lane, register=()) -> tuple[LinearLayout, LinearLayout]:
    """A 1-D access (element offsets per lane/register bit) and the plain buffer."""
    dims = {"dim0": 1 << n}
    dist = LinearLayout({"register": [[x] for x in register], "lane": [[x] for x in lane]}, dims)
    memory = LinearLayout({"offset": [[1 << i] for i in range(n)]}, dims)
    return dist, memory


# (lane images in elements, registers, element bits, measured wavefronts per ld.shared, per
# st.shared) — the H200 measurements of papers/hardware (pack-* and bcast-* cases)
MEASURED = [
    ([0, 1, 2, 4, 8], [], 64, 1, 2),        # pack-lane0-64bit
    ([1, 0, 2, 4, 8], [], 64, 1, None),     # pack-lane1-64bit
    ([1, 2, 0, 4, 8], [], 64, 2, None),     # pack-lane2-64bit: n^4 is not a packing pair
    ([0, 0, 1, 2, 4], [], 64, 1, None),     # pack-lane01-64bit
    ([0, 1, 2, 4, 16], [], 64, 2, None),    # pack-lane0-split-64bit: the merged phase conflicts
    ([0, 16, 1, 2, 4], [], 64, 2, None),    # pack-lane0-conflict-64bit
    ([0, 2, 4, 8, 16], [1], 32, 1, None),   # pack-lane0-32x2
    ([0, 4, 8, 16, 32], [1, 2], 16, 1, None),  # pack-lane0-16x4
    ([0, 1, 2, 4, 8], [], 128, 2, 4),       # pack-lane0-128bit
    ([1, 0, 2, 4, 8], [], 128, 2, None),    # pack-lane1-128bit
    ([1, 2, 0, 4, 8], [], 128, 4, None),    # pack-lane2-128bit
    ([0, 1, 2, 8, 4], [], 128, 4, None),    # pack-lane0-split-128bit
    ([0, 0, 1, 2, 4], [], 128, 2, None),    # pack-lane01-128bit
    ([0, 4, 8, 16, 32], [1, 2], 32, 2, None),  # pack-lane0-32x4
    ([0, 32, 64, 1, 2], [], 32, 4, None),   # pack-lane0-conflict-32bit: one word, nothing to pack
    ([0, 0, 0, 0, 0], [], 64, 1, 2),        # bcast-all-64bit
    ([0, 0, 0, 0, 0], [], 128, 2, None),    # bcast-all-128bit
    ([1, 2, 4, 8, 0], [], 64, 2, None),     # bcast-halves-64bit: n^16 does not pack
    ([1, 2, 4, 0, 0], [], 128, 4, None),    # bcast-quarters-128bit
]


@pytest.mark.parametrize("lane,register,bits,load_wf,store_wf", MEASURED)
def test_measured_wavefronts(lane, register, bits, load_wf, store_wf):
    n = max(10, max(lane + register + [1]).bit_length())
    dist, memory = line(n, lane, register)
    for instr, want in (("ld.shared", load_wf), ("st.shared", store_wf)):
        closed = bank_conflicts(dist, memory, element_bits=bits, instruction=instr)
        assert simulate_bank_access(dist, memory, element_bits=bits, instruction=instr) == closed
        if want is not None:
            assert closed.wavefronts_per_instruction == want
    # a store, and an access of unstated direction, are never packed
    plain = bank_conflicts(dist, memory, element_bits=bits)
    assert plain == bank_conflicts(dist, memory, element_bits=bits, instruction="st.shared")


def test_packed_phases_are_those_of_half_the_width():
    dist, memory = line(10, [0, 1, 2, 4, 8])
    rep = bank_conflicts(dist, memory, element_bits=128, instruction="ld.shared")
    assert (rep.phases, rep.lanes_per_phase) == (2, 16)
    rep = bank_conflicts(dist, memory, element_bits=64, instruction="ld.shared")
    assert (rep.phases, rep.lanes_per_phase) == (1, 32)


def test_closed_form_equals_simulator_on_random_loads_with_broadcast_lanes():
    rng = random.Random(5)
    packed = 0
    for _ in range(300):
        d = rng.randint(6, 10)
        a = rng.randint(0, d)
        out_bits = [a, d - a]
        dist = random_distributed(rng, out_bits, unit=rng.random() < 0.6,
                                  warp_bits=rng.randint(0, 1), broadcast=0.3)
        memory = random_memory_vectorisable(rng, dist, unit=rng.random() < 0.5)
        e = rng.choice([16, 32, 64, 128])
        try:
            closed = bank_conflicts(dist, memory, element_bits=e, instruction="ld.shared")
        except LayoutError:
            continue
        sim = simulate_bank_access(dist, memory, element_bits=e, instruction="ld.shared")
        assert sim == dataclasses.replace(closed, conflict_offsets=())
        store = bank_conflicts(dist, memory, element_bits=e, instruction="st.shared")
        assert closed.wavefronts_per_instruction <= store.wavefronts_per_instruction
        packed += closed.phases < store.phases
    assert packed >= 20  # the rule was exercised


def test_model_packed_rule():
    model = bank_model(32, NVIDIA)
    assert model.packed([0, 1, 2, 4, 8], 1, load=True)        # 64-bit, n^1 shares
    assert model.packed([1, 0, 2, 4, 8], 2, load=True)        # 128-bit, n^2 shares
    assert not model.packed([1, 2, 0, 4, 8], 1, load=True)    # n^4 is no packing pair
    assert not model.packed([0, 1, 2, 4, 8], 0, load=True)    # one bank word: nothing to pack
    assert not model.packed([0, 1, 2, 4, 8], 1, load=False)   # stores never pack
    assert not bank_model(32, AMD_CDNA3).packed([0, 1, 2, 4, 8, 16], 1, load=True)


@pytest.mark.parametrize("bad", [(3,), (0,), (64,), ("1",), (True,), 5])
def test_bad_packing_lanes_are_refused(bad):
    with pytest.raises(LayoutError):
        HardwareModel(packing_lanes=bad)
