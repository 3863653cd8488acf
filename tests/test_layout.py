"""LinearLayout: the issue contract, Triton's documented semantics, algebraic laws (hypothesis,
cross-checked with galois.GF2 matrix products and brute-force enumeration) and error paths."""

from __future__ import annotations

import copy
import itertools
import pickle

import galois
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import linlayout
from linlayout import LayoutError, LinearLayout, NotInvertibleError

from strategies import (
    IN_NAMES,
    OUT_NAMES,
    all_inputs,
    flat_in,
    gf,
    gf_matmul_equal,
    identity_on,
    images,
    invertible_layouts,
    layouts,
    split_bits,
    surjective_layouts,
    unflat,
)

GF2 = galois.GF2
SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def contract_layout() -> LinearLayout:
    return linlayout.LinearLayout(
        {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]},
        out_dims={"dim0": 4, "dim1": 4},
    )


# ============================================================================ the contract
def test_issue_contract():
    L = contract_layout()
    assert L.bases == {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]}
    assert L.in_dims == {"register": 4, "lane": 4}
    assert L.out_dims == {"dim0": 4, "dim1": 4}
    assert L.apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}
    assert list(L.apply({"register": 3, "lane": 1})) == ["dim0", "dim1"]  # out-dim order
    assert L.apply({}) == {"dim0": 0, "dim1": 0}  # missing in dims are 0
    assert L.in_dim_names == ("register", "lane") and L.out_dim_names == ("dim0", "dim1")
    assert L.rank == 4 and L.is_surjective and L.is_injective and L.is_invertible


def test_module_docstring_example():
    L = LinearLayout({"register": [[1]], "lane": [[2]]}, out_dims={"dim0": 4})
    assert L.apply({"register": 1, "lane": 1}) == {"dim0": 3}
    assert L.matrix.tolist() == [[1, 0], [0, 1]]


def test_apply_is_xor_of_bases():
    L = LinearLayout({"register": [[3, 1], [1, 2]]}, out_dims={"dim0": 4, "dim1": 4})
    assert L.apply({"register": 1}) == {"dim0": 3, "dim1": 1}
    assert L.apply({"register": 2}) == {"dim0": 1, "dim1": 2}
    assert L.apply({"register": 3}) == {"dim0": 2, "dim1": 3}


def test_immutability():
    L = contract_layout()
    b = L.bases
    b["register"][0][0] = 3
    b["lane"].append([1, 1])
    b["warp"] = []
    assert L.bases == {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]}
    d = L.in_dims
    d["warp"] = 2
    o = L.out_dims
    o["dim0"] = 8
    assert L.in_dims == {"register": 4, "lane": 4} and L.out_dims == {"dim0": 4, "dim1": 4}
    # public attributes are read-only properties and no attribute can be added (slots); the
    # private "_" slots are deliberately unguarded (a __setattr__ guard costs ~0.3 µs per
    # layout built, a fifth of a small compose)
    for attr, value in [("bases", {}), ("out_dims", {}), ("columns", ()), ("rank", 0),
                        ("foo", 1)]:
        with pytest.raises(AttributeError):
            setattr(L, attr, value)
    with pytest.raises(AttributeError):
        del L.bases
    assert L == contract_layout()
    # input containers are copied too
    src = {"register": [[1, 0]]}
    outs = {"dim0": 2, "dim1": 1}
    M = LinearLayout(src, out_dims=outs)
    src["register"][0][0] = 0
    outs["dim0"] = 4
    assert M.bases == {"register": [[1, 0]]} and M.out_dims == {"dim0": 2, "dim1": 1}


def test_copy_and_pickle():
    L = contract_layout()
    for other in (copy.copy(L), copy.deepcopy(L), pickle.loads(pickle.dumps(L))):
        assert other == L and hash(other) == hash(L)
        assert other.apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}


def test_inferring_constructor():
    L = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [4, 0]]}, ["dim0", "dim1"])
    assert L.out_dims == {"dim0": 8, "dim1": 2}  # next power of two above every value
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [[1], [4]]}, ["dim0"])  # size 8, but 2 is never reached
    assert LinearLayout({}) == LinearLayout.empty()
    assert LinearLayout({"register": []}, ["dim0"]).out_dims == {"dim0": 1}


def test_require_surjective():
    LinearLayout({"register": [[1]]}, {"dim0": 2}, require_surjective=True)
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [[1]]}, {"dim0": 4}, require_surjective=True)


