"""The padded-view probes (``papers/triton_lowering/padded_view_probes.py``): ``linlayout
check`` on copies through a ``memdesc_subslice`` at an offset or a ``memdesc_index`` stage of
a ``#ttg.padded_shared`` buffer, against what Triton 3.9.0 compiled (no Triton needed).

Each probe records, per side, the bytes per lane of the PTX instructions and whether, at that
width and where the view lies, some vector is misaligned or crosses a padding gap (a
brute-force replay that adds the view's coordinates, independent of
:func:`linlayout.hardware.access.access_fault`), and lane 0's byte addresses, among which
are the PTX's immediate offsets where the offset is constant:

* the vector ``check`` predicts is the one Triton emitted;
* a misaligned vector (or a gap) makes the op ``MISALIGNED`` with a fault at a byte address
  the brute force also finds illegal; otherwise the op is not ``MISALIGNED``.
"""

from __future__ import annotations

import pytest

from linlayout.check import OpStatus, check_module, passes
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import cases, entries


@pytest.mark.parametrize("case", cases("padded_view"))
def test_check_fails_exactly_the_views_whose_vectors_fault(case):
    e = entries("padded_view")[case]
    report = check_module(read_ttgir(e["ttgir"]), suggest=False)
    assert len(report.ops) == 2
    for op in report.ops:
        side = e["sides"][op.access.kind]
        (ins,) = op.instructions
        assert ins.emitted.bytes_per_lane == side["vector_bytes"], op.access.op
        illegal = side["gap"] or side["misaligned"]
        assert (op.status is OpStatus.MISALIGNED) == illegal, (op.access.op, op.note)
        if illegal:
            assert ins.report is None and op.fault is not None
            assert op.fault.byte_address % side["vector_bytes"] != 0 or side["gap"]
    if any(s["gap"] or s["misaligned"] for s in e["sides"].values()):
        assert not passes([report], max_degree=64)  # exit status 1


@pytest.mark.parametrize("case", cases("padded_view"))
def test_the_compiled_view_lies_where_the_replay_puts_it(case):
    e = entries("padded_view")[case]
    if e["view"]["kind"] == "index" and len(e["view"]["stages"]) > 1:
        pytest.skip("a dynamic index: the PTX address is computed at run time")
    for side in e["sides"].values():
        assert set(side["ptx_immediates"]) <= set(side["lane0_bytes"])
        assert len(side["ptx_immediates"]) * 2 >= len(side["lane0_bytes"])


def test_some_views_fault_only_where_they_lie():
    only = [n for n, e in entries("padded_view").items()
            if any((s["misaligned"] or s["gap"]) and not s["faults_at_origin"]
                   for s in e["sides"].values())]
    assert len(only) >= 3


def test_the_probes_cover_both_verdicts_for_both_views():
    seen = set()
    for e in entries("padded_view").values():
        dynamic = e["view"]["kind"] == "index" and len(e["view"]["stages"]) > 1
        for s in e["sides"].values():
            seen.add((e["view"]["kind"], dynamic, s["misaligned"]))
    assert seen == {("subslice", False, False), ("subslice", False, True),
                    ("index", False, False), ("index", False, True),
                    ("index", True, False), ("index", True, True)}
