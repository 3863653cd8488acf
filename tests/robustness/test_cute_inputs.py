"""Junk in, LayoutError out: every public linlayout.cute entry point, on values of every kind."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, cute

JUNK = [None, True, 3, -1, 2.5, "", "junk", b"(_8):(_1)", [], [1, 2], {}, {"a": 1}, object(),
        (1,), ((),), "(" * 5000, "(_8):(_1)" * 3000, "Sw<3,4,3> o _0 o", "_8:_1:_2",
        "Sw<99999999,4,3> o _0 o _8:_1", "(_8,(_8,_8)):(_1,(_8))"]

CALLS = [
    ("parse_cute", lambda x: cute.parse_cute(x)),
    ("parse_layout", lambda x: cute.parse_layout(x)),
    ("index_layout", lambda x: cute.index_layout(x)),
    ("tv_layout", lambda x: cute.tv_layout(x, [16, 8])),
    ("tv_layout tile", lambda x: cute.tv_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", x)),
    ("tv_layout warp", lambda x: cute.tv_layout("(_8,_2):(_2,_1)", [16], warp_size=x)),
    ("tiled_tv_layout", lambda x: cute.tiled_tv_layout(x, "(_1,_8):(_0,_1)")),
    ("upcast", lambda x: cute.upcast(x, 16)),
    ("upcast n", lambda x: cute.upcast("(_8):(_1)", x)),
    ("atom", lambda x: cute.atom(x)),
    ("atom bits", lambda x: cute.atom("sm75_u32x4_ldsm_n", x)),
    ("to_cute", lambda x: cute.to_cute(x)),
    ("CuteLayout", lambda x: cute.CuteLayout(x, x)),
    ("CuteLayout swizzle", lambda x: cute.CuteLayout(8, 1, swizzle=x)),
    ("CuteLayout offset", lambda x: cute.CuteLayout(8, 1, (3, 4, 3), offset=x)),
    ("CuteLayout pointer", lambda x: cute.CuteLayout(8, 1, (3, 4, 3), pointer_bits=x)),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[n for n, _ in CALLS])
def test_junk_raises_layout_error_only(name, call):
    for x in JUNK:
        try:
            call(x)
        except LayoutError:
            pass
        except Exception as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{name}({x!r:.60}) raised {type(exc).__name__}: {exc}")

CUTE_ALPHABET = "_0123456789(),:<>o SwmprtenubM|&=@-[]"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=CUTE_ALPHABET, max_size=60))
def test_random_text_parses_or_raises_layout_error(text):
    for fn in (cute.parse_cute, cute.parse_layout):
        try:
            fn(text)
        except LayoutError:
            pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.integers(-70, 70), lambda c: st.lists(c, max_size=3).map(tuple),
                    max_leaves=8),
       st.recursive(st.integers(-70, 70), lambda c: st.lists(c, max_size=3).map(tuple),
                    max_leaves=8))
def test_random_trees_parse_or_raise_layout_error(shape, stride):
    try:
        cl = cute.CuteLayout(shape, stride)
    except LayoutError:
        return
    assert cute.parse_cute(cl.text()) == cl
    for fn in (cute.parse_layout, cute.index_layout,
               lambda x: cute.tv_layout(x, [1 << 12])):
        try:
            fn(cl)
        except LayoutError:
            pass


@pytest.mark.parametrize("tile", ["99999999999999999999x8", "16x" + "1" * 600])
def test_a_tile_of_too_many_digits_is_named(tile):
    # it was read as more layout text: "column 39: unexpected 'o' after the layout"
    with pytest.raises(LayoutError, match=r"the tile 'on .*' has a size of more than 9 digits"):
        cute.read_layout(f"((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on {tile}")
