"""linlayout.triton.encodings.construct: Triton's layout-building helpers."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.triton.encodings.construct import (
    ensure_not_larger,
    ensure_not_smaller,
    from_bases,
    identity_1d,
    identity_standard_nd,
    matrix_order,
    standard_out_dims,
    zeros_1d,
)


def test_identity_and_zeros_of_size_zero_are_empty():
    assert identity_1d(0, "register", "dim0") == LinearLayout.empty()
    assert zeros_1d(0, "register", "dim0") == LinearLayout.empty()
    assert identity_1d(4, "lane", "dim1").bases["lane"] == [[1], [2]]
    with pytest.raises(LayoutError):
        identity_1d(3, "lane", "dim0")


def test_identity_standard_nd_runs_the_minor_dim_first():
    lay = identity_standard_nd("offset", [4, 2], [1, 0])
    assert list(lay.out_dim_names) == ["dim1", "dim0"]
    assert lay.transpose_outs(standard_out_dims(2)).bases["offset"] == [[0, 1], [1, 0], [2, 0]]
    assert matrix_order(3, True) == [2, 1, 0]


def test_from_bases_infers_sizes():
    lay = from_bases({"offset": [[0, 1], [2, 0]]}, ["dim0", "dim1"])
    assert lay.out_dims == {"dim0": 4, "dim1": 2}


def test_ensure_not_larger_broadcasts_the_largest_bases_and_smaller_grows():
    lay = identity_1d(8, "register", "dim0")
    small = ensure_not_larger(lay, {"dim0": 2})
    assert small.bases["register"] == [[1], [0], [0]]
    dropped = ensure_not_larger(lay, {"dim0": 2}, broadcast_registers=False)
    assert dropped.bases["register"] == [[1]]
    grown = ensure_not_smaller(identity_1d(2, "register", "dim0"), {"dim0": 8})
    assert grown.bases["register"] == [[1], [2], [4]]
