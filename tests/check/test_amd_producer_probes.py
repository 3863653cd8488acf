"""The AMD producer probes (``tests/data/triton_amd_producer_probes.json.gz``, written by
``papers/triton_lowering/amd_producer_probes.py`` with Triton 3.9, drawn after the rule of
``linlayout.check.registers.produced_values``; and its second draw, ``--confirm``,
``tests/data/triton_amd_producer_confirm_probes.json.gz``, made after the two rules the
first one added; and its third, ``--third``,
``tests/data/triton_amd_producer_third_probes.json.gz``, made after gfx942's ``bf16`` high halves): for each
compiled gfx942/gfx950 scan or partial-warp reduction of ``f16``/``bf16``/``i16``/``i8``
feeding a convert, the register instructions ``linlayout check --json`` lists on the
convert's line equal those of Triton's lowering (the assembly of its LLVM IR with ``-O3``
skipped), both on the data path — or those of the final assembly (with ``-O3``, what runs)
where ``tests/data/llvm_respelling.json`` marks the probe ``{"check": "final"}``: there the
lowering has an instruction only the assembly with ``-O3`` skipped has, and the mark records
the cause and the counts (Triton's IR, the lowering, the final assembly), which the tests
below hold to the fixture (the marks of ``producer_probes.py``'s set too). Known differences
are strict xfails with their reason (``tests/data/known_mismatches.json``, sets
``amd_producer``, ``amd_producer_confirm`` and ``amd_producer_third``)."""

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
PRODUCER_SETS = ("producer", "amd_producer", "amd_producer_confirm", "amd_producer_third")


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
    """Six probes are marked: five each with one ``v_cndmask_b32`` more in the lowering than
    in the final assembly on the convert's line, and one full-wavefront ``i8`` reduction
    whose two ``v_perm_b32`` joining scalar byte totals the final assembly runs on the
    reduction's line (where ``check`` counts them), not the convert's."""
    marks = {(s, c): m for s in PRODUCER_SETS for c, m in RESPELLING.final_marks(s).items()}
    assert len(marks) == 6
    causes = Counter(m["cause"] for m in marks.values())
    assert causes == {"tail_duplicated_select": 5, "scalar_byte_pairs": 1}
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
