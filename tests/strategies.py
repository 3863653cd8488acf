"""Hypothesis strategies and small oracles shared by the algebra tests.

Layouts use in dims among ``register, lane, warp`` and out dims ``dim0, dim1``; images are
biased towards zeros (broadcast), unit bits (Triton's usual layouts) and duplicates, so that
free variables, identity dims and non-surjective cases come up often.
"""

from __future__ import annotations

import itertools

import galois
import numpy as np
from hypothesis import strategies as st

from linlayout import LinearLayout

GF2 = galois.GF2


@st.composite
def gl_columns(draw, n: int):
    """Columns of a random element of GL(n, 2): identity, column transvections, permutation."""
    cols = [1 << i for i in range(n)]
    if n >= 2:
        ops = draw(
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)
        )
        for i, j in ops:
            if i != j:
                cols[i] ^= cols[j]
    perm = draw(st.permutations(range(n)))
    return [cols[p] for p in perm]


IN_NAMES = ("register", "lane", "warp")
OUT_NAMES = ("dim0", "dim1")


# ---------------------------------------------------------------------------- helpers
def all_inputs(layout: LinearLayout):
    """Every input point of a (small) layout as a dict."""
    names = list(layout.in_dims)
    for vals in itertools.product(*(range(s) for s in layout.in_dims.values())):
        yield dict(zip(names, vals))


def flat_in(layout: LinearLayout, point: dict) -> int:
    x, s = 0, 0
    for n, size in layout.in_dims.items():
        x |= point.get(n, 0) << s
        s += size.bit_length() - 1
    return x


def unflat(dims: dict, flat: int) -> dict:
    out = {}
    for n, size in dims.items():
        b = size.bit_length() - 1
        out[n] = flat & (size - 1)
        flat >>= b
    return out


def identity_on(dims: dict) -> LinearLayout:
    out = LinearLayout.empty()
    for n, s in dims.items():
        out = out * LinearLayout.identity_1d(s, n, n)
    return out


def gf(layout: LinearLayout):
    return GF2(layout.matrix)


def gf_matmul_equal(a, b, expected) -> bool:
    """a @ b == expected over GF(2), tolerating empty dimensions."""
    if a.shape[1] == 0:
        return not np.any(expected)
    return np.array_equal(np.asarray(GF2(a) @ GF2(b)), np.asarray(expected))


# ---------------------------------------------------------------------------- strategies
@st.composite
def images(draw, out_bits: list[int], n: int, pool: list | None = None):
    """n images (one int per out dim) biased towards zeros, unit bits and duplicates (of the
    images drawn so far, also those in ``pool``: other dims' images)."""
    res = []
    pool = [] if pool is None else pool
    for _ in range(n):
        kind = draw(st.sampled_from(["zero", "unit", "random", "random", "dup"]))
        if kind == "zero" or not any(out_bits):
            res.append([0] * len(out_bits))
        elif kind == "dup" and (res or pool):
            res.append(list(draw(st.sampled_from(res + pool))))
        elif kind == "unit":
            j = draw(st.sampled_from([j for j, b in enumerate(out_bits) if b]))
            img = [0] * len(out_bits)
            img[j] = 1 << draw(st.integers(0, out_bits[j] - 1))
            res.append(img)
        else:
            res.append([draw(st.integers(0, (1 << b) - 1)) for b in out_bits])
    return res


@st.composite
def layouts(draw, in_names=None, out_dims=None, max_in_bits=4, max_out_bits=4, ordered=False):
    """A random layout: in dims among register/lane/warp (0-4 bits each), out dims dim0/dim1."""
    if in_names is None:
        if ordered:
            in_names = [n for n in IN_NAMES if draw(st.booleans())]
        else:
            in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, max_size=3))
    if out_dims is None:
        out_dims = {n: 1 << draw(st.integers(0, max_out_bits)) for n in OUT_NAMES}
    out_bits = [s.bit_length() - 1 for s in out_dims.values()]
    bases: dict = {}
    for n in in_names:
        k = draw(st.integers(0, max_in_bits))
        bases[n] = draw(images(out_bits, k, [img for imgs in bases.values() for img in imgs]))
    return LinearLayout(bases, out_dims=dict(out_dims))


@st.composite
def split_bits(draw, total: int, names) -> dict:
    """Sizes {name: 2**b} with the b summing to total (names in the given order)."""
    names = list(names)
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=len(names) - 1,
                                max_size=len(names) - 1)))
    bounds = [0] + cuts + [total]
    return {n: 1 << (bounds[i + 1] - bounds[i]) for i, n in enumerate(names)}


@st.composite
def invertible_layouts(draw, max_bits=8):
    n = draw(st.integers(0, max_bits))
    in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, min_size=1, max_size=3))
    ins = draw(split_bits(n, in_names))
    outs = draw(split_bits(n, OUT_NAMES))
    return LinearLayout.from_columns(draw(gl_columns(n)), ins, outs)


@st.composite
def surjective_layouts(draw, in_names=None, out_dims=None, max_extra=4, max_out=6):
    """Surjective: a GL(n) block scattered among extra random columns."""
    if out_dims is None:
        n = draw(st.integers(0, max_out))
        out_dims = draw(split_bits(n, OUT_NAMES))
    n = sum(s.bit_length() - 1 for s in out_dims.values())
    extra = draw(st.lists(st.integers(0, (1 << n) - 1), max_size=max_extra))
    extra = [0 if draw(st.booleans()) else e for e in extra]  # plenty of broadcast zeros
    cols = draw(st.permutations(draw(gl_columns(n)) + extra))
    if in_names is None:
        in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, min_size=1, max_size=3))
    ins = draw(split_bits(len(cols), in_names))
    return LinearLayout.from_columns(cols, ins, out_dims)
