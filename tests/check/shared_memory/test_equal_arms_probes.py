"""Held-out probes for LLVM's fold of an integer argmin's tie-break on equal values
(``tests/data/triton_equal_arms_probes.json.gz``, written by
``papers/triton_lowering/equal_arms_probes.py`` after ``fold_equal_arms`` in
``linlayout/triton/combine.py`` was written). Each probe is compared with the assembly by
``test_triton_fixtures.py``; this file checks that the set holds the cases the rule decides —
AMD reductions across warps keeping only an integer value, whose combine has the tie-break —
and the controls it must leave alone (floats, ``!=`` instead of ``==``, a value that reads
the index), and that without the fold the deciding cases would not match."""

from __future__ import annotations


import pytest

from linlayout.triton import ttgir
from linlayout.triton.combine import combine_dependencies
from tests.check.shared_memory.asm_counts import lds_bytes, predicted_counts
from tests.check.shared_memory.triton_fixtures import entries, known_mismatches


#: A float tie-break read as an integer one.
FLOAT_AS_INT = (("arith.cmpf oeq,", "arith.cmpi eq,"), ("arith.cmpf olt,", "arith.cmpi slt,"),
                ("arith.cmpf ogt,", "arith.cmpi sgt,"), ("f32", "i32"))


def _deciding() -> list[str]:
    return sorted(n for n, e in entries("equal_arms").items()
                  if e["target"].startswith("gfx") and n.startswith(("lt_eq_k0_i", "eq_gt_k0_i"))
                  and lds_bytes(e["counts"])["load"] > 0)


def test_the_probes_hold_deciding_cases_and_controls():
    ps = entries("equal_arms")
    assert len(ps) >= 200 and not known_mismatches().get("equal_arms")
    assert len(_deciding()) >= 40
    for control in ("lt_eq_k0_f", "eq_gt_k0_f", "ne_ctrl_k0_i", "add_ctrl_k0_i"):
        assert any(n.startswith(control) and e["target"].startswith("gfx")
                   for n, e in ps.items()), control


def test_without_the_fold_the_deciding_cases_keep_a_reload_llvm_drops(monkeypatch):
    monkeypatch.setattr(ttgir, "combine_dependencies",
                        lambda region, n, fold_equal_arms=False: combine_dependencies(region, n))
    differ = 0
    for name in _deciding():
        e = entries("equal_arms")[name]
        _, totals = predicted_counts(e["ttgir"], name)
        differ += totals["load"] > lds_bytes(e["counts"])["load"]
    assert differ >= 40


@pytest.mark.parametrize("name", ["lt_eq_k0_i64_64x64_a1_s11_t8.8_w24_o10_gfx950"])
def test_a_deciding_case_matches_with_the_fold(name):
    e = entries("equal_arms")[name]
    assert predicted_counts(e["ttgir"], name)[1] == lds_bytes(e["counts"])


def test_a_fold_ignoring_the_type_or_the_predicate_would_break_the_twins():
    """The float and ``!=`` twins of the deciding kernels (same layouts) match as they are;
    read with their tie-break taken for an integer ``==`` (what a fold ignoring the element
    type or the predicate would do), their predictions drop a reload the assembly keeps."""
    ps = entries("equal_arms")
    twins = [n for n in ps if ps[n]["target"].startswith("gfx")
             and n.startswith(("ne_ctrl_k0_i", "lt_eq_k0_f32", "eq_gt_k0_f32"))]
    assert len(twins) >= 80
    for name in twins:
        assert predicted_counts(ps[name]["ttgir"], name)[1] == lds_bytes(ps[name]["counts"])
    for name in twins:
        e = ps[name]
        text = e["ttgir"].replace("arith.cmpi ne,", "arith.cmpi eq,")
        for a, b in FLOAT_AS_INT:
            text = text.replace(a, b)
        assert predicted_counts(text, name)[1]["load"] < lds_bytes(e["counts"])["load"], name
