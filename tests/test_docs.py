"""Every code block of the README and ``docs/*.md`` runs, and prints what it shows.

A fenced block is run when it is code:

* a ``>>>`` session: run by :mod:`doctest` (``...`` elides), its output compared;
* a ``python`` block: executed (it must not raise);
* a command block, lines starting ``$ linlayout …`` each followed by the output it prints
  (stdout, then stderr), or ``$ echo $?`` followed by the previous command's exit status; a
  line that is only ``…`` stands for any number of lines.

The blocks of one file run in order in one namespace (a session), in a fresh folder that holds
links to the checkout's ``tests/`` and ``papers/`` (so paths such as
``tests/data/ttgir/transpose2.ttgir`` work, and files a command writes land there); so this
runs from a fresh clone, with nothing installed. Other blocks — formulas, tables, diagrams,
the quick start's ``pip`` lines — are text.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex

import pytest

import linlayout

from tests.support import ROOT

FILES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```", re.S | re.M)


def blocks(path: str) -> list[tuple[int, str, str]]:
    """``(line number, kind, body)`` of each code block of ``path``; kind is ``"doctest"``,
    ``"python"`` or ``"command"`` (other blocks are left out)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").splitlines()) + "\n"
        line = text.count("\n", 0, m.start()) + 1
        if re.search(r"^>>> ", body, re.M):
            out.append((line, "doctest", body))
        elif re.search(r"^\$ ", body, re.M):
            out.append((line, "command", body))
        elif m.group("lang") == "python":
            out.append((line, "python", body))
    return out


def run_command(line: str, last_status: int) -> tuple[int, str]:
    """Run one ``$`` line; (exit status, what it printed)."""
    from linlayout.cli import main

    argv = shlex.split(line)
    if argv == ["echo", "$?"]:
        return last_status, f"{last_status}\n"
    assert argv and argv[0] == "linlayout", f"the runner runs only linlayout and echo $?: {line}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv[1:])
    return status, out.getvalue() + err.getvalue()


def matches(shown: list[str], printed: str) -> bool:
    """``printed`` is ``shown``, a line ``…`` standing for any lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if s.strip() == "…" else re.escape(s.rstrip()) + r"[ \t]*\n"
                      for s in shown)
    return re.fullmatch(pattern, printed) is not None


def check_command_block(body: str) -> list[str]:
    """The mismatches of one command block (empty: it prints what it shows)."""
    failures = []
    status = 0
    steps = re.split(r"^\$ ", body, flags=re.M)
    assert steps[0].strip() == "", f"a command block starts with '$ ': {steps[0]!r}"
    for step in steps[1:]:
        command, _, shown = step.partition("\n")
        status, printed = run_command(command, status)
        printed = "\n".join(line.rstrip() for line in printed.splitlines()) + ("\n" if printed else "")
        shown_lines = [s for s in shown.splitlines()]
        while shown_lines and not shown_lines[-1].strip():
            shown_lines.pop()
        if not matches(shown_lines, printed):
            failures.append(f"$ {command}\n--- shown:\n" + "\n".join(shown_lines)
                            + f"\n--- printed:\n{printed}")
    return failures


@pytest.mark.parametrize("path", FILES)
def test_code_blocks_run_and_print_what_they_show(path, tmp_path, monkeypatch):
    for name in ("tests", "papers"):
        os.symlink(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")  # argparse's --help width, as shown in the docs
    namespace = {"ll": linlayout, "__name__": "__docs__"}
    failures = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for line, kind, body in blocks(path):
        where = f"{path}:{line}"
        if kind == "python":
            try:
                exec(compile(body, where, "exec"), namespace)
            except Exception as exc:  # report every failing block, not only the first
                failures.append(f"{where}: {type(exc).__name__}: {exc}")
        elif kind == "doctest":
            test = parser.get_doctest(body, namespace, where, path, line)
            out = io.StringIO()
            result = runner.run(test, out=out.write, clear_globs=False)
            namespace.update(test.globs)  # DocTest ran on a copy: keep the session's names
            if result.failed:
                failures.append(f"{where}:\n{out.getvalue()}")
        else:
            failures.extend(f"{where}: {f}" for f in check_command_block(body))
    assert not failures, "\n\n".join(failures)


def test_every_file_is_looked_at():
    assert "docs/cli.md" in FILES and "docs/glossary.md" in FILES
    assert sum(len(blocks(f)) for f in FILES) >= 20


@pytest.mark.parametrize("path", FILES)
def test_relative_links_lead_somewhere(path):
    text = FENCE.sub("", (ROOT / path).read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code, such as smem_ptr[16b](unset), is no link
    base = (ROOT / path).parent
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target and not target.startswith("mailto:"):
            assert (base / target).exists(), f"{path}: link to {target}"
