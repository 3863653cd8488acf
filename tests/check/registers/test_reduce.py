"""Butterfly shuffles of tt.reduce (linlayout/check/registers/reduce.py): the counts equal
the sm_90 PTX / gfx942 AMDGCN of the probes they were read from (Triton 3.9)."""

from __future__ import annotations

import pytest

from linlayout.check.registers import reduce_shuffles
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.triton.parse import parse_type


def blocked(shape, spt, tpw, wpc, order, lanes=32):
    text = (f"tensor<{shape[0]}x{shape[1]}xf32, #ttg.blocked<{{sizePerThread = {spt}, "
            f"threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>>")
    return parse_type(text).layout


def counts(layout, axis, bits, target, integer=False):
    ems, note = reduce_shuffles(layout, axis, (bits,), Target.parse(target), integer)
    return {e.opcode: e.per_thread for e in ems}, note


@pytest.mark.parametrize("spt,tpw,wpc,order,axis,bits,want", [
    ([1, 4], [4, 8], [1, 1], [1, 0], 0, 32, 16),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 32, 24),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 64, 48),
    ([2, 2], [8, 4], [2, 1], [1, 0], 0, 32, 64),   # two in-warp rounds: 48 + 16
    ([1, 2], [2, 16], [1, 2], [0, 1], 1, 32, 80),  # 64 + 16
    ([1, 1], [1, 32], [1, 1], [1, 0], 1, 16, 160),
])
def test_nvidia(spt, tpw, wpc, order, axis, bits, want):
    got, _ = counts(blocked((32, 64), spt, tpw, wpc, order), axis, bits, "cuda:90")
    assert got == {"shfl.sync.bfly.b32": want}


def test_full_warp_integer_reduction_is_left_to_redux():
    got, note = counts(blocked((32, 64), [1, 1], [1, 32], [1, 1], [1, 0]), 1, 32, "cuda:90",
                       integer=True)
    assert got == {} and "redux.sync" in note


@pytest.mark.parametrize("spt,tpw,wpc,order,axis,target,want", [
    ([1, 4], [4, 16], [1, 1], [1, 0], 0, "hip:gfx942", {"ds_bpermute_b32": 16}),
    ([1, 4], [4, 16], [1, 1], [1, 0], 0, "hip:gfx950",
     {"v_permlane32_swap_b32": 8, "v_permlane16_swap_b32": 8}),
    ([1, 4], [4, 16], [1, 1], [1, 0], 1, "hip:gfx942", {"v_mov_b32_dpp": 40}),
    ([2, 2], [8, 8], [2, 1], [1, 0], 0, "hip:gfx942",
     {"ds_bpermute_b32": 32, "v_mov_b32_dpp": 32}),
    ([1, 1], [1, 64], [1, 1], [1, 0], 1, "hip:gfx942", {"v_mov_b32_dpp": 192}),
    ([1, 2], [2, 32], [1, 2], [0, 1], 1, "hip:gfx942",
     {"ds_bpermute_b32": 32, "v_mov_b32_dpp": 80}),
])
def test_amd(spt, tpw, wpc, order, axis, target, want):
    got, _ = counts(blocked((32, 128), spt, tpw, wpc, order), axis, 32, target)
    assert got == want


def test_bad_axis():
    with pytest.raises(LayoutError, match="axis"):
        counts(blocked((32, 64), [1, 4], [4, 8], [1, 1], [1, 0]), 2, 32, "cuda:90")


def _slice(shape, spt, tpw, wpc, order, axis):
    keep = shape[1 - axis]
    text = (f"tensor<{keep}xf32, #ttg.slice<{{dim = {axis}, parent = #ttg.blocked<{{"
            f"sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, "
            f"order = {order}}}>}}>>")
    return parse_type(text).layout


@pytest.mark.parametrize("combiner,bits,target,want", [
    ("arith.maxsi", 16, "cuda:80", True),    # redux.sync: the 32-bit result truncated
    ("arith.addi", 8, "cuda:90", True),
    ("arith.maxnumf", 16, "cuda:80", False),  # butterflies end in max.f16
    ("arith.maxsi", 32, "cuda:80", False),   # not an 8/16-bit value
    ("arith.maxsi", 16, "hip:gfx942", False),
    (None, 16, "cuda:80", False),
])
def test_a_redux_round_leaves_32_bit_registers(combiner, bits, target, want):
    from linlayout.check.registers.reduce import reduce_leaves_words

    args = ((32, 32), [8, 1], [2, 16], [2, 1], [0, 1])
    got = reduce_leaves_words(blocked(*args), _slice(*args, 1), 1, bits,
                              Target.parse(target), combiner)
    assert got is want


