"""The in-thread ``<2 x T>`` vectors of a 16-bit AMD reduction whose final assembly LLVM's
``-O3`` re-packs (``linlayout/check/registers/reduce.py``: :func:`slp_repacked`,
:func:`lowered_load`, ``in_thread_pack_permutes``'s ``load_vector``): there ``check`` counts
Triton's lowering, whose loads are Triton's own vectors (joined by the back end only along a
dim held in registers alone), not ``-O3``'s merged dwords. The TTGIR below is the shape of the
``scalar_byte_vector`` probes 293db7/1e43c2 (``papers/triton_lowering/scalar_byte_probes.py``),
whose lowering has 32 ``v_perm_b32`` on the reduction's line."""

from __future__ import annotations

import pytest

from linlayout.check import check_module, render_text
from linlayout.check.registers.private import SLP_NOTE
from linlayout.check.registers import load_vectors
from linlayout.check.registers.reduce import (in_thread_pack_permutes, lowered_load,
                                              slp_repacked)
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.triton.ttgir import read_ttgir
from tests.check.registers.test_in_thread_vectors import blocked

GFX942 = Target.parse("gfx942")
GFX950 = Target.parse("gfx950")

#: 293db7: 8 rows a thread (4 registers, the tile twice), 8 columns along the reduced axis,
#: the first register basis along it (pairs of neighbouring columns); lanes along the columns
ROWS8 = blocked((8, 2048), [4, 8], [1, 64], [1, 4], [1, 0], "f16")
#: f1613a: one column, one accumulator a thread
ONE = blocked((1024, 1), [4, 1], [64, 1], [4, 1], [1, 0], "f16")
#: cb4e1f: the columns (the loads' contiguous dim) held in registers only
COLS_IN_REGS = blocked((1024, 4), [4, 4], [64, 1], [4, 1], [1, 0], "f16")


#: dd0f21 (``reduce_pack``): 2 accumulators, 4 columns a thread (a vectorised in-thread step),
#: 32 lanes along the reduced axis (lane bit 4: a gfx950 permlane16 swap)
DD0F21 = blocked((4, 512), [2, 4], [2, 32], [1, 4], [1, 0], "i16")
#: the same with 16 lanes along the axis (no lane bit 4 there)
LANES16 = blocked((8, 256), [2, 4], [4, 16], [1, 4], [1, 0], "i16")
#: e3d2dc (``scalar_byte_vector``): 2 accumulators, the whole wavefront along the axis
WHOLE = blocked((2, 512), [2, 4], [1, 64], [1, 2], [1, 0], "i16")
#: 2 accumulators, 2 columns a thread (no in-thread vectors)
NO_VECTORS = blocked((4, 256), [2, 2], [2, 32], [1, 4], [1, 0], "i16")
#: 4 accumulators, one column a thread
FOUR = blocked((8, 64), [4, 1], [2, 32], [1, 2], [1, 0], "i16")
#: 36ab7c (held-out draw, seed 614337): 2 accumulators, no in-thread vectors, lane bits 2 to
#: 5 along the reduced axis (two swap steps on gfx950: permlane16 and permlane32)
TWO_SWAPS = blocked((32, 8), [1, 1], [16, 4], [2, 1], [1, 0], "i16")


@pytest.mark.parametrize("layout,target,want", [
    (DD0F21, GFX950, True),
    (DD0F21, GFX942, False),     # no permlane swap: ds_bpermute for lane bit 4
    (LANES16, GFX950, False),
    (WHOLE, GFX950, False),      # warpReduce's DPP sequence
    (WHOLE, GFX942, False),
    (NO_VECTORS, GFX950, False),
    (FOUR, GFX942, True),        # four accumulators: re-packed on either target
    (FOUR, GFX950, True),
])
def test_which_i16_min_max_reductions_llvm_re_packs(layout, target, want):
    _re_packed(layout, 1, target, want)


@pytest.mark.parametrize("target,want", [(GFX950, True), (GFX942, False)])
def test_two_swap_steps_are_re_packed_without_in_thread_vectors(target, want):
    _re_packed(TWO_SWAPS, 0, target, want)


def _re_packed(layout, axis, target, want):
    """Measured on compiled kernels of these shapes (``papers/triton_lowering/README.md``,
    "Cross-warp packing of partial results"): ``-O3`` adds ``<2 x i16>`` min/max operations
    (and the final assembly's ``v_perm_b32`` differ from Triton's on ``-O3``'s loads) exactly
    where these say True."""
    for combiner in ("arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"):
        assert slp_repacked(layout, axis, "i16", combiner, target) is want


