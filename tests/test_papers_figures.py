"""papers/figures: every picture make_figures.py draws is committed and shown in the docs."""

from __future__ import annotations

import re

from tests.support import ROOT

FIGURES = ROOT / "papers" / "figures"


def test_every_drawn_picture_is_committed_and_shown():
    drawn = set(re.findall(r'"([\w-]+\.png)"', (FIGURES / "make_figures.py")
                           .read_text(encoding="utf-8")))
    committed = {p.name for p in FIGURES.glob("*.png")}
    shown = set()
    for page in (ROOT / "docs").glob("*.md"):
        shown |= set(re.findall(r"\(\.\./papers/figures/([\w.-]+\.png)\)",
                                page.read_text(encoding="utf-8")))
    assert drawn and drawn == committed == shown
