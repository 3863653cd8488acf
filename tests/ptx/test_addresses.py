"""linlayout.ptx.addresses: every published table regenerated, the address map against a
model built from those tables, base offsets, and the 96B mode against brute force.

Sources: PTX ISA §5.5.7 "Swizzling Modes" (the 16-byte-cell table of each mode, the repeating-
pattern boundaries and base-offset formulas) and the CUDA C++ Programming Guide §10.29.3.2 "The
Swizzle Modes" (Table 11: offset formula and index relation; Table 12: swizzle width,
inner-dimension limit, repeat). The tables below are transcribed from them cell by cell.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout import ptx
from linlayout.ptx import SwizzleMode as SM


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


@pytest.mark.parametrize("name", sorted(PTX_TABLES))
def test_ptx_tables_regenerate_exactly(name):
    table = PTX_TABLES[name]
    ours = ptx.chunk_table(name, lines=8)
    # eight lines: the published lines, repeated with the published period
    assert ours == [table[i % len(table)] for i in range(8)]
    # and the published period is the true one (no shorter repeat hides in our table)
    assert ptx.swizzle_mode(name).repeat_bytes == max(128, 128 * len(table))


def test_flip_8b_swaps_8_byte_halves_on_odd_lines():
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


def test_swizzle_layout_is_an_involution_that_fixes_64_byte_lines():
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


def test_base_offset_matches_ptx_formulas():
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
def test_buffer_offset_matches_the_cuda_guide_index_relation(name, mod):
    """CUDA guide Table 11: smem[y][x] <-> smem[y][((y+offset)%mod)^x], offset from the formula."""
    for base in range(0, 2048, 128):
        off = ptx.base_offset(name, base)
        for y in range(16):
            for x in range(8):
                for byte in (0, 5, 15):
                    o = y * 128 + x * 16 + byte
                    expect = y * 128 + (((y + off) % mod) ^ x) * 16 + byte
                    assert ptx.buffer_offset(name, base, o) == expect


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


def test_96b_rejects_bad_rows_cells_and_bases():
    for args in ((0, 6), (-1, 0), (0, 0, 64), (0, 0, -128)):
        with pytest.raises(LayoutError):
            ptx.swizzle96_cell(*args)


def test_oversize_chunk_tables_are_refused_up_front():
    from linlayout.ptx.addresses import MAX_TABLE_LINES

    with pytest.raises(LayoutError, match=f"over the limit of {MAX_TABLE_LINES}.*repeats every 8"):
        ptx.chunk_table("128B", lines=10 ** 9)
    with pytest.raises(LayoutError, match="limit"):
        ptx.format_chunk_table("128B", lines=10 ** 9)
    assert len(ptx.chunk_table("32B", lines=MAX_TABLE_LINES)) == MAX_TABLE_LINES
