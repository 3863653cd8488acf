"""Hostile files on the command line: every one ends with exit 2 and one
``linlayout: error:`` line — never a traceback, never exit 1 (which CI reads as "conflict
found") — and quickly (the sizes below took minutes or gigabytes before)."""

from __future__ import annotations

import pytest

from linlayout.cli import main

from tests.support import assert_one_line_error, write_file

BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
           "order = [1, 0]}>")


def _slice_chain(n: int) -> str:
    lines = [f"#a0 = {BLOCKED}"]
    lines += [f"#a{i} = #ttg.slice<{{dim = 0, parent = #a{i - 1}}}>" for i in range(1, n)]
    return "\n".join(lines) + "\nmodule {\n}\n"


TTGIR = {
    "deep_brackets": "#b = #ttg.blocked<{sizePerThread = " + "[" * 5000 + "]" * 5000
                     + "}>\nmodule {\n}\n",
    "deep_inline_slices": "#s = " + "#ttg.slice<{dim = 0, parent = " * 3000 + BLOCKED
                          + "}>" * 3000 + "\nmodule {\n}\n",
    "huge_int": "#b = #ttg.blocked<{sizePerThread = [" + "9" * 5000 + "]}>\nmodule {\n}\n",
    "huge_num_warps": 'module attributes {"ttg.num-warps" = ' + "9" * 5000 + " : i32} {\n}\n",
    "huge_shape": "module {\n  %0 = ttg.local_alloc : () -> !ttg.memdesc<" + "9" * 5000
                  + "xf16, #ttg.shared_memory, mutable>\n}\n",
}


@pytest.mark.parametrize("name", sorted(TTGIR))
def test_check_on_hostile_ttgir_exits_2(tmp_path, capsys, name):
    path = write_file(tmp_path, f"{name}.ttgir", TTGIR[name])
    code = main(["check", path])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)


@pytest.mark.parametrize("text", [_slice_chain(60), "#a = #" + " " * 300_000 + "x\nmodule {\n}\n"])
def test_check_on_pathological_but_valid_ttgir_finishes(tmp_path, capsys, text):
    path = write_file(tmp_path, "f.ttgir", text)
    code = main(["check", path])
    out, err = capsys.readouterr()
    assert code == 0 and "no shared-memory accesses" in out and not err


LAYOUT_FILES = {
    "deep_json": "[" * 100_000 + "]" * 100_000,
    "deep_dict_json": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "huge_int": '{"bases": {"register": [[' + "9" * 5000 + ']]}, "out_dims": {"dim0": 4}}',
    "huge_size": '{"bases": {}, "out_dims": {"dim0": ' + "4" * 5000 + "}}",
    "negative_size": '{"bases": {}, "out_dims": {"dim0": -4}}',
    "float_basis": '{"bases": {"register": [[1.5]]}, "out_dims": {"dim0": 4}}',
    "nan": '{"bases": {"register": [[NaN]]}, "out_dims": {"dim0": 4}}',
    "null": "null",
}


@pytest.mark.parametrize("name", sorted(LAYOUT_FILES))
@pytest.mark.parametrize("command", ["show", "conflicts", "synthesize"])
def test_hostile_layout_files_exit_2(tmp_path, capsys, name, command):
    bad = write_file(tmp_path, f"{name}.json", LAYOUT_FILES[name])
    argv = {"show": ["show", bad],
            "conflicts": ["conflicts", "--layout", bad, "--memory", bad, "--element-bits", "16"],
            "synthesize": ["synthesize", "--src", bad, "--dst", bad, "--element-bits", "16"]
            }[command]
    code = main(argv)
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)


@pytest.mark.parametrize("text", [
    "Sw<" + "9" * 5000 + ",0,1> o (_8,_8):(_8,_1)",
    "Sw<999999,0,999999> o (_8,_8):(_8,_1)",
    "(" * 5000 + "_8" + ")" * 5000 + ":(_1)",
    "(_" + "9" * 5000 + "):(_1)",
    "(_8,_8):(_8,_1) on " + "9" * 5000 + "x8",
])
def test_hostile_cute_text_exits_2(capsys, text):
    code = main(["show", text])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
