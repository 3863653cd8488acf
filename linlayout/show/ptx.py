"""A PTX/TMA swizzle mode shown to people, as ``linlayout ptx`` prints and draws it.

:func:`ptx_report` gathers, for one :class:`~linlayout.ptx.SwizzleMode`, its numberings (CUDA
driver, PTX, tcgen05, wgmma, CuTe), its address map on byte offsets as a formula and an F2
matrix, the offset formula of a TMA tile of 8 rows, the tcgen05/wgmma atoms and the 8-line
chunk table. :class:`PtxReport` holds them; :meth:`~PtxReport.to_text` is the text
``linlayout ptx`` prints, :meth:`~PtxReport.to_dict` the data its ``--json`` prints and
:meth:`~PtxReport.save_png` its ``--png`` picture (matplotlib, imported only there).

Example::

    >>> from linlayout.show.ptx import ptx_report
    >>> report = ptx_report("128B", element_bits=16)
    >>> report.to_text().splitlines()[0]
    '128B swizzle: 16-byte chunks XOR-permuted within 128 bytes by line mod 8'
    >>> report.to_dict()["tile"]["formula"]
    'offset = 64·row + (col ⊕ 8·row)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import ptx
from .._checks import as_int, instance_of, int_list, sequence_of
from ..errors import LayoutError
from ..layout import LinearLayout
from .formula import offset_formula
from .schemas import versioned

__all__ = ["TILE_NAMES", "PtxReport", "atoms_line", "cell_bytes", "matrix_rows", "matrix_text",
           "mode_numbering", "ptx_report", "tile_view"]

#: Display names of the tile's dims in formulas.
TILE_NAMES = {"dim0": "row", "dim1": "col"}


def _element_bits(value: Any) -> int:
    bits = as_int(value, "element_bits")
    if bits < 1:
        raise LayoutError(f"element_bits must be a positive int (e.g. 16), got {bits}")
    return bits


def mode_numbering(m: ptx.SwizzleMode) -> str:
    """One line naming the mode in every numbering: the ``CUtensorMapSwizzle`` value (or that
    there is none), PTX ``tensormap.replace`` ``swizzle_mode``/``swizzle_atomicity``, tcgen05
    and wgmma ``layout_type`` (``-`` where the mode has none) and the CuTe ``Swizzle``."""
    def show(v: Any) -> str:
        return "-" if v is None else str(v)

    m = ptx.swizzle_mode(m)
    cu = (f"{m.cu_tensor_map_swizzle_name} = {m.cu_tensor_map_swizzle}"
          if m.cu_tensor_map_swizzle_name else "no CUtensorMapSwizzle value")
    cute = ptx.cute_name(m) or "no single CuTe Swizzle"
    return (f"{cu}; PTX tensormap.replace swizzle_mode {m.ptx_swizzle_mode}, swizzle_atomicity "
            f"{show(m.ptx_swizzle_atomicity)}; tcgen05 layout_type {show(m.tcgen05_layout_type)}; "
            f"wgmma layout_type {show(m.wgmma_layout_type)}; CuTe {cute}")


def matrix_rows(layout: LinearLayout) -> list[list[int]]:
    """The F2 matrix of a square layout (``total_in_bits`` rows and columns): row ``i`` holds
    output bit ``i`` of each input bit's image (entry ``[i][j]`` is 0 or 1)."""
    instance_of(layout, LinearLayout, "layout")
    n = layout.total_in_bits
    return [[(c >> r) & 1 for c in layout.columns] for r in range(n)]


def matrix_text(rows: list[list[int]]) -> str:
    """:func:`matrix_rows` as text: a header of column numbers, then ``bit i:`` and the row,
    columns right-aligned; lines joined by newlines, no final newline."""
    rows = [int_list(row, f"rows[{i}]")
            for i, row in enumerate(sequence_of(rows, (list, tuple), "rows"))]
    n = len(rows)
    w = len(str(n - 1))
    head = " " * (w + 8) + " ".join(str(j).rjust(w) for j in range(n))
    lines = [head]
    for i, row in enumerate(rows):
        lines.append(f"  bit {str(i).rjust(w)}: " + " ".join(str(v).rjust(w) for v in row))
    return "\n".join(lines)


def cell_bytes(m: ptx.SwizzleMode) -> int:
    """Bytes per cell of the mode's chunk table: 8 for ``128B_atom_32B_flip_8B`` (it moves
    8-byte halves), 16 otherwise."""
    m = ptx.swizzle_mode(m)
    return 8 if m is ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B else 16


def tile_view(m: ptx.SwizzleMode, element_bits: int) -> tuple[dict[str, Any], str]:
    """(JSON part, text) of the display tile: 8 rows of one swizzle width (128 B for none).

    A linear mode gives the offset formula of :func:`linlayout.ptx.tma_tile_layout` on 8 rows
    of ``element_bits``-bit elements (dims named :data:`TILE_NAMES`) and its layout; the 96-byte
    mode, not F2-linear, gives the exact map on (row, 16-byte cell). A tile TMA cannot hold
    (e.g. 128-bit elements split by the 8-byte flip) gives the reason instead, never an error.

    Raises:
        LayoutError: ``m`` is not a swizzle mode, or ``element_bits`` is not a positive int.
    """
    m = ptx.swizzle_mode(m)
    element_bits = _element_bits(element_bits)
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


