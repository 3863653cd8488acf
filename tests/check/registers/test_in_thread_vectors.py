"""The ``<2 x T>`` vectors of a 16-bit reduction's in-thread step
(``linlayout/check/registers/reduce.py``: :func:`in_thread_vector_pairs`,
:func:`in_thread_pack_permutes`, :func:`round_reads_out`), as Triton 3.9's
``reduceWithinThreads`` builds them; the counts were compared with compiled gfx942/gfx950
reductions in ``tests/check/test_scalar_byte_probes.py``."""

from __future__ import annotations

import pytest

from linlayout.check.registers.reduce import (in_thread_pack_permutes, in_thread_vector_pairs,
                                              round_reads_out)
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.triton.combine import combine_op_count
from linlayout.triton.parse import parse_type

GFX942 = Target.parse("gfx942")


def blocked(shape, spt, tpw, wpc, order, ty="i16"):
    text = (f"tensor<{shape[0]}x{shape[1]}x{ty}, #ttg.blocked<{{sizePerThread = {spt}, "
            f"threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>>")
    return parse_type(text).layout


#: probe ba90e1: 4 rows of 4 columns a thread, the first register basis along the axis
BA90E1 = blocked((1024, 4), [4, 1], [64, 1], [4, 1], [1, 0])
#: probe fb6648: 8 rows of 4 columns a thread, the first register basis off the axis
FB6648 = blocked((8, 2048), [4, 4], [1, 64], [1, 8], [0, 1])


def test_every_register_is_packed_with_its_neighbour_in_the_first_basis():
    pairs = in_thread_vector_pairs(BA90E1, 0, "i16", "arith.maxsi", 1, GFX942)
    assert pairs == tuple((i, i + 1) for i in range(0, 16, 2))


@pytest.mark.parametrize("layout,axis,load,want", [
    (BA90E1, 0, (1, 4), 8),    # pairs along the axis, loaded halves of two registers
    (FB6648, 1, (1, 2048), 16),  # pairs off the axis, the same
    (blocked((1024, 2), [8, 2], [64, 1], [2, 1], [1, 0]), 0, (1, 2), 0),  # one register
])
def test_the_permutes_equal_the_probes(layout, axis, load, want):
    assert in_thread_pack_permutes(layout, axis, "i16", "arith.maxsi", 1, GFX942,
                                   source_load=load) == want


def test_operands_of_another_producer_pay_one_permute_a_pair():
    assert in_thread_pack_permutes(BA90E1, 0, "i16", "arith.minsi", 1, GFX942) == 8


@pytest.mark.parametrize("ty,combiner,ops,target", [
    ("i16", "arith.xori", 1, GFX942),      # no vector kind for xor
    ("i16", "arith.maxsi", 2, GFX942),     # a region of two ops
    ("i16", "arith.maxsi", None, GFX942),  # the region not known
    ("i16", None, 1, GFX942),
    ("i8", "arith.maxsi", 1, GFX942),      # bytes are not vectorised
    ("f16", "arith.addi", 1, GFX942),
    ("f32", "arith.maxnumf", 1, GFX942),   # f32: add and mul only
    ("f16", "arith.addf", 1, Target.parse("cuda:80")),  # packed 16-bit ops from sm_90
])
def test_not_vectorised(ty, combiner, ops, target):
    assert in_thread_vector_pairs(BA90E1, 0, ty, combiner, ops, target) is None


def test_fewer_than_four_registers_along_the_axis_are_not_vectorised():
    two = blocked((128, 4), [2, 1], [64, 1], [1, 1], [1, 0])
    assert in_thread_vector_pairs(two, 0, "i16", "arith.maxsi", 1, GFX942) is None
    # along dim 1 it holds 4 (the tile repeated): vectorised, the pairs still on the first
    # register basis (along dim 0), off the axis
    assert in_thread_vector_pairs(BA90E1, 1, "i16", "arith.maxsi", 1, GFX942) is not None


@pytest.mark.parametrize("ty,combiner,target", [
    ("bf16", "arith.maxnumf", GFX942),   # no packed bf16 ops: split at selection
    ("i16", "arith.addi", GFX942),       # -O3 scalarises it
    ("i16", "arith.maxsi", Target.parse("cuda:90")),  # mov.b32, not counted
    ("f32", "arith.addf", GFX942),       # whole registers
])
def test_vectorised_without_permutes(ty, combiner, target):
    assert in_thread_vector_pairs(BA90E1, 0, ty, combiner, 1, target) is not None
    assert in_thread_pack_permutes(BA90E1, 0, ty, combiner, 1, target) == 0


def test_f16_counts_tritons_vectors():
    assert in_thread_pack_permutes(BA90E1, 0, "f16", "arith.maxnumf", 1, GFX942,
                                   source_load=(1, 4)) == 8


def test_a_whole_wavefront_round_reads_its_totals_out():
    assert round_reads_out(BA90E1, 0, (16,), GFX942) == [True, False]
    assert round_reads_out(BA90E1, 0, (16, 16), GFX942) == [False, False]
    assert round_reads_out(BA90E1, 0, (16,), Target.parse("cuda:90")) == [False, False]


def test_bad_arguments():
    with pytest.raises(LayoutError):
        in_thread_vector_pairs(BA90E1, 2, "i16", "arith.maxsi", 1, GFX942)
    with pytest.raises(LayoutError):
        in_thread_vector_pairs(BA90E1, 0, "i16", "arith.maxsi", "1", GFX942)
    with pytest.raises(LayoutError):
        in_thread_pack_permutes(BA90E1, 0, "i16", "arith.maxsi", 1, GFX942,
                                source_values=("raw",))


def test_the_region_op_count():
    region = "^bb0(%a: i16, %b: i16):\n  %c = arith.maxsi %a, %b : i16\n  tt.reduce.return %c : i16\n"
    assert combine_op_count(region) == 1
    two = region.replace("  tt.reduce", "  %d = arith.addi %a, %b : i16\n  tt.reduce")
    assert combine_op_count(two) == 2
    assert combine_op_count("%c = arith.maxsi %a, %b : i16") is None
    assert combine_op_count(None) is None
