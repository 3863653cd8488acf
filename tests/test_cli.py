"""The ``linlayout`` command, run in-process through ``main`` (plus one real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linlayout import LinearLayout, examples, synthesize_swizzle
from linlayout.cli import main

FORMULA = "offset = 32·m + (n ⊕ 2·m)"
#: Row-major memory for the 16×32 transpose: store degree 1, load degree 16.
ROW_MAJOR = LinearLayout(
    {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0]]},
    {"dim0": 16, "dim1": 32},
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def table_rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if cells[0] in ("store", "load"):
            rows[cells[0]] = cells[1:]
    return rows


# ---------------------------------------------------------------------------- synthesize
def test_synthesize_default_is_the_article(capsys):
    code, out, err = run(capsys, "synthesize")
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("example transpose")
    assert FORMULA in out.splitlines()
    rows = table_rows(out)
    assert rows["store"] == ["1", "1", "1"]  # vector, degree, wavefronts
    assert rows["load"] == ["1", "1", "1"]
    assert "proven optimal: yes" in out
    assert "segment=1 -> (1, 2)" in out


@pytest.mark.parametrize("name", examples.names())
def test_synthesize_json(capsys, name):
    code, out, _ = run(capsys, "synthesize", "--example", name, "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("layout", "vector_elems", "store", "load", "optimal"):
        assert key in data
    assert set(data["layout"]) >= {"bases", "out_dims"}
    for side in ("store", "load"):
        assert data[side]["degree"] == 1
        assert data[side]["wavefronts"] >= 1
    assert data["optimal"] is True
    LinearLayout.from_dict(data["layout"])  # loads back


def test_synthesize_src_dst_round_trip(capsys, tmp_path):
    ex = examples.get("blocked-mma")
    src = write(tmp_path, "src.json", ex.store.to_dict())
    dst = write(tmp_path, "dst.json", ex.load.to_dict())
    code, out, _ = run(capsys, "synthesize", "--src", src, "--dst", dst,
                       "--element-bits", str(ex.element_bits), "--json")
    assert code == 0
    data = json.loads(out)
    expected = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    assert LinearLayout.from_dict(data["layout"]) == expected.layout
    assert data["store"]["degree"] == data["load"]["degree"] == 1

    mem = write(tmp_path, "mem.json", data["layout"])
    for layout in (src, dst):
        code, out, _ = run(capsys, "conflicts", "--layout", layout, "--memory", mem,
                           "--element-bits", "16", "--json")
        assert code == 0 and json.loads(out)["degree"] == 1

    code, out, _ = run(capsys, "synthesize", "--src", src, "--dst", dst, "--element-bits", "16")
    assert code == 0 and f"synthesize: store {src}" in out and "offset = " in out


# ---------------------------------------------------------------------------- conflicts
@pytest.fixture
def transpose_files(tmp_path):
    ex = examples.get("transpose")
    return {
        "store": write(tmp_path, "store.json", ex.store.to_dict()),
        "load": write(tmp_path, "load.json", ex.load.to_dict()),
        "row_major": write(tmp_path, "row_major.json", ROW_MAJOR.to_dict()),
    }


def test_conflicts_exit_codes(capsys, transpose_files):
    f = transpose_files
    base = ["conflicts", "--memory", f["row_major"], "--element-bits", "32"]
    code, out, _ = run(capsys, *base, "--layout", f["store"])
    assert code == 0 and "ok: degree 1" in out
    code, out, err = run(capsys, *base, "--layout", f["load"])
    assert code == 1 and err == ""
    assert "FAIL: degree 16 > --max-degree 1" in out
    code, out, _ = run(capsys, *base, "--layout", f["load"], "--max-degree", "16")
    assert code == 0
    code, out, _ = run(capsys, *base, "--layout", f["load"], "--max-degree", "8", "--json")
    data = json.loads(out)
    assert code == 1
    assert data["degree"] == 16 and data["wavefronts"] == 16 and data["vector_elems"] == 1


# ---------------------------------------------------------------------------- show, examples
def test_show_distributed_and_memory(capsys, transpose_files, tmp_path):
    code, out, _ = run(capsys, "show", transpose_files["store"])
    assert code == 0 and "t31:r15" in out
    code, out, _ = run(capsys, "show", transpose_files["row_major"])
    assert code == 0
    assert "offset = 32·dim0 + dim1" in out and "33/1" in out
    art = write(tmp_path, "art.json", synthesize_swizzle(
        examples.get("transpose").store, examples.get("transpose").load,
        element_bits=32).layout.to_dict())
    code, out, _ = run(capsys, "show", art, "--element-bits", "16")
    assert code == 0 and "34/17" in out  # offset 34 of 16-bit elements -> bank 17


def test_examples_lists_all(capsys):
    code, out, _ = run(capsys, "examples")
    assert code == 0
    assert [line.split(":")[0] for line in out.splitlines()] == examples.names()


# ---------------------------------------------------------------------------- errors
THREE_D = {"bases": {"register": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
           "out_dims": {"dim0": 2, "dim1": 2, "dim2": 2}}


@pytest.fixture
def bad_files(tmp_path, transpose_files):
    f = dict(transpose_files)
    f["invalid_json"] = write(tmp_path, "bad.json", "{not json")
    f["not_utf8"] = str(tmp_path / "bin.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    f["list"] = write(tmp_path, "list.json", [1, 2, 3])
    f["bases_not_list"] = write(tmp_path, "b1.json", {"bases": {"lane": 5}, "out_dims": {"dim0": 4}})
    f["wrong_len"] = write(tmp_path, "b2.json", {"bases": {"lane": [[1, 2]]}, "out_dims": {"dim0": 4}})
    f["bad_size"] = write(tmp_path, "b3.json", {"bases": {"lane": [[1]]}, "out_dims": {"dim0": 3}})
    f["no_out_dims"] = write(tmp_path, "b4.json", {"bases": {}})
    f["singular"] = write(tmp_path, "sing.json", {
        "bases": {"offset": [[0, 1], [0, 1], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0],
                             [8, 0]]},
        "out_dims": {"dim0": 16, "dim1": 32}})
    f["small"] = write(tmp_path, "small.json", {"bases": {"register": [[1, 0]], "lane": [[0, 1]]},
                                                "out_dims": {"dim0": 2, "dim1": 2}})
    f["three_d"] = write(tmp_path, "three.json", THREE_D)
    f["missing"] = str(tmp_path / "does-not-exist.json")
    return f


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
    ("conflicts", "--layout", "{store}", "--memory", "{singular}", "--element-bits", "32"),
    ("conflicts", "--layout", "{store}", "--memory", "{small}", "--element-bits", "32"),
    ("conflicts", "--layout", "{row_major}", "--memory", "{row_major}", "--element-bits", "32"),
    ("conflicts", "--layout", "{not_utf8}", "--memory", "{row_major}", "--element-bits", "32"),
    ("conflicts", "--layout", "{list}", "--memory", "{row_major}", "--element-bits", "32"),
    ("conflicts", "--layout", "{store}", "--memory", "{row_major}", "--element-bits", "32",
     "--vector-elems", "4"),
    ("conflicts", "--layout", "{store}", "--memory", "{row_major}", "--element-bits", "32",
     "--max-degree", "0"),
    ("conflicts", "--layout", "{bases_not_list}", "--memory", "{row_major}", "--element-bits", "8"),
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
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("linlayout: error: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["conflicts", "--layout", "x.json"],
                                  ["synthesize", "--element-bits", "many"]])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("usage: linlayout")  # argparse's own usage text
    assert "error:" in err and "Traceback" not in err


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "synthesize" in out


def test_entry_point_subprocess():
    proc = subprocess.run([sys.executable, "-m", "linlayout", "synthesize"],
                          capture_output=True, text=True, encoding="utf-8", check=False)
    assert proc.returncode == 0, proc.stderr
    assert FORMULA in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "linlayout", "show", "/nonexistent.json"],
                          capture_output=True, text=True, encoding="utf-8", check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("linlayout: error: ") and len(proc.stderr.splitlines()) == 1


def test_synthesize_options(tmp_path, capsys):
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


def test_conflicts_instruction(tmp_path, capsys):
    import json

    from linlayout import LinearLayout
    from linlayout.cli import main

    out = {"dim0": 16, "dim1": 16}
    a = LinearLayout({"register": [[0, 1], [8, 0], [0, 8]],
                      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, out)
    rm = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, out)
    pa, pm = tmp_path / "a.json", tmp_path / "m.json"
    pa.write_text(json.dumps(a.to_dict()))
    pm.write_text(json.dumps(rm.to_dict()))
    code = main(["conflicts", "--layout", str(pa), "--memory", str(pm), "--element-bits", "16",
                 "--instruction", "ldmatrix.x4", "--max-degree", "2", "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["degree"] == 2 and res["instruction"] == "ldmatrix.x4"


def test_an_internal_error_is_not_blamed_on_the_input(monkeypatch, capsys):
    """A bug (an exception that is no bad-input error) exits 3 and says it is a bug."""
    from linlayout.cli import EXIT_INTERNAL_ERROR, synthesize as synthesize_cmd

    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(synthesize_cmd, "run", broken)
    from linlayout.cli import main
    code = main(["synthesize"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL_ERROR == 3
    assert "internal error" in err and "bug" in err and "error: " not in err.split("internal")[0]


def test_deeply_nested_json_is_bad_input(tmp_path, capsys):
    from linlayout.cli import main
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code = main(["show", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("linlayout: error:") and err.count("\n") == 1
