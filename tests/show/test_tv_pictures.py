"""linlayout.show.tv_pictures: CUTLASS-style thread/value grids, checked through the figure's
texts, image colours and lines (not pixels)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, cute, examples
from linlayout import f2



def test_importing_the_picture_modules_does_not_load_matplotlib():
    import subprocess
    import sys

    code = ("import sys, linlayout.show.tv_pictures, linlayout.show.mma_picture, "
            "linlayout.show.copy_picture, linlayout.show.cells; print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


mpl = pytest.importorskip("matplotlib")

from linlayout.show.pictures import bank_color, lane_color, save  # noqa: E402
from linlayout.show.tv_pictures import (add_hierarchy, draw_tv, holders, mode_sizes,  # noqa: E402
                                        transpose_tile, warp_elements)


def _texts(ax) -> dict[tuple[int, int], str]:
    from linlayout.show.cell_labels import cell_labels

    return {(int(y), int(x)): text for x, y, text in cell_labels(ax)}


def test_mma_accumulator_labels_follow_the_ptx_fragment(tmp_path):
    C = cute.atom("sm80_16x8x16.C")  # PTX: c0,c1 at (lane/4, 2·(lane%4) + {0,1}), c2,c3 row +8
    fig = draw_tv(C)
    ax = fig.axes[0]
    texts = _texts(ax)
    assert len(texts) == 128
    for lane in range(32):
        for v in range(4):
            row = lane // 4 + 8 * (v >> 1)
            col = 2 * (lane % 4) + (v & 1)
            assert texts[(row, col)] == f"T{lane}V{v}"
    image = ax.images[0].get_array()
    assert tuple(image[0, 2][:3]) == pytest.approx(lane_color(1, 32))  # held by thread 1
    save(fig, str(tmp_path / "c.png"))
    save(fig, str(tmp_path / "c.svg"))
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "c.svg").read_text(encoding="utf-8")[:2000]


def test_t_r_labels_and_colour_by_warp():
    C = cute.atom("sm90_64x8.C")  # 4 warps, 16 rows each
    fig = draw_tv(C, label="t:r", color_by="warp", warp=1)  # rows 16-31: labelled
    ax = fig.axes[0]
    assert _texts(ax)[(0, 0)] == "32:0"  # warp 1's lane 0, at row 16
    image = ax.images[0].get_array()
    assert tuple(image[0, 0][:3]) == pytest.approx(lane_color(1, 4))
    assert "colour = warp" in ax.get_title()


def test_warp_zoom_crops_to_that_warp():
    C = cute.atom("sm90_64x64.C")
    assert len(warp_elements(C, 2)) == 1024
    ax = draw_tv(C, warp=2).axes[0]
    assert ax.images[0].get_array().shape[:2] == (16, 64)  # rows 32-47
    assert "rows 32-47 of 64" in ax.get_title() and "warp 2" in ax.get_title()
    with pytest.raises(LayoutError, match="warp must be"):
        draw_tv(C, warp=4)


def test_colour_by_bank_of_a_larger_swizzled_buffer():
    A = cute.atom("sm80_16x8x16.A")
    text = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
    mem = cute.parse_layout(text)
    fig = draw_tv(A, color_by="bank", memory=mem, element_bits=16, numbers=False)
    image = fig.axes[0].images[0].get_array()
    inv = f2.inverse(list(mem.columns))
    for r in range(16):
        for c in range(16):
            off = f2.apply(inv, r + 64 * c)
            assert tuple(image[r, c][:3]) == pytest.approx(bank_color(off // 2 % 32))
    with pytest.raises(LayoutError, match="memory"):
        draw_tv(A, color_by="bank")


def test_hierarchy_lines_of_nested_modes():
    assert mode_sizes("((_8,_8),_64):((_64,_512),_1)") == [[8, 8], [64]]
    mem = cute.parse_layout("((_8,_8),(_8,_8)):((_64,_512),(_1,_8))")
    from linlayout.show.pictures import draw_memory

    ax = draw_memory(mem, 16, legend=False).axes[0]
    before = len(ax.collections)
    assert add_hierarchy(ax, mem, "((_8,_8),(_8,_8)):((_64,_512),(_1,_8))") == 14
    assert len(ax.collections) == before + 14
    ax = draw_tv(cute.atom("sm80_16x8x16.C"), hierarchy=[[8, 2], [2, 4]]).axes[0]
    assert len(ax.collections) >= 2
    with pytest.raises(LayoutError, match="modes"):
        draw_tv(cute.atom("sm80_16x8x16.C"), hierarchy=[[16]])


def test_holders_transpose_and_bad_input():
    C = cute.atom("sm80_16x8x16.C")
    held = holders(C)
    assert held[0] == (0, 0, 0, 0) and len(held) == 128
    T = transpose_tile(C)
    assert T.out_dims == {"dim0": 8, "dim1": 16}
    assert holders(T)[0 + 8 * 8] == held[8]  # (row 8, col 0) -> (row 0, col 8)
    with pytest.raises(LayoutError, match="label"):
        draw_tv(C, label="xx")
    with pytest.raises(LayoutError, match="color_by"):
        draw_tv(C, color_by="xx")
    with pytest.raises(LayoutError):
        draw_tv(examples.row_major({"dim0": 4, "dim1": 4}))  # a memory layout


# 64-lane AMD wavefronts: lanes 0-63, threads lane + 64·warp.

def test_amd_mfma_atom_labels_all_64_lanes():
    A = cute.atom("amd_mfma_f32_32x32x8_f16.A")  # lane l holds row l % 32, k = 4·(l // 32) + v
    fig = draw_tv(A, color_by="lane")
    ax = fig.axes[0]
    texts = _texts(ax)
    assert len(texts) == 256
    for lane in range(64):
        for v in range(4):
            assert texts[(lane % 32, 4 * (lane // 32) + v)] == f"T{lane}V{v}"
    image = ax.images[0].get_array()
    assert tuple(image[0, 4][:3]) == pytest.approx(lane_color(32, 64))  # lane 32 of 64 hues
    assert tuple(image[31, 7][:3]) == pytest.approx(lane_color(63, 64))
    strip = fig.axes[1]  # the legend strip: one colour per lane
    assert strip.get_xlim() == (0.0, 64.0)


def test_triton_amd_mfma_encoding_thread_colours_and_warp_zoom(tmp_path):
    from linlayout.triton.encodings import amd_mfma

    L = amd_mfma(3, [2, 2], [32, 32, 8], True).to_linear_layout([64, 64])
    assert L.in_dims["lane"] == 64 and L.in_dims["warp"] == 4
    held = holders(L)
    assert len(held) == 4096 and {h[2] for h in held.values()} == set(range(64))
    assert all(h[0] == h[2] + 64 * h[3] for h in held.values())  # thread = lane + 64·warp
    fig = draw_tv(L)  # 64x64, colour = thread (256 hues), no labels
    image = fig.axes[0].images[0].get_array()
    assert image.shape[:2] == (64, 64)
    t = next(t for t, h in held.items() if h[0] == 200)
    assert tuple(image[t % 64, t // 64][:3]) == pytest.approx(lane_color(200, 256))
    assert len(warp_elements(L, 3)) == 1024
    ax = draw_tv(L, warp=3, color_by="lane").axes[0]
    assert ax.images[0].get_array().shape[:2] == (32, 32)
    assert "rows 32-63 of 64" in ax.get_title() and "warp 3" in ax.get_title()
    labels = set(_texts(ax).values())
    assert {f"T{192 + lane}V0" for lane in range(64)} <= labels
    save(ax.figure, str(tmp_path / "mfma.png"))
    with pytest.raises(LayoutError, match="warp must be from 0 to 3"):
        draw_tv(L, warp=4)


def test_more_lanes_than_a_wavefront_is_refused():
    from linlayout import LinearLayout

    wide = LinearLayout({"lane": [[1 << i] for i in range(7)]}, {"dim0": 128})
    with pytest.raises(LayoutError, match="widest warp"):
        draw_tv(wide)
