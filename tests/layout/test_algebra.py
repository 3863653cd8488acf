"""linlayout.layout.algebra: compose, invert, pseudoinvert, invert_and_compose,
least_squares, ``*``, divide, quotient, free variables, contiguity, image and kernel.

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

from linlayout import LayoutError, LinearLayout, NotInvertibleError, Subspace

from tests.support import (
    BASE_LAYOUT,
    GF2,
    IN_NAMES,
    OUT_NAMES,
    all_inputs,
    bit_range,
    flat_in,
    gf,
    gf_matmul_equal,
    identity_on,
    images,
    invertible_layouts,
    layouts,
    random_layouts,
    reg_lane_layout,
    split_bits,
    surjective_layouts,
)


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


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


# ---------------------------------------------------------------------------- compose
@st.composite
def compose_chain(draw):
    L1 = draw(layouts(max_out_bits=3))
    # L2: in dims = L1's out dims (any order, sizes at least L1's), out dims x, y
    names = draw(st.permutations(list(L1.out_dims)))
    in2 = {n: L1.out_dims[n] << draw(st.integers(0, 1)) for n in names}
    out2 = {"x": 1 << draw(st.integers(0, 3)), "y": 1 << draw(st.integers(0, 3))}
    b2 = [s.bit_length() - 1 for s in out2.values()]
    L2 = LinearLayout({n: draw(images(b2, s.bit_length() - 1)) for n, s in in2.items()}, out2)
    in3 = {n: out2[n] for n in draw(st.permutations(list(out2)))}
    out3 = {"o": 1 << draw(st.integers(0, 4))}
    L3 = LinearLayout({n: draw(images([out3["o"].bit_length() - 1], s.bit_length() - 1))
                       for n, s in in3.items()}, out3)
    return L1, L2, L3


def _aligned_outer_matrix(inner: LinearLayout, outer: LinearLayout):
    """outer's matrix restricted to the columns that inner's flat outputs feed, in order."""
    offs, s = {}, 0
    for n, size in outer.in_dims.items():
        offs[n] = s
        s += size.bit_length() - 1
    idx = []
    for n, size in inner.out_dims.items():
        idx.extend(range(offs[n], offs[n] + size.bit_length() - 1))
    return outer.matrix[:, idx]


@SETTINGS
@given(compose_chain())
def test_compose_applies_inner_then_outer_and_is_associative(chain):
    L1, L2, L3 = chain
    c12 = L1.compose(L2)
    assert c12.in_dims == L1.in_dims and c12.out_dims == L2.out_dims
    assert c12.compose(L3) == L1.compose(L2.compose(L3))  # associativity
    for point in itertools.islice(all_inputs(L1), 64):
        assert c12.apply(point) == L2.apply(L1.apply(point))
    # matrix of the composite = outer @ inner over GF(2), outer aligned to inner's outputs
    assert gf_matmul_equal(_aligned_outer_matrix(L1, L2), L1.matrix, c12.matrix)
    # identities are neutral
    assert identity_on(L1.in_dims).compose(L1) == L1
    assert L1.compose(identity_on(L1.out_dims)) == L1


def test_compose_matches_triton_compose_tests():
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


def test_compose_fast_and_general_paths_agree():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randrange(1, 9)
        inner = LinearLayout.random({"lane": 1 << n}, {"dim0": 4, "dim1": 1 << (n - 2)}
                                    if n >= 2 else {"dim0": 1 << n}, kind="general", rng=rng)
        outer = LinearLayout.random(inner.out_dims, {"x": 1 << rng.randrange(0, 70)},
                                    kind="general", rng=rng)
        fast = inner.compose(outer)
        # the same outer with its in dims listed in the other order: the general path
        flipped = outer.transpose_ins(list(reversed(outer.in_dim_names)))
        assert inner.compose(flipped) == fast
        for x in itertools.islice(range(1 << n), 16):
            assert fast.apply({"lane": x}) == outer.apply(inner.apply({"lane": x}))


def test_compose_rejects_mismatched_dims():
    L = reg_lane_layout()
    with pytest.raises(LayoutError, match="dim0"):
        L.compose(LinearLayout({"dim0": [[1], [2]]}, {"x": 4}))  # dim1 missing
    with pytest.raises(LayoutError, match="'dim1'.*size 4"):
        L.compose(LinearLayout({"dim0": [[1], [2]], "dim1": [[4]]}, {"x": 8}))  # too small
    with pytest.raises(LayoutError, match="LinearLayout"):
        L.compose(42)


# ---------------------------------------------------------------------------- invert, pseudoinvert
@SETTINGS
@given(invertible_layouts())
def test_invert_is_a_two_sided_inverse(L):
    assert L.is_invertible
    inv = L.invert()
    assert inv.in_dims == L.out_dims and inv.out_dims == L.in_dims
    assert L.compose(inv) == identity_on(L.in_dims)
    assert inv.compose(L) == identity_on(L.out_dims)
    assert inv.invert() == L
    assert inv == L.pseudoinvert()
    if L.total_in_bits:
        assert np.array_equal(np.asarray(np.linalg.inv(gf(L))), inv.matrix)
    for point in itertools.islice(all_inputs(L), 64):
        assert inv.apply(L.apply(point)) == point


def test_invert_rejects_non_invertible():
    with pytest.raises(NotInvertibleError, match="not invertible"):
        LinearLayout({"register": [[1], [1]]}, {"dim0": 4}).invert()  # rank 1
    with pytest.raises(NotInvertibleError, match="not invertible"):
        LinearLayout({"register": [[1], [2], [0]]}, {"dim0": 4}).invert()  # not square
    with pytest.raises(LayoutError):  # NotInvertibleError is a LayoutError
        LinearLayout({"register": [[1]]}, {"dim0": 4}).invert()


@SETTINGS
@given(surjective_layouts())
def test_pseudoinvert_is_the_smallest_right_inverse(L):
    R = L.pseudoinvert()
    assert R.in_dims == L.out_dims and R.out_dims == L.in_dims
    assert R.compose(L) == identity_on(L.out_dims)  # L(R(y)) == y
    for y in all_inputs(R):
        assert L.apply(R.apply(y)) == y
    # no in dim is named like an out dim, so every R(y) is the smallest preimage
    # (free variables zero) in L's flat input order
    pre: dict[int, int] = {}
    for x in range(1 << L.total_in_bits):
        pre.setdefault(L.apply_flat(x), x)
    for j in range(L.total_out_bits):
        assert R.columns[j] == pre[1 << j]
    for y in range(1 << L.total_out_bits):
        assert R.apply_flat(y) == pre[y]


def test_pseudoinvert_picks_the_smallest_input_or_the_identity_dim():
    # register 1 and 2 both hold dim0 = 1: the smallest input is chosen
    L = LinearLayout({"register": [[1], [1], [2]]}, {"dim0": 4})
    R = L.pseudoinvert()
    assert R.bases == {"dim0": [[1], [4]]}
    # Triton: pseudoinvert = identity(out dims).invertAndCompose(L); an in dim named like an
    # out dim on which L is the identity maps back identically, even though register bit 0
    # would be the smaller preimage of dim0 = 1.
    L = LinearLayout(
        {"register": [[1, 0], [0, 1]], "dim0": [[1, 0], [2, 0]]}, {"dim0": 4, "dim1": 2}
    )
    R = L.pseudoinvert()
    assert R.out_dims == {"register": 4, "dim0": 4}
    assert R.apply({"dim0": 1}) == {"register": 0, "dim0": 1}
    assert R.apply({"dim0": 2}) == {"register": 0, "dim0": 2}
    assert R.apply({"dim1": 1}) == {"register": 2, "dim0": 0}
    assert R.compose(L) == identity_on(L.out_dims)


def test_pseudoinvert_rejects_non_surjective():
    with pytest.raises(NotInvertibleError, match="surjective"):
        LinearLayout({"register": [[1], [1]]}, {"dim0": 4}).pseudoinvert()


# ---------------------------------------------------------------------------- invert_and_compose, least_squares
@st.composite
def conversion_pair(draw):
    """(self, outer): same out dims (outer's possibly reordered), outer surjective."""
    n = draw(st.integers(0, 5))
    outs = draw(split_bits(n, OUT_NAMES))
    self_ = draw(layouts(out_dims=outs, max_in_bits=3))
    outer = draw(surjective_layouts(out_dims=outs, max_extra=3))
    # sometimes copy one of self's in dims into outer (same name, same images):
    # Triton's identity heuristic must then map it identically
    if self_.in_dims and draw(st.booleans()):
        name = draw(st.sampled_from(list(self_.in_dims)))
        sb = self_.bases
        nonzero = [img for img in sb[name] if any(img)]
        others = [k for k in sb if k != name]
        if nonzero and others and draw(st.booleans()):
            # another dim of self also reaches data of the copied dim (broadcast across dims)
            k = draw(st.sampled_from(others))
            sb[k] = sb[k] + [draw(st.sampled_from(nonzero))]
            self_ = LinearLayout(sb, outs)
        bases = outer.bases
        bases.pop(name, None)
        bases[name] = self_.bases[name]
        order = draw(st.permutations(list(bases)))
        copied = LinearLayout({k: bases[k] for k in order}, outs)
        if copied.is_surjective:
            outer = copied
    if draw(st.booleans()):
        outer = outer.transpose_outs(list(reversed(outer.out_dim_names)))
    return self_, outer


@SETTINGS
@given(conversion_pair())
def test_invert_and_compose_solves_outer_after_it_equals_self(pair):
    B, A = pair  # C = B.invert_and_compose(A): A(C(x)) == B(x)
    C = B.invert_and_compose(A)
    assert C.in_dims == B.in_dims and C.out_dims == A.in_dims
    for point in all_inputs(B):
        assert A.apply(C.apply(point)) == B.apply(point)
    # galois: A' @ C == B with A's out dims in B's order
    At = A.transpose_outs(B.out_dim_names)
    assert gf_matmul_equal(At.matrix, C.matrix, B.matrix)
    # identity dims: same name, same size, same images
    ident = [n for n in A.in_dims
             if n in B.in_dims and A.in_dims[n] == B.in_dims[n]
             and At.dim_columns(n) == B.dim_columns(n)]
    for n in ident:
        for i in range(B.in_dims[n].bit_length() - 1):
            expect = {k: 0 for k in A.in_dims}
            expect[n] = 1 << i
            assert C.apply({n: 1 << i}) == expect
    # the rest: free variables zero over A's non-identity dims first, then identity dims,
    # i.e. the smallest preimage when the identity dims count as the most significant bits
    offs, s = {}, 0
    for n, size in A.in_dims.items():
        offs[n] = s
        s += size.bit_length() - 1
    order = [n for n in A.in_dims if n not in ident] + [n for n in A.in_dims if n in ident]
    positions = [offs[n] + i for n in order for i in range(A.in_dims[n].bit_length() - 1)]

    def key(y: int) -> int:
        return sum(1 << k for k, p in enumerate(positions) if y >> p & 1)

    best: dict[int, int] = {}
    for y in range(1 << A.total_in_bits):
        out = At.apply_flat(y)
        if out not in best or key(y) < key(best[out]):
            best[out] = y
    others = [n for n in B.in_dims if n not in ident]
    for point in all_inputs(B.sublayout(others, B.out_dim_names)):
        assert C.apply_flat(flat_in(C, point)) == best[B.apply_flat(flat_in(B, point))]


def test_invert_and_compose_chooses_like_triton():
    outs = {"dim0": 4}
    # broadcast in self (register 4 holds nothing new) and duplicate images in outer
    # (lane 1 and lane 2 both hold dim0 = 1): the smallest input is chosen
    B = LinearLayout({"register": [[1], [2], [0]]}, outs)
    A = LinearLayout({"lane": [[1], [1], [2]]}, outs)
    C = B.invert_and_compose(A)
    assert C.bases == {"register": [[1], [4], [0]]}
    assert C.out_dims == {"lane": 8}
    # a dim both layouts have with identical images maps identically (Triton's heuristic),
    # even when it is a pure broadcast that lstsq alone would send to 0
    B = LinearLayout({"register": [[1], [2]], "warp": [[0], [0]]}, outs)
    A = LinearLayout({"lane": [[2], [1]], "warp": [[0], [0]]}, outs)
    C = B.invert_and_compose(A)
    assert C.bases == {"register": [[2, 0], [1, 0]], "warp": [[0, 1], [0, 2]]}
    assert C.out_dims == {"lane": 4, "warp": 4}
    # ... and identical `block` bases with real data do too
    outs2 = {"dim0": 4, "dim1": 2}
    B = LinearLayout({"register": [[1, 0], [2, 0]], "block": [[0, 1]]}, outs2)
    A = LinearLayout({"lane": [[2, 0], [1, 0]], "block": [[0, 1]]}, outs2)
    C = B.invert_and_compose(A)
    assert C.bases == {"register": [[2, 0], [1, 0]], "block": [[0, 1]]}
    # a dim with the same name but different images is solved, not copied
    A2 = LinearLayout({"lane": [[2, 0], [1, 0]], "block": [[0, 1]]}, outs2)
    B2 = LinearLayout({"register": [[1, 0], [2, 0]], "block": [[1, 1]]}, outs2)
    C2 = B2.invert_and_compose(A2)
    assert C2.apply({"block": 1}) == {"lane": 2, "block": 1}
    # out-dim order of outer does not matter
    assert B.invert_and_compose(A.transpose_outs(["dim1", "dim0"])) == C


def test_invert_and_compose_prefers_non_identity_dims():
    # register's image (1) is produced both by outer's lane 1 and by the identity dim block;
    # Triton's lstsq only looks at the non-identity dims, so lane is chosen.
    outs = {"dim0": 4}
    B = LinearLayout({"register": [[1]], "block": [[1]]}, outs)
    A = LinearLayout({"block": [[1]], "lane": [[1], [2]]}, outs)
    C = B.invert_and_compose(A)
    assert C.apply({"register": 1}) == {"block": 0, "lane": 1}
    assert C.apply({"block": 1}) == {"block": 1, "lane": 0}


def test_invert_and_compose_falls_back_where_triton_asserts():
    # block is identical in both (identity dim), but self's register reaches dim0 = 2, which
    # outer's only non-identity dim cannot produce without block's help: Triton asserts; we
    # fall back to using the identity dim's columns and still return a valid conversion.
    outs = {"dim0": 4}
    B = LinearLayout({"register": [[2]], "block": [[1]]}, outs)
    A = LinearLayout({"lane": [[3]], "block": [[1]]}, outs)
    C = B.invert_and_compose(A)
    assert C.apply({"block": 1}) == {"lane": 0, "block": 1}
    assert C.apply({"register": 1}) == {"lane": 1, "block": 1}
    for p in all_inputs(B):
        assert A.apply(C.apply(p)) == B.apply(p)


def test_invert_and_compose_matches_triton_tests():
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


def test_invert_and_compose_into_a_larger_15_bit_shared_layout():
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


def test_invert_and_compose_maps_an_identical_register_dim_identically():
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


def test_invert_and_compose_rejects_mismatched_or_non_surjective_outer():
    A = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
    with pytest.raises(LayoutError, match="dim1"):
        LinearLayout({"register": [[1]]}, {"dim0": 2}).invert_and_compose(A)
    with pytest.raises(LayoutError, match="'dim1'"):
        LinearLayout({"register": [[1, 0]]}, {"dim0": 2, "dim1": 4}).invert_and_compose(A)
    with pytest.raises(NotInvertibleError, match="surjective"):
        A.invert_and_compose(LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 2}))
    with pytest.raises(LayoutError, match="LinearLayout"):
        A.invert_and_compose("not a layout")


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
def test_least_squares_solves_with_free_variables_zero(pair):
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


