"""A grid of labelled, coloured cells on matplotlib axes: the canvas the layout pictures share.

The thread/value grids (:mod:`linlayout.show.tv_pictures`), the MMA panel
(:mod:`linlayout.show.mma_picture`) and the copy picture (:mod:`linlayout.show.copy_picture`)
all draw a window of a 1-D or 2-D tensor as cells: ``dim0`` down the rows, ``dim1`` across the
columns (a 1-D tensor is one row), the flat element index ``row + rows · column`` (``dim0``
fastest, as a layout's flat columns). This module holds only drawing: one RGB image for the
colours (fast for 64×64 tiles), optional text per cell, outlines of cell sets, the lines of a
CuTe hierarchical mode and a colour strip for the legend. matplotlib is imported lazily
(:func:`mpl`), so importing this module costs nothing.

Source: matplotlib's object-oriented API (``matplotlib.figure.Figure``, ``Axes.imshow``,
``Axes.text``, ``matplotlib.patches.Rectangle``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import LayoutError
from ..layout import LinearLayout
from .pictures import INSTALL_HINT, MissingMatplotlib

__all__ = ["Window", "color_strip", "frame", "hierarchy_breaks", "hierarchy_lines", "ink",
           "mpl", "new_figure", "outline", "paint", "tensor_shape"]


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


def tensor_shape(layout: LinearLayout) -> tuple[int, int]:
    """``(rows, cols)`` of the tensor a layout maps onto: ``(dim0, dim1)``, or ``(1, n)`` for
    a 1-D tensor.

    Raises:
        LayoutError: no out dim, or more than two.
    """
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
    """``"black"`` or ``"white"``, whichever reads better on the colour ``rgb``."""
    r, g, b = rgb[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def new_figure(width_in: float, height_in: float) -> Any:
    """A constrained-layout ``Figure`` of the given size (inches); no pyplot state."""
    Figure, _ = mpl()
    return Figure(figsize=(width_in, height_in), layout="constrained")


def paint(ax: Any, win: Window, color_of, text_of=None, *, fontsize: float = 6.0) -> None:
    """Paint every cell of ``win``: ``color_of(flat) -> RGB`` as one image, thin white
    separators (up to 64 cells a side), and ``text_of(flat) -> str`` in each cell when given."""
    import numpy as np

    rgb = np.empty((win.nrows, win.ncols, 3))
    for r in range(win.nrows):
        for c in range(win.ncols):
            rgb[r, c] = color_of(win.flat(r, c))[:3]
    ax.imshow(rgb, extent=(0, win.ncols, win.nrows, 0), interpolation="nearest", aspect="equal")
    if max(win.nrows, win.ncols) <= 64:
        ax.vlines(range(1, win.ncols), 0, win.nrows, colors="white", linewidth=0.4)
        ax.hlines(range(1, win.nrows), 0, win.ncols, colors="white", linewidth=0.4)
    if text_of is not None:
        for r in range(win.nrows):
            for c in range(win.ncols):
                txt = text_of(win.flat(r, c))
                if txt:  # left out of the constrained layout: it stays inside its cell
                    ax.text(c + 0.5, r + 0.5, txt, ha="center", va="center", fontsize=fontsize,
                            color=ink(rgb[r, c]), linespacing=0.9, in_layout=False)


def frame(ax: Any, win: Window, row_label: str, col_label: str, *, two_d: bool = True) -> None:
    """Limits, ticks (the tensor's own indices, about 16 a side) and axis labels."""
    ax.set_xlim(0, win.ncols)
    ax.set_ylim(win.nrows, 0)
    ax.set_aspect("equal")
    sc, sr = max(1, win.ncols // 16), max(1, win.nrows // 16)
    ax.set_xticks([c + 0.5 for c in range(0, win.ncols, sc)],
                  [str(win.c0 + c) for c in range(0, win.ncols, sc)], fontsize=7)
    ax.set_yticks([r + 0.5 for r in range(0, win.nrows, sr)],
                  [str(win.r0 + r) for r in range(0, win.nrows, sr)] if two_d else
                  [""] * len(range(0, win.nrows, sr)), fontsize=7)
    ax.tick_params(length=0)
    ax.minorticks_off()
    ax.set_xlabel(col_label, fontsize=8)
    if two_d:
        ax.set_ylabel(row_label, fontsize=8)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def outline(ax: Any, win: Window, flat: Iterable[int], color: Any, *, label: str | None = None,
            linewidth: float = 1.8) -> Any:
    """Outline the cells of the flat elements (those inside ``win``); returns a legend handle
    (a Rectangle labelled ``label``) for ``ax.legend``. The outlines are one
    ``PatchCollection``, so a tile of thousands of cells draws fast."""
    _, Rectangle = mpl()
    from matplotlib.collections import PatchCollection

    boxes = []
    for t in flat:
        rc = win.cell(t)
        if rc is not None:
            r, c = rc
            boxes.append(Rectangle((c + 0.08, r + 0.08), 0.84, 0.84))
    if boxes:  # one collection: one artist to lay out and draw, not one per cell
        ax.add_collection(PatchCollection(boxes, facecolor="none", edgecolor=color,
                                          linewidth=linewidth), autolim=False)
    return Rectangle((0, 0), 1, 1, fill=False, edgecolor=color, linewidth=linewidth, label=label)


def hierarchy_breaks(sizes: Sequence[int]) -> list[tuple[int, int]]:
    """``(period, level)`` of the lines of one nested CuTe mode, outermost level 0 first.

    A mode of shape ``(a, b, c)`` (colexicographic: ``a`` fastest) has a line every ``a`` and
    every ``a·b`` elements; the coarser period is the outer level.

    Example::

        >>> hierarchy_breaks([8, 8])
        [(8, 0)]
        >>> hierarchy_breaks([2, 4, 8])
        [(8, 0), (2, 1)]
    """
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
    Returns how many lines were drawn."""
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
    at about 8 positions (or at ``tick_labels``' keys, with their text)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

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
    cb.set_ticks([i + 0.5 for i in tick_labels], labels=list(tick_labels.values()), fontsize=6)
    cb.ax.tick_params(length=0)
    cb.set_label(label, fontsize=7)
    cb.outline.set_visible(False)
