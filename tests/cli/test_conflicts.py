"""``linlayout conflicts``: exit status against ``--max-degree``, JSON output, matrix
instructions, and one-line errors.
"""

from __future__ import annotations

import json

import pytest

from tests.support import assert_one_line_error, run_cli


def test_conflicts_exit_status_follows_max_degree(capsys, transpose_files):
    f = transpose_files
    base = ["conflicts", "--memory", f["row_major"], "--element-bits", "32"]
    code, out, _ = run_cli(capsys, *base, "--layout", f["store"])
    assert code == 0 and "ok: degree 1" in out
    code, out, err = run_cli(capsys, *base, "--layout", f["load"])
    assert code == 1 and err == ""
    assert "FAIL: degree 16 > --max-degree 1" in out
    code, out, _ = run_cli(capsys, *base, "--layout", f["load"], "--max-degree", "16")
    assert code == 0
    code, out, _ = run_cli(capsys, *base, "--layout", f["load"], "--max-degree", "8", "--json")
    data = json.loads(out)
    assert code == 1
    assert data["degree"] == 16 and data["wavefronts_per_instruction"] == 16 and data["vector_elems"] == 1


def test_conflicts_counts_ldmatrix(tmp_path, capsys):
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


ERROR_CASES = [
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
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: " ".join(c)[:60])
def test_errors_exit_2_with_one_line(capsys, bad_files, case):
    argv = [a.format(**bad_files) for a in case]
    assert_one_line_error(*run_cli(capsys, *argv))


SW128_ELEMENTS = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
SW128_BYTES_AS_ELEMENTS = "Sw<3,4,3> o _0 o (_64,_64):(_64,_1)"


def test_help_explains_element_bits(capsys):
    code, out, _ = run_cli(capsys, "conflicts", "--help")
    assert code == 0
    assert "bits per element" in " ".join(out.split())


def test_swapped_layout_and_memory_say_so(capsys):
    code, out, err = run_cli(capsys, "conflicts", "--layout", SW128_ELEMENTS, "--memory",
                             "sm80_16x8x16.A", "--element-bits", "16")
    assert_one_line_error(code, out, err)
    assert "swap them" in err and "rename it" not in err


def test_thread_value_text_without_tile_asks_for_it(capsys):
    code, _, err = run_cli(capsys, "conflicts", "--memory", SW128_ELEMENTS, "--layout",
                           "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "--element-bits", "16")
    assert code == 2 and "on MxN" in err and "rename it" not in err


def test_byte_swizzle_in_element_units_gets_a_hint(capsys):
    code, out, err = run_cli(capsys, "conflicts", "--memory", SW128_BYTES_AS_ELEMENTS,
                             "--layout", "sm80_16x8x16.A", "--element-bits", "16")
    assert code == 1 and out.rstrip().endswith("FAIL: degree 2 > --max-degree 1")
    assert err.startswith("linlayout: hint: ") and "Sw<3,3,3>" in err and "bytes" in err
    code, _, err = run_cli(capsys, "conflicts", "--memory", SW128_ELEMENTS,
                           "--layout", "sm80_16x8x16.A", "--element-bits", "16")
    assert code == 0 and err == ""


def test_conflicts_explain_prints_after_the_table_and_under_json(capsys, transpose_files):
    f = transpose_files
    base = ["conflicts", "--memory", f["row_major"], "--element-bits", "32", "--layout",
            f["load"]]
    code, plain, _ = run_cli(capsys, *base)
    code2, out, _ = run_cli(capsys, *base, "--explain")
    assert code == code2 == 1
    assert out.startswith(plain.rsplit("FAIL", 1)[0])
    assert "lanes 0 and 1 differ only in offset bit 5, which is a segment bit" in out
    assert out.rstrip().splitlines()[-1].startswith("FAIL")
    _, js, _ = run_cli(capsys, *base, "--explain", "--json")
    data = json.loads(js)
    assert data["explain"]["instructions"][0]["wavefronts"] == data["wavefronts_per_instruction"]
    _, js, _ = run_cli(capsys, *base, "--json")
    assert "explain" not in json.loads(js)
