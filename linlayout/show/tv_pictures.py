"""Thread/value grids in the style of CUTLASS's ``print_latex`` / ``print_layout``.

:func:`draw_tv` draws a distributed layout as CUTLASS draws a TV layout: every tensor element
is a cell labelled with the thread and the value that hold it — ``T<thread>V<value>``
(``label="tv"``) or ``thread:value`` (``label="t:r"``) — and coloured by thread, lane, warp
or, given the shared-memory layout, by the bank the element lives in. The thread is
``lane + lanes · warp`` (CUTLASS's thread index in the CTA when the lane dim is the warp), the
value the register index. A warp is 32 lanes (NVIDIA) or a 64-lane wavefront (AMD CDNA: lanes
0–63, threads ``lane + 64 · warp``), as the layout's lane dim says. Large tiles stay readable: labels are drawn up to 32×32 cells, a
legend strip names the colours, ``warp=N`` zooms to the cells one warp holds (the others
grey), and nested CuTe modes are drawn as hierarchy lines (``hierarchy=``).

Source: CUTLASS ``include/cute/util/print_latex.hpp`` (``print_latex`` of a TV layout: one
cell per element, ``T#`` and ``V#``, coloured by thread) and ``include/cute/layout.hpp``
(``print_layout``); Triton's ``LinearLayout`` in-dim names (``register``, ``lane``, ``warp``,
``block``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import f2
from .._checks import as_int, instance_of
from ..errors import LayoutError
from ..hardware.kinds import (distributed_columns, fitting_warp_log2, is_smaller_tile,
                              memory_columns)
from ..hardware.model import HardwareModel, bank_model
from ..layout import LinearLayout
from .cells import (Window, check_axes, check_cut, check_names, check_title, color_strip, frame,
                    hierarchy_lines, mpl, new_figure, paint, tensor_shape)
from .pictures import bank_color, lane_color

__all__ = ["COLOR_BY", "LABELS", "MAX_LABEL_CELLS", "Holder", "add_hierarchy", "draw_tv",
           "holders", "mode_sizes", "transpose_tile", "warp_elements"]

#: What :func:`draw_tv` may colour cells by.
COLOR_BY = ("thread", "lane", "warp", "bank")
#: Cell labels of :func:`draw_tv`: ``T<thread>V<value>``, ``thread:value``, none.
LABELS = ("tv", "t:r", None)
#: Labels are drawn by default when the window is at most this many cells on a side.
MAX_LABEL_CELLS = 32
#: Most input bits :func:`holders` enumerates.
MAX_INPUT_BITS = 22

#: A cell held by no thread.
EMPTY = (0.9, 0.9, 0.9)
#: A cell outside the zoomed warp.
OTHER = (0.96, 0.96, 0.96)

Holder = tuple[int, int, int, int]
"""``(thread, value, lane, warp)`` of the first holder of an element."""


def holders(layout: LinearLayout) -> dict[int, Holder]:
    """Who holds each tensor element: ``{flat element: (thread, value, lane, warp)}``.

    The first holder in order thread, then value (register) is kept where several hold one
    element (a broadcast); block 0 only. ``thread = lane + lanes · warp``.

    Raises:
        LayoutError: not a distributed layout (or more than 64 lanes), or more than 22 input
            bits (draw a smaller layout).
    """
    instance_of(layout, LinearLayout, "layout")
    distributed_columns(layout, "layout", fitting_warp_log2(layout))
    if layout.total_in_bits > MAX_INPUT_BITS:
        raise LayoutError(f"the layout has {layout.total_in_bits} input bits; pictures "
                          f"enumerate every input and stop at {MAX_INPUT_BITS}")
    regs = f2.images(layout.dim_columns("register") if "register" in layout.in_dims else ())
    lanes = f2.images(layout.dim_columns("lane") if "lane" in layout.in_dims else ())
    warps = f2.images(layout.dim_columns("warp") if "warp" in layout.in_dims else ())
    nl = len(lanes)
    out: dict[int, Holder] = {}
    for w, wt in enumerate(warps):
        for lane, lt in enumerate(lanes):
            base = wt ^ lt
            thread = lane + nl * w
            for v, rt in enumerate(regs):
                out.setdefault(base ^ rt, (thread, v, lane, w))
    return out


def warp_elements(layout: LinearLayout, warp: int) -> list[int]:
    """The flat elements warp ``warp`` holds (block 0), ascending.

    Raises:
        LayoutError: ``warp`` outside the layout's warps.
    """
    instance_of(layout, LinearLayout, "layout")
    warp = as_int(warp, "warp")
    nw = layout.in_dims.get("warp", 1)
    if not 0 <= warp < nw:
        raise LayoutError(f"warp must be from 0 to {nw - 1} (the layout has {nw} warps), "
                          f"got {warp}")
    return sorted(t for t, h in holders(layout).items() if h[3] == warp)


def transpose_tile(layout: LinearLayout) -> LinearLayout:
    """The same layout onto the transposed 2-D tile (``dim0`` and ``dim1`` swapped): for
    drawing an ``N × K`` operand as ``K × N``.

    Raises:
        LayoutError: the layout's tensor is not 2-D.
    """
    instance_of(layout, LinearLayout, "layout")
    names = list(layout.out_dim_names)
    if len(names) != 2:
        raise LayoutError(f"only a 2-D tile can be transposed; this one has out dims {names}")
    bases = {n: [[b[1], b[0]] for b in bs] for n, bs in layout.bases.items()}
    return LinearLayout(bases, {names[0]: layout.out_dims[names[1]],
                                names[1]: layout.out_dims[names[0]]})


def mode_sizes(cute_layout: Any) -> list[list[int]]:
    """The leaf sizes of each top-level mode of a CuTe layout (text, a
    :class:`~linlayout.cute.CuteLayout` or a pycute ``Layout``): ``((_8,_8),_64):…`` gives
    ``[[8, 8], [64]]``, the hierarchy lines of :func:`draw_tv`.

    Raises:
        LayoutError: text that does not parse as a CuTe layout.
    """
    from ..cute import parse_cute
    from ..cute.inttuple import flatten

    return [list(flatten(shape)) for shape, _ in parse_cute(cute_layout).modes()]


def draw_tv(
    layout: LinearLayout,
    *,
    label: str | None = "tv",
    color_by: str = "thread",
    memory: LinearLayout | None = None,
    element_bits: int | None = None,
    hardware: HardwareModel | None = None,
    warp: int | None = None,
    hierarchy: Any = None,
    numbers: bool | None = None,
    names: Mapping[str, str] | None = None,
    max_rows: int = 64,
    max_cols: int = 64,
    title: str | None = None,
    legend: bool = True,
    ax: Any = None,
):
    """Draw a distributed layout as a thread/value grid (module docstring).

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``) onto a 1-D
            or 2-D tensor, e.g. ``linlayout.cute.atom("sm80_16x8x16.A")``.
        label: ``"tv"`` (``T<thread>V<value>``, as CUTLASS prints), ``"t:r"`` or None.
        color_by: ``"thread"``, ``"lane"``, ``"warp"``, or ``"bank"`` (needs ``memory``).
        memory: the shared-memory layout of the tensor, for ``color_by="bank"``.
        element_bits: bits per element, for the banks (required with ``memory``).
        hardware: the bank model (default NVIDIA).
        warp: zoom to this warp: the window starts at its first row and column, and the cells
            of other warps are grey.
        hierarchy: draw the lines of nested CuTe modes: a CuTe layout (text, CuteLayout or
            pycute; its top-level modes are ``dim0``, ``dim1``) or the leaf sizes per mode
            (``[[8, 8], [64]]``).
        numbers: draw the labels (default: when the window is at most
            :data:`MAX_LABEL_CELLS` cells a side).
        names: axis names of the out dims (``{"dim0": "m", "dim1": "k"}``).
        max_rows, max_cols: the largest window drawn (the title says what was cut).
        title: the axes title (default: what the colours and labels mean).
        legend: draw the colour strip under the grid.
        ax: draw into this matplotlib Axes instead of a new figure.

    Returns:
        The ``matplotlib.figure.Figure``.

    Raises:
        LayoutError: not a distributed layout, more than two out dims, an unknown ``label``
            or ``color_by``, ``color_by="bank"`` without ``memory`` and ``element_bits``, a
            memory layout over another tensor, a ``warp`` the layout does not have.
        MissingMatplotlib: matplotlib is not installed.
    """
    mpl()
    if label not in LABELS:
        raise LayoutError(f"label must be one of {list(LABELS)}, got {label!r}")
    if color_by not in COLOR_BY:
        raise LayoutError(f"color_by must be one of {list(COLOR_BY)}, got {color_by!r}")
    max_rows, max_cols = check_cut(max_rows, max_cols)
    names = check_names(names)
    title = check_title(title)
    if ax is not None:
        check_axes(ax)
    held = holders(layout)
    rows, cols = tensor_shape(layout)
    two_d = len(layout.out_dims) == 2
    lanes = layout.in_dims.get("lane", 1)
    warps = layout.in_dims.get("warp", 1)
    zoom = None if warp is None else set(warp_elements(layout, warp))
    win = Window.around(rows, cols, zoom, max_rows, max_cols)
    bank_of = _banks(layout, memory, element_bits, hardware) if color_by == "bank" else None
    if color_by != "bank" and memory is not None:
        _banks(layout, memory, element_bits, hardware)  # checked, even if unused
    if numbers is None:
        numbers = max(win.nrows, win.ncols) <= MAX_LABEL_CELLS and label is not None
    n_colors = {"thread": max(lanes * warps, 2), "lane": max(lanes, 2), "warp": max(warps, 2)}

    palette: dict[int, tuple[float, float, float]] = {}  # colour of each bank or key, once
    field = {"thread": 0, "lane": 2, "warp": 3}.get(color_by, 0)

    def color_of(t: int):
        h = held.get(t)
        if h is None:
            return EMPTY
        if zoom is not None and t not in zoom:
            return OTHER
        key = bank_of[0](t) if bank_of is not None else h[field]
        rgb = palette.get(key)
        if rgb is None:
            rgb = palette[key] = (bank_color(key, bank_of[1]) if bank_of is not None else
                                  lane_color(key, n_colors[color_by]))
        return rgb

    def text_of(t: int) -> str:
        h = held.get(t)
        if h is None:
            return "-"
        if zoom is not None and t not in zoom:
            return ""
        return f"T{h[0]}V{h[1]}" if label == "tv" else f"{h[0]}:{h[1]}"

    cell_in = 0.42 if numbers else 0.12
    if ax is None:
        fig = new_figure(max(4.0, win.ncols * cell_in + 1.6),
                         max(2.6, win.nrows * cell_in + 1.8))
        ax = fig.add_subplot(1, 1, 1)
    fig = ax.figure
    paint(ax, win, color_of, text_of if numbers else None,
          fontsize=5.5)
    out_names = [names.get(n, n) for n in layout.out_dim_names]
    frame(ax, win, out_names[0], out_names[-1], two_d=two_d)
    if hierarchy is not None:
        _lines(ax, win, hierarchy, two_d)
    if title is None:
        what = {"tv": "T = thread, V = value (register)", "t:r": "thread:value", None: ""}[label]
        title = f"thread/value layout: colour = {color_by}" + (f", {what}" if what else "")
        if warp is not None:
            title += f"; warp {warp} ({len(zoom or ())} elements)"
    ax.set_title(title + win.note(), fontsize=9)
    if legend:
        if bank_of is not None:
            nb = bank_of[1]
            color_strip(fig, ax, [bank_color(b, nb) for b in range(nb)],
                        "bank (hue = bank / 2, odd banks darker)")
        else:
            n = n_colors[color_by]
            color_strip(fig, ax, [lane_color(i, n) for i in range(n)],
                        f"{color_by} (odd darker)")
    return fig


def _lines(ax: Any, win: Window, hierarchy: Any, two_d: bool) -> int:
    sizes = hierarchy if _is_sizes(hierarchy) else mode_sizes(hierarchy)
    if len(sizes) != (2 if two_d else 1):
        raise LayoutError(f"the hierarchy has {len(sizes)} modes but the tile has "
                          f"{2 if two_d else 1} dims")
    row_sizes, col_sizes = (sizes[0], sizes[1]) if two_d else ([], sizes[0])
    return hierarchy_lines(ax, win, row_sizes, col_sizes)


def add_hierarchy(ax: Any, layout: LinearLayout, hierarchy: Any, *, max_rows: int = 64,
                  max_cols: int = 64) -> int:
    """Draw the lines of nested CuTe modes on a grid already drawn from the origin (e.g. by
    :func:`linlayout.show.pictures.draw_memory` with the same ``max_rows``/``max_cols``).

    Args:
        ax: the grid's Axes.
        layout: the layout drawn (for the tile's shape).
        hierarchy: as :func:`draw_tv`'s (CuTe text or leaf sizes per mode), one mode per dim.
        max_rows, max_cols: the cut the grid was drawn with.

    Returns:
        The number of lines drawn (0 when no mode is nested).

    Raises:
        LayoutError: CuTe text that does not parse, or modes that do not match the tile.
    """
    check_axes(ax)
    rows, cols = tensor_shape(layout)
    win = Window.around(rows, cols, None, *check_cut(max_rows, max_cols))
    return _lines(ax, win, hierarchy, len(layout.out_dims) == 2)


def _is_sizes(h: Any) -> bool:
    return isinstance(h, Sequence) and not isinstance(h, str) and all(
        isinstance(m, Sequence) and all(isinstance(s, int) for s in m) for m in h)


def _banks(layout: LinearLayout, memory: LinearLayout | None, element_bits: int | None,
           hardware: HardwareModel | None):
    """``(bank_of(flat element), num_banks)`` of the memory layout."""
    if memory is None or element_bits is None:
        raise LayoutError("color_by='bank' needs the shared-memory layout (memory=) and "
                          "element_bits=")
    instance_of(memory, LinearLayout, "memory")
    small = is_smaller_tile(layout, memory)
    if dict(memory.out_dims) != dict(layout.out_dims) and not small:
        raise LayoutError(f"memory is over {dict(memory.out_dims)} but the layout over "
                          f"{dict(layout.out_dims)}; give the memory of the same tile (or of "
                          "a larger one: the layout is placed at its origin)")
    model = bank_model(element_bits, hardware)
    mcols, offset_bits = memory_columns(memory, layout.out_dim_names)
    inv = f2.inverse(list(mcols))
    mask = (1 << offset_bits) - 1
    word_bits = 1 << model.word_log2
    nb = 1 << model.banks_log2
    # a flat index of the layout's tile -> the memory tile's (same dims, each at least as big)
    small_bits = [layout.out_bits(n) for n in layout.out_dim_names]
    big_bits = [memory.out_bits(n) for n in layout.out_dim_names]

    def widen(t: int) -> int:
        out, shift = 0, 0
        for sb, bb in zip(small_bits, big_bits):
            out |= (t & ((1 << sb) - 1)) << shift
            t >>= sb
            shift += bb
        return out

    def bank_of(t: int) -> int:
        return ((f2.apply(inv, widen(t)) & mask) * model.element_bits // word_bits) % nb

    return bank_of, nb
