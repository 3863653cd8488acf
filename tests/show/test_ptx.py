"""PtxReport: the library's report is exactly what ``linlayout ptx`` prints, and its picture.

For every mode and a few element sizes ``to_text()`` is the command's stdout and ``to_dict()``
the data of its ``--json``; ``save_png`` draws the chunk table with matplotlib, imported only
there.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linlayout import LayoutError, LinearLayout, ptx
from linlayout.show.ptx import (
    PtxReport,
    atoms_line,
    cell_bytes,
    matrix_rows,
    matrix_text,
    ptx_report,
    tile_view,
)

from tests.support import run_cli

JSON_KEYS = {"schema_version", "mode", "summary", "cu_tensor_map_swizzle", "cu_tensor_map_swizzle_name",
             "ptx_swizzle_mode", "ptx_swizzle_atomicity", "tcgen05_layout_type",
             "wgmma_layout_type", "cute", "repeat_bytes", "base_offset_formula",
             "address_formula", "matrix", "layout", "chunk_table", "tile", "png"}


@pytest.mark.parametrize("mode", [m.value for m in ptx.SwizzleMode])
@pytest.mark.parametrize("bits", [8, 16, 128])
def test_to_text_and_to_dict_are_what_the_command_prints(capsys, mode, bits):
    report = ptx_report(mode, element_bits=bits)
    code, out, err = run_cli(capsys, "ptx", mode, "--element-bits", str(bits))
    assert (code, err) == (0, "") and out == report.to_text() + "\n"
    code, out, _ = run_cli(capsys, "ptx", mode, "--element-bits", str(bits), "--json")
    data = json.loads(out)
    assert data == report.to_dict() and set(data) == JSON_KEYS


def test_the_parts():
    report = ptx_report("128B", element_bits=16)
    assert isinstance(report, PtxReport) and report.mode is ptx.SwizzleMode.SWIZZLE_128B
    assert report.layout == ptx.swizzle_layout(report.mode)
    assert report.matrix == matrix_rows(report.layout) and len(report.matrix) == 10
    assert matrix_text(report.matrix).splitlines()[5].split(":")[1].split() == \
        ["0", "0", "0", "0", "1", "0", "0", "1", "0", "0"]
    assert report.tile["formula"] == "offset = 64·row + (col ⊕ 8·row)"
    assert "K-major 8×64" in report.atoms and atoms_line(ptx.SwizzleMode.SWIZZLE_96B, 8) is None
    assert cell_bytes(ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B) == 8
    data, text = tile_view(ptx.SwizzleMode.SWIZZLE_96B, 8)
    assert data["formula"] is None and "not F2-linear" in text
    data, text = tile_view(ptx.SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B, 128)
    assert "error" in data and text.startswith("tile: ")
    assert LinearLayout.from_dict(report.to_dict()["layout"]) == report.layout


def test_png_is_named_in_text_and_json():
    report = ptx_report("64B", png="out.png")
    assert report.to_text().endswith("\n\nwrote out.png") and report.to_dict()["png"] == "out.png"


@pytest.mark.parametrize("bits", [0, 12, 256, True, "8"])
def test_bad_element_bits_raise(bits):
    with pytest.raises(LayoutError, match="element_bits"):
        ptx_report("128B", element_bits=bits)


def test_save_png_draws_the_chunk_table(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "sw.png"
    ptx_report("128B").save_png(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(OSError):
        ptx_report("128B").save_png(str(tmp_path / "no" / "dir.png"))


def test_building_a_report_loads_no_matplotlib():
    code = ("import sys; from linlayout.show.ptx import ptx_report; "
            "ptx_report('128B').to_text(); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
