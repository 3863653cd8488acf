"""The README: its quick start is the two commands CI runs, it stays short, its examples run
and print what they show, and it leads to the rest of the documentation."""

from __future__ import annotations

import re

from tests.support import ROOT
from tests.test_docs import blocks, check_command_block


README = ROOT / "README.md"


def text() -> str:
    return README.read_text(encoding="utf-8")


def test_readme_quick_start_is_two_commands():
    quick = re.search(r"## Quick start.*?```\n(.*?)```", text(), re.S).group(1).strip().splitlines()
    assert quick == ['pip install . && linlayout synthesize', 'pip install ".[test]" && pytest']


def test_readme_quick_start_says_how_to_use_a_virtual_environment():
    quick = re.search(r"## Quick start\n(.*?)\n## ", text(), re.S).group(1)
    assert "python3 -m venv .venv" in quick and "externally-managed-environment" in quick


def test_readme_is_short_with_one_example_per_user():
    assert len(text().encode("utf-8")) < 10_000
    headings = re.findall(r"^## (.*)$", text(), re.M)
    assert headings[:4] == ["Quick start", "For a compiler pass", "For a researcher", "For CI"]
    kinds = [kind for _, kind, _ in blocks("README.md")]
    assert kinds == ["doctest", "doctest", "command"]


def test_readme_examples_call_what_they_say():
    body = text()
    compiler = re.search(r"## For a compiler pass\n(.*?)\n## ", body, re.S).group(1)
    assert "synthesize_swizzle(" in compiler
    ci = re.search(r"## For CI\n(.*?)\n## ", body, re.S).group(1)
    assert "$ linlayout check" in ci and "$ linlayout conflicts" in ci and "$ echo $?" in ci


def test_readme_command_outputs_are_current(tmp_path, monkeypatch):
    """The CI block, run as the docs runner runs it (the doctests run in tests/test_docs)."""
    monkeypatch.chdir(ROOT)
    (command,) = [body for _, kind, body in blocks("README.md") if kind == "command"]
    assert check_command_block(command) == []


def test_readme_links_lead_somewhere():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text()):
        if "://" not in target:
            assert (ROOT / target).exists(), target
