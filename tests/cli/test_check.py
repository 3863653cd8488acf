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
    ops = [dict(op, file=f["file"]) for f in data["files"] for op in f["ops"]]
    assert "ops" not in data  # each op once, under its file
    assert all(keys <= set(op) for op in ops)
    by = {(pathlib.Path(o["file"]).name, o["line"]): o for o in ops}
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


def _corpus_file(tmp_path, name):
    from tests.check.shared_memory.corpus_check import corpus

    path = tmp_path / name
    path.write_text(corpus()["files"][name]["ttgir"])
    return str(path)


def test_check_json_contract_instructions_source_and_totals(capsys, tmp_path):
    path = _corpus_file(tmp_path, "matmul_cuda80.ttgir")
    code, out, _ = run_cli(capsys, "check", "--json", path)
    data = json.loads(out)
    assert code == 0 and data["errors"] == 0
    (f,) = data["files"]
    assert (f["target"], f["hardware"], f["section"]) == ("cuda:80", "NVIDIA", None)
    loads = [o for o in f["ops"] if o["op"] == "local_load"]
    ins = loads[0]["instructions"][0]
    assert set(ins) >= {"side", "ptx", "per_thread", "vector_elems", "degree",
                        "wavefronts_per_warp"}
    assert ins["ptx"].startswith("ldmatrix.sync.aligned.m8n8.x4") and ins["side"] == "load"
    assert all(o["source"].startswith("corpus.py:") for o in f["ops"])
    t = f["totals"]
    assert t["per_thread"]["cp.async.cg.shared.global"] == 48
    assert t["wavefronts_per_warp"] >= t["wavefront_floor"] > 0
    conv = next(o for o in f["ops"] if o["op"] == "convert_layout")
    assert [i["side"] for i in conv["instructions"]] == ["store", "load"]
    assert "alternative" in conv and "saving" in conv["alternative"]


def test_check_amd_modules_use_isa_names_and_their_hardware(capsys, tmp_path):
    path = _corpus_file(tmp_path, "p_ld_mfma_dot_b_f16_ncontig_gfx950.ttgir")
    code, out, _ = run_cli(capsys, "check", "--json", path)
    f = json.loads(out)["files"][0]
    assert f["hardware"] == "AMD_CDNA4" and f["threads_per_warp"] == 64
    isas = [i["isa"] for o in f["ops"] for i in o["instructions"]]
    assert "ds_read_b64_tr_b16" in isas
    code, out, _ = run_cli(capsys, "check", "--json", "--hardware", "AMD_CDNA3", path)
    assert json.loads(out)["files"][0]["hardware"] == "AMD_CDNA3"


def test_check_reports_good_files_beside_unreadable_ones(capsys, tmp_path):
    good = str(TTGIR_DIR / "matmul_sm80.ttgir")
    missing = str(tmp_path / "missing.ttgir")
    code, out, err = run_cli(capsys, "check", "--json", good, missing)
    data = json.loads(out)
    assert code == 2 and data["errors"] == 1
    assert [("error" in f) for f in data["files"]] == [False, True]
    assert data["files"][1]["file"] == missing and "cannot read" in data["files"][1]["error"]
    assert data["files"][0]["ops"] and err.count("\n") == 1
    code, out, err = run_cli(capsys, "check", good, missing)
    assert code == 2 and "matmul_sm80.ttgir" in out and "1 file(s) could not be read" in out
    assert "instruction x per thread" in out and "totals per warp" in out
    assert err.startswith("linlayout: error: cannot read TTGIR file")


def test_check_pass_picks_a_dump_section(capsys, tmp_path):
    from tests.triton.test_ttgir_sections import _dump

    path = tmp_path / "dump.txt"
    path.write_text(_dump())
    code, out, _ = run_cli(capsys, "check", "--json", "--max-degree", "8", str(path))
    f = json.loads(out)["files"][0]
    assert code == 0 and f["section"] == "IR Dump Before ConvertTritonGPUToLLVM"
    code, out, _ = run_cli(capsys, "check", "--json", "--max-degree", "8", "--pass",
                           "Coalesce", str(path))
    f = json.loads(out)["files"][0]
    assert f["section"] == "IR Dump Before TritonGPUCoalesce"
    assert f["ops"][0]["instructions"][0]["ptx"].startswith("stmatrix")


def test_check_counts_padded_buffers(capsys, tmp_path):
    """gfx950's matmul pipelines through padded_shared buffers: every copy and read is
    predicted and the plain vectors are counted on the padded layout (conflict-free, as
    Triton's padding choice intends)."""
    path = _corpus_file(tmp_path, "matmul_gfx950.ttgir")
    code, out, _ = run_cli(capsys, "check", "--json", path)
    f = json.loads(out)["files"][0]
    assert code == 0 and f["totals"]["not_analysed"] == 0
    padded = [o for o in f["ops"] if o.get("note", "").startswith("padded [")]
    counted = [i for o in padded for i in o["instructions"] if i.get("degree") is not None]
    assert padded and counted and all(i["degree"] == 1 for i in counted)
    # every LDS instruction is counted on its own model: transposed reads on their addressed
    # layout, direct-to-LDS copies after the lane-order check
    assert {i["isa"] for i in counted} >= {"ds_read_b128", "ds_write_b128",
                                           "ds_read_b64_tr_b16", "global_load_lds_dwordx4"}


def test_pass_on_a_single_module_file_is_noted(capsys):
    from tests.support import ROOT, run_cli

    path = str(ROOT / "tests" / "data" / "ttgir" / "transpose2.ttgir")
    code, out, err = run_cli(capsys, "check", "--pass", "Coalesce", path)
    plain = run_cli(capsys, "check", path)
    assert (code, out) == plain[:2]
    assert "--pass Coalesce does not apply" in err
