"""The suggestion trip (``tests/data/triton_suggestion_trip.json.gz``, written by
``papers/triton_lowering/suggestion_trip.py`` with Triton 3.9): for every kernel of the
fixture sets where ``linlayout check`` suggests a shared layout, the suggestion written back
into the TTGIR and compiled. Without Triton: ``check`` still makes the same promise on the old
TTGIR; the new TTGIR differs from the old only in its shared encodings; ``check`` keeps the
promise on it (each buffer's worst degree, wavefronts and instructions per warp, each op's
``suggestion_instructions``); its compiled shared-memory instructions equal ``check``'s
prediction on it (whole kernel: NVIDIA by width, AMD by LDS bytes per thread) wherever the
old kernel's did; and the kernel's total wavefronts per warp do not grow. The global blocked
layouts ``check`` suggests keep their promised sectors per warp on the rewritten TTGIR.
Known differences are strict xfails with their reason (``tests/data/known_mismatches.json``,
set ``suggestion_trip``)."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries, load
from tests.support import papers_module

TRIP = papers_module("papers/triton_lowering/suggestion_trip.py")

_TRIED = cases("suggestion_trip", lambda n, e: "skipped" not in e)


def test_the_trip_covers_the_fixture_sets():
    probes = entries("suggestion_trip")
    assert len(_TRIED) >= 400
    assert sum("skipped" in e for e in probes.values()) <= 5


@pytest.mark.parametrize("case", _TRIED)
def test_the_suggestion_compiles_and_keeps_its_promise(case):
    e = entries("suggestion_trip")[case]
    assert e["compiles"], e.get("error")
    old, _ = TRIP.texts(e)
    report, _ = TRIP.check_kernel(old)
    assert TRIP.promises(report) == e["promise"]
    v = TRIP.judge(case, e)
    assert v["equivalent"]
    assert v["promise_diffs"] == []
    assert v["new_matches"] or not v["old_matches"], v["new_diffs"]
    assert v["wavefronts"][1] <= v["wavefronts"][0]


def test_global_layout_suggestions_keep_their_sector_count():
    recs = {n: r for n, r in load("suggestion_trip")["global"].items() if "skipped" not in r}
    assert recs
    for name, rec in recs.items():
        v = TRIP.judge_global(rec)
        assert v["promise_kept"], name
        assert rec["compiles"] and v["new_matches"], name
        assert v["sectors_per_warp"][1] < v["sectors_per_warp"][0], name
