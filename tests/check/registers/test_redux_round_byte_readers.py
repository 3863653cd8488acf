"""NVPTX's byte extracts of a convert's loaded words read by the next reduction's first
``redux.sync`` round (``_redux_round_reads`` of ``linlayout/check/registers/byte_readers.py``;
:mod:`linlayout.lowering.byte_extracts`), on a reduction compiled with Triton 3.9.0 for a
fresh-seed sweep (``papers/triton_lowering/README.md``): an 8-bit convert through shared
memory (one ``ld.shared.b32`` per thread, four bytes) whose result is reduced by a
partitioned ``redux.sync`` round (16 lanes along the axis, one lane bit off it).

Triton's lowering (``-O3`` skipped) and the final PTX, on sm_80/90/100, with the reduction's
combine op replaced: ``add``, ``or``, ``xor``, ``maxui`` 3 ``prmt.b32`` on the convert's line
(byte 0 is ``and.b32 w, 255``), ``andi``, ``minui`` 4, ``maxsi``, ``minsi`` none on the
convert's line and 3 on the reduction's; with the round made full-warp (lanes holding copies:
``threadsPerWarp = [32, 1]``), ``add`` 8 on the convert's line, ``maxsi`` 6 on the
reduction's. A second probe has a butterfly first round: a signed ``min``/``max`` reads each
loaded byte twice (:data:`SIGNED_BUTTERFLY_AFTER_LDMATRIX`); a third, a reduction's
reloaded bytes stored one at a time by the next convert (:data:`BYTES_STORED_SINGLY`)."""

from __future__ import annotations

import pytest

from linlayout.check.registers.reduce import first_round_redux
from linlayout.check.shared_memory.ops import predict_module
from linlayout.lowering.target import Target
from linlayout.triton.ttgir import find_accesses, read_ttgir

PARTITIONED_ADD_AFTER_CONVERT = """\
#blocked = #ttg.blocked<{sizePerThread = [2, 1, 2], threadsPerWarp = [2, 4, 4], warpsPerCTA = [1, 1, 2], order = [0, 2, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [1, 2], order = [0, 1]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @r3(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) attributes {noinline = false} {
    %cst = arith.constant dense<64> : tensor<16x1x1xi32, #blocked>
    %cst_0 = arith.constant dense<16> : tensor<1x4x1xi32, #blocked>
    %ra = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rb = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rc = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>>
    %x = tt.expand_dims %ra {axis = 1 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<16x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_1 = tt.expand_dims %x {axis = 2 : i32} : tensor<16x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<16x1x1xi32, #blocked>
    %x_2 = arith.muli %x_1, %cst : tensor<16x1x1xi32, #blocked>
    %x_3 = tt.splat %X : !tt.ptr<i8> -> tensor<16x1x1x!tt.ptr<i8>, #blocked>
    %x_4 = tt.addptr %x_3, %x_2 : tensor<16x1x1x!tt.ptr<i8>, #blocked>, tensor<16x1x1xi32, #blocked>
    %x_5 = tt.expand_dims %rb {axis = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<1x4xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_6 = tt.expand_dims %x_5 {axis = 2 : i32} : tensor<1x4xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<1x4x1xi32, #blocked>
    %x_7 = arith.muli %x_6, %cst_0 : tensor<1x4x1xi32, #blocked>
    %x_8 = tt.broadcast %x_4 : tensor<16x1x1x!tt.ptr<i8>, #blocked> -> tensor<16x4x1x!tt.ptr<i8>, #blocked>
    %x_9 = tt.broadcast %x_7 : tensor<1x4x1xi32, #blocked> -> tensor<16x4x1xi32, #blocked>
    %x_10 = tt.addptr %x_8, %x_9 : tensor<16x4x1x!tt.ptr<i8>, #blocked>, tensor<16x4x1xi32, #blocked>
    %x_11 = tt.expand_dims %rc {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>> -> tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %x_12 = tt.expand_dims %x_11 {axis = 1 : i32} : tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<1x1x16xi32, #blocked>
    %x_13 = tt.broadcast %x_10 : tensor<16x4x1x!tt.ptr<i8>, #blocked> -> tensor<16x4x16x!tt.ptr<i8>, #blocked>
    %x_14 = tt.broadcast %x_12 : tensor<1x1x16xi32, #blocked> -> tensor<16x4x16xi32, #blocked>
    %x_15 = tt.addptr %x_13, %x_14 : tensor<16x4x16x!tt.ptr<i8>, #blocked>, tensor<16x4x16xi32, #blocked>
    %x_16 = tt.load %x_15 : tensor<16x4x16x!tt.ptr<i8>, #blocked>
    %r = "tt.reduce"(%x_16) <{axis = 1 : i32}> ({
    ^bb0(%z_18: i8, %z_19: i8):
      %r_20 = arith.addi %z_18, %z_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<16x4x16xi8, #blocked>) -> tensor<16x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<16x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<16x16xi8, #blocked1>
    %r_17 = "tt.reduce"(%z) <{axis = 0 : i32}> ({
    ^bb0(%y_18: i8, %y_19: i8):
      %r_20 = arith.addi %y_18, %y_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<16x16xi8, #blocked1>) -> tensor<16xi8, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %y = ttg.convert_layout %r_17 : tensor<16xi8, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<16xi8, #blocked2>
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked2>
    %1 = tt.splat %Y : !tt.ptr<i8> -> tensor<16x!tt.ptr<i8>, #blocked2>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<i8>, #blocked2>, tensor<16xi32, #blocked2>
    tt.store %2, %y : tensor<16x!tt.ptr<i8>, #blocked2>
    tt.return
  }
}
"""

