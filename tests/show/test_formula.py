"""linlayout.show.formula: offset formulas, checked numerically element by element.

Each printed formula is evaluated as text (and as fields) on every element and compared with
the layout's true offset; the article's layouts print the article's formulas.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, examples, f2, synthesize_swizzle
from linlayout.synthesis import common_vector_layout
from linlayout.show.formula import evaluate_fields, offset_fields, offset_formula, offset_formula_latex


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


def test_article_layout_prints_article_formula():
    assert _assert_formula_exact(ARTICLE, MN) == "offset = 32·m + (n ⊕ 2·m)"


def test_common_vector_transpose_prints_article_formula():
    """The Linear Layouts paper's objective (one vector for both sides) gives the article's
    layout; the cost objective stores 16 bytes per lane instead (m contiguous)."""
    ex = examples.get("transpose")
    common = common_vector_layout(ex.store, ex.load, element_bits=32)
    assert offset_formula(common, MN) == "offset = 32·m + (n ⊕ 2·m)"
    result = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert _assert_formula_exact(result.layout, MN) == \
        "offset = 128·⌊n/8⌋ + 32·⌊m/4⌋ + 4·((n & 7) ⊕ 2·⌊m/4⌋) + (m & 3)"


def test_row_major_prints_32m_plus_n():
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


def test_formula_rejects_bad_names_and_non_bijections():
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


def test_empty_tensor_offset_is_zero():
    mem = LinearLayout({"offset": []}, {"dim0": 1})
    assert offset_formula(mem) == "offset = 0"


def test_latex_formula_of_the_article_layout():
    assert offset_formula_latex(ARTICLE, MN) == r"\mathrm{offset} = 32 m + \left(n \oplus 2 m\right)"


def test_the_self_check_rejects_a_formula_that_misses_one_element(monkeypatch):
    """offset_formula checks the fields it prints against the layout before returning them:
    a formula wrong at one bit of one coordinate (here: the XOR term dropped) raises, on a
    tile it checks element by element and on one it checks basis bit by basis bit."""
    import linlayout.show.formula as formula
    from linlayout.show.formula import Field

    right = formula.offset_fields

    def dropped_xor(memory):
        offsets, blocks = right(memory)
        return [Field(f.stride_log2, f.parts[:1]) for f in offsets], blocks

    for size in (16, 512):  # 2^8 elements (every one checked) and 2^18 (basis bits)
        bases = [[0, 1 << i] for i in range(size.bit_length() - 1)]
        bases += [[1 << i, 1 << i] for i in range(size.bit_length() - 1)]  # swizzled rows
        memory = LinearLayout({"offset": bases}, {"dim0": size, "dim1": size})
        assert "⊕" in offset_formula(memory)
        monkeypatch.setattr(formula, "offset_fields", dropped_xor)
        with pytest.raises(RuntimeError, match="self-check failed"):
            offset_formula(memory)
        monkeypatch.setattr(formula, "offset_fields", right)
