"""linlayout.ptx: every published table, every numbering, base offsets and 96B against brute force.

Sources: PTX ISA §5.5.7 "Swizzling Modes" (the 16-byte-cell table of each mode, Table 14 of
valid swizzle atomicities, the repeating-pattern boundaries and base-offset formulas) and the
CUDA C++ Programming Guide §10.29.3.2 "The Swizzle Modes" (Table 11: offset formula and index
relation; Table 12: swizzle width, inner-dimension limit, repeat). The tables below are
transcribed from them cell by cell.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

from linlayout import LayoutError, LinearLayout
from linlayout import ptx
from linlayout.ptx import SwizzleMode as SM

# ------------------------------------------------------------------ PTX tables (16-byte cells)
#: PTX §5.5.7: each table lists the lines until "… Pattern repeats …".
PTX_TABLES = {
    "none": [[0, 1, 2, 3, 4, 5, 6, 7]],
    "32B": [[0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6]],
    "64B": [[0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4]],
    "96B": [[0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6]],
    "128B": [[0, 1, 2, 3, 4, 5, 6, 7],
             [1, 0, 3, 2, 5, 4, 7, 6],
             [2, 3, 0, 1, 6, 7, 4, 5],
             [3, 2, 1, 0, 7, 6, 5, 4],
             [4, 5, 6, 7, 0, 1, 2, 3],
             [5, 4, 7, 6, 1, 0, 3, 2],
             [6, 7, 4, 5, 2, 3, 0, 1],
             [7, 6, 5, 4, 3, 2, 1, 0]],
    # "| 0 1 | 2 3 | 4 5 | 6 7 |" — 32-byte groups of two 16-byte cells.
    "128B_atom_32B": [[0, 1, 2, 3, 4, 5, 6, 7],
                      [2, 3, 0, 1, 6, 7, 4, 5],
                      [4, 5, 6, 7, 0, 1, 2, 3],
                      [6, 7, 4, 5, 2, 3, 0, 1]],
    # "| 0 1 2 3 | 4 5 6 7 |" — 64-byte groups.
    "128B_atom_64B": [[0, 1, 2, 3, 4, 5, 6, 7],
                      [4, 5, 6, 7, 0, 1, 2, 3]],
}
#: PTX §5.5.7 "Starting address of the repeating pattern" and CUDA guide Table 12 "Repeats after".
PTX_REPEAT = {"128B": 1024, "96B": 256, "64B": 512, "32B": 256}
#: PTX §5.5.7 base offset formulas: (dstMem / 128) % m.
PTX_BASE_MODULUS = {"128B": 8, "96B": 2, "64B": 4, "32B": 2}
#: CUDA guide Table 12: swizzle width and maximal shared box inner dimension (bytes).
GUIDE_WIDTH = {"128B": 128, "64B": 64, "32B": 32}

ALL = list(SM)
LINEAR_ROWS = [m for m in SM if m is not SM.SWIZZLE_96B]


@pytest.mark.parametrize("name", sorted(PTX_TABLES))
def test_ptx_tables_regenerate_exactly(name):
    table = PTX_TABLES[name]
    ours = ptx.chunk_table(name, lines=8)
    # eight lines: the published lines, repeated with the published period
    assert ours == [table[i % len(table)] for i in range(8)]
    # and the published period is the true one (no shorter repeat hides in our table)
    assert ptx.swizzle_mode(name).repeat_bytes == max(128, 128 * len(table))


def test_flip_8b_table():
    """"a flip of adjacent 8-bytes within the 16-byte data at every alternate shared memory
    line", on top of the 32-byte-atomicity pattern (PTX §5.5.7 gives this sentence but no table)."""
    flip = ptx.chunk_table("128B_atom_32B_flip_8B", lines=8, cell_bytes=8)
    atom = ptx.chunk_table("128B_atom_32B", lines=8, cell_bytes=8)
    for line in range(8):
        if line % 2 == 0:
            assert flip[line] == atom[line]
        else:
            assert flip[line] == [atom[line][p ^ 1] for p in range(16)]
            assert flip[line] != atom[line]
    # 16-byte cells do not stay intact (their 8-byte halves swap), so no 16-byte table exists
    with pytest.raises(LayoutError, match="not stay intact"):
        ptx.chunk_table("128B_atom_32B_flip_8B", 8, 16)


