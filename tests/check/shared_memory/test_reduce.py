"""``linlayout.check.shared_memory.reduce``: the convert_layouts of Triton 3.9.0's tt.reduce."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check.shared_memory.predict import predict_private
from linlayout.check.shared_memory.reduce import (inter_layout, kept_reloads, reduce_conversions,
                                                  reduce_steps, reduced_layout)
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


ARGMIN = (frozenset({0}), frozenset({0, 1}))  # values read values; the index reads both


def test_steps_name_the_rounds_and_the_move_to_the_result():
    kinds = [k for k, _, _ in reduce_steps(OP, None, 0)]
    assert kinds and set(kinds) == {"round"}
    assert [(s, d) for _, s, d in reduce_steps(OP, None, 0)] == reduce_conversions(OP, None, 0)


def test_the_reload_of_an_unused_result_goes_in_the_final_move():
    kept = kept_reloads(["round", "result"], [True, True], (False, True), ARGMIN, 2)
    assert kept == [frozenset({0, 1}), frozenset({1})]


def test_last_round_reloads_stay_on_nvidia_and_go_on_amd_when_nothing_used_reads_them():
    # the index unused: nothing used reads it
    assert kept_reloads(["round"], [True], (True, False), ARGMIN, 2) == [frozenset({0, 1})]
    assert kept_reloads(["round"], [True], (True, False), ARGMIN, 2,
                        dead_shuffles_removed=True) == [frozenset({0})]
    # the values unused: the used index still reads them
    assert kept_reloads(["round"], [True], (False, True), ARGMIN, 2,
                        dead_shuffles_removed=True) == [frozenset({0, 1})]


def test_everything_is_kept_when_all_results_are_used_or_a_later_round_stores():
    assert kept_reloads(["round", "result"], [True, True], (), None, 2) == [frozenset({0, 1})] * 2
    assert kept_reloads(["round", "result"], [True, False], (False, True), None, 2,
                        dead_shuffles_removed=True) == [frozenset({0, 1}), frozenset({1})]


def test_kept_reloads_refuses_mismatched_arguments():
    with pytest.raises(LayoutError, match="shared flags"):
        kept_reloads(["round"], [], (True,), None, 1)
    with pytest.raises(LayoutError, match="result flags"):
        kept_reloads(["round"], [True], (True,), None, 2)