#: i16 adds (``reduce_pack``/``reduce_pack_confirm`` and an earlier ``i16`` draw): 5ffdd9,
#: four accumulators, 4 rows a thread along the axis, lane bits 1 to 5 along it
ADD_5FFDD9 = blocked((512, 8), [4, 2], [32, 2], [4, 1], [1, 0], "i16")
#: 6b9127: two accumulators, lane bits 2 to 5 along the axis (permlane32 and permlane16 swaps)
ADD_6B9127 = blocked((8, 128), [1, 2], [4, 16], [1, 4], [0, 1], "i16")
#: 13f884: four accumulators, lane bits 0 to 4 along the axis (one permlane16 swap step: its
#: first round stays scalar; -O3 pairs its one-step cross-warp round, not modelled)
ADD_13F884 = blocked((8, 64), [2, 1], [2, 32], [1, 2], [1, 0], "i16")
#: 90bb2b: two accumulators, lane bits 0 to 3 along the axis (DPP only: no swap step)
ADD_90BB2B = blocked((8, 256), [2, 4], [4, 16], [1, 4], [1, 0], "i16")
#: f64fa1 (held-out draw): two accumulators, 4 columns a thread (a vectorised in-thread step)
#: and one permlane16 swap step
ADD_F64FA1 = blocked((4, 1024), [2, 4], [2, 32], [1, 8], [1, 0], "i16")
#: 4b8e80 (held-out draw): four accumulators, 2 columns a thread, one permlane16 swap step
ADD_4B8E80 = blocked((8, 256), [2, 2], [2, 32], [1, 4], [1, 0], "i16")
#: 951b9a (``amd_producer_third``): four accumulators, in-thread vectors, no swap step
ADD_951B9A = blocked((16, 64), [4, 2], [4, 16], [1, 1], [0, 1], "i16")


@pytest.mark.parametrize("layout,axis,target,want", [
    (ADD_5FFDD9, 0, GFX950, True),
    (ADD_6B9127, 1, GFX950, True),
    (ADD_13F884, 1, GFX950, False),    # one swap step
    (ADD_F64FA1, 1, GFX950, True),     # in-thread vectors and one swap step
    (ADD_4B8E80, 1, GFX950, False),    # four accumulators do not suffice for the add
    (ADD_90BB2B, 1, GFX950, False),    # no permlane swap step
    (ADD_951B9A, 0, GFX950, False),
    (ADD_5FFDD9, 0, GFX942, False),    # gfx942 has no permlane swap (not modelled there)
    (ADD_6B9127, 1, GFX942, False),
    (ONE, 0, GFX950, False),           # one accumulator
])
def test_which_i16_adds_llvm_re_packs(layout, axis, target, want):
    """Measured: ``-O3`` pairs the first round in ``<2 x i16>`` adds (the final assembly's
    ``v_perm_b32`` on the reduction's line differ from Triton's) on gfx950 with two or more
    accumulators and two of: in-thread vectors, a permlane16 swap step, a permlane32 one;
    not with one of them, whatever the accumulators."""
    assert slp_repacked(layout, axis, "i16", "arith.addi", target) is want
    assert slp_repacked(layout, axis, "ui16", "arith.addi", target) is want


def test_a_re_packed_i16_add_counts_triton_s_in_thread_vectors():
    """5ffdd9: Triton's lowering adds the 4 rows a thread as ``<2 x i16>`` vectors of its own
    unjoined 16-bit loads (one ``v_perm_b32`` per vector, 8); outside the domain (gfx942)
    InstCombine scalarises them and nothing is counted."""
    for target, want in ((GFX950, 8), (GFX942, 0)):
        assert in_thread_pack_permutes(ADD_5FFDD9, 0, "i16", "arith.addi", 1, target,
                                       source_load=(1, 2), load_vector=1) == want
    # without Triton's load vector (no load feeding it) the final assembly's 0 is counted
    assert in_thread_pack_permutes(ADD_5FFDD9, 0, "i16", "arith.addi", 1, GFX950,
                                   source_load=(1, 2)) == 0


