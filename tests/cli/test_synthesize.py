"""``linlayout synthesize``: the article by default, JSON output, layouts from files,
options, the TMA note, and one-line errors.
"""

from __future__ import annotations

import json

import pytest

from linlayout import LinearLayout, examples, ptx, synthesize_swizzle

from tests.support import assert_one_line_error, run_cli, write_file


FORMULA = "offset = 128·⌊n/8⌋ + 32·⌊m/4⌋ + 4·((n & 7) ⊕ 2·⌊m/4⌋) + (m & 3)"


def table_rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if cells[0] in ("store", "load"):
            rows[cells[0]] = cells[1:]
    return rows


def test_synthesize_default_is_the_article(capsys):
    code, out, err = run_cli(capsys, "synthesize")
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("example transpose")
    assert FORMULA in out.splitlines()
    rows = table_rows(out)
    # instruction, vector, degree, instructions, wavefronts, floor, bytes (per warp)
    assert rows["store"] == ["ld/st.shared", "4", "1", "4", "16", "16", "2048"]
    assert rows["load"] == ["ld/st.shared", "1", "1", "16", "16", "16", "2048"]
    assert "conflict-free: yes; at the bandwidth floor: yes" in out
    assert "proven optimal: yes" in out
    assert "segment=1 -> (4, 2)" in out


@pytest.mark.parametrize("name", examples.names())
def test_synthesize_json_for_every_example(capsys, name):
    code, out, _ = run_cli(capsys, "synthesize", "--example", name, "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("layout", "vector_elems", "store", "load", "optimal"):
        assert key in data
    assert set(data["layout"]) >= {"bases", "out_dims"}
    for side in ("store", "load"):
        assert data[side]["degree"] == 1
        assert data[side]["wavefronts_per_instruction"] >= 1
    assert data["optimal"] is True
    LinearLayout.from_dict(data["layout"])  # loads back


def test_synthesize_from_files_round_trips_through_conflicts(capsys, tmp_path):
    ex = examples.get("blocked-mma")
    src = write_file(tmp_path, "src.json", ex.store.to_dict())
    dst = write_file(tmp_path, "dst.json", ex.load.to_dict())
    code, out, _ = run_cli(capsys, "synthesize", "--src", src, "--dst", dst,
                       "--element-bits", str(ex.element_bits), "--json")
    assert code == 0
    data = json.loads(out)
    expected = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    assert LinearLayout.from_dict(data["layout"]) == expected.layout
    assert data["store"]["degree"] == data["load"]["degree"] == 1

    mem = write_file(tmp_path, "mem.json", data["layout"])
    for layout in (src, dst):
        code, out, _ = run_cli(capsys, "conflicts", "--layout", layout, "--memory", mem,
                           "--element-bits", "16", "--json")
        assert code == 0 and json.loads(out)["degree"] == 1

    code, out, _ = run_cli(capsys, "synthesize", "--src", src, "--dst", dst, "--element-bits", "16")
    assert code == 0 and f"synthesize: store {src}" in out and "offset = " in out


def test_synthesize_options_reach_the_synthesizer(tmp_path, capsys):
    import json

    from linlayout import examples
    from linlayout.cli import main

    code = main(["synthesize", "--example", "blocked-mma", "--instructions", "auto", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["load"]["instruction"] == "ldmatrix.x4"
    code = main(["synthesize", "--example", "transpose-128", "--fixed", "128B", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["tma_mode"]["mode"] in ("128B", "SWIZZLE_128B") or out["tma_mode"]
    assert main(["synthesize", "--hardware", "AMD_CDNA3"]) == 0
    assert "load" in capsys.readouterr().out
    ex = examples.get("transpose")
    paths = []
    for i, lay in enumerate([ex.store, ex.load, ex.load.transpose_outs(["dim1", "dim0"])]):
        p = tmp_path / f"l{i}.json"
        p.write_text(json.dumps(lay.to_dict()))
        paths.append(str(p))
    code = main(["synthesize", "--src", paths[0], "--dst", paths[1], "--dst", paths[2],
                 "--element-bits", "32", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and len(out["loads"]) == 2
    assert main(["synthesize", "--fixed", "97B"]) == 2
    assert "error" in capsys.readouterr().err


def test_synthesize_reports_no_tma_mode_for_the_article(capsys):
    code, out, _ = run_cli(capsys, "synthesize")
    assert code == 0 and "realisable" not in out  # the article's layout swizzles 8-byte units
    code, out, _ = run_cli(capsys, "synthesize", "--example", "transpose", "--json")
    assert code == 0 and json.loads(out)["tma_mode"] is None


def test_synthesize_names_the_tma_mode_of_a_tma_layout(capsys, monkeypatch):
    """When the synthesized layout is a TMA tile the note names the driver mode."""
    import linlayout.show.synthesis as syn  # the report the command prints

    tile = ptx.tma_tile_layout("128B", element_bits=32, rows=16, cols=32)
    match = ptx.match_tma_mode(tile, 32)
    monkeypatch.setattr(syn, "match_tma_mode", lambda layout, eb: match)
    code, out, _ = run_cli(capsys, "synthesize")
    assert code == 0
    assert "realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)" in out
    code, out, _ = run_cli(capsys, "synthesize", "--json")
    assert json.loads(out)["tma_mode"]["cu_tensor_map_swizzle"] == "CU_TENSOR_MAP_SWIZZLE_128B"


ERROR_CASES = [
    ("synthesize", "--example", "nope"),
    ("synthesize", "--src", "{store}"),
    ("synthesize", "--src", "{store}", "--dst", "{load}"),  # no --element-bits
    ("synthesize", "--example", "transpose", "--src", "{store}", "--dst", "{load}"),
    ("synthesize", "--src", "{missing}", "--dst", "{load}", "--element-bits", "32"),
    ("synthesize", "--src", "{invalid_json}", "--dst", "{load}", "--element-bits", "32"),
    ("synthesize", "--src", "{store}", "--dst", "{small}", "--element-bits", "32"),
    ("synthesize", "--src", "{store}", "--dst", "{load}", "--element-bits", "3"),
    ("synthesize", "--num-banks", "0"),
    ("synthesize", "--src", "{row_major}", "--dst", "{load}", "--element-bits", "32"),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: " ".join(c)[:60])
def test_errors_exit_2_with_one_line(capsys, bad_files, case):
    argv = [a.format(**bad_files) for a in case]
    assert_one_line_error(*run_cli(capsys, *argv))


@pytest.mark.parametrize("extra", [["--target", ""], ["--hardware", "AMD_CDNA3", "--target",
                                                      "cuda:90"], ["--target", "metal:3"]])
def test_a_bad_target_is_refused_before_the_search(capsys, monkeypatch, extra):
    # fuzz (seed 80423): the target was checked only when the report was written, after the
    # swizzle and padding searches (12 s on a 512-element tile), then exit 2
    import linlayout.cli.synthesize as syn

    def searched(*args, **kwargs):
        raise AssertionError("searched before checking --target")

    monkeypatch.setattr(syn, "synthesize_swizzle", searched)
    monkeypatch.setattr(syn, "synthesize_padding", searched)
    assert_one_line_error(*run_cli(capsys, "synthesize", "--padding", *extra))
