"""linlayout.layout.construct: the constructors and the matrix forms of a layout.

Triton's 1-D building blocks (``identity_1d``, ``zeros_1d``, ``strided_1d``), ``from_columns``,
``from_matrix``/``matrix`` and ``from_galois``/``to_galois`` (round trips, checked against
galois.GF2 matrix products), ``from_function`` (round trips, and a non-linear point is found and
named) and ``random`` (seeded, unit or general, surjective on request).
"""

from __future__ import annotations

import itertools
import random

import galois
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, NotLinearError

from tests.support import GF2, all_inputs, flat_in, layouts, unflat


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


L = LinearLayout
I1 = LinearLayout.identity_1d
Z1 = LinearLayout.zeros_1d


def test_matrix_is_out_bits_by_in_bits_uint8():
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
def test_matrix_and_galois_forms_round_trip(L):
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


@pytest.mark.parametrize("out_bits", [1, 7, 8, 9, 24, 64, 70])
def test_matrix_round_trip_any_width(out_bits):
    """``matrix`` / ``from_matrix`` pack bits with numpy (any number of bytes per column)."""
    rng = random.Random(out_bits)
    L = LinearLayout.random({"lane": 32, "warp": 1 << rng.randrange(0, 4)},
                            {"dim0": 1 << (out_bits // 2), "dim1": 1 << (out_bits - out_bits // 2)},
                            kind="general", rng=rng)
    m = L.matrix
    assert m.shape == (out_bits, L.total_in_bits) and m.dtype == np.uint8
    for c, col in enumerate(L.columns):
        assert [int(b) for b in m[:, c]] == [col >> r & 1 for r in range(out_bits)]
    assert LinearLayout.from_matrix(m, L.in_dims, L.out_dims) == L


def test_from_matrix_and_from_columns_reject_bad_entries():
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


def test_from_columns_and_from_matrix_need_dim_mappings():
    with pytest.raises(LayoutError, match="in_dims"):
        LinearLayout.from_columns([], ["register"], {"dim0": 1})
    with pytest.raises(LayoutError, match="out_dims"):
        LinearLayout.from_matrix([[1]], {"register": 2}, ["dim0"])


def test_identity_and_zeros_1d_need_power_of_two_sizes():
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


def test_identity_and_zeros_1d_match_triton():
    # Triton: Identity1D, Zeros1D
    assert I1(32, "testIns", "testOuts") == L({"testIns": [[1], [2], [4], [8], [16]]},
                                              ["testOuts"])
    assert Z1(32, "ins", "outs") == L({"ins": [[0]] * 5}, ["outs"])


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


def test_from_function_accepts_xor_swizzles_and_samples_wide_inputs():
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
def test_random_is_seeded_and_honours_kind_surjective_and_broadcast(seed, kind, surjective, broadcast):
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


NAMED = [
    (lambda: L.from_columns([1], {"r": 2}, {"o": 3}), "'o'"),
    (lambda: L.from_function(lambda p: {"o": 9}, {"i": 2}, {"o": 4}), "'o'"),
    (lambda: L.from_function(lambda p: {"p": 0}, {"i": 2}, {"o": 4}), "'o'"),
    (lambda: L.from_function(lambda p: 5, {"i": 2}, {"o": 4, "q": 2}), "'q'"),
    (lambda: L.strided_1d(4, 3, "i", "o"), "stride"),
    (lambda: L.random({"r": 2}, {"o": 4}, surjective=True), "surjective"),
    (lambda: L.random({"r": 2}, {"o": 3}), "'o'"),
    (lambda: L.identity_1d(4, "", "o"), "in-dim"),
]


@pytest.mark.parametrize("call, match", NAMED, ids=[m for _, m in NAMED])
def test_messages_name_the_offending_dim(call, match):
    with pytest.raises(LayoutError, match=match):
        call()
