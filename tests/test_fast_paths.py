"""The fast paths of the algebra agree with the plain definitions they replace.

The constructor, ``apply``, ``compose``, ``*`` and ``str`` each have a fast path for plain
input (benchmarks/ALGEBRA.md); here each is compared with a slow, obviously right
computation on random layouts, including the inputs that must leave the fast path (bools,
numpy ints, sets, columns wider than 64 bits, values of 4096 or more, ``%`` in names).
"""

from __future__ import annotations

import itertools
import random
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, f2

SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def dims(draw, names, max_bits, min_dims=1):
    chosen = draw(st.lists(st.sampled_from(names), min_size=min_dims, max_size=len(names),
                           unique=True))
    return {n: 1 << draw(st.integers(0, max_bits)) for n in chosen}


@st.composite
def random_layouts(draw, max_out_bits=6, out_names=("dim0", "dim1", "dim2")):
    ins = draw(dims(("register", "lane", "warp", "block"), 4))
    outs = draw(dims(out_names, max_out_bits))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["unit", "general"]))
    return LinearLayout.random(ins, outs, kind=kind, rng=random.Random(seed))


def slow_str(L: LinearLayout) -> str:
    """Triton's toString, line by line (the definition ``__str__`` must match)."""
    outs = ", ".join(f"{n} (size {s})" for n, s in L.out_dims.items())
    if not L.in_dims:
        return f"(empty layout with out-dims [{outs}])" if L.out_dims else "(empty layout)"
    lines = []
    for name, images in L.bases.items():
        if not images:
            lines.append(f" - {name} is a size 1 dimension")
        for i, img in enumerate(images):
            lines.append(f"{' - ' if i == 0 else '   '}{name}={1 << i} -> "
                         f"({', '.join(map(str, img))})")
    lines.append(f"where out dims are: [{outs}]")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- constructor
@SETTINGS
@given(random_layouts(max_out_bits=14), st.booleans())
def test_constructor_fast_path_equals_slow_path(L, as_tuples):
    bases = L.bases
    if as_tuples:
        bases = {n: tuple(tuple(img) for img in imgs) for n, imgs in bases.items()}
    fast = LinearLayout(bases, L.out_dims)
    # a mapping proxy is not a dict: the constructor takes its general path
    slow = LinearLayout(types.MappingProxyType(bases), types.MappingProxyType(L.out_dims))
    assert fast == slow == L
    assert fast.columns == slow.columns and all(type(c) is int for c in fast.columns)


def test_constructor_fast_path_leaves_on_odd_input():
    outs = {"dim0": 4, "dim1": 4}
    # numpy ints are accepted (operator.index) and stored as plain ints
    L = LinearLayout({"lane": [[np.int64(1), np.uint8(2)]]}, outs)
    assert L.bases == {"lane": [[1, 2]]} and all(type(c) is int for c in L.columns)
    assert LinearLayout({"lane": np.array([[1, 2], [2, 1]])}, outs).bases == \
        {"lane": [[1, 2], [2, 1]]}
    for bad, match in [({"lane": [{1, 2}]}, "lane"),  # a set has no order
                       ({"lane": [[1, True]]}, "bool"),
                       ({"lane": [[1, 2, 0]]}, "3 entries"),
                       ({"lane": [[4, 0]]}, "size 4"),
                       ({"lane": [[0, -1]]}, "negative"),
                       ({"lane": ["ab"]}, "lane")]:
        with pytest.raises(LayoutError, match=match):
            LinearLayout(bad, outs)
    # sizes: only plain positive powers of two take the fast path; others are re-read
    assert LinearLayout({"lane": [[1]]}, {"dim0": np.int64(2)}).out_dims == {"dim0": 2}
    with pytest.raises(LayoutError, match="power of two"):
        LinearLayout({"lane": [[1]]}, {"dim0": 6})


# ---------------------------------------------------------------------------- apply
@SETTINGS
@given(random_layouts(max_out_bits=10), st.data())
def test_apply_fast_path_equals_definition(L, data):
    point = {n: data.draw(st.integers(0, s - 1), label=n) for n, s in L.in_dims.items()
             if data.draw(st.booleans(), label=f"give {n}")}
    got = L.apply(point)
    flat = 0
    for name, value in point.items():
        offset = sum(L.in_bits(n) for n in L.in_dim_names[:L.in_dim_names.index(name)])
        flat |= value << offset
    out = f2.apply(L.columns, flat)
    expect, shift = {}, 0
    for n in L.out_dim_names:
        expect[n] = out >> shift & (L.out_dims[n] - 1)
        shift += L.out_bits(n)
    assert got == expect and list(got) == list(L.out_dim_names)
    # numpy ints leave the fast path and give the same answer
    assert L.apply({n: np.int64(v) for n, v in point.items()}) == expect


