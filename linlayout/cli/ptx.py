"""``linlayout ptx``: a hardware swizzle mode as an F2 matrix, a formula and its chunk table."""

from __future__ import annotations

import argparse
from typing import Any

from .. import ptx
from ..errors import LayoutError
from ..show.formula import offset_formula
from .common import CliError, dumps

#: Display names of the tile's dims in formulas.
TILE_NAMES = {"dim0": "row", "dim1": "col"}


def _numbering(m: ptx.SwizzleMode) -> str:
    def show(v: Any) -> str:
        return "-" if v is None else str(v)

    cu = (f"{m.cu_tensor_map_swizzle_name} = {m.cu_tensor_map_swizzle}"
          if m.cu_tensor_map_swizzle_name else "no CUtensorMapSwizzle value")
    cute = ptx.cute_name(m) or "no single CuTe Swizzle"
    return (f"{cu}; PTX tensormap.replace swizzle_mode {m.ptx_swizzle_mode}, swizzle_atomicity "
            f"{show(m.ptx_swizzle_atomicity)}; tcgen05 layout_type {show(m.tcgen05_layout_type)}; "
            f"wgmma layout_type {show(m.wgmma_layout_type)}; CuTe {cute}")


def _matrix_rows(layout) -> list[list[int]]:
    n = layout.total_in_bits
    return [[(c >> r) & 1 for c in layout.columns] for r in range(n)]


def _matrix_text(rows: list[list[int]]) -> str:
    n = len(rows)
    w = len(str(n - 1))
    head = " " * (w + 8) + " ".join(str(j).rjust(w) for j in range(n))
    lines = [head]
    for i, row in enumerate(rows):
        lines.append(f"  bit {str(i).rjust(w)}: " + " ".join(str(v).rjust(w) for v in row))
    return "\n".join(lines)


def _tile(m: ptx.SwizzleMode, element_bits: int) -> tuple[dict[str, Any], str]:
    """(JSON part, text) of the display tile: 8 rows of one swizzle width (128 B for none)."""
    row_bytes = m.span_bytes or 128
    if m is ptx.SwizzleMode.SWIZZLE_96B:
        rows = []
        for r in range(8):
            rows.append([ptx.swizzle96_cell(r, c)[1] for c in range(6)])
        # rows[r][c] = where cell c of row r goes; invert to "which cell is stored here".
        stored = [[row.index(p) for p in range(6)] for row in rows]
        text = "\n".join(
            ["96-byte rows are not F2-linear (row r starts at byte 96·r); exact map on "
             "(row, 16-byte cell), entry = cell stored at that position:"]
            + [f"row {r}: " + " ".join(map(str, s)) for r, s in enumerate(stored)])
        return {"rows": 8, "row_bytes": 96, "formula": None, "cells": stored,
                "note": "not F2-linear: use linlayout.ptx.swizzle96_cell"}, text
    cols = row_bytes * 8 // element_bits
    try:
        layout = ptx.tma_tile_layout(m, element_bits=element_bits, rows=8, cols=cols)
    except LayoutError as exc:
        return {"rows": 8, "error": str(exc)}, f"tile: {exc}"
    formula = offset_formula(layout, TILE_NAMES)
    text = (f"tile of 8 rows × {cols} {element_bits}-bit elements (box inner dimension "
            f"{row_bytes} bytes), offsets in elements:\n{formula}")
    return {"rows": 8, "cols": cols, "element_bits": element_bits,
            "box_inner_bytes": row_bytes, "formula": formula,
            "layout": layout.to_dict()}, text


def _atoms(m: ptx.SwizzleMode, element_bits: int) -> str | None:
    if m.tcgen05_layout_type is None:
        return None
    parts = []
    for major in ("K", "MN"):
        try:
            shape = ptx.tcgen05_atom(m, major, element_bits).out_dims
        except LayoutError:
            parts.append(f"{major}-major: none (Table 55 '–')")
            continue
        parts.append(f"{major}-major {shape['dim0']}×{shape['dim1']} (MN × K)")
    return f"tcgen05/wgmma atoms ({element_bits}-bit elements, PTX Table 55): " + ", ".join(parts)


