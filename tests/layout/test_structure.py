"""linlayout.layout.structure: transposes, reshapes, flattening, resizing, renaming,
squeezing, concatenation, sublayouts and zero-basis removal.

Triton's values (``# Triton: <test>``, from ``unittest/Tools/LinearLayoutTest.cpp``) and
hypothesis laws checked pointwise and against the layout's matrix (a transpose permutes its
rows and columns, a concatenation stacks blocks).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout

from tests.support import (
    BASE_LAYOUT,
    OUT_NAMES,
    all_inputs,
    bit_range,
    flat_in,
    layouts,
    reg_lane_layout,
    split_bits,
)


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


L = LinearLayout
I1 = LinearLayout.identity_1d


@SETTINGS
@given(layouts())
def test_flatten_and_transpose_outs_keep_the_map(L):
    F = L.flatten_outs()
    s0 = L.out_dims["dim0"]
    assert F.out_dims == {"dim0": L.out_dims["dim0"] * L.out_dims["dim1"]}
    FI = L.flatten_ins()
    T = L.transpose_outs(["dim1", "dim0"])
    assert list(T.out_dims) == ["dim1", "dim0"]
    assert T.transpose_outs(["dim0", "dim1"]) == L
    assert L.transpose_outs(["dim0", "dim1"]) == L
    for point in itertools.islice(all_inputs(L), 64):
        y = L.apply(point)
        assert F.apply(point) == {"dim0": y["dim0"] + s0 * y["dim1"]}  # dim0 in the low bits
        assert T.apply(point) == {"dim1": y["dim1"], "dim0": y["dim0"]}
        if L.in_dims:
            first = next(iter(L.in_dims))
            assert FI.apply({first: flat_in(L, point)}) == y
    if L.in_dims:
        assert FI.in_dims == {next(iter(L.in_dims)): 1 << L.total_in_bits}
    else:
        assert FI == L


def test_flatten_puts_the_first_dim_lowest():
    L = reg_lane_layout()
    assert L.flatten_outs().bases == {"register": [[1], [2]], "lane": [[4], [8]]}
    assert L.flatten_outs().out_dims == {"dim0": 16}
    assert L.flatten_ins().bases == {"register": [[1, 0], [2, 0], [0, 1], [0, 2]]}
    assert L.flatten_ins().in_dims == {"register": 16}


def test_transpose_outs_needs_a_permutation():
    L = reg_lane_layout()
    for bad in (["dim0"], ["dim0", "dim0"], ["dim0", "dim2"], ["dim0", "dim1", "dim2"],
                ["dim0", 1], "dim0"):
        with pytest.raises(LayoutError, match="permutation"):
            L.transpose_outs(bad)


def test_transpose_reshape_flatten_sublayout_match_triton_tests():
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


@SETTINGS
@given(layouts(), st.data())
def test_transpose_permutes_the_matrix_and_reshape_keeps_the_columns(Lx, data):
    ins = data.draw(st.permutations(list(Lx.in_dims)), label="in order")
    outs = data.draw(st.permutations(list(Lx.out_dims)), label="out order")
    T = Lx.transpose_ins(ins).transpose_outs(outs)
    assert list(T.in_dims) == ins and list(T.out_dims) == outs
    for p in itertools.islice(all_inputs(Lx), 64):
        y = Lx.apply(p)
        assert T.apply(p) == {n: y[n] for n in outs}
    assert T.transpose_ins(list(Lx.in_dims)).transpose_outs(list(Lx.out_dims)) == Lx
    # galois: transposing permutes the matrix's columns (in bits) and rows (out bits)
    col_perm = [flat for n in ins for flat in bit_range(Lx.in_dims, n)]
    row_perm = [flat for n in outs for flat in bit_range(Lx.out_dims, n)]
    assert np.array_equal(T.matrix, Lx.matrix[np.ix_(row_perm, col_perm)])
    # reshape keeps the flat map; reshaping back restores the layout
    new_in = data.draw(split_bits(Lx.total_in_bits, ["a", "b", "c"]), label="new ins")
    new_out = data.draw(split_bits(Lx.total_out_bits, ["x", "y"]), label="new outs")
    R = Lx.reshape_ins(new_in).reshape_outs(new_out)
    assert R.columns == Lx.columns and R.in_dims == new_in and R.out_dims == new_out
    assert R.reshape_ins(Lx.in_dims).reshape_outs(Lx.out_dims) == Lx
    assert Lx.reshape_ins(list(new_in.items())) == Lx.reshape_ins(new_in)


@SETTINGS
@given(layouts(), st.data())
def test_resize_rename_and_squeeze_keep_the_map(Lx, data):
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
def test_concat_stacks_matrix_blocks_and_sublayout_takes_them_back(data):
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
    rows = [r for n in C.out_dims if n in sel_out for r in bit_range(C.out_dims, n)]
    cols = [c for n in C.in_dims if n in ins for c in bit_range(C.in_dims, n)]
    assert C.sublayout_is_zero(ins, sel_out) == (not C.matrix[np.ix_(rows, cols)].any())


@SETTINGS
@given(st.data())
def test_sublayout_restricts_the_map_in_layout_order(data):
    L = data.draw(layouts(), label="L")
    ins = data.draw(st.lists(st.sampled_from(list(L.in_dims) or ["x"]), unique=True)
                    if L.in_dims else st.just([]), label="ins")
    outs = data.draw(st.lists(st.sampled_from(OUT_NAMES), unique=True), label="outs")
    S = L.sublayout(ins, outs)
    assert list(S.in_dims) == [n for n in L.in_dims if n in ins]  # layout's order
    assert list(S.out_dims) == [n for n in L.out_dims if n in outs]
    for point in itertools.islice(all_inputs(S), 64):
        full = L.apply(point)  # other in dims are 0
        assert S.apply(point) == {n: full[n] for n in S.out_dims}
    assert L.sublayout(L.in_dims, L.out_dims) == L


def test_sublayout_examples_and_unknown_dims():
    L = reg_lane_layout()
    S = L.sublayout(["lane"], ["dim1"])
    assert S.bases == {"lane": [[1], [2]]} and S.out_dims == {"dim1": 4}
    assert L.sublayout("register", "dim0").bases == {"register": [[1], [2]]}
    with pytest.raises(LayoutError, match="'warp'"):
        L.sublayout(["warp"], ["dim0"])
    with pytest.raises(LayoutError, match="'dim2'"):
        L.sublayout(["lane"], ["dim2"])


@SETTINGS
@given(layouts())
def test_remove_zero_bases_keeps_the_image(Lx):
    R = Lx.remove_zero_bases()
    assert all(R.columns) and R.image() == Lx.image()
    assert sorted(R.columns) == sorted(c for c in Lx.columns if c)
    for n in Lx.in_dims:
        one = Lx.remove_zero_bases(n)
        assert one.dim_columns(n) == tuple(c for c in Lx.dim_columns(n) if c)
        assert all(one.dim_columns(m) == Lx.dim_columns(m) for m in Lx.in_dims if m != n)


NAMED = [
    (lambda: BASE_LAYOUT.resize_in_dim("warp", 4), "'warp'"),
    (lambda: BASE_LAYOUT.resize_in_dim("register", 3), "'register'"),
    (lambda: BASE_LAYOUT.resize_out_dim("dim2", 4), "'dim2'"),
    (lambda: BASE_LAYOUT.resize_out_dim("dim1", 6), "'dim1'"),
    (lambda: BASE_LAYOUT.rename_in_dim("warp", "x"), "'warp'"),
    (lambda: BASE_LAYOUT.rename_in_dim("register", "lane"), "'lane'"),
    (lambda: BASE_LAYOUT.rename_out_dim("dim0", "dim1"), "'dim1'"),
    (lambda: BASE_LAYOUT.squeeze_ins("register"), "'register'"),
    (lambda: BASE_LAYOUT.squeeze_outs("dim0"), "'dim0'"),
    (lambda: BASE_LAYOUT.concat_ins(BASE_LAYOUT), "'register'"),
    (lambda: BASE_LAYOUT.concat_ins(L({"warp": [[1]]}, {"dim0": 4})), "'dim1'"),
    (lambda: BASE_LAYOUT.concat_outs(BASE_LAYOUT), "'dim0'"),
    (lambda: BASE_LAYOUT.concat_outs(L({"lane": [[1]]}, {"x": 2})), "'register'"),
    (lambda: BASE_LAYOUT.sublayout("warp", "dim0"), "'warp'"),
    (lambda: BASE_LAYOUT.sublayout_is_zero("register", "dim9"), "'dim9'"),
    (lambda: BASE_LAYOUT.remove_zero_bases("warp"), "'warp'"),
    (lambda: BASE_LAYOUT.transpose_ins(["register", "lane"]), "'block'"),
    (lambda: BASE_LAYOUT.transpose_outs(["dim0"]), "'dim1'"),
    (lambda: BASE_LAYOUT.reshape_ins({"x": 8}), "'x'"),
    (lambda: BASE_LAYOUT.reshape_outs({"y": 3}), "'y'"),
]


@pytest.mark.parametrize("call, match", NAMED, ids=[m for _, m in NAMED])
def test_messages_name_the_offending_dim(call, match):
    with pytest.raises(LayoutError, match=match):
        call()