def test_apply_fast_path_errors_name_the_dim():
    L = LinearLayout.identity_1d(8, "lane", "dim0")
    for bad, match in [({"lane": 8}, "outside"), ({"lane": -1}, "outside"),
                       ({"lane": False}, "bool"), ({"warp": 0}, "'warp'"),
                       ({("lane",): 0}, "unknown"), ([("lane", 1)], "mapping")]:
        with pytest.raises(LayoutError, match=match):
            L.apply(bad)


# ---------------------------------------------------------------------------- packing, compose
@SETTINGS
@given(st.integers(0, 130), st.lists(st.integers(0, 2**130), max_size=12))
def test_pack_unpack_round_trip(width, values):
    cols = [v & ((1 << width) - 1) for v in values]
    packed, w = f2.pack(cols, width)
    assert w >= width and (w in (8, 16, 32, 64) or w == width > 64)
    assert packed == sum(c << j * w for j, c in enumerate(cols))
    assert f2.unpack(packed, len(cols), w) == cols


@SETTINGS
@given(st.integers(1, 100), st.integers(1, 100), st.integers(0, 12), st.data())
def test_compose_wide_columns(m, k, n, data):
    """Columns beyond 64 bits (hand packing) and every field width in between."""
    outer = data.draw(st.lists(st.integers(0, (1 << k) - 1), min_size=m, max_size=m))
    inner = data.draw(st.lists(st.integers(0, (1 << m) - 1), min_size=n, max_size=n))
    expect = [f2.apply(outer, c) for c in inner]
    assert f2.compose(outer, inner) == expect
    assert f2.compose_within(outer, inner, max(m, k)) == expect


# ---------------------------------------------------------------------------- product, str
@SETTINGS
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


@SETTINGS
@given(random_layouts(max_out_bits=14))
def test_str_equals_line_by_line_definition(L):
    assert str(L) == slow_str(L)
    assert LinearLayout.parse(str(L)).columns == L.columns or not L.is_surjective


def test_str_odd_names_sizes_and_values():
    L = LinearLayout({"50%": [[5000, 1]], "size1": [], "x%s": [[1, 70000]]},
                     {"d%d": 8192, "dim1": 1 << 17})
    assert str(L) == slow_str(L)
    assert "50%=1 -> (5000, 1)" in str(L) and "x%s=1 -> (1, 70000)" in str(L)
    for M in (LinearLayout.empty(), LinearLayout({}, {"a%": 4}),
              LinearLayout({"r%": []}, {"o%": 2})):
        assert str(M) == slow_str(M)
    # the template cache is keyed by shape: two layouts of one shape, two texts
    A = LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 2})
    B = LinearLayout({"lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    assert str(A) != str(B) and str(B) == slow_str(B)


def test_template_cache_is_bounded():
    from linlayout.layout import text as layout_text
    for i in range(300):
        str(LinearLayout({f"d{i}": [[1]]}, {"o": 2}))
    assert len(layout_text.STR_TEMPLATES) <= 256


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


def test_pack_unpack_errors():
    for columns, width in (([1, "a"], 8), ([300], 8), ([-1], 8), ([1 << 70], 70),
                           ([-1], 70), ([1.0], 70)):
        with pytest.raises(LayoutError, match="pack needs"):
            f2.pack(columns, width)
    for packed, w in ((1 << 70, 8), (1 << 70, 9), ("x", 16), (-1, 32)):
        with pytest.raises(LayoutError, match="unpack needs"):
            f2.unpack(packed, 2, w)
    with pytest.raises(LayoutError, match="8-bit bound"):
        f2.compose_within([1] * 9, [300], 8)
    # an outer column beyond the bound would spill into the next field: refused, any width
    for width in (8, 16, 70):
        with pytest.raises(LayoutError, match="outer column"):
            f2.compose_within([1 << width, 1], [3, 3], width)
    with pytest.raises(LayoutError, match="non-negative"):
        f2.compose_within([-1, 1], [3, 3], 8)
    with pytest.raises(LayoutError):
        f2.compose_within([-1, 1], [3, 3], 16)
