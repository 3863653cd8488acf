"""Many short cell labels drawn as one matplotlib artist: the text of labelled grids.

A thread/value grid labels every cell (``T12V3``, ``12:3``); an MMA panel or a copy picture
has hundreds of labels, a fully labelled 64×64 tile thousands. As one matplotlib ``Text``
each, every label is laid out and rasterised on its own (about a millisecond apiece).
:func:`add_cell_labels` draws them all as one artist instead: each character's outline is
made once (``matplotlib.textpath.TextPath``, in the font matplotlib uses for text) and stamped
wherever it occurs with the renderer's ``draw_markers`` — Agg rasterises a glyph once and
copies it, SVG defines it once and refers to it (``<use>``) — the mechanism of matplotlib's
text markers (``marker="$…$"``). Characters sit at the font's advance widths (no kerning: the labels are
digits and a few capitals); a label is centred on its point, on the middle of a digit's height,
so that every label of a grid shares one baseline; lines of a multi-line label are
``linespacing`` × 1.2 font sizes apart, as in a matplotlib ``Text``.

:func:`cell_labels` lists what an axes' label artists show (for checks and tests: the labels
are not ``Axes.texts``).

matplotlib is imported when a function is called, never at module import.

Source: matplotlib's ``TextPath``, ``Artist`` and ``RendererBase.draw_markers`` (the renderer
interface every backend implements).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from .._checks import shown, string
from ..errors import LayoutError
from .plot_extra import INSTALL_HINT, MissingMatplotlib

__all__ = ["add_cell_labels", "cell_labels"]

#: Most labels one call draws (a 1024×1024 window, the largest a picture draws).
MAX_LABELS = 1 << 20
#: Most characters in one label.
MAX_LABEL_CHARS = 64


def _checked(labels: Any) -> list[tuple[float, float, str, tuple[float, float, float]]]:
    """``labels`` as ``[(x, y, text, rgb)]``; LayoutError for anything else."""
    from matplotlib.colors import to_rgb

    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise LayoutError(f"labels must be a list of (x, y, text, colour), got {shown(labels)}")
    out = []
    seen: dict[str, tuple[float, float, float]] = {}
    for item in labels:
        if len(out) >= MAX_LABELS:
            raise LayoutError(f"at most {MAX_LABELS} labels are drawn at once")
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 4:
            raise LayoutError(f"a label is (x, y, text, colour), got {shown(item)}")
        x, y, text, color = item
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
               for v in (x, y)):
            raise LayoutError(f"a label's x and y must be finite numbers, got {shown((x, y))}")
        string(text, "a label's text")
        if len(text) > MAX_LABEL_CHARS:
            raise LayoutError(f"a label has at most {MAX_LABEL_CHARS} characters, got "
                              f"{len(text)}")
        try:
            rgb = seen.get(color) if isinstance(color, str) else None
            if rgb is None:
                rgb = to_rgb(color)
                if isinstance(color, str):  # grids repeat two inks: convert each once
                    seen[color] = rgb
        except (ValueError, TypeError):
            raise LayoutError(f"a label's colour must be a matplotlib colour, got "
                              f"{shown(color)}") from None
        if text.strip():
            out.append((float(x), float(y), text, rgb))
    return out


def _check_axes(ax: Any) -> None:
    """LayoutError unless ``ax`` is a matplotlib Axes; MissingMatplotlib without matplotlib."""
    try:
        from matplotlib.axes import Axes
    except ImportError as exc:
        raise MissingMatplotlib(INSTALL_HINT) from exc
    if not isinstance(ax, Axes):
        raise LayoutError(f"ax must be a matplotlib Axes, got {shown(ax)}")


@lru_cache(maxsize=512)
def _glyph(char: str):
    """``(vertices, codes, advance)`` of one character at 1 point: its outline
    (``TextPath``) and how far the next character starts (the font's advance width)."""
    from matplotlib.font_manager import FontProperties, findfont, get_font
    from matplotlib.ft2font import LoadFlags
    from matplotlib.textpath import TextPath

    prop = FontProperties(size=1)
    path = TextPath((0, 0), char, size=1, prop=prop)
    font = get_font(findfont(prop))
    font.set_size(100, 72)  # 100 points at 72 dpi: 1/100 point per font unit below
    advance = font.load_char(ord(char), flags=LoadFlags.NO_HINTING).linearHoriAdvance
    return path.vertices, path.codes, advance / 65536 / 100


@lru_cache(maxsize=512)
def _glyph_path(char: str, fontsize: float):
    """One character's outline at ``fontsize`` points (a matplotlib Path, in points), or None
    for a character without ink (a space)."""
    from matplotlib.path import Path

    v, c, _ = _glyph(char)
    return Path(v * fontsize, c) if len(v) else None


#: Characters whose ink sets the height of every label: digits and capitals, so that all
#: labels of a grid share one baseline (an ``8`` reaching lower than a ``T`` moves none).
CENTRE_CHARS = "0123456789T"
#: Horizontal and vertical alignments of a label on its point (matplotlib's names).
HA = ("center", "left", "right")
VA = ("center", "center_baseline", "top", "bottom", "baseline")


@lru_cache(maxsize=8)
def _ink_range() -> tuple[float, float]:
    """Lowest and highest ink of :data:`CENTRE_CHARS` above the baseline, font sizes."""
    from matplotlib.path import Path

    lows, highs = [], []
    for char in CENTRE_CHARS:
        v, c, _ = _glyph(char)
        ink = v[c != Path.CLOSEPOLY]
        lows.append(ink[:, 1].min())
        highs.append(ink[:, 1].max())
    return min(lows), max(highs)


@lru_cache(maxsize=4096)
def _placement(text: str, linespacing: float, ha: str = "center", va: str = "center"
               ) -> tuple[tuple[tuple[str, float, float], ...], tuple[float, float, float, float],
                          tuple[tuple[str, float, float], ...]]:
    """``((char, dx, dy) of each inked character, (x0, y0, x1, y1) box, (line, dx, dy) of each
    line)`` of ``text`` on its point, in font sizes: each character's origin, the box of the
    label (the lines' advance widths, the digits' ink height) and each line's origin (its
    first character's). Characters sit side by side at their advance widths (no kerning);
    lines are ``linespacing`` × 1.2 apart, each aligned by ``ha``; the block is aligned by
    ``va`` on the digits' ink (:data:`CENTRE_CHARS`): ``center`` (also ``center_baseline``)
    its middle, ``top`` its top, ``bottom``/``baseline`` the last line's baseline."""
    low, high = _ink_range()
    lines = text.split("\n")
    step = linespacing * 1.2  # baseline to baseline, as matplotlib's Text
    top = (len(lines) - 1) * step + high  # the first line's ink top, over the last baseline
    shift = {"center": -(top + low) / 2, "center_baseline": -(top + low) / 2,
             "top": -top, "bottom": 0.0, "baseline": 0.0}[va]
    out, origins, widest = [], [], 0.0
    for i, line in enumerate(lines):
        y = (len(lines) - 1 - i) * step + shift
        x, row = 0.0, []
        for char in line:
            v, _, advance = _glyph(char)
            if len(v):
                row.append((char, x))
            x += advance
        start = {"center": -x / 2, "left": 0.0, "right": -x}[ha]
        out += [(char, dx + start, y) for char, dx in row]
        if line.strip():
            origins.append((line, start, y))
        widest = max(widest, x)
    x0 = {"center": -widest / 2, "left": 0.0, "right": -widest}[ha]
    return tuple(out), (x0, low + shift, x0 + widest, top + shift), tuple(origins)


def _as_text(renderer: Any) -> bool:
    """Whether to draw labels as text (``renderer.draw_text``) rather than stamped glyphs: on
    a vector backend (one that scales images itself, ``renderer.option_scale_image()``) while
    SVG text is written as ``<text>`` elements (``svg.fonttype`` = ``"none"``, as
    :func:`linlayout.show.pictures.save` writes SVG)."""
    import matplotlib

    return renderer.option_scale_image() and matplotlib.rcParams["svg.fonttype"] == "none"


@lru_cache(maxsize=1)
def _artist_class():
    """The label artist's class (made on first use, so that matplotlib loads only then)."""
    import numpy as np
    from matplotlib.artist import Artist
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D, Bbox, IdentityTransform

    class CellLabels(Artist):
        """Labels at points of an axes, drawn by stamping each character's glyph."""

        def __init__(self, labels, fontsize: float, linespacing: float, ha: str, va: str,
                     cells: bool):
            super().__init__()
            self.labels = labels
            self.cells = cells  # in the cells (data coordinates), not tick labels
            self.fontsize = fontsize
            self.linespacing = linespacing
            self.ha, self.va = ha, va

        def _points(self):
            """The labels' points in display pixels (whole pixels: every label of one text
            is stamped alike, as Agg stamps at whole pixels)."""
            return np.round(self.get_transform().transform([(x, y)
                                                            for x, y, _, _ in self.labels]))

        def get_window_extent(self, renderer=None):
            """The box around every label (for the layout: tick labels take room)."""
            if not self.labels or renderer is None:
                return Bbox.null()
            size_px = renderer.points_to_pixels(self.fontsize)
            boxes = []
            for (x, y), (_, _, text, _) in zip(self._points(), self.labels):
                x0, y0, x1, y1 = _placement(text, self.linespacing, self.ha, self.va)[1]
                boxes.append((x + x0 * size_px, y + y0 * size_px,
                              x + x1 * size_px, y + y1 * size_px))
            b = np.array(boxes)
            return Bbox([[b[:, 0].min(), b[:, 1].min()], [b[:, 2].max(), b[:, 3].max()]])

        def draw(self, renderer):
            if not self.get_visible() or not self.labels:
                return
            if _as_text(renderer):
                self._draw_text(renderer)
                return
            xy = self._points()
            size_px = renderer.points_to_pixels(self.fontsize)  # one font size, in pixels
            # per (character, colour): which labels stamp it, and where from their points
            glyphs: dict[tuple[str, tuple[float, float, float]], tuple[list[int], list[Any]]] = {}
            for i, (_, _, text, rgb) in enumerate(self.labels):
                for char, dx, dy in _placement(text, self.linespacing, self.ha, self.va)[0]:
                    rows, offsets = glyphs.setdefault((char, rgb), ([], []))
                    rows.append(i)
                    offsets.append((dx, dy))
            stamps = {key: xy[rows] + np.array(offsets) * size_px
                      for key, (rows, offsets) in glyphs.items()}
            scale = Affine2D().scale(renderer.points_to_pixels(1.0))
            gc = renderer.new_gc()
            if self.get_clip_on():
                gc.set_clip_rectangle(self.get_clip_box())
                gc.set_clip_path(self.get_clip_path())
            gc.set_linewidth(0)
            gc.set_antialiased(True)
            gc.set_snap(False)  # Agg would snap a straight-edged glyph (T, 1) to the pixels
            renderer.open_group("cell_labels", gid=self.get_gid())
            for (char, rgb), places in stamps.items():
                gc.set_foreground(rgb)
                renderer.draw_markers(gc, _glyph_path(char, self.fontsize), scale,
                                      Path(places), IdentityTransform(), rgb)
            renderer.close_group("cell_labels")
            gc.restore()
            self.stale = False

        def _draw_text(self, renderer):
            """Each line of each label as text (``renderer.draw_text``), from its first
            character's origin: one SVG ``<text>`` element a line, not a glyph per
            character. Not clipped (a ``<text>`` element each would need its own group)."""
            from matplotlib.font_manager import FontProperties

            xy = self._points()
            size_px = renderer.points_to_pixels(self.fontsize)
            height = renderer.get_canvas_width_height()[1]  # SVG's y runs down
            prop = FontProperties(size=self.fontsize)
            gc = renderer.new_gc()
            renderer.open_group("cell_labels", gid=self.get_gid())
            for (x, y), (_, _, text, rgb) in zip(xy, self.labels):
                gc.set_foreground(rgb)
                for line, dx, dy in _placement(text, self.linespacing, self.ha, self.va)[2]:
                    renderer.draw_text(gc, x + dx * size_px, height - (y + dy * size_px), line,
                                       prop, 0)
            renderer.close_group("cell_labels")
            gc.restore()
            self.stale = False

    return CellLabels


def add_cell_labels(ax: Any, labels: Iterable[tuple[float, float, str, Any]], *,
                    fontsize: float = 6.0, linespacing: float = 0.9, ha: str = "center",
                    va: str = "center", transform: Any = None) -> Any:
    """Draw short labels on points of ``ax``, all as one artist (module docstring).

    Args:
        ax: a matplotlib Axes.
        labels: ``(x, y, text, colour)`` per label: the point (a cell's centre, in data
            coordinates unless ``transform`` says otherwise), the text (up to
            :data:`MAX_LABEL_CHARS` characters; ``"\\n"`` starts a line; blank text draws
            nothing) and a matplotlib colour.
        fontsize: points, above 0 and at most 72.
        linespacing: baselines of a multi-line label are ``linespacing`` × 1.2 font sizes
            apart (as ``matplotlib.text.Text``), above 0 and at most 10.
        ha, va: the alignment of a label on its point, one of :data:`HA` and :data:`VA`
            (vertically on the ink of digits and capitals; default: centred).
        transform: a matplotlib transform of the points (default: the data coordinates).
            Labels given one are outside the cells (tick labels): they take room in the
            figure's layout and are not clipped to the axes; :func:`cell_labels` leaves
            them out.

    Returns:
        The artist added to ``ax`` (not an ``Axes.texts`` member: :func:`cell_labels` lists
        what it shows).

    Raises:
        LayoutError: ``ax`` not an Axes; labels that are not such tuples (more than
            :data:`MAX_LABELS`), a bad ``fontsize``, ``linespacing``, ``ha`` or ``va``, a
            ``transform`` that is no matplotlib transform.
        MissingMatplotlib: matplotlib is not installed.
    """
    _check_axes(ax)
    for v, what, hi in ((fontsize, "fontsize", 72.0), (linespacing, "linespacing", 10.0)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or not 0 < v <= hi:
            raise LayoutError(f"{what} must be a number above 0 and at most {hi:g}, got "
                              f"{shown(v)}")
    if ha not in HA or va not in VA:
        raise LayoutError(f"ha must be one of {list(HA)} and va one of {list(VA)}, got "
                          f"{shown(ha)} and {shown(va)}")
    if transform is not None:
        from matplotlib.transforms import Transform

        if not isinstance(transform, Transform):
            raise LayoutError(f"transform must be a matplotlib transform, got "
                              f"{shown(transform)}")
    artist = _artist_class()(_checked(labels), float(fontsize), float(linespacing), ha, va,
                             transform is None)
    if transform is None:
        artist.set_in_layout(False)  # inside the cells
    else:
        artist.set_transform(transform)
        artist.set_clip_on(False)
    ax.add_artist(artist)
    return artist


def cell_labels(ax: Any) -> list[tuple[float, float, str]]:
    """``(x, y, text)`` of every label :func:`add_cell_labels` put on the cells of ``ax`` (in
    data coordinates, in the order given, blank ones left out; not tick labels).

    Raises:
        LayoutError: ``ax`` not an Axes. MissingMatplotlib: matplotlib is not installed.
    """
    _check_axes(ax)
    cls = _artist_class()
    return [(x, y, text) for a in ax.get_children()
            if isinstance(a, cls) and a.cells
            for x, y, text, _ in a.labels]
