"""The optimality claim checked exhaustively on small spaces: every pair of distributed
layouts of a 32-element tensor over one 32-lane warp with one register bit and the top lane
bit broadcast (5 tensor bits: the register bit any of 5, the four live lane bits any order —
120 destinations), at 8, 16 and 32 bits, on cuda:90, gfx942 and gfx950; and every pair of a
16-element tensor on a 64-lane AMD wavefront (one register bit, lane bits 3, 4 and 5 live in
any order, lane bits 0–2 broadcast: 24 destinations) on gfx942 and gfx950.

For each pair the shuffle family's bound parts are recomputed by brute force — the elements
and the other lanes each lane lacks, the source registers each destination register draws
on, the destination registers a lane lacking the most already holds — enumerated lane by
lane, not from ranks, and must equal the planner's; every plan that can be built (renaming,
per-lane tables under three weightings, Triton's stages, shared memory,
the packed exchange) and Triton's own path must cost at least the best plan and at least its
family's bound; and a plan marked optimal must cost no more than every family's bound, so no
alternative under the cost model is cheaper. Every feasible plan runs on symbolic registers
to the destination. The number proven optimal is pinned (:data:`PROVEN`,
:data:`PROVEN_WAVE`). On NVIDIA all 120 at every width (at 8 and 16 bits the four single
register/lane exchanges meet the bound with the packed exchange: both elements in one
shuffled word, one lane-dependent byte permute). On AMD the packed exchange costs 2 on the
16-bit single register/lane exchanges (a ``v_perm_b32`` packs a lane's two registers): the
lone-shuffle bound (one shuffle needs a join before it and a lane-dependent instruction
after it, else two shuffles); at 8 bits it costs 1.5, the bound: after Triton's ``-O3`` the
two zero-extended bytes join with one ``v_lshl_or_b32``, which no cost kind counts (as for
Triton's own packing), no ``v_perm_b32``. On gfx950's wavefront 12 pairs whose lanes need
data across lane bit 4 or 5 cost 2.5 (two shuffles and a select) where the swap bound alone
is 2 (a permlane swap standing for a shuffle and two merges at once); the two-shuffle
lemma (:func:`~linlayout.conversion.bounds.two_shuffles_without_merge`: no read or swap
followed by a read or swap reaches these destinations without a merge) raises the bound to
2.5 at 32 bits, and at 16 bits with the elements one to a register, where a join that packs
a pair costs a ``v_perm_b32`` too (:func:`~linlayout.conversion.bounds.
amd_two_shuffle_bound`): all 24 proven. At 8 bits the lemma is not claimed (two
zero-extended bytes join for nothing in the model): the packed exchange starts with a swap
(:class:`~linlayout.conversion.RegisterSwap`), joins the two swapped bytes and reads that
word once, 2 on 8 of the 12, the bound; the 4 whose destination register bit is the source's
lane bit 3, which no swap before the read crosses, take one read of the two joined bytes
then one swap (a read-then-swap plan, :attr:`~linlayout.conversion.PackedExchangePlan.
swaps_after`), 2, the bound: all 24 proven.

With the source's elements one to a 32-bit register (``wide_source``: a gather's or
reduction's result) every path that packs pays for it, and the bounds count what such
registers' joins cost as instruction selection spends them
(``papers/conversion/wide_join_isel.py``): still below every plan and Triton's path, on
every target; the proven counts are pinned (:data:`PROVEN_WIDE`, :data:`PROVEN_WAVE_WIDE`).
On NVIDIA at 16 bits 27 of the 120 pairs pay one ``prmt`` to join two wide registers into
the shipped word, and :func:`~linlayout.conversion.nvidia_lone_shuffle_bound` counts it (no
spelling of the join costs NVPTX less than one instruction, the fewest a ``prmt``): all 120
proven (93 while the bound counted the join as free); bytes pack as before. On AMD at 16
bits the counts equal those of the default producer: a pair of wide registers packs with
the same ``v_perm_b32``, and the lone-shuffle bound holds alike. At 8 bits two computed
bytes joined as Triton spells the pair cost one ``v_perm_b32``, which the lone- and
two-shuffle bounds count with ``wide_source`` (on gfx950 also where a swap could bring
lacked data but no single swap serves every lane): all 120 (24 of the wavefront's 24)
proven, 93 (16 and 6) while the bounds counted the join as free."""

from __future__ import annotations

import itertools

import pytest

from linlayout import LinearLayout, plan_conversion
from linlayout.conversion import (ConversionProblem, execute_plan, execute_shared,
                                  merge_volume, plan_packed_exchange, plan_shuffles, plan_stages,
                                  select_bound, shuffle_bound, source_lanes, tight_merges)
from linlayout.conversion.cost import path_cost
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA

BITS = 5  # tensor bits: 1 register bit, 4 live lane bits, lane bit 4 broadcast
#: pairs proven optimal, by target and element width
PROVEN = {("cuda:90", 8): 120, ("cuda:90", 16): 120, ("cuda:90", 32): 120,
          ("hip:gfx942", 8): 120, ("hip:gfx942", 16): 120, ("hip:gfx942", 32): 120,
          ("hip:gfx950", 8): 120, ("hip:gfx950", 16): 120, ("hip:gfx950", 32): 120}
#: the 64-lane wavefront space (4 tensor bits: 1 register bit, lane bits 3, 4, 5 live, lane
#: bits 0–2 broadcast): pairs proven optimal by target and element width
PROVEN_WAVE = {("hip:gfx942", 8): 24, ("hip:gfx942", 16): 24, ("hip:gfx942", 32): 24,
               ("hip:gfx950", 8): 24, ("hip:gfx950", 16): 24, ("hip:gfx950", 32): 24}
