"""LinearLayout.parse on hostile text (issue 14): every failure is a LayoutParseError, in time
linear in the text — no MemoryError, RecursionError, TypeError or interpreter int-limit
ValueError."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.errors import LayoutParseError
from linlayout.layout.text import MAX_REPR_INT_DIGITS, MAX_REPR_NESTING

L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, {"dim0": 2, "dim1": 4})


@pytest.mark.parametrize("text", [
    "LinearLayout(" + "-" * 20000 + "1)",
    "LinearLayout(" + "(" * 20000 + ")" * 20000 + ")",
    "LinearLayout(" + "[" * 20000 + "]" * 20000 + ")",
    "LinearLayout({[1]: 2})",
    "LinearLayout({'a': [[1]]}, out_dims={'x': 2}, out_dims={'x': 2})",
    "LinearLayout(out_dims={'x': 2}, {'a': [[1]]})",
    "LinearLayout({'a': [[1]]}, {'x': 2}, bogus=1)",
    "LinearLayout({'a': [[1]]}, {'x': 2}) + 1",
    "LinearLayout({'a': [[1 if x else 2]]}, {'x': 2})",
    "LinearLayout({'a': [[__import__('os')]]}, {'x': 2})",
    "LinearLayout({'a': [[1]]}, {'x': 2}",
    "LinearLayout('unterminated",
    "LinearLayout()",
    "LinearLayout({'a': [[" + "1" * 5000 + "]]}, {'x': 2})",
    "LinearLayout({'a': [[1]]}, {'x': " + "2" * 5000 + "})",
    " - a=" + "1" * 5000 + " -> (1)\nwhere out dims are: [x (size 2)]",
    " - a=1 -> (" + "1" * 5000 + ")\nwhere out dims are: [x (size 2)]",
    " - a=1 -> (1)\nwhere out dims are: [x (size " + "2" * 5000 + ")]",
    " - " + "a=" * 50000 + "1 -> (1)\nwhere out dims are: [x (size 2)]",
])
def test_hostile_text_raises_parse_error(text):
    with pytest.raises(LayoutError):
        LinearLayout.parse(text)


def test_limits_are_named():
    deep = "LinearLayout(" + "[" * (MAX_REPR_NESTING + 1) + "]" * (MAX_REPR_NESTING + 1) + ")"
    with pytest.raises(LayoutParseError, match="nests more than"):
        LinearLayout.parse(deep)
    big = "LinearLayout({'a': [[" + "1" * (MAX_REPR_INT_DIGITS + 1) + "]]}, {'x': 2})"
    with pytest.raises(LayoutParseError, match=f"at most {MAX_REPR_INT_DIGITS}"):
        LinearLayout.parse(big)


@pytest.mark.parametrize("layout", [
    L,
    LinearLayout.empty(),
    LinearLayout({"we'ird \"name\"\n": [[1]], "x": []}, {"o,ut": 2}),
    LinearLayout({"a": [[3]]}, {"x": 4}, require_surjective=False),
])
def test_repr_round_trips(layout):
    assert LinearLayout.parse(repr(layout)) == layout


def test_repr_forms_the_reader_accepts():
    text = ("LinearLayout( {'register': [[1, 0],], 'lane': ((0, 1), (0, 2))},\n"
            "  out_dims = {'dim0': 2, 'dim1': 4}, require_surjective=True, )")
    assert LinearLayout.parse(text) == L
