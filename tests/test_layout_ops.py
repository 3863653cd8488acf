"""The full LinearLayout algebra (issue 3): Triton's documented values and the algebraic laws.

* Values marked ``# Triton: <test>`` are the expected results of the named test in Triton's
  ``unittest/Tools/LinearLayoutTest.cpp`` (triton-lang/triton), read for their values.
* Laws are hypothesis properties on small random layouts, each checked against an oracle that
  does not use the code under test: galois.GF2 matrix products and row reductions, or brute
  force over every input point.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import (
    LayoutParseError,
    LinearLayout,
    NotInvertibleError,
    NotLinearError,
    Subspace,
)

from strategies import (
    GF2,
    IN_NAMES,
    OUT_NAMES,
    all_inputs,
    flat_in,
    gf_matmul_equal,
    identity_on,
    images,
    layouts,
    split_bits,
    surjective_layouts,
)

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
L = LinearLayout
I1 = LinearLayout.identity_1d
Z1 = LinearLayout.zeros_1d


def pivots(matrix) -> list[int]:
    """Pivot columns of galois' reduced row-echelon form (the basic variables)."""
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        return []
    out = []
    for row in GF2(matrix).row_reduce():
        nz = np.flatnonzero(np.asarray(row))
        if nz.size:
            out.append(int(nz[0]))
    return out


def gf_rank(matrix) -> int:
    return 0 if 0 in matrix.shape else int(np.linalg.matrix_rank(GF2(matrix)))


# ============================================================================ Triton's values
def test_triton_multiply():
    # Triton: MultiplyOverlapping
    assert I1(4, "in", "out1") * I1(8, "in", "out2") == L(
        {"in": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]}, ["out1", "out2"])
    # Triton: MultiplyByZeros
    assert I1(8, "in", "out") * Z1(16, "in", "out") == L(
        {"in": [[1], [2], [4], [0], [0], [0], [0]]}, ["out"])
    # Triton: MultiplyZerosByDegenerate
    assert Z1(16, "in", "out1") * L({"in": []}, ["out2"]) == L(
        {"in": [[0, 0]] * 4}, ["out1", "out2"])
    # Triton: MultiplyDisjoint, MultiplyIdentity, MultiplyByEmpty
    assert I1(32, "in1", "out1") * I1(16, "in2", "out2") == L(
        {"in1": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "in2": [[0, 1], [0, 2], [0, 4], [0, 8]]},
        ["out1", "out2"])
    assert I1(16, "in", "out") * I1(32, "in", "out") == I1(512, "in", "out")
    assert L.empty() * I1(32, "in", "out") == I1(32, "in", "out")


def test_triton_supremum_of_dim_names():
    # Triton: SupremumTest.{IdenticalLists, NonUniqueSupremumFirstListPriority,
    # NonUniqueSupremumAlternate, DifferentLengths, OneEmptyList}, seen through operator*
    def sup(x, y):
        a = L({n: [] for n in x}, {})
        b = L({n: [] for n in y}, {})
        return list((a * b).in_dims)

    assert sup("abc", "abc") == list("abc")
    assert sup("ab", "ac") == list("abc")
    assert sup("ab", "bc") == list("abc")
    assert sup("abc", "ad") == list("abcd")
    assert sup("ab", "") == list("ab") and sup("", "") == []
    assert sup("ab", "cb") == list("acb")  # outer's own dims go before a later shared dim


def test_triton_compose():
    # Triton: Compose — the composite is not surjective
    l1 = L({"in1": [[1, 1], [0, 1]], "in2": [[1, 0], [1, 2]]}, ["out1", "out2"])
    l2 = L({"out1": [[2, 2], [1, 0]], "out2": [[1, 1], [2, 1]]}, ["out3", "out4"])
    c = l1.compose(l2)
    assert c == L({"in1": [[3, 3], [1, 1]], "in2": [[2, 2], [0, 3]]}, {"out3": 4, "out4": 4})
    assert not c.is_surjective
    # Triton: Compose4D
    l1 = L({"in0": [[1, 0, 0, 0], [2, 0, 0, 0]],
            "in1": [[4, 0, 0, 0], [8, 0, 0, 0], [16, 0, 0, 0], [32, 0, 0, 0]],
            "in2": [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]], "in3": []},
           ["out3", "out0", "out1", "out2"])
    l2 = L({"out3": [[1, 0, 0, 0], [2, 0, 0, 0]] + [[0, 0, 0, 0]] * 4,
            "out0": [[0, 1, 0, 0]], "out1": [[0, 0, 1, 0]],
            "out2": [[0, 0, 0, 1], [0, 0, 0, 2]]}, ["out3", "out2", "out1", "out0"])
    assert l1.compose(l2) == L(
        {"in0": [[1, 0, 0, 0], [2, 0, 0, 0]], "in1": [[0, 0, 0, 0]] * 4,
         "in2": [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]], "in3": []},
        {"out3": 4, "out2": 2, "out1": 2, "out0": 4})


