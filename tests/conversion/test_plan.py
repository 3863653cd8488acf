"""``plan_conversion``: every family costed, the cheapest chosen, the optimality claim, and
every plan run on symbolic registers."""

from __future__ import annotations

import math

import pytest

import linlayout
from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.conversion import DEFAULT_WEIGHTS, PATHS, execute_plan, execute_shared
from linlayout.triton import blocked, nvidia_mma


def _lay(enc, shape):
    return enc.to_linear_layout(shape)


ROW = blocked([1, 4], [8, 4], [4, 1], [1, 0])
MMA = nvidia_mma(2, [4, 1], [16, 8])


def _executed(plan):
    """Run every feasible path of ``plan``; return the plan."""
    pb = plan.problem
    for path in plan.paths:
        if not path.feasible:
            continue
        if path.path == "shared_memory":
            assert execute_shared(pb, path.plan.layout).correct
        else:
            assert execute_plan(pb, path.plan).correct
    return plan


def test_public_names():
    assert linlayout.plan_conversion is plan_conversion
    assert "plan_conversion" in linlayout.__all__ and "ConversionPlan" in linlayout.__all__


@pytest.mark.parametrize("element_bits", [8, 16, 32, 64])
def test_same_layout_is_a_free_register_renaming(element_bits):
    lay = _lay(ROW, [32, 32])
    plan = _executed(plan_conversion(lay, lay, element_bits))
    assert plan.best.path == "registers" and plan.best.cost == 0 and plan.optimal
    assert [p.path for p in plan.paths] == list(PATHS)


def test_register_order_only_is_renamed():
    src = _lay(blocked([2, 2], [8, 4], [4, 1], [1, 0]), [64, 32])
    bases = src.bases
    bases["register"] = bases["register"][::-1]  # same threads, registers in another order
    dst = LinearLayout(bases, src.out_dims)
    plan = _executed(plan_conversion(src, dst, 16))
    assert plan.path("registers").feasible and plan.best.path == "registers"
    assert plan.path("registers").plan.source_register[1] == 8


def test_across_warps_only_shared_memory_applies():
    plan = _executed(plan_conversion(_lay(MMA, [64, 64]), _lay(ROW, [64, 64]), 16))
    assert not plan.path("registers").feasible and not plan.path("shuffle").feasible
    assert plan.path("shuffle").bound is None
    best = plan.best
    assert best.path == "shared_memory" and best.barriers == 1
    assert best.scratch_bytes == 64 * 64 * 2
    assert best.wavefronts == best.plan.store.wavefronts_per_warp + best.plan.load.wavefronts_per_warp
    assert best.instructions["st.shared"] == best.plan.store.instructions_per_warp
    assert plan.optimal == best.meets_bound


def test_a_lane_permutation_is_two_shuffles_and_provably_optimal():
    src = _lay(blocked([1, 1], [8, 4], [1, 1], [1, 0]), [8, 4])
    dst = _lay(blocked([1, 1], [4, 8], [1, 1], [0, 1]), [8, 4])
    plan = _executed(plan_conversion(src, dst, 32))
    shfl = plan.path("shuffle")
    assert plan.best is shfl and shfl.instructions["shfl"] == 2 and shfl.meets_bound
    assert plan.optimal and "no family's bound is lower" in plan.argument


def test_weights_change_the_choice():
    src = _lay(blocked([1, 1], [8, 4], [1, 1], [1, 0]), [8, 4])
    dst = _lay(blocked([1, 1], [4, 8], [1, 1], [0, 1]), [8, 4])
    plan = _executed(plan_conversion(src, dst, 32, weights={"shfl": 100}))
    assert plan.best.path == "shared_memory" and plan.weights["shfl"] == 100
    # shared memory meets its own bound, and the shuffle family's (2 shfl at 100) is above it
    assert plan.path("shuffle").bound == 200 and plan.best.meets_bound and plan.optimal


def test_in_warp_transpose_has_both_paths_and_states_the_gap():
    src = _lay(blocked([1, 4], [8, 4], [4, 1], [1, 0]), [32, 32])
    dst = _lay(blocked([4, 1], [2, 16], [4, 1], [0, 1]), [32, 32])
    plan = _executed(plan_conversion(src, dst, 32))
    shfl = plan.path("shuffle")
    # 8 shfl; some dst register draws on 4 classes of src registers (12 byte joins: two
    # lane-dependent prmt), and the 8 mixed dst registers hold 256 distinct elements, which
    # fill at least 8 merge outputs of 32 lanes (the merge volume lemma): 8 + 8 · 0.5
    assert shfl.feasible and shfl.instructions["shfl"] == 8 and shfl.bound == 8 + 8 * 0.5
    assert "merge volume" in shfl.bound_note
    assert shfl.instructions["selp"] == 32 and shfl.plan.selects == "swaps"
    assert plan.best.cost == min(p.cost for p in plan.paths if p.feasible) == 24
    assert not plan.optimal and "shuffle's bound is 12" in plan.argument