def test_an_amd_reduction_over_the_whole_warp_leaves_16_bit_scalars():
    from linlayout.check.registers.reduce import reduce_leaves_scalars

    full = ((16, 64), [8, 1], [1, 64], [1, 1], [0, 1])
    half = ((16, 64), [8, 1], [2, 32], [1, 1], [0, 1])
    gfx = Target.parse("hip:gfx942")
    assert reduce_leaves_scalars(blocked(*full), _slice(*full, 1), 1, 16, gfx)
    assert not reduce_leaves_scalars(blocked(*full), _slice(*full, 1), 1, 8, gfx)
    assert not reduce_leaves_scalars(blocked(*half), _slice(*half, 1), 1, 16, gfx)
    assert not reduce_leaves_scalars(blocked(*full), _slice(*full, 1), 1, 16,
                                     Target.parse("cuda:90"))


def test_the_convert_after_a_redux_round_packs_32_bit_registers():
    """i16 max over 32 lanes and two warps (sm_80): the redux.sync round's results move to
    getInterLayout through shared memory in st.shared.v4.b32 words, each built with one
    prmt.b32 (8 per thread in the compiled exploration kernel); f16 (butterflies) packs free."""
    from linlayout.check.registers import with_registers
    from linlayout.check.registers.reduce import redux_rounds
    from linlayout.check.shared_memory import predict_private

    args = ((16, 64), [8, 1], [1, 32], [1, 2], [0, 1])
    operand, result, cuda = blocked(*args), _slice(*args, 1), Target.parse("cuda:80")
    assert redux_rounds(operand, 1, 16, cuda, "arith.maxsi") == [True, False]
    assert redux_rounds(operand, 1, 16, cuda, "arith.maxnumf") == [False, False]
    pred = predict_private("reduce", operand, result, 16, cuda, 1)
    got = with_registers(pred, "reduce", operand, result, 1, (16,), cuda, True,
                         combiner="arith.maxsi")
    assert {e.opcode: e.per_thread for e in got.registers}.get("prmt.b32") == 8
    got = with_registers(pred, "reduce", operand, result, 1, (16,), cuda, False,
                         combiner="arith.maxnumf")
    assert "prmt.b32" not in {e.opcode for e in got.registers}


@pytest.mark.parametrize("combiner,bits,target,reduce_lanes,broadcast_lanes,want", [
    # two groups (lane bit 4 off the axis): identity in, identity in, pick the result
    ("arith.addi", 16, "cuda:80", 0b01111, 0, {"selp.b32": 2}),   # zero identity: one is an and
    ("arith.maxui", 8, "cuda:90", 0b11110, 0, {"selp.b32": 2}),
    ("arith.maxsi", 16, "cuda:80", 0b01111, 0, {"selp.b32": 3}),
    ("arith.andi", 32, "cuda:90", 0b01111, 0, {"selp.b32": 3}),
    ("arith.minui", 8, "cuda:100", 0b01111, 0, {"selp.b32": 3}),
    ("arith.maxnumf", 32, "cuda:100", 0b01111, 0, {"selp.f32": 3}),
    # lanes holding copies: add and xor let one copy in, idempotent ops need no select
    ("arith.addi", 32, "cuda:80", 0b00111, 0b11000, {"selp.b32": 1}),
    ("arith.xori", 8, "cuda:90", 0b01111, 0b10000, {"selp.b32": 1}),
    ("arith.maxsi", 32, "cuda:80", 0b00111, 0b11000, {}),
    ("arith.ori", 16, "cuda:90", 0b01111, 0b10000, {}),
    # a full warp, a butterfly round, no redux.sync
    ("arith.addi", 32, "cuda:80", 0b11111, 0, {}),
    ("arith.addi", 16, "cuda:80", 0b00111, 0b00000, {}),
    ("arith.addi", 32, "cuda:75", 0b01111, 0, {}),
])
def test_the_selects_that_feed_redux(combiner, bits, target, reduce_lanes, broadcast_lanes,
                                     want):
    """Checked on compiled kernels (``papers/triton_lowering/redux_heldout_probes.py``)."""
    from linlayout.check.registers.reduce import redux_selects

    assert redux_selects(combiner, bits, Target.parse(target), reduce_lanes,
                         broadcast_lanes) == want


def test_a_partitioned_redux_round_counts_its_selects():
    """i16 max over 16 lanes, lane bit 4 along dim 0 (two groups), 2 accumulators per thread
    (sm_80): two redux.sync and three selp.b32 each."""
    got = reduce_shuffles(blocked((4, 16), [2, 1], [2, 16], [1, 1], [1, 0]), 1, (16,),
                          Target.parse("cuda:80"), True, "arith.maxsi")[0]
    assert {e.opcode: e.per_thread for e in got} == {"redux.sync.max.s32": 4, "selp.b32": 6}