# ---------------------------------------------------------------------------- product
def test_product_puts_outer_above_inner():
    I4, I2, I8 = (LinearLayout.identity_1d(s, "i", "o") for s in (4, 2, 8))
    assert I4 * I2 == I8
    Z2 = LinearLayout.zeros_1d(2, "i", "o")
    assert Z2.out_dims == {"o": 1}  # Triton zeros1D: out size 1
    assert Z2.in_dims == {"i": 2} and Z2.bases == {"i": [[0]]}
    P = I4 * Z2
    assert P.in_dims == {"i": 8} and P.out_dims == {"o": 4}
    assert [P.apply({"i": x})["o"] for x in range(8)] == [x % 4 for x in range(8)]
    Q = Z2 * I4
    assert Q.in_dims == {"i": 8} and Q.out_dims == {"o": 4}
    assert [Q.apply({"i": x})["o"] for x in range(8)] == [x // 2 for x in range(8)]
    R = LinearLayout.identity_1d(4, "i", "o1") * LinearLayout.identity_1d(8, "i", "o2")
    assert R.in_dims == {"i": 32} and R.out_dims == {"o1": 4, "o2": 8}
    assert list(R.out_dims) == ["o1", "o2"]
    for x in range(32):
        assert R.apply({"i": x}) == {"o1": x % 4, "o2": x // 4}
    # zeros_1d with an explicit out size multiplies into the product
    Z = LinearLayout.zeros_1d(2, "i", "o", out_dim_size=4)
    assert Z.out_dims == {"o": 4}
    assert (I2 * Z).out_dims == {"o": 8}
    assert (I2 * Z).apply({"i": 3}) == {"o": 1}


def test_product_matches_triton_multiply_tests():
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


@SETTINGS
@given(st.data())
def test_product_is_associative_and_stacks_inputs_and_outputs(data):
    # all in dims in one order (size-1 dims allowed) so that every product is defined;
    # sometimes subsets, where a product may be undefined (then both sides must agree it is)
    full = data.draw(st.booleans(), label="all in dims")
    kw = dict(max_in_bits=2, max_out_bits=2)
    if full:
        kw["in_names"] = IN_NAMES
    A = data.draw(layouts(ordered=True, **kw), label="A")
    B = data.draw(layouts(ordered=True, **kw), label="B")
    C = data.draw(layouts(ordered=True, **kw), label="C")
    sides = []
    for product in (lambda: (A * B) * C, lambda: A * (B * C)):
        try:
            sides.append(product())
        except LayoutError as exc:
            assert not full and "same relative order" in str(exc)
    if len(sides) == 2:
        # Triton's supremum merges dim names associatively only up to order (sup([w], [l])
        # is [w, l] but sup([w], [l, w]) is [l, w]); the maps are always the same, and
        # identical when every layout lists its dims in one global order.
        left, right = sides
        assert left == right.transpose_ins(left.in_dim_names).transpose_outs(left.out_dim_names)
        if full:
            assert left == right
    assert len(sides) == 2 or not full
    P = A * B
    # dims: Triton's supremum (LayoutUtils.cpp) — both orders kept, each name once, and
    # between shared dims inner's own dims before outer's; sizes multiply
    for merged, a, b in ((list(P.in_dims), list(A.in_dims), list(B.in_dims)),
                         (list(P.out_dims), list(A.out_dims), list(B.out_dims))):
        assert_is_supremum(merged, a, b)
    for n in P.in_dims:
        assert P.in_dims[n] == A.in_dims.get(n, 1) * B.in_dims.get(n, 1)
    for n in P.out_dims:
        assert P.out_dims[n] == A.out_dims.get(n, 1) * B.out_dims.get(n, 1)
    # pointwise: inner gets the low bits of each in dim, outer the high bits, and outer's
    # values are scaled by inner's out sizes
    for point in itertools.islice(all_inputs(P), 128):
        lo = {n: point[n] % A.in_dims[n] for n in A.in_dims}
        hi = {n: point[n] // A.in_dims.get(n, 1) for n in B.in_dims}
        a, b = A.apply(lo), B.apply(hi)
        expect = {n: a.get(n, 0) + b.get(n, 0) * A.out_dims.get(n, 1) for n in P.out_dims}
        assert P.apply(point) == expect
    assert P.rank == A.rank + B.rank


def assert_is_supremum(merged, a, b):
    assert sorted(merged) == sorted(set(a) | set(b))
    for part in (a, b):  # each order is a subsequence of the merged one
        assert [n for n in merged if n in part] == part
    for x, y in zip(merged, merged[1:]):  # no outer-only dim right before an inner-only dim
        assert not (x in b and x not in a and y in a and y not in b)


@settings(max_examples=150, deadline=None)
@given(random_layouts(max_out_bits=3), random_layouts(max_out_bits=3))
def test_product_with_three_out_dims_pointwise(A, B):
    """``*`` moves every out field arithmetically (``_spread``); check it pointwise."""
    try:
        P = A * B
    except LayoutError as exc:
        assert "same relative order" in str(exc)
        return
    rng = random.Random(0)
    for _ in range(16):
        point = {n: rng.randrange(s) for n, s in P.in_dims.items()}
        lo = {n: point[n] % A.in_dims[n] for n in A.in_dims}
        hi = {n: point[n] // A.in_dims.get(n, 1) for n in B.in_dims}
        a, b = A.apply(lo), B.apply(hi)
        assert P.apply(point) == {n: a.get(n, 0) + b.get(n, 0) * A.out_dims.get(n, 1)
                                  for n in P.out_dims}


def test_product_rejects_shared_dims_in_another_order():
    A = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    B = LinearLayout({"lane": [[1]], "register": [[2]]}, {"dim0": 4})
    with pytest.raises(LayoutError, match="same relative order"):
        A * B
    C = LinearLayout({"register": [[1, 0]]}, {"dim0": 2, "dim1": 1})
    D = LinearLayout({"register": [[1, 0]]}, {"dim1": 2, "dim0": 1})
    with pytest.raises(LayoutError, match="dim0"):
        C * D
    with pytest.raises(TypeError):
        A * 3


# ---------------------------------------------------------------------------- divide, quotient
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
def test_divide_undoes_a_product(pair, data):
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
        start = bit_range(A.in_dims, shared[0]).start
        cols = list(A.columns)
        cols[start] ^= 1 << bit
        assert LinearLayout.from_columns(cols, A.in_dims, A.out_dims).divide_left(B) is None


def test_divide_matches_triton_divide_tests():
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


def test_divide_matches_triton_2d_test():
    # Triton: Divide_2D
    l1 = L({"in1": [[1, 1], [2, 2], [0, 8], [0, 4]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l2 = L({"in1": [[1, 1], [2, 2]], "in2": [[0, 2], [0, 1]]}, ["out1", "out2"])
    l3 = L({"in1": [[0, 2], [0, 1]], "in2": []}, ["out1", "out2"])
    assert l2 * l3 == l1
    assert l1.divide_left(l2) == l3 and l1.divide_right(l3) == l2


def test_divide_eliminates_dims_like_triton():
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


def test_quotient_matches_triton_quotient_tests():
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


def test_quotient_by_a_trivial_dim_despite_mixing_elsewhere():
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
def test_quotient_exists_exactly_when_the_dims_are_trivial(case):
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


# ---------------------------------------------------------------------------- free variables, contiguity, image, kernel
def test_free_variable_masks_match_triton_tests():
    # Triton: FreeVariableMasks
    assert I1(4, "in", "out").free_variable_masks() == {"in": 0}
    assert Z1(16, "in", "out").free_variable_masks() == {"in": 0b1111}
    prod = I1(2, "in", "out") * Z1(4, "in", "out") * I1(4, "in", "out") * Z1(2, "in", "out")
    assert prod.free_variable_masks() == {"in": 0b100110}
    assert L({"in1": [[1, 1], [2, 2], [0, 0]], "in2": [[1, 0], [0, 1], [2, 0]]},
             ["out1", "out2"]).free_variable_masks() == {"in1": 0b100, "in2": 0b10}


@SETTINGS
@given(layouts())
def test_free_variable_masks_match_galois_pivots(Lx):
    masks = Lx.free_variable_masks()
    assert list(masks) == list(Lx.in_dims)
    free = 0
    for n in Lx.in_dims:
        r = bit_range(Lx.in_dims, n)
        free |= masks[n] << r.start if len(r) else 0
    basic = sum(1 << c for c in pivots(Lx.matrix))
    assert free == ((1 << Lx.total_in_bits) - 1) & ~basic
    assert bin(free).count("1") == Lx.total_in_bits - Lx.rank
    assert (free == 0) == Lx.is_injective
    # every reached output has exactly one preimage with the free bits zero
    outs = [Lx.apply_flat(x) for x in range(1 << Lx.total_in_bits) if x & free == 0]
    assert len(outs) == len(set(outs)) == 1 << Lx.rank


def test_num_consecutive_in_out_matches_triton_tests():
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


@SETTINGS
@given(layouts(max_in_bits=3))
def test_image_and_kernel_satisfy_rank_nullity(Lx):
    im, ker = Lx.image(), Lx.kernel()
    assert isinstance(im, Subspace) and isinstance(ker, Subspace)
    assert im.dim == Lx.rank and ker.dim + im.dim == Lx.total_in_bits  # rank–nullity
    assert {Lx.apply_flat(x) for x in range(1 << Lx.total_in_bits)} == set(im)
    assert all(Lx.apply_flat(x) == 0 for x in ker)
    if Lx.total_in_bits and Lx.total_out_bits:
        g = GF2(Lx.matrix)
        assert ker == Subspace.from_galois(g.null_space())
        assert im == Subspace.from_galois(g.column_space())


# ---------------------------------------------------------------------------- error messages
NAMED = [
    (lambda: BASE_LAYOUT.compose(L({"dim0": [[1], [2]]}, {"o": 4})), "'dim1'"),
    (lambda: BASE_LAYOUT.compose(L({"dim0": [[1]], "dim1": [[2], [1]]}, {"o": 4})), "'dim0'"),
    (lambda: BASE_LAYOUT.contiguous_elems_along("dim9"), "'dim9'"),
    (lambda: BASE_LAYOUT.contiguous_elems_along("dim0", "warp"), "'warp'"),
    (lambda: BASE_LAYOUT.least_squares(L({"r": [[1, 0]]}, {"dim0": 8, "dim1": 1})), "'dim0'"),
    (lambda: BASE_LAYOUT.least_squares(L({"r": [[1]]}, {"x": 2})), "'x'"),
    (lambda: L({"r": [[1, 0]]}, {"dim0": 4, "dim1": 4}).least_squares(
        L({"w": [[0, 1]]}, {"dim0": 4, "dim1": 4})), "w=1"),
    (lambda: BASE_LAYOUT.invert_and_compose(L({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 4})), "'dim0'"),
    (lambda: BASE_LAYOUT.invert_and_compose(L({"lane": [[1]]}, {"dim0": 4})), "'dim1'"),
]


@pytest.mark.parametrize("call, match", NAMED, ids=[m for _, m in NAMED])
def test_messages_name_the_offending_dim(call, match):
    with pytest.raises(LayoutError, match=match):
        call()
