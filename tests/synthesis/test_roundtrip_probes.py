"""Layouts ``synthesize_swizzle(..., lowering="triton")`` handed out, compiled back by Triton
3.9.0 (``tests/data/triton_roundtrip_probes.json.gz``, written by
``papers/triton_lowering/roundtrip_probes.py``): the synthesis is reproduced exactly, every
layout compiles, Triton emits exactly the instructions :func:`linlayout.synthesis.lower_sides`
predicts, and the lowered cost is never above Triton's own ``convert_layout`` scratch for the
same pair. Triton is not needed."""

from __future__ import annotations

from collections import Counter

import pytest

import linlayout as ll
from linlayout.check.count import count_side
from linlayout.check.shared_memory import predict_convert
from linlayout.hardware import AMD_CDNA3
from linlayout.hardware.kinds import to_offset_layout
from linlayout.lowering import Target
from linlayout.synthesis import Transfer, lower_sides

from tests.check.shared_memory.asm_counts import lds_bytes, ptx_counts, canonical
from tests.check.shared_memory.triton_fixtures import cases, entries


def _pair(e: dict):
    shape = {"dim0": e["shape"][0], "dim1": e["shape"][1]}
    src = ll.LinearLayout(e["src"], out_dims=shape)
    dst = ll.LinearLayout(e["dst"], out_dims=shape)
    hw = None if e["target"].startswith("cuda") else AMD_CDNA3
    return src, dst, hw


@pytest.mark.parametrize("name", cases("roundtrip"))
def test_tritons_assembly_is_what_the_lowered_synthesis_said(name):
    e = entries("roundtrip")[name]
    assert "error" not in e, e.get("error")
    src, dst, hw = _pair(e)
    r = ll.synthesize_swizzle(src, dst, element_bits=e["bits"], hardware=hw,
                              lowering="triton", target=e["target"])
    assert to_offset_layout(r.layout).bases["offset"] == e["layout"]
    sides = lower_sides(r.layout, Transfer.make(src, dst, element_bits=e["bits"], hardware=hw),
                        Target.parse(e["target"]))
    got: Counter = Counter()
    nbytes = {"load": 0, "store": 0}
    for s in sides:
        got[canonical(s.emitted.opcode)] += s.emitted.per_thread
        nbytes["store" if s.side == "store" else "load"] += s.emitted.bytes_per_thread
    if e["target"].startswith("cuda"):
        assert dict(got) == ptx_counts(e["counts"])
    else:
        assert nbytes == lds_bytes(e["counts"])
    assert [s.report for s in sides] == [r.store, *r.loads]


@pytest.mark.parametrize("name", cases("roundtrip"))
def test_never_costlier_than_tritons_own_convert(name):
    e = entries("roundtrip")[name]
    src, dst, hw = _pair(e)
    target = Target.parse(e["target"])
    r = ll.synthesize_swizzle(src, dst, element_bits=e["bits"], hardware=hw,
                              lowering="triton", target=e["target"])
    p = predict_convert(src, dst, max(8, e["bits"]), target)
    if not p.uses_shared:
        return
    reps = [count_side(s, target.hardware()) for s in p.sides]
    assert all(x is not None for x in reps)
    theirs = (sum(x.wavefronts_per_warp for x in reps), sum(x.instructions_per_warp for x in reps))
    assert (r.wavefronts_per_warp, r.instructions_per_warp) <= theirs


def test_the_probes_cover_targets_kinds_and_widths():
    ps = entries("roundtrip")
    assert len(ps) >= 300
    assert {e["target"] for e in ps.values()} == {"cuda:80", "cuda:90", "hip:gfx942"}
    assert {e["bits"] for e in ps.values()} == {8, 16, 32}
    kinds = Counter(k for n in ps for k in n.split("_")[1:3])
    assert all(kinds[k] >= 10 for k in ("blocked", "linear", "mma", "dot"))
