"""linlayout.triton.parse: MLIR types and attributes, old spellings, errors with positions."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton import (
    TritonType,
    element_bits,
    parse_aliases,
    parse_attribute,
    parse_encoding,
    parse_type,
)
from linlayout.triton import encodings as L


BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
           "order = [1, 0]}>")


SWZ = "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>"


def test_tensor_type_gives_its_layout():
    t = parse_type(f"tensor<64x64xf16, {BLOCKED}>")
    assert isinstance(t, TritonType)
    assert (t.kind, t.shape, t.element_type, t.element_bits) == ("tensor", (64, 64), "f16", 16)
    assert t.layout == L.blocked([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([64, 64])
    assert list(t.layout.in_dim_names) == ["register", "lane", "warp", "block"]
    assert list(t.layout.out_dim_names) == ["dim0", "dim1"]


def test_memdesc_types_give_one_buffers_layout():
    t = parse_type(f"!ttg.memdesc<64x64xf16, {SWZ}, #ttg.shared_memory, mutable>")
    assert (t.kind, t.shape, t.memory_space, t.mutable) == ("memdesc", (64, 64), "shared_memory",
                                                           True)
    assert list(t.layout.in_dim_names) == ["offset", "block"]
    # multi-buffered: the leading dim indexes buffers; the layout is one buffer's
    t = parse_type(f"!ttg.memdesc<2x128x32xf16, {SWZ}, #ttg.shared_memory, mutable>")
    assert t.shape == (2, 128, 32) and t.view_shape == (128, 32)
    assert t.layout.out_dims == {"dim0": 128, "dim1": 32}
    # a subslice view names its allocation shape; the layout is the allocation's
    t = parse_type(f"!ttg.memdesc<128x16xf16, {SWZ}, #ttg.shared_memory, mutable, 128x32>")
    assert t.shape == (128, 16) and t.layout_shape == (128, 32)
    # the bare form printed by ttg.async_copy_global_to_local, and the old !tt.memdesc
    assert parse_type(f"<128x32xf16, {SWZ}, #ttg.shared_memory, mutable>").shape == (128, 32)
    assert parse_type(f"!tt.memdesc<128x32xf16, {SWZ}>").kind == "memdesc"


def test_pointer_tensor_and_no_encoding():
    t = parse_type(f"tensor<128x32x!tt.ptr<f16>, {BLOCKED}>")
    assert t.element_type == "!tt.ptr<f16>" and t.element_bits == 64
    t = parse_type("tensor<16xi32>")
    assert t.encoding is None
    with pytest.raises(LayoutError, match="no layout encoding"):
        t.layout


@pytest.mark.parametrize("ty, bits", [
    ("f16", 16), ("bf16", 16), ("f32", 32), ("tf32", 32), ("f64", 64), ("f8E4M3FN", 8),
    ("f8E5M2", 8), ("f8E4M3FNUZ", 8), ("f8E5M2FNUZ", 8), ("f8E4M3B11FNUZ", 8), ("i1", 8),
    ("i8", 8), ("i16", 16), ("i32", 32), ("i64", 64), ("ui8", 8), ("f4E2M1FN", 4),
    ("!tt.ptr<f32>", 64),
])
def test_element_bits_of_every_type(ty, bits):
    assert element_bits(ty) == bits


def test_unknown_element_type():
    with pytest.raises(LayoutError, match="unknown element type"):
        element_bits("complex<f32>")
    with pytest.raises(LayoutError, match="line 1, column 1"):
        parse_type("tensor<4xq7>")


def test_aliases_resolve_in_types():
    text = f"""#blocked = {BLOCKED}
