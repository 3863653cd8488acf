"""The AMD producer probes (``tests/data/triton_amd_producer_probes.json.gz``, written by
``papers/triton_lowering/amd_producer_probes.py`` with Triton 3.9, drawn after the rule of
``linlayout.check.registers.produced_values``; and its second draw, ``--confirm``,
``tests/data/triton_amd_producer_confirm_probes.json.gz``, made after the two rules the
first one added; its third, ``--third``,
``tests/data/triton_amd_producer_third_probes.json.gz``, made after gfx942's ``bf16`` high
halves; and its fourth, ``--fourth``, ``tests/data/triton_amd_producer_fourth_probes.json.gz``,
weighted to ``bf16`` with add/sub/mul/max/min after gfx950's ``bf16`` add/sub/mul were found
to round as on gfx942): for each
compiled gfx942/gfx950 scan or partial-warp reduction of ``f16``/``bf16``/``i16``/``i8``
feeding a convert, the register instructions ``linlayout check --json`` lists on the
convert's line equal those of Triton's lowering (the assembly of its LLVM IR with ``-O3``
skipped), both on the data path — or those of the final assembly (with ``-O3``, what runs)
where ``tests/data/llvm_respelling.json`` marks the probe ``{"check": "final"}``: there the
lowering has an instruction only the assembly with ``-O3`` skipped has, and the mark records
the cause and the counts (Triton's IR, the lowering, the final assembly), which the tests
below hold to the fixture (the marks of ``producer_probes.py``'s set too). Known differences
are strict xfails with their reason (``tests/data/known_mismatches.json``, sets
``amd_producer``, ``amd_producer_confirm``, ``amd_producer_third`` and ``amd_producer_fourth``)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries, known_mismatches
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/producer_probes.py")
RESPELLING = papers_module("papers/triton_lowering/respelling.py")


def _modelled(ttgir: str) -> bool:
    from linlayout.check.registers import produced_values
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    module = read_ttgir(ttgir)
    accesses = find_accesses(module)
    made = produced_values(accesses, module_target(module))
    return any(a.kind == "convert" and a.operands and a.operands[0] in made for a in accesses)


@pytest.mark.parametrize("case", cases("amd_producer"))
def test_convert_register_instructions_equal_tritons_lowering(case):
    e = entries("amd_producer")[case]
    assert PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        PROBES.observed(e["data"][PROBES.reference("amd_producer", case)])


@pytest.mark.parametrize("case", cases("amd_producer_confirm"))
def test_the_second_draw_equals_tritons_lowering(case):
    e = entries("amd_producer_confirm")[case]
    assert PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        PROBES.observed(e["data"][PROBES.reference("amd_producer_confirm", case)])


@pytest.mark.parametrize("case", cases("amd_producer_third"))
def test_the_third_draw_equals_tritons_lowering(case):
    """Drawn after gfx942's bf16 high halves were modelled (seed 7752)."""
    e = entries("amd_producer_third")[case]
    assert PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        PROBES.observed(e["data"][PROBES.reference("amd_producer_third", case)])


@pytest.mark.parametrize("case", cases("amd_producer_fourth"))
def test_the_fourth_draw_equals_tritons_lowering(case):
    """Drawn after gfx950's bf16 add/sub/mul were modelled as gfx942's (seed 7763), weighted
    to bf16 with every combine on both targets, 1 to 8 warps."""
    e = entries("amd_producer_fourth")[case]
    assert PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        PROBES.observed(e["data"][PROBES.reference("amd_producer_fourth", case)])


def test_the_fourth_draw_covers_bf16_with_every_combine():
    """Every combine of bf16 on gfx950 and gfx942, reductions and scans, 1 to 8 warps."""
    data = entries("amd_producer_fourth")
    bf16 = [n.split("_") for n, e in data.items() if n.split("_")[2] == "bf16"]
    assert {(p[-1], p[6]) for p in bf16} >= {(t, c) for t in ("gfx942", "gfx950")
                                             for c in ("add", "sub", "mul", "max", "min")}
    assert {p[0] for p in bf16} == {"reduce", "scan"}
    assert {p[5] for p in bf16} == {"w1", "w2", "w4", "w8"}


def test_the_fourth_draw_prices_low_halves_under_high_halves():
    """The bf16 pairs check prices as one v_bfi_b32 (a low half under a rounded high half)
    occur in three probes, whose whole assemblies (-O3 skipped) have that many v_bfi_b32
    (``amd_producer_probes.py --bf16-evidence``) and whose convert equals the lowering."""
    draw = papers_module("papers/triton_lowering/amd_producer_probes.py")
    data = entries("amd_producer_fourth")
    pairs = {n: draw.low_under_high_pairs(e["ttgir"]) for n, e in data.items()
             if n.split("_")[2] == "bf16" and n.split("_")[0] == "scan"}
    assert {n: k for n, k in pairs.items() if k} == {
        "scan_b16_bf16_128x16_ax1_w4_min_cda75f_gfx942": 4,
        "scan_b16_bf16_16x64_ax0_w1_max_008890_gfx942": 1,
        "scan_b16_bf16_64x32_ax0_w4_sub_1dfc86_gfx950": 4}