def test_dd0f21_counts_triton_s_lowering():
    """Its lowering joins 8 unmerged ``global_load_ushort`` with 4 ``v_perm_b32`` (lane bits
    reach the columns by a left shift, :func:`lowered_load`); ``-O3``'s merged dwords would
    need none."""
    assert in_thread_pack_permutes(DD0F21, 1, "i16", "arith.maxsi", 1, GFX950,
                                   source_load=(1, 512), load_vector=1) == 4
    assert in_thread_pack_permutes(DD0F21, 1, "i16", "arith.maxsi", 1, GFX942,
                                   source_load=(1, 512), load_vector=1) == 0


@pytest.mark.parametrize("layout,axis,ty,combiner,target,want", [
    (ROWS8, 1, "f16", "arith.minnumf", GFX942, True),   # 8 accumulators
    (ROWS8, 1, "f16", "arith.mulf", GFX950, True),
    (ROWS8, 1, "i16", "arith.muli", GFX942, True),
    (ONE, 0, "f16", "arith.minnumf", GFX942, False),    # one accumulator: nothing to pair
    (ONE, 0, "i16", "arith.muli", GFX942, False),
    (ROWS8, 1, "i16", "arith.maxsi", GFX942, True),     # i16 min/max: four or more
    (ROWS8, 1, "i16", "arith.addi", GFX942, False),     # i16 add: gfx950 swap steps only
    (ROWS8, 1, "bf16", "arith.minnumf", GFX942, False),  # no packed bf16 ops
    (ROWS8, 1, "f16", None, GFX942, False),
    (ROWS8, 1, "f16", "arith.minnumf", Target.parse("cuda:90"), False),
])
def test_which_reductions_llvm_re_packs(layout, axis, ty, combiner, target, want):
    assert slp_repacked(layout, axis, ty, combiner, target) is want


def test_triton_s_loads_join_only_along_a_dim_held_in_registers():
    # the columns carry lane bits: Triton's index is the thread's base xor the register's
    # offset, which the back end's LoadStoreVectorizer cannot read before -O3
    assert lowered_load(ROWS8, (1, 2048), 1) == (1, 1)
    assert lowered_load(ROWS8, (1, 2048), 8) == (1, 8)   # a vectorised load keeps its vector
    assert lowered_load(ROWS8, (1, 4), 8) == (1, 4)
    # along a dim no lane or warp touches, the offsets are constants: joined
    assert lowered_load(COLS_IN_REGS, (1, 4), 1) == (1, 4)
    # c4dd21: lane bits 2 to 5 and the warp bits reach column bits 2 to 7 in place (an lshr by
    # 0 in Triton's index), under 4 columns a thread: 8 global_load_ushort, not joined
    assert lowered_load(KEPT_IN_PLACE, (1, 4), 1) == (1, 1)


#: c4dd21 (held-out ``i16`` draw): 4 columns a thread along the reduced axis, lane bits 2 to 5
#: and the warp bits along the columns at their own bit positions
KEPT_IN_PLACE = blocked((8, 256), [1, 4], [4, 16], [1, 4], [0, 1], "i16")


#: cff32d (held-out draw): the columns' warp bit (thread id bit 6) reaches column bit 1, a
#: right shift: the back end bounds the thread's part and joins each row's two columns
WARP_DOWN = blocked((512, 4), [8, 2], [64, 1], [1, 2], [1, 0], "f16")
#: 2a74ad (exploration): lane bit 0 reaches column bit 1, a left shift: not joined
LANE_UP = blocked((1, 256), [1, 2], [1, 64], [1, 2], [1, 0], "f16")


def test_a_thread_part_shifted_down_is_joined_one_shifted_up_is_not():
    assert lowered_load(WARP_DOWN, (1, 4), 1) == (1, 4)
    assert lowered_load(LANE_UP, (1, 256), 1) == (1, 1)
    # the same in the count: cff32d's 8 pairs are joined loads (0, as its lowering)
    assert in_thread_pack_permutes(WARP_DOWN, 0, "f16", "arith.maxnumf", 1, GFX950,
                                   source_load=(1, 4), load_vector=1) == 0


@pytest.mark.parametrize("bad", [(1,), (2, 4), (1, 0), ("1", 4), (True, 4), [1, 4]])
def test_lowered_load_refuses_a_bad_source(bad):
    with pytest.raises(LayoutError):
        lowered_load(ROWS8, bad, 1)


