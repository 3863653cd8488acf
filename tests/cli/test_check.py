"""``linlayout check``: TTGIR files reported per access, for people and as JSON, with exit
status against ``--max-degree`` and one-line errors for unreadable files.
"""

from __future__ import annotations

import json
import pathlib

from tests.support import TTGIR_DIR, load_json, run_cli


FILES = sorted(load_json("ttgir_expected.json")["files"])


def test_check_reports_each_access_and_fails_above_max_degree(capsys):
    code, out, err = run_cli(capsys, "check", str(TTGIR_DIR / "transpose2.ttgir"))
    assert code == 1 and err == ""
    assert "local_load" in out and "FAIL" in out
    assert "suggestion for %tile (line 26): #ttg.swizzled_shared<{vec = 8, perPhase = 8" in out
    assert out.strip().endswith("FAIL: worst degree 8 > --max-degree 1")
    code, out, _ = run_cli(capsys, "check", "--max-degree", "8", str(TTGIR_DIR / "transpose2.ttgir"))
    assert code == 0 and out.strip().endswith("ok: worst degree 8 <= --max-degree 8")


def test_check_json_lists_every_access(capsys):
    files = [str(TTGIR_DIR / n) for n in FILES]
    code, out, _ = run_cli(capsys, "check", "--json", *files)
    data = json.loads(out)
    assert code == 1
    assert data["max_degree"] == 1 and data["worst_degree"] == 8 and data["ok"] is False
    keys = {"line", "op", "result", "memdesc", "element_bits", "vector_elems", "degree",
            "wavefronts_per_instruction", "instructions_per_warp", "wavefronts_per_warp",
            "wavefront_floor", "suggestion"}
    assert all(keys <= set(op) for op in data["ops"])
    by = {(pathlib.Path(o["file"]).name, o["line"]): o for o in data["ops"]}
    assert by[("transpose2.ttgir", 26)]["degree"] == 8
    load = by[("transpose2.ttgir", 26)]
    assert load["wavefronts_per_warp"] == 8 * load["instructions_per_warp"]
    assert load["wavefront_floor"] == 16  # 64x64 f16 over 4 warps: 2 KB, 128 B a wavefront
    assert by[("transpose2.ttgir", 26)]["suggestion"].startswith("#ttg.swizzled_shared")
    assert by[("matmul_sm80.ttgir", 53)]["vector_elems"] == 8
    assert by[("tma_sm90.ttgir", 32)]["suggestion"] is None
    code, out, _ = run_cli(capsys, "check", "--json", str(TTGIR_DIR / "matmul_sm80.ttgir"))
    assert code == 0 and json.loads(out)["ok"] is True


def test_check_bad_input_exits_2_with_one_line(capsys, tmp_path):
    code, out, err = run_cli(capsys, "check", str(tmp_path / "missing.ttgir"))
    assert code == 2 and out == ""
    assert err.startswith("linlayout: error: cannot read TTGIR file") and err.count("\n") == 1
    bad = tmp_path / "bad.ttgir"
    bad.write_text("#blocked = #ttg.blocked<{sizePerThread = [1, 4]\n")
    code, _, err = run_cli(capsys, "check", str(bad))
    assert code == 2 and "bad.ttgir: malformed MLIR at line" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "check", "--max-degree", "0", str(TTGIR_DIR / "tma_sm90.ttgir"))
    assert code == 2 and "--max-degree" in err
