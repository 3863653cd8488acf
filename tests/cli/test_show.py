"""``linlayout show``: grids and formulas of layout files, pictures (with matplotlib, and
the message without it), and one-line errors.
"""

from __future__ import annotations

import json
import sys

import pytest

from linlayout import LinearLayout, examples, synthesize_swizzle
from linlayout.cli import main

from tests.support import article_memory, assert_one_line_error, run_cli, write_file


#: A small swizzled 4x8 layout for the tests that write files (text rendering is the cost).
SMALL = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]}, {"dim0": 4, "dim1": 8})
SMALL_DIST = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2], [0, 4]]},
                          {"dim0": 4, "dim1": 8})


def test_show_prints_grids_and_formulas(capsys, transpose_files, tmp_path):
    code, out, _ = run_cli(capsys, "show", transpose_files["store"])
    assert code == 0 and "t31:r15" in out
    code, out, _ = run_cli(capsys, "show", transpose_files["row_major"])
    assert code == 0
    assert "offset = 32·dim0 + dim1" in out and "33/1" in out
    art = write_file(tmp_path, "art.json", synthesize_swizzle(
        examples.get("transpose").store, examples.get("transpose").load,
        element_bits=32).layout.to_dict())
    code, out, _ = run_cli(capsys, "show", art, "--element-bits", "16")
    assert code == 0 and "34/17" in out  # offset 34 of 16-bit elements -> bank 17


def test_show_png_without_matplotlib_says_what_to_install(tmp_path, monkeypatch, capsys):
    path = tmp_path / "mem.json"
    path.write_text(json.dumps(article_memory(1).to_dict()), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    code = main(["show", str(path), "--png", str(tmp_path / "x.png")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip() == 'linlayout: error: pictures need matplotlib: pip install "linlayout[plot]"'
    assert not (tmp_path / "x.png").exists()


def _is_png(path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_show_writes_png_and_svg(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    mem, dist = tmp_path / "mem.json", tmp_path / "dist.json"
    mem.write_text(json.dumps(SMALL.to_dict()), encoding="utf-8")
    dist.write_text(json.dumps(SMALL_DIST.to_dict()), encoding="utf-8")
    code = main(["show", str(mem), "--png", str(tmp_path / "m.png"),
                 "--svg", str(tmp_path / "m.svg")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "offset =" in out
    assert f"wrote {tmp_path / 'm.png'}" in out and f"wrote {tmp_path / 'm.svg'}" in out
    assert _is_png(tmp_path / "m.png")
    code = main(["show", str(dist), "--png", str(tmp_path / "d.png")])
    assert code == 0 and _is_png(tmp_path / "d.png")
    code = main(["show", str(dist), "--png", str(tmp_path / "d.jpg")])
    _, err = capsys.readouterr()
    assert code == 2 and "--png needs a path ending in .png" in err


ERROR_CASES = [
    ("show", "{wrong_len}"),
    ("show", "{bad_size}"),
    ("show", "{no_out_dims}"),
    ("show", "{three_d}"),
    ("show", "{singular}"),
    ("show", "{row_major}", "--element-bits", "5"),
    ("show", "{missing}"),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: " ".join(c)[:60])
def test_errors_exit_2_with_one_line(capsys, bad_files, case):
    argv = [a.format(**bad_files) for a in case]
    assert_one_line_error(*run_cli(capsys, *argv))


SWIZZLED = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"


@pytest.mark.parametrize("argv", [
    ["sm80_16x8x16.C", "--picture", "tv", "--label", "t:r"],
    ["sm90_64x16.C", "--picture", "tv", "--warp", "1", "--color-by", "lane"],
    ["sm80_16x8x16.A", "--picture", "tv", "--color-by", "bank", "--memory", SWIZZLED,
     "--element-bits", "16"],
    ["sm80_16x8x8_tf32", "--picture", "mma"],
    ["sm80_16x8x16.A", "--picture", "copy", "--memory", SWIZZLED, "--element-bits", "16",
     "--instruction", "ldmatrix.x4"],
    ["Sw<3,3,3> o _0 o ((_8,_8),(_8,_8)):((_64,_512),(_1,_8))", "--element-bits", "16"],
    ["amd_mfma_f32_32x32x8_f16.A", "--picture", "tv", "--color-by", "lane"],
    ["amd_mfma_f32_16x16x16_f16", "--picture", "mma"],
    ["amd_mfma_f32_32x32x8_f16.A", "--picture", "copy", "--memory", "(_64,_64):(_64,_1)",
     "--element-bits", "16", "--hardware", "AMD_CDNA3"],
    ["amd_mfma_f32_32x32x8_f16.C"],
], ids=["tv", "warp", "bank", "mma", "copy", "hierarchy", "amd-tv", "amd-mma", "amd-copy",
        "amd-layout"])
def test_show_pictures(tmp_path, capsys, argv):
    pytest.importorskip("matplotlib")
    code, out, err = run_cli(capsys, "show", *argv, "--svg", str(tmp_path / "p.svg"))
    assert code == 0, err
    assert out.rstrip().endswith(f"wrote {tmp_path / 'p.svg'}")
    assert "<svg" in (tmp_path / "p.svg").read_text(encoding="utf-8")[:2000]


@pytest.mark.parametrize("argv", [
    ["sm80_16x8x16.A", "--picture", "copy", "--png", "x.png"],
    ["sm80_16x8x16.A", "--picture", "tv"],
    ["sm80_16x8x16.A", "--warp", "1", "--png", "x.png"],
    ["sm80_16x8x16.A", "--picture", "tv", "--color-by", "bank", "--png", "x.png"],
    ["sm80_16x8x16.A", "--instruction", "ldmatrix.x4", "--png", "x.png"],
    ["sm75_u32x4_ldsm_n", "--picture", "mma", "--png", "x.png"],
    ["sm80_16x8x16.A", "--picture", "tv", "--warp", "3", "--png", "x.png"],
], ids=["copy-no-memory", "no-output", "warp-not-tv", "bank-no-memory", "instr-not-copy",
        "mma-not-atom", "no-such-warp"])
def test_show_picture_errors_exit_2(tmp_path, capsys, monkeypatch, argv):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(*run_cli(capsys, "show", *argv))


def test_show_64_lane_wavefronts(tmp_path, capsys):
    """AMD layouts (64-lane wavefronts): the text grid names lanes 0-63; a Triton mfma layout
    file zooms to one warp."""
    code, out, err = run_cli(capsys, "show", "amd_mfma_f32_32x32x8_f16.A")
    assert code == 0, err
    assert "t63:r3" in out and "t32:r0" in out
    pytest.importorskip("matplotlib")
    from linlayout.triton.encodings import amd_mfma

    mfma = write_file(tmp_path, "mfma.json", amd_mfma(3, [2, 2], [32, 32, 8], True)
                      .to_linear_layout([64, 64]).to_dict())
    code, out, err = run_cli(capsys, "show", mfma, "--picture", "tv", "--warp", "3",
                             "--png", str(tmp_path / "w3.png"))
    assert code == 0, err
    assert "w3:t63:r15" in out
    assert (tmp_path / "w3.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = run_cli(capsys, "show", "amd_mfma_f32_32x32x8_f16.A", "--picture", "copy",
                             "--memory", "(_64,_64):(_64,_1)", "--element-bits", "16",
                             "--png", str(tmp_path / "c.png"))
    assert code == 2 and "--hardware" in err  # NVIDIA's 32-lane warp: says what to pass
