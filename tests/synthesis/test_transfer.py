"""Transfer and Objective: the inputs every synthesis function shares, validated once.

A Transfer normalises what it is given (one load or several, default hardware and weights)
and refuses bad input with a LayoutError that says what is wrong; Objective.key is the one
ordering of costs, and the synthesis functions give the same results through a built
Transfer as through their keyword arguments.
"""

from __future__ import annotations

import dataclasses

import pytest

from linlayout import LayoutError, LinearLayout, examples, synthesize_swizzle
from linlayout.hardware import NVIDIA, bank_model
from linlayout.synthesis import (
    Objective,
    Transfer,
    choose_padding_or_swizzle,
    compare_padding_and_swizzle,
    pad_transfer,
    synthesize_padding,
    synthesize_transfer,
)
from linlayout.synthesis.transfer import INSTRUCTIONS, OBJECTIVES, WAVEFRONTS


@pytest.fixture(scope="module")
def pair():
    ex = examples.get("transpose")
    return ex.store, ex.load


# ------------------------------------------------------------------------------ Objective
def test_objective_orders_costs():
    assert WAVEFRONTS.key(32, 20) == (32, 20)
    assert INSTRUCTIONS.key(32, 20) == (20, 32)
    for goal in (WAVEFRONTS, INSTRUCTIONS):
        assert goal.totals(goal.key(7, 3)) == (7, 3)
    # fewer wavefronts win under WAVEFRONTS even with more instructions; the reverse too
    assert WAVEFRONTS.key(16, 40) < WAVEFRONTS.key(32, 20)
    assert INSTRUCTIONS.key(32, 20) < INSTRUCTIONS.key(16, 40)


def test_objective_parse():
    assert Objective.parse("wavefronts") is WAVEFRONTS
    assert Objective.parse("instructions") is INSTRUCTIONS
    assert Objective.parse(INSTRUCTIONS) is INSTRUCTIONS
    assert Objective("instructions") == INSTRUCTIONS
    assert tuple(o.name for o in (WAVEFRONTS, INSTRUCTIONS)) == OBJECTIVES
    assert str(WAVEFRONTS) == "wavefronts"
    with pytest.raises(dataclasses.FrozenInstanceError):
        WAVEFRONTS.name = "instructions"  # type: ignore[misc]


@pytest.mark.parametrize("bad", ["bytes", "", None, 1, ["wavefronts"]])
def test_objective_refuses_unknown_names(bad):
    msg = r"objective must be one of \('wavefronts', 'instructions'\), got"
    with pytest.raises(LayoutError, match=msg):
        Objective.parse(bad)
    if isinstance(bad, str):
        with pytest.raises(LayoutError, match=msg):
            Objective(bad)


# ------------------------------------------------------------------------------ Transfer
def test_make_normalises(pair):
    store, load = pair
    t = Transfer.make(store, load, element_bits=32)
    assert t.loads == (load,) and t.layouts == (store, load)
    assert t.hardware == NVIDIA and t.weights == (1, 1) and t.element_bits == 32
    assert t.model == bank_model(32, None)
    assert t.names == ("store", "load") and len(t.sides) == 2
    several = Transfer.make(store, [load, load], element_bits=32, weights=[1, 2, 3])
    assert several.loads == (load, load) and several.weights == (1, 2, 3)
    assert several.names == ("store", "load 0", "load 1")
    # the constructor validates and normalises as make does; equal inputs, equal transfers
    assert Transfer(store, (load,), 32) == t
    assert hash(Transfer(store, [load], 32, NVIDIA, (1, 1))) == hash(t)


def test_transfer_is_frozen(pair):
    t = Transfer.make(*pair, element_bits=32)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.weights = (2, 2)  # type: ignore[misc]


def test_totals_weigh_each_side(pair):
    t = Transfer.make(*pair, element_bits=32, weights=[1, 3])
    r = synthesize_transfer(t)
    assert t.totals(r.reports) == (r.wavefronts_per_warp, r.instructions_per_warp)
    assert t.totals(r.reports)[0] == r.store.wavefronts_per_warp + 3 * r.load.wavefronts_per_warp


@pytest.mark.parametrize("kw, match", [
    (dict(element_bits=12), "element"),
    (dict(element_bits=True), "element"),
    (dict(hardware="NVIDIA"), "hardware"),
    (dict(weights=[1]), r"weights must be 2 positive ints \(store first, then each load\), "
                        r"got \[1\]"),
    (dict(weights=[1, 0]), "weights must be 2 positive ints"),
    (dict(weights=[1, -2]), "weights must be 2 positive ints"),
    (dict(weights=3), "weights must be one positive int per side, got 3"),
    (dict(weights="11"), "weights must be one positive int per side"),
    (dict(weights=[1, 1.5]), "a weight must be an int"),
    (dict(weights=[1, True]), "a weight must be an int, got the bool"),
])
def test_make_refuses_bad_arguments(pair, kw, match):
    store, load = pair
    args = dict(element_bits=32) | kw
    with pytest.raises(LayoutError, match=match):
        Transfer.make(store, load, **args)