def test_chunk_table_rejects_split_cells():
    with pytest.raises(LayoutError, match="cell_bytes <= 8"):
        ptx.chunk_table("128B_atom_32B_flip_8B", cell_bytes=16 * 2)
    with pytest.raises(LayoutError, match="cell_bytes <= 16"):
        ptx.chunk_table("128B", cell_bytes=32)
    assert ptx.chunk_table("128B_atom_64B", 2, 64) == [[0, 1], [1, 0]]
    for bad in (0, 3, 256, "16"):
        with pytest.raises(LayoutError):
            ptx.chunk_table("128B", cell_bytes=bad)
    with pytest.raises(LayoutError):
        ptx.chunk_table("128B", lines=0)


def test_format_chunk_table_groups_like_ptx():
    text = ptx.format_chunk_table("128B_atom_32B", lines=2)
    assert text.splitlines() == ["line 0: 0 1 | 2 3 | 4 5 | 6 7", "line 1: 2 3 | 0 1 | 6 7 | 4 5"]
    assert ptx.format_chunk_table("128B_atom_64B", 2).splitlines()[1] == "line 1: 4 5 6 7 | 0 1 2 3"


# ------------------------------------------------------------------ address maps
def brute(mode, a):
    """Independent model straight from the PTX tables: cell ↦ table[line % period][cell]."""
    name = ptx.swizzle_mode(mode).value
    if name == "128B_atom_32B_flip_8B":
        base = brute("128B_atom_32B", a)
        return base ^ (8 if (a >> 7) & 1 else 0)
    table = PTX_TABLES[name]
    line, within = divmod(a, 128)
    cell, byte = divmod(within, 16)
    return line * 128 + table[line % len(table)][cell] * 16 + byte


@pytest.mark.parametrize("mode", ALL)
def test_swizzled_address_matches_table_model_and_layout(mode):
    L = ptx.swizzle_layout(mode, 4096)
    for a in range(4096):
        s = ptx.swizzled_address(mode, a)
        assert s == brute(mode, a)
        assert L.apply({"offset": a}) == {"offset": s}
        assert ptx.swizzled_address(mode, s) == a  # involution
    # absolute addresses: periodic with the repeat period
    P = ptx.swizzle_mode(mode).repeat_bytes
    for a in range(0, 3 * P, 8):
        assert ptx.swizzled_address(mode, a + 5 * P) == ptx.swizzled_address(mode, a) + 5 * P


def test_swizzle_layout_properties():
    for m in ALL:
        L = ptx.swizzle_layout(m)
        assert L.in_dims == {"offset": 1024} and L.out_dims == {"offset": 1024}
        assert L.is_invertible and L.compose(L) == ptx.swizzle_layout("none")
        small = ptx.swizzle_layout(m, 64)
        assert small == ptx.swizzle_layout("none", 64)  # nothing moves inside one line's 64 B
    # 96B's address map is 32B's (PTX §5.5.7: identical tables, same repeat, same base offset)
    assert ptx.swizzle_layout("96B") == ptx.swizzle_layout("32B")
    with pytest.raises(LayoutError, match="power of two"):
        ptx.swizzle_layout("128B", 1000)


@pytest.mark.parametrize("mode", ALL)
def test_address_formula_evaluates_to_the_map(mode):
    text = ptx.address_formula(mode)
    assert text.startswith("swizzled(a) = a")
    expr = (text.split("=", 1)[1].replace("⊕", "^").replace("·", "*")
            .replace("⌊a/", "(a//").replace("⌋", ")"))
    for a in range(0, 2048, 8):
        assert eval(expr, {"a": a}) == ptx.swizzled_address(mode, a)  # noqa: S307


def test_repeat_and_width_match_ptx_and_the_guide():
    for name, rep in PTX_REPEAT.items():
        assert ptx.swizzle_mode(name).repeat_bytes == rep
    for name, width in GUIDE_WIDTH.items():
        assert ptx.swizzle_mode(name).span_bytes == width
    # the claimed repeat is the least period of the address map
    for m in ALL:
        P = m.repeat_bytes
        L = ptx.swizzle_layout(m, 4096)
        for a in range(4096 - P):
            assert L.apply_flat(a + P) == L.apply_flat(a) + P
        if P > 128:
            half = P // 2
            assert any(L.apply_flat(a + half) != L.apply_flat(a) + half for a in range(half))


# ------------------------------------------------------------------ numberings
EXPECTED_NUMBERS = {
    # mode: (CUtensorMapSwizzle, PTX swizzle_mode, PTX swizzle_atomicity, tcgen05, wgmma)
    "none": (0, 0, None, 0, 0),
    "32B": (1, 1, 0, 6, 3),
    "64B": (2, 2, 0, 4, 2),
    "96B": (None, 4, 0, None, None),
    "128B": (3, 3, 0, 2, 1),
    "128B_atom_32B": (4, 3, 1, 1, None),
    "128B_atom_32B_flip_8B": (5, 3, 2, None, None),
    "128B_atom_64B": (6, 3, 3, None, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_NUMBERS))