def _png(m: ptx.SwizzleMode, path: str) -> None:
    """Draw the 8-line chunk table, coloured by source chunk (matplotlib, imported lazily)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CliError(
            "--png needs matplotlib, which is not installed; pictures come with the plot "
            "extra (pip install matplotlib)"
        ) from None
    cell = 8 if m is ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B else 16
    table = ptx.chunk_table(m, 8, cell)
    fig, ax = plt.subplots(figsize=(max(6, len(table[0]) * 0.55), 4.2))
    ax.imshow(table, cmap="tab20" if len(table[0]) > 10 else "tab10", aspect="auto",
              vmin=0, vmax=max(9, len(table[0]) - 1))
    for i, row in enumerate(table):
        for j, v in enumerate(row):
            ax.text(j, i, str(v), ha="center", va="center", fontsize=9)
    ax.set_xticks(range(len(table[0])))
    ax.set_yticks(range(8))
    ax.set_xlabel(f"position in the 128-byte line ({cell}-byte cells)")
    ax.set_ylabel("128-byte line")
    ax.set_title(f"{m.value} swizzle: {ptx.address_formula(m)}")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise CliError(f"cannot write --png file {path!r}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    m = ptx.swizzle_mode(args.mode)
    eb = args.element_bits
    if eb < 1 or eb > 128 or eb & (eb - 1):
        raise CliError(f"--element-bits must be a power of two from 1 to 128, got {eb}")
    layout = ptx.swizzle_layout(m)
    rows = _matrix_rows(layout)
    cell = 8 if m is ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B else 16
    tile_json, tile_text = _tile(m, eb)
    if args.png:
        _png(m, args.png)
    if args.json:
        print(dumps({
            "mode": m.value,
            "summary": m.summary,
            "cu_tensor_map_swizzle": m.cu_tensor_map_swizzle,
            "cu_tensor_map_swizzle_name": m.cu_tensor_map_swizzle_name,
            "ptx_swizzle_mode": m.ptx_swizzle_mode,
            "ptx_swizzle_atomicity": m.ptx_swizzle_atomicity,
            "tcgen05_layout_type": m.tcgen05_layout_type,
            "wgmma_layout_type": m.wgmma_layout_type,
            "cute": ptx.cute_name(m),
            "repeat_bytes": m.repeat_bytes,
            "base_offset_formula": f"(address / 128) % {m.base_modulus}",
            "address_formula": ptx.address_formula(m),
            "matrix": rows,
            "layout": layout.to_dict(),
            "chunk_table": {"cell_bytes": cell, "lines": ptx.chunk_table(m, 8, cell)},
            "tile": tile_json,
            "png": args.png,
        }))
        return 0
    size = layout.in_dims["offset"]
    out = [
        f"{m.value} swizzle: {m.summary}",
        _numbering(m),
        f"repeats every {m.repeat_bytes} bytes; base offset = (address / 128) % {m.base_modulus}",
        "",
        f"address map on byte offsets [0, {size}): {ptx.address_formula(m)}",
        "matrix over F2 (row i = swizzled address bit i, column j = address bit j):",
        _matrix_text(rows),
        "",
        tile_text,
    ]
    atoms = _atoms(m, eb)
    if atoms:
        out.append(atoms)
    out += [
        "",
        f"{cell}-byte cells of each 128-byte line (entry = cell stored at that position):",
        ptx.format_chunk_table(m, 8, cell),
    ]
    if args.png:
        out += ["", f"wrote {args.png}"]
    print("\n".join(out))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ptx`` subcommand."""
    names = [m.value for m in ptx.SwizzleMode]
    p = sub.add_parser(
        "ptx", help="a PTX/TMA swizzle mode as an F2 layout",
        description="Print a hardware swizzle mode's numberings, its address map as an F2 "
                    "matrix and formula, the TMA tile formula, and the 8-line chunk table. "
                    f"Modes: {', '.join(names)}.")
    p.add_argument("mode", metavar="MODE", help=f"one of {', '.join(names)}")
    p.add_argument("--element-bits", type=int, default=8, metavar="N",
                   help="bits per element for the tile formula and atoms (default 8: bytes)")
    p.add_argument("--png", metavar="FILE", help="also draw the chunk table (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)
