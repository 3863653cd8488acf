"""``check``'s global atomics equal Triton 3.9's on every compiled probe
(``papers/global_memory/atomic_probes.py``; ``tests/data/triton_atomic_probes.json.gz``): the
exact opcode — PTX ``atom``/``red`` with scope, order, operation and vector or packed type on
cuda:80/90/100, the AMDGCN mnemonic on gfx942/gfx950 — and its static count per thread."""

from __future__ import annotations

import collections
import gzip
import json

import pytest

from linlayout.check import check_module
from linlayout.triton import read_ttgir
from tests.support import DATA

PROBES = json.loads(gzip.decompress((DATA / "triton_atomic_probes.json.gz").read_bytes()))
FAMILIES = ("global_atomic", "buffer_atomic", "atom.global", "red.global")


def _predicted(ttgir: str) -> tuple[dict, bool]:
    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        assert g.prediction is not None, g.note
        if g.prediction.side == "atomic":
            for opcode, n in g.prediction.instructions():
                out[opcode] += n
    return dict(sorted(out.items())), not any(k in FAMILIES for k in out)


@pytest.mark.parametrize("name", sorted(PROBES["probes"]))
def test_atomic_opcodes_equal_the_compiled_kernel(name):
    p = PROBES["probes"][name]
    got, exact = _predicted(p["ttgir"])
    assert exact and got == p["counts"]


def test_the_probes_cover_targets_vectors_packing_and_cas_loops():
    probes = PROBES["probes"].values()
    assert {p["target"] for p in probes} == {"cuda80", "cuda90", "cuda100", "gfx942", "gfx950"}
    opcodes = {k for p in probes for k in p["counts"]}
    assert any(".v4." in k or ".v2." in k for k in opcodes)  # sm_90+ vector fadd
    assert any(k.endswith("f16x2") for k in opcodes)  # packed f16 below sm_90
    assert "atom.relaxed.gpu.global.cas.b32" in opcodes  # bf16 add below sm_90
    assert any(k.startswith("red.") for k in opcodes)
    assert "global_atomic_cmpswap" in opcodes and "global_atomic_add_f32" in opcodes
