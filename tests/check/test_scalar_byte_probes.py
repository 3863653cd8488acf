"""The scalar byte probes (``tests/data/triton_scalar_byte_probes.json.gz`` and its second
draw ``triton_scalar_byte_confirm_probes.json.gz``, written by
``papers/triton_lowering/scalar_byte_probes.py`` with Triton 3.9): ``gl.reduce``s over all 64
lanes of ``i8``/``i16`` tiles on gfx942/gfx950, each result converted and stored. The
``v_perm_b32`` that ``linlayout check --json`` counts on the reduction's line, and the register
instructions it lists on the convert's line, equal the final assembly's (with ``-O3``, what
runs) on the data path: AMDGPU's instruction selection joins the scalar byte totals with
``v_perm_b32``, and after ``-O3`` they run on the reduction's line
(``linlayout/check/registers/scalar_bytes.py``). Known differences are strict xfails with their
reason (``tests/data/known_mismatches.json``, sets ``scalar_byte`` and
``scalar_byte_confirm``)."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/scalar_byte_probes.py")


@pytest.mark.parametrize("case", cases("scalar_byte"))
def test_the_permutes_run_where_check_counts_them(case):
    e = entries("scalar_byte")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.observed(e)


@pytest.mark.parametrize("case", cases("scalar_byte_confirm"))
def test_the_second_draw_equals_the_final_assembly(case):
    e = entries("scalar_byte_confirm")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.observed(e)


def test_the_lowering_has_them_on_the_converts_line():
    """Triton's lowering (-O3 skipped) spends as many, on the convert's line: -O3 moves them,
    it adds none."""
    moved = 0
    for name, e in entries("scalar_byte").items():
        if not name.startswith("reduce_b8_"):
            continue
        fin, low = PROBES.observed(e), PROBES.observed(e, "lowering")
        n = fin["reduce"].get("v_perm_b32", 0)
        if n and not low["reduce"]:
            assert low["convert"].get("v_perm_b32", 0) == n
            moved += 1
    assert moved >= 8
