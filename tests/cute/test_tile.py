"""linlayout.cute.tile: tile_to_shape, against what CUTLASS's C++ prints."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.cute import parse_layout, tile_to_shape
from linlayout.triton import nvmma_shared


def test_matches_cute_print():
    """C++ cute::print of tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_128,_64>{})
    (research notes: compiled against the CUTLASS headers)."""
    got = tile_to_shape("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", [128, 64])
    assert got.text() == "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))"


def test_tiled_gmma_atoms_are_triton_nvmma_layouts():
    """A tiled GMMA atom is Triton's nvmma_shared layout of the whole tile."""
    for text, shape, tr in [("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", [128, 128], False),
                            ("Sw<2,4,3> o smem_ptr[8b](unset) o (_64,_8):(_1,_64)", [64, 32], True)]:
        M = parse_layout(tile_to_shape(text, shape))
        T = nvmma_shared(128 if "3,4,3" in text else 64, 16 if "16b" in text else 8,
                         transposed=tr).to_linear_layout(shape)
        assert M.bases["offset"] == T.bases["offset"]


def test_hierarchical_atoms_and_repeat_order():
    got = tile_to_shape("Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))", [16, 128])
    assert got.text() == "Sw<3,3,3> o _0 o ((_8,_2),((_8,_8),_2)):((_8,_512),((_1,_64),_1024))"
    M = parse_layout(got)
    assert M.apply({"offset": 512}) == {"dim0": 8, "dim1": 0}  # mode 0 repeats first
    assert M.apply({"offset": 1024}) == {"dim0": 0, "dim1": 64}


@pytest.mark.parametrize("shape,match", [([12, 64], "multiple"), ([16], "modes"),
                                         ("16x64", "list"), ([0, 64], "multiple")])
def test_refusals(shape, match):
    with pytest.raises(LayoutError, match=match):
        tile_to_shape("(_8,_64):(_64,_1)", shape)
    with pytest.raises(LayoutError, match="non-negative"):
        tile_to_shape("(_8,_64):(_-64,_1)", [16, 64])
