"""Warp-local tt.gather (linlayout/check/registers/gather.py)."""

from __future__ import annotations

from linlayout.check.registers.gather import gather_leaves_words, gather_shuffles, is_warp_local
from linlayout.lowering import Target
from tests.check.registers.test_reduce import blocked


def test_a_gather_along_lanes_and_registers_of_one_warp():
    src = blocked((32, 64), [1, 4], [4, 8], [1, 1], [1, 0])
    assert is_warp_local(src, src, 1)
    ems = gather_shuffles(src, src, 1, 32, Target.parse("cuda:90"))
    # 64 index registers; 8 source registers per column (4 in a vector, 2 repetitions)
    assert {e.opcode: e.per_thread for e in ems} == {"shfl.sync.idx.b32": 512,
                                                      "selp.b32": 448}



def test_the_selects_are_as_wide_as_the_element():
    """Triton selects values of the element type: NVPTX's narrowest select is 16 bits."""
    src = blocked((32, 64), [1, 4], [4, 8], [1, 1], [1, 0])
    widths = {bits: [e.opcode for e in gather_shuffles(src, src, 1, bits,
                                                      Target.parse("cuda:90"))][1]
              for bits in (8, 16, 32, 64)}
    assert widths == {8: "selp.b16", 16: "selp.b16", 32: "selp.b32", 64: "selp.b64"}


def test_warps_along_the_axis_need_shared_memory():
    src = blocked((32, 64), [1, 4], [4, 8], [2, 1], [1, 0])
    assert not is_warp_local(src, src, 0)
    assert gather_shuffles(src, src, 0, 32, Target.parse("cuda:90")) is None
    assert is_warp_local(src, src, 1)


def test_lanes_placed_differently_off_the_axis():
    src = blocked((32, 64), [1, 4], [4, 8], [1, 1], [1, 0])
    idx = blocked((32, 64), [1, 4], [8, 4], [1, 1], [1, 0])
    assert not is_warp_local(src, idx, 1)


def test_results_left_in_32_bit_registers():
    """NVIDIA: with one source register per column the result is the shuffle's (no select);
    AMD: with a lane along the axis, shuffles and 32-bit selects; through shared memory or
    at 32 bits: no."""
    cuda, gfx = Target.parse("cuda:80"), Target.parse("hip:gfx942")
    one = blocked((16, 64), [1, 2], [16, 2], [1, 2], [0, 1])  # lanes along dim 0 only
    two = blocked((32, 64), [2, 2], [16, 2], [1, 2], [0, 1])  # two registers per column
    assert gather_leaves_words(one, one, 0, 16, cuda)
    assert not gather_leaves_words(two, two, 0, 16, cuda)
    assert not gather_leaves_words(one, one, 0, 32, cuda)
    amd = blocked((64, 64), [2, 2], [32, 2], [1, 2], [0, 1])
    assert gather_leaves_words(amd, amd, 0, 8, gfx)
    lanes_off = blocked((64, 64), [4, 1], [1, 64], [1, 1], [0, 1])  # no lane along dim 0
    assert not gather_leaves_words(lanes_off, lanes_off, 0, 8, gfx)
    across = blocked((32, 64), [1, 4], [4, 8], [2, 1], [1, 0])  # warps along the axis
    assert not gather_leaves_words(across, across, 0, 16, cuda)
