"""The README's "CuTe and Gluon" section: its command prints what is shown, its session runs."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    return re.search(r"## CuTe and Gluon\n(.*?)\n## ", text, re.S).group(1)


def test_command_output_is_current(capsys):
    from linlayout.cli import main

    block = re.search(r"```\n\$ linlayout (.*?)\n(.*?)```", section(), re.S)
    code = main(shlex.split(block.group(1)))
    out = capsys.readouterr().out.strip()
    assert code == 0 and out == block.group(2).strip()


def test_python_session_runs():
    session = re.search(r"```\n(>>> .*?)```", section(), re.S).group(1)
    test = doctest.DocTestParser().get_doctest(session, {}, "README", "README.md", 0)
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.failed == 0
