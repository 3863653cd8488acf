"""A grid of labelled, coloured cells on matplotlib axes: the canvas the layout pictures share.

The thread/value grids (:mod:`linlayout.show.tv_pictures`), the MMA panel
(:mod:`linlayout.show.mma_picture`) and the copy picture (:mod:`linlayout.show.copy_picture`)
all draw a window of a 1-D or 2-D tensor as cells: ``dim0`` down the rows, ``dim1`` across the
columns (a 1-D tensor is one row), the flat element index ``row + rows · column`` (``dim0``
fastest, as a layout's flat columns). This module holds only drawing: one RGB image for the
colours (fast for 64×64 tiles), optional text per cell, outlines of cell sets, the lines of a
CuTe hierarchical mode and a colour strip for the legend. matplotlib is imported lazily
(:func:`mpl`), so importing this module costs nothing.

Source: matplotlib's object-oriented API (``matplotlib.figure.Figure``,
``matplotlib.collections.PathCollection``; the colours: :mod:`linlayout.show.cell_image`; the
labels: :mod:`linlayout.show.cell_labels`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import math

from .._checks import as_int, instance_of, need_mapping, shown, string
from ..errors import LayoutError
from ..layout import LinearLayout
from .plot_extra import INSTALL_HINT, MissingMatplotlib

__all__ = ["MAX_CELLS_A_SIDE", "Window", "check_axes", "check_cut", "check_names",
           "check_title", "color_strip", "frame", "hierarchy_breaks", "hierarchy_lines", "ink",
           "mpl", "new_figure", "outline", "outlines", "paint", "tensor_shape", "tick_texts"]

#: The largest window (cells a side) a picture draws: ``max_rows``/``max_cols`` up to this.
MAX_CELLS_A_SIDE = 1024
#: The largest figure side, inches.
MAX_FIGURE_INCHES = 400.0


def mpl() -> tuple[Any, Any]:
    """``(Figure, Rectangle)`` from matplotlib, imported now.

    Raises:
        MissingMatplotlib: matplotlib is not installed (the message says how to install it).
    """
    try:
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
    except ImportError as exc:
        raise MissingMatplotlib(INSTALL_HINT) from exc
    return Figure, Rectangle


def check_axes(ax: Any, what: str = "ax") -> Any:
    """``ax`` itself, which must be a matplotlib ``Axes``.

    Raises:
        LayoutError: anything else. MissingMatplotlib: matplotlib is not installed.
    """
    mpl()
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise LayoutError(f"{what} must be a matplotlib Axes, got {shown(ax)}")
    return ax


def check_cut(max_rows: Any, max_cols: Any) -> tuple[int, int]:
    """``(max_rows, max_cols)`` as ints from 1 to :data:`MAX_CELLS_A_SIDE`.

    Raises:
        LayoutError: not ints in that range.
    """
    out = []
    for v, what in ((max_rows, "max_rows"), (max_cols, "max_cols")):
        v = as_int(v, what)
        if not 1 <= v <= MAX_CELLS_A_SIDE:
            raise LayoutError(f"{what} must be from 1 to {MAX_CELLS_A_SIDE}, got {v}")
        out.append(v)
    return out[0], out[1]


def check_title(title: Any) -> str | None:
    """``title``, which must be None or a str.

    Raises:
        LayoutError: anything else.
    """
    return None if title is None else string(title, "title")


def check_names(names: Any) -> dict[str, str]:
    """``names`` (axis names by out dim) as a dict; None gives ``{}``.

    Raises:
        LayoutError: not a mapping of str to str.
    """
    if names is None:
        return {}
    need_mapping(names, "names")
    for k, v in names.items():
        string(k, "a key of names")
        string(v, f"names[{k!r}]")
    return dict(names)


def _positive(v: Any, what: str, hi: float = MAX_FIGURE_INCHES) -> float:
    """A finite number above 0 and at most ``hi`` (sizes in inches, font sizes, widths)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not 0 < v <= hi:
        raise LayoutError(f"{what} must be a number above 0 and at most {hi:g}, got {shown(v)}")
    return float(v)


def _window(win: Any) -> Window:
    return instance_of(win, Window, "win")


def _sizes(sizes: Any, what: str) -> list[int]:
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
        raise LayoutError(f"{what} must be a list of positive ints (a mode's leaf sizes), got "
                          f"{shown(sizes)}")
    out = [as_int(x, f"{what}[{i}]") for i, x in enumerate(sizes)]
    if any(x < 1 for x in out):
        raise LayoutError(f"{what} must hold positive ints, got {out}")
    return out


