"""``linlayout examples``: one line per built-in example, default first."""

from __future__ import annotations

import json
import os

from linlayout import examples

from tests.support import run_cli


def test_examples_lists_every_example_default_first(capsys):
    code, out, _ = run_cli(capsys, "examples")
    assert code == 0
    assert [line.split(":")[0] for line in out.splitlines()] == examples.names()


def test_examples_write_makes_runnable_layout_files(capsys, tmp_path):
    from tests.support import article_memory, run_cli

    code, out, _ = run_cli(capsys, "examples", "--write", str(tmp_path))
    assert code == 0
    paths = out.split()
    assert str(tmp_path / "transpose" / "row_major.json") in paths
    assert all(os.path.isfile(p) for p in paths) and len(paths) == 3 * 4
    with open(tmp_path / "transpose" / "row_major.json", encoding="utf-8") as fh:
        assert json.load(fh) == article_memory(None).to_dict()
    code, out, _ = run_cli(capsys, "conflicts", "--layout", str(tmp_path / "transpose" / "load.json"),
                           "--memory", str(tmp_path / "transpose" / "row_major.json"),
                           "--element-bits", "32")
    assert code == 1 and "FAIL: degree 16 > --max-degree 1" in out
    code, out, _ = run_cli(capsys, "synthesize", "--src", str(tmp_path / "gemm-operand" / "store.json"),
                           "--dst", str(tmp_path / "gemm-operand" / "load.json"),
                           "--element-bits", "16")
    assert code == 0 and "proven optimal: yes" in out