def test_make_refuses_bad_layouts(pair):
    store, load = pair
    with pytest.raises(LayoutError, match="store must be a LinearLayout, got str"):
        Transfer.make("store", load, element_bits=32)
    with pytest.raises(LayoutError, match="give at least one load layout"):
        Transfer.make(store, [], element_bits=32)
    with pytest.raises(LayoutError, match="load must be a LinearLayout"):
        Transfer.make(store, 3, element_bits=32)
    other = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]},
                         out_dims={"dim0": 2, "dim1": 2})
    with pytest.raises(LayoutError, match="load 1"):
        Transfer.make(store, [load, other], element_bits=32)
    memory = LinearLayout({"offset": [[1 << i, 0] for i in range(4)] +
                           [[0, 1 << i] for i in range(5)]}, out_dims={"dim0": 16, "dim1": 32})
    with pytest.raises(LayoutError):
        Transfer.make(memory, load, element_bits=32)


def test_with_registers_first_is_make_of_the_reordered_layouts():
    """Reordering registers is a renaming: the transfer equals the one built (and validated)
    from the reordered layouts, sides included, also for a load whose out dims are in
    another order than the store's."""
    store = LinearLayout({"register": [[0, 1], [2, 0], [0, 0], [0, 4]],
                          "lane": [[1, 0], [0, 2], [4, 0], [8, 0], [0, 8]],
                          "warp": [[16, 0]]}, out_dims={"dim0": 32, "dim1": 16})
    load = LinearLayout({"register": [[2, 0], [0, 4], [16, 0]],
                         "lane": [[1, 0], [4, 0], [0, 1], [0, 2], [8, 0]],
                         "warp": [[0, 8]]}, out_dims={"dim0": 32, "dim1": 16})
    load_t = load.transpose_outs(["dim1", "dim0"])

    def moved(layout: LinearLayout, first: tuple[int, ...]) -> LinearLayout:
        regs = layout.bases["register"]
        order = list(first) + [i for i in range(len(regs)) if i not in first]
        bases = dict(layout.bases, register=[regs[i] for i in order])
        return LinearLayout(bases, layout.out_dims)

    t = Transfer.make(store, [load, load_t], element_bits=16, weights=[1, 2, 3])
    for firsts in [((), (), ()), ((3,), (), ()), ((1, 3), (2,), (2, 0)), ((0,), (0, 1), ())]:
        got = t.with_registers_first(firsts)
        want = Transfer.make(moved(store, firsts[0]),
                             [moved(load, firsts[1]), moved(load_t, firsts[2])],
                             element_bits=16, weights=[1, 2, 3])
        assert got == want and got.sides == want.sides and got.model == want.model
        assert got.weights == (1, 2, 3) and got.layouts == want.layouts
    for bad in [((),), ((4,), (), ()), ((1, 1), (), ()), (("0",), (), ()), "abc"]:
        with pytest.raises(LayoutError):
            t.with_registers_first(bad)


# --------------------------------------------------------------- the functions that use them
def test_synthesis_through_a_transfer_is_the_keyword_call(pair):
    store, load = pair
    for objective in OBJECTIVES:
        t = Transfer.make(store, load, element_bits=32, weights=[1, 4])
        kw = synthesize_swizzle(store, load, element_bits=32, objective=objective,
                                weights=[1, 4])
        assert synthesize_transfer(t, Objective.parse(objective)) == kw
        assert pad_transfer(t, Objective.parse(objective)) == synthesize_padding(
            store, load, element_bits=32, objective=objective, weights=[1, 4])


def test_the_synthesis_functions_validate_through_transfer(pair):
    store, load = pair
    for fn in (synthesize_swizzle, synthesize_padding, compare_padding_and_swizzle):
        with pytest.raises(LayoutError, match="objective must be one of"):
            fn(store, load, element_bits=32, objective="bytes")
        with pytest.raises(LayoutError, match="weights must be 2 positive ints"):
            fn(store, load, element_bits=32, weights=[1])
        with pytest.raises(LayoutError, match="give at least one load layout"):
            fn(store, [], element_bits=32)


def test_choice_uses_the_objective(pair):
    store, load = pair
    swz = synthesize_swizzle(store, load, element_bits=32)
    pad = synthesize_padding(store, load, element_bits=32)
    choice = choose_padding_or_swizzle(swz, pad)
    assert choice.choice == "swizzle" and choice.tie  # both at 32 wavefronts, 20 instructions
    assert choice == compare_padding_and_swizzle(store, load, element_bits=32)
    with pytest.raises(LayoutError, match="objective must be one of"):
        choose_padding_or_swizzle(swz, pad, "bytes")