def tensor_shape(layout: LinearLayout) -> tuple[int, int]:
    """``(rows, cols)`` of the tensor a layout maps onto: ``(dim0, dim1)``, or ``(1, n)`` for
    a 1-D tensor.

    Raises:
        LayoutError: not a LinearLayout; no out dim, or more than two.
    """
    instance_of(layout, LinearLayout, "layout")
    sizes = list(layout.out_dims.values())
    if len(sizes) == 1:
        return 1, sizes[0]
    if len(sizes) == 2:
        return sizes[0], sizes[1]
    raise LayoutError(f"only 1-D and 2-D tensors can be drawn; this layout has out dims "
                      f"{list(layout.out_dim_names)}")


@dataclass(frozen=True)
class Window:
    """The part of a ``rows × cols`` tensor drawn: rows ``r0 … r0+nrows−1``, columns
    ``c0 … c0+ncols−1``.

    Attributes:
        rows, cols: the whole tensor's size (``rows`` is 1 for a 1-D tensor).
        r0, c0: the first row and column drawn.
        nrows, ncols: how many are drawn.
    """

    rows: int
    cols: int
    r0: int = 0
    c0: int = 0
    nrows: int = 0
    ncols: int = 0

    @classmethod
    def around(cls, rows: int, cols: int, flat: Iterable[int] | None, max_rows: int,
               max_cols: int) -> Window:
        """The window of at most ``max_rows × max_cols`` cells: from the origin, or, given
        ``flat`` element indices, their bounding box (from the first row and column they
        reach)."""
        if max_rows < 1 or max_cols < 1:
            raise LayoutError(f"max_rows and max_cols must be positive, got {max_rows}, "
                              f"{max_cols}")
        r0, c0, r1, c1 = 0, 0, rows - 1, cols - 1
        if flat is not None:
            cells = [(t % rows, t // rows) for t in flat]
            if cells:
                r0, r1 = min(r for r, _ in cells), max(r for r, _ in cells)
                c0, c1 = min(c for _, c in cells), max(c for _, c in cells)
        return cls(rows, cols, r0, c0, min(r1 - r0 + 1, max_rows), min(c1 - c0 + 1, max_cols))

    @property
    def cut(self) -> bool:
        """Less than the whole tensor is drawn."""
        return (self.nrows, self.ncols) != (self.rows, self.cols)

    def cell(self, flat: int) -> tuple[int, int] | None:
        """The drawn ``(row, col)`` (window coordinates) of a flat element, or None outside."""
        r, c = flat % self.rows - self.r0, flat // self.rows - self.c0
        if 0 <= r < self.nrows and 0 <= c < self.ncols:
            return r, c
        return None

    def flat(self, r: int, c: int) -> int:
        """The flat element index of window cell ``(r, c)``."""
        return (self.r0 + r) + self.rows * (self.c0 + c)

    def note(self) -> str:
        """``" (rows a-b of R, columns c-d of C)"`` when cut, else ``""``."""
        if not self.cut:
            return ""
        parts = []
        if self.nrows < self.rows:
            parts.append(f"rows {self.r0}-{self.r0 + self.nrows - 1} of {self.rows}")
        if self.ncols < self.cols:
            parts.append(f"columns {self.c0}-{self.c0 + self.ncols - 1} of {self.cols}")
        return f" ({', '.join(parts)})"


def ink(rgb: Sequence[float]) -> str:
    """``"black"`` or ``"white"``, whichever reads better on the colour ``rgb`` (3 or 4
    numbers from 0 to 1).

    Raises:
        LayoutError: not such a colour.
    """
    try:
        r, g, b = (float(x) for x in rgb[:3])
    except (TypeError, ValueError, KeyError, IndexError):
        raise LayoutError(f"rgb must be 3 numbers from 0 to 1, got {shown(rgb)}") from None
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def new_figure(width_in: float, height_in: float) -> Any:
    """A constrained-layout ``Figure`` of the given size (inches); no pyplot state.

    Raises:
        LayoutError: a size that is not a positive number of at most 400 inches.
    """
    Figure, _ = mpl()
    width_in, height_in = _positive(width_in, "width_in"), _positive(height_in, "height_in")
    return Figure(figsize=(width_in, height_in), layout="constrained")


def paint(ax: Any, win: Window, color_of, text_of=None, *, fontsize: float = 6.0) -> None:
    """Paint every cell of ``win``: ``color_of(flat) -> RGB`` as one image, thin white
    separators (up to 64 cells a side), and ``text_of(flat) -> str`` in each cell when given
    (black or white, as :func:`ink`; all labels one artist:
    :func:`linlayout.show.cell_labels.add_cell_labels`, listed by
    :func:`~linlayout.show.cell_labels.cell_labels`).

    Raises:
        LayoutError: ``ax`` not an Axes, ``win`` not a Window, ``color_of`` (or a given
            ``text_of``) not callable, a bad ``fontsize``, or a colour that is not 3 numbers.
    """
    import numpy as np

    check_axes(ax)
    _window(win)
    if not callable(color_of) or (text_of is not None and not callable(text_of)):
        raise LayoutError("color_of (and text_of, when given) must be functions of the flat "
                          "element index")
    fontsize = _positive(fontsize, "fontsize", 72)
    rgb = np.empty((win.nrows, win.ncols, 3))
    try:
        for r in range(win.nrows):
            for c in range(win.ncols):
                rgb[r, c] = color_of(win.flat(r, c))[:3]
    except (TypeError, ValueError, IndexError) as exc:
        raise LayoutError(f"color_of must return 3 numbers from 0 to 1: {exc}") from None
    from .cell_image import add_cell_image

    add_cell_image(ax, rgb)
    if max(win.nrows, win.ncols) <= 64:
        ax.vlines(range(1, win.ncols), 0, win.nrows, colors="white", linewidth=0.4)
        ax.hlines(range(1, win.nrows), 0, win.ncols, colors="white", linewidth=0.4)
    if text_of is not None:  # one artist for every label (cell_labels lists them)
        from .cell_labels import add_cell_labels

        inks: dict[tuple[float, ...], str] = {}  # the ink of each colour, once

        def ink_of(r: int, c: int) -> str:
            key = tuple(rgb[r, c].tolist())
            got = inks.get(key)
            if got is None:
                got = inks[key] = ink(key)
            return got

        add_cell_labels(ax, [(c + 0.5, r + 0.5, txt, ink_of(r, c))
                             for r in range(win.nrows) for c in range(win.ncols)
                             if (txt := text_of(win.flat(r, c)))],
                        fontsize=fontsize, linespacing=0.9)


def frame(ax: Any, win: Window, row_label: str, col_label: str, *, two_d: bool = True) -> None:
    """Limits, tick labels (the tensor's own indices, about 16 a side; :func:`tick_texts`)
    and axis labels.

    Raises:
        LayoutError: ``ax`` not an Axes, ``win`` not a Window, labels not strings.
    """
    check_axes(ax)
    _window(win)
    string(row_label, "row_label")
    string(col_label, "col_label")
    ax.set_xlim(0, win.ncols)
    ax.set_ylim(win.nrows, 0)
    ax.set_aspect("equal")
    sc, sr = max(1, win.ncols // 16), max(1, win.nrows // 16)
    tick_texts(ax, {c + 0.5: str(win.c0 + c) for c in range(0, win.ncols, sc)},
                {r + 0.5: str(win.r0 + r) for r in range(0, win.nrows, sr)} if two_d else {})
    ax.set_xlabel(col_label, fontsize=8)
    if two_d:
        ax.set_ylabel(row_label, fontsize=8)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


#: Points between the grid and its tick labels (matplotlib's default tick pad).
TICK_PAD_POINTS = 3.5
#: Points between the tick labels and the axis label (matplotlib's default label pad).
LABEL_GAP_POINTS = 4.0


def tick_texts(ax: Any, xticks: Mapping[float, str] | None = None,
                yticks: Mapping[float, str] | None = None, *, fontsize: float = 7.0) -> None:
    """Label data positions along the bottom (``xticks``: data x → text) and the left
    (``yticks``: data y → text) of ``ax`` where matplotlib puts tick labels, and move the
    axis labels clear of them. The labels of a side are one artist
    (:func:`linlayout.show.cell_labels.add_cell_labels`), and the axis of each side given
    gets no ticks: a matplotlib tick is five artists, laid out several times over, which made
    most of the cost of drawing a grid.

    Raises:
        LayoutError: ``ax`` not an Axes, ticks that are not mappings of a finite number to a
            str, a bad ``fontsize``.
    """
    from .cell_labels import add_cell_labels

    check_axes(ax)
    fontsize = _positive(fontsize, "fontsize", 72)
    for ticks, what in ((xticks, "xticks"), (yticks, "yticks")):
        if ticks is not None:
            need_mapping(ticks, what)
            for k, v in ticks.items():
                _finite(k, f"a position of {what}")
                string(v, f"{what}[{k!r}]")
    for ticks, axis, text1 in ((xticks, ax.xaxis, ax.get_xaxis_text1_transform),
                               (yticks, ax.yaxis, ax.get_yaxis_text1_transform)):
        if ticks is None:
            continue
        axis.set_ticks([])
        transform, va, ha = text1(TICK_PAD_POINTS)
        points = [(k, 0.0, v, "black") if axis is ax.xaxis else (0.0, k, v, "black")
                  for k, v in ticks.items()]
        artist = add_cell_labels(ax, points, fontsize=fontsize, ha=ha, va=va,
                                 transform=transform)
        chars = max((len(t) for t in ticks.values()), default=0)
        depth = 1.2 if axis is ax.xaxis else 0.64 * chars  # a line high; digits 0.64 wide
        axis.labelpad = TICK_PAD_POINTS + (depth * fontsize + LABEL_GAP_POINTS if artist.labels
                                           else 0)


def _finite(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise LayoutError(f"{what} must be a finite number, got {shown(v)}")
    return float(v)


def outline(ax: Any, win: Window, flat: Iterable[int], color: Any, *, label: str | None = None,
            linewidth: float = 1.8) -> Any:
    """Outline the cells of the flat elements (those inside ``win``); returns a legend handle
    (a Rectangle labelled ``label``) for ``ax.legend``. :func:`outlines` with one group.

    Raises:
        LayoutError: as :func:`outlines`.
    """
    _, Rectangle = mpl()
    outlines(ax, win, [(flat, color, label)], linewidth=linewidth)
    return Rectangle((0, 0), 1, 1, fill=False, edgecolor=color, linewidth=linewidth, label=label)


def outlines(ax: Any, win: Window, groups: Sequence[tuple[Iterable[int], Any, str | None]], *,
             linewidth: float = 1.8) -> list[Any]:
    """Outline the cells of several groups of flat elements (those inside ``win``), one colour
    per group, all as one artist: a ``PathCollection`` holding one path per group (the boxes
    of its cells), so that a copy picture's dozens of wavefronts over thousands of cells draw
    as fast as one.

    Args:
        ax, win: the axes and its window.
        groups: ``(flat elements, colour, label or None)`` per group.
        linewidth: points.

    Returns:
        A legend handle per labelled group (a Rectangle labelled with the group's label), for
        ``ax.legend``, in the groups' order (none for a group whose label is None).

    Raises:
        LayoutError: ``ax`` not an Axes, ``win`` not a Window, ``groups`` not such triples,
            elements that are not ints, a colour matplotlib does not know, a label that is
            not a str, a bad ``linewidth``.
    """
    import numpy as np

    _, Rectangle = mpl()
    from matplotlib.collections import PathCollection
    from matplotlib.colors import is_color_like
    from matplotlib.path import Path

    check_axes(ax)
    _window(win)
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence):
        raise LayoutError(f"groups must be a list of (elements, colour, label), got "
                          f"{shown(groups)}")
    linewidth = _positive(linewidth, "linewidth", 72)
    box = np.array([[0.08, 0.08], [0.92, 0.08], [0.92, 0.92], [0.08, 0.92], [0.08, 0.08]])
    codes = np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY],
                     dtype=Path.code_type)
    paths, colors, handles = [], [], []
    for group in groups:
        if isinstance(group, (str, bytes)) or not isinstance(group, Sequence) or len(group) != 3:
            raise LayoutError(f"a group is (elements, colour, label), got {shown(group)}")
        flat, color, label = group
        if isinstance(flat, (str, bytes)) or not isinstance(flat, Iterable):
            raise LayoutError(f"flat must be a list of element indices, got {shown(flat)}")
        cells = [rc for t in flat if (rc := win.cell(as_int(t, "an element index")))]
        if not is_color_like(color):
            raise LayoutError(f"color must be a matplotlib colour, got {shown(color)}")
        if label is not None:
            string(label, "label")
        if cells:  # (c, r) corners of each cell's box, then the box's five vertices
            at = np.array([(c, r) for r, c in cells], dtype=float)
            paths.append(Path((at[:, None, :] + box[None]).reshape(-1, 2),
                              np.tile(codes, len(cells))))
            colors.append(color)
        if label is not None:
            handles.append(Rectangle((0, 0), 1, 1, fill=False, edgecolor=color,
                                     linewidth=linewidth, label=label))
    if paths:  # one artist to lay out and draw, not one per cell or per group
        ax.add_collection(PathCollection(paths, facecolors="none", edgecolors=colors,
                                         linewidths=linewidth), autolim=False)
    return handles


def hierarchy_breaks(sizes: Sequence[int]) -> list[tuple[int, int]]:
    """``(period, level)`` of the lines of one nested CuTe mode, outermost level 0 first.

    A mode of shape ``(a, b, c)`` (colexicographic: ``a`` fastest) has a line every ``a`` and
    every ``a·b`` elements; the coarser period is the outer level.

    Example::

        >>> hierarchy_breaks([8, 8])
        [(8, 0)]
        >>> hierarchy_breaks([2, 4, 8])
        [(8, 0), (2, 1)]

    Raises:
        LayoutError: ``sizes`` not a list of positive ints.
    """
    sizes = _sizes(sizes, "sizes")
    periods = []
    p = 1
    for s in sizes[:-1]:
        p *= s
        periods.append(p)
    periods = [q for q in periods if q > 1]
    return [(q, level) for level, q in enumerate(sorted(set(periods), reverse=True))]


def hierarchy_lines(ax: Any, win: Window, row_sizes: Sequence[int],
                    col_sizes: Sequence[int]) -> int:
    """Draw the lines of a nested CuTe mode along the rows (``row_sizes``, the leaves of the
    mode on ``dim0``) and the columns (``col_sizes``, on ``dim1``): thicker for outer levels.
    Returns how many lines were drawn.

    Raises:
        LayoutError: ``ax`` not an Axes, ``win`` not a Window, sizes not lists of positive
            ints.
    """
    check_axes(ax)
    _window(win)
    row_sizes, col_sizes = _sizes(row_sizes, "row_sizes"), _sizes(col_sizes, "col_sizes")
    drawn = 0
    for sizes, along_rows in ((row_sizes, True), (col_sizes, False)):
        for period, level in hierarchy_breaks(sizes):
            lw = max(0.8, 2.6 - 0.9 * level)
            start = win.r0 if along_rows else win.c0
            count = win.nrows if along_rows else win.ncols
            for k in range(1, count):
                if (start + k) % period == 0:
                    if along_rows:
                        ax.hlines(k, 0, win.ncols, colors="black", linewidth=lw)
                    else:
                        ax.vlines(k, 0, win.nrows, colors="black", linewidth=lw)
                    drawn += 1
    return drawn


def color_strip(fig: Any, ax: Any, colors: Sequence[Any], label: str,
                tick_labels: Mapping[int, str] | None = None) -> None:
    """A horizontal legend strip under ``ax`` (or a list of axes): one cell per colour, ticks
    at about 8 positions (or at ``tick_labels``' keys, with their text).

    Raises:
        LayoutError: ``fig`` not a Figure, ``ax`` not an Axes (or list of them), no colours
            or one matplotlib does not know, a ``label`` that is not a str, ``tick_labels``
            not a mapping of colour index to str.
    """
    Figure, _ = mpl()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap, is_color_like

    instance_of(fig, Figure, "fig")
    for a in (ax if isinstance(ax, (list, tuple)) else [ax]):
        check_axes(a)
    if isinstance(colors, (str, bytes)) or not isinstance(colors, Sequence) or not colors \
            or not all(is_color_like(c) for c in colors):
        raise LayoutError(f"colors must be a non-empty list of matplotlib colours, got "
                          f"{shown(colors)}")
    string(label, "label")
    if tick_labels is not None:
        need_mapping(tick_labels, "tick_labels")
        tick_labels = {as_int(k, "a tick position"): string(v, "a tick label")
                       for k, v in tick_labels.items()}

    n = len(colors)
    cb = fig.colorbar(ScalarMappable(norm=BoundaryNorm(list(range(n + 1)), n),
                                     cmap=ListedColormap(list(colors))),
                      ax=ax, orientation="horizontal", fraction=0.05, pad=0.06,
                      aspect=max(20, 2 * n), shrink=min(1.0, max(n, 8) / 32))
    if tick_labels is None:
        ticks = [i for i in range(n) if i % max(1, n // 8) == 0]
        if n - 1 not in ticks:
            ticks.append(n - 1)
        tick_labels = {i: str(i) for i in ticks}
    cb.set_ticks([])  # no matplotlib ticks (nor a minor one per colour): one label artist
    cb.minorticks_off()
    tick_texts(cb.ax, {i + 0.5: text for i, text in tick_labels.items()}, fontsize=6)
    cb.set_label(label, fontsize=7)
    cb.outline.set_visible(False)
