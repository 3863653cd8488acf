"""The padded-buffer probes (``papers/triton_lowering/padded_fault_probes.py``): what
``linlayout check`` says of each ``local_alloc``/``local_load`` of a ``#ttg.padded_shared``
buffer, against what Triton 3.9.0 compiled (no Triton needed).

Each probe records, per side, the bytes per lane of the instructions in Triton's assembly and
whether, at that width, some vector is misaligned or crosses a padding gap (a brute-force
replay of the layouts, independent of :func:`linlayout.hardware.access.access_fault`):

* the vector ``check`` predicts is the one Triton emitted;
* NVIDIA: a misaligned vector (or a gap) makes the op ``MISALIGNED``, with a fault at that
  width; an aligned one is counted;
* AMD: LDS runs unaligned under ROCm, so only a gap would make it ``MISALIGNED``; an aligned
  vector is counted, a misaligned one is legal and not ``MISALIGNED``.
"""

from __future__ import annotations

import pytest

from linlayout.check import OpStatus, check_module, passes
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import cases, entries


@pytest.mark.parametrize("case", cases("padded_fault"))
def test_check_fails_exactly_the_probes_whose_vectors_fault(case):
    e = entries("padded_fault")[case]
    report = check_module(read_ttgir(e["ttgir"]), suggest=False)
    nvidia = e["target"].startswith("cuda")
    for op in report.ops:
        side = e["sides"][op.access.kind]
        (ins,) = op.instructions  # Triton's vector (a half of a ds_read2*/ds_write2*)
        assert ins.emitted.vector_elems * max(8, ins.emitted.element_bits) // 8 \
            == side["vector_bytes"], op.access.op
        illegal = side["gap"] or (nvidia and side["misaligned"])
        assert (op.status is OpStatus.MISALIGNED) == illegal, (op.access.op, op.note)
        if illegal:
            assert ins.report is None and op.fault is not None
            nbytes = side["vector_bytes"]
            assert op.fault.byte_address % nbytes != 0 or side["gap"]
        elif not side["misaligned"]:
            assert op.status is OpStatus.COUNTED and ins.report is not None
    want_ok = not any(s["gap"] or (nvidia and s["misaligned"]) for s in e["sides"].values())
    assert passes([report], max_degree=64) == want_ok


def test_the_probes_cover_both_verdicts_on_every_target():
    seen = set()
    for e in entries("padded_fault").values():
        for s in e["sides"].values():
            seen.add((e["target"], s["misaligned"]))
    assert seen == {(t, m) for t in ("cuda80", "cuda90", "gfx942") for m in (False, True)}
