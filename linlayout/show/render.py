"""Text grids of 1-D and 2-D layouts: who holds each element, and where it lives in memory.

Rows are ``dim0`` indices and columns ``dim1`` indices (the layout's first and second out
dims); a 1-D tensor is one row whose columns are ``dim0`` indices. Grids wider than
``max_cols`` columns (default 64) or taller than ``max_rows`` rows (default 128) are
**truncated**: the first columns/rows are shown and a final note says how many were left out.
Tensors with three or more dims raise :class:`LayoutError`, and so do distributed layouts
with more than ``MAX_IN_BITS`` (22) input bits (every input is enumerated).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import f2
from .._checks import as_int
from ..hardware.model import HardwareModel, bank_model
from ..hardware.kinds import (distributed_columns, fitting_warp_log2, is_distributed,
                              memory_columns)
from ..errors import LayoutError
from ..layout import LinearLayout
from .formula import offset_formula

__all__ = ["grid_distributed", "grid_memory", "layout_text"]

#: Default truncation limits (columns, rows).
MAX_COLS = 64
MAX_ROWS = 128
#: grid_distributed enumerates all 2^bits inputs; more input bits than this raise.
MAX_IN_BITS = 22


def _limit(value: object, what: str) -> int:
    """A truncation limit: a positive int."""
    n = as_int(value, what)
    if n < 1:
        raise LayoutError(f"{what} must be a positive int (rows or columns shown), got {n}")
    return n


def _shape(layout: LinearLayout) -> tuple[int, int]:
    """(rows, columns) of the grid; LayoutError for 0 or ≥ 3 out dims."""
    sizes = list(layout.out_dims.values())
    if len(sizes) == 1:
        return 1, sizes[0]
    if len(sizes) == 2:
        return sizes[0], sizes[1]
    raise LayoutError(
        f"only 1-D and 2-D tensors can be shown as a grid; this layout has out dims "
        f"{list(layout.out_dim_names)}"
    )


def _grid(layout: LinearLayout, cell: Callable[[int], str], legend: str,
          max_cols: int, max_rows: int) -> str:
    """Render ``cell(flat tensor index)`` on the (rows, cols) grid with aligned columns."""
    nrows, ncols = _shape(layout)
    show_r, show_c = min(nrows, max_rows), min(ncols, max_cols)
    names = layout.out_dim_names
    if len(names) == 2:
        def flat(r: int, c: int) -> int:
            return r + nrows * c
    else:
        def flat(r: int, c: int) -> int:
            return c
    cells = [[cell(flat(r, c)) for c in range(show_c)] for r in range(show_r)]
    w = max([len(str(show_c - 1))] + [len(x) for row in cells for x in row])
    lw = len(str(show_r - 1)) if len(names) == 2 else 0
    rows_name = f"{names[0]} ({nrows})" if len(names) == 2 else "one row"
    cols_name = f"{names[-1]} ({ncols})"
    lines = [f"rows: {rows_name}, columns: {cols_name}; cell = {legend}"]
    lines.append(" " * lw + " | " + " ".join(str(c).rjust(w) for c in range(show_c)))
    lines.append("-" * (lw + 1) + "+" + "-" * (len(lines[-1]) - lw - 2))
    for r, row in enumerate(cells):
        label = str(r).rjust(lw) if len(names) == 2 else ""
        lines.append(label + " | " + " ".join(x.rjust(w) for x in row))
    notes = []
    if show_c < ncols:
        notes.append(f"columns {show_c}..{ncols - 1}")
    if show_r < nrows:
        notes.append(f"rows {show_r}..{nrows - 1}")
    if notes:
        lines.append(f"(truncated: {' and '.join(notes)} not shown)")
    return "\n".join(lines)


def grid_distributed(layout: LinearLayout, *, max_cols: int = MAX_COLS,
                     max_rows: int = MAX_ROWS) -> str:
    """Which lane and register (and warp, block) hold each element of a 1-D or 2-D tensor.

    Args:
        layout: distributed layout, in dims among ``register, lane, warp, block`` onto one or
            two out dims (``dim0`` = rows, ``dim1`` = columns); up to 32 lanes (an NVIDIA
            warp) or 64 (an AMD wavefront).
        max_cols, max_rows: truncation limits (module docstring).

    Returns:
        A multi-line string: a legend line, a header of column indices, then one line per row.
        Each cell reads ``t{lane}:r{register}``, prefixed by ``w{warp}:`` (and ``b{block}:``)
        when those dims have size > 1. Where several (lane, register, …) hold one element
        (broadcast) the first in enumeration order (register fastest, then lane, warp, block)
        is shown, marked with ``*``; ``-`` marks an element nobody holds.

    Raises:
        LayoutError: an in dim outside ``register, lane, warp, block``, more than 64 lanes,
            or not 1-D/2-D.
    """
    distributed_columns(layout, "layout", fitting_warp_log2(layout))
    max_cols, max_rows = _limit(max_cols, "max_cols"), _limit(max_rows, "max_rows")
    _shape(layout)
    if layout.total_in_bits > MAX_IN_BITS:
        raise LayoutError(
            f"the layout has {layout.total_in_bits} input bits; grid_distributed enumerates "
            f"every input and stops at {MAX_IN_BITS} (show a sublayout instead)"
        )
    sizes = layout.in_dims
    order = [n for n in layout.in_dim_names]
    first: dict[int, int] = {}
    copies: dict[int, int] = {}
    for x, t in enumerate(f2.images(layout.columns)):  # t = the image of input x
        if t in first:
            copies[t] += 1
        else:
            first[t], copies[t] = x, 1
    fields = []  # (name, shift, mask) of each in dim within an input
    shift = 0
    for n in order:
        b = sizes[n].bit_length() - 1
        fields.append((n, shift, (1 << b) - 1))
        shift += b

    def cell(t: int) -> str:
        if t not in first:
            return "-"
        x = first[t]
        vals = {n: x >> at & mask for n, at, mask in fields}
        text = f"t{vals.get('lane', 0)}:r{vals.get('register', 0)}"
        if sizes.get("warp", 1) > 1:
            text = f"w{vals['warp']}:" + text
        if sizes.get("block", 1) > 1:
            text = f"b{vals['block']}:" + text
        return text + ("*" if copies[t] > 1 else "")

    legend = "t<lane>:r<register>"
    if sizes.get("warp", 1) > 1:
        legend = "w<warp>:" + legend
    if sizes.get("block", 1) > 1:
        legend = "b<block>:" + legend
    return _grid(layout, cell, legend + " (* = held by several; first shown)", max_cols, max_rows)


def grid_memory(memory: LinearLayout, element_bits: int, *,
                hardware: HardwareModel | None = None, max_cols: int = MAX_COLS,
                max_rows: int = MAX_ROWS) -> str:
    """Element offset and bank of each element of a 1-D or 2-D tensor in shared memory.

    Args:
        memory: shared-memory layout, a bijection with in dims ``offset`` [+ ``block``] or
            ``vector, bank, segment`` [+ ``reps``] onto one or two out dims.
        element_bits: bits per element (power of two, 1..128).
        hardware: the bank model (default ``NVIDIA``: 32 banks of 4 bytes).
        max_cols, max_rows: truncation limits (module docstring).

    Returns:
        A multi-line grid; each cell reads ``offset/bank`` with the offset in elements and
        ``bank = (offset · element_bits // (8 · bank_bytes)) % num_banks``, prefixed by
        ``b{block}:`` when the layout has a ``block`` dim of size > 1.

    Raises:
        LayoutError: bad parameters, unknown in dims, or not 1-D/2-D.
        NotInvertibleError: the layout is not a bijection.
    """
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    max_cols, max_rows = _limit(max_cols, "max_cols"), _limit(max_rows, "max_rows")
    model = bank_model(element_bits, hardware)
    num_banks, bank_bytes = model.hardware.num_banks, model.hardware.bank_bytes
    _shape(memory)
    mcols, offset_bits = memory_columns(memory, memory.out_dim_names)
    inv = f2.inverse(list(mcols))
    word_bits = 8 * bank_bytes
    has_block = offset_bits < len(mcols)

    def cell(t: int) -> str:
        x = f2.apply(inv, t)
        off = x & ((1 << offset_bits) - 1)
        bank = (off * model.element_bits // word_bits) % num_banks
        text = f"{off}/{bank}"
        return f"b{x >> offset_bits}:{text}" if has_block else text

    legend = ("b<block>:" if has_block else "") + (
        f"offset/bank (offset in {model.element_bits}-bit elements; "
        f"{num_banks} banks x {bank_bytes} bytes)"
    )
    return _grid(memory, cell, legend, max_cols, max_rows)


def layout_text(layout: LinearLayout, element_bits: int = 32, *,
                hardware: HardwareModel | None = None) -> str:
    """What ``linlayout show`` prints for a layout: a distributed layout's
    :func:`grid_distributed`; a shared-memory layout's offset formula
    (:func:`~linlayout.show.formula.offset_formula`) above its :func:`grid_memory`.

    Args:
        layout: a distributed layout (in dims among ``register, lane, warp, block``) or a
            shared-memory one, onto a 1-D or 2-D tensor.
        element_bits: bits per element of a shared-memory layout (banks depend on it).
        hardware: the bank model of :func:`grid_memory` (default NVIDIA).

    Returns:
        The text, lines joined by newlines, no final newline.

    Raises:
        LayoutError: what :func:`grid_distributed`, :func:`grid_memory` or
            :func:`~linlayout.show.formula.offset_formula` reject (e.g. three or more dims).
    """
    if is_distributed(layout):
        return grid_distributed(layout)
    grid = grid_memory(layout, element_bits, hardware=hardware)
    return f"{offset_formula(layout)}\n{grid}"
