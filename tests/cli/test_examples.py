"""``linlayout examples``: one line per built-in example, default first."""

from __future__ import annotations

from linlayout import examples

from tests.support import run_cli


def test_examples_lists_every_example_default_first(capsys):
    code, out, _ = run_cli(capsys, "examples")
    assert code == 0
    assert [line.split(":")[0] for line in out.splitlines()] == examples.names()
