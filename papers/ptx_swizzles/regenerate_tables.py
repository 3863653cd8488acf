"""Regenerate the published swizzle tables from linlayout's F2 layouts and compare.

The tables are transcribed below, cell by cell, from:

* PTX ISA §5.5.7 "Swizzling Modes" (https://docs.nvidia.com/cuda/parallel-thread-execution/
  #swizzling-modes): the 16-byte-cell table of every mode (none, 32B, 64B, 96B, and 128B with
  16-, 32- and 64-byte atomicity), Table 14 "Valid combination of swizzle-atomicity with
  swizzling-mode", the table of boundaries where the repeating pattern starts and the table of
  base-offset formulas;
* CUDA C++ Programming Guide §10.29.3.2 "The Swizzle Modes" (https://docs.nvidia.com/cuda/
  cuda-c-programming-guide/#the-swizzle-modes): Table 11 "Swizzle Pattern Pointer Offset
  Formula and Index Relation" (``smem[y][((y+offset)%8)^x]``) and Table 12 (swizzle width,
  shared box inner dimension, repeat);
* PTX ISA §9.7.16.10.6 "Shared Memory Layout and Swizzling" (#tcgen05-shared-memory-layout-
  swizzling): Table 55 "Layout for swizzle atoms" (tcgen05 atom shapes for 128-bit elements)
  and its tf32 example.

Releases of the two documents number their tables differently; the titles above identify
them. Every table is rebuilt from :mod:`linlayout.ptx` and compared cell by cell. Prints one line per table and exits 1 on any
mismatch ("MISMATCH" appears in the output).

Run:  python papers/ptx_swizzles/regenerate_tables.py
"""

from __future__ import annotations

import sys

from linlayout import LayoutError, ptx

# ---------------------------------------------------------------------------- transcription
#: PTX ISA §5.5.7 "Swizzling Modes": each mode's table (16-byte cells, numbered within each
#: 128-byte line), the lines printed before "… Pattern repeats …".
TABLES = {
    "none": [[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]],
    "32B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    "64B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4]],
    "96B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    "128B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5],
             [3, 2, 1, 0, 7, 6, 5, 4], [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 7, 6, 1, 0, 3, 2],
             [6, 7, 4, 5, 2, 3, 0, 1], [7, 6, 5, 4, 3, 2, 1, 0]],
    "128B_atom_32B": [[0, 1, 2, 3, 4, 5, 6, 7], [2, 3, 0, 1, 6, 7, 4, 5],
                      [4, 5, 6, 7, 0, 1, 2, 3], [6, 7, 4, 5, 2, 3, 0, 1]],
    "128B_atom_64B": [[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]],
}
#: PTX ISA §5.5.7: "starting address of the repeating pattern" (bytes) and the ``m`` of the
#: base-offset formula ``(dstMem / 128) % m``.
BOUNDARY = {"128B": 1024, "96B": 256, "64B": 512, "32B": 256}
MODULUS = {"128B": 8, "96B": 2, "64B": 4, "32B": 2}
#: PTX ISA §5.5.7 Table 14 "Valid combination of swizzle-atomicity with swizzling-mode" (bytes).
ATOMICITY = {"none": [], "32B": [16], "64B": [16], "96B": [16], "128B": [16, 32, "32+8", 64]}
#: CUDA guide §10.29.3.2 Table 11: the modulus of each CU_TENSOR_MAP_SWIZZLE_* offset formula
#: ``(smem_ptr/128)%m``, the same ``m`` as in its index relation ``((y+offset)%m)^x``.
GUIDE_MODULUS = {"128B": 8, "64B": 4, "32B": 2}
#: CUDA guide §10.29.3.2 Table 12: (swizzle width, shared box inner dimension limit, repeats
#: after), bytes.
GUIDE_TABLE12 = {"128B": (128, 128, 1024), "64B": (64, 64, 512), "32B": (32, 32, 256)}
#: PTX ISA §9.7.16.10.6 Table 55 "Layout for swizzle atoms" (128-bit elements):
#: (mode, leading dimension) -> (MN, K); None where the table has "–".
TABLE55 = {("128B_atom_32B", "MN"): (8, 4), ("128B_atom_32B", "K"): None,
           ("128B", "MN"): (8, 8), ("128B", "K"): (8, 8), ("64B", "MN"): (4, 8),
           ("64B", "K"): (8, 4), ("32B", "MN"): (2, 8), ("32B", "K"): (8, 2),
           ("none", "MN"): (1, 8), ("none", "K"): (8, 1)}


# ---------------------------------------------------------------------------- checks
class Report:
    def __init__(self) -> None:
        self.ok = True

    def line(self, what: str, good: bool, detail: str = "") -> None:
        self.ok &= good
        print(f"{'ok      ' if good else 'MISMATCH'}  {what}{(': ' + detail) if detail else ''}")


def fmt(rows: list[list[int]]) -> str:
    return " / ".join(" ".join(map(str, r)) for r in rows)


