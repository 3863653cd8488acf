"""Triton's path for a convert_layout (linlayout/lowering/convert.py)."""

from __future__ import annotations

import random

import pytest

from linlayout.check.shared_memory.predict import needs_shared
from linlayout.errors import LayoutError
from linlayout.lowering import convert_path
from tests.lowering.warp_pairs import layout, warp_pair


def test_paths():
    a = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    assert convert_path(a, a, 16).path == "none"
    assert convert_path(a, layout([32, 1], [2, 4, 8, 16, 64], [], 1, 6), 16).path == "registers"
    r = convert_path(a, layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6), 32, "cuda:80")
    assert r.path == "shuffle" and r.mixed_transpositions == 1
    assert r.counts == {"shfl.sync.bfly.b32": 2, "selp.b32": 6}
    assert all(e.side in ("shuffle", "select", "permute") for e in r.instructions)
    two = convert_path(layout([1, 2], [4, 8, 16, 32, 64], [], 1, 6),
                       layout([4, 8], [1, 2, 16, 32, 64], [], 1, 6), 32)
    assert two.path == "shared" and two.mixed_transpositions == 2
    lanes = convert_path(layout([1], [2, 4, 8, 16, 32], [], 0, 6),
                         layout([1], [4, 2, 8, 16, 32], [], 0, 6), 32)
    assert lanes.path == "shuffle" and lanes.counts == {"shfl.sync.idx.b32": 2}


def test_amd_opcodes():
    a = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    b = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)
    assert convert_path(a, b, 32, "hip:gfx942").counts == {"v_mov_b32_dpp": 2,
                                                           "v_cndmask_b32": 6}
    assert convert_path(a, b, 32, "hip:gfx950").counts == {"v_mov_b32_dpp": 2,
                                                           "v_cndmask_b32": 6}


# gfx942/gfx950 AMDGCN of 16-bit converts whose source is an f32 tile truncated in the kernel
# (exploration for papers/triton_lowering/cvt_heldout_probes.py): LLVM converts and packs each
# pair in one step, so the packing costs no v_perm_b32; the gfx950 one keeps the v_perm_b32 of
# its byte-permute selects
@pytest.mark.parametrize("src,dst,shape,target,packing,want", [
    (([1, 256, 16, 128], [64, 2, 8, 32, 4, 512]), ([1, 256, 16, 2], [64, 128, 8, 32, 4, 512]),
     (6, 4), "hip:gfx942", 8, {"v_cndmask_b32": 12, "v_mov_b32_dpp": 4}),
    (([4, 64, 128, 1024, 8], [16, 32, 1, 2, 256, 512]),
     ([128, 8, 64, 2, 1024], [16, 32, 1, 4, 256, 512]), (5, 6), "hip:gfx950", 16,
     {"v_cndmask_b32": 18, "v_mov_b32_dpp": 8, "v_perm_b32": 16}),
])
def test_a_truncated_source_packs_for_free(src, dst, shape, target, packing, want):
    a, b = layout(*src, [], *shape), layout(*dst, [], *shape)
    assert convert_path(a, b, 16, target, packed_source=True).counts == want
    other = convert_path(a, b, 16, target).counts
    assert other == want | {"v_perm_b32": want.get("v_perm_b32", 0) + packing}
    assert convert_path(a, b, 16, "cuda:90", packed_source=True).counts == \
        convert_path(a, b, 16, "cuda:90").counts  # NVIDIA packs 16-bit pairs for free anyway


@pytest.mark.parametrize("seed", range(60))
def test_shared_path_agrees_with_checks_rule(seed):
    """``check`` decides shared memory with its own rule (needs_shared): both agree on
    unit-vector layouts."""
    src, dst = warp_pair(random.Random(seed))
    assert convert_path(src, dst, 16).uses_shared == needs_shared(src, dst)


def test_bad_arguments():
    a = layout([1], [2, 4, 8, 16, 32], [], 0, 6)
    with pytest.raises(LayoutError):
        convert_path(a, a, 12)
    with pytest.raises(LayoutError):
        convert_path(a, layout([1], [2, 4, 8, 16, 32], [], 1, 5), 16)
    with pytest.raises(LayoutError):
        convert_path(a, a, 16, "cuda:x")


