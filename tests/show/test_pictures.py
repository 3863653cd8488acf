"""linlayout.show.pictures: figures of memory, distributed layouts and matrices (need
matplotlib, an optional extra; without it the library says how to install it).
"""

from __future__ import annotations

import colorsys
import subprocess
import sys

import pytest

from linlayout import LayoutError, LinearLayout, examples, synthesize_swizzle


#: The article's XOR-2m layout: bank bits -> n, segment bit j -> m_j ^ n_{j+1}.
XOR2M = LinearLayout(
    {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 2], [2, 4], [4, 8], [8, 16]]},
    {"dim0": 16, "dim1": 32},
)


#: A small swizzled 4x8 layout for the tests that write files (text rendering is the cost).
SMALL = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]}, {"dim0": 4, "dim1": 8})


def test_import_does_not_load_matplotlib():
    code = ("import sys, linlayout, linlayout.show.pictures; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bank_colours_follow_the_article():
    from linlayout.show.pictures import bank_color

    for b in range(0, 32, 2):
        even, odd = colorsys.rgb_to_hsv(*bank_color(b)), colorsys.rgb_to_hsv(*bank_color(b + 1))
        assert even[0] == pytest.approx(odd[0])  # hue = bank // 2
        assert odd[2] < even[2]  # odd banks darker
    hues = {round(colorsys.rgb_to_hsv(*bank_color(b))[0], 6) for b in range(0, 32, 2)}
    assert len(hues) == 16


def test_missing_matplotlib_in_the_library(monkeypatch):
    from linlayout.show import pictures

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(pictures.MissingMatplotlib, match=r'pip install "linlayout\[plot\]"'):
        pictures.draw_memory(XOR2M, 32)


mpl = pytest.importorskip("matplotlib")


def _is_png(path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_draw_memory_png_and_svg(tmp_path):
    from linlayout.show.pictures import draw_memory, save

    fig = draw_memory(SMALL, 32, highlight={"a": [0, 1, 2], "b": [16]},
                      names={"dim0": "m", "dim1": "n"})
    save(fig, str(tmp_path / "m.png"))
    save(fig, str(tmp_path / "m.svg"))
    assert _is_png(tmp_path / "m.png")
    assert (tmp_path / "m.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "n" and ax.get_ylabel() == "m"
    outlined = [p for p in ax.patches if not p.get_fill()]
    assert len(outlined) == 4  # 4 highlighted cells


def test_memory_labels_are_the_offsets():
    from linlayout.show.pictures import draw_memory

    from linlayout.show.cell_labels import cell_labels

    ax = draw_memory(XOR2M, 32).axes[0]
    # 512 cells, each labelled with its offset; offsets are a permutation of 0..511
    labels = cell_labels(ax)
    assert sorted(int(text) for _, _, text in labels) == list(range(512))
    by_cell = {(int(y), int(x)): int(text) for x, y, text in labels}
    assert all(by_cell[(m, n)] == 32 * m + (n ^ (2 * m)) for m in range(16) for n in range(32))


def test_cell_colour_is_the_bank():
    from linlayout.show.pictures import bank_color, draw_memory

    fig = draw_memory(XOR2M, 32, numbers=False, legend=False)
    image = fig.axes[0].images[0].get_array()
    assert image.shape[:2] == (16, 32)
    for r in range(16):
        for c in range(32):
            offset = 32 * r + (c ^ (2 * r))  # offset = 32·m + (n ⊕ 2m)
            assert tuple(image[r, c][:3]) == pytest.approx(bank_color(offset % 32))


def test_draw_distributed_and_matrix():
    from linlayout.show.pictures import draw_distributed, draw_matrix

    ex = examples.get("transpose")
    fig = draw_distributed(ex.load, ring=9)
    ax = fig.axes[0]
    ringed = [p for p in ax.patches if not p.get_fill()]
    assert len(ringed) == 16  # thread 9 holds 16 elements
    assert {int(p.get_y()) for p in ringed} == {9}  # row 9 of every even column
    assert {int(p.get_x()) for p in ringed} == set(range(0, 32, 2))
    fig = draw_matrix(XOR2M, element_bits=32)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["bank", "seg"]
    (image,) = fig.axes[0].images  # every cell in one image: white = 0
    ones = [cell for row in image.get_array() for cell in row if tuple(cell[:3]) != (1, 1, 1)]
    assert len(ones) == 13  # 5 bank units + 4 segments with 2 bits each


def test_draw_matrix_groups_for_sub_word_elements():
    from linlayout.show.pictures import draw_matrix

    fig = draw_matrix(XOR2M, element_bits=16)
    assert [t.get_text() for t in fig.axes[0].texts] == ["in word", "bank", "seg"]


def test_draw_swizzle_titles_carry_the_counts():
    from linlayout.show.pictures import draw_swizzle

    ex = examples.get("transpose")
    fig = draw_swizzle(ex.store, ex.load, 32)
    titles = [a.get_title() for a in fig.axes[:2]]
    assert "load: 16-way" in titles[0]
    assert "load: 1-way" in titles[1]
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    fig = draw_swizzle(ex.store, ex.load, 32, after=r.layout, before=XOR2M)
    assert "load: 1-way" in fig.axes[0].get_title()


def test_large_tensors_are_cut_and_say_so():
    from linlayout.show.pictures import draw_memory

    ex = examples.get("transpose-128")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    fig = draw_memory(r.layout, 16)
    assert "first 64 of 128 rows" in fig.axes[0].get_title()
    from linlayout.show.cell_labels import cell_labels

    assert not fig.axes[0].texts and not cell_labels(fig.axes[0])  # no numbers on 64x64


def test_pictures_reject_bad_labels_shapes_and_extensions():
    from linlayout.show.pictures import draw_distributed, draw_memory, save

    with pytest.raises(LayoutError, match="label"):
        draw_memory(XOR2M, 32, label="nope")
    three = LinearLayout({"offset": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
                         {"dim0": 2, "dim1": 2, "dim2": 2})
    with pytest.raises(LayoutError, match="1-D and 2-D"):
        draw_memory(three, 32)
    with pytest.raises(LayoutError, match="distributed"):
        draw_distributed(XOR2M)
    with pytest.raises(LayoutError, match="png or .svg"):
        save(draw_memory(XOR2M, 32), "x.jpg")


def test_draw_layout_of_a_64_lane_amd_wavefront():
    from linlayout import cute
    from linlayout.show.pictures import draw_distributed, draw_layout, lane_color

    A = cute.atom("amd_mfma_f32_32x32x8_f16.A")
    fig = draw_layout(A)  # the grid above the F2 matrix
    assert len(fig.axes) >= 2
    ax = draw_distributed(A, color_by="lane").axes[0]
    image = ax.images[0].get_array()
    assert tuple(image[31, 4][:3]) == pytest.approx(lane_color(63, 64))


def test_a_large_png_is_written_whole_and_laid_out_once(tmp_path):
    """A large figure (5 megapixels, written by Pillow) decodes to its full size, opaque
    RGB with matplotlib's Software text and the dpi; save leaves the figure's layout engine
    as it was."""
    from PIL import Image

    from linlayout.show.cells import new_figure
    from linlayout.show.pictures import save

    fig = new_figure(24.0, 22.0)
    fig.add_subplot(1, 1, 1).set_title("large")
    save(fig, str(tmp_path / "big.png"))
    with Image.open(tmp_path / "big.png") as im:
        im.load()
        assert im.size == (2400, 2200) and im.mode == "RGB"
        assert im.info["Software"].startswith("Matplotlib version")
        assert round(im.info["dpi"][0]) == 100
    assert fig.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"


def test_a_png_with_transparent_pixels_keeps_its_alpha(tmp_path):
    from PIL import Image

    from linlayout.show.cells import new_figure
    from linlayout.show.pictures import save

    fig = new_figure(2.0, 2.0)
    fig.add_subplot(1, 1, 1).set_title("clear")
    fig.patch.set_alpha(0.0)
    save(fig, str(tmp_path / "clear.png"))
    with Image.open(tmp_path / "clear.png") as im:
        assert im.mode == "RGBA" and im.getextrema()[3][0] == 0
