"""The warp-shuffle lowering (linlayout/lowering/shuffle.py): its value graph, executed lane
by lane, yields the destination layout; its counts on known cases equal the PTX."""

from __future__ import annotations

import random

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering import convert_path
from linlayout.lowering.decompose import decompose
from linlayout.lowering.shuffle import lower_warp_shuffle
from tests.lowering.warp_pairs import layout, warp_pair


def _reaches(src, dst, bits: int, lanes: int) -> bool:
    low = lower_warp_shuffle(src, dst, bits)
    got = low.execute(src, lanes)
    regs = [i for i, c in enumerate(dst.dim_columns("register")) if c]
    for r, row in enumerate(got):
        full = sum(1 << regs[b] for b in range(len(regs)) if r >> b & 1)
        for lane, element in enumerate(row):
            if element != tuple(dst.apply({"register": full, "lane": lane}).values()):
                return False
    return True


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("seed", range(40))
def test_every_shuffle_lowering_reaches_the_destination(seed, bits):
    rng = random.Random(seed * 7 + bits)
    src, dst = warp_pair(rng)
    if len(decompose(src, dst, bits).transpositions) >= 2:  # Triton uses shared memory
        return
    assert _reaches(src, dst, bits, 32)


@pytest.mark.parametrize("seed", range(15))
def test_64_lane_warps(seed):
    rng = random.Random(seed)
    src, dst = warp_pair(rng, lane_bits=6, warp_bits=0)
    if len(decompose(src, dst, 16).transpositions) < 2:
        assert _reaches(src, dst, 16, 64)


# register r0 <-> lane l0 on a 2x64 tile (one warp): the counts the sm_90 PTX has
SRC = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
DST = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)


@pytest.mark.parametrize("bits,method,counts", [
    (32, "ship", {"select": 6, "shuffle": 2}),
    (64, "ship", {"select": 6, "shuffle": 2}),
    (16, "ship", {"select": 3, "permute": 3, "shuffle": 1}),
    (8, "ship", {"select": 3, "permute": 3, "shuffle": 1}),
])
def test_counts_of_one_exchange(bits, method, counts):
    low = lower_warp_shuffle(SRC, DST, bits)
    assert low.method == method
    assert {k: low.counts.get(k, 0) for k in counts} == counts


def test_selector_selects_are_shared_after_llvm_but_not_before():
    src = layout([1, 32, 128], [2, 4, 8, 16, 64], [], 2, 6)
    dst = layout([2, 32, 128], [1, 4, 8, 16, 64], [], 2, 6)
    low = lower_warp_shuffle(src, dst, 16)
    assert low.triton_counts["select"] == 6  # three per register pair
    assert low.counts["select"] == 3  # the same three constant selects after CSE


def test_not_a_permutation_is_refused():
    src = layout([1], [2, 4, 8, 16, 32], [], 0, 6)
    dst = layout([1 | 2], [2, 4, 8, 16, 32], [], 0, 6)
    with pytest.raises(LayoutError, match="permutation"):
        lower_warp_shuffle(src, dst, 32)


def _reaches_every_warp(src, dst, bits: int, lanes: int) -> bool:
    low = lower_warp_shuffle(src, dst, bits)
    regs = [i for i, c in enumerate(dst.dim_columns("register")) if c]
    for warp in range(1 << len(dst.dim_columns("warp"))):
        for r, row in enumerate(low.execute(src, lanes, warp)):
            full = sum(1 << regs[b] for b in range(len(regs)) if r >> b & 1)
            for lane, element in enumerate(row):
                want = dst.apply({"register": full, "lane": lane, "warp": warp})
                if element != tuple(want.values()):
                    return False
    return True


# tt.join's 64x2 result (broadcast over 4 warps) moved to a layout whose warp 1 holds rows
# 32..63: gfx942/gfx950 AMDGCN has 2 ds_bpermute_b32 and 1 v_cndmask_b32 (the heldout joins)
JOIN_SRC = layout([1], [2, 4, 8, 16, 32, 64], [0, 0], 6, 1)
JOIN_DST = layout([], [1, 2, 4, 8, 16, 32], [64, 0], 6, 1)


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_source_broadcast_over_warps_reads_the_warp_id(bits):
    low = lower_warp_shuffle(JOIN_SRC, JOIN_DST, bits)
    assert low.decomposition.warp_bits == 2
    assert low.counts["shuffle_idx"] == 2 and low.counts["select"] == 1
    assert _reaches_every_warp(JOIN_SRC, JOIN_DST, bits, 64)


