"""``check``'s global instructions equal Triton 3.9's on every compiled probe
(``papers/global_memory/probes.py``; ``tests/data/triton_global_probes.json.gz``): the static
count of each ``ld.global``/``st.global``/``cp.async``/atomic opcode of the PTX, and on AMD of
each global load/store of Triton's LLVM IR before LLVM's optimiser."""

from __future__ import annotations

import collections
import gzip
import json

import pytest

from linlayout.check import check_module
from linlayout.triton import read_ttgir
from tests.support import DATA

PROBES = json.loads(gzip.decompress((DATA / "triton_global_probes.json.gz").read_bytes()))


def _predicted(ttgir: str) -> dict:
    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        assert g.prediction is not None, g.note
        out[g.prediction.opcode] += g.prediction.per_thread
    return dict(sorted(out.items()))


@pytest.mark.parametrize("name", sorted(PROBES["probes"]))
def test_global_instructions_equal_the_compiled_kernel(name):
    p = PROBES["probes"][name]
    assert _predicted(p["ttgir"]) == p["counts"]


def test_both_sets_are_there():
    sets = collections.Counter(p["set"] for p in PROBES["probes"].values())
    assert sets["design"] > 100 and sets["check"] > 100
