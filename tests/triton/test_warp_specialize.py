"""``linlayout.triton.warp_specialize``: regions, partitions and captures of TTGIR."""

from __future__ import annotations

from linlayout.triton.warp_specialize import find_warp_specialize, split_types

TEXT = """\
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%X: !tt.ptr<i32> loc("X"(#loc1)), %Y: !tt.ptr<f32>) attributes {noinline = false} {
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %a = tt.load %X : !tt.ptr<i32> loc(#loc3)
    ttg.warp_specialize(%Y, %a, %pid) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      ttg.warp_yield
    }
    partition0(%arg2: !tt.ptr<f32> loc(unknown), %arg3: i32 loc(unknown), %arg4: i32) num_warps(1) {
      %0 = arith.addi %arg3, %arg4 : i32
      ttg.warp_return
    }
    partition1(%arg2: !tt.ptr<f32>, %arg3: i32, %arg4: i32) num_warps(2) {
      %1 = arith.addi %arg4, %arg4 : i32
      ttg.warp_return
    } : (!tt.ptr<f32>, i32, i32) -> ()
    tt.return
  }
}
"""


def test_a_region_lists_partitions_captures_and_uses():
    (r,) = find_warp_specialize(TEXT)
    assert r.line == 5
    assert r.partition_warps == (1, 2)
    assert r.capture_types == ("!tt.ptr<f32>", "i32", "i32")
    # the kernel argument and the program id are rematerialised, the loaded value is not
    assert r.trivial == (True, False, True)
    assert r.used == ((False, True, True), (False, False, True))


def test_text_without_regions_has_none():
    assert find_warp_specialize("tt.func @k() {\n tt.return\n}") == ()
    assert find_warp_specialize(TEXT.replace("} : (!tt.ptr", "} (!tt.ptr")) == ()


def test_types_split_at_top_level_commas():
    assert split_types("i32, tensor<4x4xf16, #blocked>, !tt.ptr<f32>") == \
        ["i32", "tensor<4x4xf16, #blocked>", "!tt.ptr<f32>"]
