"""The fresh AMD draw made after ``check``'s global ``may_merge``
(``papers/global_memory/amd_merges.py --draw 90313``; ``tests/data/
triton_amd_global_merge_probes.json.gz``, set ``amd_global_merge``): 40 8-bit Gluon converts
on gfx942/gfx950 with their TTGIR and the final AMDGCN's global loads and stores. As drawn:
5 kernels where ``check`` names no ``may_merge``, all as counted; 35 where it does, 32 with
every run merged and 3 with some runs merged (between the two counts); none outside."""

from __future__ import annotations

import collections

import pytest

from linlayout.check.global_memory.compare import AGREES
from tests.check.global_memory.merge_draws import outcome
from tests.check.shared_memory.triton_fixtures import cases, entries

SET = "amd_global_merge"


def _outcome(case: str) -> tuple[bool, str]:
    return outcome(SET, case)


@pytest.mark.parametrize("case", cases(SET))
def test_final_loads_and_stores_are_tritons_or_a_named_merge(case):
    assert _outcome(case)[1] in AGREES


def test_the_draw_as_recorded():
    """The tally the docs quote: no kernel without ``may_merge`` merged anything, and among
    those with one, every run merged on 32 and some on 3."""
    tally = collections.Counter(_outcome(c) for c in entries(SET))
    assert tally == {(False, "as counted"): 5, (True, "merged"): 32, (True, "between"): 3}