def test_the_largest_weights_keep_costs_finite():
    from linlayout.conversion.cost import MAX_WEIGHT

    src, dst = _lay(ROW, [32, 32]), _lay(MMA, [32, 32])
    plan = plan_conversion(src, dst, 16, weights=dict.fromkeys(DEFAULT_WEIGHTS, MAX_WEIGHT))
    assert all(math.isfinite(p.cost) for p in plan.paths if p.feasible)
    assert plan_conversion(src, dst, 16, weights={"bar.sync": -0.0}).weights["bar.sync"] == 0


def test_to_dict_lists_every_path():
    lay = _lay(ROW, [32, 32])
    d = plan_conversion(lay, lay, 16).to_dict()
    assert d["best"] == "registers" and [p["path"] for p in d["paths"]] == list(PATHS)
    assert set(d["paths"][2]["instructions"]) >= {"shfl", "st.shared", "bar.sync"}


@pytest.mark.parametrize("kwargs,match", [
    ({"element_bits": 12}, "element_bits"),
    ({"element_bits": 16, "weights": {"shuffle": 1}}, "unknown weight"),
    ({"element_bits": 16, "weights": {"shfl": -1}}, "MAX_WEIGHT"),
    ({"element_bits": 16, "weights": [1]}, "mapping"),
    # an int too large for a float raised OverflowError; one near the float maximum made
    # every cost inf, so every path tied and "provably optimal" meant nothing
    ({"element_bits": 16, "weights": {"shfl": 10 ** 400}}, "MAX_WEIGHT"),
    ({"element_bits": 16, "weights": {"wavefront": 1e308}}, "MAX_WEIGHT"),
    ({"element_bits": 16, "weights": {"bar.sync": float("nan")}}, "MAX_WEIGHT"),
])
def test_bad_arguments(kwargs, match):
    lay = _lay(ROW, [32, 32])
    with pytest.raises(LayoutError, match=match):
        plan_conversion(lay, lay, **kwargs)


def test_bad_layout_pairs():
    a = _lay(ROW, [32, 32])
    with pytest.raises(LayoutError, match="same tensor"):
        plan_conversion(a, _lay(ROW, [64, 32]), 16)
    with pytest.raises(LayoutError, match="keeps the number"):
        plan_conversion(a, _lay(blocked([1, 4], [8, 4], [2, 1], [1, 0]), [32, 32]), 16)
    memory = LinearLayout({"offset": [[1], [2]]}, {"dim0": 4})
    with pytest.raises(LayoutError, match="distributed"):
        plan_conversion(memory, memory, 16)
    partial = LinearLayout({"register": [[1]], "lane": [[0]]}, {"dim0": 4})
    with pytest.raises(LayoutError, match="surjective"):
        plan_conversion(partial, partial, 16)
    with pytest.raises(LayoutError, match="LinearLayout"):
        plan_conversion("x", a, 16)


def test_across_ctas_is_refused():
    a = LinearLayout({"register": [[1]], "lane": [[2], [4]], "block": [[8]]}, {"dim0": 16})
    b = LinearLayout({"register": [[2]], "lane": [[8], [4]], "block": [[1]]}, {"dim0": 16})
    with pytest.raises(LayoutError, match="different CTAs"):
        plan_conversion(a, b, 32)
    same_blocks = LinearLayout({"register": [[2]], "lane": [[1], [4]], "block": [[8]]},
                               {"dim0": 16})
    assert _executed(plan_conversion(a, same_blocks, 32)).best.path == "shuffle"


def test_broadcast_source_needs_no_shuffle():
    # every lane holds all 8 elements; dst spreads them: each lane picks its own registers
    src = LinearLayout({"register": [[1], [2], [4]], "lane": [[0], [0]]}, {"dim0": 8})
    dst = LinearLayout({"register": [[4]], "lane": [[1], [2]]}, {"dim0": 8})
    plan = _executed(plan_conversion(src, dst, 32))
    assert "depend on the lane" in plan.path("registers").note
    shuffle = plan.path("shuffle")
    # no shfl, but dst's register draws on 4 classes of src registers: 12 byte joins, at
    # most 4 per selp and 7 per lane-dependent prmt (a prmt may choose among four 16-bit
    # halves, packing being free), so at least two merges; the planner chooses each
    # register's two halves by one 4-way prmt each (2 per register, where 3 selects)
    assert plan.best is shuffle and shuffle.instructions["shfl"] == 0
    assert shuffle.bound == 2 * 0.5
    assert shuffle.instructions["prmt"] == 4 and shuffle.instructions["selp"] == 0
    assert shuffle.cost == 2.0 and len(shuffle.plan.choices) == 2