@pytest.mark.parametrize("vector", [0, -1, 1.0, True, None])
def test_lowered_load_refuses_a_bad_vector(vector):
    with pytest.raises(LayoutError):
        lowered_load(ROWS8, (1, 4), vector)


def test_the_lowering_s_pairs_of_separate_loads_cost_a_permute_each():
    # 32 pairs of neighbouring columns: halves of one -O3-merged dword (0) in the final
    # assembly's loads, two global_load_ushort (one v_perm_b32 each) in Triton's lowering
    args = (ROWS8, 1, "f16", "arith.minnumf", 1, GFX942)
    assert in_thread_pack_permutes(*args, source_load=(1, 2048)) == 0
    assert in_thread_pack_permutes(*args, source_load=(1, 2048), load_vector=1) == 32
    assert in_thread_pack_permutes(*args, source_load=(1, 2048), load_vector=8) == 0
    i16_mul = (ROWS8, 1, "i16", "arith.muli", 1, GFX950)
    assert in_thread_pack_permutes(*i16_mul, source_load=(1, 2048), load_vector=1) == 32


def test_where_the_final_keeps_triton_s_vectors_the_merged_loads_count():
    # i16 min with two accumulators over the whole wavefront (e3d2dc): -O3 keeps the
    # vectors, and its merged dwords hold each pair (0; Triton's lowering has 4)
    assert in_thread_pack_permutes(WHOLE, 1, "i16", "arith.minsi", 1, GFX942,
                                   source_load=(1, 512), load_vector=1) == 0
    # with eight (four or more: re-packed by -O3): Triton's lowering's pairs
    assert in_thread_pack_permutes(ROWS8, 1, "i16", "arith.maxsi", 1, GFX942,
                                   source_load=(1, 2048), load_vector=1) == 32
    # one accumulator: the final assembly is Triton's vectors on -O3's loads (0)
    assert in_thread_pack_permutes(ONE, 0, "f16", "arith.minnumf", 1, GFX942,
                                   source_load=(0, 1024), load_vector=1) == 0
    # the columns in registers only: the back end joins them even before -O3 (0)
    assert in_thread_pack_permutes(COLS_IN_REGS, 0, "f16", "arith.minnumf", 1, GFX942,
                                   source_load=(1, 4), load_vector=1) == 0


TTGIR = """#blocked = #ttg.blocked<{{sizePerThread = [4, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]}}>
#blocked1 = #ttg.blocked<{{sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:{arch}", "ttg.threads-per-warp" = 64 : i32}} {{
  tt.func public @p(%X: !tt.ptr<{t}>{div}, %Y: !tt.ptr<{t}>) {{
    %cst = arith.constant dense<2048> : tensor<8x1xi32, #blocked>
    %rm = tt.make_range {{end = 8 : i32, start = 0 : i32}} : tensor<8xi32, #ttg.slice<{{dim = 1, parent = #blocked}}>>
    %rn = tt.make_range {{end = 2048 : i32, start = 0 : i32}} : tensor<2048xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>>
    %a = tt.expand_dims %rm {{axis = 1 : i32}} : tensor<8xi32, #ttg.slice<{{dim = 1, parent = #blocked}}>> -> tensor<8x1xi32, #blocked>
    %b = arith.muli %a, %cst : tensor<8x1xi32, #blocked>
    %c = tt.splat %X : !tt.ptr<{t}> -> tensor<8x1x!tt.ptr<{t}>, #blocked>
    %d = tt.addptr %c, %b : tensor<8x1x!tt.ptr<{t}>, #blocked>, tensor<8x1xi32, #blocked>
    %e = tt.expand_dims %rn {{axis = 0 : i32}} : tensor<2048xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>> -> tensor<1x2048xi32, #blocked>
    %f = tt.broadcast %d : tensor<8x1x!tt.ptr<{t}>, #blocked> -> tensor<8x2048x!tt.ptr<{t}>, #blocked>
    %g = tt.broadcast %e : tensor<1x2048xi32, #blocked> -> tensor<8x2048xi32, #blocked>
    %h = tt.addptr %f, %g : tensor<8x2048x!tt.ptr<{t}>, #blocked>, tensor<8x2048xi32, #blocked>
    %x = tt.load %h : tensor<8x2048x!tt.ptr<{t}>, #blocked>
    %r = "tt.reduce"(%x) <{{axis = 1 : i32}}> ({{
    ^bb0(%p0: {t}, %p1: {t}):
      %s = {op} %p0, %p1 : {t}
      tt.reduce.return %s : {t}
    }}) : (tensor<8x2048x{t}, #blocked>) -> tensor<8x{t}, #ttg.slice<{{dim = 1, parent = #blocked}}>>
    %y = ttg.convert_layout %r : tensor<8x{t}, #ttg.slice<{{dim = 1, parent = #blocked}}>> -> tensor<8x{t}, #blocked1>
    %o = tt.make_range {{end = 8 : i32, start = 0 : i32}} : tensor<8xi32, #blocked1>
    %q = tt.splat %Y : !tt.ptr<{t}> -> tensor<8x!tt.ptr<{t}>, #blocked1>
    %z = tt.addptr %q, %o : tensor<8x!tt.ptr<{t}>, #blocked1>, tensor<8xi32, #blocked1>
    tt.store %z, %y : tensor<8x!tt.ptr<{t}>, #blocked1>
    tt.return
  }}
}}
"""