def main() -> int:
    rep = Report()
    print("Transcribed tables: PTX ISA §5.5.7 and §9.7.16.10.6, CUDA guide §10.29.3.2.")
    print()

    # 1. PTX §5.5.7 tables, 8 lines each, from the layouts.
    print("PTX §5.5.7 swizzle tables (16-byte cells, 8 lines, regenerated from swizzle_layout):")
    for name, table in TABLES.items():
        layout = ptx.swizzle_layout(name)
        regenerated = []
        for line in range(8):
            row = []
            for pos in range(8):
                src = layout.apply({"offset": line * 128 + pos * 16})["offset"]  # involution
                row.append((src % 128) // 16)
            regenerated.append(row)
        expect = [table[i % len(table)] for i in range(8)]
        same = regenerated == expect and regenerated == ptx.chunk_table(name)
        rep.line(f"{name:<14} {fmt(regenerated[:len(table)])}", same,
                 "" if same else f"published {fmt(table)}")
    # 8-byte flip: PTX §5.5.7 gives no table, only the rule in words.
    flip = ptx.chunk_table("128B_atom_32B_flip_8B", 8, 8)
    atom = ptx.chunk_table("128B_atom_32B", 8, 8)
    good = all(flip[i] == ([atom[i][p ^ 1] for p in range(16)] if i % 2 else atom[i])
               for i in range(8))
    rep.line("128B_atom_32B_flip_8B: 32B-atom pattern, 8-byte halves flipped on odd lines "
             f"(line 1: {' '.join(map(str, flip[1]))})", good)
    same96 = ptx.swizzle_layout("96B") == ptx.swizzle_layout("32B")
    rep.line("96B address map equals 32B's (tables, boundary and base offset agree)", same96)
    print()

    # 2. Base offsets: boundary and formula.
    print("PTX §5.5.7 base offsets:")
    for name in BOUNDARY:
        m = ptx.swizzle_mode(name)
        good = m.repeat_bytes == BOUNDARY[name] and m.base_modulus == MODULUS[name]
        good &= all(ptx.base_offset(m, a) == (a // 128) % MODULUS[name]
                    for a in range(0, 8192, 16))
        good &= all((ptx.base_offset(m, a) == 0) == (a % BOUNDARY[name] == 0)
                    for a in range(0, 8192, 128))
        rep.line(f"{name:<5} pattern starts every {m.repeat_bytes} B; base offset = "
                 f"(dstMem / 128) % {m.base_modulus}", good)
    for name, allowed in ATOMICITY.items():
        have = sorted({(m.atomicity_bytes if m is not ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B
                        else "32+8") for m in ptx.SwizzleMode
                       if m.ptx_swizzle_mode == ptx.swizzle_mode(name).ptx_swizzle_mode
                       and m.atomicity_bytes is not None}, key=str)
        rep.line(f"Table 14: {name} atomicities {allowed}", have == sorted(allowed, key=str))
    print()

    # 3. CUDA guide Tables 11 and 12.
    print("CUDA guide §10.29.3.2:")
    for name, mod in GUIDE_MODULUS.items():
        good = True
        for base in range(0, 4096, 128):
            off = (base // 128) % mod
            good &= off == ptx.base_offset(name, base)
            for y in range(16):
                for x in range(8):
                    good &= (ptx.buffer_offset(name, base, y * 128 + x * 16)
                             == y * 128 + (((y + off) % mod) ^ x) * 16)
        rep.line(f"Table 11 CU_TENSOR_MAP_SWIZZLE_{name}: smem[y][((y+offset)%{mod})^x] for "
                 "every 128-aligned base", good)
    for name, (width, inner, repeat) in GUIDE_TABLE12.items():
        m = ptx.swizzle_mode(name)
        try:
            ptx.tma_tile_layout(m, element_bits=8, rows=8, cols=2 * inner,
                                box_inner_bytes=2 * inner)
            too_wide_rejected = False
        except LayoutError:
            too_wide_rejected = True
        good = m.span_bytes == width and m.repeat_bytes == repeat and too_wide_rejected
        rep.line(f"Table 12 {name}: width {width} B, inner <= {inner} B, repeats after "
                 f"{repeat} B", good)
    print()

    # 4. PTX Table 55.
    print("PTX Table 55 (tcgen05 swizzle atoms, 128-bit elements, MN x K):")
    for (name, major), shape in TABLE55.items():
        try:
            got = ptx.tcgen05_atom(name, major, 128).out_dims
            got_shape = (got["dim0"], got["dim1"])
        except LayoutError:
            got_shape = None
        rep.line(f"{name:<14} {major:<2} {'x'.join(map(str, shape)) if shape else '–'}",
                 got_shape == shape, "" if got_shape == shape else f"got {got_shape}")
    tf32 = ptx.tcgen05_atom("128B", "MN", 32).out_dims
    rep.line("tf32 example: 128B MN-major atom is (8*(128/32))x8 = 32x8",
             (tf32["dim0"], tf32["dim1"]) == (32, 8))
    print()
    print("all tables reproduced" if rep.ok else "SOME TABLES DIFFER")
    return 0 if rep.ok else 1


if __name__ == "__main__":
    sys.exit(main())