def test_register_only_and_lane_only_layouts():
    a = LinearLayout({"register": [[1], [2]]}, {"dim0": 4})
    b = LinearLayout({"register": [[2], [1]]}, {"dim0": 4})
    assert _executed(plan_conversion(a, b, 16)).best.path == "registers"
    a = LinearLayout({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    b = LinearLayout({"lane": [[16], [8], [4], [2], [1]]}, {"dim0": 32})
    plan = _executed(plan_conversion(a, b, 32))
    assert plan.best.path == "shuffle" and plan.best.instructions["shfl"] == 1 and plan.optimal


# a 64-lane wavefront, register bit 1 <-> lane bit 5: one transposition, shuffled by Triton
_WAVE = {"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64], [128]]}
_WAVE_DST = {"register": [[1], [128]], "lane": [[4], [8], [16], [32], [64], [2]]}


def _wave(bases):
    return LinearLayout(bases, {"dim0": 256})


@pytest.mark.parametrize("source_load", [None, (0, 2), (0, 4)])
@pytest.mark.parametrize("element_bits", [8, 16])
def test_tritons_path_is_costed_as_check_counts_it(element_bits, source_load):
    # the planner passes the producing load to convert_path, as check does: Triton's
    # opcodes are the convert's own prediction, and the stage plan packs alike
    from linlayout.hardware import AMD_CDNA3
    from linlayout.lowering import convert_path

    src, dst = _wave(_WAVE), _wave(_WAVE_DST)
    plan = _executed(plan_conversion(src, dst, element_bits, hardware=AMD_CDNA3,
                                     target="hip:gfx942", source_load=source_load))
    path = convert_path(src, dst, element_bits, "hip:gfx942", source_load)
    assert plan.triton.opcodes == path.counts
    shuffle = plan.path("shuffle")
    assert shuffle.method == "stages" and shuffle.cost == plan.triton.cost
    assert shuffle.bound <= shuffle.cost


def test_a_load_that_packs_the_source_makes_the_16_bit_shuffle_cheaper():
    from linlayout.hardware import AMD_CDNA3

    src, dst = _wave(_WAVE), _wave(_WAVE_DST)
    loose = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942")
    packed = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942",
                             source_load=(0, 2))
    assert loose.triton.opcodes.get("v_perm_b32") == 2
    assert "v_perm_b32" not in packed.triton.opcodes
    assert packed.triton.cost < loose.triton.cost


def test_the_amd_bound_counts_packing_of_one_element_per_register():
    # each lane lacks two 16-bit elements: one shuffle if packed, but packing two registers
    # costs a v_perm_b32, so no plan costs less than min(2 · 1, 1 + 0.5) = 1.5
    from linlayout.conversion import ConversionProblem
    from linlayout.conversion.shuffle import amd_packing_bound, lacking_elements
    from linlayout.hardware import AMD_CDNA3

    src, dst = _wave(_WAVE), _wave(_WAVE_DST)
    pb = ConversionProblem.make(src, dst, 16, AMD_CDNA3)
    assert lacking_elements(pb) == 2
    assert amd_packing_bound(pb) == 1.5
    assert amd_packing_bound(pb, {"prmt": 4}) == 2.0  # packing too dear: send them apart
    plan = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942")
    # with one shuffle its word joins two registers and a lane-dependent instruction
    # follows it (amd_lone_shuffle_bound): 1 + 2 · 0.5; with two, 2 + 0.5
    assert plan.path("shuffle").bound == 2.0
    dear = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942",
                           weights={"prmt": 4})
    # sent apart (2 shuffles), or one + v_perm_b32; the merge volume lemma says as much:
    # the mixed dst registers' elements fill two merge outputs, a select each at least
    assert dear.path("shuffle").bound == 2.0
    assert "merge volume" in dear.path("shuffle").bound_note
    # a load that already packed the pairs: packing is not counted, the merge bounds stay
    # (the four mixed dst registers' 256 elements fill two merge outputs: 1 + 2 · 0.5)
    packed = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942",
                             source_load=(0, 2), weights={"prmt": 4})
    assert packed.path("shuffle").bound == 2.0 and packed.path("shuffle").cost >= 2.0


