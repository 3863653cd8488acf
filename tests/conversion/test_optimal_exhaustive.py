"""The optimality claim checked exhaustively on a small space: every pair of distributed
layouts of a 32-element tensor over one 32-lane warp with one register bit and the top lane
bit broadcast (5 tensor bits: the register bit any of 5, the four live lane bits any order —
120 destinations), at 8 and 32 bits per element.

For each pair the shuffle family's bounds are recomputed by brute force — the elements each
lane lacks and the source registers each destination register draws on, enumerated lane by
lane, not from ranks — and must equal the planner's; every plan the planner can build
(renaming, per-lane tables, Triton's stages, shared memory) and Triton's own path must cost
at least the best plan and at least their family's bound; and a plan marked optimal must
cost no more than every family's bound, so no alternative under the cost model is cheaper.
Every feasible plan runs on symbolic registers to the destination."""

from __future__ import annotations

import itertools

import pytest

from linlayout import LinearLayout, plan_conversion
from linlayout.conversion import (ConversionProblem, execute_plan, execute_shared,
                                  plan_shuffles, plan_stages, select_bound, shuffle_bound)
from linlayout.conversion.cost import path_cost
from linlayout.conversion.shuffle import merge_positions

BITS = 5  # tensor bits: 1 register bit, 4 live lane bits, lane bit 4 broadcast


def _layout(order: tuple[int, ...]) -> LinearLayout:
    """Register bit ``order[0]``, lane bits ``order[1:]`` then a broadcast lane."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 1 << BITS})


SRC = _layout(tuple(range(BITS)))
PAIRS = list(itertools.permutations(range(BITS)))


def _brute_bounds(src: LinearLayout, dst: LinearLayout, element_bits: int) -> tuple[int, int]:
    """(shuffles, merges) by enumeration: the most elements a lane needs and lacks, and the
    most distinct source registers one destination register draws on across lanes, less
    one (no source register holds an element twice here, so registers are the classes)."""
    lanes = range(32)
    held = {lane: {src.apply({"register": r, "lane": lane})["dim0"] for r in range(2)}
            for lane in lanes}
    where = {}
    for lane in lanes:
        for r in range(2):
            where.setdefault(src.apply({"register": r, "lane": lane})["dim0"], set()).add(r)
    lacking = max(len({dst.apply({"register": r, "lane": lane})["dim0"] for r in range(2)}
                      - held[lane]) for lane in lanes)
    merges = 0
    for r in range(2):
        regs = set()
        for lane in lanes:
            regs |= where[dst.apply({"register": r, "lane": lane})["dim0"]]
        merges = max(merges, len(regs) - 1)
    return -(-lacking * element_bits // 32), merges


@pytest.mark.parametrize("element_bits", [8, 32])
def test_no_plan_is_cheaper_than_one_marked_optimal(element_bits):
    claimed = 0
    for order in PAIRS:
        dst = _layout(order)
        plan = plan_conversion(SRC, dst, element_bits)
        pb = plan.problem
        ws = plan.weights
        shfl, merges = _brute_bounds(SRC, dst, element_bits)
        assert shuffle_bound(pb) == shfl, order
        assert select_bound(pb) == merges, order
        d = merge_positions(element_bits)
        # every alternative the model can build, each run to dst
        costs = []
        for path in plan.paths:
            if not path.feasible:
                continue
            if path.path == "shared_memory":
                assert execute_shared(pb, path.plan.layout).correct, order
            else:
                assert execute_plan(pb, path.plan).correct, order
            assert path.bound is None or path.bound <= path.cost + 1e-9, order
            costs.append(path.cost)
        shuffle = plan.path("shuffle")
        for alt in (plan_shuffles(pb, ws), plan_stages(pb, "cuda:90")):
            if alt is None or not execute_plan(pb, alt).correct:
                continue
            c = path_cost(dict(alt.instructions), 0, ws)
            assert c >= shuffle.bound - 1e-9, order
            assert alt.instructions["shfl"] >= shfl, order
            assert alt.instructions["selp"] + (d - 1) * alt.instructions["prmt"] >= merges
            costs.append(c)
        if plan.triton.cost is not None:
            costs.append(plan.triton.cost)
        assert min(costs) >= plan.best.cost - 1e-9, order
        if plan.optimal:
            # no family's bound lies below the best cost: no plan of any family is cheaper
            claimed += 1
            assert all(p.bound >= plan.best.cost - 1e-9 for p in plan.paths
                       if p.bound is not None), order
    assert claimed > 0


def test_the_space_is_every_pair():
    assert len(PAIRS) == 120
    assert len({str(_layout(o).bases) for o in PAIRS}) == 120
    assert all(ConversionProblem.make(SRC, _layout(o), 32) for o in PAIRS[:3])
