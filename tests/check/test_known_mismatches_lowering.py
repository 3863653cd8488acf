"""The known mismatches (``tests/data/known_mismatches.json``) against Triton's lowering (the
assembly LLVM's back end selects from Triton's LLVM IR with ``-O3`` skipped), as
``papers/triton_lowering/mismatch_vs_lowering.py`` compares them, without Triton: the
lowering of the sets whose fixture has none is ``tests/data/known_mismatches_lowering.json``
(written by that script's ``--compile``). Each known mismatch differs from the final assembly
(its strict xfail); here every one not in :data:`GAPS` is pinned as LLVM's doing (``check``
equals Triton's lowering, ``-O3`` makes the difference), and :data:`GAPS` lists exactly those
where ``check`` differs from the lowering too, so a new one shows up."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from tests.check.shared_memory.triton_fixtures import entries, known_mismatches
from tests.support import ROOT, papers_module

MVL = papers_module("papers/triton_lowering/mismatch_vs_lowering.py")

#: ``(set, case)`` where ``check`` differs from Triton's lowering (papers/triton_lowering/
#: README.md, "Known mismatches against Triton's lowering", gives the cause of each)
#: (none left: the two llvm_merge ones, where the lowering merges nothing and check models
#: -O3's LoadStoreVectorizer, left the known mismatches when the alignment of a deep X was
#: modelled)
GAPS: set[tuple[str, str]] = set()


def test_the_producers_selects_are_triton_s_ir_s():
    """The three producer mismatches: against the lowering their convert line's
    ``v_cndmask_b32`` are Triton's LLVM IR's selects (recorded by ``--compile-ir``), which
    ``check`` equals; the lowering's assembly has 1 or 3 more (tail-duplicated copies)."""
    want = {("amd_producer_third", "reduce_b16_bf16_64x64_ax0_w4_add_b81a65_gfx942"): (4, 5),
            ("amd_producer_third", "reduce_b8_i8_128x16_ax0_w1_max_9bafc7_gfx942"): (2, 3),
            ("amd_producer_fourth", "reduce_b16_bf16_32x32_ax1_w1_mul_7a9cd5_gfx950"): (8, 11)}
    for key, (ir, asm) in want.items():
        r = _rows()[key]
        assert r["check"]["26"]["v_cndmask_b32"] == r["lowering"]["26"]["v_cndmask_b32"] == ir
        assert r["asm"] == {"26": {"v_cndmask_b32": asm}}
        assert r["verdict"] == MVL.LLVM_ONLY


def test_ir_selects_replace_only_the_selects():
    low = {"26": {"ds_bpermute_b32": 2, "v_cndmask_b32": 3}, "27": {"v_perm_b32": 1}}
    got, asm = MVL._ir_selects(low, {"26": {"v_cndmask_b32": 2}})
    assert got == {"26": {"ds_bpermute_b32": 2, "v_cndmask_b32": 2}, "27": {"v_perm_b32": 1}}
    assert asm == {"26": {"v_cndmask_b32": 3}}
    got, asm = MVL._ir_selects(low, {"26": {"v_cndmask_b32": 0}})
    assert got["26"] == {"ds_bpermute_b32": 2} and asm == {"26": {"v_cndmask_b32": 3}}
    assert MVL._ir_selects(low, {"26": {"v_cndmask_b32": 3}}) == (low, {})


def test_the_slp_re_packed_reductions_equal_the_lowering():
    """The three ``scalar_byte_vector`` reductions whose lowering joins halves of Triton's own
    16-bit loads (``linlayout.check.registers.reduce.lowered_load``): ``check`` equals the
    lowering's ``v_perm_b32`` on the reduction's line; the final assembly (SLP's) differs."""
    want = {"reduce_b16_fp16_8x2048_ax1_w4_l64_min_293db7_gfx942": (32, 24),
            "reduce_b16_fp16_8x2048_ax1_w4_l64_mul_1e43c2_gfx942": (32, 24),
            "reduce_b16_i16_8x128_ax1_w2_l32_mul_a79c6c_gfx950": (4, 6)}
    for case, (low, fin) in want.items():
        r = _rows()[("scalar_byte_vector", case)]
        assert r["check"]["reduce"] == r["lowering"]["reduce"] == {"v_perm_b32": low}
        assert r["final"]["reduce"] == {"v_perm_b32": fin}
        assert r["verdict"] == MVL.LLVM_ONLY


@lru_cache(maxsize=1)
def _rows() -> dict:
    return {(r["set"], r["case"]): r for r in MVL.rows()}


def _known() -> list:
    return sorted((s, c) for s, cases in known_mismatches().items() for c in cases
                  if s not in MVL.GLOBAL_ROWS + MVL.OTHER_ROWS)


def test_every_known_mismatch_has_triton_s_lowering():
    """In its fixture (``"data"`` -> ``"lowering"``) or in the file ``--compile`` writes,
    whose recompiled final assembly reproduces the fixture's."""
    assert len(_known()) >= 19
    assert all(r["lowering"] is not None for r in _rows().values())
    lowered = json.loads((ROOT / "tests/data/known_mismatches_lowering.json").read_text("utf-8"))
    assert lowered["triton_version"].startswith("3.9")
    for s in MVL.COMPILED:
        for case, rec in lowered.get(s, {}).items():
            counts = entries(s)[case]["counts"]
            if s in MVL.MERGE_SETS:
                counts = {k: v for k, v in counts.items() if k.startswith(("ld.", "st."))}
            assert rec["final"]["counts"] == counts, case


@pytest.mark.parametrize("fixture_set,case",
                         [k for k in _known() if k not in GAPS], ids="/".join)
def test_check_equals_tritons_lowering_where_only_llvm_differs(fixture_set, case):
    """``check`` equals Triton's lowering; only the final assembly (``-O3``) differs."""
    r = _rows()[(fixture_set, case)]
    if fixture_set in MVL.SCALAR:  # the scalar joins: check on the reduction's line (-O3's)
        assert MVL._sum_lines(r["check"]) == MVL._sum_lines(r["lowering"])
    else:
        assert r["check"] == r["lowering"]
    assert r["check"] != r["final"]


def test_the_gaps_against_the_lowering_are_exactly_these():
    assert {k for k, r in _rows().items() if r["verdict"] == MVL.GAP} == GAPS & set(_rows())
    assert GAPS <= set(_known())


def test_the_readme_table_is_the_scripts():
    text = (ROOT / "papers/triton_lowering/README.md").read_text(encoding="utf-8")
    assert MVL.table(list(_rows().values())) in text