@pytest.mark.parametrize("bad", [(0,), (5, 2), ("x", 2), (True, 2)])
def test_a_bad_source_load_is_refused(bad):
    from linlayout.hardware import AMD_CDNA3

    with pytest.raises(LayoutError, match="source_load"):
        plan_conversion(_wave(_WAVE), _wave(_WAVE_DST), 16, hardware=AMD_CDNA3,
                        source_load=bad)


# --------------------------------------------- a source left one element per 32-bit register
_WIDE_SRC = LinearLayout({"register": [[1], [2], [4]], "lane": [[8], [16], [32], [64], [128]],
                          "warp": [[256]]}, {"dim0": 512})
_WIDE_DST = LinearLayout({"register": [[256], [2], [4]], "lane": [[8], [16], [32], [64], [128]],
                          "warp": [[1]]}, {"dim0": 512})


def test_a_wide_source_prices_tritons_round_trip_as_check_does_and_the_plans_alike():
    """16-bit elements a gather or reduction left in 32-bit registers, across warps: each
    word Triton's stmatrix stores costs a prmt.b32, as check's own prediction counts it, and
    the planner's round trips pay the same rule, and so does the bound (``packing_floor``:
    each stored word of two registers one prmt.b32), which the plan meets."""
    from linlayout.check.shared_memory.predict import predict_convert
    from linlayout.lowering import Target

    plain = plan_conversion(_WIDE_SRC, _WIDE_DST, 16)
    wide = _executed(plan_conversion(_WIDE_SRC, _WIDE_DST, 16, wide_source=True))
    pred = predict_convert(_WIDE_SRC, _WIDE_DST, 16, Target.parse("cuda:90"),
                           wide_source=True)
    assert {e.opcode: e.per_thread for e in pred.registers} == {"prmt.b32": 4}
    assert wide.triton.opcodes == plain.triton.opcodes | {"prmt.b32": 4}
    assert wide.triton.cost == plain.triton.cost + 2
    shared = wide.path("shared_memory")
    assert shared.instructions["prmt"] == 4 and shared.cost == plain.best.cost + 2
    assert shared.bound == plain.path("shared_memory").bound + 2 == shared.cost
    assert wide.saving == 0 and wide.optimal


def test_a_wide_source_prices_tritons_shuffles_and_the_stages_alike():
    from linlayout.lowering import convert_path
    from tests.conversion.support import warp_layout

    src, dst = warp_layout([1, 2, 4, 8, 16], 1, 5), warp_layout([1, 4, 2, 8, 16], 1, 5)
    plain = plan_conversion(src, dst, 16)
    wide = _executed(plan_conversion(src, dst, 16, wide_source=True))
    assert wide.triton.opcodes == convert_path(src, dst, 16, "cuda:90",
                                               wide_source=True).counts
    assert wide.triton.opcodes == {"shfl.sync.idx.b32": 1, "prmt.b32": 1}
    assert plain.best.cost == 1 and wide.best.cost == wide.triton.cost == 1.5
    # one shuffle must ship a word joining the lane's two registers: a join is a prmt (the
    # fewest instructions NVPTX selects for it), so the stage plan's 1.5 is the bound
    assert wide.path("shuffle").bound == 1.5 and "a join is a prmt" in \
        wide.path("shuffle").bound_note
    assert wide.optimal
    with pytest.raises(LayoutError, match="wide_source"):
        plan_conversion(src, dst, 16, wide_source="yes")


def test_on_amd_four_wide_bytes_pack_for_nothing():
    # bytes in 32-bit registers join with shifts and SDWA ors: the packing bound and the
    # stage plan's packing drop the two v_perm_b32 of every four bytes
    from linlayout.conversion import ConversionProblem
    from linlayout.conversion.shuffle import amd_packing_bound
    from linlayout.hardware import AMD_CDNA3
    from linlayout.lowering import convert_path

    src, dst = _wave(_WAVE), _wave(_WAVE_DST)
    pb = ConversionProblem.make(src, dst, 8, AMD_CDNA3)
    assert amd_packing_bound(pb, wide_source=True) <= amd_packing_bound(pb)
    wide = _executed(plan_conversion(src, dst, 8, hardware=AMD_CDNA3, target="hip:gfx942",
                                     wide_source=True))
    assert wide.triton.opcodes == convert_path(src, dst, 8, "hip:gfx942",
                                               wide_source=True).counts
    assert wide.path("shuffle").bound <= wide.best.cost <= wide.triton.cost
    with pytest.raises(LayoutError, match="wide_source"):
        amd_packing_bound(pb, wide_source=None)
