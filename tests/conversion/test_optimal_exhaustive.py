"""The optimality claim checked exhaustively on a small space: every pair of distributed
layouts of a 32-element tensor over one 32-lane warp with one register bit and the top lane
bit broadcast (5 tensor bits: the register bit any of 5, the four live lane bits any order —
120 destinations), at 8, 16 and 32 bits per element.

For each pair the shuffle family's bound parts are recomputed by brute force — the elements
and the other lanes each lane lacks, the source registers each destination register draws
on, the destination registers a lane lacking the most already holds — enumerated lane by
lane, not from ranks, and must equal the planner's; every plan that can be built (renaming,
per-lane tables under three weightings, Triton's stages, shared memory,
the packed exchange) and Triton's own path must cost at least the best plan and at least its
family's bound; and a plan marked optimal must cost no more than every family's bound, so no
alternative under the cost model is cheaper. Every feasible plan runs on symbolic registers
to the destination. The number proven optimal is pinned: all 120 at every width (at 8 and
16 bits the four single register/lane exchanges meet the bound with the packed exchange:
both elements in one shuffled word, one lane-dependent byte permute). With the source's
elements one to a 32-bit register (``wide_source``: a gather's or reduction's result) every
path that packs pays for it and the bounds count packing as free: still below every plan,
and 93 of the 120 pairs at 16 bits proven (the 27 others pay one ``prmt`` to pack a word, a
cost the bound does not claim), all 120 at 8 bits (bytes pack as before)."""

from __future__ import annotations

import itertools

import pytest

from linlayout import LinearLayout, plan_conversion
from linlayout.conversion import (ConversionProblem, execute_plan, execute_shared,
                                  plan_packed_exchange, plan_shuffles, plan_stages,
                                  select_bound, shuffle_bound, source_lanes, tight_merges)
from linlayout.conversion.cost import path_cost

BITS = 5  # tensor bits: 1 register bit, 4 live lane bits, lane bit 4 broadcast
#: pairs proven optimal, by element width
PROVEN = {8: 120, 16: 120, 32: 120}
#: the same with the source one element to a 32-bit register (``wide_source``)
PROVEN_WIDE = {8: 120, 16: 93}
#: weightings the table planner is also run under (besides the defaults, which
#: ``plan_conversion`` uses), each plan then costed at the defaults
WEIGHTINGS = ({"selp": 0, "prmt": 0}, {"shfl": 8})


