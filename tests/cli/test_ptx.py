"""``linlayout ptx``: each swizzle mode's numbers, formulas, matrix and tables, as text and
JSON, and its picture.
"""

from __future__ import annotations

import builtins
import json

import pytest

from linlayout import LinearLayout, ptx

from tests.support import run_cli


def test_ptx_128b_text_shows_numbers_formulas_matrix_and_table(capsys):
    code, out, err = run_cli(capsys, "ptx", "128B", "--element-bits", "16")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("128B swizzle")
    assert "CU_TENSOR_MAP_SWIZZLE_128B = 3" in lines[1] and "CuTe Sw<3,4,3>" in lines[1]
    assert "tcgen05 layout_type 2" in lines[1] and "wgmma layout_type 1" in lines[1]
    assert "swizzled(a) = a ⊕ 16·(⌊a/128⌋ & 7)" in out
    assert "offset = 64·row + (col ⊕ 8·row)" in out
    assert "K-major 8×64" in out and "MN-major 64×8" in out
    # the matrix: row 4 has the identity bit 4 and source bit 7
    row4 = next(line for line in lines if line.strip().startswith("bit 4:"))
    assert row4.split(":")[1].split() == ["0", "0", "0", "0", "1", "0", "0", "1", "0", "0"]
    table = [line for line in lines if line.startswith("line ")]
    assert len(table) == 8
    assert table[7] == "line 7: 7 6 5 4 3 2 1 0"


@pytest.mark.parametrize("mode", [m.value for m in ptx.SwizzleMode])
def test_ptx_json_for_every_mode(capsys, mode):
    code, out, _ = run_cli(capsys, "ptx", mode, "--json")
    assert code == 0
    data = json.loads(out)
    m = ptx.swizzle_mode(mode)
    assert data["mode"] == mode
    assert data["cu_tensor_map_swizzle"] == m.cu_tensor_map_swizzle
    assert data["ptx_swizzle_mode"] == m.ptx_swizzle_mode
    assert data["tcgen05_layout_type"] == m.tcgen05_layout_type
    assert data["wgmma_layout_type"] == m.wgmma_layout_type
    assert LinearLayout.from_dict(data["layout"]) == ptx.swizzle_layout(m)
    assert len(data["matrix"]) == 10
    assert data["chunk_table"]["lines"] == ptx.chunk_table(m, 8, data["chunk_table"]["cell_bytes"])
    if mode == "96B":
        assert data["tile"]["formula"] is None and "swizzle96_cell" in data["tile"]["note"]
    else:
        assert data["tile"]["formula"].startswith("offset = ")


def test_ptx_explains_96b_and_the_8b_flip(capsys):
    code, out, _ = run_cli(capsys, "ptx", "96B")
    assert code == 0
    assert "96-byte rows are not F2-linear" in out and "no CUtensorMapSwizzle value" in out
    assert "row 1: 0 1 3 2 5 4" in out
    code, out, _ = run_cli(capsys, "ptx", "128B_atom_32B_flip_8B")
    assert code == 0 and "no single CuTe Swizzle" in out
    assert "8-byte cells" in out and "line 1:  5  4  7  6 |" in out


def test_ptx_bad_input_exits_2(capsys):
    code, _, err = run_cli(capsys, "ptx", "256B")
    assert code == 2 and err.startswith("linlayout: error: unknown swizzle mode")
    code, _, err = run_cli(capsys, "ptx", "128B", "--element-bits", "12")
    assert code == 2 and "--element-bits" in err
    code, out, _ = run_cli(capsys, "ptx", "128B_atom_32B_flip_8B", "--element-bits", "128")
    assert code == 0 and "split 128-bit elements" in out  # the tile is explained, not faked


def test_ptx_png_writes_a_picture(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "sw.png"
    code, out, _ = run_cli(capsys, "ptx", "128B", "--png", str(path))
    assert code == 0 and path.stat().st_size > 1000 and f"wrote {path}" in out
    code, _, err = run_cli(capsys, "ptx", "128B", "--png", str(tmp_path / "no" / "dir.png"))
    assert code == 2 and "--png" in err


def test_ptx_png_without_matplotlib_says_what_to_install(capsys, monkeypatch, tmp_path):
    real_import = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("no matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    code, _, err = run_cli(capsys, "ptx", "64B", "--png", str(tmp_path / "x.png"))
    assert code == 2
    assert "needs matplotlib" in err and "plot extra" in err
