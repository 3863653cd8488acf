"""``tt.reduce`` and ``tt.scan`` probes compiled by Triton 3.9.0
(``tests/data/triton_reduce_probes.json.gz``, written by
``papers/triton_lowering/reduce_probes.py``): random blocked layouts (2-D and 3-D, warps along
and across the axis, several outputs per thread), one and two operands, 8- to 64-bit elements,
``cuda:90``, ``gfx942`` and ``gfx950``; and 16 ``cvt`` probes converting 8- and 16-bit tiles
between random blocked layouts, generated after the ``getVecBasisLdSt`` rule of
:mod:`linlayout.lowering.scratch` was written. The reduce rule
(:mod:`linlayout.check.shared_memory.reduce`) was written from Triton's source before these
probes existed; set ``"check"`` was generated after the design set had been compared. The
assembly comparison of every probe is in ``test_triton_fixtures.py``; this file compares
Triton's LLVM IR before the optimiser and the scan reloads LLVM leaves."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from linlayout.check.shared_memory.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.check.shared_memory.asm_counts import canonical, lds_bytes
from tests.check.shared_memory.triton_fixtures import load


def probes(fixture_set: str = "reduce") -> dict:
    return load(fixture_set)


def _predicted(name: str, fixture_set: str = "reduce"):
    e = probes(fixture_set)["probes"][name]
    got: Counter = Counter()
    nbytes = {"load": 0, "store": 0}
    preds = []
    for a, p in predict_module(read_ttgir(e["ttgir"], name)):
        assert not isinstance(p, Exception), p
        preds.append((a, p))
        for s in p.sides:
            got[canonical(s.emitted.opcode)] += s.emitted.per_thread
            if s.emitted.side == "store" or "triton_loads" not in p.extra:
                nbytes[s.emitted.side] += s.emitted.bytes_per_thread
        for e2 in p.extra.get("triton_loads", ()):  # a scan: Triton's own loads
            nbytes["load"] += e2.bytes_per_thread
    return got, nbytes, preds


NAMES = sorted(probes()["probes"])
#: both sets: the probes above and the later held-out draw (``reduce_probes.py --fresh``)
CASES = [(s, n) for s in ("reduce", "reduce_fresh") for n in sorted(probes(s)["probes"])]


@pytest.mark.parametrize("fixture_set,name", CASES)
def test_predicted_bytes_equal_tritons_llvm_ir(fixture_set, name):
    """Loads and stores per thread as Triton's lowering emitted them (before LLVM)."""
    e = probes(fixture_set)["probes"][name]
    _, nbytes, _ = _predicted(name, fixture_set)
    assert nbytes == {k: e["preopt"][k] for k in ("load", "store")}


def _elements(counts: dict, side: str, amd: bool, elem_bytes: int) -> int:
    if amd:
        return lds_bytes(counts)[side] // elem_bytes
    n = 0
    for k, v in counts.items():
        if k.startswith("ld" if side == "load" else "st"):
            m = re.search(r"\.v(\d)", k)
            n += v * (int(m.group(1)) if m else 1)
    return n


@pytest.mark.parametrize("fixture_set,name", [c for c in CASES if c[1].startswith("cumsum")])
def test_scan_loads_after_llvm(fixture_set, name):
    """The assembly has Triton's stores, and its loads less the unused ones
    (``loads_after_llvm``; these 2-D probes reload totals of their own positions, so
    nothing is merged)."""
    e = probes(fixture_set)["probes"][name]
    _, nbytes, preds = _predicted(name, fixture_set)
    ((a, p),) = [(a, p) for a, p in preds if a.op == "scan"]
    amd = e["target"].startswith("gfx")
    elem = max(8, a.element_bits) // 8
    if not p.uses_shared:
        assert e["counts"] == {}
        return
    assert _elements(e["counts"], "load", amd, elem) == p.extra["loads_after_llvm"]
    assert _elements(e["counts"], "store", amd, elem) * elem == nbytes["store"]


def test_the_probes_cover_what_the_rule_depends_on():
    ps = probes()["probes"]
    assert len(ps) == 100 and probes()["triton_version"].startswith("3.9")
    assert {e["target"] for e in ps.values()} == {"cuda90", "gfx942", "gfx950"}
    assert {e["set"] for e in ps.values()} == {"design", "check"}
    kinds = Counter(n.split("_")[0] for n in ps)
    assert kinds["argmax"] >= 5 and kinds["cumsum"] >= 5 and kinds["max"] >= 40
    assert kinds["cvt"] == 16
    assert sum(1 for n in ps if "16x16x16" in n) >= 6
    # reduces that go through shared memory, and ones that stay within warps
    through = [n for n, e in ps.items() if n.startswith(("max", "argmax"))
               and e["preopt"]["store"]]
    assert len(through) >= 30 and len(ps) - len(through) >= 10


def test_the_later_draw_covers_every_kind_and_target():
    ps = probes("reduce_fresh")["probes"]
    assert {e["set"] for e in ps.values()} == {"fresh"}
    assert {e["target"] for e in ps.values()} == {"cuda90", "gfx942", "gfx950"}
    assert {n.split("_")[0] for n in ps} == {"max", "argmax", "cumsum", "cvt"}