def _layout(order: tuple[int, ...]) -> LinearLayout:
    """Register bit ``order[0]``, lane bits ``order[1:]`` then a broadcast lane."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 1 << BITS})


SRC = _layout(tuple(range(BITS)))
PAIRS = list(itertools.permutations(range(BITS)))


def _brute(src: LinearLayout, dst: LinearLayout, element_bits: int) -> dict[str, int]:
    """The bound's parts by enumeration: the least shuffles (32 bits each; data of at most
    2^t lanes after t), the merges (distinct source registers one destination register draws
    on across lanes, less one: no register holds an element twice here, so registers are the
    classes) and, at 32 bits, the destination registers a lane lacking the most holds that
    are no source register renamed, plus one when a lone shuffle must carry different
    registers."""
    lanes = range(32)

    def at(lay, r, lane):
        return lay.apply({"register": r, "lane": lane})["dim0"]

    held = {lane: {at(src, r, lane) for r in range(2)} for lane in lanes}
    where = {}
    for lane in lanes:
        for r in range(2):
            where.setdefault(at(src, r, lane), set()).add((r, lane))
    need = {lane: [at(dst, r, lane) for r in range(2)] for lane in lanes}
    lacked = {lane: set(need[lane]) - held[lane] for lane in lanes}
    n = max(len(x) for x in lacked.values())
    others = max(len({frozenset(held[y]) for e in lacked[lane] for _, y in where[e]})
                 for lane in lanes)
    shfl = max(-(-n * element_bits // 32), others.bit_length())
    merges = max(len({r for lane in lanes for r, _ in where[need[lane][d]]}) - 1
                 for d in range(2))
    tight = 0
    if element_bits == 32 and n:
        worst = [lane for lane in lanes if len(lacked[lane]) == n]
        columns = [[need[lane][d] for lane in lanes] for d in range(2)]
        renamed = [[at(src, r, lane) for lane in lanes] for r in range(2)]
        merged = [c for d, c in enumerate(columns)
                  if any(c[lane] in held[lane] for lane in worst) and c not in renamed]
        tight = len(merged)
        if n == 1:
            lost = [e for lane in worst for e in lacked[lane]]
            common = set.intersection(*({r for r, _ in where[e]} for e in lost))
            local = [c for c in merged if all(c[lane] in held[lane] for lane in lanes)]
            tight += not common and all(any(e not in c for e in lost) for c in local)
    return {"shfl": shfl, "lanes": others, "merges": merges, "tight": tight}


@pytest.mark.parametrize("element_bits, wide", [(8, False), (16, False), (32, False),
                                                (8, True), (16, True)])
def test_no_plan_is_cheaper_than_the_bound_and_the_proven_count_is_pinned(element_bits, wide):
    """``wide``: the source's elements sit one to a 32-bit register (a gather's or
    reduction's result): every path that packs pays for it, the bounds count packing as
    free, so they must still lie below every plan and Triton's path."""
    proven = 0
    for order in PAIRS:
        dst = _layout(order)
        plan = plan_conversion(SRC, dst, element_bits, wide_source=wide)
        pb = plan.problem
        ws = plan.weights
        brute = _brute(SRC, dst, element_bits)
        assert shuffle_bound(pb) == brute["shfl"], order
        assert source_lanes(pb) == brute["lanes"], order
        assert select_bound(pb) == brute["merges"], order
        assert tight_merges(pb) == brute["tight"], order
        # every alternative the model can build, each run to dst, none below its bound
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
        alternatives = [plan_shuffles(pb, w) for w in WEIGHTINGS]
        alternatives.append(plan_stages(pb, "cuda:90", wide_source=wide))
        alternatives.append(plan_packed_exchange(pb, wide_source=wide))
        for alt in alternatives:
            if alt is None or not execute_plan(pb, alt).correct:
                continue
            c = path_cost(dict(alt.instructions), 0, ws)
            assert c >= shuffle.bound - 1e-9, (order, alt.instructions)
            assert alt.instructions["shfl"] >= brute["shfl"], order
            costs.append(c)
        if plan.triton.cost is not None:
            assert plan.triton.cost >= min(p.bound for p in plan.paths
                                           if p.bound is not None) - 1e-9, order
            costs.append(plan.triton.cost)
        assert min(costs) >= plan.best.cost - 1e-9, order
        if plan.optimal:
            # no family's bound lies below the best cost: no plan of any family is cheaper
            proven += 1
            assert all(p.bound >= plan.best.cost - 1e-9 for p in plan.paths
                       if p.bound is not None), order
    assert proven == (PROVEN_WIDE if wide else PROVEN)[element_bits]


def test_the_bound_parts_match_the_hand_derivation():
    """Three kinds of pair (32 bits): a lane permutation (the register bit stays; both
    elements from one lane: 2 shuffles, no merge); a single register/lane exchange (one
    element from the partner lane: 1 shuffle, but then both registers and the shipped word
    are merges, so 1 shfl + 3 selp or 2 shfl + 1 selp, 2.5 either way); any other (two
    elements from two lanes: 2 shuffles and 1 merge, reached by reading the copy in the
    broadcast lane that tells the sender which register to send)."""
    cases = {(0, 2, 1, 3, 4): (2, 0, 0, 2.0), (1, 0, 2, 3, 4): (1, 1, 3, 2.5),
             (1, 2, 0, 3, 4): (2, 1, 0, 2.5)}
    for order, (shfl, merges, tight, cost) in cases.items():
        plan = plan_conversion(SRC, _layout(order), 32)
        pb = plan.problem
        assert (shuffle_bound(pb), select_bound(pb), tight_merges(pb)) == \
            (shfl, merges, tight), order
        shuffle = plan.path("shuffle")
        assert shuffle.bound == shuffle.cost == cost and plan.optimal, order


def test_the_space_is_every_pair():
    assert len(PAIRS) == 120
    assert len({str(_layout(o).bases) for o in PAIRS}) == 120
    assert all(ConversionProblem.make(SRC, _layout(o), 32) for o in PAIRS[:3])