def test_an_sdwa_select_is_one_select():
    """A Swap select that reads a gfx942 bf16 result in its high half in place is spelled
    v_cndmask_b32_sdwa (src1_sel:WORD_1): the probes record it and count it as a select."""
    e = entries("amd_producer_fourth")["reduce_b16_bf16_64x32_ax0_w1_sub_d12876_gfx942"]
    assert e["data"]["lowering"]["26"]["v_cndmask_b32_sdwa"] == 1
    assert PROBES.observed(e["data"]["lowering"]) == \
        PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        {"26": {"ds_bpermute_b32": 1, "v_cndmask_b32": 2}}


def test_the_set_reaches_both_targets_producers_and_types():
    data = entries("amd_producer")
    assert len(data) >= 60
    assert {e["target"] for e in data.values()} == {"gfx942", "gfx950"}
    assert {n.split("_")[0] for n in data} == {"reduce", "scan"}
    assert {n.split("_")[2] for n in data} >= {"fp16", "i16", "i8"}


def test_the_rule_is_exercised_on_both_targets():
    """Scans and reductions whose result registers ``check`` models occur on gfx942 and
    gfx950, most of them equal to the lowering."""
    known = known_mismatches().get("amd_producer", {})
    covered = {n: e for n, e in entries("amd_producer").items() if _modelled(e["ttgir"])}
    assert Counter(e["target"] for e in covered.values()).keys() == {"gfx942", "gfx950"}
    assert len(set(covered) - set(known)) >= len(covered) * 3 // 4


#: the producer sets, whose probes ``llvm_respelling.json`` may mark to compare with the
#: final assembly
PRODUCER_SETS = ("producer", "amd_producer", "amd_producer_confirm", "amd_producer_third",
                  "amd_producer_fourth")


def _marked() -> list:
    return [pytest.param(s, c, id=f"{s}-{c}") for s in PRODUCER_SETS
            for c in sorted(RESPELLING.final_marks(s))]


@pytest.mark.parametrize("fixture_set,case", _marked())
def test_a_mark_is_the_whole_difference_and_needed(fixture_set, case):
    """A marked probe's final assembly differs from its lowering on its convert lines exactly
    as the mark records (those opcodes, on that line, by those counts: nothing else that
    differs is hidden), ``check`` equals Triton's IR's count of each there and differs from
    the lowering (else the mark is not needed), and the probe is no known mismatch."""
    e, mark = entries(fixture_set)[case], RESPELLING.final_marks(fixture_set)[case]
    assert PROBES.unexplained(e, mark) == {}
    predicted = PROBES.predicted(PROBES.check_ops(e["ttgir"]))
    assert predicted != PROBES.observed(e["data"]["lowering"])
    assert {op: predicted[mark["line"]].get(op, 0) for op in mark["counts"]} == \
        {op: c["ir"] for op, c in mark["counts"].items()}
    assert case not in known_mismatches().get(fixture_set, {})


def test_the_marks_are_tail_duplicated_selects_and_scalar_byte_pairs():
    """Seven probes are marked: six each with one ``v_cndmask_b32`` more in the lowering than
    in the final assembly on the convert's line, and one full-wavefront ``i8`` reduction
    whose two ``v_perm_b32`` joining scalar byte totals the final assembly runs on the
    reduction's line (where ``check`` counts them), not the convert's."""
    marks = {(s, c): m for s in PRODUCER_SETS for c, m in RESPELLING.final_marks(s).items()}
    assert len(marks) == 7
    causes = Counter(m["cause"] for m in marks.values())
    assert causes == {"tail_duplicated_select": 6, "scalar_byte_pairs": 1}
    for m in marks.values():
        (op, c), = m["counts"].items()
        if m["cause"] == "tail_duplicated_select":
            assert op == "v_cndmask_b32" and c["lowering"] - c["final"] == 1
        else:
            assert op == "v_perm_b32" and (c["lowering"], c["final"]) == (2, 0)


def test_a_wrong_mark_is_caught():
    """:func:`unexplained` reports a difference the mark does not record, and a recorded one
    the fixture does not have."""
    e = entries("amd_producer")["reduce_b8_i8_32x64_ax0_w2_max_784349_gfx942"]
    mark = RESPELLING.final_marks("amd_producer")["reduce_b8_i8_32x64_ax0_w2_max_784349_gfx942"]
    assert PROBES.unexplained(e, {**mark, "counts": {}}) == {"26 v_cndmask_b32": [3, 2]}
    wrong = {"v_cndmask_b32": {**mark["counts"]["v_cndmask_b32"], "final": 1}}
    assert PROBES.unexplained(e, {**mark, "counts": wrong}) == {"26 v_cndmask_b32": [3, 2]}
    extra = {**mark["counts"], "v_perm_b32": {"ir": 0, "lowering": 2, "final": 0}}
    assert PROBES.unexplained(e, {**mark, "counts": extra}) == {"26 v_perm_b32": [0, 0]}