#: a second compiled probe (an r3-only fresh draw): the convert goes through
#: ``stmatrix``/``ldmatrix`` and the next reduction's first round is butterfly shuffles
#: (8 lanes along the axis, two lane bits off it: no ``redux.sync``). Lowering and final
#: PTX, sm_80 and sm_100: 20 ``prmt.b32`` on the convert's line for ``minsi``/``maxsi`` (12
#: packing, each of the 4 loaded bytes twice), 16 for ``minui``/``addi``.
SIGNED_BUTTERFLY_AFTER_LDMATRIX = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 2, 2], threadsPerWarp = [4, 4, 2], warpsPerCTA = [1, 1, 1], order = [0, 2, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @r3(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) attributes {noinline = false} {
    %cst = arith.constant dense<128> : tensor<8x1x1xi32, #blocked>
    %cst_0 = arith.constant dense<16> : tensor<1x8x1xi32, #blocked>
    %ra = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rb = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rc = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>>
    %x = tt.expand_dims %ra {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<8x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_1 = tt.expand_dims %x {axis = 2 : i32} : tensor<8x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<8x1x1xi32, #blocked>
    %x_2 = arith.muli %x_1, %cst : tensor<8x1x1xi32, #blocked>
    %x_3 = tt.splat %X : !tt.ptr<i8> -> tensor<8x1x1x!tt.ptr<i8>, #blocked>
    %x_4 = tt.addptr %x_3, %x_2 : tensor<8x1x1x!tt.ptr<i8>, #blocked>, tensor<8x1x1xi32, #blocked>
    %x_5 = tt.expand_dims %rb {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<1x8xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_6 = tt.expand_dims %x_5 {axis = 2 : i32} : tensor<1x8xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<1x8x1xi32, #blocked>
    %x_7 = arith.muli %x_6, %cst_0 : tensor<1x8x1xi32, #blocked>
    %x_8 = tt.broadcast %x_4 : tensor<8x1x1x!tt.ptr<i8>, #blocked> -> tensor<8x8x1x!tt.ptr<i8>, #blocked>
    %x_9 = tt.broadcast %x_7 : tensor<1x8x1xi32, #blocked> -> tensor<8x8x1xi32, #blocked>
    %x_10 = tt.addptr %x_8, %x_9 : tensor<8x8x1x!tt.ptr<i8>, #blocked>, tensor<8x8x1xi32, #blocked>
    %x_11 = tt.expand_dims %rc {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>> -> tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %x_12 = tt.expand_dims %x_11 {axis = 1 : i32} : tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<1x1x16xi32, #blocked>
    %x_13 = tt.broadcast %x_10 : tensor<8x8x1x!tt.ptr<i8>, #blocked> -> tensor<8x8x16x!tt.ptr<i8>, #blocked>
    %x_14 = tt.broadcast %x_12 : tensor<1x1x16xi32, #blocked> -> tensor<8x8x16xi32, #blocked>
    %x_15 = tt.addptr %x_13, %x_14 : tensor<8x8x16x!tt.ptr<i8>, #blocked>, tensor<8x8x16xi32, #blocked>
    %x_16 = tt.load %x_15 : tensor<8x8x16x!tt.ptr<i8>, #blocked>
    %r = "tt.reduce"(%x_16) <{axis = 1 : i32}> ({
    ^bb0(%z_18: i8, %z_19: i8):
      %r_20 = arith.minsi %z_18, %z_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<8x8x16xi8, #blocked>) -> tensor<8x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<8x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<8x16xi8, #blocked1>
    %r_17 = "tt.reduce"(%z) <{axis = 0 : i32}> ({
    ^bb0(%y_18: i8, %y_19: i8):
      %r_20 = arith.minsi %y_18, %y_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<8x16xi8, #blocked1>) -> tensor<16xi8, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %y = ttg.convert_layout %r_17 : tensor<16xi8, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<16xi8, #blocked2>
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked2>
    %1 = tt.splat %Y : !tt.ptr<i8> -> tensor<16x!tt.ptr<i8>, #blocked2>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<i8>, #blocked2>, tensor<16xi32, #blocked2>
    tt.store %2, %y : tensor<16x!tt.ptr<i8>, #blocked2>
    tt.return
  }
}
"""

#: a third (same draw): the first reduction's move to its result layout reloads two words
#: whose bytes the next convert stores one at a time (``st.shared.b8``). Lowering and final
#: PTX, sm_80 and sm_90: the reduction's line 34 ``prmt.b32`` for ``minsi`` and 26 for
#: ``minui``/``addi``/``xori`` (each loaded word's byte 0 stored as the register's low
#: byte, no ``prmt.b32``; ``check`` had 36 and 28).
BYTES_STORED_SINGLY = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [8, 2, 2], warpsPerCTA = [1, 4, 1], order = [0, 2, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @r3(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) attributes {noinline = false} {
    %cst = arith.constant dense<128> : tensor<8x1x1xi32, #blocked>
    %cst_0 = arith.constant dense<16> : tensor<1x8x1xi32, #blocked>
    %ra = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rb = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rc = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>>
    %x = tt.expand_dims %ra {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<8x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_1 = tt.expand_dims %x {axis = 2 : i32} : tensor<8x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<8x1x1xi32, #blocked>
    %x_2 = arith.muli %x_1, %cst : tensor<8x1x1xi32, #blocked>
    %x_3 = tt.splat %X : !tt.ptr<i8> -> tensor<8x1x1x!tt.ptr<i8>, #blocked>
    %x_4 = tt.addptr %x_3, %x_2 : tensor<8x1x1x!tt.ptr<i8>, #blocked>, tensor<8x1x1xi32, #blocked>
    %x_5 = tt.expand_dims %rb {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<1x8xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_6 = tt.expand_dims %x_5 {axis = 2 : i32} : tensor<1x8xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<1x8x1xi32, #blocked>
    %x_7 = arith.muli %x_6, %cst_0 : tensor<1x8x1xi32, #blocked>
    %x_8 = tt.broadcast %x_4 : tensor<8x1x1x!tt.ptr<i8>, #blocked> -> tensor<8x8x1x!tt.ptr<i8>, #blocked>
    %x_9 = tt.broadcast %x_7 : tensor<1x8x1xi32, #blocked> -> tensor<8x8x1xi32, #blocked>
    %x_10 = tt.addptr %x_8, %x_9 : tensor<8x8x1x!tt.ptr<i8>, #blocked>, tensor<8x8x1xi32, #blocked>
    %x_11 = tt.expand_dims %rc {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>> -> tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %x_12 = tt.expand_dims %x_11 {axis = 1 : i32} : tensor<1x16xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<1x1x16xi32, #blocked>
    %x_13 = tt.broadcast %x_10 : tensor<8x8x1x!tt.ptr<i8>, #blocked> -> tensor<8x8x16x!tt.ptr<i8>, #blocked>
    %x_14 = tt.broadcast %x_12 : tensor<1x1x16xi32, #blocked> -> tensor<8x8x16xi32, #blocked>
    %x_15 = tt.addptr %x_13, %x_14 : tensor<8x8x16x!tt.ptr<i8>, #blocked>, tensor<8x8x16xi32, #blocked>
    %x_16 = tt.load %x_15 : tensor<8x8x16x!tt.ptr<i8>, #blocked>
    %r = "tt.reduce"(%x_16) <{axis = 1 : i32}> ({
    ^bb0(%z_18: i8, %z_19: i8):
      %r_20 = arith.minsi %z_18, %z_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<8x8x16xi8, #blocked>) -> tensor<8x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<8x16xi8, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<8x16xi8, #blocked1>
    %r_17 = "tt.reduce"(%z) <{axis = 1 : i32}> ({
    ^bb0(%y_18: i8, %y_19: i8):
      %r_20 = arith.minsi %y_18, %y_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<8x16xi8, #blocked1>) -> tensor<8xi8, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %y = ttg.convert_layout %r_17 : tensor<8xi8, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<8xi8, #blocked2>
    %0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #blocked2>
    %1 = tt.splat %Y : !tt.ptr<i8> -> tensor<8x!tt.ptr<i8>, #blocked2>
    %2 = tt.addptr %1, %0 : tensor<8x!tt.ptr<i8>, #blocked2>, tensor<8xi32, #blocked2>
    tt.store %2, %y : tensor<8x!tt.ptr<i8>, #blocked2>
    tt.return
  }
}
"""

FULL_WARP = "threadsPerWarp = [32, 1]"


def _permutes(text: str) -> dict[str, int]:
    """prmt.b32 per thread of the middle convert and the second reduction."""
    out = {}
    for a, p in predict_module(read_ttgir(text, "probe")):
        assert not isinstance(p, Exception), p
        if a.result in ("%z", "%r_17"):
            out[a.result] = sum(e.per_thread or 0 for e in p.registers
                                if e.opcode == "prmt.b32")
    return out


def _with(combiner: str, target: str = "cuda:90", full_warp: bool = False) -> str:
    text = PARTITIONED_ADD_AFTER_CONVERT.replace(
        "%r_20 = arith.addi %y_18", f"%r_20 = {combiner} %y_18").replace("cuda:90", target)
    return text.replace("threadsPerWarp = [16, 2]", FULL_WARP) if full_warp else text


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner", ["arith.addi", "arith.ori", "arith.xori", "arith.maxui"])
def test_byte_zero_read_by_a_zero_identity_partitioned_round_is_free(combiner, target):
    assert _permutes(_with(combiner, target)) == {"%z": 3, "%r_17": 0}


@pytest.mark.parametrize("combiner", ["arith.andi", "arith.minui"])
def test_a_partitioned_round_of_identity_minus_one_keeps_every_extract(combiner):
    assert _permutes(_with(combiner)) == {"%z": 4, "%r_17": 0}


@pytest.mark.parametrize("combiner", ["arith.maxsi", "arith.minsi"])
def test_a_signed_round_takes_the_sign_extending_extracts_to_its_line(combiner):
    assert _permutes(_with(combiner)) == {"%z": 0, "%r_17": 3}


def test_a_full_warp_round():
    assert _permutes(_with("arith.addi", "cuda:100", True)) == {"%z": 8, "%r_17": 0}
    assert _permutes(_with("arith.maxui", "cuda:80", True)) == {"%z": 8, "%r_17": 0}
    assert _permutes(_with("arith.maxsi", "cuda:80", True)) == {"%z": 0, "%r_17": 6}


def test_first_round_redux():
    module = read_ttgir(PARTITIONED_ADD_AFTER_CONVERT, "probe")
    (reduce,) = [a for a in find_accesses(module) if a.result == "%r_17"]
    layout = reduce.distributed.layout
    sm90, sm75 = Target.parse("cuda:90"), Target.parse("cuda:75")
    assert first_round_redux(layout, 0, 8, sm90, "arith.addi") == "partitioned"
    assert first_round_redux(layout, 0, 8, sm90, "arith.mulf") is None
    assert first_round_redux(layout, 0, 8, sm75, "arith.addi") is None
    assert first_round_redux(layout, 1, 8, sm90, "arith.addi") is None  # 2 lanes on dim 1: under the threshold


@pytest.mark.parametrize("target", ["cuda:80", "cuda:100"])
@pytest.mark.parametrize("combiner, convert", [("arith.minsi", 20), ("arith.maxsi", 20),
                                               ("arith.minui", 16), ("arith.addi", 16)])
def test_a_signed_butterfly_round_reads_each_byte_twice(combiner, target, convert):
    text = SIGNED_BUTTERFLY_AFTER_LDMATRIX.replace(
        "%r_20 = arith.minsi %y_18", f"%r_20 = {combiner} %y_18").replace("cuda:100", target)
    assert _permutes(text) == {"%z": convert, "%r_17": 0}


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90"])
@pytest.mark.parametrize("combiner, reduce", [("arith.minsi", 34), ("arith.minui", 26),
                                              ("arith.addi", 26), ("arith.xori", 26)])
def test_reloaded_bytes_stored_singly_spare_byte_zeros_permute(combiner, target, reduce):
    text = BYTES_STORED_SINGLY.replace("arith.minsi", combiner).replace("cuda:90", target)
    got = {}
    for a, p in predict_module(read_ttgir(text, "probe")):
        if a.result == "%r":
            got[a.result] = sum(e.per_thread or 0 for e in p.registers
                                if e.opcode == "prmt.b32")
    assert got == {"%r": reduce}