def test_size_one_dims_and_empty():
    L = LinearLayout({"register": [], "lane": [[1, 0]]}, out_dims={"dim0": 2, "dim1": 1})
    assert L.in_dims == {"register": 1, "lane": 2}
    assert L.apply({"register": 0, "lane": 1}) == {"dim0": 1, "dim1": 0}
    E = LinearLayout.empty()
    assert E.in_dims == {} and E.out_dims == {} and E.bases == {}
    assert E.apply({}) == {}
    assert E.total_in_bits == 0 and E.total_out_bits == 0 and E.is_invertible
    assert E * L == L and L * E == L


# ============================================================================ matrix / galois
def test_matrix_layout_and_dtype():
    L = LinearLayout(
        {"register": [[1, 0], [0, 2]], "lane": [[3, 1]]}, out_dims={"dim0": 4, "dim1": 4}
    )
    m = L.matrix
    assert isinstance(m, np.ndarray) and m.dtype == np.uint8
    assert m.shape == (4, 3)  # out bits × in bits
    # rows: dim0 bit0, dim0 bit1, dim1 bit0, dim1 bit1; columns: register0, register1, lane0
    assert m.tolist() == [
        [1, 0, 1],
        [0, 0, 1],
        [0, 0, 1],
        [0, 1, 0],
    ]
    assert LinearLayout.empty().matrix.shape == (0, 0)


@SETTINGS
@given(layouts())
def test_matrix_galois_round_trip(L):
    m = L.matrix
    assert m.shape == (L.total_out_bits, L.total_in_bits) and m.dtype == np.uint8
    g = L.to_galois()
    assert isinstance(g, galois.FieldArray) and type(g).characteristic == 2
    assert np.array_equal(np.asarray(g), m)
    assert LinearLayout.from_galois(g, L.in_dims, L.out_dims) == L
    assert LinearLayout.from_matrix(m, L.in_dims, L.out_dims) == L
    assert LinearLayout.from_matrix(m.tolist(), L.in_dims, L.out_dims) == L
    assert LinearLayout.from_columns(L.columns, L.in_dims, L.out_dims) == L
    # the matrix acts on bit vectors exactly like apply
    assert LinearLayout.from_matrix(np.zeros((0, 0)), {}, {}) == LinearLayout.empty()
    for point in itertools.islice(all_inputs(L), 16):
        x = flat_in(L, point)
        xv = GF2([(x >> i) & 1 for i in range(L.total_in_bits)])
        y = g @ xv if L.total_in_bits else GF2(np.zeros(L.total_out_bits, dtype=np.uint8))
        flat = sum(int(b) << i for i, b in enumerate(y))
        assert unflat(L.out_dims, flat) == L.apply(point)


def test_from_matrix_errors():
    with pytest.raises(LayoutError, match="shape"):
        LinearLayout.from_matrix(np.zeros((2, 3)), {"register": 4}, {"dim0": 4})
    for bad in ([[2, 0], [0, 1]], [[0.5, 0], [0, 1]], [[-1, 0], [0, 1]], [[257, 0], [0, 1]],
                [["1", "0"], ["0", "1"]], [[None, 0], [0, 1]]):
        with pytest.raises(LayoutError, match="0 or 1"):
            LinearLayout.from_matrix(bad, {"register": 4}, {"dim0": 4})
    expect = LinearLayout.identity_1d(4, "register", "dim0")
    for good in ([[1.0, 0.0], [0.0, 1.0]], np.eye(2, dtype=bool), np.eye(2, dtype=np.int64)):
        assert LinearLayout.from_matrix(good, {"register": 4}, {"dim0": 4}) == expect
    with pytest.raises(LayoutError, match="'dim0'"):
        LinearLayout.from_matrix([[1]], {"register": 2}, {"dim0": 3})
    with pytest.raises(LayoutError, match="columns"):
        LinearLayout.from_columns([1, 2], {"register": 2}, {"dim0": 4})
    with pytest.raises(LayoutError, match="does not fit"):
        LinearLayout.from_columns([4], {"register": 2}, {"dim0": 4})


# ============================================================================ compose
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
def test_compose_laws(chain):
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


# ============================================================================ invert
@SETTINGS
@given(invertible_layouts())
def test_invert_laws(L):
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


# ============================================================================ pseudoinvert
@SETTINGS
@given(surjective_layouts())
def test_pseudoinvert_right_inverse(L):
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