@pytest.mark.parametrize("seed", range(30))
def test_random_sources_broadcast_over_warps(seed):
    rng = random.Random(1000 + seed)
    n_reg = rng.randint(2, 4)
    bits = [1 << i for i in range(n_reg + 6)]
    rng.shuffle(bits)
    reg, lane = bits[:n_reg], bits[n_reg:]
    t_reg, t_lane = list(reg), list(lane)
    if rng.random() < 0.7:  # one register/lane exchange
        i, j = rng.randrange(n_reg), rng.randrange(6)
        t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
    rng.shuffle(t_lane)
    # a bit the source's lanes hold goes to the destination's warp, a register to its lane
    j = rng.choice([k for k, c in enumerate(t_lane) if c in lane])
    warp, t_lane[j] = t_lane[j], t_reg.pop(rng.randrange(len(t_reg)))
    src = layout(reg, lane, [0], 5, n_reg + 1)
    dst = layout(t_reg, t_lane, [warp], 5, n_reg + 1)
    element_bits = rng.choice([8, 16, 32, 64])
    if len(decompose(src, dst, element_bits).transpositions) < 2:
        assert _reaches_every_warp(src, dst, element_bits, 64)


def test_a_warp_basis_in_the_source_registers_goes_through_shared_memory():
    src = layout([1, 2], [4, 8, 16, 32, 64, 128], [0], 5, 3)
    dst = layout([1], [4, 8, 16, 32, 64, 128], [2], 5, 3)
    assert convert_path(src, dst, 32, "hip:gfx942").path == "shared"
    assert convert_path(JOIN_SRC, JOIN_DST, 16, "hip:gfx942").path == "shuffle"


def _unit_layout(order):
    """Register bits ``order[:3]``, lane bits ``order[3:]`` of a 256-element tensor."""
    from linlayout import LinearLayout

    return LinearLayout({"register": [[1 << b] for b in order[:3]],
                         "lane": [[1 << b] for b in order[3:]]}, {"dim0": 256})


def test_a_low_bit_folded_into_the_selectors_is_not_renamed_again():
    # two transpositions of 16-bit pairs: the selectors move register bit 0 (a half of a
    # packed register), so P_reg leaves it alone and registers 0 and 1 are packed together,
    # as Triton 3.9's PTX packs them (papers/conversion/stage_probes.py)
    src, dst = _unit_layout(range(8)), _unit_layout([7, 4, 2, 0, 3, 1, 5, 6])
    low = lower_warp_shuffle(src, dst, 16)
    assert len(low.decomposition.transpositions) == 2
    assert low.decomposition.register_perm == (0, 1, 2)
    assert low.packs == ((0, 1), (2, 3), (4, 5), (6, 7))
    want = [[tuple(dst.apply({"register": r, "lane": lane}).values()) for lane in range(32)]
            for r in range(8)]
    assert low.execute(src, 32) == want


def test_the_r0_r1_swap_of_packed_bytes_is_folded_before_the_shuffle():
    # (r0 r1) of four packed bytes plus one transposition with butterfly lanes: Triton 3.9
    # permutes the bytes (0x3120/0x7564) before the shuffle and swaps (1 shfl, 4 selp, 8 prmt)
    from linlayout.lowering.shuffle import live_prmt_selectors

    src, dst = _unit_layout(range(8)), _unit_layout([1, 0, 3, 2, 4, 5, 6, 7])
    low = lower_warp_shuffle(src, dst, 8)
    (t,) = low.decomposition.transpositions
    assert (t.top_pre, t.bottom_pre) == (0x3120, 0x7564) and t.plain(pre=False)
    assert low.method == "swap"
    assert {k: low.counts[k] for k in ("shuffle", "select", "permute")} == \
        {"shuffle": 1, "select": 4, "permute": 2}
    assert live_prmt_selectors(low) == [0x3120, 0x3120, 0x7564, 0x7564]
    low.execute(src, 32)  # bytes of one element stay together (raises otherwise)