def test_each_numbering(name):
    m = ptx.swizzle_mode(name)
    cu, pm, pa, tc, wg = EXPECTED_NUMBERS[name]
    assert m.value == name
    assert m.cu_tensor_map_swizzle == cu
    assert m.ptx_swizzle_mode == pm
    assert m.ptx_swizzle_atomicity == pa
    assert m.tcgen05_layout_type == tc
    assert m.wgmma_layout_type == wg
    if cu is not None:
        assert SM.from_cu_tensor_map_swizzle(cu) is m
        assert m.cu_tensor_map_swizzle_name == "CU_TENSOR_MAP_SWIZZLE_" + (
            "NONE" if name == "none" else name.upper())
        assert ptx.swizzle_mode(m.cu_tensor_map_swizzle_name) is m
    assert SM.from_ptx(pm, pa) is m
    if tc is not None:
        assert SM.from_tcgen05_layout_type(tc) is m
    if wg is not None:
        assert SM.from_wgmma_layout_type(wg) is m


def test_numberings_disagree_and_are_kept_apart():
    # the same number names different modes in different encodings
    assert SM.from_cu_tensor_map_swizzle(1).value == "32B"
    assert SM.from_tcgen05_layout_type(1).value == "128B_atom_32B"
    assert SM.from_wgmma_layout_type(1).value == "128B"
    assert SM.from_ptx(1).value == "32B"
    assert SM.from_cu_tensor_map_swizzle(2).value == "64B"
    assert SM.from_tcgen05_layout_type(2).value == "128B"
    with pytest.raises(LayoutError, match="ambiguous"):
        ptx.swizzle_mode(3)


@pytest.mark.parametrize("call,value", [
    (SM.from_cu_tensor_map_swizzle, 7), (SM.from_tcgen05_layout_type, 3),
    (SM.from_tcgen05_layout_type, 5), (SM.from_tcgen05_layout_type, 7),
    (SM.from_wgmma_layout_type, 4), (SM.from_cu_tensor_map_swizzle, -1),
])
def test_unknown_numbers_raise(call, value):
    with pytest.raises(LayoutError, match="valid values"):
        call(value)


def test_from_ptx_validates_table_14():
    assert SM.from_ptx(0, 3) is SM.NONE  # no atomicity for no swizzling
    assert SM.from_ptx(3, 2).value == "128B_atom_32B_flip_8B"
    with pytest.raises(LayoutError, match="Table 14"):
        SM.from_ptx(2, 1)  # 64B with 32B atomicity is not a valid combination
    with pytest.raises(LayoutError, match="swizzle_mode must be"):
        SM.from_ptx(5)
    with pytest.raises(LayoutError, match="swizzle_atomicity must be"):
        SM.from_ptx(3, 4)
    with pytest.raises(LayoutError):
        SM.from_ptx(True)


def test_swizzle_mode_names():
    assert ptx.swizzle_mode("128b") is SM.SWIZZLE_128B
    assert ptx.swizzle_mode("SWIZZLE_128B_ATOM_64B") is SM.SWIZZLE_128B_ATOM_64B
    assert ptx.swizzle_mode(" none ") is SM.NONE
    assert str(SM.SWIZZLE_64B) == "64B"
    for bad in ("256B", None, 1.5, "", True):
        with pytest.raises(LayoutError):
            ptx.swizzle_mode(bad)


