"""Two rules of NVPTX's byte extracts (:mod:`linlayout.lowering.byte_extracts`,
``linlayout/check/registers/byte_readers.py``) on two reductions compiled with Triton 3.9.0
for a fresh-seed sweep (``papers/triton_lowering/README.md``), where ``check`` differed from
Triton's lowering (the PTX its LLVM selects with ``-O3`` skipped):

* a convert through shared memory whose loaded bytes are first read by the next
  reduction's signed in-thread ``min``: byte 0 of each loaded word is a ``cvt.s8.s32``, no
  ``prmt.b32`` (18 in the lowering, 20 before the rule);
* a reduction's reloaded words whose bytes a convert stores as words built from four loaded
  words: one byte shuffle per word pair and one joining them (three ``prmt.b32``), the
  extracts dead (40 ``prmt.b32`` on the reduction's line in the lowering, 56 before)."""

from __future__ import annotations

from linlayout.check.shared_memory.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

SIGNED_MIN_AFTER_LDMATRIX = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 2, 1], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 1, 2], order = [2, 1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @r3(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) attributes {noinline = false} {
    %cst = arith.constant dense<512> : tensor<2x1x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<1x16x1xi32, #blocked>
    %ra = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rb = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>>
    %rc = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>>
    %x = tt.expand_dims %ra {axis = 1 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<2x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_1 = tt.expand_dims %x {axis = 2 : i32} : tensor<2x1xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<2x1x1xi32, #blocked>
    %x_2 = arith.muli %x_1, %cst : tensor<2x1x1xi32, #blocked>
    %x_3 = tt.splat %X : !tt.ptr<i8> -> tensor<2x1x1x!tt.ptr<i8>, #blocked>
    %x_4 = tt.addptr %x_3, %x_2 : tensor<2x1x1x!tt.ptr<i8>, #blocked>, tensor<2x1x1xi32, #blocked>
    %x_5 = tt.expand_dims %rb {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #blocked}>}>> -> tensor<1x16xi32, #ttg.slice<{dim = 2, parent = #blocked}>>
    %x_6 = tt.expand_dims %x_5 {axis = 2 : i32} : tensor<1x16xi32, #ttg.slice<{dim = 2, parent = #blocked}>> -> tensor<1x16x1xi32, #blocked>
    %x_7 = arith.muli %x_6, %cst_0 : tensor<1x16x1xi32, #blocked>
    %x_8 = tt.broadcast %x_4 : tensor<2x1x1x!tt.ptr<i8>, #blocked> -> tensor<2x16x1x!tt.ptr<i8>, #blocked>
    %x_9 = tt.broadcast %x_7 : tensor<1x16x1xi32, #blocked> -> tensor<2x16x1xi32, #blocked>
    %x_10 = tt.addptr %x_8, %x_9 : tensor<2x16x1x!tt.ptr<i8>, #blocked>, tensor<2x16x1xi32, #blocked>
    %x_11 = tt.expand_dims %rc {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 1, parent = #blocked}>}>> -> tensor<1x32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %x_12 = tt.expand_dims %x_11 {axis = 1 : i32} : tensor<1x32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<1x1x32xi32, #blocked>
    %x_13 = tt.broadcast %x_10 : tensor<2x16x1x!tt.ptr<i8>, #blocked> -> tensor<2x16x32x!tt.ptr<i8>, #blocked>
    %x_14 = tt.broadcast %x_12 : tensor<1x1x32xi32, #blocked> -> tensor<2x16x32xi32, #blocked>
    %x_15 = tt.addptr %x_13, %x_14 : tensor<2x16x32x!tt.ptr<i8>, #blocked>, tensor<2x16x32xi32, #blocked>
    %x_16 = tt.load %x_15 : tensor<2x16x32x!tt.ptr<i8>, #blocked>
    %r = "tt.reduce"(%x_16) <{axis = 0 : i32}> ({
    ^bb0(%z_18: i8, %z_19: i8):
      %r_20 = arith.minsi %z_18, %z_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<2x16x32xi8, #blocked>) -> tensor<16x32xi8, #ttg.slice<{dim = 0, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<16x32xi8, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<16x32xi8, #blocked1>
    %r_17 = "tt.reduce"(%z) <{axis = 0 : i32}> ({
    ^bb0(%y_18: i8, %y_19: i8):
      %r_20 = arith.minsi %y_18, %y_19 : i8
      tt.reduce.return %r_20 : i8
    }) : (tensor<16x32xi8, #blocked1>) -> tensor<32xi8, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %y = ttg.convert_layout %r_17 : tensor<32xi8, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<32xi8, #blocked2>
    %0 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #blocked2>
    %1 = tt.splat %Y : !tt.ptr<i8> -> tensor<32x!tt.ptr<i8>, #blocked2>
    %2 = tt.addptr %1, %0 : tensor<32x!tt.ptr<i8>, #blocked2>, tensor<32xi32, #blocked2>
    tt.store %2, %y : tensor<32x!tt.ptr<i8>, #blocked2>
    tt.return
  }
}
"""

U8_ADD_THEN_WORDS = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @r2(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) attributes {noinline = false} {
    %cst = arith.constant dense<256> : tensor<8x1xi32, #blocked>
    %rm = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rn = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %x = tt.expand_dims %rm {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<8x1xi32, #blocked>
    %x_0 = arith.muli %x, %cst : tensor<8x1xi32, #blocked>
    %x_1 = tt.splat %X : !tt.ptr<i8> -> tensor<8x1x!tt.ptr<i8>, #blocked>
    %x_2 = tt.addptr %x_1, %x_0 : tensor<8x1x!tt.ptr<i8>, #blocked>, tensor<8x1xi32, #blocked>
    %x_3 = tt.expand_dims %rn {axis = 0 : i32} : tensor<256xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x256xi32, #blocked>
    %x_4 = tt.broadcast %x_2 : tensor<8x1x!tt.ptr<i8>, #blocked> -> tensor<8x256x!tt.ptr<i8>, #blocked>
    %x_5 = tt.broadcast %x_3 : tensor<1x256xi32, #blocked> -> tensor<8x256xi32, #blocked>
    %x_6 = tt.addptr %x_4, %x_5 : tensor<8x256x!tt.ptr<i8>, #blocked>, tensor<8x256xi32, #blocked>
    %x_7 = tt.load %x_6 : tensor<8x256x!tt.ptr<i8>, #blocked>
    %r = "tt.reduce"(%x_7) <{axis = 0 : i32}> ({
    ^bb0(%y_8: i8, %y_9: i8):
      %r_10 = arith.addi %y_8, %y_9 : i8
      tt.reduce.return %r_10 : i8
    }) : (tensor<8x256xi8, #blocked>) -> tensor<256xi8, #ttg.slice<{dim = 0, parent = #blocked}>>
    %y = ttg.convert_layout %r : tensor<256xi8, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<256xi8, #blocked1>
    %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked1>
    %1 = tt.splat %Y : !tt.ptr<i8> -> tensor<256x!tt.ptr<i8>, #blocked1>
    %2 = tt.addptr %1, %0 : tensor<256x!tt.ptr<i8>, #blocked1>, tensor<256xi32, #blocked1>
    tt.store %2, %y : tensor<256x!tt.ptr<i8>, #blocked1>
    tt.return
  }
}
"""


def _permutes(text: str) -> dict[tuple[int, str], int]:
    out = {}
    for a, p in predict_module(read_ttgir(text, "probe")):
        assert not isinstance(p, Exception), p
        out[(a.line, a.op if a.op == "reduce" else a.kind)] = sum(
            e.per_thread or 0 for e in p.registers if e.opcode == "prmt.b32")
    return out


def _first(got: dict, kind: str) -> tuple[int, str]:
    return min(k for k in got if k[1] == kind)


def test_bytes_read_first_by_a_signed_in_thread_min_spare_byte_zeros_permute():
    got = _permutes(SIGNED_MIN_AFTER_LDMATRIX)
    assert got[_first(got, "convert")] == 18  # 12 packing the stmatrix words, 6 extracts


def test_a_sign_blind_min_keeps_every_extract():
    got = _permutes(SIGNED_MIN_AFTER_LDMATRIX.replace("arith.minsi", "arith.minui"))
    assert got[_first(got, "convert")] == 20


def test_words_built_from_four_reloaded_words_kill_the_reloads_extracts():
    got = _permutes(U8_ADD_THEN_WORDS)
    assert got[_first(got, "reduce")] == 40  # 24 packing, 16 extracts of the first reload
    assert got[_first(got, "convert")] == 12  # three byte shuffles per stored word