def atoms_line(m: ptx.SwizzleMode, element_bits: int) -> str | None:
    """The tcgen05/wgmma atom shapes (MN × K elements) for K-major and MN-major operands of
    ``element_bits``-bit elements (PTX Table 55; ``none`` where the table has none), or None
    for a mode with no tcgen05 ``layout_type``."""
    m = ptx.swizzle_mode(m)
    element_bits = _element_bits(element_bits)
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


@dataclass(frozen=True)
class PtxReport:
    """One swizzle mode, every view of it (build it with :func:`ptx_report`).

    Attributes:
        mode: the :class:`~linlayout.ptx.SwizzleMode`.
        element_bits: bits per element of the tile formula and the atoms.
        layout: the address map on byte offsets (:func:`linlayout.ptx.swizzle_layout`).
        matrix: its F2 matrix (:func:`matrix_rows`).
        cell_bytes: bytes per cell of the chunk table (:func:`cell_bytes`).
        tile: the JSON part of :func:`tile_view`; ``tile_text`` its text.
        atoms: :func:`atoms_line`, or None.
        png: the path of the picture the caller writes (:meth:`save_png`), named in the text
            and JSON; None for none.
    """

    mode: ptx.SwizzleMode
    element_bits: int
    layout: LinearLayout
    matrix: list[list[int]]
    cell_bytes: int
    tile: dict[str, Any]
    tile_text: str
    atoms: str | None
    png: str | None = None

    def to_text(self) -> str:
        """What ``linlayout ptx`` prints: the summary, the numberings, the repeat and base
        offset, the address formula and F2 matrix, the tile, the atoms, the chunk table and
        (with :attr:`png`) the picture written; no final newline."""
        m = self.mode
        size = self.layout.in_dims["offset"]
        out = [
            f"{m.value} swizzle: {m.summary}",
            mode_numbering(m),
            f"repeats every {m.repeat_bytes} bytes; base offset = (address / 128) % "
            f"{m.base_modulus}",
            "",
            f"address map on byte offsets [0, {size}): {ptx.address_formula(m)}",
            "matrix over F2 (row i = swizzled address bit i, column j = address bit j):",
            matrix_text(self.matrix),
            "",
            self.tile_text,
        ]
        if self.atoms:
            out.append(self.atoms)
        out += [
            "",
            f"{self.cell_bytes}-byte cells of each 128-byte line (entry = cell stored at that "
            "position):",
            ptx.format_chunk_table(m, 8, self.cell_bytes),
        ]
        if self.png:
            out += ["", f"wrote {self.png}"]
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        """What ``linlayout ptx --json`` prints: the numberings, formulas, matrix, layout,
        chunk table (``{"cell_bytes", "lines"}``), tile and ``png`` (JSON-ready)."""
        m = self.mode
        return versioned({
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
            "matrix": self.matrix,
            "layout": self.layout.to_dict(),
            "chunk_table": {"cell_bytes": self.cell_bytes,
                            "lines": ptx.chunk_table(m, 8, self.cell_bytes)},
            "tile": self.tile,
            "png": self.png,
        })

    def save_png(self, path: str) -> None:
        """Draw the 8-line chunk table, coloured by source chunk, into the PNG file ``path``.

        Raises:
            ImportError: matplotlib is not installed (imported here, not before).
            OSError: the file cannot be written.
        """
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("drawing a swizzle mode needs matplotlib, which is not "
                              "installed (pip install matplotlib)") from None
        m, cell = self.mode, self.cell_bytes
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
        finally:
            plt.close(fig)


def ptx_report(mode: Any, element_bits: int = 8, png: str | None = None) -> PtxReport:
    """Every view of a swizzle mode, as ``linlayout ptx`` shows it.

    Args:
        mode: a :class:`~linlayout.ptx.SwizzleMode` or a name :func:`linlayout.ptx.swizzle_mode`
            accepts (``"128B"``, ``"CU_TENSOR_MAP_SWIZZLE_64B"``, …).
        element_bits: bits per element of the tile formula and the atoms, a power of two from
            1 to 128 (default 8: bytes).
        png: the path of a picture the caller writes with :meth:`PtxReport.save_png`, to be
            named in the text and JSON (default None: none).

    Returns:
        A :class:`PtxReport`.

    Raises:
        LayoutError: an unknown mode, or ``element_bits`` not a power of two in [1, 128].
    """
    m = ptx.swizzle_mode(mode)
    eb = element_bits
    if isinstance(eb, bool) or not isinstance(eb, int) or eb < 1 or eb > 128 or eb & (eb - 1):
        raise LayoutError(f"element_bits must be a power of two from 1 to 128, got {eb!r}")
    layout = ptx.swizzle_layout(m)
    tile, tile_text = tile_view(m, eb)
    return PtxReport(mode=m, element_bits=eb, layout=layout, matrix=matrix_rows(layout),
                     cell_bytes=cell_bytes(m), tile=tile, tile_text=tile_text,
                     atoms=atoms_line(m, eb), png=png)
