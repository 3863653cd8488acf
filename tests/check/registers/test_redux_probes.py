"""Replays ``tests/data/triton_redux_probes.json.gz`` (``papers/triton_lowering/
redux_probes.py``, Triton 3.9 on cuda:80/90/100): one-operand reductions over integer and f32
tiles whose lanes along the axis, groups off it and broadcast lanes vary. ``check``'s reduce
row has exactly the ``redux.sync`` and ``shfl.sync`` instructions of each kernel's PTX."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from linlayout.check.shared_memory.ops import module_target, predict_access
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.shared_memory.triton_fixtures import cases, entries

LANE_OPS = re.compile(r"^(redux\.sync|shfl\.sync)")


def _predicted(ttgir: str) -> dict:
    module = read_ttgir(ttgir)
    target = module_target(module)
    out: Counter = Counter()
    for a in find_accesses(module):
        for e in predict_access(a, target).registers:
            if LANE_OPS.match(e.opcode):
                out[e.opcode] += e.per_thread
    return dict(out)


@pytest.mark.parametrize("case", cases("redux"))
def test_reduce_rows_have_tritons_redux_and_shuffles(case):
    e = entries("redux")[case]
    seen = {k: v for k, v in e["counts"].items() if LANE_OPS.match(k)}
    assert _predicted(e["ttgir"]) == seen


def test_the_probes_hold_both_lowerings():
    data = entries("redux").values()
    assert any(any(k.startswith("redux") for k in e["counts"]) for e in data)
    assert any(any(k.startswith("shfl") for k in e["counts"]) for e in data)
