"""linlayout.triton.encodings.padded: #ttg.padded_shared in both printed forms, round trips,
errors and emission."""

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts
from linlayout.layout.padded import PaddedLayout
from linlayout.triton import parse_encoding, parse_type, to_triton_text
from linlayout.triton.encodings import PaddedSharedEncoding, padded_shared

SHORT = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>"
LONG = ("#ttg.padded_shared<[512:+16] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], "
        "[0, 32], [16, 0], [32, 0], [64, 0], [1, 0], [2, 0], [4, 0], [8, 0]], block = []}>")


@pytest.mark.parametrize("text", [SHORT, LONG])
def test_both_forms_round_trip(text):
    enc = parse_encoding(text)
    assert isinstance(enc, PaddedSharedEncoding)
    assert enc.text() == text and parse_encoding(enc.text()) == enc


def test_explicit_identity_prints_in_the_short_form():
    bases = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], [8, 0],
             [16, 0], [32, 0]]
    text = (f"#ttg.padded_shared<[64:+8, 128:+8] {{offset = {bases}, block = []}}>")
    assert parse_encoding(text).text() == (
        "#ttg.padded_shared<[64:+8, 128:+8] {order = [1, 0], shape = [64, 64]}>")


def test_long_form_addresses():
    p = parse_encoding(LONG).to_padded_layout([128, 64])
    assert [p.element_offset(c)[0] for c in [(64, 0), (1, 0), (2, 0)]] == [256, 528, 1056]


def test_memdesc_type_and_no_linear_layout():
    t = parse_type(f"!ttg.memdesc<64x64xf16, {SHORT}, #ttg.shared_memory, mutable>")
    assert t.encoding.to_padded_layout(t.layout_shape).size_bytes(t.element_bits) == 9208
    with pytest.raises(LayoutError, match="padding"):
        t.layout
    assert t.encoding.linear_component([64, 64]) == PaddedLayout.identity(
        [(32, 4)], [64, 64], [1, 0]).linear


@pytest.mark.parametrize("text, match", [
    ("#ttg.padded_shared<[32:+3] {order = [1, 0], shape = [64, 64]}>", "power of two"),
    ("#ttg.padded_shared<[32:4] {order = [1, 0], shape = [64, 64]}>", "'\\+'"),
    ("#ttg.padded_shared<[32:+4] {order = [1, 0]}>", "either"),
    ("#ttg.padded_shared<[32:+4] {offset = [[1, 1], [2, 0]], block = []}>", "one dim"),
    ("#ttg.padded_shared<[32:+4] {offset = [[1, 0], [1, 0]], block = []}>", "bijection"),
])
def test_bad_attributes(text, match):
    with pytest.raises(LayoutError, match=match):
        parse_encoding(text)


def test_to_triton_text_emits_padded_layouts():
    p = PaddedLayout.identity([(32, 1)], [32, 32], [1, 0])
    assert to_triton_text(p) == "#ttg.padded_shared<[32:+1] {order = [1, 0], shape = [32, 32]}>"
    long_ = parse_encoding(LONG).to_padded_layout([128, 64])
    assert to_triton_text(long_) == LONG


def test_builder_and_counting():
    enc = padded_shared([(32, 1)], order=[1, 0], shape=[32, 32])
    column_read = LinearLayout(
        {"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
         "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, out_dims={"dim0": 32, "dim1": 32})
    rep = bank_conflicts(column_read, enc.to_padded_layout([32, 32]), element_bits=32,
                         vector_elems=1)
    assert rep.degree == 1
    with pytest.raises(LayoutError, match="either"):
        padded_shared([(32, 1)])


def test_xor_remaps_cannot_be_emitted():
    from linlayout import LinearLayout
    lin = LinearLayout({"offset": [[0, 1], [1, 1]]}, out_dims={"dim0": 2, "dim1": 2})
    with pytest.raises(LayoutError, match="one dim"):
        to_triton_text(PaddedLayout(lin, ((2, 1),)))


@pytest.mark.parametrize("text, shape, size, expected", [
    # Gluon's PaddedSharedLayout docstring examples, as Triton 3.9 prints and lowers them
    ("#ttg.padded_shared<[8:+1] {offset = [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], "
     "block = []}>", [8, 4], 35,
     {(0, 0): 0, (0, 3): 3, (1, 0): 18, (1, 3): 21, (2, 0): 4, (2, 3): 7}),
    ("#ttg.padded_shared<[2:+2] {offset = [[2], [1], [4]], block = []}>", [8], 14,
     {(0,): 0, (1,): 4, (2,): 1, (3,): 5, (4,): 8, (5,): 12, (6,): 9, (7,): 13}),
])
def test_gluon_docstring_examples(text, shape, size, expected):
    p = parse_encoding(text).to_padded_layout(shape)
    assert p.size_elems == size
    assert {c: p.element_offset(list(c))[0] for c in expected} == expected


def test_from_attribute_takes_the_pairs():
    assert PaddedSharedEncoding.from_attribute(
        {"order": [1, 0], "shape": [64, 64]}, pairs=[(32, 4)]) == parse_encoding(SHORT)
    with pytest.raises(LayoutError, match=r"^malformed MLIR at p: #ttg.padded_shared takes "
                                          r"either \{order, shape\} or \{offset, block\}, got "
                                          r"keys \['bogus'\]$"):
        PaddedSharedEncoding.from_attribute({"bogus": 1}, "p", pairs=[(32, 4)])
    with pytest.raises(LayoutError, match=r"^invalid #ttg.padded_shared at p: "):
        PaddedSharedEncoding.from_attribute({"order": [1, 0], "shape": [64, 64]}, "p",
                                            pairs=[(32, 3)])


def test_tolerant_reading_keeps_a_bad_padded_layout_as_unsupported():
    from linlayout.triton import parse_aliases
    from linlayout.triton.encodings.registry import UnsupportedEncoding

    got = parse_aliases("#a = #ttg.padded_shared<[32:4] {order = [1, 0]}>\n", tolerant=True)
    assert isinstance(got["a"], UnsupportedEncoding) and "'+'" in got["a"].reason


def test_no_gluon_constructor_is_written():
    with pytest.raises(LayoutError, match="no Gluon constructor is written for "
                                          "PaddedSharedEncoding"):
        parse_encoding(SHORT).gluon()
