"""linlayout.check.count: each predicted instruction counted exactly, or not at all."""

from __future__ import annotations

from linlayout.hardware import NVIDIA
from linlayout.check.count import count_side, try_count
from linlayout.check.shared_memory import Side
from linlayout.lowering import Emitted


def test_named_and_unmodelled_instructions_are_not_counted():
    named = Side(Emitted("none", "wgmma.mma_async", None, None, 0, 0, ""))
    assert count_side(named, NVIDIA) is None
    tr = Side(Emitted("load", "ds_read_b64_tr_b16", 8, 4, 16, 8, ""))
    assert try_count(tr, NVIDIA) == (None, "")