#: the same with the source one element to a 32-bit register (``wide_source``)
PROVEN_WIDE = {("cuda:90", 8): 120, ("cuda:90", 16): 120,
               ("hip:gfx942", 8): 120, ("hip:gfx942", 16): 120,
               ("hip:gfx950", 8): 120, ("hip:gfx950", 16): 120}
#: the wavefront space with a wide source
PROVEN_WAVE_WIDE = {("hip:gfx942", 8): 24, ("hip:gfx942", 16): 24,
                    ("hip:gfx950", 8): 24, ("hip:gfx950", 16): 24}
#: weightings the table planner is also run under (besides the defaults, which
#: ``plan_conversion`` uses), each plan then costed at the defaults
WEIGHTINGS = ({"selp": 0, "prmt": 0}, {"shfl": 8})
HARDWARE = {"cuda:90": NVIDIA, "hip:gfx942": AMD_CDNA3, "hip:gfx950": AMD_CDNA4}


def _layout(order: tuple[int, ...]) -> LinearLayout:
    """Register bit ``order[0]``, lane bits ``order[1:]`` then a broadcast lane."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 1 << BITS})


def _wave_layout(order: tuple[int, ...]) -> LinearLayout:
    """A 64-lane wavefront: register bit ``order[0]``, three broadcast lanes, then lane bits
    3, 4, 5 on tensor bits ``order[1:]`` (DPP ``row_ror:8``, ``v_permlane16_swap``,
    ``v_permlane32_swap`` reach exactly these)."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[0]] * 3 + [[1 << b] for b in order[1:]]},
                        {"dim0": 1 << (len(order))})


SRC = _layout(tuple(range(BITS)))
PAIRS = list(itertools.permutations(range(BITS)))
WAVE_PAIRS = list(itertools.permutations(range(4)))


def _brute(src: LinearLayout, dst: LinearLayout, element_bits: int) -> dict[str, int]:
    """The bound's parts by enumeration: the least shuffles (32 bits each; data of at most
    2^t lanes after t), the merges (distinct source registers one destination register draws
    on across lanes, less one: no register holds an element twice here, so registers are the
    classes) and, at 32 bits, the destination registers a lane lacking the most holds that
    are no source register renamed, plus one when a lone shuffle must carry different
    registers."""
    lanes = range(1 << src.in_bits("lane"))

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
    # merge volume: the distinct elements of the destination registers no source register
    # serves in every lane, in merge outputs of 32 bits (or one 64-bit element) per lane
    images = [{at(src, r, lane) for lane in lanes} for r in range(2)]
    mixed = set()
    for d in range(2):
        column = {need[lane][d] for lane in lanes}
        if not any(column <= image for image in images):
            mixed |= column
    per_merge = len(lanes) * max(32, element_bits)
    volume = -(-len(mixed) * element_bits // per_merge)
    return {"shfl": shfl, "lanes": others, "merges": merges, "tight": tight, "volume": volume}


def _proven(layout, pairs, target: str, element_bits: int, wide: bool = False) -> int:
    """Plan every pair of the space on ``target``; check the bound's parts, every buildable
    plan run to ``dst`` and none below its family's bound; return how many are proven.
    ``wide``: the source's elements sit one to a 32-bit register (a gather's or reduction's
    result): every path that packs pays for it, the bounds count packing as free (NVIDIA) or
    at such registers' price (AMD), so they must still lie below every plan and Triton's
    path."""
    src = layout(pairs[0])
    proven = 0
    for order in pairs:
        dst = layout(order)
        plan = plan_conversion(src, dst, element_bits, hardware=HARDWARE[target],
                               target=target, wide_source=wide)
        pb = plan.problem
        ws = plan.weights
        brute = _brute(src, dst, element_bits)
        assert shuffle_bound(pb) == brute["shfl"], order
        assert source_lanes(pb) == brute["lanes"], order
        assert select_bound(pb) == brute["merges"], order
        assert tight_merges(pb) == brute["tight"], order
        assert merge_volume(pb) == brute["volume"], order
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
        alternatives.append(plan_stages(pb, target, wide_source=wide))
        alternatives.append(plan_packed_exchange(pb, target, wide_source=wide))
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
    return proven


@pytest.mark.parametrize("target,element_bits", sorted(PROVEN))
def test_no_plan_is_cheaper_than_the_bound_and_the_proven_count_is_pinned(target,
                                                                          element_bits):
    assert _proven(_layout, PAIRS, target, element_bits) == PROVEN[target, element_bits]


@pytest.mark.parametrize("target,element_bits", sorted(PROVEN_WAVE))
def test_the_same_on_a_64_lane_wavefront(target, element_bits):
    assert _proven(_wave_layout, WAVE_PAIRS, target, element_bits) == \
        PROVEN_WAVE[target, element_bits]


@pytest.mark.parametrize("target,element_bits", sorted(PROVEN_WIDE))
def test_the_same_with_a_wide_source(target, element_bits):
    assert _proven(_layout, PAIRS, target, element_bits, wide=True) == \
        PROVEN_WIDE[target, element_bits]


@pytest.mark.parametrize("target,element_bits", sorted(PROVEN_WAVE_WIDE))
def test_the_same_on_a_64_lane_wavefront_with_a_wide_source(target, element_bits):
    assert _proven(_wave_layout, WAVE_PAIRS, target, element_bits, wide=True) == \
        PROVEN_WAVE_WIDE[target, element_bits]


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
