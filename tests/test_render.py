"""Offset formulas (checked numerically, element by element) and text grids."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, examples, f2, synthesize_swizzle
from linlayout.show.formula import evaluate_fields, offset_fields, offset_formula, offset_formula_latex
from linlayout.show.render import grid_distributed, grid_memory

MN = {"dim0": "m", "dim1": "n"}

#: The article's optimal swizzle: bank bits = n, segment bit j = m_j ⊕ n_{j+1}.
ARTICLE = LinearLayout(
    {"bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
     "segment": [[1, 2], [2, 4], [4, 8], [8, 16]]},
    {"dim0": 16, "dim1": 32},
)
#: Row-major 16×32: offset bits 0-4 are n, bits 5-8 are m.
ROW_MAJOR = LinearLayout(
    {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0]]},
    {"dim0": 16, "dim1": 32},
)


def _real_offsets(memory: LinearLayout) -> dict[tuple[int, ...], int]:
    """Element offset (and block) of every tensor element, by brute force over the inputs."""
    sizes = memory.in_dims
    order = [n for n in ("vector", "bank", "segment", "reps", "offset", "block") if n in sizes]
    out = {}
    for values in _product([sizes[n] for n in order]):
        point = dict(zip(order, values))
        off, shift = 0, 0
        for n in order:
            if n != "block":
                off |= point[n] << shift
                shift += sizes[n].bit_length() - 1
        coords = tuple(memory.apply(point).values())
        out[coords] = (off, point.get("block", 0))
    return out


def _product(sizes: list[int]):
    if not sizes:
        yield ()
        return
    for head in range(sizes[0]):
        for tail in _product(sizes[1:]):
            yield (head,) + tail


def _eval_formula_text(text: str, names: list[str], coords: tuple[int, ...]) -> tuple[int, int]:
    """Evaluate the printed formula string itself (⊕ → ^, · → *, ⌊x/k⌋ → x//k)."""
    parts = dict(p.split(" = ", 1) for p in text.split("; "))
    env = dict(zip(names, coords))
    vals = []
    for key in ("offset", "block"):
        expr = parts.get(key, "0")
        expr = re.sub(r"⌊(\w+)/(\d+)⌋", r"(\1//\2)", expr).replace("⊕", "^").replace("·", "*")
        vals.append(eval(expr, {"__builtins__": {}}, env))  # noqa: S307 - test-only, own output
    return vals[0], vals[1]


def _assert_formula_exact(memory: LinearLayout, names: dict[str, str] | None = None) -> str:
    text = offset_formula(memory, names)
    shown = [(names or {}).get(n, n) for n in memory.out_dim_names]
    fields = offset_fields(memory)
    for coords, (off, block) in _real_offsets(memory).items():
        assert _eval_formula_text(text, shown, coords) == (off, block), (text, coords)
        point = dict(zip(memory.out_dim_names, coords))
        assert evaluate_fields(fields[0], point) == off
        assert evaluate_fields(fields[1], point) == block
    return text


# ---------------------------------------------------------------------------- formulas
def test_article_layout_prints_article_formula():
    assert _assert_formula_exact(ARTICLE, MN) == "offset = 32·m + (n ⊕ 2·m)"


def test_synthesized_transpose_prints_article_formula():
    ex = examples.get("transpose")
    result = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert offset_formula(result.layout, MN) == "offset = 32·m + (n ⊕ 2·m)"


def test_row_major_formula():
    assert _assert_formula_exact(ROW_MAJOR, MN) == "offset = 32·m + n"
    assert offset_formula(ROW_MAJOR) == "offset = 32·dim0 + dim1"


@pytest.mark.parametrize("name", examples.names())
def test_formula_of_every_example_is_exact(name):
    ex = examples.get(name)
    result = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    _assert_formula_exact(result.layout)


@pytest.mark.parametrize("shape", [(8,), (4, 8), (16, 2), (2, 4, 8), (1, 16)])
def test_row_and_column_major_formulas_are_exact(shape):
    names = [f"dim{i}" for i in range(len(shape))]
    bits = [s.bit_length() - 1 for s in shape]
    for order in (list(range(len(shape))), list(reversed(range(len(shape))))):
        images = []
        for d in order:
            for b in range(bits[d]):
                img = [0] * len(shape)
                img[d] = 1 << b
                images.append(img)
        mem = LinearLayout({"offset": images}, dict(zip(names, shape)))
        _assert_formula_exact(mem)


def test_partial_coordinates_use_floor_and_mask():
    # offset bits 0-1 = n1 n2, bit 2 = n0, bits 3-4 = n3 n4, bits 5-8 = m.
    mem = LinearLayout(
        {"offset": [[0, 2], [0, 4], [0, 1], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0]]},
        {"dim0": 16, "dim1": 32},
    )
    text = _assert_formula_exact(mem, MN)
    assert text == "offset = 32·m + 8·⌊n/8⌋ + 4·(n & 1) + (⌊n/2⌋ & 3)"


def test_shared_run_merges_into_one_term():
    # offset bit 0 = n0, bits 1-4 = m ⊕ ⌊n/2⌋, bits 5-8 = ⌊n/2⌋: n's bits 0-4 form one run.
    mem = LinearLayout(
        {"offset": [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0], [1, 2], [2, 4], [4, 8], [8, 16]]},
        {"dim0": 16, "dim1": 32},
    )
    assert _assert_formula_exact(mem, MN) == "offset = 32·⌊n/2⌋ + (n ⊕ 2·m)"


