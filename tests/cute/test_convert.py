"""linlayout.cute.convert: memory layouts back to CuTe text (round trips, shortest form)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, synthesize_swizzle
from linlayout.cute import (
    CuteLayout,
    NoCuteFormError,
    parse_cute,
    parse_layout,
    to_cute,
    to_cute_layout,
)
from linlayout.triton import nvmma_shared, swizzled_shared

from .fixtures import cute_fixtures

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def swizzled_layouts(draw):
    """A random bijective CuTe layout (hierarchical modes, permuted strides) with a random
    swizzle whose bits stay inside its offsets."""
    rank = draw(st.integers(1, 3))
    nbits = draw(st.integers(1, 12))
    owner = [draw(st.integers(0, rank - 1)) for _ in range(nbits)]
    modes = []
    for k in range(rank):
        bits = owner.count(k)
        leaves, left = [], bits
        while left:
            b = draw(st.integers(1, left))
            leaves.append(b)
            left -= b
        modes.append(leaves or [0])
    order = [(k, j) for k in range(rank) for j in range(len(modes[k]))]
    order = draw(st.permutations(order))
    stride, pos = {}, 0
    for k, j in order:
        stride[(k, j)] = (1 << pos) if modes[k][j] else 0
        pos += modes[k][j]
    shape = tuple(tuple(1 << b for b in m) if len(m) > 1 else 1 << m[0] for m in modes)
    strides = tuple(tuple(stride[(k, j)] for j in range(len(m))) if len(m) > 1
                    else stride[(k, 0)] for k, m in enumerate(modes))
    swz = None
    if nbits >= 2 and draw(st.booleans()):
        B = draw(st.integers(1, nbits // 2))
        S = draw(st.integers(B, nbits - B))
        M = draw(st.integers(0, nbits - B - S))
        swz = (B, M, S if draw(st.booleans()) else -S)
    return CuteLayout(shape, strides, swz)


@SETTINGS
@given(swizzled_layouts())
def test_round_trip(cl):
    """parse_layout(to_cute(L)) == L for random swizzled layouts, and to_cute never returns
    something longer than the layout it came from."""
    M = parse_layout(cl)
    text = to_cute(M)
    assert parse_layout(text) == M
    assert len(text) <= len(cl.text()) or cl.rank == 1 and isinstance(cl.shape, tuple)


@SETTINGS
@given(st.integers(0, 2**32))
def test_random_memory_layouts_either_convert_exactly_or_say_why(seed):
    rng = random.Random(seed)
    n0, n1 = rng.randint(0, 4), rng.randint(0, 4)
    cols = list(range(n0 + n1))
    rng.shuffle(cols)
    cols = [1 << c for c in cols]
    for _ in range(rng.randint(0, 3)):  # a few random transvections: often no CuTe form
        i, j = rng.sample(range(len(cols)), 2) if len(cols) > 1 else (0, 0)
        if i != j:
            cols[i] ^= cols[j]
    M = LinearLayout.from_columns(cols, {"offset": 1 << (n0 + n1)},
                                  {"dim0": 1 << n0, "dim1": 1 << n1})
    try:
        text = to_cute(M)
    except NoCuteFormError as exc:
        assert "no CuTe form" in str(exc)
        return
    assert parse_layout(text) == M


@pytest.mark.parametrize("memory,text", [
    (swizzled_shared(8, 1, 8, [1, 0]).to_linear_layout([8, 64]),
     "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"),
    (nvmma_shared(128, 16).to_linear_layout([128, 64]), "Sw<3,3,3> o _0 o (_128,_64):(_64,_1)"),
    (nvmma_shared(64, 8, transposed=True).to_linear_layout([64, 64]),
     "Sw<2,4,3> o _0 o (_64,_64):(_1,_64)"),
    (parse_layout("((_8,_8),_64):((_64,_512),_1)"), "(_64,_64):(_64,_1)"),
    (parse_layout("(_8):(_1)"), "_8:_1"),
    (parse_layout("_1:_0"), "_1:_0"),
    (parse_layout("(_1,_8):(_0,_1)"), "(_1,_8):(_0,_1)"),
    (parse_layout("Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))"),
     "Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))"),
])
def test_known_layouts(memory, text):
    assert to_cute(memory) == text
    assert to_cute(memory, static=False) == parse_cute(text).text(static=False)


def test_every_fixture_bijection_converts():
    for entry in cute_fixtures()["layouts"]:
        if entry["memory_bases"] is None:
            continue
        try:
            M = parse_layout(entry["cute"])
        except LayoutError:
            continue
        assert parse_layout(to_cute(M)) == M, entry["cute"]


def test_synthesized_layouts_convert():
    """A synthesized result (in dims vector, bank, segment) flattens to offsets first."""
    from linlayout import examples

    ex = examples.get(examples.DEFAULT)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    text = to_cute(r.layout)
    M = parse_layout(text)
    assert M.apply_flat(0) == 0
    assert [M.apply_flat(o) for o in range(16)] == [
        r.layout.apply_flat(o) for o in range(16)]


def test_refusals():
    # a swizzle that is not a CuTe one: offset bit 0 holds dim0 ^ dim1 ...
    assert to_cute(LinearLayout({"offset": [[1, 1], [0, 2], [2, 0], [0, 1]]},
                                out_dims={"dim0": 4, "dim1": 4})) == \
        "Sw<1,0,-3> o _0 o ((_2,_2),(_2,_2)):((_1,_4),(_8,_2))"
    # ... and one no single CuTe swizzle undoes
    two = LinearLayout({"offset": [[1, 1], [0, 1], [2, 2], [0, 2]]},
                       out_dims={"dim0": 4, "dim1": 4})
    with pytest.raises(NoCuteFormError, match="dim0 bit 0 lands on offset bits"):
        to_cute(two)
    blocked = LinearLayout({"offset": [[1, 0]], "block": [[0, 1]]},
                           out_dims={"dim0": 2, "dim1": 2})
    with pytest.raises(NoCuteFormError, match="CTAs"):
        to_cute(blocked)
    with pytest.raises(LayoutError, match="bijection"):
        to_cute(LinearLayout({"offset": [[1, 0], [1, 0]]}, out_dims={"dim0": 2, "dim1": 2}))
    with pytest.raises(LayoutError, match="LinearLayout"):
        to_cute_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    # the 8-byte-flip TMA mode is two CuTe swizzles: no single one
    from linlayout import ptx

    flip = ptx.swizzle_layout("128B_atom_32B_flip_8B", 512)
    with pytest.raises(NoCuteFormError):
        to_cute(flip.rename_out_dim("offset", "dim0"))
