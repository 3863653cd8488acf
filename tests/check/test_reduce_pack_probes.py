"""The cross-warp packing probes (``tests/data/triton_reduce_pack_probes.json.gz``, written by
``papers/triton_lowering/reduce_pack_probes.py`` with Triton 3.9): AMD ``gl.reduce``s of
``f16``/``bf16``/``i16``/``i8`` tiles with warps along the axis, so that each thread's partial
results are stored for a cross-warp round. Two ``f16`` float-combine results stored as one
word are one ``v_pack_b32_f16`` (LLVM's AMDGPU instruction selection proves both halves
canonical), no ``v_perm_b32``; integer results are computed bytes
(``linlayout.check.registers.reduce.round_result_kinds``). The reduction's line is compared
with what ``check`` follows there (Triton's lowering where LLVM's SLP vectoriser re-packs the
reduction, else the final assembly); known differences are strict xfails with their reason
(``tests/data/known_mismatches.json``, sets ``reduce_pack`` and ``reduce_pack_confirm``).

``reduce_pack_confirm`` (``tests/data/triton_reduce_pack_confirm_probes.json.gz``,
``reduce_pack_probes.py --confirm``) is an ``i16``-only draw held out from the condition of
:func:`linlayout.check.registers.reduce.slp_repacked` for ``i16`` min/max."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/reduce_pack_probes.py")


SETS = ("reduce_pack", "reduce_pack_confirm")


def _all_cases() -> list:
    return [pytest.param(s, p.values[0], marks=p.marks, id=f"{s}-{p.id}")
            for s in SETS for p in cases(s)]


@pytest.mark.parametrize("fixture_set, case", _all_cases())
def test_the_reductions_line_equals_what_check_follows(fixture_set, case):
    e = entries(fixture_set)[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.reference(e)


def test_the_confirm_draw_is_i16_only_and_reproduces_its_scores():
    """The held-out draw as committed: 40 ``i16`` reductions on gfx942 and gfx950, each
    combine drawn, and ``slp_repacked`` naming some of them (scored against the lowering)
    and not others (scored against the final assembly)."""
    es = entries("reduce_pack_confirm")
    assert len(es) == 40 and all("_i16_" in n for n in es)
    assert {e["target"] for e in es.values()} == {"gfx942", "gfx950"}
    assert {n.split("_")[-3] for n in es} == {"add", "max", "min", "mul"}
    slp = sum(PROBES.slp_domain(e["ttgir"]) for e in es.values())
    assert 5 <= slp <= 35


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
