"""linlayout.show.mma_picture: A, B and C of an MMA placed around the product."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, cute

mpl = pytest.importorskip("matplotlib")

from linlayout.show.cell_labels import cell_labels  # noqa: E402
from linlayout.show.mma_picture import draw_mma, draw_mma_atom, mma_atom_parts  # noqa: E402
from linlayout.show.pictures import save  # noqa: E402

MMA = ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
       "instrShape = [16, 8]}>")


def test_cute_atom_panel(tmp_path):
    fig = draw_mma_atom("sm80_16x8x16")
    b, a, c = fig.axes[:3]
    assert [x.get_title() for x in (b, a, c)] == ["B (K x N)", "A (M x K)", "C (M x N)"]
    assert b.images[0].get_array().shape[:2] == (16, 8)  # CuTe's N x K B, drawn K x N
    assert a.images[0].get_array().shape[:2] == (16, 16)
    assert c.images[0].get_array().shape[:2] == (16, 8)
    # B element (k, n) = CuTe's (n, k): PTX b0,b1 at k = 2·(lane%4) + {0,1}, n = lane/4
    texts = {(int(y), int(x)): text for x, y, text in cell_labels(b)}
    assert texts[(2, 1)] == "T5V0" and texts[(3, 1)] == "T5V1"
    save(fig, str(tmp_path / "mma.svg"))
    assert "<svg" in (tmp_path / "mma.svg").read_text(encoding="utf-8")[:2000]
    save(fig, str(tmp_path / "mma.png"))  # PNG: the labels stamped as glyphs, not <text>
    from PIL import Image

    with Image.open(tmp_path / "mma.png") as im:
        w, h = im.size
        dpi = 150 if max(fig.get_size_inches()) <= 8 else 100  # save's default
        assert (w, h) == tuple(round(x * dpi) for x in fig.get_size_inches())
        assert len(im.getcolors(1 << 16)) > 100  # cells, labels and text, not a blank page
    assert "sm80_16x8x16" in fig._suptitle.get_text()


def test_triton_mma_and_dot_operands():
    from linlayout.triton import parse_type

    a = parse_type(f"tensor<16x16xf16, #ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>>")
    b = parse_type(f"tensor<16x8xf16, #ttg.dot_op<{{opIdx = 1, parent = {MMA}, kWidth = 2}}>>")
    c = parse_type(f"tensor<16x8xf32, {MMA}>")
    fig = draw_mma(a.layout, b.layout, c.layout)
    # Triton's operands are the PTX fragments, as CuTe's atom (B transposed)
    ca, cb, cc, order = mma_atom_parts("sm80_16x8x16")
    assert order == "nk"
    assert a.layout.bases["lane"] == ca.bases["lane"]
    assert len(cell_labels(fig.axes[2])) == 128
    with pytest.raises(LayoutError, match="fit"):
        draw_mma(a.layout, c.layout, c.layout, b_order="nk")


def test_bad_names_and_orders():
    with pytest.raises(LayoutError, match="MMA atom"):
        mma_atom_parts("sm75_u32x4_ldsm_n")
    with pytest.raises(LayoutError, match="b_order"):
        draw_mma(cute.atom("sm80_16x8x16.A"), cute.atom("sm80_16x8x16.B"),
                 cute.atom("sm80_16x8x16.C"), b_order="xx")
    assert mma_atom_parts("sm80_16x8x16.C")[3] == "nk"


def test_amd_mfma_atom_and_triton_mfma_panels():
    fig = draw_mma_atom("amd_mfma_f32_32x32x8_f16", color_by="lane")
    b, a, c = fig.axes[:3]
    assert a.images[0].get_array().shape[:2] == (32, 8)
    assert c.images[0].get_array().shape[:2] == (32, 32)
    labels = {text for _, _, text in cell_labels(a)}
    assert "T63V3" in labels and "T0V0" in labels  # all 64 lanes of the wavefront
    from linlayout.triton.encodings import amd_mfma, dot_operand

    enc = amd_mfma(3, [1, 1], [16, 16, 16], False)
    fig = draw_mma(dot_operand(0, enc, 4).to_linear_layout([16, 16]),
                   dot_operand(1, enc, 4).to_linear_layout([16, 16]),
                   enc.to_linear_layout([16, 16]))
    labels = {text for ax in fig.axes[:3] for _, _, text in cell_labels(ax)}
    assert {f"T{lane}V0" for lane in range(64)} <= labels
