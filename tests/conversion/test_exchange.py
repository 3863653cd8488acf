"""The packed exchange (``linlayout.conversion.exchange``): built where it applies, priced
as counted, run to the destination by the executor, and — compiled by NVPTX — by its PTX."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.conversion import (ConversionProblem, PackedExchangePlan, execute_plan,
                                  plan_packed_exchange)

from tests.conversion.support import warp_layout
from tests.support import ROOT

SRC = [1, 2, 4, 8, 16]  # register bit 0, then four lane bits (a 16-lane warp)
EXCHANGE = [2, 1, 4, 8, 16]  # register bit 0 swaps with lane bit 0
LANE_SWAP = [1, 4, 2, 8, 16]  # lane bits 0 and 1 swap: whole words move


def _problem(cols, element_bits, src=SRC):
    return ConversionProblem.make(warp_layout(src, 1, 5), warp_layout(cols, 1, 5),
                                  element_bits)


@pytest.mark.parametrize("element_bits", [8, 16])
def test_a_single_exchange_is_one_shuffle_and_one_permute(element_bits):
    pb = _problem(EXCHANGE, element_bits)
    plan = plan_packed_exchange(pb)
    # the byte permute's selector is one of two constants chosen by lane: one selector
    # select (lane-index arithmetic, weighted 0 by default, as Triton's own selector selp)
    assert plan.instructions == {"shfl": 1, "selp": 0, "prmt": 1, "selector": 1, "mov": 0}
    assert plan.pack == (0, 1) and len(plan.words) == 1
    # even lanes keep their low half and take the partner's low half; odd lanes the highs
    assert plan.words[0][0] == (("x", 0), ("recv", 0))
    assert plan.words[0][1] == (("recv", 1), ("x", 1))
    assert execute_plan(pb, plan).correct
    full = plan_conversion(pb.src, pb.dst, element_bits)
    shuffle = full.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == 1.5
    assert shuffle.meets_bound and full.optimal and full.best is shuffle
    assert shuffle.to_dict()["plan"] == {"pack": [0, 1], "words": 1, "permutes": 1}


@pytest.mark.parametrize("element_bits, packs", [(8, 0), (16, 1)])
def test_a_wide_source_pays_its_packing(element_bits, packs):
    """Elements a gather or reduction left one to a 32-bit register: two 16-bit halves join
    with a prmt (as check counts it for Triton's packing), bytes as before; the executor
    still reaches dst; the bound (packing free) stays below, so the pair is no longer
    claimed optimal at 16 bits."""
    pb = _problem(EXCHANGE, element_bits)
    plain, wide = plan_packed_exchange(pb), plan_packed_exchange(pb, wide_source=True)
    assert wide.instructions["prmt"] == plain.instructions["prmt"] + packs
    assert wide.instructions["selector"] == plain.instructions["selector"] == 1
    assert execute_plan(pb, wide).correct
    full = plan_conversion(pb.src, pb.dst, element_bits, wide_source=True)
    shuffle = full.path("shuffle")
    assert shuffle.cost == 1.5 + 0.5 * packs and shuffle.bound == 1.5
    assert full.optimal == (packs == 0)
    assert full.triton.cost >= full.best.cost
    with pytest.raises(LayoutError, match="wide_source"):
        plan_packed_exchange(pb, wide_source=1)


def test_the_selector_weight_prices_the_exchange_and_tritons_selector_alike():
    pb = _problem(EXCHANGE, 16)
    costed = plan_conversion(pb.src, pb.dst, 16, weights={"selector": 0.5})
    shuffle = costed.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == 2.0
    assert shuffle.bound == 1.5 and not costed.optimal  # the bound counts no selector


def test_whole_words_moved_need_no_permute():
    pb = _problem(LANE_SWAP, 16)
    plan = plan_packed_exchange(pb)
    assert plan.instructions["shfl"] == 1 and plan.instructions["prmt"] == 0
    assert execute_plan(pb, plan).correct


def test_it_applies_only_to_narrow_elements_on_nvidia_with_something_to_move():
    assert plan_packed_exchange(_problem(EXCHANGE, 32)) is None
    assert plan_packed_exchange(_problem(EXCHANGE, 16), "hip:gfx942") is None
    assert plan_packed_exchange(_problem(SRC, 16)) is None  # nothing lacked
    wide = ConversionProblem.make(warp_layout([1, 2, 4, 8, 16], 2, 5),
                                  warp_layout([1, 4, 2, 8, 16], 2, 5), 16)
    assert plan_packed_exchange(wide) is None  # four source registers: two words


def test_the_executor_catches_a_wrong_table():
    pb = _problem(EXCHANGE, 16)
    plan = plan_packed_exchange(pb)
    wrong = dataclasses.replace(plan, source_lane=tuple(range(len(plan.source_lane))))
    run = execute_plan(pb, wrong)
    assert not run.correct and run.mismatches
    with pytest.raises(LayoutError):
        execute_plan(pb, dataclasses.replace(plan, pack=(0, 7)))


def test_bad_arguments_are_refused():
    with pytest.raises(LayoutError):
        plan_packed_exchange("not a problem")
    with pytest.raises(LayoutError):
        plan_packed_exchange(_problem(EXCHANGE, 16), "cuda:nope")
    assert isinstance(plan_packed_exchange(_problem(EXCHANGE, 8)), PackedExchangePlan)


# ------------------------------------------------- compiled by NVPTX and run lane by lane
FIXTURE = json.loads(gzip.decompress(
    (ROOT / "tests" / "data" / "conversion_packed_exchange.json.gz").read_bytes()))


def test_the_compiled_packed_exchange_reaches_dst_with_the_counted_instructions():
    """``papers/conversion/packed_exchange_ptx.py``: every pair of the exhaustive space whose
    best plan is the packed exchange (the single register/lane exchanges, 8 and 16 bits),
    written as LLVM IR the way Triton packs and translated by Triton 3.9's NVPTX to sm_90
    PTX, run on 32 lanes: every destination element arrives, with the plan's one
    ``shfl.sync.idx.b32`` and one ``prmt.b32``, no ``selp``, and the packing and unpacking
    as ``mov.b32`` vectors."""
    probes = FIXTURE["probes"]
    assert FIXTURE["triton_version"].startswith("3.9") and len(probes) == 8
    for name, p in probes.items():
        order = p["order"]
        src = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [0]]},
                           {"dim0": 32})
        dst = LinearLayout({"register": [[1 << order[0]]],
                            "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 32})
        plan = plan_conversion(src, dst, p["element_bits"])
        shuffle = plan.path("shuffle")
        assert shuffle.method == "packed exchange" and plan.optimal, name
        assert p["reaches_dst"], name
        mine = shuffle.instructions
        assert (p["ptx"]["shfl"], p["ptx"]["prmt"], p["ptx"]["selp"]) == \
            (mine["shfl"], mine["prmt"], mine["selp"]), name
        assert p["ptx"]["mov_pack"] == 2, name  # one pack, one unpack


def test_a_wide_single_register_is_shuffled_as_it_is():
    """One source register: a wide source's 32-bit register is shuffled without packing
    (no extra prmt); its high half holds unknown bits, which the executor refuses to read."""
    src = LinearLayout({"register": [], "lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    dst = LinearLayout({"register": [[16]], "lane": [[1], [2], [4], [8], [0]]}, {"dim0": 32})
    pb = ConversionProblem.make(src, dst, 16)
    plain, wide = plan_packed_exchange(pb), plan_packed_exchange(pb, wide_source=True)
    assert wide.pack == (0, 0) and wide.high_unknown and not plain.high_unknown
    assert wide.instructions == plain.instructions
    assert execute_plan(pb, wide).correct
    highs = tuple(tuple(tuple((w, 1) for w, _ in picks) for picks in word)
                  for word in wide.words)
    assert not execute_plan(pb, dataclasses.replace(wide, words=highs)).correct
    assert execute_plan(pb, dataclasses.replace(plain, words=highs)).correct
