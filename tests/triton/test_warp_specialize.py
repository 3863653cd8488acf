"""``linlayout.triton.warp_specialize``: regions, partitions and captures of TTGIR."""

from __future__ import annotations

import pytest

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


def test_partitions_span_their_regions():
    from linlayout.triton.warp_specialize import Partition, find_partitions

    assert find_partitions(TEXT) == (Partition(0, 1, 9, 12), Partition(1, 2, 13, 16))
    # found even where the region's captures cannot be read (find_warp_specialize skips it)
    broken = TEXT.replace("} : (!tt.ptr<f32>, i32, i32) -> ()", "} : (i32) -> ()")
    assert find_warp_specialize(broken) == ()
    assert find_partitions(broken) == find_partitions(TEXT)
    # an unclosed partition (a truncated file) spans to the end of the text
    assert find_partitions(TEXT[:TEXT.index("ttg.warp_return")]) == (Partition(0, 1, 9, 11),)
    assert find_partitions("tt.func @k() {\n tt.return\n}") == ()


def test_a_nested_region_inside_a_partition_stays_inside_it():
    from linlayout.triton.warp_specialize import find_partitions

    text = TEXT.replace("      %0 = arith.addi %arg3, %arg4 : i32\n",
                        "      scf.if %c {\n        %0 = arith.addi %arg3, %arg4 : i32\n"
                        "      } else {\n        %9 = arith.addi %arg3, %arg3 : i32\n      }\n")
    (p0, p1) = find_partitions(text)
    assert (p0.first_line, p0.last_line, p1.first_line, p1.last_line) == (9, 16, 17, 20)


@pytest.mark.parametrize("warps, match", [
    ("3", r"partition0 has num_warps\(3\); a partition runs a power-of-two number"),
    ("0", r"num_warps\(0\)"),
    # was a ValueError (Python's 4,300-digit limit): exit 3
    ("9" * 5000, "an integer with 5000 digits"),
    # fuzz (seed 7391): 2^32 worker warps, one state byte each, listed store by store: a hang
    ("4294967296", r"at most 1024 \(MAX_PARTITION_WARPS\)"),
])
def test_a_partition_s_warps_must_be_a_power_of_two(warps, match):
    from linlayout import LayoutError
    from linlayout.triton import read_ttgir
    from linlayout.triton.warp_specialize import find_partitions

    text = TEXT.replace("num_warps(1)", f"num_warps({warps})")
    with pytest.raises(LayoutError, match=match):
        find_partitions(text)
    with pytest.raises(LayoutError, match=match):
        find_warp_specialize(text)
    with pytest.raises(LayoutError, match=match):
        read_ttgir(text)


def test_partition_segments_give_the_innermost_partition_of_every_line():
    import bisect
    import random

    from linlayout.triton.warp_specialize import Partition, partition_segments

    rng = random.Random(9157)
    for _ in range(200):
        # a laminar family, as matched braces give (nested only in hostile text)
        parts, free = [], [(1, 400)]
        for k in range(rng.randint(0, 12)):
            lo, hi = free.pop(rng.randrange(len(free)))
            if hi - lo < 3:
                continue
            a = rng.randint(lo, hi - 2)
            b = rng.randint(a + 1, hi)
            parts.append(Partition(k, 1 << rng.randint(0, 5), a, b))
            free += [(lo, a - 1), (a + 1, b - 1), (b + 1, hi)]
        parts.sort(key=lambda p: p.first_line)
        starts, owners = partition_segments(tuple(parts))
        for line in range(0, 402):
            inside = [p for p in parts if p.first_line < line <= p.last_line]
            want = max(inside, key=lambda p: p.first_line) if inside else None
            assert owners[bisect.bisect_right(starts, line) - 1] == want
