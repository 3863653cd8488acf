"""Stage plans (Triton's select–shuffle–select construction, run-time ``prmt`` byte
selection, gfx950 permlane swaps) in the shuffle family: every plan runs on symbolic
registers, a plan the executor refutes is never chosen, and the planner is never costlier
than Triton's own path."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.conversion import (ConversionProblem, StagePlan, execute_plan, execute_shared,
                                  plan_stages)
from linlayout.conversion.cost import path_cost
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA

from tests.conversion.support import probe_layout
from tests.conversion.test_triton_shuffles import PROBES


def _lay(regs, lanes, out_bits, warps=()):
    bases = {"register": [[c] for c in regs], "lane": [[c] for c in lanes]}
    if warps:
        bases["warp"] = [[c] for c in warps]
    return LinearLayout(bases, {"dim0": 1 << out_bits})


# a 64-lane wavefront: register bit 1 <-> lane bit 5 (the upper half of the wavefront)
WAVE_SRC = _lay([1, 2], [4, 8, 16, 32, 64, 128], 8)
WAVE_DST = _lay([1, 128], [4, 8, 16, 32, 64, 2], 8)


@pytest.mark.parametrize("element_bits,swaps,perms", [(16, 1, 2), (32, 2, 0)])
def test_gfx950_transposition_is_planned_as_permlane_swaps(element_bits, swaps, perms):
    plan = plan_conversion(WAVE_SRC, WAVE_DST, element_bits, hardware=AMD_CDNA4,
                           target="hip:gfx950")
    shuffle = plan.path("shuffle")
    assert plan.best is shuffle and shuffle.method == "stages"
    assert isinstance(shuffle.plan, StagePlan) and shuffle.plan.permlane
    # 16-bit elements, one per register at the start, are packed in pairs first (v_perm_b32,
    # as LLVM does for Triton's insertelement/bitcast) — the same on Triton's own path
    want = {"v_permlane32_swap_b32": swaps} | ({"v_perm_b32": perms} if perms else {})
    assert shuffle.plan.opcodes == want
    assert execute_plan(plan.problem, shuffle.plan).correct
    assert shuffle.cost == plan.triton.cost
    # one word per lane per swap: the shuffle bound is met where nothing is packed
    assert (shuffle.cost == shuffle.bound == swaps) == (perms == 0) == plan.optimal
    assert plan.to_dict()["paths"][1]["plan"]["permlane"] is True


def test_gfx942_has_no_permlane_swap():
    plan = plan_conversion(WAVE_SRC, WAVE_DST, 32, hardware=AMD_CDNA3, target="hip:gfx942")
    stages = plan_stages(plan.problem, "hip:gfx942")
    assert not stages.permlane and "ds_bpermute_b32" in stages.opcodes
    assert plan.saving == 0  # Triton's own construction, or a plan as cheap


def test_packed_bytes_are_chosen_by_permutes_at_the_cost_of_tritons():
    # Triton shuffles this 8-bit pair with prmt byte selection (2 shfl, 4 selp, 16 prmt in
    # the PTX; two of the selects only pick prmt selectors, cost kind selector, weight 0);
    # the stage plan is that construction, at Triton's cost (11); the packed exchange
    # (16-bit halves, whole words shuffled) is cheaper still: 8 shfl, 4 prmt and 2 selector
    # selects (10)
    p = PROBES["p08_b8_32x32_w4"]
    plan = plan_conversion(probe_layout(p["src"], p["shape"]),
                           probe_layout(p["dst"], p["shape"]), 8)
    stages = plan_stages(plan.problem, "cuda:90")
    assert stages.instructions["prmt"] > 0 and execute_plan(plan.problem, stages).correct
    assert path_cost(stages.instructions, 0, plan.weights) == plan.triton.cost == 11
    shuffle = plan.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == 10
    assert shuffle.instructions["selector"] == 2
    assert execute_plan(plan.problem, shuffle.plan).correct
    assert plan.triton.path == "shuffle" and plan.saving == 1


def test_two_transpositions_of_packed_elements_reach_dst():
    # two transpositions of 16-bit elements: the low (byte) register bit the selectors fold
    # in is no longer renamed again before packing, so the stages reach dst and the shuffle
    # family keeps the cheaper of stages and tables
    p = PROBES["p05_b16_32x32_w4"]
    plan = plan_conversion(probe_layout(p["src"], p["shape"]),
                           probe_layout(p["dst"], p["shape"]), 16)
    stages = plan_stages(plan.problem, "cuda:90")
    assert stages is not None and stages.transpositions == 2
    assert execute_plan(plan.problem, stages).correct
    shuffle = plan.path("shuffle")
    assert execute_plan(plan.problem, shuffle.plan).correct
    assert shuffle.method in ("stages", "tables")


def test_no_stage_plan_across_warps_or_for_general_bases():
    across = ConversionProblem.make(_lay([1], [2], 3, [4]), _lay([1], [4], 3, [2]), 32)
    assert plan_stages(across, "cuda:90") is None
    # a lane basis that is not a unit vector: Triton's factorisation does not apply
    skew = ConversionProblem.make(_lay([1], [2, 4], 3), _lay([2], [1 ^ 4, 4], 3), 32)
    assert plan_stages(skew, "cuda:90") is None
    with pytest.raises(LayoutError):
        plan_stages(skew, "no-such-target")


def _random_pair(rng: random.Random, regs: int, lanes: int, warps: int):
    n = regs + lanes + warps
    perm = list(range(n))
    rng.shuffle(perm)
    src = _lay([1 << i for i in range(regs)], [1 << (regs + i) for i in range(lanes)], n,
               [1 << (regs + lanes + i) for i in range(warps)])
    inner = list(range(regs + lanes))
    rng.shuffle(inner)
    dst = _lay([1 << p for p in inner[:regs]], [1 << p for p in inner[regs:]], n,
               [1 << (regs + lanes + i) for i in range(warps)])
    if rng.random() < 0.5:  # sometimes data crosses warps too
        dst = _lay([1 << p for p in perm[:regs]], [1 << p for p in perm[regs:regs + lanes]], n,
                   [1 << p for p in perm[regs + lanes:]])
    return src, dst


@pytest.mark.parametrize("target,hardware,lanes", [
    ("cuda:80", NVIDIA, 5), ("cuda:90", NVIDIA, 5), ("hip:gfx942", AMD_CDNA3, 6),
    ("hip:gfx950", AMD_CDNA4, 6)])
def test_the_plan_is_never_costlier_than_triton(target, hardware, lanes):
    """Random register/lane/warp permutations, 8- to 64-bit: the cheapest plan costs at most
    Triton's path wherever Triton's is costed, and every path's plan runs correctly."""
    rng = random.Random(target)
    for _ in range(6):
        src, dst = _random_pair(rng, 3, lanes, 1)
        bits = rng.choice([8, 16, 32, 64])
        plan = plan_conversion(src, dst, bits, hardware=hardware, target=target)
        if plan.saving is not None:
            assert plan.saving >= -1e-9, (target, bits)
        for path in plan.paths:
            if not path.feasible:
                continue
            if path.path == "shared_memory":
                assert execute_shared(plan.problem, path.plan.layout).correct
            else:
                assert execute_plan(plan.problem, path.plan).correct
