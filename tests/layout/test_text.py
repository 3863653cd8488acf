"""linlayout.layout.text: ``str`` (Triton's ``toString``), ``repr``, ``parse`` and the JSON
dict form.

Round trips on random layouts, Triton's printed forms, the parse errors, and ``str``'s fast
path against a line-by-line definition (odd names with ``%``, sizes and values beyond the
template cache).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from linlayout import LayoutError, LayoutParseError, LinearLayout
from linlayout.layout.text import MAX_REPR_INT_DIGITS, MAX_REPR_NESTING

from tests.support import layouts, random_layouts, reg_lane_layout


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


L = LinearLayout
I1 = LinearLayout.identity_1d


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


def test_str_is_tritons_to_string():
    assert str(reg_lane_layout()) == (
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


def test_empty_layout_prints_like_triton():
    # Triton: EmptyToString
    assert str(L.empty()) == "(empty layout)"


@settings(max_examples=150, deadline=None)
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


def test_repr_is_a_constructor_call():
    r = repr(reg_lane_layout())
    assert r == (
        "LinearLayout({'register': [[1, 0], [2, 0]], 'lane': [[0, 1], [0, 2]]}, "
        "out_dims={'dim0': 4, 'dim1': 4})"
    )


@SETTINGS
@given(layouts())
def test_dict_and_repr_round_trip(L):
    assert LinearLayout.from_dict(L.to_dict()) == L
    assert eval(repr(L), {"LinearLayout": LinearLayout}) == L


@SETTINGS
@given(layouts())
def test_parse_reads_back_str_and_repr(Lx):
    assert LinearLayout.parse(repr(Lx)) == Lx
    assert LinearLayout.parse(str(Lx)) == Lx
    assert LinearLayout.parse("\n" + str(Lx) + "\n") == Lx  # Triton's toString leads with \n


def test_parse_reads_tritons_text_and_rejects_anything_else():
    text = ("\n - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n - lane=1 -> (1, 0)\n"
            " - block is a size 1 dimension\nwhere out dims are: [dim0 (size 2), dim1 (size 4)]")
    Lx = LinearLayout.parse(text)
    assert Lx == L({"register": [[0, 1], [0, 2]], "lane": [[1, 0]], "block": []},
                   {"dim0": 2, "dim1": 4})
    assert LinearLayout.parse("(empty layout)") == L.empty()
    assert LinearLayout.parse("(empty layout with out-dims [dim0 (size 4)])") == L({}, {"dim0": 4})
    assert LinearLayout.parse(" - r=1 -> ()\nwhere out dims are: []") == L({"r": [[]]}, {})
    assert LinearLayout.parse("LinearLayout({'r': [[1]]}, out_dims={'o': 2})") == I1(2, "r", "o")
    bad = [
        "LinearLayout({'r': [[1]]}, out_dims=__import__('os'))",  # not a literal: never run
        "LinearLayout(",
        "Layout({'r': [[1]]})",
        "LinearLayout({'r': [[1]]}, sizes={'o': 2})",
        " - r=2 -> (1)\nwhere out dims are: [o (size 4)]",  # out of order
        " - r=1 -> (1)\n   r=1 -> (2)\nwhere out dims are: [o (size 4)]",
        " - r=1 -> (x)\nwhere out dims are: [o (size 4)]",
        " - r=1 -> (1)\n - r=1 -> (2)\nwhere out dims are: [o (size 4)]",  # r twice
        " - r=1 -> (1)",
        " - r=1 -> (1)\nwhere out dims are: [o size 4]",
        "what is this",
        "",
    ]
    for text in bad:
        with pytest.raises(LayoutParseError):
            LinearLayout.parse(text)
    with pytest.raises(LayoutParseError):
        LinearLayout.parse(42)
    # well formed but invalid: the value is too large for the out dim
    with pytest.raises(Exception) as exc:
        LinearLayout.parse(" - r=1 -> (4)\nwhere out dims are: [o (size 4)]")
    assert "'o'" in str(exc.value)


def test_to_dict_is_the_cli_json_format():
    import json

    Lx = L({"register": [[1, 0]], "lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    text = json.dumps(Lx.to_dict())
    assert json.loads(text) == {"bases": {"register": [[1, 0]], "lane": [[0, 1]]},
                                "out_dims": {"dim0": 2, "dim1": 2}}
    assert LinearLayout.from_dict(json.loads(text)) == Lx


# ----------------------------------------------------------------------------- hostile text
SMALL = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, {"dim0": 2, "dim1": 4})


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
    SMALL,
    LinearLayout.empty(),
    LinearLayout({"we'ird \"name\"\n": [[1]], "x": []}, {"o,ut": 2}),
    LinearLayout({"a": [[3]]}, {"x": 4}, require_surjective=False),
])
def test_repr_round_trips(layout):
    assert LinearLayout.parse(repr(layout)) == layout


def test_repr_forms_the_reader_accepts():
    text = ("LinearLayout( {'register': [[1, 0],], 'lane': ((0, 1), (0, 2))},\n"
            "  out_dims = {'dim0': 2, 'dim1': 4}, require_surjective=True, )")
    assert LinearLayout.parse(text) == SMALL