def test_pseudoinvert_broadcast_and_triton_identity_heuristic():
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


# ============================================================================ invert_and_compose
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
def test_invert_and_compose(pair):
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


def test_invert_and_compose_triton_semantics():
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


def test_invert_and_compose_where_triton_heuristic_fails():
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


def test_invert_and_compose_errors():
    A = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
    with pytest.raises(LayoutError, match="dim1"):
        LinearLayout({"register": [[1]]}, {"dim0": 2}).invert_and_compose(A)
    with pytest.raises(LayoutError, match="'dim1'"):
        LinearLayout({"register": [[1, 0]]}, {"dim0": 2, "dim1": 4}).invert_and_compose(A)
    with pytest.raises(NotInvertibleError, match="surjective"):
        A.invert_and_compose(LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 2}))
    with pytest.raises(LayoutError, match="LinearLayout"):
        A.invert_and_compose("not a layout")


# ============================================================================ operator*
def test_triton_product_examples():
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


def test_identity_and_zeros_1d():
    assert LinearLayout.identity_1d(1, "i", "o").in_dims == {"i": 1}
    assert LinearLayout.identity_1d(8, "i", "o").bases == {"i": [[1], [2], [4]]}
    for bad in (0, 3, -4, True, 2.0):
        with pytest.raises(LayoutError):
            LinearLayout.identity_1d(bad, "i", "o")
        with pytest.raises(LayoutError):
            LinearLayout.zeros_1d(bad, "i", "o")
    with pytest.raises(LayoutError, match="out_dim_size"):
        LinearLayout.zeros_1d(2, "i", "o", out_dim_size=3)
    with pytest.raises(LayoutError, match="non-empty strings"):
        LinearLayout.identity_1d(2, "", "o")


@SETTINGS
@given(st.data())
def test_product_laws(data):
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


def test_product_order_errors():
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


# ============================================================================ reshaping
@SETTINGS
@given(layouts())
def test_flatten_and_transpose(L):
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


def test_flatten_examples():
    L = contract_layout()
    assert L.flatten_outs().bases == {"register": [[1], [2]], "lane": [[4], [8]]}
    assert L.flatten_outs().out_dims == {"dim0": 16}
    assert L.flatten_ins().bases == {"register": [[1, 0], [2, 0], [0, 1], [0, 2]]}
    assert L.flatten_ins().in_dims == {"register": 16}


def test_transpose_outs_errors():
    L = contract_layout()
    for bad in (["dim0"], ["dim0", "dim0"], ["dim0", "dim2"], ["dim0", "dim1", "dim2"],
                ["dim0", 1], "dim0"):
        with pytest.raises(LayoutError, match="permutation"):
            L.transpose_outs(bad)


@SETTINGS
@given(st.data())
def test_sublayout(data):
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


def test_sublayout_examples_and_errors():
    L = contract_layout()
    S = L.sublayout(["lane"], ["dim1"])
    assert S.bases == {"lane": [[1], [2]]} and S.out_dims == {"dim1": 4}
    assert L.sublayout("register", "dim0").bases == {"register": [[1], [2]]}
    with pytest.raises(LayoutError, match="'warp'"):
        L.sublayout(["warp"], ["dim0"])
    with pytest.raises(LayoutError, match="'dim2'"):
        L.sublayout(["lane"], ["dim2"])


# ============================================================================ equality, str
@SETTINGS
@given(layouts())
def test_eq_hash_dict_round_trip(L):
    M = LinearLayout(L.bases, L.out_dims)
    assert M == L and hash(M) == hash(L) and len({L, M}) == 1
    assert LinearLayout.from_dict(L.to_dict()) == L
    assert eval(repr(L), {"LinearLayout": LinearLayout}) == L
    bigger = {**L.out_dims, "dim1": L.out_dims["dim1"] * 2}
    assert LinearLayout(L.bases, bigger) != L
    assert L != "not a layout"


def test_equality_is_ordered_like_triton():
    A = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    B = LinearLayout({"lane": [[2]], "register": [[1]]}, {"dim0": 4})
    assert A != B  # in-dim order matters (Triton compares bases in order)
    assert A.transpose_outs(["dim0"]) is A


