"""Triton's warp decomposition (linlayout/lowering/decompose.py)."""

from __future__ import annotations

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering.decompose import decompose
from tests.lowering.warp_pairs import layout


def test_one_exchange_is_one_transposition():
    src = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    dst = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)
    d = decompose(src, dst, 32)
    assert [(t.register, t.lane) for t in d.transpositions] == [(0, 0)]
    assert d.lane_perm_trivial and d.n_pack == 0


@pytest.mark.parametrize("bits,n_pack", [(8, 1), (16, 1), (32, 0), (64, 0)])
def test_packing_is_capped_by_the_free_registers(bits, n_pack):
    src = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    dst = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)
    assert decompose(src, dst, bits).n_pack == n_pack


def test_lane_permutation_alone():
    src = layout([1], [2, 4, 8, 16, 32], [], 0, 6)
    dst = layout([1], [4, 2, 8, 16, 32], [], 0, 6)
    d = decompose(src, dst, 32)
    assert not d.transpositions and not d.lane_perm_trivial
    assert d.lane_perm_inverse()[d.lane_perm[0]] == 0


def test_two_exchanges():
    src = layout([1, 2], [4, 8, 16, 32, 64], [], 1, 6)
    dst = layout([4, 8], [1, 2, 16, 32, 64], [], 1, 6)
    assert len(decompose(src, dst, 32).transpositions) == 2


def test_warp_broadcast_bits():
    from linlayout.lowering.decompose import warp_broadcast_bits

    src = layout([1], [2, 4, 8, 16, 32, 64], [0, 0], 6, 1)
    # the destination's warp 1 holds rows 32..63: lanes of the source hold that bit
    assert warp_broadcast_bits(src, layout([], [1, 2, 4, 8, 16, 32], [64, 0], 6, 1)) == 2
    # a warp basis the source's registers hold: shared memory, not this path
    assert warp_broadcast_bits(src, layout([64], [2, 4, 8, 16, 32, 1], [1, 0], 6, 1)) == 0
    # a source that is not broadcast over warps
    assert warp_broadcast_bits(layout([1], [2, 4, 8, 16, 32, 0], [64, 0], 6, 1),
                               layout([], [1, 2, 4, 8, 16, 32], [64, 0], 6, 1)) == 0
    d = decompose(src, layout([], [1, 2, 4, 8, 16, 32], [64, 0], 6, 1), 32)
    assert d.warp_bits == 2 and d.hardware_lane_bits == 6 and d.lane_bits == 8


def test_warp_broadcast_bits_of_a_source_broadcast_over_some_warp_bits():
    from linlayout.lowering.decompose import warp_broadcast_bits, warp_lane_columns

    # warp bit 0 broadcast, warp bit 1 kept (a slice of a blocked layout with warps along
    # the sliced dim): the destination's warp bit 0 is the source's lane 4
    src = layout([4 << 5, 8 << 5, 16], [1 << 5, 2 << 5, 1, 2, 4], [0, 8], 4, 5)
    dst = layout([16, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5], [4, 8], 4, 5)
    assert warp_broadcast_bits(src, dst) == 2
    assert warp_lane_columns(src, dst) == (dst.dim_columns("warp")[0], 0)
    d = decompose(src, dst, 8)
    assert d.warp_bits == 2 and d.hardware_lane_bits == 5
    # the kept warp bit moved elsewhere: another warp holds those elements
    assert warp_broadcast_bits(src, layout([16, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5],
                                           [8, 4], 4, 5)) == 0
    # the destination's warp bit 0 held by the source's registers: shared memory
    assert warp_broadcast_bits(src, layout([4, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5],
                                           [16, 8], 4, 5)) == 0
    # equal warp bases: not this rule (the minimal conversion drops the warp dim)
    assert warp_broadcast_bits(src, src) == 0


def test_a_warp_basis_the_source_does_not_broadcast_changed_by_its_lanes_needs_shared_memory():
    """Triton 3.9 sends a convert through shared memory when a destination warp basis
    differs from a nonzero source warp basis, even by a vector the source's lanes hold
    (every element stays in its warp): 13 of 13 compiled kernels
    (``papers/triton_lowering/cvt_lane_warp_probes.py``, family ``g_lanewarp``). A basis
    the source broadcasts (zero) may still be given source lanes."""
    from linlayout.check.shared_memory.predict import needs_shared
    from linlayout.lowering import convert_path
    from linlayout.lowering.decompose import warp_broadcast_bits
    from linlayout.lowering.target import Target

    # 32 x 32 tile (flat bits: the low 5 are dim1); no zero warp basis in the source
    src = layout([1, 2, 4], [8, 16, 32, 64, 128], [256, 512], 5, 5)
    dst = layout([1, 2, 4], [8, 16, 32, 64, 128], [256 ^ 8, 512], 5, 5)
    assert warp_broadcast_bits(src, dst) == 0 and needs_shared(src, dst)
    assert convert_path(src, dst, 16, Target("cuda", 90)).path == "shared"
    wide = layout([1, 2, 4], [8, 16, 32, 64, 128, 256], [512, 1024 ^ 16], 6, 5)  # 64 lanes
    assert convert_path(layout([1, 2, 4], [8, 16, 32, 64, 128, 256], [512, 1024], 6, 5), wide,
                        8, Target("hip", "gfx942", 64)).path == "shared"
    # two lanes' worth on both warp bits, lanes permuted: still shared memory
    dst = layout([1, 2, 4], [16, 8, 32, 64, 128], [256 ^ 8 ^ 32, 512 ^ 128], 5, 5)
    assert warp_broadcast_bits(src, dst) == 0 and needs_shared(src, dst)
    # a source broadcast over warp bit 0, its warp bit 1 kept: bit 0 may take a lane's
    # vector (shuffles, as cvt_warp_slice_probes.py measured) ...
    half = layout([1, 2, 4, 256], [8, 16, 32, 64, 128], [0, 512], 5, 5)
    assert warp_broadcast_bits(half, layout([1, 2, 4, 256], [8, 16, 32, 64, 128],
                                            [8, 512], 5, 5)) == 2
    # ... but changing the kept bit 1 by a lane takes shared memory
    moved = layout([1, 2, 4, 256], [8, 16, 32, 64, 128], [8, 512 ^ 16], 5, 5)
    assert warp_broadcast_bits(half, moved) == 0 and needs_shared(half, moved)


@pytest.mark.parametrize("junk", [None, "layout", 3, {"register": []}])
def test_the_warp_rule_refuses_what_is_not_a_layout(junk):
    from linlayout.lowering.decompose import warp_broadcast_bits, warp_lane_columns

    with pytest.raises(LayoutError, match="LinearLayout"):
        warp_broadcast_bits(junk, junk)
    with pytest.raises(LayoutError, match="LinearLayout"):
        warp_lane_columns(junk, junk)