# ------------------------------------------------------------------ base offsets
def test_base_offset_formulas():
    for name, mod in PTX_BASE_MODULUS.items():
        for addr in range(0, 8192, 16):
            assert ptx.base_offset(name, addr) == (addr // 128) % mod
        # zero exactly on the boundary where the repeating pattern starts (128-aligned addresses)
        for addr in range(0, 8192, 128):
            assert (ptx.base_offset(name, addr) == 0) == (addr % PTX_REPEAT[name] == 0)
    for sub in ("128B_atom_32B", "128B_atom_32B_flip_8B", "128B_atom_64B"):
        assert ptx.base_offset(sub, 0x380) == 7
    assert ptx.base_offset("none", 12345 * 16) == 0
    with pytest.raises(LayoutError):
        ptx.base_offset("128B", -128)


@pytest.mark.parametrize("name,mod", [("128B", 8), ("64B", 4), ("32B", 2)])
def test_cuda_guide_index_relation(name, mod):
    """CUDA guide Table 11: smem[y][x] <-> smem[y][((y+offset)%mod)^x], offset from the formula."""
    for base in range(0, 2048, 128):
        off = ptx.base_offset(name, base)
        for y in range(16):
            for x in range(8):
                for byte in (0, 5, 15):
                    o = y * 128 + x * 16 + byte
                    expect = y * 128 + (((y + off) % mod) ^ x) * 16 + byte
                    assert ptx.buffer_offset(name, base, o) == expect


def _classify_all_bases(mode, size=1024):
    """Brute force, vectorised: for every base in [0, P) classify o ↦ sw(base+o) − base on [0, size)."""
    m = ptx.swizzle_mode(mode)
    P = m.repeat_bytes
    bases = np.arange(P, dtype=np.int64)[:, None]
    o = np.arange(size, dtype=np.int64)[None, :]
    a = bases + o
    sw = a.copy()
    for t, s in m.xor_pairs:
        sw ^= ((a >> s) & 1) << t
    f = sw - bases
    inside = ((f >= 0) & (f < size)).all(axis=1)
    c = f[:, :1]
    pred = np.broadcast_to(c, f.shape).copy()
    for i in range(size.bit_length() - 1):
        col = f[:, 1 << i: (1 << i) + 1] ^ c
        pred ^= np.where((o >> i) & 1, col, 0)
    affine = inside & (pred == f).all(axis=1)
    linear = affine & (c[:, 0] == 0)
    return affine, linear, f


@pytest.mark.parametrize("mode", ALL)
def test_buffer_layout_against_brute_force_every_base(mode):
    m = ptx.swizzle_mode(mode)
    affine, linear, f = _classify_all_bases(m)
    for base in range(m.repeat_bytes):
        if affine[base]:
            A = ptx.buffer_layout(m, base)
            assert A.is_linear == bool(linear[base])
            got = [A.apply_flat(o) for o in range(1024)]
            assert got == f[base].tolist()
        else:
            with pytest.raises(LayoutError, match="outside the buffer|not F2-affine"):
                ptx.buffer_layout(m, base)
    # periodic in the base
    for base in (0, 128, 256, 384, 64, 16):
        b2 = base + 3 * m.repeat_bytes
        try:
            A = ptx.buffer_layout(m, base)
        except LayoutError:
            with pytest.raises(LayoutError):
                ptx.buffer_layout(m, b2)
        else:
            assert ptx.buffer_layout(m, b2) == A


@pytest.mark.parametrize("mode", ALL)
def test_buffer_layout_closed_form_for_128_aligned_bases(mode):
    """Documented rule: linear iff k ≡ 0 mod 2^n; affine iff n − tz(k mod 2^n) ≤ 2."""
    m = ptx.swizzle_mode(mode)
    n = len({s for _, s in m.xor_pairs})
    for base in range(0, 4096, 128):
        k = (base // 128) % (1 << n) if n else 0
        lin = k == 0
        aff = lin or n - ((k & -k).bit_length() - 1) <= 2
        try:
            A = ptx.buffer_layout(m, base)
        except LayoutError:
            assert not aff
        else:
            assert aff and A.is_linear == lin
    # the headline cases
    assert ptx.buffer_layout("128B", 256).constant == (32,)
    with pytest.raises(LayoutError, match="256 bytes for an affine map or 1024 bytes"):
        ptx.buffer_layout("128B", 128)
    assert ptx.buffer_layout("32B", 64).is_linear  # not 128-aligned, yet linear (exhaustive)


def test_buffer_layout_sizes_and_errors():
    A = ptx.buffer_layout("64B", 384, 4096)
    for o in range(0, 4096, 16):
        assert A.apply({"offset": o}) == {"offset": ptx.buffer_offset("64B", 384, o)}
    assert ptx.buffer_layout("128B", 0, 256).linear == ptx.swizzle_layout("128B", 256)
    with pytest.raises(LayoutError, match="outside the buffer"):
        ptx.buffer_layout("128B", 130)
    with pytest.raises(LayoutError, match="not F2-affine: offset 112"):
        ptx.buffer_layout("128B", 16)
    with pytest.raises(LayoutError):
        ptx.buffer_layout("128B", -1)
    with pytest.raises(LayoutError):
        ptx.buffer_layout("128B", 0, 100)


def test_affine_layout_value():
    lin = LinearLayout({"offset": [[1], [2]]}, {"offset": 4})
    A = ptx.AffineLayout(lin, (3,))
    assert [A.apply_flat(x) for x in range(4)] == [3, 2, 1, 0]
    assert A.apply({"offset": 1}) == {"offset": 2}
    assert not A.is_linear and ptx.AffineLayout(lin, [0]).is_linear
    assert A.to_dict() == {"linear": lin.to_dict(), "constant": [3]}
    assert "XOR the constant (offset=3)" in str(A)
    for bad in ((4,), (1, 2), "3", (-1,)):
        with pytest.raises(LayoutError):
            ptx.AffineLayout(lin, bad)
    with pytest.raises(LayoutError):
        ptx.AffineLayout("not a layout", (0,))


# ------------------------------------------------------------------ 96B
def test_96b_cells_stay_in_their_row_and_follow_the_address_map():
    for base in (0, 128, 256, 384):
        for row in range(16):
            seen = set()
            for cell in range(6):
                r2, c2 = ptx.swizzle96_cell(row, cell, base)
                assert r2 == row
                seen.add(c2)
                addr = ptx.swizzle96_address(row, cell, base)
                assert addr == ptx.swizzled_address("32B", base + 96 * row + 16 * cell) - base
                assert addr == 96 * r2 + 16 * c2
            assert seen == set(range(6))


def test_96b_rows_are_not_f2_affine():
    """On rows 0..3 and byte columns 0..63 (a power-of-two box), (row, x) ↦ address is not affine."""
    def f(row, x):
        return ptx.swizzle96_address(row, x // 16) + x % 16

    c = f(0, 0)
    col_r = [f(1, 0) ^ c, f(2, 0) ^ c]
    assert f(3, 0) != c ^ col_r[0] ^ col_r[1]  # 288 ≠ 96 ⊕ 192
    with pytest.raises(LayoutError, match="96-byte rows.*swizzle96_cell"):
        ptx.tma_tile_layout("96B", element_bits=16, rows=8, cols=32)


def test_96b_errors():
    for args in ((0, 6), (-1, 0), (0, 0, 64), (0, 0, -128)):
        with pytest.raises(LayoutError):
            ptx.swizzle96_cell(*args)


# ------------------------------------------------------------------ TMA tiles
def direct_tile_offset(mode, eb, rows, cols, B, r, c):
    """Hardware model written out once more: boxes along dim1, dense rows, byte swizzle."""
    box_elems = B * 8 // eb
    j, cc = divmod(c, box_elems)
    bit = (j * rows * B + r * B) * 8 + cc * eb
    return (ptx.swizzled_address(mode, bit // 8) * 8 + bit % 8) // eb


@pytest.mark.parametrize("mode", LINEAR_ROWS)
@pytest.mark.parametrize("eb", [4, 8, 16, 32, 64])
def test_tma_tile_layout_brute_force(mode, eb):
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


def test_tma_tile_layout_formulas():
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
def test_tma_tile_layout_errors(kwargs, match):
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


# ------------------------------------------------------------------ matching
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


def test_match_tma_mode_errors():
    L = LinearLayout({"offset": [[0, 1], [1, 0]], "block": [[0, 2]]}, {"dim0": 2, "dim1": 4})
    with pytest.raises(LayoutError, match="block"):
        ptx.match_tma_mode(L, 128)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode(LinearLayout({"offset": [[1], [1]]}, {"dim0": 4}), 32)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode("layout", 16)
    with pytest.raises(LayoutError):
        ptx.match_tma_mode(ptx.tcgen05_atom("128B", "K", 16), 24)


# ------------------------------------------------------------------ the package's submodules
#: tests/test_doctests.py runs the top-level modules only; linlayout.ptx is a package whose
#: functions live in submodules (doctest skips re-exported functions), so they are run here.
PTX_SUBMODULES = sorted(m.name for m in pkgutil.iter_modules(ptx.__path__, "linlayout.ptx."))


@pytest.mark.parametrize("name", PTX_SUBMODULES)
def test_submodule_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_package_reexports_its_submodules():
    """``from linlayout import ptx; ptx.<name>`` reaches every public name it had as one module,
    and a name both the package and a submodule export is the same object."""
    for name in PTX_SUBMODULES:
        module = importlib.import_module(name)
        for public in module.__all__:
            if hasattr(ptx, public):
                assert getattr(ptx, public) is getattr(module, public)
    for public in ptx.__all__ + ["tma_layouts", "LINE_BYTES", "DEFAULT_SIZE_BYTES",
                                 "MAX_BOX_ELEMS", "MATCH_ORDER"]:
        assert hasattr(ptx, public)
