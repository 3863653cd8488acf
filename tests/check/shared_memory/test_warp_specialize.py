"""``linlayout.check.shared_memory.warp_specialize``: Triton 3.9.0's warp-specialisation
traffic (state bytes, the workers' switch load, captures)."""

from __future__ import annotations

from linlayout.check.shared_memory.ops import predict_module
from linlayout.check.shared_memory.warp_specialize import (capture_bytes, capture_widths,
                                                           merged_capture_accesses,
                                                           merged_state_stores, split_misaligned,
                                                           state_bytes)
from linlayout.triton.ttgir import read_ttgir
from linlayout.triton.warp_specialize import WarpSpecialize

from tests.triton.test_warp_specialize import TEXT


def _region(*warps):
    return WarpSpecialize(1, warps, (), (), ())


def test_one_state_byte_per_worker_warp_in_whole_warp_groups():
    assert state_bytes(4, (_region(1),)) == 4
    assert state_bytes(4, (_region(4, 1),)) == 8
    assert state_bytes(8, (_region(8, 4),)) == 12
    assert state_bytes(4, (_region(1), _region(4, 4))) == 8


def test_llvm_merges_state_bytes_by_alignment():
    assert merged_state_stores(None, 4) == [4]
    assert merged_state_stores(None, 8) is None  # the allocator's offset decides
    assert merged_state_stores(12, 8) == [4, 4]
    assert merged_state_stores(0, 12) == [8, 4]
    assert merged_state_stores(0, 16) == [16]


def test_adjacent_aligned_captures_are_merged():
    assert merged_capture_accesses([(0, 1), (1, 1)]) == [2]
    assert merged_capture_accesses([(0, 4), (4, 4)]) == [8]
    assert merged_capture_accesses([(0, 8), (8, 8)]) == [16]
    assert merged_capture_accesses([(0, 4), (8, 4)]) == [4, 4]
    assert capture_bytes("!tt.ptr<f16>") == 8 and capture_bytes("!ttg.memdesc<4xf32>") is None


def test_only_captures_of_one_size_are_merged():
    assert merged_capture_accesses([(0, 2), (2, 2), (4, 4)]) == [4, 4]
    assert merged_capture_accesses([(0, 4), (4, 2), (6, 2)]) == [4, 4]


def test_load_chains_are_widened_to_a_power_of_two_where_aligned():
    assert merged_capture_accesses([(0, 2), (2, 2), (4, 2)], widen=True) == [8]
    assert merged_capture_accesses([(0, 2), (2, 2), (4, 2)]) == [4, 2]
    assert merged_capture_accesses([(8, 4), (12, 4), (16, 4)], widen=True) == [8, 4]


def test_misaligned_captures_split_by_their_offset():
    assert split_misaligned(4, 8) == [4, 4]
    assert split_misaligned(1, 4) == [1, 1, 1, 1]
    assert split_misaligned(6, 4) == [2, 2]
    # an i8 then an i32 at byte 1 of a struct at byte 16: one byte, then four
    assert capture_widths([(0, 1), (1, 4)], 16) == [1, 1, 1, 1, 1]


def test_a_kernel_with_one_loaded_capture():
    (a, p), = [(a, p) for a, p in predict_module(read_ttgir(TEXT)) if a.op == "warp_specialize"]
    got = sorted((s.emitted.opcode, s.emitted.per_thread) for s in p.sides)
    # 4 state bytes (stored twice: entry and exit), the i32 capture stored once and loaded
    # by the one partition that uses it, the switch-loop byte
    assert got == [("ld.shared.b32", 1), ("ld.shared.b8", 1), ("st.shared.b32", 1),
                   ("st.shared.b32", 1), ("st.shared.b32", 1)]


def test_amd_regions_are_reported_not_analysed():
    text = TEXT.replace('"cuda:100"', '"hip:gfx950"').replace('"ttg.threads-per-warp" = 32',
                                                                '"ttg.threads-per-warp" = 64')
    (_, p), = [(a, p) for a, p in predict_module(read_ttgir(text)) if a.op == "warp_specialize"]
    assert not p.analysed and all(s.emitted.per_thread is None for s in p.sides)
