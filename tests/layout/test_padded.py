"""PaddedLayout: address function, sizes, vector cap and validation."""

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.layout.padded import (
    PaddedLayout,
    check_padding_pairs,
    padded_size_elems,
    padding_vector_log2,
)


def test_address_of_the_identity_short_form():
    # [32:+4] on 64x64 row-major: 4 elements after every 32
    p = PaddedLayout.identity([(32, 4)], [64, 64], [1, 0])
    assert p.element_offset([0, 31]) == (31, 0)
    assert p.element_offset([0, 32]) == (36, 0)
    assert p.element_offset([1, 0]) == (72, 0)
    assert p.byte_address([1, 0], 16) == 144
    assert p.size_elems == 4096 + 512 - 4  # no trailing pad (getPaddedSize)
    assert p.size_bytes(16) == 2 * 4604 and p.overhead_bytes(16) == 2 * 508


def test_pads_of_several_pairs_add_up():
    p = PaddedLayout.identity([(64, 8), (128, 8)], [64, 64], [1, 0])
    assert [p.padded_offset(x) for x in (63, 64, 127, 128, 256)] == [63, 72, 135, 152, 304]
    assert p.size_elems == padded_size_elems(4096, [(64, 8), (128, 8)])


def test_remapped_rows():
    # the rows of a 128x64 tile reordered in groups of 16 (offset bit 6 -> row 16)
    bases = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [16, 0], [32, 0], [64, 0],
             [1, 0], [2, 0], [4, 0], [8, 0]]
    lin = LinearLayout({"offset": bases}, out_dims={"dim0": 128, "dim1": 64})
    p = PaddedLayout(lin, ((512, 16),))
    got = [p.element_offset(c)[0] for c in [(0, 0), (64, 0), (112, 63), (1, 0), (127, 63)]]
    assert got == [0, 256, 511, 528, 8431]
    assert p.size_elems == 8432


def test_padded_offsets_are_increasing_and_sized():
    p = PaddedLayout.identity([(4, 2), (16, 1)], [8, 8], [0, 1])
    table = p.all_padded_offsets()
    assert all(a < b for a, b in zip(table, table[1:]))
    assert table[-1] + 1 == p.size_elems


@pytest.mark.parametrize("pairs, k", [([(32, 4)], 2), ([(2, 8)], 1), ([(64, 8), (16, 16)], 3),
                                      ([(8, 1)], 0)])
def test_vector_cap(pairs, k):
    assert padding_vector_log2(pairs) == k


@pytest.mark.parametrize("pairs, match", [
    ([], "at least one"), ([(3, 1)], "power of two"), ([(4, 0)], "power of two"),
    ([(4, 1), (4, 2)], "distinct"), ([(4,)], "pairs"), (5, "pairs")])
def test_bad_pairs(pairs, match):
    with pytest.raises(LayoutError, match=match):
        check_padding_pairs(pairs)


def test_bad_linear_component():
    lin = LinearLayout({"register": [[1]]}, out_dims={"dim0": 2})
    with pytest.raises(LayoutError, match="offset"):
        PaddedLayout(lin, ((2, 1),))
    lin = LinearLayout({"offset": [[1], [1]]}, out_dims={"dim0": 4})
    with pytest.raises(LayoutError, match="bijection"):
        PaddedLayout(lin, ((2, 1),))
    p = PaddedLayout.identity([(2, 1)], [4], [0])
    with pytest.raises(LayoutError, match="offset"):
        p.padded_offset(4)
    with pytest.raises(LayoutError, match="outside"):
        p.element_offset([4])