#mma = #ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}}>
#shared = {SWZ}
#smem = #ttg.shared_memory
#loc = loc("k.py":1:1)
"""
    aliases = parse_aliases(text)
    assert set(aliases) == {"blocked", "mma", "shared", "smem"}
    t = parse_type("tensor<128x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>",
                   aliases)
    assert isinstance(t.encoding, L.DotOperandEncoding)
    t = parse_type("!ttg.memdesc<128x32xf16, #shared, #smem, mutable>", aliases)
    assert t.memory_space == "shared_memory"
    # aliases may also be given as text, with or without '#'
    assert parse_type("tensor<64x64xf16, #b>", {"#b": BLOCKED}).shape == (64, 64)
    with pytest.raises(LayoutError, match="unknown attribute alias #nope"):
        parse_type("tensor<64x64xf16, #nope>", aliases)


def test_parse_attribute_is_the_layout():
    assert parse_attribute(SWZ, [64, 64]) == L.swizzled_shared(8, 2, 4, [1, 0]).to_linear_layout(
        [64, 64])
    with pytest.raises(LayoutError, match="rank"):
        parse_attribute(SWZ, [64])


def test_older_spellings():
    """#triton_gpu. (Triton ≤ 3.1), CTAsPerCGA/CTASplitNum/CTAOrder (≤ 3.5), #ttg.shared with
    hasLeadingOffset (≤ 3.2), amd_wmma with warpsPerCTA and amd_mfma with versionMajor."""
    old = parse_encoding(
        "#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = "
        "[4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>")
    new = parse_encoding(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
        "order = [1, 0], CGALayout = [[1, 0]]}>")
    assert old == new
    t = parse_type("!ttg.memdesc<64x64xf16, #ttg.shared<{vec = 8, perPhase = 1, maxPhase = 8, "
                   "order = [1, 0], hasLeadingOffset = true}>, #ttg.shared_memory>")
    assert t.encoding == L.nvmma_shared(128, 16)
    t = parse_type("!ttg.memdesc<64x64xf16, #ttg.shared<{vec = 8, perPhase = 1, maxPhase = 8, "
                   "order = [1, 0], hasLeadingOffset = false}>, #ttg.shared_memory>")
    assert t.encoding == L.swizzled_shared(8, 1, 8, [1, 0])
    with pytest.raises(LayoutError, match="element type"):
        parse_encoding("#ttg.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
                       "hasLeadingOffset = true}>")
    w = parse_encoding("#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>")
    assert w == parse_encoding("#ttg.amd_wmma<{version = 2, isTranspose = false, "
                               "ctaLayout = {warp = [[0, 1], [1, 0]]}}>")
    m = parse_encoding("#triton_gpu.amd_mfma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
                       "[2, 2], instrShape = [32, 32], isTransposed = true}>")
    assert m.to_linear_layout([64, 64]) == L.amd_mfma(2, [2, 2], [32, 32, 8], True
                                                      ).to_linear_layout([64, 64])


@pytest.mark.parametrize("text, match", [
    (f"tensor<64x64xf16, {BLOCKED[:-3]}", "line 1, column"),
    ("tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 4] threadsPerWarp = [8, 4]}>>",
     "line 1, column 56: expected ',' or '}'"),
    ("tensor<64x48xf16>", "not a power of two"),
    ("tensor<xf16>", "shape"),
    ("vector<4xf16>", "expected a type"),
    ("tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 4]}>>", "#ttg.blocked needs 'order'"),
    ("tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 4], colour = 3}>>", "unknown key"),
    ("tensor<64x64xf16, #ttg.frobnicated<{}>>", "not a layout linlayout knows"),
    ("tensor<64x64xf16, #gpu.blocked<{}>>", "not a Triton GPU attribute"),
    ("tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 3], threadsPerWarp = [8, 4], "
     "warpsPerCTA = [4, 1], order = [1, 0]}>>", "invalid #ttg.blocked"),
    ("tensor<64xf16, " + BLOCKED + ">", "rank"),
    (f"tensor<64x64xf16, {BLOCKED}, {BLOCKED}>", "second layout"),
    (f"tensor<64x64xf16, {BLOCKED}> trailing", "end of the type"),
])
def test_malformed_text_names_the_position(text, match):
    with pytest.raises(LayoutError, match=match):
        parse_type(text)


def test_error_position_is_on_the_right_line():
    text = "tensor<64x64xf16,\n   #ttg.blocked<{sizePerThread = [1, 4],, order = [1, 0]}>>"
    with pytest.raises(LayoutError, match="line 2, column 41: expected a key"):
        parse_type(text)


def test_non_string_input_raises_layout_error():
    with pytest.raises(LayoutError, match="str"):
        parse_type(42)  # type: ignore[arg-type]
