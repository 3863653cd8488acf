"""``linlayout.check.shared_memory.reduce``: the convert_layouts of Triton 3.9.0's tt.reduce."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check.shared_memory.predict import predict_private
from linlayout.check.shared_memory.reduce import inter_layout, reduce_conversions, reduced_layout
from linlayout.check.target import parse_target
from linlayout.triton.parse import parse_encoding, parse_type

#: 128x64, 4 columns per thread, lanes [2, 16], 4 warps down the reduced axis 0
SRC = parse_encoding("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], "
                     "warpsPerCTA = [4, 1], order = [1, 0]}>")
OP = SRC.to_linear_layout([128, 64])


def test_partials_keep_one_row_per_warp():
    r = reduced_layout(OP, 0)
    assert r.out_dims == {"dim0": 4, "dim1": 64}
    assert r.bases["register"] == [[0, 1], [0, 2]]
    assert r.bases["warp"] == [[1, 0], [2, 0]]
    assert r.bases["lane"][4] == [0, 0]  # the reduced lane is broadcast


def test_inter_layout_moves_warps_into_the_first_lanes_when_too_few_are_free():
    t = inter_layout(reduced_layout(OP, 0), 0)
    assert t.bases["lane"][:2] == [[1, 0], [2, 0]]
    assert t.bases["warp"] == [[0, 4], [0, 8]]


def test_two_rounds_through_shared_memory_as_in_tritons_ptx():
    """reduce_axis0 of the corpus: 2 st.shared.v4.b32 + 2 ld.shared.v4.b32 per thread."""
    res = parse_type("tensor<64xf32, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread"
                     " = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]"
                     "}>}>>").layout
    assert len(reduce_conversions(OP, res, 0)) == 2
    p = predict_private("reduce", OP, res, 32, parse_target("cuda:80"), 0)
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared.v4.b32", 1), ("ld.shared.v4.b32", 1)] * 2
    assert all(s.memory is not None for s in p.sides)  # bank conflicts can be counted


def test_within_warp_reductions_need_no_shared_memory():
    """Along axis 1 the lanes hold everything and warps lie across the axis."""
    p = predict_private("reduce", OP, None, 32, parse_target("cuda:80"), 1)
    assert not p.uses_shared and p.sides == ()


def test_a_bad_axis_is_refused():
    with pytest.raises(LayoutError, match="axis 2"):
        reduce_conversions(OP, None, 2)
