"""The cross-warp packing probes (``tests/data/triton_reduce_pack_probes.json.gz``, written by
``papers/triton_lowering/reduce_pack_probes.py`` with Triton 3.9): AMD ``gl.reduce``s of
``f16``/``bf16``/``i16``/``i8`` tiles with warps along the axis, so that each thread's partial
results are stored for a cross-warp round. Two ``f16`` float-combine results stored as one
word are one ``v_pack_b32_f16`` (LLVM's AMDGPU instruction selection proves both halves
canonical), no ``v_perm_b32``; integer results are computed bytes
(``linlayout.check.registers.reduce.round_result_kinds``). The reduction's line is compared
with what ``check`` follows there (Triton's lowering where LLVM's SLP vectoriser re-packs the
reduction, else the final assembly); known differences are strict xfails with their reason
(``tests/data/known_mismatches.json``, set ``reduce_pack``)."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/reduce_pack_probes.py")


@pytest.mark.parametrize("case", cases("reduce_pack"))
def test_the_reductions_line_equals_what_check_follows(case):
    e = entries("reduce_pack")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.reference(e)


def test_every_v_pack_b32_f16_of_the_lowering_is_counted():
    """Name and count: check's ``v_pack_b32_f16`` on the reduction's line equal Triton's
    lowering's on every probe, and the draw has them (``f16`` with two or more partial
    results a thread) and probes without (``bf16`` on gfx942, integers, one accumulator)."""
    packed = plain = 0
    for e in entries("reduce_pack").values():
        n = PROBES.observed(e, "lowering").get("v_pack_b32_f16", 0)
        assert PROBES.predicted(e["ttgir"]).get("v_pack_b32_f16", 0) == n
        packed += n > 0
        plain += n == 0
    assert packed >= 10 and plain >= 10


def test_the_f16_words_cost_no_v_perm_b32_in_the_lowering():
    """Where the lowering packs partial results with ``v_pack_b32_f16``, check's
    ``v_perm_b32`` on the line equal the lowering's (the in-thread vectors' joins only)."""
    seen = 0
    for e in entries("reduce_pack").values():
        low = PROBES.observed(e, "lowering")
        if low.get("v_pack_b32_f16"):
            assert PROBES.predicted(e["ttgir"]).get("v_perm_b32", 0) == \
                low.get("v_perm_b32", 0)
            seen += 1
    assert seen >= 10
