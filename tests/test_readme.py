"""The README's library tour runs and its commented results are true."""

from __future__ import annotations

import re

from tests.support import ROOT


README = ROOT / "README.md"


def test_readme_python_block_runs():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    ns: dict = {}
    exec(compile(block, "README.md", "exec"), ns)
    ll = ns["ll"]
    assert ns["L"].apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}
    rep = ll.bank_conflicts(ns["ex"].load, ns["row_major"], element_bits=32)
    assert (rep.degree, rep.wavefronts, rep.conflict_offsets) == (16, 16, (32, 64, 128, 256))
    r = ns["r"]
    assert r.layout.bases == {"vector": [], "bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                              "segment": [[1, 2], [2, 4], [4, 8], [8, 16]]}
    assert (r.load.degree, r.store.degree, r.optimal) == (1, 1, True)


def test_readme_quick_start_is_two_commands():
    text = README.read_text(encoding="utf-8")
    quick = re.search(r"## Quick start.*?```\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert quick == ['pip install . && linlayout synthesize', 'pip install ".[test]" && pytest']


def test_readme_synthesize_output_is_current(capsys):
    from linlayout.cli import main

    assert main(["synthesize"]) == 0
    out = capsys.readouterr().out.strip()
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"\$ linlayout synthesize\n(.*?)```", text, re.S).group(1).strip()
    assert shown == out
