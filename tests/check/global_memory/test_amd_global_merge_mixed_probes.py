"""The second fresh AMD draw made after ``check``'s global ``may_merge``, of other families than
the 8-bit converts (``papers/global_memory/amd_merges.py --draw-mixed 90417``; ``tests/data/
triton_amd_global_merge_mixed_probes.json.gz``, set ``amd_global_merge_mixed``): 40 kernels on
gfx942/gfx950 — Gluon loads and stores (some as buffer ops) on random blocked layouts, runs
along ``order[0]`` or the other dim, masks of different constancy, pointers 16-divisible or
not, and ``tl`` random-layout kernels — 8- to 64-bit, with their TTGIR and the final
AMDGCN's global/buffer load and store counts. As drawn, the rule unchanged: 30 kernels where
``check`` names no ``may_merge``, 29 as counted and one outside the counts (a 16-bit
``atomic_cas``'s compare-and-swap loops begin with a ``global_load_dword``, a strict xfail);
10 where it does: 5 as counted (nothing merged), 3 merged, 1 some ops merged, 1 some runs
merged. Of the 5 as counted, 3 held only 16-bit buffer loads and stores with a ``may_merge``;
since the draw, ``check`` names none for a buffer access under 4 bytes (no LLVM pass merges
one: ``predict.MIN_MERGED_BUFFER_BYTES``), so those 3 count without one; and the atomic's row
names the loads its compare-and-swap loops begin with (``GlobalPrediction.loop_load``), so
the 16-bit ``atomic_cas`` kernel is as counted too (a rule made after the draw, on it and
four kernels of the ``heldout_traffic`` set: a fit to those five)."""

from __future__ import annotations

import collections

import pytest

from linlayout.check.global_memory.compare import AGREES
from tests.check.global_memory.merge_draws import outcome
from tests.check.shared_memory.triton_fixtures import cases, entries

SET = "amd_global_merge_mixed"


def _outcome(case: str) -> tuple[bool, str]:
    return outcome(SET, case)


@pytest.mark.parametrize("case", cases(SET))
def test_final_loads_and_stores_are_tritons_or_a_named_merge(case):
    assert _outcome(case)[1] in AGREES


def test_the_draw_as_recorded():
    """The tally the docs quote: as drawn 29 + 1 (differs) without ``may_merge`` and
    5 / 3 / 1 / 1 with one; the 3 kernels of 16-bit buffer ops move from the second group's
    "as counted" to the first's under the buffer rule made after it, and the one that differed
    (a 16-bit ``atomic_cas``) is as counted under the compare-and-swap loop-load rule made
    after it."""
    tally = collections.Counter(_outcome(c) for c in entries(SET))
    assert tally == {(False, "as counted"): 33,
                     (True, "as counted"): 2, (True, "merged"): 3,
                     (True, "some merged"): 1, (True, "between"): 1}


def test_no_buffer_op_merged():
    """LLVM merged none of the draw's buffer loads and stores (12 kernels): each one's final
    counts are Triton's; only the 32-bit one still names a ``may_merge``."""
    seen = named_seen = 0
    for case, e in entries(SET).items():
        if "amdg.buffer" not in e["ttgir"]:
            continue
        named, res = _outcome(case)
        seen += 1
        named_seen += named
        assert res == "as counted"
    assert (seen, named_seen) == (12, 1)