def test_str_is_triton_to_string():
    assert str(contract_layout()) == (
        " - register=1 -> (1, 0)\n"
        "   register=2 -> (2, 0)\n"
        " - lane=1 -> (0, 1)\n"
        "   lane=2 -> (0, 2)\n"
        "where out dims are: [dim0 (size 4), dim1 (size 4)]"
    )
    L = LinearLayout({"register": [], "lane": [[1]]}, {"dim0": 2})
    assert str(L) == (
        " - register is a size 1 dimension\n"
        " - lane=1 -> (1)\n"
        "where out dims are: [dim0 (size 2)]"
    )
    assert str(LinearLayout.empty()) == "(empty layout)"
    assert str(LinearLayout({}, {"dim0": 4})) == "(empty layout with out-dims [dim0 (size 4)])"


def test_repr_is_readable():
    r = repr(contract_layout())
    assert r == (
        "LinearLayout({'register': [[1, 0], [2, 0]], 'lane': [[0, 1], [0, 2]]}, "
        "out_dims={'dim0': 4, 'dim1': 4})"
    )


# ============================================================================ errors
OUTS = {"dim0": 4, "dim1": 4}


@pytest.mark.parametrize(
    "bases, out_dims, match",
    [
        ({"register": [[1]]}, OUTS, "'register'.*1 entries"),  # wrong image length
        ({"register": [[1, 0, 0]]}, OUTS, "'register'.*3 entries"),
        ({"lane": [[-1, 0]]}, OUTS, "'lane'.*negative.*'dim0'"),
        ({"lane": [[0, 4]]}, OUTS, "'lane'.*'dim1'.*size 4"),  # value ≥ out size
        ({"register": [[1, 0]]}, {"dim0": 3, "dim1": 4}, "'dim0'.*power of two"),
        ({"register": [[1, 0]]}, {"dim0": 0, "dim1": 4}, "'dim0'.*power of two"),
        ({"register": [[1, 0]]}, {"dim0": 4, "dim1": "4"}, "'dim1'"),
        ({"register": [[1, 0]]}, {"dim0": True, "dim1": 4}, "'dim0'"),
        ({3: [[1, 0]]}, OUTS, "in-dim names.*3"),  # non-string names
        ({"": [[1, 0]]}, OUTS, "in-dim names"),
        ({"register": [[1]]}, {7: 4}, "out-dim names.*7"),
        ({"register": [[True, 0]]}, OUTS, "'register'.*bool"),  # bool values
        ({"register": [[1.0, 0]]}, OUTS, "'register'.*not an int"),
        ({"register": [1, 0]}, OUTS, "'register'"),  # image is not a list
        ({"register": "ab"}, OUTS, "'register'"),
        ({"register": [[1, 0]]}, None, "out_dims is required"),
        ({"register": [[1, 0]]}, "dim0", "out_dims"),
        ({"register": [[1]]}, ["dim0", "dim0"], "distinct"),
    ],
)
def test_constructor_errors(bases, out_dims, match):
    with pytest.raises(LayoutError, match=match):
        LinearLayout(bases, out_dims)


def test_constructor_rejects_non_mapping_bases():
    with pytest.raises(LayoutError, match="mapping"):
        LinearLayout([[1, 0]], OUTS)


def test_apply_errors():
    L = contract_layout()
    with pytest.raises(LayoutError, match="'warp'"):
        L.apply({"warp": 0})
    with pytest.raises(LayoutError, match="'register'.*outside"):
        L.apply({"register": 4})
    with pytest.raises(LayoutError, match="'lane'.*outside"):
        L.apply({"lane": -1})
    with pytest.raises(LayoutError, match="'lane'.*bool"):
        L.apply({"lane": True})
    with pytest.raises(LayoutError, match="'lane'"):
        L.apply({"lane": 1.5})
    with pytest.raises(LayoutError, match="mapping"):
        L.apply(3)
    with pytest.raises(LayoutError, match="in_dims"):
        LinearLayout.from_columns([], ["register"], {"dim0": 1})
    with pytest.raises(LayoutError, match="out_dims"):
        LinearLayout.from_matrix([[1]], {"register": 2}, ["dim0"])


def test_compose_errors():
    L = contract_layout()
    with pytest.raises(LayoutError, match="dim0"):
        L.compose(LinearLayout({"dim0": [[1], [2]]}, {"x": 4}))  # dim1 missing
    with pytest.raises(LayoutError, match="'dim1'.*size 4"):
        L.compose(LinearLayout({"dim0": [[1], [2]], "dim1": [[4]]}, {"x": 8}))  # too small
    with pytest.raises(LayoutError, match="LinearLayout"):
        L.compose(42)


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        LinearLayout({"register": [[5]]}, {"dim0": 4})
