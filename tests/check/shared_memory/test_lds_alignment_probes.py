"""The LDS alignment probes (``papers/triton_lowering/lds_alignment_probes.py``): on AMD
(gfx942, gfx950), a ``#ttg.padded_shared`` buffer whose padding misaligns the vector Triton
picks still gets that vector's full-width ``ds_*`` instruction — Triton 3.9.0 writes the
vector's own size as its LLVM ``align`` (it claims natural alignment), so the AMDGPU backend
never splits it by alignment — and ``linlayout check`` predicts exactly that instruction.
No Triton needed.

* every LDS access of Triton's LLVM IR has ``align`` equal to its size (16 and above capped
  at 16): nothing tells LLVM the address may be misaligned;
* the vector ``check`` predicts is the IR's, and the bytes per thread equal the AMDGCN's;
* misaligned vectors (ROCm runs the LDS in unaligned mode: legal) are ``not counted`` and
  never ``MISALIGNED``; aligned ones are counted.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from linlayout.check import OpStatus, check_module, complete, passes
from linlayout.triton import read_ttgir
from tests.check.shared_memory.asm_counts import lds_bytes
from tests.check.shared_memory.triton_fixtures import cases, entries

IR = re.compile(r"(load|store) (?:<(\d+) x (\w+)>|(\w+)) align (\d+)")
BYTES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8}


def _ir_vector(access: str) -> tuple[int, int]:
    """(bytes, align) of one recorded IR access, ``"load <4 x float> align 16"``."""
    m = IR.fullmatch(access)
    assert m, access
    return int(m.group(2) or 1) * BYTES[m.group(3) or m.group(4)], int(m.group(5))


@pytest.mark.parametrize("case", cases("lds_alignment"))
def test_triton_claims_natural_alignment_and_check_predicts_the_full_width(case):
    e = entries("lds_alignment")[case]
    report = check_module(read_ttgir(e["ttgir"]), suggest=False)
    got = {"load": 0, "store": 0}
    for op in report.ops:
        side = e["sides"][op.access.kind]
        widths = {_ir_vector(a) for a in side["ir"]}
        assert all(align == nbytes for nbytes, align in widths), side["ir"]
        (ins,) = op.instructions  # Triton's vector (a half of a ds_read2*/ds_write2*)
        assert ins.emitted.vector_elems * max(8, ins.emitted.element_bits) // 8 \
            == side["vector_bytes"], op.access.op
        got[op.access.kind] += ins.emitted.bytes_per_thread
        assert not side["gap"]
        if side["misaligned"]:
            assert op.status is OpStatus.NOT_COUNTED and ins.not_counted, op.note
        else:
            assert op.status is OpStatus.COUNTED and ins.report is not None
    assert got == lds_bytes(e["counts"])
    misaligned = any(s["misaligned"] for s in e["sides"].values())
    assert passes([report], max_degree=64)
    assert complete([report]) == (not misaligned)
    assert passes([report], max_degree=64, strict=True) == (not misaligned)


def test_the_probes_misalign_every_vector_width_on_both_targets():
    seen: Counter = Counter()
    for e in entries("lds_alignment").values():
        for s in e["sides"].values():
            seen[(e["target"], s["misaligned"])] += 1
            if s["misaligned"]:
                seen[("misaligned bytes", s["vector_bytes"])] += 1
    assert all(seen[(t, m)] >= 10 for t in ("gfx942", "gfx950") for m in (False, True))
    assert all(seen[("misaligned bytes", b)] >= 3 for b in (4, 8, 16))
