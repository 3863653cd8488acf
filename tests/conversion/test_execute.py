"""The symbolic executor proves correct plans correct and catches wrong ones."""

from __future__ import annotations

import dataclasses

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.conversion import (ConversionProblem, execute_plan, execute_shared,
                                  plan_shuffles, resolve_weights)
from linlayout.conversion.shuffle import RegisterPlan

from tests.conversion.support import warp_layout


def _transpose():
    return ConversionProblem.make(warp_layout([1, 2, 4], 1, 3), warp_layout([2, 1, 4], 1, 3), 32)


def test_a_correct_plan_is_proven_on_every_value():
    pb = _transpose()
    run = execute_plan(pb, plan_shuffles(pb, resolve_weights(None)))
    assert run.correct and run.checked == 4 * 2 and run.mismatches == ()


def test_a_wrong_source_lane_is_caught():
    pb = _transpose()
    plan = plan_shuffles(pb, resolve_weights(None))
    rnd = plan.rounds[0]
    bad = dataclasses.replace(rnd, source_lane=tuple(reversed(rnd.source_lane)))
    run = execute_plan(pb, dataclasses.replace(plan, rounds=(bad,)))
    assert not run.correct and run.mismatches


def test_a_wrong_register_map_is_caught():
    pb = _transpose()
    assert not execute_plan(pb, RegisterPlan((0, 1))).correct
    with pytest.raises(LayoutError, match="does not fit"):
        execute_plan(pb, RegisterPlan((0, 7)))


def test_shared_round_trip_needs_a_bijection():
    pb = _transpose()
    good = LinearLayout({"offset": [[1], [2], [4]]}, {"dim0": 8})
    bad = LinearLayout({"offset": [[1], [2], [2]]}, {"dim0": 8})
    assert execute_shared(pb, good).correct
    assert not execute_shared(pb, bad).correct
    with pytest.raises(LayoutError, match="out dims"):
        execute_shared(pb, LinearLayout({"offset": [[1]]}, {"dim1": 2}))