def test_an_amd_partial_warp_reduction_leaves_its_combines():
    """gfx950, f16 add over 32 of 64 lanes (a compiled probe: eight v_pack_b32_f16, no
    v_perm_b32): every result is the combine's, canonical; integers are computed bytes;
    a full-warp reduction and NVIDIA are not modelled here."""
    from linlayout.check.registers.reduce import reduce_result_values
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    half = ((32, 32), [1, 4], [32, 2], [1, 1], [0, 1])
    full = ((16, 64), [8, 1], [1, 64], [1, 1], [0, 1])
    gfx = Target.parse("hip:gfx950")
    got = reduce_result_values(blocked(*half, 64), _slice(*half, 0), 0, 16, "f16", gfx,
                               "arith.addf")
    assert got and set(got) == {CANONICAL}
    assert set(reduce_result_values(blocked(*half, 64), _slice(*half, 0), 0, 8, "i8", gfx,
                                    "arith.maxsi")) == {COMPUTED}
    assert reduce_result_values(blocked(*full, 64), _slice(*full, 1), 1, 16, "f16", gfx,
                                "arith.addf") is None
    # bf16: gfx950 converts and packs two min/max results at once; its add (rounded with
    # integer ops, as on gfx942) and gfx942 are not followed
    assert set(reduce_result_values(blocked(*half, 64), _slice(*half, 0), 0, 16, "bf16",
                                    gfx, "arith.maxnumf")) == {CANONICAL}
    assert reduce_result_values(blocked(*half, 64), _slice(*half, 0), 0, 16, "bf16",
                                gfx, "arith.addf") is None
    assert reduce_result_values(blocked(*half, 64), _slice(*half, 0), 0, 16, "bf16",
                                Target.parse("hip:gfx942"), "arith.addf") is None
    assert reduce_result_values(blocked(*half), _slice(*half, 0), 0, 16, "f16",
                                Target.parse("cuda:90"), "arith.addf") is None


def test_each_round_leaves_its_combines_for_the_convert_after_it():
    """round_result_kinds: a round that combines (registers or lanes along the axis) leaves
    canonical f16 results (a cross-warp word of two is one v_pack_b32_f16: the compiled
    2048x4 gfx950 add of papers/triton_lowering/reduce_pack_probes.py's first draw), computed
    integer bytes; a round that only moves values, a whole-wavefront round (read out to
    scalars), gfx942 bf16 and NVIDIA leave nothing followed (None)."""
    from linlayout.check.registers.reduce import round_result_kinds
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    gfx950, gfx942 = Target.parse("hip:gfx950"), Target.parse("hip:gfx942")
    two_rounds = blocked((2048, 4), [8, 2], [32, 2], [8, 1], [1, 0], 64)
    assert round_result_kinds(two_rounds, 0, 16, "f16", gfx950, "arith.addf") == \
        [CANONICAL, CANONICAL]
    assert round_result_kinds(two_rounds, 0, 8, "i8", gfx942, "arith.maxsi") == \
        [COMPUTED, COMPUTED]
    assert round_result_kinds(two_rounds, 0, 16, "bf16", gfx942, "arith.addf") == [None, None]
    assert round_result_kinds(two_rounds, 0, 16, "bf16", gfx950, "arith.maxnumf") == \
        [CANONICAL, CANONICAL]
    assert round_result_kinds(two_rounds, 0, 16, "f16", gfx950, None) == [None, None]
    # warps only along the axis: the first round moves the loaded values as they are
    moves = blocked((4, 64), [1, 1], [1, 64], [4, 1], [1, 0], 64)
    assert round_result_kinds(moves, 0, 16, "f16", gfx942, "arith.addf") == \
        [None, CANONICAL]
    # all 64 lanes along the axis: the first round's totals are read out to scalars
    full = blocked((256, 4), [1, 1], [64, 1], [4, 1], [1, 0], 64)
    assert round_result_kinds(full, 0, 16, "f16", gfx942, "arith.addf")[0] is None
    cuda = blocked((64, 4), [2, 1], [16, 2], [2, 1], [1, 0])
    assert set(round_result_kinds(cuda, 0, 16, "f16", Target.parse("cuda:90"),
                                  "arith.addf")) == {None}
    with pytest.raises(LayoutError, match="axis"):
        round_result_kinds(two_rounds, 2, 16, "f16", gfx950, "arith.addf")
