"""linlayout.cute.tv: thread-value layouts and make_tiled_copy, against pycute's maps."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.cute import tiled_tv_layout, tv_layout
from linlayout.triton import dot_operand, nvidia_mma

from .fixtures import cute_fixtures


def tv_bases(L):
    """The layout's bases as the fixture writes them: thread = lane then warp, value."""
    return {"thread": L.bases["lane"] + L.bases["warp"], "value": L.bases["register"]}


def test_worked_example_is_triton_mma_v2():
    C = tv_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", [16, 8])
    T = nvidia_mma(2, [1, 1], [16, 8]).to_linear_layout([16, 8])
    assert C.bases["register"] == T.bases["register"]
    assert C.bases["lane"] == T.bases["lane"]
    A = tv_layout("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", [16, 16])
    TA = dot_operand(0, nvidia_mma(2, [1, 1], [16, 8]), 2).to_linear_layout([16, 16])
    assert (A.bases["register"], A.bases["lane"]) == (TA.bases["register"], TA.bases["lane"])


def test_thread_bits_split_into_lanes_and_warps():
    L = tv_layout("((_4,_8,_4),(_2,_2,_1)):((_128,_1,_16),(_64,_8,_512))", [64, 8])
    assert L.in_dims == {"register": 4, "lane": 32, "warp": 4}
    assert L.bases["warp"] == [[16, 0], [32, 0]]
    small = tv_layout("(_8,_2):(_2,_1)", [16], warp_size=4)
    assert small.in_dims == {"register": 2, "lane": 4, "warp": 2}


def test_broadcast_threads_are_zero_bases():
    src = tv_layout("((_8,_4),_8):((_8,_0),_1)", [8, 8])  # ldmatrix.x1 addresses, 16-bit
    assert src.bases["lane"][3:] == [[0, 0], [0, 0]]


@pytest.mark.parametrize("text,tile,match", [
    ("(_32,_4):(_4,_1)", [64], "reaches index 127"),
    ("Sw<3,4,3> o _0 o (_32,_4):(_4,_1)", [128], "no swizzle"),
    ("(_32,_4,_2):(_4,_1,_128)", [256], "two top-level modes"),
    ("(_32,_3):(_4,_1)", [128], "not a power of two"),
    ("(_32,_4):(_4,_2)", [128], "carries"),
    ("(_32,_4):(_4,_1)", [100], "power of two"),
    ("(_32,_4):(_4,_1)", [], "at least one"),
    ("(_32,_4):(_4,_1)", "128", "list of powers of two"),
    ("(_32,_4):(_4,_1)", [1 << 13, 1 << 12], "2\\^24"),
])
def test_refusals(text, tile, match):
    with pytest.raises(LayoutError, match=match):
        tv_layout(text, tile)


def test_tiled_copies_against_pycute():
    """make_tiled_copy(atom, thr, val)'s layout_tv, built by the fixture generator exactly as
    CUTLASS builds it (raked_product, right_inverse, with_shape)."""
    copies = cute_fixtures()["tiled_copies"]
    assert len(copies) >= 5
    for c in copies:
        L = tiled_tv_layout(c["thr"], c["val"])
        assert list(L.out_dims.values()) == c["tile"], c
        assert tv_bases(L) == c["bases"], c
        # and the TV text itself, read as a TV layout, is the same distributed layout
        assert tv_layout(c["layout_tv"], c["tile"]) == L


def test_tiled_copy_refuses_non_bijective_thread_layouts():
    with pytest.raises(LayoutError, match="broadcast"):
        tiled_tv_layout("(_16,_8):(_0,_1)", "(_1,_8):(_0,_1)")
    with pytest.raises(LayoutError, match="gaps"):
        tiled_tv_layout("(_16,_8):(_16,_1)", "(_1,_8):(_0,_1)")
