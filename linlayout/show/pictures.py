"""Pictures of layouts with matplotlib: who holds each element, which bank it lives in, the matrix.

An optional extra: ``pip install "linlayout[plot]"``. matplotlib is imported inside the
functions, never at module import, so ``import linlayout`` stays light; without it every
function raises :class:`MissingMatplotlib` (an ``ImportError``) naming the install command.
Figures are built with the object-oriented API (``matplotlib.figure.Figure``), so no GUI
backend or global ``pyplot`` state is involved; :func:`save` writes PNG or SVG by extension.

Conventions (as :mod:`linlayout.show.render`): a 2-D tensor is drawn with ``dim0`` down the rows
and ``dim1`` across the columns; a 1-D tensor is one row. Colours follow the article "Swizzle
by hand, swizzle by algebra": in memory pictures **hue = bank ÷ 2 and odd banks are darker**,
so neighbouring banks share a hue and a column of one colour is a column of one bank; in
distributed pictures hue walks the lanes ``t0 … t31`` (odd lanes darker) and the number in a
cell is the register. Large tensors are cut to ``max_rows × max_cols`` cells (the title says
so); numbers are drawn only when the cells are big enough.

Functions (each returns a ``matplotlib.figure.Figure``):

* :func:`draw_memory` — a shared-memory layout: cell colour = bank, number = element offset;
  optional outlines of the elements one warp instruction touches.
* :func:`draw_distributed` — a distributed layout: colour = lane (or warp, or thread), number =
  register (or lane); optional ring around one thread's elements.
* :func:`draw_matrix` — the layout as its F₂ matrix, input bits as columns grouped (and marked)
  by in dim — ``vector | bank | segment`` for memory layouts, ``register | lane | warp`` for
  distributed ones — output bits as rows.
* :func:`draw_swizzle` — before/after: the same load instruction on an unswizzled layout and on
  a synthesized one, with the wavefront counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import f2
from .._checks import as_int, file_path, instance_of, shown
from ..conflicts import bank_conflicts
from ..errors import LayoutError
from ..hardware.model import HardwareModel, bank_model
from ..hardware.kinds import (distributed_columns, fitting_warp_log2, is_distributed,
                              memory_columns)
from ..layout import LinearLayout
from .plot_extra import INSTALL_HINT, MissingMatplotlib

__all__ = [
    "MissingMatplotlib",
    "INSTALL_HINT",
    "bank_color",
    "lane_color",
    "draw_memory",
    "draw_distributed",
    "draw_matrix",
    "draw_swizzle",
    "draw_layout",
    "instruction_elements",
    "save",
]

#: Default cut of large tensors (rows, columns).
MAX_ROWS = 64
MAX_COLS = 64
#: Largest ``dpi`` that :func:`save` accepts (print quality is 300-600).
MAX_DPI = 2400


def _mpl():
    """Import matplotlib pieces lazily; MissingMatplotlib if absent."""
    try:
        from matplotlib import colors
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
    except ImportError as exc:  # pragma: no cover - exercised by the CLI test with a fake import
        raise MissingMatplotlib(INSTALL_HINT) from exc
    return Figure, Rectangle, colors


def bank_color(bank: int, num_banks: int = 32) -> tuple[float, float, float]:
    """RGB of a bank: hue = ``bank // 2`` over ``num_banks / 2`` hues; odd banks darker."""
    import colorsys

    bank, num_banks = as_int(bank, "bank"), as_int(num_banks, "num_banks")
    hues = max(1, num_banks // 2)
    h = (bank // 2 % hues) / hues
    return colorsys.hsv_to_rgb(h, 0.55 if bank % 2 == 0 else 0.75, 0.97 if bank % 2 == 0 else 0.68)


def lane_color(lane: int, lanes: int = 32) -> tuple[float, float, float]:
    """RGB of a lane (or thread): hue walks ``0 … lanes-1``; odd lanes darker."""
    import colorsys

    lane, lanes = as_int(lane, "lane"), as_int(lanes, "lanes")
    if lanes < 1:
        raise LayoutError(f"lanes must be a positive int (e.g. 32), got {lanes}")
    h = (lane % lanes) / lanes
    return colorsys.hsv_to_rgb(h, 0.5 if lane % 2 == 0 else 0.7, 0.97 if lane % 2 == 0 else 0.7)


def _ink(rgb: Sequence[float]) -> str:
    """Black or white text, whichever reads better on ``rgb``."""
    r, g, b = rgb[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def _shape(layout: LinearLayout) -> tuple[int, int, bool]:
    """(rows, cols, two_d) of the tensor grid; LayoutError for 0 or ≥ 3 out dims."""
    sizes = list(layout.out_dims.values())
    if len(sizes) == 1:
        return 1, sizes[0], False
    if len(sizes) == 2:
        return sizes[0], sizes[1], True
    raise LayoutError(
        f"only 1-D and 2-D tensors can be drawn; this layout has out dims "
        f"{list(layout.out_dim_names)}"
    )


def _flat(r: int, c: int, nrows: int, two_d: bool) -> int:
    return r + nrows * c if two_d else c


def _new_axes(ax: Any, width: float, height: float):
    Figure, _, _ = _mpl()
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot(1, 1, 1)


def _grid_axes(ax: Any, nrows: int, ncols: int, names: Sequence[str], two_d: bool,
               rename: Mapping[str, str] | None = None) -> None:
    names = [(rename or {}).get(n, n) for n in names]
    ax.set_xlim(0, ncols)
    ax.set_ylim(nrows, 0)
    ax.set_aspect("equal")
    step_c = max(1, ncols // 16)
    step_r = max(1, nrows // 16)
    from .cells import tick_texts

    tick_texts(ax, {c + 0.5: str(c) for c in range(0, ncols, step_c)},
                {r + 0.5: str(r) for r in range(0, nrows, step_r)})
    ax.set_xlabel(names[-1] if two_d else names[0], fontsize=8)
    if two_d:
        ax.set_ylabel(names[0], fontsize=8)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def _cells(ax: Any, nrows: int, ncols: int, two_d: bool, nrows_full: int,
           color_of, text_of, numbers: bool, fontsize: float) -> None:
    """Paint the grid as one RGB image (cell (r, c) = ``color_of(flat index)``), thin white
    separators, and optionally a label per cell."""
    import numpy as np

    rgb = np.empty((nrows, ncols, 3))
    for r in range(nrows):
        for c in range(ncols):
            rgb[r, c] = color_of(_flat(r, c, nrows_full, two_d))[:3]
    from .cell_image import add_cell_image

    add_cell_image(ax, rgb)
    if max(nrows, ncols) <= 64:
        ax.vlines(range(1, ncols), 0, nrows, colors="white", linewidth=0.4)
        ax.hlines(range(1, nrows), 0, ncols, colors="white", linewidth=0.4)
    if numbers:  # one artist for every label (linlayout.show.cell_labels)
        from .cell_labels import add_cell_labels

        add_cell_labels(ax, [(c + 0.5, r + 0.5, txt, _ink(rgb[r, c]))
                             for r in range(nrows) for c in range(ncols)
                             if (txt := text_of(_flat(r, c, nrows_full, two_d)))],
                        fontsize=fontsize, linespacing=1.2)


def _auto_numbers(numbers: bool | None, nrows: int, ncols: int) -> tuple[bool, float]:
    big = max(nrows, ncols)
    if numbers is None:
        numbers = big <= 32
    return numbers, (7 if big <= 16 else 5.5 if big <= 32 else 4)


#: Inches per grid cell: room for a number, or (no numbers: large grids) a small coloured square,
#: so that a 64×64 picture is a few hundred pixels across, not thousands.
CELL_INCHES = 0.32
SMALL_CELL_INCHES = 0.12


#: Figures larger than this (inches, either side) are written at 100 dpi by :func:`save`.
LARGE_FIGURE_INCHES = 8.0
#: zlib level of the PNGs :func:`save` writes (matplotlib's default is 6): on this module's
#: pictures (1 to 5 megapixels) level 3 with the alpha channel dropped encodes in about half the
#: time of level 6 with it, and the files stay within about 10% of the size.
PNG_COMPRESS_LEVEL = 3


def _cell_inches(numbers: bool) -> float:
    return CELL_INCHES if numbers else SMALL_CELL_INCHES


def _cut_title(title: str, nrows: int, ncols: int, rows: int, cols: int) -> str:
    notes = []
    if rows < nrows:
        notes.append(f"first {rows} of {nrows} rows")
    if cols < ncols:
        notes.append(f"first {cols} of {ncols} columns")
    return title + (f" ({', '.join(notes)})" if notes else "")


def _memory_map(memory: LinearLayout, element_bits: int, hardware: HardwareModel | None):
    """(offset_of(flat tensor index) -> (offset, block), bank_of(offset), model)."""
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    model = bank_model(element_bits, hardware)
    cols, offset_bits = memory_columns(memory, memory.out_dim_names)
    inv = f2.inverse(list(cols))
    mask = (1 << offset_bits) - 1
    word_bits = 1 << model.word_log2
    nb = 1 << model.banks_log2

    def where(t: int) -> tuple[int, int]:
        x = f2.apply(inv, t)
        return x & mask, x >> offset_bits

    def bank(off: int) -> int:
        return (off * model.element_bits // word_bits) % nb

    return where, bank, model


def draw_memory(
    memory: LinearLayout,
    element_bits: int,
    *,
    hardware: HardwareModel | None = None,
    label: str | None = "offset",
    highlight: Mapping[str, Iterable[int]] | None = None,
    names: Mapping[str, str] | None = None,
    numbers: bool | None = None,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
    title: str | None = None,
    legend: bool = True,
    ax: Any = None,
):
    """Draw a shared-memory layout: each tensor element coloured by its bank.

    Args:
        memory: shared-memory layout (in dims ``offset`` [+ ``block``] or ``vector, bank,
            segment`` [+ ``reps``]) onto one or two out dims.
        element_bits: bits per element; bank = ``offset · element_bits / (8 · bank_bytes)``
            mod ``num_banks`` of the hardware model.
        hardware: the bank model (default NVIDIA: 32 banks × 4 bytes).
        label: number in each cell: ``"offset"`` (element offset), ``"bank"``, or None.
        highlight: ``{legend text: flat tensor indices}``: elements outlined, one outline colour
            per entry (e.g. the elements one load instruction touches, split by half-warp).
        names: axis names for the out dims, e.g. ``{"dim0": "m (row)", "dim1": "n (column)"}``.
        numbers: draw the labels (default: only when the grid is at most 32 × 32).
        max_rows, max_cols: cut of large tensors (the title says what was cut).
        title: axes title (default: ``"shared memory: colour = bank"``).
        legend: draw the bank legend strip under the grid.
        ax: draw into this matplotlib Axes instead of a new figure.

    Returns:
        The ``matplotlib.figure.Figure``.

    Raises:
        LayoutError: bad parameters, in dims or more than two out dims.
        NotInvertibleError: the memory layout is not a bijection.
        MissingMatplotlib: matplotlib is not installed.
    """
    _mpl()
    if label not in ("offset", "bank", None):
        raise LayoutError(f"label must be 'offset', 'bank' or None, got {label!r}")
    where, bank, model = _memory_map(memory, element_bits, hardware)
    nrows, ncols, two_d = _shape(memory)
    rows, cols = min(nrows, max_rows), min(ncols, max_cols)
    numbers, fs = _auto_numbers(numbers, rows, cols)
    nb = 1 << model.banks_log2
    cell = _cell_inches(numbers)
    fig, ax = _new_axes(ax, max(4.0, cols * cell + 1.5), max(2.5, rows * cell + 1.6))

    def color_of(t: int):
        return bank_color(bank(where(t)[0]), nb)

    def text_of(t: int) -> str:
        off, blk = where(t)
        if label == "offset":
            return str(off) if not blk else f"{blk}:{off}"
        if label == "bank":
            return str(bank(off))
        return ""

    _cells(ax, rows, cols, two_d, nrows, color_of, text_of, numbers, fs)
    _grid_axes(ax, rows, cols, memory.out_dim_names, two_d, names)
    if highlight:
        _outline(ax, highlight, rows, cols, nrows, two_d)
    text = title if title is not None else (
        f"shared memory, {model.element_bits}-bit elements: colour = bank (hue = bank/2, "
        f"odd darker), number = {label or 'none'}")
    ax.set_title(_cut_title(text, nrows, ncols, rows, cols), fontsize=9)
    if legend:
        _bank_legend(fig, ax, nb)
    return fig


_OUTLINE_COLORS = ("black", "#d62728", "#1f77b4", "#2ca02c")


def _outline(ax: Any, highlight: Mapping[str, Iterable[int]], rows: int, cols: int, nrows: int,
             two_d: bool) -> None:
    _, Rectangle, _ = _mpl()
    handles = []
    for i, (name, elems) in enumerate(highlight.items()):
        color = _OUTLINE_COLORS[i % len(_OUTLINE_COLORS)]
        for t in elems:
            if two_d:
                r, c = t % nrows, t // nrows
            else:
                r, c = 0, t
            if r < rows and c < cols:
                ax.add_patch(Rectangle((c + 0.08, r + 0.08), 0.84, 0.84, fill=False,
                                       edgecolor=color, linewidth=1.6))
        handles.append(Rectangle((0, 0), 1, 1, fill=False, edgecolor=color, linewidth=1.6,
                                 label=name))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7,
              frameon=False)


def _strip_legend(fig: Any, ax: Any, colors_list: list, label: str) -> None:
    """A horizontal colour strip (one cell per bank / lane) under ``ax``, as a colorbar so the
    figure's constrained layout makes room for it."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    n = len(colors_list)
    cmap = ListedColormap(colors_list)
    norm = BoundaryNorm(list(range(n + 1)), n)
    cb = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, orientation="horizontal",
                      fraction=0.05, pad=0.08, aspect=max(20, 2 * n), shrink=min(1.0, n / 32))
    ticks = [b for b in range(n) if b % max(1, n // 8) == 0]
    if n - 1 not in ticks:
        ticks.append(n - 1)
    from .cells import tick_texts

    cb.set_ticks([])  # no matplotlib ticks (nor a minor one per colour): one label artist
    cb.minorticks_off()
    tick_texts(cb.ax, {b + 0.5: str(b) for b in ticks}, fontsize=6)
    cb.set_label(label, fontsize=7)
    cb.outline.set_visible(False)


def _bank_legend(fig: Any, ax: Any, nb: int) -> None:
    _strip_legend(fig, ax, [bank_color(b, nb) for b in range(nb)], "bank (hue = bank / 2, odd "
                  "banks darker)")


def _holders(layout: LinearLayout) -> dict[int, dict[str, int]]:
    """First holder (register fastest, then lane, warp, block) of every tensor element."""
    if layout.total_in_bits > 22:
        raise LayoutError(
            f"the layout has {layout.total_in_bits} input bits; pictures enumerate every input "
            "and stop at 22 (draw a sublayout instead)"
        )
    sizes = layout.in_dims
    cols = layout.columns
    first: dict[int, dict[str, int]] = {}
    order = list(layout.in_dim_names)
    for x in range(1 << layout.total_in_bits):
        t = f2.apply(cols, x)
        if t in first:
            continue
        vals, y = {}, x
        for n in order:
            b = sizes[n].bit_length() - 1
            vals[n] = y & ((1 << b) - 1)
            y >>= b
        first[t] = vals
    return first


def draw_distributed(
    layout: LinearLayout,
    *,
    color_by: str = "lane",
    label: str | None = "register",
    ring: int | None = None,
    names: Mapping[str, str] | None = None,
    numbers: bool | None = None,
    max_rows: int = MAX_ROWS,
    max_cols: int = MAX_COLS,
    title: str | None = None,
    legend: bool = True,
    ax: Any = None,
):
    """Draw a distributed layout: each tensor element coloured by the thread that holds it.

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``) onto one or
            two out dims. Where several threads hold an element (broadcast) the first in
            enumeration order (register fastest, then lane, warp, block) is shown.
        color_by: ``"lane"`` (hue walks the lanes: 0…31, or 0…63 in a
            64-lane AMD wavefront), ``"warp"``, or ``"thread"`` (lane + warp).
        label: number in each cell: ``"register"``, ``"lane"``, ``"warp"`` or None.
        ring: a lane id whose elements (in warp 0, block 0) get a black ring.
        names, numbers, max_rows, max_cols, title, legend, ax: as :func:`draw_memory`.

    Returns:
        The ``matplotlib.figure.Figure``.

    Raises:
        LayoutError: not a distributed layout (or more than 64 lanes), more than two out
            dims, more than 22 input bits, or an unknown ``color_by`` / ``label``.
        MissingMatplotlib: matplotlib is not installed.
    """
    _, Rectangle, _ = _mpl()
    distributed_columns(layout, "layout", fitting_warp_log2(layout))
    if color_by not in ("lane", "warp", "thread"):
        raise LayoutError(f"color_by must be 'lane', 'warp' or 'thread', got {color_by!r}")
    if label not in ("register", "lane", "warp", None):
        raise LayoutError(f"label must be 'register', 'lane', 'warp' or None, got {label!r}")
    nrows, ncols, two_d = _shape(layout)
    holders = _holders(layout)
    lanes = layout.in_dims.get("lane", 1)
    warps = layout.in_dims.get("warp", 1)
    rows, cols = min(nrows, max_rows), min(ncols, max_cols)
    numbers, fs = _auto_numbers(numbers, rows, cols)
    cell = _cell_inches(numbers)
    fig, ax = _new_axes(ax, max(4.0, cols * cell + 1.5), max(2.5, rows * cell + 1.6))

    def key(v: dict[str, int]) -> tuple[int, int]:
        if color_by == "lane":
            return v.get("lane", 0), max(lanes, 2)
        if color_by == "warp":
            return v.get("warp", 0), max(warps, 2)
        return v.get("lane", 0) + lanes * v.get("warp", 0), max(lanes * warps, 2)

    def color_of(t: int):
        v = holders.get(t)
        return (0.9, 0.9, 0.9) if v is None else lane_color(*key(v))

    def text_of(t: int) -> str:
        v = holders.get(t)
        if v is None or label is None:
            return "" if v is not None else "-"
        return str(v.get(label, 0))

    _cells(ax, rows, cols, two_d, nrows, color_of, text_of, numbers, fs)
    _grid_axes(ax, rows, cols, layout.out_dim_names, two_d, names)
    if ring is not None:
        for t, v in holders.items():
            if v.get("lane", 0) == ring and v.get("warp", 0) == 0 and v.get("block", 0) == 0:
                r, c = (t % nrows, t // nrows) if two_d else (0, t)
                if r < rows and c < cols:
                    ax.add_patch(Rectangle((c + 0.1, r + 0.1), 0.8, 0.8, fill=False,
                                           edgecolor="black", linewidth=1.6))
    text = title if title is not None else (
        f"distributed layout: colour = {color_by} (odd darker), number = {label or 'none'}"
        + (f"; ringed: lane {ring}" if ring is not None else ""))
    ax.set_title(_cut_title(text, nrows, ncols, rows, cols), fontsize=9)
    if legend:
        n = key({"lane": 0, "warp": 0})[1]
        _strip_legend(fig, ax, [lane_color(i, n) for i in range(n)], f"{color_by} (odd darker)")
    return fig


def _bit_names(layout: LinearLayout, short: Mapping[str, str] | None) -> list[str]:
    names = []
    for n in layout.out_dim_names:
        s = (short or {}).get(n, n)
        fmt = "{}{}" if short and n in short else "{}[{}]"
        names += [fmt.format(s, i) for i in range(layout.out_bits(n))]
    return names


_GROUP_NAMES = {"vector": "vec", "bank": "bank", "segment": "seg", "reps": "reps",
                "register": "reg", "lane": "lane", "warp": "warp", "block": "block",
                "offset": "off"}


def _column_groups(layout: LinearLayout, element_bits: int | None,
                   hardware: HardwareModel | None) -> list[tuple[str, int]]:
    """(label, width) of the input-bit groups, left to right."""
    if "offset" in layout.in_dims and element_bits is not None:
        model = bank_model(element_bits, hardware)
        nbits = layout.in_bits("offset")
        w = min(model.within_word_bits, nbits)
        seg_lo = min(model.seg_lo, nbits)
        groups = []
        if w:
            groups.append(("in word", w))
        if seg_lo - w:
            groups.append(("bank", seg_lo - w))
        if nbits - seg_lo:
            groups.append(("seg", nbits - seg_lo))
        groups += [(_GROUP_NAMES.get(n, n), layout.in_bits(n)) for n in layout.in_dim_names
                   if n != "offset"]
        return groups
    return [(_GROUP_NAMES.get(n, n), layout.in_bits(n)) for n in layout.in_dim_names]


def draw_matrix(
    layout: LinearLayout,
    *,
    element_bits: int | None = None,
    hardware: HardwareModel | None = None,
    names: Mapping[str, str] | None = None,
    title: str | None = None,
    ax: Any = None,
):
    """Draw a layout as its F₂ matrix, with the blocks of input bits marked.

    Column ``j`` is the image of input bit ``j`` (Triton's bases, flattened); row ``i`` is
    output bit ``i`` (``dim0`` bits first). A dark cell is a 1. Input bits are grouped and
    labelled by in dim; for a memory layout with an ``offset`` dim and ``element_bits`` given,
    the offset is split as the bank model sees it: within-word bits, bank bits, segment bits.

    Args:
        layout: any LinearLayout (a distributed or shared-memory one, or any other).
        element_bits: split an ``offset`` in dim into in-word | bank | segment bits.
        hardware: the bank model for that split (default NVIDIA).
        names: short names for the out dims in row labels, e.g. ``{"dim0": "m", "dim1": "n"}``.
        title: axes title.
        ax: draw into this Axes.

    Returns:
        The ``matplotlib.figure.Figure``.

    Raises:
        LayoutError: ``layout`` is not a LinearLayout, or bad ``element_bits``.
        MissingMatplotlib: matplotlib is not installed.
    """
    instance_of(layout, LinearLayout, "layout")
    _, Rectangle, mpl_colors = _mpl()
    cols = layout.columns
    nin, nout = len(cols), layout.total_out_bits
    groups = [g for g in _column_groups(layout, element_bits, hardware)
              if g[1] > 0]
    fig, ax = _new_axes(ax, max(3.0, nin * 0.34 + 1.6), max(2.2, nout * 0.34 + 1.4))
    import numpy as np

    palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    # every cell in one image (white = 0, the group's colour = 1), thin grey separators
    rgb = np.ones((max(nout, 1), max(nin, 1), 3))
    start = 0
    for gi, (gname, width) in enumerate(groups):
        color = palette[gi % len(palette)]
        rgb_on = mpl_colors.to_rgb(color)
        for j in range(start, start + width):
            for i in range(nout):
                if cols[j] >> i & 1:
                    rgb[i, j] = rgb_on
        start += width
    if nin and nout:
        from .cell_image import add_cell_image

        add_cell_image(ax, rgb)
        ax.vlines(range(1, nin), 0, nout, colors="#cccccc", linewidth=0.5)
        ax.hlines(range(1, nout), 0, nin, colors="#cccccc", linewidth=0.5)
    start = 0
    for gi, (gname, width) in enumerate(groups):
        color = palette[gi % len(palette)]
        ax.add_patch(Rectangle((start, 0), width, nout, fill=False, edgecolor=color,
                               linewidth=1.8))
        ax.text(start + width / 2, -0.35, gname, ha="center", va="bottom", fontsize=8,
                color=color, fontweight="bold")
        start += width
    ax.set_xlim(0, max(nin, 1))
    ax.set_ylim(nout, -1.2)
    ax.set_aspect("equal")
    in_labels = []
    for gname, width in groups:
        in_labels += [str(i) for i in range(width)]
    from .cells import tick_texts

    tick_texts(ax, {j + 0.5: t for j, t in enumerate(in_labels)}, fontsize=6)
    tick_texts(ax, yticks={i + 0.5: t for i, t in enumerate(_bit_names(layout, names))})
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel("input bit (column = its image)", fontsize=8)
    ax.set_title(title if title is not None else "F₂ matrix: columns = input bits, rows = output "
                 "bits, dark = 1", fontsize=9)
    return fig


def _row_major(layout: LinearLayout) -> LinearLayout:
    """The unswizzled memory layout: offset bits = the last out dim's bits first (row-major)."""
    outs = list(layout.out_dim_names)
    bases = []
    for n in reversed(outs):
        for i in range(layout.out_bits(n)):
            bases.append([1 << i if m == n else 0 for m in outs])
    return LinearLayout({"offset": bases}, layout.out_dims)


def instruction_elements(load: LinearLayout, memory: LinearLayout, element_bits: int,
                         hardware: HardwareModel | None = None) -> tuple[dict[str, list[int]], Any]:
    """Elements the first warp instruction of ``load`` touches (warp 0), in two groups.

    The groups are the first two phases; an access served in one phase is split into its two
    half-warps instead (as the article's picture colours threads 0–15 and 16–31). The vector
    width is the widest ``memory`` admits (as :func:`linlayout.bank_conflicts` counts).

    Returns:
        ``({"load, lanes a-b": [flat tensor indices], …}, ConflictReport of the load)`` — ready
        for ``draw_memory(highlight=…)``.
    """
    rep = bank_conflicts(load, memory, element_bits=element_bits, hardware=hardware,
                         instruction="ld.shared")
    k = rep.vector_elems.bit_length() - 1
    mcols, _ = memory_columns(memory, load.out_dim_names)
    vec_elems = [f2.apply(list(mcols), j) for j in range(1 << k)]
    lane_cols = list(load.dim_columns("lane"))
    nlanes = 1 << len(lane_cols)
    per_group = rep.lanes_per_phase if rep.phases > 1 else max(1, rep.lanes_per_phase // 2)
    per_group = min(per_group, nlanes)
    groups: dict[str, list[int]] = {}
    for g0 in range(0, min(nlanes, 2 * per_group), per_group):
        name = f"load, lanes {g0}-{g0 + per_group - 1}"
        elems = []
        for lane in range(g0, g0 + per_group):
            base = f2.apply(lane_cols, lane)
            elems += [base ^ v for v in vec_elems]
        groups[name] = elems
    return groups, rep


def draw_swizzle(
    store: LinearLayout,
    load: LinearLayout,
    element_bits: int,
    *,
    after: LinearLayout | None = None,
    before: LinearLayout | None = None,
    hardware: HardwareModel | None = None,
    max_rows: int = 16,
    max_cols: int = MAX_COLS,
    numbers: bool | None = None,
    titles: tuple[str, str] = ("before: unswizzled (row-major)", "after: synthesize_swizzle"),
):
    """Before/after: one load instruction on an unswizzled layout and on a synthesized one.

    Args:
        store, load: the distributed layouts of the pair (as :func:`linlayout.synthesize_swizzle`).
        element_bits: bits per element.
        after: the swizzled memory layout (default: ``synthesize_swizzle(store, load)``).
        before: the layout to compare with (default: row-major, the last out dim contiguous).
        hardware: bank model (default NVIDIA).
        max_rows, max_cols, numbers: as :func:`draw_memory` (default: the first 16 rows).
        titles: the two panel titles (the wavefront counts are appended).

    Returns:
        A ``matplotlib.figure.Figure`` with two panels (side by side, or stacked when the grid
        is wider than 32 columns), each titled with the store's and the load's conflict degree
        and wavefronts per instruction (:func:`linlayout.bank_conflicts`), outlining the
        elements the load's first instruction touches (its first two phases, or its two
        half-warps when it runs in one phase), coloured by bank with one shared legend.

    Raises:
        LayoutError: as :func:`linlayout.synthesize_swizzle` / :func:`draw_memory`.
        MissingMatplotlib: matplotlib is not installed.
    """
    Figure, _, _ = _mpl()
    if after is None:
        from ..synthesis import synthesize_swizzle

        after = synthesize_swizzle(store, load, element_bits=element_bits,
                                   hardware=hardware).layout
    if before is None:
        before = _row_major(store)
    nrows, ncols, _ = _shape(store)
    rows, cols = min(nrows, max_rows), min(ncols, max_cols)
    panel_w, panel_h = max(4.0, cols * 0.3 + 1.6), max(2.6, rows * 0.3 + 1.4)
    stacked = cols > 32
    size = (panel_w, 2 * panel_h + 0.8) if stacked else (2 * panel_w, panel_h + 0.8)
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(2, 1) if stacked else fig.subplots(1, 2)
    model = None
    for ax, mem, name in ((axes[0], before, titles[0]), (axes[1], after, titles[1])):
        groups, rep = instruction_elements(load, mem, element_bits, hardware)
        st = bank_conflicts(store, mem, element_bits=element_bits, hardware=hardware,
                            instruction="st.shared")
        title = (f"{name}\nstore: {st.degree}-way, {st.wavefronts_per_warp} wavefront(s)/warp; "
                 f"load: {rep.degree}-way, {rep.wavefronts_per_warp} wavefront(s)/warp")
        draw_memory(mem, element_bits, hardware=hardware, highlight=groups, numbers=numbers,
                    max_rows=max_rows, max_cols=max_cols, title=title, ax=ax, legend=False)
        model = bank_model(element_bits, hardware=hardware)
    assert model is not None
    _bank_legend(fig, list(axes), 1 << model.banks_log2)
    return fig


def draw_layout(layout: LinearLayout, *, element_bits: int = 32,
                hardware: HardwareModel | None = None):
    """The picture ``linlayout show --png/--svg`` writes: the grid above the matrix view.

    Distributed layouts: :func:`draw_distributed` (colour = lane, number = register).
    Shared-memory layouts: :func:`draw_memory` (colour = bank, number = offset) with
    ``element_bits`` and the bank model.

    Raises:
        LayoutError, NotInvertibleError, MissingMatplotlib: as the functions used.
    """
    instance_of(layout, LinearLayout, "layout")
    Figure, _, _ = _mpl()
    nrows, ncols, _ = _shape(layout)
    rows, cols = min(nrows, MAX_ROWS), min(ncols, MAX_COLS)
    nin = layout.total_in_bits
    cell = _cell_inches(_auto_numbers(None, rows, cols)[0])
    w = max(5.0, cols * cell + 2.0, nin * 0.34 + 2.0)
    h_grid = max(2.5, rows * cell + 2.0)
    h_mat = max(2.2, layout.total_out_bits * 0.34 + 1.4)
    fig = Figure(figsize=(w, h_grid + h_mat), layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=[h_grid, h_mat])
    if is_distributed(layout):
        draw_distributed(layout, ax=top)
        draw_matrix(layout, ax=bottom)
    else:
        draw_memory(layout, element_bits, hardware=hardware, ax=top)
        draw_matrix(layout, element_bits=element_bits if "offset" in layout.in_dims else None,
                    hardware=hardware, ax=bottom)
    return fig


def save(fig: Any, path: str, *, dpi: int | None = None) -> None:
    """Write a figure as PNG or SVG (by the extension of ``path``).

    ``dpi`` defaults to 150 for figures up to :data:`LARGE_FIGURE_INCHES` on a side and 100
    above (a 64×64 grid has no numbers to read; fewer pixels keep it fast). SVG text is
    written as text (``svg.fonttype = "none"``: one ``<text>`` element a label, drawn in the
    viewer's copy of DejaVu Sans or the next sans-serif font), not as glyph outlines. A figure
    laid out by matplotlib's constrained layout (every figure of this module) is written as
    laid out, in one drawing pass; as a PNG it is drawn by the Agg canvas and written by
    Pillow at zlib level :data:`PNG_COMPRESS_LEVEL`, as RGB when every pixel is opaque (the
    same pixels; RGBA otherwise), with matplotlib's ``Software`` text and the dpi, as
    ``savefig`` writes them. Any other figure is written by ``savefig``, cropped to its
    content (``bbox_inches="tight"``).

    Raises:
        LayoutError: ``fig`` is not a matplotlib Figure, ``path`` is not a file path, or its
            extension is neither ``.png`` nor ``.svg``.
    """
    Figure, _, _ = _mpl()
    instance_of(fig, Figure, "fig")
    path = file_path(path, "path")
    if dpi is not None:
        dpi = as_int(dpi, "dpi")
        if not 1 <= dpi <= MAX_DPI:
            raise LayoutError(f"dpi must be an int from 1 to {MAX_DPI} (e.g. 150), got {shown(dpi)}")
    low = path.lower()
    if not (low.endswith(".png") or low.endswith(".svg")):
        raise LayoutError(f"picture path {path!r} must end in .png or .svg")
    png = low.endswith(".png")
    if png and fig.canvas.__class__.__name__ != "FigureCanvasAgg":
        # Agg directly: no backend lookup, and nothing GUI-related is imported
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    if dpi is None:
        dpi = 150 if max(fig.get_size_inches()) <= LARGE_FIGURE_INCHES else 100
    from matplotlib import rc_context

    # SVG text as <text> elements, not a path per glyph: a grid's thousands of labels write
    # one element each, stay text (searchable) and keep the files small
    with rc_context({"svg.fonttype": "none"}):
        engine = fig.get_layout_engine()
        if engine is not None and engine.__class__.__name__ == "ConstrainedLayoutEngine":
            # lay the figure out once here, then write it with the layout frozen: savefig
            # would otherwise draw every artist twice (a layout pass, then the real one), and
            # a grid of thousands of labels pays twice
            old_dpi = fig.dpi
            fig.dpi = dpi
            try:
                engine.execute(fig)
                fig.set_layout_engine(None)  # no engine: savefig draws once
                if png:
                    _write_png(fig, path, dpi)
                else:
                    fig.savefig(path, dpi=dpi)
            finally:
                fig.set_layout_engine(engine)
                fig.dpi = old_dpi
        else:
            fig.savefig(path, dpi=dpi, bbox_inches="tight", pad_inches=0.15)


def _write_png(fig: Any, path: str, dpi: int) -> None:
    """Draw ``fig`` (its dpi set to ``dpi``) on its Agg canvas and write the pixels with
    Pillow (:func:`save`)."""
    import matplotlib
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    canvas = fig.canvas
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(physical=True),
                             canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    if image.getextrema()[3][0] == 255:  # every pixel opaque: RGB holds the same pixels
        image = image.convert("RGB")
    info = PngInfo()
    info.add_text("Software", f"Matplotlib version{matplotlib.__version__}, "
                              "https://matplotlib.org/")
    image.save(path, format="png", compress_level=PNG_COMPRESS_LEVEL, dpi=(dpi, dpi),
               pnginfo=info)