def test_selector_select_keys_name_the_lane_bit_and_both_constants():
    # the same lowering's two selector selects, each (lane bit, selector for bit 0, for 1)
    from linlayout.lowering.shuffle import live_prmt_selectors, selector_select_keys

    src, dst = _unit_layout(range(8)), _unit_layout([1, 0, 3, 2, 4, 5, 6, 7])
    low = lower_warp_shuffle(src, dst, 8)
    (t,) = low.decomposition.transpositions
    keys = selector_select_keys(low)
    assert len(keys) == 2 and {k[0] for k in keys} == {t.lane}
    assert sorted(c for k in keys for c in k[1:]) == live_prmt_selectors(low)
    assert selector_select_keys(lower_warp_shuffle(src, dst, 32)) == ()


def test_hardware_permutation_is_the_conversion():
    from linlayout.lowering.decompose import hardware_permutation

    src, dst = _unit_layout(range(8)), _unit_layout([7, 4, 2, 0, 3, 1, 5, 6])
    image, n_reg, n_lane, n_warp = hardware_permutation(src, dst)
    assert (n_reg, n_lane, n_warp) == (3, 5, 0)
    # source bit b holds tensor bit b; the destination holds it at the bit order lists it
    assert image == [[7, 4, 2, 0, 3, 1, 5, 6].index(b) for b in range(8)]


# A slice of a 3-d blocked layout whose sliced dim had 2 warps (warpsPerCTA [2, 1, 2]):
# warp 0 broadcast, warp 1 kept; the destination's warp 0 is held by the source's lane 4
# (the 16x32 i8 convert of /tmp/cvt3bf782, cuda:90: shfl.sync.idx.b32 x2, selp.b32 x1)
SLICE_SRC = layout([4 << 5, 8 << 5, 16], [1 << 5, 2 << 5, 1, 2, 4], [0, 8], 4, 5)
SLICE_DST = layout([16, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5], [4, 8], 4, 5)


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_source_broadcast_over_some_warp_bits_reads_the_warp_id(bits):
    low = lower_warp_shuffle(SLICE_SRC, SLICE_DST, bits)
    assert low.decomposition.warp_bits == 2
    if bits == 8:  # four bytes per register: the counts compiled
        assert low.counts["shuffle_idx"] == 2 and low.counts["select"] == 1
    assert _reaches_every_warp(SLICE_SRC, SLICE_DST, bits, 32)


@pytest.mark.parametrize("seed", range(30))
def test_random_sources_broadcast_over_some_warp_bits(seed):
    """A source with one broadcast warp bit and one kept: the kept bit stays where it is,
    the destination's other warp bit is one the source's lanes hold."""
    rng = random.Random(3000 + seed)
    n_reg = rng.randint(2, 4)
    bits = [1 << i for i in range(n_reg + 6)]
    rng.shuffle(bits)
    kept, reg, lane = bits[0], bits[1:n_reg + 1], bits[n_reg + 1:]
    assert len(lane) == 5
    t_reg, t_lane = list(reg), list(lane)
    if rng.random() < 0.7:  # one register/lane exchange
        i, j = rng.randrange(n_reg), rng.randrange(5)
        t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
    rng.shuffle(t_lane)
    j = rng.choice([k for k, c in enumerate(t_lane) if c in lane])
    warp, t_lane[j] = t_lane[j], t_reg.pop(rng.randrange(len(t_reg)))
    order = rng.random() < 0.5
    src = layout(reg, lane, [0, kept] if order else [kept, 0], 5, n_reg + 1)
    dst = layout(t_reg, t_lane, [warp, kept] if order else [kept, warp], 5, n_reg + 1)
    element_bits = rng.choice([8, 16, 32, 64])
    if len(decompose(src, dst, element_bits).transpositions) < 2:
        assert _reaches_every_warp(src, dst, element_bits, 32)
