"""linlayout.ptx.tma: TMA tiles against the hardware model written out element by element,
finding the TMA copy that writes a given layout, and — where Triton is installed — Triton's
NVMMASharedLayout, which must equal tma_tile_layout.

Triton 3.9's Gluon builder converts an ``NVMMASharedLayout(swizzle_byte_width,
element_bitwidth, transposed)`` to a linear layout (``offset_bases``: element offset -> [dim0,
dim1]). It runs in a subprocess because Triton aborts the interpreter on shapes it rejects;
those comparisons are skipped without Triton.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout import f2, ptx
from linlayout.ptx import SwizzleMode as SM


LINEAR_ROWS = [m for m in SM if m is not SM.SWIZZLE_96B]


def direct_tile_offset(mode, eb, rows, cols, B, r, c):
    """Hardware model written out once more: boxes along dim1, dense rows, byte swizzle."""
    box_elems = B * 8 // eb
    j, cc = divmod(c, box_elems)
    bit = (j * rows * B + r * B) * 8 + cc * eb
    return (ptx.swizzled_address(mode, bit // 8) * 8 + bit % 8) // eb


@pytest.mark.parametrize("mode", LINEAR_ROWS)
@pytest.mark.parametrize("eb", [4, 8, 16, 32, 64])
def test_tma_tile_layout_matches_the_hardware_model(mode, eb):
    m = ptx.swizzle_mode(mode)
    cols = 256 * 8 // eb  # 256-byte rows: two 128 B boxes, or more for narrower swizzles
    for rows in (8, 16):
        try:
            L = ptx.tma_tile_layout(m, element_bits=eb, rows=rows, cols=cols)
        except LayoutError as exc:
            assert "split" in str(exc) or "256" in str(exc)
            continue
        B = m.span_bytes or min(256, 256 * eb // 8)
        inv = L.invert()
        seen = set()
        for r in range(rows):
            for c in range(cols):
                off = inv.apply({"dim0": r, "dim1": c})["offset"]
                assert off == direct_tile_offset(m, eb, rows, cols, B, r, c)
                seen.add(off)
        assert len(seen) == rows * cols


def test_tma_tile_layout_prints_the_expected_formula():
    from linlayout.show.formula import offset_formula

    names = {"dim0": "row", "dim1": "col"}
    L = ptx.tma_tile_layout("128B", element_bits=16, rows=16, cols=128)
    assert offset_formula(L, names) == "offset = 1024·⌊col/64⌋ + 64·row + ((col & 63) ⊕ 8·(row & 7))"
    L = ptx.tma_tile_layout("32B", element_bits=8, rows=8, cols=32)
    assert offset_formula(L, names) == "offset = 32·row + (col ⊕ 16·⌊row/4⌋)"


@pytest.mark.parametrize("kwargs,match", [
    (dict(mode="128B", element_bits=16, rows=8, cols=4), "16 bytes"),
    (dict(mode="64B", element_bits=16, rows=8, cols=64, box_inner_bytes=128), "at most 64"),
    (dict(mode="128B_atom_64B", element_bits=16, rows=8, cols=64, box_inner_bytes=32),
     "at least 64"),
    (dict(mode="128B", element_bits=16, rows=8, cols=64, box_inner_bytes=48), "power of two"),
    (dict(mode="128B", element_bits=16, rows=8, cols=64, box_inner_bytes=256), "exceeds"),
    (dict(mode="none", element_bits=2, rows=8, cols=2048, box_inner_bytes=128), "256"),
    (dict(mode="128B_atom_32B_flip_8B", element_bits=128, rows=8, cols=8), "split"),
    (dict(mode="128B", element_bits=16, rows=2, cols=128, box_inner_bytes=32), "128-byte"),
    (dict(mode="128B", element_bits=12, rows=8, cols=64), "element_bits"),
    (dict(mode="128B", element_bits=16, rows=6, cols=64), "rows"),
])
def test_tma_tile_layout_rejects_impossible_boxes(kwargs, match):
    mode = kwargs.pop("mode")
    with pytest.raises(LayoutError, match=match):
        ptx.tma_tile_layout(mode, **kwargs)


def test_tma_box_layout_generalises_the_tile():
    from linlayout.ptx.tma import tma_box_layout

    tile = ptx.tma_tile_layout("64B", element_bits=16, rows=8, cols=64, box_inner_bytes=64)
    assert tma_box_layout("64B", {"dim0": 8, "dim1": 64}, ["dim1", "dim0"], 16, 64) == tile
    # three dims, the middle one contiguous: every element lands once, where the model says
    L = tma_box_layout("128B", {"a": 2, "b": 64, "c": 4}, ["b", "a", "c"], 16, 128)
    assert L.in_dims == {"offset": 512} and L.is_invertible
    inv = L.invert()
    for a in range(2):
        for c in range(4):
            for b in range(64):
                r = a + 2 * c  # rows: the other dims in box order, the first fastest
                e = inv.apply({"a": a, "b": b, "c": c})["offset"]
                assert e == ptx.swizzled_address("128B", r * 128 + 2 * b) // 2
    for args, match in [
        (({"dim0": 8, "dim1": 64}, ["dim1"]), "every dim"),
        (({"dim0": 8, "dim1": 64}, ["dim1", "dim1"]), "every dim"),
        (({"dim0": 8, "dim1": 64}, "dim1"), "list of dim names"),
        (({"dim0": 6, "dim1": 64}, ["dim1", "dim0"]), "dim0"),
        ((["dim0"], ["dim0"]), "mapping"),
    ]:
        with pytest.raises(LayoutError, match=match):
            tma_box_layout("128B", *args, 16, 128)
    with pytest.raises(LayoutError, match="96B"):
        tma_box_layout("96B", {"dim0": 8, "dim1": 64}, ["dim1", "dim0"], 16, 64)


@pytest.mark.parametrize("mode", LINEAR_ROWS)
@pytest.mark.parametrize("dims", [{"dim0": 64, "dim1": 32}, {"dim0": 4, "dim1": 8, "dim2": 64},
                                  {"dim0": 1, "dim1": 128}])
def test_tma_offset_columns_invert_tma_layouts(mode, dims):
    for eb in (8, 16, 32):
        layouts = ptx.tma_layouts(mode, dims, eb)
        offsets = ptx.tma.tma_offset_columns(mode, dims, eb)
        assert [m for m, _ in offsets] == [m for m, _ in layouts]
        for (_, mem), (_, offs) in zip(layouts, offsets):
            # offs[i]: the element offset of tensor bit i, the inverse of the layout's columns
            assert f2.inverse(list(offs)) == list(mem.columns)


def test_tma_offset_columns_rejects_96b():
    with pytest.raises(LayoutError, match="96B"):
        ptx.tma.tma_offset_columns(SM.SWIZZLE_96B, {"dim0": 8, "dim1": 64}, 16)


def test_match_tma_mode_finds_tiles():
    for m in LINEAR_ROWS:
        for eb in (8, 16, 32):
            width = m.span_bytes or 128
            cols = 2 * width * 8 // eb
            L = ptx.tma_tile_layout(m, element_bits=eb, rows=16, cols=cols)
            got = ptx.match_tma_mode(L, eb)
            assert got is not None
            # whatever it reports rebuilds the same layout
            rebuilt = ptx.tma_tile_layout(got.mode, element_bits=eb, rows=16, cols=cols,
                                          box_inner_bytes=got.box_inner_bytes)
            assert got.dim_order == ("dim1", "dim0")
            assert rebuilt == L
            assert any(x.mode is m for x in ptx.tma_matches(L, eb))
    got = ptx.match_tma_mode(ptx.tma_tile_layout("128B", element_bits=16, rows=8, cols=64), 16)
    assert got.describe() == "realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)"
    assert got.to_dict()["cu_tensor_map_swizzle_value"] == 3
    two = ptx.match_tma_mode(ptx.tma_tile_layout("128B", element_bits=16, rows=16, cols=128), 16)
    assert two.boxes == 2 and "2 boxes along dim1" in two.describe()


def test_match_tma_mode_transposed_and_vector_bank_segment():
    L = ptx.tma_tile_layout("64B", element_bits=16, rows=8, cols=32)
    # the same memory with the tensor dims swapped: now dim0 is contiguous
    T = LinearLayout({"offset": [[b[1], b[0]] for b in L.bases["offset"]]}, {"dim0": 32, "dim1": 8})
    got = ptx.match_tma_mode(T, 16)
    assert got.mode.value == "64B" and got.inner_dim == "dim0"
    # vector/bank/segment in dims flatten into the offset
    cols = L.bases["offset"]
    V = LinearLayout({"vector": cols[:3], "bank": cols[3:6], "segment": cols[6:]}, L.out_dims)
    assert ptx.match_tma_mode(V, 16) == ptx.match_tma_mode(L, 16)


def test_match_tma_mode_none_for_non_tma_layouts():
    from linlayout import examples, synthesize_swizzle

    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert ptx.match_tma_mode(r.layout, 32) is None  # XOR at 8-byte granularity
    # a 128B-like XOR whose source is the wrong row bit
    bad = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32],
                                   [1, 16], [2, 8], [4, 32]]}, {"dim0": 8, "dim1": 64})
    assert ptx.match_tma_mode(bad, 16) is None
    tiny = LinearLayout({"offset": [[1]]}, {"dim0": 2})
    assert ptx.match_tma_mode(tiny, 16) is None  # 4 bytes: no 16-byte chunk


def test_match_tma_mode_rejects_bad_layouts():
    L = LinearLayout({"offset": [[0, 1], [1, 0]], "block": [[0, 2]]}, {"dim0": 2, "dim1": 4})
    with pytest.raises(LayoutError, match="block"):
        ptx.match_tma_mode(L, 128)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode(LinearLayout({"offset": [[1], [1]]}, {"dim0": 4}), 32)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode("layout", 16)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode(ptx.tcgen05_atom("128B", "K", 16), 24)


CASES = [  # (swizzle bytes, element bits, [dim0, dim1], transposed)
    (128, 16, [8, 64], False), (128, 16, [16, 128], False), (64, 16, [8, 32], False),
    (32, 8, [8, 32], False), (128, 32, [8, 32], False), (0, 16, [8, 8], False),
    (0, 16, [8, 64], False), (128, 16, [64, 8], True), (128, 16, [128, 32], True),
    (64, 8, [16, 64], False), (32, 16, [32, 16], True),
]


PROGRAM = r"""
import json, sys
from triton._C.libtriton import ir, gluon_ir
import triton.experimental.gluon.language as gl
ctx = ir.context(); ir.load_dialects(ctx)
b = gluon_ir.GluonOpBuilder(ctx)
out = []
for sw, eb, shape, tr in json.loads(sys.argv[1]):
    lay = gl.NVMMASharedLayout(swizzle_byte_width=sw, element_bitwidth=eb, rank=2, transposed=tr)
    out.append(b.to_linear_layout(lay._to_ir(b), shape).offset_bases)
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def triton_bases():
    pytest.importorskip("triton")
    try:
        proc = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(CASES)],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip("Triton took too long to start")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.skip(f"this Triton cannot build NVMMA layouts here: {proc.stderr[-300:]}")
    return json.loads(lines[0][len("RESULT "):])


@pytest.mark.parametrize("i", range(len(CASES)))
def test_nvmma_shared_equals_tma_tile(triton_bases, i):
    sw, eb, (d0, d1), transposed = CASES[i]
    theirs = LinearLayout({"offset": triton_bases[i]}, {"dim0": d0, "dim1": d1})
    mode = {0: "none", 32: "32B", 64: "64B", 128: "128B"}[sw]
    if transposed:  # dim0 contiguous: build with the dims swapped, then swap back
        t = ptx.tma_tile_layout(mode, element_bits=eb, rows=d1, cols=d0,
                                box_inner_bytes=None if sw else d0 * eb // 8)
        ours = LinearLayout({"offset": [[b[1], b[0]] for b in t.bases["offset"]]},
                            {"dim0": d0, "dim1": d1})
    else:
        ours = ptx.tma_tile_layout(mode, element_bits=eb, rows=d0, cols=d1,
                                   box_inner_bytes=None if sw else d1 * eb // 8)
    assert ours == theirs
    got = ptx.match_tma_mode(theirs, eb)
    assert got is not None
    assert got.inner_dim == ("dim0" if transposed else "dim1")
    if sw:
        assert got.mode.value == mode
