"""Replays ``tests/data/conversion_triton_shuffles.json.gz`` (``papers/conversion/
triton_shuffles.py``, Triton 3.9 on cuda:90): in-warp converts between random layouts, with
the shuffles, selects and permutes Triton emitted for each. Triton never issues fewer
shuffles than linlayout's bound, linlayout's shuffle plan never issues more than Triton's,
and every plan runs correctly on symbolic registers."""

from __future__ import annotations

import gzip
import json

import pytest

from linlayout import plan_conversion
from linlayout.conversion import execute_plan, select_bound, shuffle_bound
from linlayout.conversion.cost import path_cost

from tests.conversion.support import probe_layout
from tests.support import ROOT

DATA = json.loads(gzip.decompress(
    (ROOT / "tests" / "data" / "conversion_triton_shuffles.json.gz").read_bytes()))
PROBES = DATA["probes"]


def test_the_fixture_holds_shuffle_and_shared_memory_converts():
    assert DATA["triton_version"].startswith("3.9")
    shuffled = [p for p in PROBES.values() if p["triton"]["shfl"]]
    assert len(PROBES) == 16 and 1 <= len(shuffled) < len(PROBES)


@pytest.mark.parametrize("name", sorted(PROBES))
def test_triton_respects_the_bound_and_linlayout_plans_run(name):
    p = PROBES[name]
    plan = plan_conversion(probe_layout(p["src"], p["shape"]),
                           probe_layout(p["dst"], p["shape"]), p["element_bits"])
    shuffle = plan.path("shuffle")
    assert shuffle.feasible  # the probes keep every warp's elements in the warp
    assert execute_plan(plan.problem, shuffle.plan).correct
    triton_shfl = p["triton"]["shfl"]
    if triton_shfl:
        # Triton's shuffles, selects and permutes are one plan of the family: the bound (on
        # shuffles, and on NVIDIA selects and permutes too) is at most its count and cost,
        # and the planner (which holds Triton's construction) is never costlier
        t = p["triton"]
        assert shuffle_bound(plan.problem) <= triton_shfl
        assert select_bound(plan.problem) <= t["selp"] + 7 * t["prmt"]
        triton_cost = path_cost({k: t[k] for k in ("shfl", "selp", "prmt")}, 0,
                                plan.weights)
        assert shuffle.bound <= triton_cost + 1e-9
        assert shuffle.cost <= triton_cost + 1e-9
