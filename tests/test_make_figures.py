"""docs/make_figures.py draws every figure the docs show, and the docs show what it draws."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.support import ROOT

pytest.importorskip("matplotlib")


def _script():
    spec = importlib.util.spec_from_file_location("make_figures", ROOT / "docs" / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_is_drawn_committed_and_shown(tmp_path, capsys):
    script = _script()
    written = script.main(["--out", str(tmp_path)])
    names = sorted(p.name for p in written)
    assert names == sorted(script.figures())
    for p in written:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", p
        assert (ROOT / "docs" / "figures" / p.name).is_file(), f"commit docs/figures/{p.name}"
    shown = set()
    for page in (ROOT / "docs").glob("*.md"):
        shown |= set(re.findall(r"\(figures/([\w.-]+\.png)\)", page.read_text(encoding="utf-8")))
    assert shown == set(names)
