"""Gluon source ``to_gluon(..., target=...)`` writes, compiled for that target by Triton 3.9.0
(``tests/data/gluon_target_exports.json``, written by
``papers/cute_gluon/gluon_target_exports.py``): linlayout still writes the same source, every
export compiled, and none names an encoding its target rejects. Triton is not needed."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from linlayout import LinearLayout
from linlayout.triton import to_gluon

from tests.support import DATA


@lru_cache(maxsize=1)
def exports() -> list[dict]:
    return json.loads((DATA / "gluon_target_exports.json").read_text())["exports"]


@pytest.mark.parametrize("i", range(len(exports())))
def test_each_export_compiled_for_its_target_and_is_still_written_so(i):
    e = exports()[i]
    assert e["compiled"], e.get("error")
    layout = LinearLayout.from_dict(e["layout"])
    assert to_gluon(layout, 16, target=e["target"], operand=e["operand"]) == e["source"]
    if e["target"] != "cuda:90":
        assert "version=[3, 0]" not in e["source"]


def test_the_exports_cover_targets_and_encodings():
    es = exports()
    assert {e["target"] for e in es} == {"cuda:80", "cuda:90", "hip:gfx942"}
    sources = " ".join(e["source"] for e in es)
    for cls in ("NVMMADistributedLayout(version=[2, 0]", "NVMMADistributedLayout(version=[3, 0]",
                "DotOperandLayout", "BlockedLayout", "DistributedLinearLayout"):
        assert cls in sources, cls
