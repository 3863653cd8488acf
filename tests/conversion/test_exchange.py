"""The packed exchange (``linlayout.conversion.exchange``): built where it applies, priced
as counted, and run to the destination by the executor."""

from __future__ import annotations

import dataclasses

import pytest

from linlayout import LayoutError, plan_conversion
from linlayout.conversion import (ConversionProblem, PackedExchangePlan, execute_plan,
                                  plan_packed_exchange)

from tests.conversion.support import warp_layout

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
    assert plan.instructions == {"shfl": 1, "selp": 0, "prmt": 1, "mov": 0}
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
