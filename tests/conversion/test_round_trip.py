"""The byte permutes of a round trip through shared memory, priced alike on Triton's path
and the planner's (``linlayout.conversion.round_trip``)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion, synthesize_swizzle
from linlayout.conversion import ConversionProblem, execute_shared
from linlayout.conversion.round_trip import offset_layout, round_trip_packing, side_emitted
from linlayout.lowering import Target
from linlayout.lowering.scratch import drop_broadcast_registers


def _layout(reg, lane, warp):
    return LinearLayout({"register": reg, "lane": lane, "warp": warp},
                        {"dim0": 32, "dim1": 64})


# 16 consecutive elements per thread along dim1, read back as 16 along dim0
SRC = _layout([[0, 1], [0, 2], [0, 4], [0, 8]], [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]],
              [[8, 0], [16, 0]])
DST = _layout([[1, 0], [2, 0], [4, 0], [8, 0]], [[16, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
              [[0, 16], [0, 32]])


def _packing(bits, target="cuda:90"):
    pb = ConversionProblem.make(SRC, DST, bits)
    res = synthesize_swizzle(SRC, DST, element_bits=bits)
    mem = offset_layout(res.layout)
    tgt = Target.parse(target)
    store = side_emitted("store", drop_broadcast_registers(SRC), mem, res.store.instruction,
                         res.store.vector_elems, bits, tgt)
    load = side_emitted("load", drop_broadcast_registers(DST), mem, res.load.instruction,
                        res.load.vector_elems, bits, tgt)
    return res, store, load, round_trip_packing(pb, mem, store, load, tgt)


def test_a_sixteen_byte_store_of_bytes_packs_three_permutes_per_word():
    res, store, load, n = _packing(8)
    assert res.store.vector_elems == 16 and store.opcode == "st.shared.v4.b32"
    assert n == 4 * 3  # four words, each built by three prmt.b32
    assert _packing(32)[3] == 0  # whole words pack nothing


def test_both_round_trips_are_priced_and_the_plan_is_never_dearer_than_triton():
    for bits in (8, 16):
        plan = plan_conversion(SRC, DST, bits)
        shared = plan.path("shared_memory")
        assert plan.triton.path == "shared" and plan.triton.cost is not None
        assert shared.cost <= plan.triton.cost
        assert execute_shared(plan.problem, shared.plan.layout).correct
    plan = plan_conversion(SRC, DST, 8)
    shared = plan.path("shared_memory")
    # the synthesized layout stores 16 bytes a lane and pays 12 prmt; Triton's own scratch
    # layout stores single bytes and packs nothing: here it is the cheaper round trip
    assert shared.method == "triton scratch" and shared.cost == plan.triton.cost
    assert shared.instructions == plan.triton.instructions
    assert shared.bound <= shared.cost


def test_side_emitted_names_the_instruction():
    res = synthesize_swizzle(SRC, DST, element_bits=16, instructions="auto")
    mem = offset_layout(res.layout)
    e = side_emitted("load", drop_broadcast_registers(DST), mem, res.load.instruction,
                     res.load.vector_elems, 16, Target.parse("cuda:90"))
    assert e.opcode.startswith(("ldmatrix", "ld.shared"))
    with pytest.raises(LayoutError):
        offset_layout("memory")
