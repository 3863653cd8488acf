"""linlayout.show.coalescing: the verdict, its text and its JSON."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.show.coalescing import COALESCING_HEADER, coalescing_verdict

LANES = LinearLayout.identity_1d(32, "lane", "dim0")


def test_verdict_text_and_dict():
    v = coalescing_verdict(LANES, (2,), element_bits=32)
    assert not v.ok and v.report.efficiency == 0.5
    text = v.to_text()
    assert text.splitlines()[0].startswith(COALESCING_HEADER[0])
    assert text.splitlines()[-1] == "FAIL: efficiency 0.5 < --min-efficiency 1.0"
    d = v.to_dict()
    assert d["ok"] is False and d["min_efficiency"] == 1.0 and d["efficiency"] == 0.5
    assert coalescing_verdict(LANES, (2,), element_bits=32, min_efficiency=0.5).ok


@pytest.mark.parametrize("bad", [0, -1, 1.5, float("nan"), True, "1"])
def test_min_efficiency_is_checked(bad):
    with pytest.raises(LayoutError, match="min_efficiency"):
        coalescing_verdict(LANES, (1,), element_bits=32, min_efficiency=bad)