def test_block_dim_gets_its_own_formula():
    mem = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0]], "block": [[2, 0]]},
                       {"dim0": 4, "dim1": 4})
    text = _assert_formula_exact(mem)
    assert text == "offset = 4·(dim0 & 1) + dim1; block = ⌊dim0/2⌋"


@st.composite
def _bijections(draw):
    nbits = draw(st.integers(min_value=0, max_value=8))
    split = draw(st.integers(min_value=0, max_value=nbits))
    cols: list[int] = []
    while len(cols) < nbits:
        c = draw(st.integers(min_value=1, max_value=(1 << nbits) - 1))
        if not f2.in_span(c, cols):
            cols.append(c)
    in_dims = {"offset": 1 << nbits}
    out_dims = {"dim0": 1 << split, "dim1": 1 << (nbits - split)}
    return LinearLayout.from_columns(cols, in_dims, out_dims)


@settings(max_examples=150, deadline=None)
@given(_bijections())
def test_formula_of_random_bijections_is_exact(mem):
    _assert_formula_exact(mem)


def test_formula_errors():
    with pytest.raises(LayoutError):
        offset_formula(ARTICLE, {"rows": "m"})
    with pytest.raises(LayoutError):
        offset_formula(ARTICLE, {"dim0": ""})
    singular = LinearLayout({"offset": [[0, 1], [0, 1]]}, {"dim0": 1, "dim1": 4})
    with pytest.raises(LayoutError):
        offset_formula(singular)
    with pytest.raises(LayoutError):
        offset_formula(examples.get("transpose").store)  # a distributed layout
    with pytest.raises(LayoutError):
        offset_formula("not a layout")  # type: ignore[arg-type]


def test_empty_tensor_formula():
    mem = LinearLayout({"offset": []}, {"dim0": 1})
    assert offset_formula(mem) == "offset = 0"


def test_latex():
    assert offset_formula_latex(ARTICLE, MN) == r"\mathrm{offset} = 32 m + \left(n \oplus 2 m\right)"


def test_import_stays_light():
    code = (
        "import sys, linlayout, linlayout.cli, linlayout.show.formula, linlayout.show.render;"
        "bad = [m for m in ('sympy', 'galois') if m in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------- grids
def _body(grid: str) -> list[str]:
    return grid.splitlines()[3:]


def test_grid_distributed_transpose():
    ex = examples.get("transpose")
    g = grid_distributed(ex.store)
    lines = g.splitlines()
    assert lines[0].startswith("rows: dim0 (16), columns: dim1 (32)")
    assert len(_body(g)) == 16
    assert _body(g)[0].split("|")[1].split()[:3] == ["t0:r0", "t1:r0", "t2:r0"]
    assert _body(g)[15].split()[-1] == "t31:r15"
    assert len({len(line) for line in lines[1:]}) == 1  # aligned
    load = grid_distributed(ex.load)
    assert _body(load)[1].split("|")[1].split()[:2] == ["t1:r0", "t17:r0"]


def test_grid_distributed_broadcast_warp_and_1d():
    bcast = LinearLayout({"register": [[1]], "lane": [[0], [2]], "warp": [[0]]}, {"dim0": 4})
    g = grid_distributed(bcast)
    assert len(_body(g)) == 1
    cells = _body(g)[0].split("|")[1].split()
    assert cells == ["w0:t0:r0*", "w0:t0:r1*", "w0:t2:r0*", "w0:t2:r1*"]
    partial = LinearLayout({"register": [[1]]}, {"dim0": 4})
    assert _body(grid_distributed(partial))[0].split("|")[1].split() == ["t0:r0", "t0:r1", "-", "-"]


def test_grid_truncates_wide_tensors():
    ex = examples.get("transpose-128")
    g = grid_distributed(ex.store)
    assert g.splitlines()[-1] == "(truncated: columns 64..127 not shown)"
    assert len(_body(g)) == 128 + 1
    small = grid_distributed(ex.store, max_cols=4, max_rows=2)
    assert small.splitlines()[-1] == "(truncated: columns 4..127 and rows 2..127 not shown)"


def test_grid_rejects_3d_and_bad_in_dims():
    three = LinearLayout({"register": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
                         {"dim0": 2, "dim1": 2, "dim2": 2})
    with pytest.raises(LayoutError, match="1-D and 2-D"):
        grid_distributed(three)
    with pytest.raises(LayoutError):
        grid_distributed(ROW_MAJOR)


def test_grid_memory_article():
    g = grid_memory(ARTICLE, 32)
    body = _body(g)
    assert len(body) == 16
    row1 = body[1].split("|")[1].split()
    assert row1[:4] == ["34/2", "35/3", "32/0", "33/1"]
    # every row of the article's swizzle uses all 32 banks once
    for line in body:
        banks = [int(c.split("/")[1]) for c in line.split("|")[1].split()]
        assert sorted(banks) == list(range(32))


def test_grid_memory_subword_and_block():
    g = grid_memory(ROW_MAJOR, 16)
    assert _body(g)[1].split("|")[1].split()[:3] == ["32/16", "33/16", "34/17"]
    mem = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0]], "block": [[2, 0]]},
                       {"dim0": 4, "dim1": 4})
    cells = _body(grid_memory(mem, 32))[2].split("|")[1].split()
    assert cells[0] == "b1:0/0"
    with pytest.raises(LayoutError):
        grid_memory(ROW_MAJOR, 3)
    with pytest.raises(LayoutError):
        grid_memory(LinearLayout({"offset": [[0, 1], [0, 1]]}, {"dim0": 1, "dim1": 4}), 32)
