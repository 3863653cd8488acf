"""The colours of a grid of cells as one matplotlib image, drawn the cheap way for each backend.

Every picture paints its cells (one colour each) as an image: ``Axes.images`` holds it and
``get_array()`` gives the colours, ``rows × cols × 3``. How matplotlib draws an ``AxesImage``
costs more than the rest of a grid, though: it resamples the image to the axes' size in pixels
in floating point (a 64×64 tile at 100 dpi is over a million output pixels) before Agg
copies it, and the SVG backend does the same and embeds the result as a PNG. The image that
:func:`add_cell_image` adds draws itself instead

* on a raster backend (Agg: PNG), as a ``QuadMesh`` of the cells, not antialiased: one
  polygon per cell, filled by Agg's C++ rasteriser, no resampling (the pixels of
  nearest-neighbour resampling, up to rounding of the colours);
* on a vector backend (SVG, PDF: those that scale images themselves,
  ``renderer.option_scale_image()``), as one filled path per colour: a rectangle per run
  of that colour's cells along the rows (or the columns); sharp at any zoom in every
  viewer, as many SVG elements as colours.

matplotlib is imported when a function is called, never at module import.

Source: matplotlib's ``AxesImage``, ``QuadMesh``, ``PathCollection`` and
``RendererBase.option_scale_image`` (whether a backend scales images itself).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .._checks import shown
from ..errors import LayoutError
from .plot_extra import INSTALL_HINT, MissingMatplotlib

__all__ = ["add_cell_image", "colour_paths"]


def _checked(rgb: Any) -> Any:
    """``rgb`` as a float array of rows × cols × 3 (or 4) numbers from 0 to 1; LayoutError
    for anything else."""
    import numpy as np

    try:
        out = np.asarray(rgb, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise LayoutError(f"rgb must be rows x cols x 3 numbers from 0 to 1, got "
                          f"{shown(rgb)}") from None
    if out.ndim != 3 or out.shape[2] not in (3, 4) or not out.size \
            or not np.all((out >= 0) & (out <= 1)):
        raise LayoutError(f"rgb must be rows x cols x 3 numbers from 0 to 1, got "
                          f"{shown(rgb)}")
    return out


def colour_paths(rgb: Any) -> tuple[list[Any], Any]:
    """``(paths, colours)``: per distinct colour of ``rgb`` (rows × cols × 3 or 4), one path
    of rectangles covering that colour's cells (cell ``(r, c)`` spans ``c … c+1`` across,
    ``r … r+1`` down): a rectangle per run of equal cells along the rows, or along the
    columns where that makes fewer. What a vector backend draws for :func:`add_cell_image`.

    Args:
        rgb: a numpy array, rows × cols × 3 (or × 4) colours.

    Returns:
        A list of matplotlib ``Path`` (each rectangle five vertices: a closed polygon), and
        the distinct colours (a ``k × 3`` or ``k × 4`` array), in the same order.

    Raises:
        LayoutError: ``rgb`` not such an array of numbers from 0 to 1.
    """
    import numpy as np
    from matplotlib.path import Path

    rgb = _checked(rgb)
    rows, cols = rgb.shape[:2]
    colours, which = np.unique(rgb.reshape(rows * cols, -1), axis=0, return_inverse=True)
    which = which.reshape(rows, cols)
    across = 1 + np.count_nonzero(which[:, 1:] != which[:, :-1])  # runs along the rows
    down = 1 + np.count_nonzero(which[1:] != which[:-1])  # along the columns
    grid = which if across <= down else which.T  # runs along grid's rows
    n, m = grid.shape
    first = np.ones((n, m), dtype=bool)
    first[:, 1:] = grid[:, 1:] != grid[:, :-1]
    starts = np.flatnonzero(first)  # every row starts a run: a run ends where the next starts
    lengths = np.diff(np.append(starts, n * m))
    line, lo = np.divmod(starts, m)
    x0, x1, y0, y1 = lo, lo + lengths, line, line + 1
    if grid is not which:  # the runs went down the columns
        x0, x1, y0, y1 = y0, y1, x0, x1
    corners = np.stack([np.stack([x0, y0], -1), np.stack([x1, y0], -1),
                        np.stack([x1, y1], -1), np.stack([x0, y1], -1),
                        np.stack([x0, y0], -1)], axis=1).astype(float)
    colour_of = grid.reshape(-1)[starts]
    order = np.argsort(colour_of, kind="stable")
    codes = np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY],
                     dtype=Path.code_type)
    paths, at = [], 0
    for count in np.bincount(colour_of, minlength=len(colours)):
        runs = order[at:at + count]
        paths.append(Path(corners[runs].reshape(-1, 2), np.tile(codes, count)))
        at += count
    return paths, colours


@lru_cache(maxsize=1)
def _image_class():
    """The image's class (made on first use, so that matplotlib loads only then)."""
    import numpy as np
    from matplotlib.artist import allow_rasterization
    from matplotlib.collections import PathCollection, QuadMesh
    from matplotlib.image import AxesImage

    class CellImage(AxesImage):
        """An ``AxesImage`` of cell colours with ``extent=(0, cols, rows, 0)``, drawn as a
        mesh of cells (raster backends) or one path per colour (vector ones)."""

        @allow_rasterization
        def draw(self, renderer):
            if not self.get_visible():
                return
            rgb = np.asarray(self.get_array())
            rows, cols = rgb.shape[:2]
            if renderer.option_scale_image():  # a vector backend
                paths, colours = colour_paths(rgb)
                cells = PathCollection(paths, facecolors=colours, edgecolors="none",
                                       linewidths=0, antialiased=False)
            else:
                ys, xs = np.mgrid[0:rows + 1, 0:cols + 1]
                cells = QuadMesh(np.stack([xs, ys], axis=-1).astype(float),
                                 facecolors=rgb.reshape(rows * cols, -1), antialiased=False,
                                 linewidths=0)
            cells.set_transform(self.get_transform())
            cells.set_clip_box(self.get_clip_box())
            cells.set_clip_path(self.get_clip_path())
            cells.set_figure(self.figure)
            cells.draw(renderer)
            self.stale = False

    return CellImage


def add_cell_image(ax: Any, rgb: Any) -> Any:
    """Paint cell ``(r, c)`` of ``ax`` (data ``c … c+1`` across, ``r … r+1`` down) in colour
    ``rgb[r, c]``, all as one image (module docstring).

    Args:
        ax: a matplotlib Axes.
        rgb: ``rows × cols × 3`` (or ``× 4``) numbers from 0 to 1 (a numpy array or nested
            lists).

    Returns:
        The image, added to ``ax.images`` (``get_array()`` is ``rgb``). The axes' limits are
        set to the cells (``x`` from 0 to ``cols``, ``y`` from ``rows`` down to 0) and its
        aspect to equal, as ``Axes.imshow`` does.

    Raises:
        LayoutError: ``ax`` not an Axes; ``rgb`` not such an array of colours.
        MissingMatplotlib: matplotlib is not installed.
    """
    try:
        from matplotlib.axes import Axes
    except ImportError as exc:
        raise MissingMatplotlib(INSTALL_HINT) from exc
    if not isinstance(ax, Axes):
        raise LayoutError(f"ax must be a matplotlib Axes, got {shown(ax)}")
    rgb = _checked(rgb)
    rows, cols = rgb.shape[:2]
    image = _image_class()(ax, interpolation="nearest", origin="upper",
                           extent=(0, cols, rows, 0))
    image.set_data(rgb)
    ax.add_image(image)
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    return image
