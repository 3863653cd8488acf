"""``tt.scan`` probes compiled by Triton 3.9.0 (``tests/data/triton_scan_probes.json.gz``,
written by ``papers/triton_lowering/scan_probes.py``): 1-D and 2-D tiles in random blocked
layouts, ``cumsum``/``cumprod``/a two-operand ``associative_scan``, forward and reverse,
i8..i64/f16/f32/f64, ``cuda:80/90/100`` and ``gfx942``/``gfx950``. Set ``"design"`` was
looked at while writing :mod:`linlayout.check.shared_memory.scan`; set ``"check"`` was generated
after it and only compared. The assembly comparison of every probe (on NVIDIA the loads
LLVM leaves, merged into vectors) is in ``test_triton_fixtures.py``."""

from __future__ import annotations

from collections import Counter

import pytest

from linlayout.check.shared_memory.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.check.shared_memory.triton_fixtures import load


def probes(fixture_set: str = "scan") -> dict:
    return load(fixture_set)


NAMES = sorted(probes()["probes"])


def _tritons_own(name: str, fixture_set: str = "scan") -> dict:
    """Bytes per thread of Triton's own stores and reloads (before LLVM)."""
    e = probes(fixture_set)["probes"][name]
    triton = {"load": 0, "store": 0}
    for _, p in predict_module(read_ttgir(e["ttgir"], name)):
        assert not isinstance(p, Exception), p
        for s in p.sides:
            if s.emitted.side == "store":
                triton["store"] += s.emitted.bytes_per_thread
        triton["load"] += sum(x.bytes_per_thread for x in p.extra.get("triton_loads", ()))
    return triton


@pytest.mark.parametrize("fixture_set,name",
                         [(s, n) for s in ("scan", "scan_fresh", "scan_amd_fresh",
                                           "scan_amd_bytes")
                          for n in sorted(probes(s)["probes"])])
def test_tritons_own_instructions_equal_its_llvm_ir(fixture_set, name):
    """Every set: the probes above, the later held-out draw (``--sets fresh``) and the AMD
    draws across warps (``--sets amd_fresh``, ``--sets amd_bytes``)."""
    e = probes(fixture_set)["probes"][name]
    assert _tritons_own(name, fixture_set) == {k: e["preopt"][k] for k in ("load", "store")}


def test_the_probes_cover_what_the_rule_depends_on():
    ps = probes()["probes"]
    assert probes()["triton_version"].startswith("3.9")
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                   "gfx950"}
    assert {e["set"] for e in ps.values()} == {"design", "check"}
    kinds = Counter(n.split("_")[0] for n in ps)
    assert min(kinds["cumsum"], kinds["cumprod"], kinds["argscan"]) >= 5
    assert {n.split("_")[1] for n in ps} == {"i8", "i16", "i32", "i64", "f16", "f32", "f64"}
    one_d = [n for n in ps if "x" not in n.split("_")[2]]
    assert len(one_d) >= 40 and sum("a0r" in n for n in ps) >= 10
    merged = [n for n, e in ps.items() if any(".v" in k for k in e["counts"])]
    assert len(merged) >= 20
