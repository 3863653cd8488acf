"""linlayout.show.cell_labels: many cell labels as one artist, in PNG and SVG."""

from __future__ import annotations

import pytest

from linlayout import LayoutError

mpl = pytest.importorskip("matplotlib")

from linlayout.show.cell_labels import add_cell_labels, cell_labels  # noqa: E402
from linlayout.show.cells import new_figure  # noqa: E402
from linlayout.show.pictures import save  # noqa: E402


def _axes(n: int = 4):
    fig = new_figure(3.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)
    return fig, ax


def test_labels_are_listed_in_order_and_blank_ones_left_out():
    _, ax = _axes()
    add_cell_labels(ax, [(0.5, 0.5, "T0V0", "black"), (1.5, 0.5, "  ", "black"),
                         (2.5, 3.5, "12:3", "white")])
    assert cell_labels(ax) == [(0.5, 0.5, "T0V0"), (2.5, 3.5, "12:3")]
    assert not ax.texts  # one artist, not a Text per label


def test_ink_lands_in_the_labelled_cells_only():
    """Rendered by Agg: dark pixels inside the two labelled cells, none in the others."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax = _axes()
    ax.set_position([0, 0, 1, 1])
    ax.set_axis_off()
    add_cell_labels(ax, [(0.5, 0.5, "T0V0", "black"), (2.5, 3.5, "8\n8", "black")],
                    fontsize=12)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    import numpy as np

    rgba = np.asarray(canvas.buffer_rgba())
    h, w = rgba.shape[:2]
    dark = rgba[..., 0] < 128
    cell = {(r, c): dark[r * h // 4:(r + 1) * h // 4, c * w // 4:(c + 1) * w // 4].sum()
            for r in range(4) for c in range(4)}
    assert cell[(0, 0)] > 20 and cell[(3, 2)] > 20
    assert all(v == 0 for k, v in cell.items() if k not in ((0, 0), (3, 2)))
    # centred: the ink of cell (0, 0) is balanced about its centre
    ys, xs = np.nonzero(dark[:h // 4, :w // 4])
    assert abs(xs.mean() - w / 8) < 3 and abs(ys.mean() - h / 8) < 3


def test_png_stamps_glyphs_and_svg_writes_text(tmp_path):
    """PNG: glyphs stamped; SVG (as ``save`` writes it): one ``<text>`` element per label line,
    at the point the glyphs would be stamped from; anything else that renders SVG (text as
    paths) gets the stamps."""
    import re

    fig, ax = _axes(8)
    ax.set_axis_off()  # no tick labels: the only text is the labels'
    add_cell_labels(ax, [(c + 0.5, r + 0.5, f"T{c}V{r}", "white" if r else "black")
                         for r in range(8) for c in range(8)] + [(0.5, 0.5, "1\n2", "red")])
    save(fig, str(tmp_path / "l.png"))
    save(fig, str(tmp_path / "l.svg"))
    assert (tmp_path / "l.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "l.svg").read_text(encoding="utf-8")
    texts = re.findall(r"<text [^>]*>([^<]*)</text>", svg)
    assert sorted(texts) == sorted([f"T{c}V{r}" for r in range(8) for c in range(8)]
                                   + ["1", "2"])
    assert "<use " not in svg
    assert len(re.findall(r"<text [^>]*fill: #ffffff", svg)) == 56  # each label's colour
    fig.savefig(tmp_path / "p.svg")  # matplotlib's default: text as paths
    stamped = (tmp_path / "p.svg").read_text(encoding="utf-8")
    assert "<text" not in stamped and stamped.count("<use ") >= 64 * 4


@pytest.mark.parametrize("labels", [None, "T0V0", [(0, 0, "x")], [(0, 0, 5, "red")],
                                    [(0, float("nan"), "x", "red")], [(0, 0, "x", "nocolour")],
                                    [(True, 0, "x", "red")], [(0, 0, "x" * 65, "red")]])
def test_bad_labels(labels):
    _, ax = _axes()
    with pytest.raises(LayoutError):
        add_cell_labels(ax, labels)


def test_bad_axes_and_sizes():
    _, ax = _axes()
    with pytest.raises(LayoutError, match="Axes"):
        add_cell_labels("ax", [])
    with pytest.raises(LayoutError, match="fontsize"):
        add_cell_labels(ax, [], fontsize=0)
    with pytest.raises(LayoutError, match="linespacing"):
        add_cell_labels(ax, [], linespacing=float("inf"))
    with pytest.raises(LayoutError, match="Axes"):
        cell_labels(None)


def test_aligned_labels_and_their_box():
    """``ha``/``va`` put the label's box on the point; a transformed artist is listed apart
    from the cells' labels and takes room in the layout."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax = _axes()
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    boxes = {}
    for ha, va in (("left", "bottom"), ("right", "top"), ("center", "center")):
        art = add_cell_labels(ax, [(2.0, 2.0, "88", "black")], fontsize=10, ha=ha, va=va,
                              transform=ax.transData)
        boxes[ha] = art.get_window_extent(renderer)
        assert art.get_in_layout() and not art.get_clip_on()
    px = ax.transData.transform((2.0, 2.0))
    assert boxes["left"].x0 == pytest.approx(round(px[0])) and boxes["left"].x1 > px[0]
    assert boxes["right"].x1 == pytest.approx(round(px[0])) and boxes["right"].x0 < px[0]
    assert boxes["right"].y1 == pytest.approx(round(px[1]))  # va="top": ink top on the point
    assert boxes["center"].x0 < px[0] < boxes["center"].x1
    assert cell_labels(ax) == []  # none of these are cell labels
    with pytest.raises(LayoutError, match="ha must be"):
        add_cell_labels(ax, [], ha="middle")
    with pytest.raises(LayoutError, match="transform"):
        add_cell_labels(ax, [], transform="data")
