"""``tt.scan`` probes compiled by Triton 3.9.0 (``tests/data/triton_scan_probes.json.gz``,
written by ``papers/triton_lowering/scan_probes.py``): 1-D and 2-D tiles in random blocked
layouts, ``cumsum``/``cumprod``/a two-operand ``associative_scan``, forward and reverse,
i8..i64/f16/f32/f64, ``cuda:80/90/100`` and ``gfx942``/``gfx950``. Set ``"design"`` was
looked at while writing :mod:`linlayout.triton.lowering.scan`; set ``"check"`` was generated
after it and only compared."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from functools import lru_cache

import pytest

from linlayout.triton.lowering.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.support import DATA
from tests.triton.lowering.asm_counts import canonical


@lru_cache(maxsize=1)
def probes() -> dict:
    return json.loads(gzip.decompress((DATA / "triton_scan_probes.json.gz").read_bytes()))


NAMES = sorted(probes()["probes"])


def _ptx(opcode: str) -> str:
    """One spelling per width: NVPTX reads bytes it compares as ``ld.shared.s8``."""
    return canonical(re.sub(r"\.[su](\d+)$", r".b\1", opcode))


def _predicted(name: str) -> tuple[Counter, dict, dict]:
    e = probes()["probes"][name]
    got: Counter = Counter()
    final = {"load": 0, "store": 0}
    triton = {"load": 0, "store": 0}
    for _, p in predict_module(read_ttgir(e["ttgir"], name)):
        assert not isinstance(p, Exception), p
        for s in p.sides:
            got[_ptx(s.emitted.opcode)] += s.emitted.per_thread
            final[s.emitted.side] += s.emitted.bytes_per_thread
            if s.emitted.side == "store":
                triton["store"] += s.emitted.bytes_per_thread
        triton["load"] += sum(x.bytes_per_thread for x in p.extra.get("triton_loads", ()))
    return got, final, triton


@pytest.mark.parametrize("name", NAMES)
def test_tritons_own_instructions_equal_its_llvm_ir(name):
    e = probes()["probes"][name]
    _, _, triton = _predicted(name)
    assert triton == {k: e["preopt"][k] for k in ("load", "store")}


@pytest.mark.parametrize("name", [n for n in NAMES if "cuda" in n])
def test_nvidia_instructions_equal_the_ptx(name):
    """Per width, the loads LLVM leaves (merged into vectors) and the stores."""
    e = probes()["probes"][name]
    got, _, _ = _predicted(name)
    want: Counter = Counter()
    for k, v in e["counts"].items():
        want[_ptx(k)] += v
    assert dict(got) == dict(want)


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
