"""The scalar byte probes (``tests/data/triton_scalar_byte_probes.json.gz`` and its second
draw ``triton_scalar_byte_confirm_probes.json.gz``, written by
``papers/triton_lowering/scalar_byte_probes.py`` with Triton 3.9): ``gl.reduce``s over all 64
lanes of ``i8``/``i16`` tiles on gfx942/gfx950, each result converted and stored. The
``v_perm_b32`` that ``linlayout check --json`` counts on the reduction's line, and the register
instructions it lists on the convert's line, equal the final assembly's (with ``-O3``, what
runs) on the data path: AMDGPU's instruction selection joins the scalar byte totals with
``v_perm_b32``, and after ``-O3`` they run on the reduction's line
(``linlayout/check/registers/scalar_bytes.py``). Known differences are strict xfails with their
reason (``tests/data/known_mismatches.json``, sets ``scalar_byte``, ``scalar_byte_confirm``
and ``scalar_byte_vector``). The third draw (``--vector``, ``i16``/``f16``/``bf16``) tests the
in-thread vector rule of a 16-bit reduction
(``linlayout.check.registers.reduce.in_thread_pack_permutes``)."""

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


@pytest.mark.parametrize("case", cases("scalar_byte_vector"))
def test_the_vector_draw_equals_the_final_assembly(case):
    """The draw made after the in-thread vector rule (``--vector``): 16-bit reductions."""
    e = entries("scalar_byte_vector")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.observed(e)


def test_the_in_thread_vectors_run_as_counted():
    """Where the final assembly keeps Triton's in-thread vectors (``i16`` min/max), the
    reduction's ``v_perm_b32`` equal the final assembly's on every probe of the draws whose
    in-thread step is vectorised, except where -O3 re-packs a later round (dd34a9); on some
    the vectors cost permutes (loaded halves of two registers), on others none (halves of
    one loaded register: Triton keeps the first register basis in place to pack them)."""
    from linlayout.check.registers.reduce import in_thread_vector_pairs
    from linlayout.lowering.target import Target
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    costly = free = 0
    for name in ("scalar_byte", "scalar_byte_vector"):
        for case, e in entries(name).items():
            if "_i16_" not in case or case.split("_")[-3] not in ("max", "min") \
                    or case.endswith("dd34a9_gfx942"):
                continue
            (a,) = [x for x in find_accesses(read_ttgir(e["ttgir"])) if x.op == "reduce"]
            axis = int(a.attrs.split("axis = ")[1].split(":")[0])
            if in_thread_vector_pairs(a.distributed.layout, axis, a.element_type,
                                      a.combiner, a.combine_ops,
                                      Target.parse(e["target"])) is None:
                continue
            fin = PROBES.observed(e)["reduce"]
            assert PROBES.predicted(e["ttgir"])["reduce"] == fin
            costly += bool(fin)
            free += not fin
    assert costly >= 2 and free >= 2


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
