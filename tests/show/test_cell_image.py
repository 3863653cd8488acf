"""linlayout.show.cell_image: a grid's colours as one image, drawn as a mesh (PNG) or as one
path per colour (SVG), the same cells either way."""

from __future__ import annotations

import random
import re

import pytest

from linlayout import LayoutError

mpl = pytest.importorskip("matplotlib")

import numpy as np  # noqa: E402

from linlayout.show.cell_image import add_cell_image, colour_paths  # noqa: E402
from linlayout.show.cells import new_figure  # noqa: E402
from linlayout.show.pictures import save  # noqa: E402


def _rgb(rows: int, cols: int, colours: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    palette = rng.random((colours, 3))
    return palette[rng.integers(0, colours, (rows, cols))]


@pytest.mark.parametrize("rows,cols,colours", [(1, 1, 1), (1, 9, 2), (6, 1, 2), (5, 7, 3),
                                               (16, 16, 1), (64, 64, 5), (7, 64, 64)])
def test_svg_paths_cover_every_cell_once_in_its_colour(rows, cols, colours):
    """The paths a vector backend draws: rectangles on whole cells, every cell covered by
    exactly one, of the path whose colour is the cell's."""
    rgb = _rgb(rows, cols, colours, rows * 100 + cols)
    paths, palette = colour_paths(rgb)
    assert len(paths) == len(palette) == len(np.unique(rgb.reshape(-1, 3), axis=0))
    painted = np.full((rows, cols, 3), -1.0)
    count = np.zeros((rows, cols), dtype=int)
    for path, colour in zip(paths, palette):
        for box in path.vertices.reshape(-1, 5, 2):
            (x0, y0), (x1, y1) = box.min(axis=0).astype(int), box.max(axis=0).astype(int)
            painted[y0:y1, x0:x1] = colour
            count[y0:y1, x0:x1] += 1
    assert (count == 1).all() and np.allclose(painted, rgb)


def test_png_pixels_are_the_cell_colours():
    """Agg draws the mesh: the centre pixel of every cell has the cell's colour."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rgb = _rgb(8, 12, 6, 3)
    fig = Figure(figsize=(3.0, 2.0))
    ax = fig.add_axes((0, 0, 1, 1))
    image = add_cell_image(ax, rgb)
    ax.set_axis_off()
    assert list(ax.images) == [image] and np.array_equal(image.get_array(), rgb)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    px = np.asarray(canvas.buffer_rgba())[..., :3].astype(float) / 255
    h, w = px.shape[:2]
    for r in range(8):
        for c in range(12):
            got = px[int((r + 0.5) * h / 8), int((c + 0.5) * w / 12)]
            assert np.abs(got - rgb[r, c]).max() <= 1 / 255 + 1e-9


def test_svg_has_a_path_per_colour_and_no_image(tmp_path):
    rgb = _rgb(16, 16, 4, 5)
    fig = new_figure(3.0, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    add_cell_image(ax, rgb)
    save(fig, str(tmp_path / "c.svg"))
    svg = (tmp_path / "c.svg").read_text(encoding="utf-8")
    assert "<image" not in svg
    fills = {m.lower() for m in re.findall(r"fill: (#[0-9a-fA-F]{6})", svg)}
    want = {mpl.colors.to_hex(c) for c in rgb.reshape(-1, 3)}
    assert want <= fills


@pytest.mark.parametrize("rgb", [None, "red", [[0.5, 0.5, 0.5]], [[[2.0, 0, 0]]],
                                 np.zeros((0, 3, 3)), [[[0.1, 0.2]]]])
def test_bad_colours(rgb):
    fig = new_figure(2.0, 2.0)
    ax = fig.add_subplot(1, 1, 1)
    with pytest.raises(LayoutError):
        add_cell_image(ax, rgb)
    with pytest.raises(LayoutError, match="Axes"):
        add_cell_image("ax", [[[0.0, 0.0, 0.0]]])


def test_random_grids_round_trip_through_svg(tmp_path):
    rng = random.Random(30)
    for i in range(5):
        rows, cols = rng.randint(1, 40), rng.randint(1, 40)
        fig = new_figure(3.0, 3.0)
        add_cell_image(fig.add_subplot(1, 1, 1), _rgb(rows, cols, rng.randint(1, 9), i))
        save(fig, str(tmp_path / f"r{i}.svg"))
        assert "<path" in (tmp_path / f"r{i}.svg").read_text(encoding="utf-8")
