"""linlayout.triton.encodings.base: CGA layouts, the Gluon printers and the Encoding defaults."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton.encodings import AmdRotatingSharedEncoding, CGALayout, cga_layout_from_split
from linlayout.triton.encodings.base import format_value, gluon_cga, gluon_list

from tests.triton.encodings.cases import DATA


def test_legacy_cga_triples_match_triton():
    for case in DATA["legacy_cga"]:
        cga = cga_layout_from_split(case["CTAsPerCGA"], case["CTASplitNum"], case["CTAOrder"])
        assert [list(b) for b in cga.bases] == case["bases"], case


def test_cga_text_and_gluon():
    cga = CGALayout(2, ((1, 0), (0, 2)))
    assert cga.text() == ", CGALayout = [[1, 0], [0, 2]]"
    assert gluon_cga(cga) == ", cga_layout=[[1, 0], [0, 2]]"
    assert CGALayout(2).text() == "" and gluon_cga(CGALayout(2)) == "" and gluon_cga(None) == ""
    assert cga.split_num == (2, 4)


def test_printers():
    assert format_value([True, [1, (2, 3)]]) == "[true, [1, [2, 3]]]"
    assert gluon_list([[0, 1], (2, 0), []]) == "[[0, 1], [2, 0], []]"


def test_an_encoding_without_a_gluon_constructor_says_so():
    enc = AmdRotatingSharedEncoding(4, 2, 4, [1, 0])
    with pytest.raises(LayoutError, match=r"^no Gluon constructor is written for "
                                          r"AmdRotatingSharedEncoding \(#ttg.amd_rotating_shared"):
        enc.gluon()


@pytest.mark.parametrize("make, msg", [
    (lambda: CGALayout(2, [[3, 0]]), "power of two"),
    (lambda: CGALayout(2, [[1]]), "rank is 2"),
    (lambda: cga_layout_from_split([2, 1], [4, 1], [1, 0]), "divide"),
])
def test_bad_cga_layouts_raise_layout_error(make, msg):
    with pytest.raises(LayoutError, match=msg):
        make()