def test_an_8_bit_shuffle_unpacks_only_the_bytes_its_destination_keeps():
    """A u8 reduction's 64 results (8 per thread, lanes along dim 0 holding copies) to 4 per
    thread over 32 lanes (a lane bit broadcast): two words packed (3 prmt.b32 each), two
    shuffled and selected, and only the word the destination keeps unpacked (4 prmt.b32),
    as the sm_90 PTX of Triton's lowering (``redux_heldout_probes.py``)."""
    from linlayout.triton.parse import parse_type

    src = parse_type("tensor<64xi8, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread "
                     "= [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>"
                     "}>>").layout
    dst = parse_type("tensor<64xi8, #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], "
                     "warpsPerCTA = [1], order = [0]}>>").layout
    r = convert_path(src, dst, 8, "cuda:90")
    assert r.path == "shuffle"
    assert r.counts == {"shfl.sync.idx.b32": 2, "selp.b32": 3, "prmt.b32": 10}


def test_a_source_broadcast_over_some_warp_bits_shuffles():
    """Warp bit 0 broadcast, warp bit 1 kept; the destination's warp bit 0 is the source's
    lane 4: shuffles (Triton 3.9, cuda:90: 2 shfl.sync.idx.b32 and 1 selp.b32 for i8);
    the same with that bit in the source's registers goes through shared memory."""
    src = layout([4 << 5, 8 << 5, 16], [1 << 5, 2 << 5, 1, 2, 4], [0, 8], 4, 5)
    dst = layout([16, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5], [4, 8], 4, 5)
    r = convert_path(src, dst, 8, "cuda:90")
    assert r.path == "shuffle" and "warp" in r.remaining_dims
    assert r.counts["shfl.sync.idx.b32"] == 2 and r.counts["selp.b32"] == 1
    assert not needs_shared(src, dst)
    reg = layout([4, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5], [16, 8], 4, 5)
    assert convert_path(src, reg, 8).path == "shared" and needs_shared(src, reg)
    moved = layout([16, 8 << 5], [1, 2, 1 << 5, 2 << 5, 4 << 5], [8, 4], 4, 5)
    assert convert_path(src, moved, 8).path == "shared" and needs_shared(src, moved)


def _sliced(d, spt, tpw, wpc, order, shape, t_reg, t_lane, t_warp):
    """A slice of a 3-d blocked layout and a destination given by flat offsets (row-major
    over ``shape``), as ``papers/triton_lowering/cvt_warp_slice_probes.py`` draws them."""
    from linlayout import LinearLayout
    from linlayout.triton.encodings.distributed import blocked, slice as slice_

    m, n = shape
    src = slice_(d, blocked(spt, tpw, wpc, order)).to_linear_layout([m, n])
    src = LinearLayout({k: [list(v) for v in vs] for k, vs in src.bases.items()},
                       {"dim0": m, "dim1": n})

    def un(v):
        return [v // n, v % n]

    dst = LinearLayout({"register": [un(v) for v in t_reg], "lane": [un(v) for v in t_lane],
                        "warp": [un(v) for v in t_warp]}, {"dim0": m, "dim1": n})
    return src, dst


@pytest.mark.parametrize("pair,target,bits,counts", [
    # compiled with Triton 3.9 (held-out pair draw, seed 77123): the final assembly's counts
    (((1, [2, 1, 2], [4, 4, 4], [1, 2, 2], [2, 0, 1], (16, 64), [1, 64, 16, 32],
       [512, 4, 0, 256, 128, 0], [8, 2])), "hip:gfx942", 32,
     {"ds_bpermute_b32": 32, "v_cndmask_b32": 16}),
    (((0, [1, 2, 1], [4, 2, 4], [2, 1, 1], [0, 2, 1], (32, 8), [8, 4, 32, 128],
       [0, 64, 1, 2, 0], [16])), "cuda:90", 16,
     {"shfl.sync.idx.b32": 16, "selp.b32": 8}),
])
def test_a_source_broadcast_over_lane_and_warp_bits_pairs_its_warp_bits_first(
        pair, target, bits, counts):
    """A source broadcast over a lane bit and a warp bit: its zero warp columns pair with
    the destination's zero columns first, so the transpositions' lane conditions fold as in
    Triton's lowering (the other order counted three times the selects: 48 and 24)."""
    src, dst = _sliced(*pair)
    path = convert_path(src, dst, bits, target)
    assert path.path == "shuffle" and path.counts == counts
