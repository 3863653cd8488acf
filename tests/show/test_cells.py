"""linlayout.show.cells: the window of a tile, hierarchy periods, and the drawing primitives."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.show.cells import Window, hierarchy_breaks, tensor_shape


def test_window_from_the_origin_and_around_elements():
    w = Window.around(64, 64, None, 32, 64)
    assert (w.r0, w.c0, w.nrows, w.ncols) == (0, 0, 32, 64) and w.cut
    assert w.note() == " (rows 0-31 of 64)"
    # elements of rows 16..31, columns 8..15 (flat = row + 64 · column)
    flat = [r + 64 * c for r in range(16, 32) for c in range(8, 16)]
    w = Window.around(64, 64, flat, 64, 64)
    assert (w.r0, w.c0, w.nrows, w.ncols) == (16, 8, 16, 8)
    assert w.cell(16 + 64 * 8) == (0, 0) and w.cell(0) is None
    assert w.flat(1, 2) == 17 + 64 * 10
    with pytest.raises(LayoutError, match="positive"):
        Window.around(4, 4, None, 0, 4)


def test_hierarchy_breaks():
    assert hierarchy_breaks([64]) == []
    assert hierarchy_breaks([8, 8]) == [(8, 0)]
    assert hierarchy_breaks([2, 4, 8]) == [(8, 0), (2, 1)]
    assert hierarchy_breaks([1, 8]) == []


def test_tensor_shape():
    one = LinearLayout.identity_1d(8, "lane", "dim0")
    assert tensor_shape(one) == (1, 8)
    three = LinearLayout({"offset": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
                         {"dim0": 2, "dim1": 2, "dim2": 2})
    with pytest.raises(LayoutError, match="1-D and 2-D"):
        tensor_shape(three)


def test_tick_texts_are_one_artist_a_side_and_no_ticks():
    pytest.importorskip("matplotlib")
    from linlayout.show.cell_labels import cell_labels
    from linlayout.show.cells import frame, new_figure, tick_texts

    fig = new_figure(3.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    frame(ax, Window.around(64, 64, None, 64, 64), "m", "n")
    assert not ax.get_xticks().size and not ax.get_yticks().size and not ax.texts
    ticks = [a for a in ax.get_children() if hasattr(a, "labels")]
    assert [len(a.labels) for a in ticks] == [16, 16]  # every 4th of 64 indices, a side
    assert [t for _, _, t, _ in ticks[0].labels][:3] == ["0", "4", "8"]
    assert ax.get_xlabel() == "n" and ax.get_ylabel() == "m" and cell_labels(ax) == []
    with pytest.raises(LayoutError):
        tick_texts(ax, {"x": "0"})
    with pytest.raises(LayoutError):
        tick_texts(ax, {0.5: 0})
