"""linlayout.cute.parse: CuTe's printed syntax (C++ and pycute) and pycute objects."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.cute import CuteLayout, from_pycute, parse_cute
from linlayout.cute.parse import MAX_TEXT

from .fixtures import cute_fixtures


@pytest.mark.parametrize("text,shape,stride,swizzle,offset,ptr", [
    ("(_64,_64):(_64,_1)", (64, 64), (64, 1), None, 0, None),
    ("(64,_64):(_64,1)", (64, 64), (64, 1), None, 0, None),
    ("((_8,_8),_64):((_64,_512),_1)", ((8, 8), 64), ((64, 512), 1), None, 0, None),
    ("_8:_1", 8, 1, None, 0, None),
    ("(_8):(_1)", (8,), (1,), None, 0, None),
    ("(8,):(1,)", (8,), (1,), None, 0, None),
    ("((_8,_2,_4)):((_1,_-8,_16))", ((8, 2, 4),), ((1, -8, 16),), None, 0, None),
    ("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 4, 3), 0, None),
    ("Swizzle<3,4,3> o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 4, 3), 0, None),
    ("Sw<3,4,3> o _32 o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 4, 3), 32, None),
    ("Sw<3,4,3> o 32 o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 4, 3), 32, None),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", (8, 64), (64, 1), (3, 4, 3), 0, 16),
    ("Sw<3,3,3> o M_0|(64&64)=64 o (_4,_64):(_128,_1)", (4, 64), (128, 1), (3, 3, 3), 64, None),
    ("SW_3_4_3 o 0 o (8, 64):(64, 1)", (8, 64), (64, 1), (3, 4, 3), 0, None),
    ("Swizzle(2,5,-2) o 0 o (8, 64):(64, 1)", (8, 64), (64, 1), (2, 5, -2), 0, None),
    ("  Sw<1, 4, 3>  o  _0  o ( _8 , _16 ) : ( _16 , _1 ) ", (8, 16), (16, 1), (1, 4, 3), 0, None),
    ("Sw<0,4,3> o smem_ptr[16b](unset) o (_8,_8):(_8,_1)", (8, 8), (8, 1), (0, 4, 3), 0, 16),
])
def test_printed_forms(text, shape, stride, swizzle, offset, ptr):
    L = parse_cute(text)
    assert (L.shape, L.stride, L.swizzle, L.offset, L.pointer_bits) == (
        shape, stride, swizzle, offset, ptr)
    assert parse_cute(L.text()) == L  # printing round-trips
    assert parse_cute(L.text(static=False)) == L


@pytest.mark.parametrize("text,match", [
    ("", "empty"),
    ("   ", "empty"),
    ("Sw<3,4,3>", "swizzle alone"),
    ("(_8,_64)", "expected ':'"),
    ("(_8,_64):(_64)", "not congruent"),
    ("(_8,_64):(_64,_1", "close the tuple"),
    ("(_2,_2):(_1@0,_1@1)", "ScaledBasis"),
    ("Sw<3,4,3> o smem_sparse<2>_ptr[16b](unset) o _8:_1", "smem_sparse"),
    ("(_8):(_1) o (_4):(_1)", "outer function is a layout"),
    ("Sw<1,4,0> o _0 o _8:_1", r"\|S\| >= B"),
    ("Sw<3,4,3> o _0 (_8):(_1)", "expected ' o '"),
    ("Sw<3,4,3> _0 o (_8):(_1)", "expected ' o ' after the swizzle"),
    ("(_8,_0):(_1,_8)", "positive"),
    ("_99999999999999999999:_1", "more than 18 digits"),
    ("(_4096,_8192):(_1,_4096)", "2\\^24"),
    ("(" * 40 + "_1" + ")" * 40 + ":_1", "deeper than 32"),
    ("hello", "expected a layout"),
    ("(_8,_8):(_8,_1) trailing", "unexpected"),
    ("Sw<3,4,3> o _-4 o (_8):(_1)", "negative"),
    ("Sw<3,4,3> o smem_ptr[3b](unset) o (_8):(_1)", "power of two"),
])
def test_bad_text_is_a_layout_error(text, match):
    with pytest.raises(LayoutError, match=match):
        parse_cute(text)


def test_absurd_inputs_are_refused_up_front():
    with pytest.raises(LayoutError, match="characters"):
        parse_cute("(" + "_1," * MAX_TEXT + "_1):(_1)")
    deep = 1
    for _ in range(10_000):  # far past Python's recursion limit: still a LayoutError
        deep = (deep,)
    with pytest.raises(LayoutError, match="nested deeper"):
        CuteLayout(deep, deep)
    with pytest.raises(LayoutError, match="nested deeper"):
        parse_cute("(" * 10_000 + "_1" + ")" * 10_000 + ":_1")
    for bad in (None, 3, 2.5, b"(_8):(_1)", ["(_8):(_1)"]):
        with pytest.raises(LayoutError):
            parse_cute(bad)


def test_cute_layout_validates():
    with pytest.raises(LayoutError, match="congruent"):
        CuteLayout((8, 8), 1)
    with pytest.raises(LayoutError, match="int"):
        CuteLayout((8, True), (1, 8))
    with pytest.raises(LayoutError, match="int"):
        CuteLayout((8, 2.0), (1, 8))
    with pytest.raises(LayoutError, match="swizzle"):
        CuteLayout(8, 1, swizzle="Sw<3,4,3>")
    with pytest.raises(LayoutError, match="either"):
        CuteLayout(8, 1, (3, 4, 3), offset=8, pointer_bits=16)
    with pytest.raises(LayoutError, match="non-negative"):
        CuteLayout(8, 1, (3, 4, 3), offset=-8)
    assert CuteLayout([8, [2, 2]], [1, [8, 16]]).shape == (8, (2, 2))  # lists become tuples


def test_evaluation_matches_cute():
    """CuTe's L(c): 1-D coordinates split colexicographically, hierarchical coordinates,
    the swizzle on the index, and on byte addresses for a pointer flag."""
    L = parse_cute("(3,(2,3)):(1,(3,6))")
    assert L(16) == L(1, 5) == L(1, (1, 2)) == 1 + 3 + 12
    S = parse_cute("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    assert S(1, 0) == 64 ^ 8 and S(3, 9) == (3 * 64 + 9) ^ (3 << 3)
    G = parse_cute("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    assert all(G(i) == S(i) for i in range(512))  # = Sw<3,3,3> on halves
    assert G.element_swizzle() == (3, 3, 3)
    B = parse_cute("Sw<3,4,3> o smem_ptr[1b](unset) o (_8,_1024):(_1024,_1)")
    assert B.element_swizzle() == (3, 7, 3) and B(1, 0) == 1024 ^ 128
    with pytest.raises(LayoutError, match="inside one"):
        parse_cute("Sw<1,0,3> o smem_ptr[64b](unset) o (_8,_8):(_8,_1)").element_swizzle()
    with pytest.raises(LayoutError, match="coordinate"):
        L(1, 2, 3)


def test_pycute_objects_are_duck_typed():
    class Layout:  # pycute.Layout's attributes
        def __init__(self, shape, stride):
            self.shape, self.stride = shape, stride

    class Swizzle:
        def __init__(self, bits, base, shift):
            self.bits, self.base, self.shift = bits, base, shift

    class ComposedLayout:  # pycute: layoutB is the OUTER function
        def __init__(self, layoutB, offset, layoutA):
            self.layoutB, self.offset, self.layoutA = layoutB, offset, layoutA

    lay = Layout((8, 64), (64, 1))
    assert from_pycute(lay) == parse_cute("(_8,_64):(_64,_1)")
    assert parse_cute(ComposedLayout(Swizzle(3, 4, 3), 0, lay)) == parse_cute(
        "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)")
    with pytest.raises(LayoutError, match="Swizzle alone"):
        from_pycute(Swizzle(3, 4, 3))
    with pytest.raises(LayoutError, match="not a Swizzle"):
        from_pycute(ComposedLayout(lay, 0, lay))
    with pytest.raises(LayoutError, match="expected CuTe text"):
        from_pycute(object())


def test_real_pycute_when_installed():
    pycute = pytest.importorskip("pycute")
    lay = pycute.Layout(((8, 8), 64), ((64, 512), 1))
    c = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, lay)
    assert parse_cute(c).text() == "Sw<3,3,3> o _0 o ((_8,_8),_64):((_64,_512),_1)"
    assert parse_cute(str(c)) == parse_cute(c)


def test_every_fixture_text_parses_in_both_syntaxes():
    for entry in cute_fixtures()["layouts"]:
        L = parse_cute(entry["cute"])
        if entry["pycute"]:
            assert parse_cute(entry["pycute"]) == L, entry["pycute"]
        assert [L(i) for i in range(entry["size"])] == entry["offsets"], entry["cute"]
