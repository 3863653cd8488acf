"""The table planner's per-lane register choices by byte-permute trees: each ``dst`` register
that takes its element, by lane, from one of ``m`` candidates is built by the cheaper of a
select tree and a ``prmt`` tree, and the executor runs the tree byte by byte."""

import dataclasses
import random

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.hardware.model import AMD_CDNA3
from linlayout.conversion import (ConversionProblem, choice_instructions, execute_plan,
                                  merge_cost, plan_shuffles, resolve_weights,
                                  shuffle_family_bound)
from linlayout.conversion.shuffle import choice_program, run_choice


def _argmax_pair(bits: int) -> ConversionProblem:
    """Every lane holds 16 registers; lane ``l`` wants register ``l mod 16`` (the shape of
    ``argmax_axis1``'s convert)."""
    return ConversionProblem.make(
        LinearLayout({"register": [[1], [2], [4], [8]], "lane": [[0]] * 5}, {"dim0": 16}),
        LinearLayout({"register": [], "lane": [[1], [2], [4], [8], [0]]}, {"dim0": 16}), bits)


@pytest.mark.parametrize("bits,prmt", [(8, 5), (16, 5), (32, 10)])
def test_a_16_way_choice_is_a_permute_tree_that_reaches_dst(bits, prmt):
    pb = _argmax_pair(bits)
    plan = plan_shuffles(pb)
    assert plan.instructions["prmt"] == prmt and plan.instructions["selp"] == 0
    assert len(plan.choices) == 1 and execute_plan(pb, plan).correct
    # never below the family's bound (byte-join lemma), and no select tree left
    assert prmt * 0.5 >= shuffle_family_bound(pb, "cuda:90").cost - 1e-9


def test_64_bit_elements_keep_their_selects():
    """A half node spends 4 ``prmt`` on a 64-bit element for 3 joins: never cheaper than
    three ``selp.b64`` at the default weights."""
    plan = plan_shuffles(_argmax_pair(64))
    assert plan.instructions["selp"] == 15 and plan.instructions["prmt"] == 0
    assert not plan.choices and execute_plan(_argmax_pair(64), plan).correct


def test_the_weights_choose_the_tree():
    pb = _argmax_pair(32)
    dear = plan_shuffles(pb, {"prmt": 2.0})
    assert dear.instructions["selp"] == 15 and not dear.choices
    cheap = plan_shuffles(pb, {"selp": 2.0})
    assert cheap.instructions["selp"] == 0 and execute_plan(pb, cheap).correct


def test_the_executor_runs_the_selectors_it_is_given():
    """One lane's selector changed in the last permute: the run no longer reaches dst."""
    for bits in (8, 16, 32):
        pb = _argmax_pair(bits)
        plan = plan_shuffles(pb)
        (r, (leaves, ops, result)), = plan.choices
        i = max(k for k, op in enumerate(ops) if op[0] == "prmt")
        sel = list(ops[i][3])
        sel[3] = (6, 7, 6, 7)  # lane 3 takes the fourth item, not the first
        ops = ops[:i] + ((*ops[i][:3], tuple(sel)),) + ops[i + 1:]
        broken = dataclasses.replace(plan, choices=((r, (leaves, ops, result)),))
        assert not execute_plan(pb, broken).correct


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("free", [True, False])
def test_every_tree_picks_each_lanes_candidate_and_obeys_the_byte_join_lemma(bits, free):
    """For m = 1..20 candidates and several weightings, the tree :func:`choice_program`
    builds from :func:`choice_instructions`'s counts gives every lane its candidate on
    symbolic bytes, and its instructions supply the byte joins the lemma asks for:
    ``c·selp + 7·prmt ≥ (bits/8)·(m − 1)`` (``c`` 4, 8 for 64-bit elements)."""
    rng = random.Random(8817)  # a seed of its own (grep: used nowhere else)
    e, c = max(1, bits // 8), 8 if bits == 64 else 4
    for weights in (None, {"prmt": 0.2}, {"selp": 0.2}, {"prmt": 0.45}):
        ws = resolve_weights(weights)
        for m in range(1, 21):
            selp, prmt, four, three, two_p, two_s = choice_instructions(m, bits, ws, free)
            assert c * selp + 7 * prmt >= e * (m - 1)
            assert selp * ws["selp"] + prmt * ws["prmt"] <= (m - 1) * ws["selp"] + 1e-9
            assert selp * ws["selp"] + prmt * ws["prmt"] >= \
                merge_cost(m - 1, bits, ws) - 1e-9
            if not free:
                assert four == three == 0  # AMD: a pack costs a v_perm_b32
            column = [("cand", rng.randrange(m)) for _ in range(32)]
            for k in range(m):
                column[k] = ("cand", k)  # every candidate used
            program = choice_program(column, bits, four, three, two_p, two_s)
            leaves = program[0]
            values = [[100 + leaf[1] for leaf in leaves] for _ in column]
            assert run_choice(program, values, bits) == [100 + x[1] for x in column]
            ops = program[1]
            assert sum(op[0] == "prmt" for op in ops) + 2 * sum(
                op[0] == "prmt64" for op in ops) == prmt
            assert sum(op[0] == "selp" for op in ops) == selp


def test_choice_instructions_refuses_bad_arguments():
    for bad in (0, -1, True, 1.5):
        with pytest.raises(LayoutError):
            choice_instructions(bad, 32, None)
    with pytest.raises(LayoutError):
        choice_instructions(4, 12, None)
    with pytest.raises(LayoutError):
        choice_program([("a",), ("b",)], 32, 1, 0, 0, 0)
    with pytest.raises(LayoutError):
        plan_shuffles(_argmax_pair(32), free_packing=1)


def test_plan_conversion_builds_the_tree_on_nvidia_only():
    pb = _argmax_pair(32)
    nv = plan_conversion(pb.src, pb.dst, 32, target="cuda:90")
    shfl = nv.path("shuffle")
    assert shfl.cost == pytest.approx(5.0) and shfl.instructions["prmt"] == 10
    assert shfl.bound == pytest.approx(4.5) and not shfl.meets_bound
    amd = plan_conversion(pb.src, pb.dst, 32, hardware=AMD_CDNA3,
                          target="hip:gfx942").path("shuffle")
    assert amd.plan.choices == () and amd.cost >= 7.5 - 1e-9