def _reduce_permutes(text: str) -> int:
    report = check_module(read_ttgir(text))
    (op,) = [r for r in report.ops if r.access.op == "reduce"]
    return sum(i.emitted.per_thread or 0 for i in op.instructions
               if i.emitted.opcode == "v_perm_b32")


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("t,op", [("f16", "arith.minnumf"), ("f16", "arith.mulf"),
                                  ("i16", "arith.muli"), ("i16", "arith.maxsi")])
def test_check_counts_the_lowering_s_permutes(arch, t, op):
    """No ``tt.divisibility`` on ``%X``: Triton loads one element at a time (64
    ``global_load_ushort`` in the lowering), and each of the 32 pairs is one ``v_perm_b32``."""
    assert _reduce_permutes(TTGIR.format(arch=arch, t=t, op=op, div="")) == 32


def test_aligned_pointers_load_the_pairs_whole():
    """With ``tt.divisibility = 16`` Triton loads ``<8 x half>``: each pair is one register."""
    div = " {tt.divisibility = 16 : i32}"
    assert _reduce_permutes(TTGIR.format(arch="gfx942", t="f16", op="arith.minnumf",
                                         div=div)) == 0


def test_i16_add_keeps_the_final_assembly_s_count():
    # InstCombine scalarises the add's vectors: no v_perm_b32 (SCALARISED_16)
    assert _reduce_permutes(TTGIR.format(arch="gfx942", t="i16", op="arith.addi",
                                         div="")) == 0


def test_load_vectors_are_triton_s():
    module = read_ttgir(TTGIR.format(arch="gfx942", t="f16", op="arith.minnumf", div=""))
    assert load_vectors(module, GFX942) == {"%x": 1}
    aligned = read_ttgir(TTGIR.format(arch="gfx942", t="f16", op="arith.minnumf",
                                      div=" {tt.divisibility = 16 : i32}"))
    assert load_vectors(aligned, GFX942) == {"%x": 8}
    with pytest.raises(LayoutError):
        load_vectors(module, "gfx942")


def _reduce_note(text: str) -> str:
    report = check_module(read_ttgir(text))
    (op,) = [r for r in report.ops if r.access.op == "reduce"]
    return op.note


@pytest.mark.parametrize("div", ["", " {tt.divisibility = 16 : i32}"])
def test_check_says_where_llvm_re_packs_the_count(div):
    """Where ``-O3``'s SLP vectoriser re-packs the reduction, the count is Triton's lowering,
    and the report says so; an ``i16`` add (not modelled as re-packed) says nothing of it."""
    note = _reduce_note(TTGIR.format(arch="gfx942", t="f16", op="arith.minnumf", div=div))
    assert SLP_NOTE in note
    assert SLP_NOTE in _reduce_note(TTGIR.format(arch="gfx942", t="i16",
                                                 op="arith.maxsi", div=div))
    assert SLP_NOTE not in _reduce_note(TTGIR.format(arch="gfx942", t="i16",
                                                     op="arith.addi", div=div))


def test_the_text_report_says_so_too():
    text = TTGIR.format(arch="gfx950", t="i16", op="arith.muli", div="")
    assert f"reduce: {SLP_NOTE}" in render_text([check_module(read_ttgir(text))])
    text = TTGIR.format(arch="gfx950", t="i16", op="arith.addi", div="")
    assert SLP_NOTE not in render_text([check_module(read_ttgir(text))])