def test_triton_invert_and_compose():
    # Triton: InvertAndCompose_Simple
    l1, l2 = L({"in1": [[2], [1], [4]]}, ["out"]), L({"in2": [[4], [1], [2]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == L({"in1": [[4], [2], [1]]}, ["in2"]) and c.compose(l2) == l1
    # Triton: InvertAndCompose_NonInjective
    l2 = L({"in2": [[0], [2], [1], [4]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == L({"in1": [[2], [4], [8]]}, {"in2": 16}) and not c.is_surjective
    assert c.compose(l2) == l1
    # Triton: InvertAndCompose_BroadcastedInDim
    l1 = L({"in1": [[2], [1], [4]], "in2": [[0]]}, ["out"])
    l2 = L({"in": [[4], [1], [2]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == L({"in1": [[4], [2], [1]], "in2": [[0]]}, ["in"]) and c.compose(l2) == l1
    # Triton: InvertAndCompose_BroadcastAtBeginningOfSecond
    l1 = L({"in": [[1], [2], [4]]}, ["out"])
    l2 = L({"in": [[0], [4], [1], [2]]}, ["out"])
    assert l1.invert_and_compose(l2) == L({"in": [[4], [8], [2]]}, {"in": 16})
    # Triton: InvertAndCompose_BroadcastAtEndOfSecond
    l1 = L({"in1": [[1], [2], [4]]}, ["out"])
    l2 = L({"in2": [[4], [1], [2], [0]]}, ["out"])
    assert l1.invert_and_compose(l2) == L({"in1": [[2], [4], [1]]}, {"in2": 16})
    # Triton: InvertAndCompose_BroadcastBeginningAndEndOfSecond
    l1 = L({"in": [[1], [2], [4]]}, ["out"])
    l2 = L({"in": [[0], [4], [1], [2], [0]]}, ["out"])
    c = l1.invert_and_compose(l2)
    assert c == L({"in": [[4], [8], [2]]}, {"in": 32}) and c.compose(l2) == l1
    # Triton: InvertAndCompose_BroadcastedDims, InvertAndCompose_BroadcastedDims2
    l1 = L({"in1": [[1], [2], [4]], "in2": [[0]]}, ["out"])
    l2 = L({"in3": [[1], [2], [4]], "in4": [[0]]}, ["out"])
    assert l1.invert_and_compose(l2) == L({"in1": [[1, 0], [2, 0], [4, 0]], "in2": [[0, 0]]},
                                          {"in3": 8, "in4": 2})
    a = L({"in1": [[1], [2]], "in2": [[0]]}, ["out"])
    b = L({"in3": [[2], [1]], "in4": [[0]]}, ["out"])
    assert a.invert_and_compose(b) == L({"in1": [[2, 0], [1, 0]], "in2": [[0, 0]]},
                                        {"in3": 4, "in4": 2})
    # Triton: InvertAndCompose_Multidim (out dims in different orders)
    l1 = L({"in1": [[1, 0], [0, 1], [2, 0], [3, 2]], "in2": [[2, 2]]}, ["out1", "out2"])
    l2 = L({"in3": [[0, 1], [1, 0], [0, 0], [0, 2], [2, 1]]}, ["out2", "out1"])
    assert l1.invert_and_compose(l2).compose(l2) == l1.transpose_outs(l2.out_dim_names)
    assert l2.invert_and_compose(l1).compose(l1) == l2.transpose_outs(l1.out_dim_names)


def test_triton_invert_and_compose_15_bit_register_to_shared():
    # Triton: InvertAndComposeLargerA — registers of a 64x64 tile into a 15-bit swizzled
    # shared layout of 256x128 (outer larger than self in both out dims)
    reg = L({"register": [[0, 1], [0, 2], [0, 4], [0, 32], [32, 0]],
             "lane": [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
             "warp": [[8, 0], [16, 0]], "block": []}, ["dim0", "dim1"])
    shared = L({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 8],
                           [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]],
                "block": []}, ["dim0", "dim1"])
    expected = L({"register": [[1, 0], [2, 0], [4, 0], [32, 0], [4096, 0]],
                  "lane": [[8, 0], [16, 0], [136, 0], [272, 0], [544, 0]],
                  "warp": [[1024, 0], [2048, 0]], "block": []}, {"offset": 32768, "block": 1})
    assert shared.total_in_bits == 15 and shared.out_dims == {"dim0": 256, "dim1": 128}
    assert reg.invert_and_compose(shared) == expected
    assert reg.compose(shared.invert()) == expected


def test_triton_invert_and_compose_identity_in_dim():
    # Triton: InvertAndCompose_IdentityInDim — registers identical in both layouts
    outs = [f"dim{i}" for i in range(9)]

    def unit(j):
        return [1 if k == j else 0 for k in range(9)]

    src = L({"register": [unit(8), unit(7)], "lane": [unit(6), unit(5), unit(4), unit(3),
                                                      unit(2)],
             "warp": [unit(1), unit(0)], "block": []}, outs)
    dst = L({"register": [unit(8), unit(7)], "lane": [unit(0), unit(1), unit(2), unit(3),
                                                      unit(4)],
             "warp": [unit(5), unit(6)], "block": []}, outs)
    cvt = dst.invert_and_compose(src)
    k = {"register": 3, "lane": 0, "warp": 2, "block": 0}
    assert dst.apply(k) == src.apply(cvt.apply(k))
    assert cvt.sublayout("register", "register") == I1(4, "register", "register")


def test_triton_free_variable_masks():
    # Triton: FreeVariableMasks
    assert I1(4, "in", "out").free_variable_masks() == {"in": 0}
    assert Z1(16, "in", "out").free_variable_masks() == {"in": 0b1111}
    prod = I1(2, "in", "out") * Z1(4, "in", "out") * I1(4, "in", "out") * Z1(2, "in", "out")
    assert prod.free_variable_masks() == {"in": 0b100110}
    assert L({"in1": [[1, 1], [2, 2], [0, 0]], "in2": [[1, 0], [0, 1], [2, 0]]},
             ["out1", "out2"]).free_variable_masks() == {"in1": 0b100, "in2": 0b10}


def test_triton_num_consecutive_in_out():
    # Triton: NumConsecutiveInOut
    assert I1(1, "in", "out").num_consecutive_in_out() == 1
    assert I1(4, "in", "out").num_consecutive_in_out() == 4
    assert (I1(4, "in1", "out") * I1(8, "in2", "out")).num_consecutive_in_out() == 4
    assert (I1(4, "in", "out1") * I1(8, "in", "out2")).num_consecutive_in_out() == 4
    assert (Z1(4, "in", "out1") * I1(4, "in", "out2")).num_consecutive_in_out() == 1
    assert L({"in": [[1], [2], [4], [9]]}, ["out"]).num_consecutive_in_out() == 1
    assert L({"in": [[1], [2], [4], [10]]}, ["out"]).num_consecutive_in_out() == 2
    assert L({"in": [[1], [4], [2]]}, ["out"]).num_consecutive_in_out() == 2
    assert L({"in": [[1], [2], [4]], "in2": [[8], [18]]}, ["out"]).num_consecutive_in_out() == 2


def test_triton_divide():
    # Triton: Divide_Basic
    b, c = I1(8, "in", "out"), Z1(16, "in", "out")
    assert (b * c).divide_left(b) == c and (b * c).divide_right(c) == b
    assert (c * b).divide_left(c) == b and (c * b).divide_right(b) == c
    # Triton: Divide_NonMatchingDims — the divisor has an in dim the dividend lacks
    a = I1(32, "in", "out")
    b = L({"in": [[1], [2], [4], [8]], "extra": [[0]]}, ["out"])
    assert a.divide_left(b) is None and a.divide_right(b) is None
    # Triton: Divide_Simple
    a, b, c = I1(8, "in", "out"), I1(4, "in", "out"), I1(2, "in", "out")
    assert a.divide_left(b) == c and a.divide_right(b) == c
    assert a.divide_left(a) == I1(1, "in", "out") == a.divide_right(a)


def test_triton_divide_2d():
    # Triton: Divide_2D
    l1 = L({"in1": [[1, 1], [2, 2], [0, 8], [0, 4]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l2 = L({"in1": [[1, 1], [2, 2]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l3 = L({"in1": [[0, 2], [0, 1]], "in2": []}, ["out1", "out2"])
    assert l2 * l3 == l1
    assert l1.divide_left(l2) == l3 and l1.divide_right(l3) == l2


def test_triton_divide_eliminating_dims():
    # Triton: Divide_EliminateInDim
    l1 = L({"in2": [[0, 1], [1, 0]], "in1": [[2, 0], [0, 2]]}, ["out1", "out2"])
    l2 = L({"in2": [[0, 1], [1, 0]]}, ["out1", "out2"])
    l3 = L({"in2": [], "in1": [[1, 0], [0, 1]]}, ["out1", "out2"])
    assert l2 * l3 == l1 and l1.divide_left(l2) == l3
    l2 = L({"in2": [[0, 1], [1, 0]], "in1": []}, ["out1", "out2"])
    l3 = L({"in1": [[1, 0], [0, 1]]}, ["out1", "out2"])
    assert l2 * l3 == l1 and l1.divide_right(l3) == l2
    l4 = L({"in1": [[0, 1], [0, 2]], "in2": []}, ["out1", "out2"])
    l5 = L({"in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    l6 = L({"in1": [], "in2": []}, ["out1", "out2"])
    assert l5 * l6 == l4 and l4.divide_left(l5) == l6 == l4.divide_right(l5)
    l7 = L({"in1": [], "in2": [[0, 1]], "in3": []}, ["out1", "out2"])
    l8 = L({"in2": [[0, 1]]}, ["out1", "out2"])
    l9 = L({"in1": [], "in2": [], "in3": []}, ["out1", "out2"])
    assert l8 * l9 == l7 and l7.divide_left(l8) == l9 == l7.divide_right(l8)
    # Triton: Divide_EliminateOutDim
    l1 = L({"in2": [[1, 0], [1, 0]], "in1": [[2, 0], [0, 1]]}, ["out1", "out2"])
    l2 = L({"in2": [[1], [1]]}, ["out1"])
    l3 = L({"in2": [], "in1": [[1, 0], [0, 1]]}, ["out1", "out2"])
    assert l2 * l3 == l1 and l1.divide_left(l2) == l3
    l1 = L({"in2": [[1, 0], [0, 2]], "in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    l2 = L({"in2": [[1]], "in1": [[1]]}, ["out2"])
    l3 = L({"in2": [[1, 0]], "in1": [[0, 1]]}, ["out1", "out2"])
    assert l3 * l2 == l1 and l1.divide_right(l2) == l3
    l4 = L({"in1": [[0, 1], [0, 2]]}, ["out1", "out2"])
    l5 = L({}, ["out1"])
    assert l5 * l4 == l4 and l4.divide_left(l5) == l4 == l4.divide_right(l5)


def test_triton_quotient():
    # Triton: QuotientOneDimension
    layout = L({"dim1": [[1, 0]], "dim2": [[0, 0]]}, {"dim1": 2, "dim2": 1})
    q = layout.quotient(["dim1"])
    assert q == Z1(2, "dim2", "dim2")
    assert q.quotient(["dim2"]) is None  # dim2 is zero, not the identity
    # Triton: QuotientSeveralDimensions
    layout = L({"dim1": [[1, 0], [2, 0], [4, 0]], "dim2": [[0, 1], [0, 2]]}, ["dim1", "dim2"])
    assert layout.quotient(["dim1", "dim2"]) == L.empty()
    # Triton: QuotientEmptyLayout
    assert L.empty().quotient(["dim1"]) is None
    # Triton: QuotientIdentityMultipleDimensions
    layout = I1(8, "dim1", "dim1") * I1(2, "dim2", "dim2") * I1(4, "dim3", "dim3")
    q = layout.quotient(["dim1", "dim3"])
    assert q == I1(2, "dim2", "dim2") and q.quotient(["dim2"]) == L.empty()


def test_triton_quotient_several_trivial_dims():
    # Triton: QuotientMultipleTrivialDimensions — dim2 is trivial despite dim1/dim3 mixing
    layout = L({"dim1": [[1, 0, 2], [2, 0, 1]], "dim2": [[0, 1, 0], [0, 2, 0], [0, 4, 0]],
                "dim3": [[0, 0, 1], [0, 0, 2]]}, ["dim1", "dim2", "dim3"])
    q = layout.quotient(["dim2"])
    assert q == L({"dim1": [[1, 2], [2, 1]], "dim3": [[0, 1], [0, 2]]}, ["dim1", "dim3"])
    assert layout.is_trivial_over(["dim2"]) and not layout.is_trivial_over(["dim1"])
    # ... but as soon as dim3 reaches dim2 it is not
    layout = L({"dim1": [[1, 0, 2], [2, 0, 1]], "dim2": [[0, 1, 0], [0, 2, 0], [0, 4, 0]],
                "dim3": [[0, 1, 1], [0, 0, 2]]}, ["dim1", "dim2", "dim3"])
    assert layout.quotient(["dim2"]) is None and not layout.is_trivial_over("dim2")


def test_triton_structure_ops():
    # Triton: TransposeIns, TransposeOuts, TransposeOutsDegenerate
    prod = I1(32, "in1", "out1") * I1(16, "in2", "out2")
    assert prod.transpose_ins(["in2", "in1"]) == L(
        {"in2": [[0, 1], [0, 2], [0, 4], [0, 8]],
         "in1": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, ["out1", "out2"])
    assert prod.transpose_outs(["out2", "out1"]) == L(
        {"in1": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
         "in2": [[1, 0], [2, 0], [4, 0], [8, 0]]}, ["out2", "out1"])
    degenerate = (I1(32, "in1", "out1") * I1(1, "in2", "out2")).transpose_outs(["out2", "out1"])
    assert degenerate == L({"in1": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "in2": []},
                           ["out2", "out1"])
    # Triton: ReshapeIns, ReshapeInsDegenerateIn, ReshapeInsDegenerateOut,
    # ReshapeInsDegenerateFirstOut
    ll = L({"in1": [[1], [4], [8]], "in2": [[2]]}, ["out"])
    assert ll.reshape_ins([("in3", 2), ("in4", 8)]) == L({"in3": [[1]], "in4": [[4], [8], [2]]},
                                                         ["out"])
    ll = L({"in1": [[1], [4], [2]], "in2": []}, ["out"])
    assert ll.reshape_ins({"in3": 4, "in4": 2}) == L({"in3": [[1], [4]], "in4": [[2]]}, ["out"])
    ll = L({"in1": [[1], [4]], "in2": [[2]]}, ["out"])
    assert ll.reshape_ins({"in3": 8, "in4": 1}) == L({"in3": [[1], [4], [2]], "in4": []}, ["out"])
    assert ll.reshape_ins({"in3": 1, "in4": 8}) == L({"in3": [], "in4": [[1], [4], [2]]}, ["out"])
    # Triton: ReshapeOuts, ReshapeOutsDegenerateIn, ReshapeOutsDegenerateOut
    ll = L({"in1": [[1], [4], [8]], "in2": [[3]]}, ["out"])
    assert ll.reshape_outs({"out2": 2, "out3": 8}) == L(
        {"in1": [[1, 0], [0, 2], [0, 4]], "in2": [[1, 1]]}, ["out2", "out3"])
    ll = L({"in1": [[1], [4], [2]], "in2": []}, ["out"])
    assert ll.reshape_outs({"out1": 4, "out2": 2}) == L(
        {"in1": [[1, 0], [0, 1], [2, 0]], "in2": []}, ["out1", "out2"])
    ll = L({"in1": [[1], [4]], "in2": [[2]]}, ["out"])
    assert ll.reshape_outs({"out1": 8, "out2": 1}) == L(
        {"in1": [[1, 0], [4, 0]], "in2": [[2, 0]]}, ["out1", "out2"])
    # Triton: FlattenIns, FlattenOuts, FlattenInsEdgeCases, FlattenOutsEdgeCases
    ll = L({"in1": [[1], [4], [8]], "in2": [[2]]}, ["out"])
    assert ll.flatten_ins() == L({"in1": [[1], [4], [8], [2]]}, ["out"])
    ll = L({"in1": [[1, 0], [4, 1], [8, 4]], "in2": [[3, 2]]}, {"out1": 16, "out2": 8})
    assert ll.flatten_outs() == L({"in1": [[1], [4 + 16], [8 + 4 * 16]], "in2": [[3 + 2 * 16]]},
                                  {"out1": 128})
    for edge in (L({"in1": []}, ["out"]), L({"in1": []}, {}), L({}, ["out"]), L.empty()):
        assert edge.flatten_ins() == edge and edge.flatten_outs() == edge
    # Triton: Sublayout, SublayoutIsZero
    l1 = L({"in1": [[1, 0], [0, 1], [2, 0]], "in2": [[0, 1]]}, ["out1", "out2"])
    assert l1.sublayout(["in2", "in1"], ["out1"]) == L({"in1": [[1], [0], [2]], "in2": [[0]]},
                                                       ["out1"])
    assert l1.sublayout(["in2", "in1"], ["out2", "out1"]) == l1
    assert l1.sublayout([], []) == L.empty()
    assert l1.sublayout(["in1"], []) == L({"in1": [[], [], []]}, {})
    assert l1.sublayout([], ["out1"]) == L({}, {"out1": 4})
    ident = I1(4, "in", "out")
    assert not ident.sublayout_is_zero(["in"], ["out"])
    assert ident.sublayout_is_zero([], ["out"]) and ident.sublayout_is_zero(["in"], [])
    l1 = L({"in1": [[0, 1], [0, 2]], "in2": [[1, 1]]}, ["out1", "out2"])
    assert l1.sublayout_is_zero(["in1"], ["out1"]) and not l1.sublayout_is_zero("in1", "out2")
    assert not l1.sublayout_is_zero(["in2"], ["out1"])
    # Triton: Apply, Identity1D, Zeros1D, EmptyToString
    ll = L({"in1": [[4, 2], [2, 1], [1, 0]], "in2": [[1, 2], [2, 1]]}, {"out1": 8, "out2": 4})
    assert ll.apply({"in2": 0, "in1": 1}) == {"out1": 4, "out2": 2}
    assert ll.apply({"in2": 1, "in1": 0}) == {"out1": 1, "out2": 2}
    assert I1(32, "testIns", "testOuts") == L({"testIns": [[1], [2], [4], [8], [16]]},
                                              ["testOuts"])
    assert Z1(32, "ins", "outs") == L({"ins": [[0]] * 5}, ["outs"])
    assert str(L.empty()) == "(empty layout)"


def test_strided_1d_and_triton_header_examples():
    # Triton header (LinearLayout.h): strided1D(size, stride) has bases i*stride, out size
    # size*stride; the 1D "transpose" example has bases [4, 8, 1, 2].
    S = L.strided_1d(8, 4, "lane", "dim0")
    assert S.out_dims == {"dim0": 32} and S.bases == {"lane": [[4], [8], [16]]}
    assert [S.apply({"lane": x})["dim0"] for x in range(8)] == [4 * x for x in range(8)]
    assert L.strided_1d(4, 1, "i", "o") == I1(4, "i", "o")
    assert not S.is_surjective
    T = L({"in": [[4], [8], [1], [2]]}, ["out"])
    assert [T.apply({"in": x})["out"] for x in range(16)] == [
        0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]


# ============================================================================ structure laws
@SETTINGS
@given(layouts(), st.data())
def test_transpose_and_reshape(Lx, data):
    ins = data.draw(st.permutations(list(Lx.in_dims)), label="in order")
    outs = data.draw(st.permutations(list(Lx.out_dims)), label="out order")
    T = Lx.transpose_ins(ins).transpose_outs(outs)
    assert list(T.in_dims) == ins and list(T.out_dims) == outs
    for p in itertools.islice(all_inputs(Lx), 64):
        y = Lx.apply(p)
        assert T.apply(p) == {n: y[n] for n in outs}
    assert T.transpose_ins(list(Lx.in_dims)).transpose_outs(list(Lx.out_dims)) == Lx
    # galois: transposing permutes the matrix's columns (in bits) and rows (out bits)
    col_perm = [flat for n in ins for flat in _bit_range(Lx.in_dims, n)]
    row_perm = [flat for n in outs for flat in _bit_range(Lx.out_dims, n)]
    assert np.array_equal(T.matrix, Lx.matrix[np.ix_(row_perm, col_perm)])
    # reshape keeps the flat map; reshaping back restores the layout
    new_in = data.draw(split_bits(Lx.total_in_bits, ["a", "b", "c"]), label="new ins")
    new_out = data.draw(split_bits(Lx.total_out_bits, ["x", "y"]), label="new outs")
    R = Lx.reshape_ins(new_in).reshape_outs(new_out)
    assert R.columns == Lx.columns and R.in_dims == new_in and R.out_dims == new_out
    assert R.reshape_ins(Lx.in_dims).reshape_outs(Lx.out_dims) == Lx
    assert Lx.reshape_ins(list(new_in.items())) == Lx.reshape_ins(new_in)


def _bit_range(dims: dict, name: str) -> range:
    start = 0
    for n, size in dims.items():
        if n == name:
            return range(start, start + size.bit_length() - 1)
        start += size.bit_length() - 1
    raise KeyError(name)


@SETTINGS
@given(layouts(), st.data())
def test_resize_rename_squeeze(Lx, data):
    if Lx.in_dims:
        name = data.draw(st.sampled_from(list(Lx.in_dims)), label="in dim")
        size = Lx.in_dims[name]
        grown = Lx.resize_in_dim(name, size * 4)
        assert grown.in_dims[name] == size * 4 and grown.dim_columns(name)[-2:] == (0, 0)
        for p in itertools.islice(all_inputs(grown), 64):  # new inputs are broadcasts
            assert grown.apply(p) == Lx.apply({**p, name: p[name] % size})
        assert grown.resize_in_dim(name, size) == Lx
        assert grown.rank == Lx.rank and grown.image() == Lx.image()
        shrunk = Lx.resize_in_dim(name, max(1, size // 2))
        assert shrunk.dim_columns(name) == Lx.dim_columns(name)[:max(0, size.bit_length() - 2)]
        renamed = Lx.rename_in_dim(name, "renamed")
        assert renamed.rename_in_dim("renamed", name) == Lx
        assert renamed.columns == Lx.columns and "renamed" in renamed.in_dims
    out = data.draw(st.sampled_from(list(Lx.out_dims)), label="out dim")
    osize = Lx.out_dims[out]
    big = Lx.resize_out_dim(out, osize * 2)
    assert big.resize_out_dim(out, osize) == Lx
    for p in itertools.islice(all_inputs(Lx), 64):
        assert big.apply(p) == Lx.apply(p)
    small = Lx.resize_out_dim(out, max(1, osize // 2))
    for name, imgs in Lx.bases.items():  # Triton resizeOutDim: too-large values become 0
        j = list(Lx.out_dims).index(out)
        for img, new in zip(imgs, small.bases[name]):
            want = list(img)
            want[j] = img[j] if img[j] < max(1, osize // 2) else 0
            assert new == want
    assert Lx.rename_out_dim(out, "o").rename_out_dim("o", out) == Lx
    sq = Lx.squeeze()
    assert all(s > 1 for s in sq.in_dims.values()) and all(s > 1 for s in sq.out_dims.values())
    assert sq.columns == Lx.columns
    ones_in = [n for n, s in Lx.in_dims.items() if s == 1]
    ones_out = [n for n, s in Lx.out_dims.items() if s == 1]
    assert Lx.squeeze_ins(ones_in).squeeze_outs(ones_out) == sq


@SETTINGS
@given(st.data())
def test_concat_and_sublayout(data):
    outs = {"dim0": 1 << data.draw(st.integers(0, 3)), "dim1": 1 << data.draw(st.integers(0, 3))}
    A = data.draw(layouts(in_names=["register", "lane"], out_dims=outs), label="A")
    B = data.draw(layouts(in_names=["warp"], out_dims=outs), label="B")
    C = A.concat_ins(B)
    assert C.sublayout(["register", "lane"], list(outs)) == A
    assert C.sublayout(["warp"], list(outs)) == B
    assert np.array_equal(C.matrix, np.hstack([A.matrix, B.matrix]))
    for p in itertools.islice(all_inputs(C), 64):
        a = A.apply({n: p[n] for n in A.in_dims})
        b = B.apply({n: p[n] for n in B.in_dims})
        assert C.apply(p) == {n: a[n] ^ b[n] for n in outs}
    d_cols = data.draw(st.lists(st.integers(0, 3), min_size=A.total_in_bits,
                                max_size=A.total_in_bits), label="D columns")
    D = LinearLayout.from_columns(d_cols, A.in_dims, {"x": 4})
    E = A.concat_outs(D)
    assert E.sublayout(list(A.in_dims), list(outs)) == A
    assert E.sublayout(list(A.in_dims), ["x"]) == D
    assert np.array_equal(E.matrix, np.vstack([A.matrix, D.matrix]))
    # sublayout_is_zero is the zero test of the matrix block
    ins = data.draw(st.lists(st.sampled_from(list(C.in_dims)), unique=True), label="ins")
    sel_out = data.draw(st.lists(st.sampled_from(list(outs)), unique=True), label="outs")
    rows = [r for n in C.out_dims if n in sel_out for r in _bit_range(C.out_dims, n)]
    cols = [c for n in C.in_dims if n in ins for c in _bit_range(C.in_dims, n)]
    assert C.sublayout_is_zero(ins, sel_out) == (not C.matrix[np.ix_(rows, cols)].any())


@SETTINGS
@given(layouts())
def test_remove_zero_bases(Lx):
    R = Lx.remove_zero_bases()
    assert all(R.columns) and R.image() == Lx.image()
    assert sorted(R.columns) == sorted(c for c in Lx.columns if c)
    for n in Lx.in_dims:
        one = Lx.remove_zero_bases(n)
        assert one.dim_columns(n) == tuple(c for c in Lx.dim_columns(n) if c)
        assert all(one.dim_columns(m) == Lx.dim_columns(m) for m in Lx.in_dims if m != n)


# ============================================================================ algebra laws
@st.composite
def dividend(draw):
    """(B, C): B with an ordered subset of the dims, C with all of them (sizes may be 1)."""
    b_ins = [n for n in IN_NAMES if draw(st.booleans())]
    b_outs = {n: 1 << draw(st.integers(0, 2)) for n in OUT_NAMES if draw(st.booleans())}
    B = draw(layouts(in_names=b_ins, out_dims=b_outs, max_in_bits=2))
    c_outs = {n: 1 << draw(st.integers(0, 2)) for n in OUT_NAMES}
    C = draw(layouts(in_names=list(IN_NAMES), out_dims=c_outs, max_in_bits=2))
    return B, C


@SETTINGS
@given(dividend(), st.data())
def test_divide_round_trips(pair, data):
    B, C = pair
    A = B * C
    assert A.divide_left(B) == C  # C has all of A's dims, so it is exactly Triton's answer
    A2 = C * B
    assert A2.divide_right(B) == C
    # the answer is always sound: whenever a quotient comes back, the product is the dividend
    flip = data.draw(st.integers(0, max(0, A.total_in_bits - 1)), label="column")
    bit = data.draw(st.integers(0, max(0, A.total_out_bits - 1)), label="bit")
    cols = list(A.columns)
    if cols and A.total_out_bits:
        cols[flip] ^= 1 << bit
    A3 = LinearLayout.from_columns(cols, A.in_dims, A.out_dims)
    Q = A3.divide_left(B)
    assert Q is None or B * Q == A3
    Q = A3.divide_right(C)
    assert Q is None or Q * C == A3
    # a dividend whose leading block differs from the divisor has no left quotient
    shared = [n for n in B.in_dims if B.in_dims[n] > 1]
    if shared and A.total_out_bits:
        start = _bit_range(A.in_dims, shared[0]).start
        cols = list(A.columns)
        cols[start] ^= 1 << bit
        assert LinearLayout.from_columns(cols, A.in_dims, A.out_dims).divide_left(B) is None


@st.composite
def lstsq_pair(draw):
    """(A, B) with Im(B) ⊆ Im(A) (B = X ∘ A for a random X), or sometimes an arbitrary B."""
    outs = draw(split_bits(draw(st.integers(0, 5)), OUT_NAMES))
    A = draw(layouts(out_dims=outs, max_in_bits=3))
    if draw(st.booleans()) or not A.in_dims:
        return A, draw(layouts(out_dims=outs, max_in_bits=3))
    x_bits = [s.bit_length() - 1 for s in A.in_dims.values()]
    X = LinearLayout({"register": draw(images(x_bits, draw(st.integers(0, 4))))}, A.in_dims)
    return A, X.compose(A)


@SETTINGS
@given(lstsq_pair())
def test_least_squares(pair):
    A, B = pair
    full = np.hstack([A.matrix, B.matrix])
    solvable = gf_rank(full) == gf_rank(A.matrix)
    if not solvable:
        with pytest.raises(NotInvertibleError, match="not in the image"):
            A.least_squares(B)
        return
    X = A.least_squares(B)
    assert X.in_dims == B.in_dims and X.out_dims == A.in_dims
    assert gf_matmul_equal(A.matrix, X.matrix, B.matrix)  # A ∘ X == B, checked by galois
    # free variables zero: X only uses the pivot (basic) columns of A's RREF
    basic = sum(1 << c for c in pivots(A.matrix))
    assert all(c & ~basic == 0 for c in X.columns)
    for p in itertools.islice(all_inputs(B), 32):
        assert A.apply(X.apply(p)) == B.apply(p)


@SETTINGS
@given(st.data())
def test_invert_and_compose_with_larger_outer(data):
    outs = data.draw(split_bits(data.draw(st.integers(1, 6)), OUT_NAMES), label="outer outs")
    outer = data.draw(surjective_layouts(out_dims=outs, max_extra=2), label="outer")
    small = {n: max(1, s >> data.draw(st.integers(0, 2))) for n, s in outs.items()}
    me = data.draw(layouts(out_dims=small, max_in_bits=3), label="self")
    C = me.invert_and_compose(outer)
    assert C.in_dims == me.in_dims and C.out_dims == outer.in_dims
    for p in itertools.islice(all_inputs(me), 64):
        assert outer.apply(C.apply(p)) == me.apply(p)


@SETTINGS
@given(layouts())
def test_free_variable_masks_match_galois_pivots(Lx):
    masks = Lx.free_variable_masks()
    assert list(masks) == list(Lx.in_dims)
    free = 0
    for n in Lx.in_dims:
        r = _bit_range(Lx.in_dims, n)
        free |= masks[n] << r.start if len(r) else 0
    basic = sum(1 << c for c in pivots(Lx.matrix))
    assert free == ((1 << Lx.total_in_bits) - 1) & ~basic
    assert bin(free).count("1") == Lx.total_in_bits - Lx.rank
    assert (free == 0) == Lx.is_injective
    # every reached output has exactly one preimage with the free bits zero
    outs = [Lx.apply_flat(x) for x in range(1 << Lx.total_in_bits) if x & free == 0]
    assert len(outs) == len(set(outs)) == 1 << Lx.rank


def brute_consecutive(Lx: LinearLayout, in_dim: str, out_dim: str) -> int:
    """The largest V with L(aV + v, …) = L(aV, …) + (v along out_dim) for all inputs."""
    best = 1
    for k in range(1, Lx.in_bits(in_dim) + 1):
        V = 1 << k
        for p in all_inputs(Lx):
            v = p[in_dim] % V
            y, y0 = Lx.apply(p), Lx.apply({**p, in_dim: p[in_dim] - v})
            if y[out_dim] != y0[out_dim] + v or any(
                    y[n] != y0[n] for n in Lx.out_dims if n != out_dim):
                return best
        best = V
    return best


@SETTINGS
@given(layouts(max_in_bits=2, max_out_bits=2), st.data())
def test_num_consecutive_and_contiguity_by_brute_force(Lx, data):
    if Lx.in_dims and data.draw(st.booleans(), label="vectorised prefix"):
        # a leading identity block makes runs longer than 1 common
        k = data.draw(st.integers(1, 2), label="log2 run")
        Lx = I1(1 << k, Lx.in_dim_names[0], Lx.out_dim_names[0]) * Lx
    if Lx.in_dims:
        assert Lx.num_consecutive_in_out() == brute_consecutive(
            Lx, Lx.in_dim_names[0], Lx.out_dim_names[0])
        in_dim = data.draw(st.sampled_from(list(Lx.in_dims)), label="in dim")
        out_dim = data.draw(st.sampled_from(list(Lx.out_dims)), label="out dim")
        assert Lx.contiguous_elems_along(out_dim, in_dim) == brute_consecutive(Lx, in_dim, out_dim)
    else:
        assert Lx.num_consecutive_in_out() == 1 == Lx.contiguous_elems_along("dim0")


@st.composite
def maybe_trivial(draw):
    """L0 * identity on block (and cta), sometimes with one basis perturbed."""
    L0 = draw(layouts(in_names=[n for n in ("register", "lane") if draw(st.booleans())],
                      max_in_bits=2, max_out_bits=2))
    extra = {"block": 1 << draw(st.integers(0, 2))}
    if draw(st.booleans()):
        extra["cta"] = 1 << draw(st.integers(0, 1))
    Lx = L0 * identity_on(extra)
    if draw(st.booleans()) and Lx.total_in_bits and Lx.total_out_bits:
        cols = list(Lx.columns)
        i = draw(st.integers(0, len(cols) - 1))
        cols[i] ^= 1 << draw(st.integers(0, Lx.total_out_bits - 1))
        Lx = LinearLayout.from_columns(cols, Lx.in_dims, Lx.out_dims)
    dims = draw(st.sampled_from([["block"], list(extra), ["register"], ["dim0"]]))
    return L0, Lx, dims


@SETTINGS
@given(maybe_trivial())
def test_quotient_by_brute_force(case):
    L0, Lx, dims = case
    both = all(d in Lx.in_dims and Lx.out_dims.get(d) == Lx.in_dims[d] for d in dims)
    trivial = both and all(
        all(Lx.apply(p)[d] == p[d] for d in dims)
        and {n: v for n, v in Lx.apply(p).items() if n not in dims}
        == {n: v for n, v in Lx.apply({k: v for k, v in p.items() if k not in dims}).items()
            if n not in dims}
        for p in all_inputs(Lx))
    assert Lx.is_trivial_over(dims) == trivial
    Q = Lx.quotient(dims)
    assert (Q is None) == (not trivial)
    if Q is not None:
        assert list(Q.in_dims) == [n for n in Lx.in_dims if n not in dims]
        for p in itertools.islice(all_inputs(Lx), 64):
            rest = {k: v for k, v in p.items() if k not in dims}
            assert Q.apply(rest) == {n: v for n, v in Lx.apply(p).items() if n not in dims}
    if Lx == L0 * identity_on({d: Lx.in_dims[d] for d in ("block", "cta") if d in Lx.in_dims}):
        assert Lx.quotient([d for d in ("block", "cta") if d in Lx.in_dims]) == L0


@SETTINGS
@given(layouts(max_in_bits=3))
def test_image_kernel_rank_nullity(Lx):
    im, ker = Lx.image(), Lx.kernel()
    assert isinstance(im, Subspace) and isinstance(ker, Subspace)
    assert im.dim == Lx.rank and ker.dim + im.dim == Lx.total_in_bits  # rank–nullity
    assert {Lx.apply_flat(x) for x in range(1 << Lx.total_in_bits)} == set(im)
    assert all(Lx.apply_flat(x) == 0 for x in ker)
    if Lx.total_in_bits and Lx.total_out_bits:
        g = GF2(Lx.matrix)
        assert ker == Subspace.from_galois(g.null_space())
        assert im == Subspace.from_galois(g.column_space())


# ============================================================================ construction
@SETTINGS
@given(layouts(max_in_bits=3))
def test_from_function_round_trip(Lx):
    assert LinearLayout.from_function(Lx.apply, Lx.in_dims, Lx.out_dims) == Lx
    # outputs as sequences (and ints for one out dim) are accepted too
    seq = LinearLayout.from_function(lambda p: list(Lx.apply(p).values()), Lx.in_dims,
                                     list(Lx.out_dims.items()))
    assert seq == Lx


@SETTINGS
@given(layouts(max_in_bits=3), st.data())
def test_from_function_rejects_non_linear(Lx, data):
    wide = [n for n, s in Lx.out_dims.items() if s > 1]
    if Lx.total_in_bits < 2 or not wide:
        return
    bad_x = data.draw(st.integers(3, (1 << Lx.total_in_bits) - 1).filter(
        lambda x: x & (x - 1)), label="an input that is not a power of two")
    out = data.draw(st.sampled_from(wide), label="out dim")

    def fn(p):  # linear except at bad_x (the bases are unchanged)
        y = Lx.apply(p)
        if flat_in(Lx, p) == bad_x:
            y[out] ^= 1
        return y

    with pytest.raises(NotLinearError, match="not linear"):
        LinearLayout.from_function(fn, Lx.in_dims, Lx.out_dims)


def test_from_function_examples_and_sampling():
    # XOR swizzle (col ^ row) is linear; + is not
    sw = LinearLayout.from_function(lambda p: p["i"] ^ (p["i"] >> 3), {"i": 64}, {"o": 64})
    assert [sw.apply({"i": x})["o"] for x in range(64)] == [x ^ (x >> 3) for x in range(64)]
    with pytest.raises(NotLinearError, match="'i': 3"):
        LinearLayout.from_function(lambda p: (p["i"] * 3) % 8, {"i": 8}, {"o": 8})
    # wide inputs are sampled (2^20 points would be slow); the same seed gives the same check
    wide = LinearLayout.from_function(lambda p: p["i"] ^ (p["i"] >> 5) & 1, {"i": 1 << 20},
                                      {"o": 1 << 20}, max_checks=256, rng=1)
    assert wide.apply({"i": 12345})["o"] == 12345 ^ (12345 >> 5) & 1


@SETTINGS
@given(st.integers(0, 2**32), st.sampled_from(["general", "unit"]), st.booleans(),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_random_layouts(seed, kind, surjective, broadcast):
    ins = {"register": 4, "lane": 32, "warp": 4}
    outs = {"dim0": 16, "dim1": 8}
    Lx = LinearLayout.random(ins, outs, kind=kind, surjective=surjective, broadcast=broadcast,
                             rng=seed)
    assert Lx.in_dims == ins and Lx.out_dims == outs
    assert Lx == LinearLayout.random(ins, outs, kind=kind, surjective=surjective,
                                     broadcast=broadcast, rng=random.Random(seed))
    if surjective:
        assert Lx.is_surjective
    if kind == "unit":
        nonzero = [c for c in Lx.columns if c]
        assert all(c & (c - 1) == 0 for c in nonzero) and len(set(nonzero)) == len(nonzero)
        if broadcast == 0.0:
            assert len(nonzero) == min(Lx.total_in_bits, Lx.total_out_bits)
    if broadcast == 1.0 and not surjective:
        assert not any(Lx.columns)
    small = LinearLayout.random({"offset": 8}, {"dim0": 8}, surjective=True, rng=seed)
    assert small.is_invertible


# ============================================================================ text formats
@SETTINGS
@given(layouts())
def test_parse_round_trips(Lx):
    assert LinearLayout.parse(repr(Lx)) == Lx
    assert LinearLayout.parse(str(Lx)) == Lx
    assert LinearLayout.parse("\n" + str(Lx) + "\n") == Lx  # Triton's toString leads with \n


def test_parse_examples_and_errors():
    text = ("\n - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n - lane=1 -> (1, 0)\n"
            " - block is a size 1 dimension\nwhere out dims are: [dim0 (size 2), dim1 (size 4)]")
    Lx = LinearLayout.parse(text)
    assert Lx == L({"register": [[0, 1], [0, 2]], "lane": [[1, 0]], "block": []},
                   {"dim0": 2, "dim1": 4})
    assert LinearLayout.parse("(empty layout)") == L.empty()
    assert LinearLayout.parse("(empty layout with out-dims [dim0 (size 4)])") == L({}, {"dim0": 4})
    assert LinearLayout.parse(" - r=1 -> ()\nwhere out dims are: []") == L({"r": [[]]}, {})
    assert LinearLayout.parse("LinearLayout({'r': [[1]]}, out_dims={'o': 2})") == I1(2, "r", "o")
    bad = [
        "LinearLayout({'r': [[1]]}, out_dims=__import__('os'))",  # not a literal: never run
        "LinearLayout(",
        "Layout({'r': [[1]]})",
        "LinearLayout({'r': [[1]]}, sizes={'o': 2})",
        " - r=2 -> (1)\nwhere out dims are: [o (size 4)]",  # out of order
        " - r=1 -> (1)\n   r=1 -> (2)\nwhere out dims are: [o (size 4)]",
        " - r=1 -> (x)\nwhere out dims are: [o (size 4)]",
        " - r=1 -> (1)\n - r=1 -> (2)\nwhere out dims are: [o (size 4)]",  # r twice
        " - r=1 -> (1)",
        " - r=1 -> (1)\nwhere out dims are: [o size 4]",
        "what is this",
        "",
    ]
    for text in bad:
        with pytest.raises(LayoutParseError):
            LinearLayout.parse(text)
    with pytest.raises(LayoutParseError):
        LinearLayout.parse(42)
    # well formed but invalid: the value is too large for the out dim
    with pytest.raises(Exception) as exc:
        LinearLayout.parse(" - r=1 -> (4)\nwhere out dims are: [o (size 4)]")
    assert "'o'" in str(exc.value)


def test_to_dict_is_the_cli_json_format():
    import json

    Lx = L({"register": [[1, 0]], "lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    text = json.dumps(Lx.to_dict())
    assert json.loads(text) == {"bases": {"register": [[1, 0]], "lane": [[0, 1]]},
                                "out_dims": {"dim0": 2, "dim1": 2}}
    assert LinearLayout.from_dict(json.loads(text)) == Lx
