"""``linlayout.check.shared_memory.scan``: tt.scan's reloads and what LLVM leaves of them
(the loads ``check`` counts on NVIDIA and AMD alike)."""

from __future__ import annotations

import pytest

from linlayout.check.shared_memory.predict import predict_private
from linlayout.check.shared_memory.scan import (ScanShape, amd_byte_runs, merged_reload_bytes,
                                                scan_shape)
from linlayout.check.target import parse_target
from linlayout.triton.parse import parse_encoding


def _layout(spt, tpw, wpc, order, shape):
    enc = parse_encoding(f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, "
                         f"warpsPerCTA = {wpc}, order = {order}}}>")
    return enc.to_linear_layout(shape)


@pytest.mark.parametrize("loads, nbytes, want", [
    (4, 4, [16]), (3, 4, [16]),            # a run one short of a vector is padded
    (8, 4, [16, 16]), (7, 4, [16, 16]),
    (1, 4, [4]), (2, 4, [8]),              # a single load stays scalar
    (7, 8, [16, 16, 16, 8]), (3, 8, [16, 8]),  # no 32-byte vector: no padding
    (3, 2, [8]), (7, 2, [16]), (8, 2, [16]), (3, 1, [4]), (1, 8, [8]),
])
def test_merged_reload_bytes(loads, nbytes, want):
    assert merged_reload_bytes(loads, nbytes) == want


def test_scan_shape_of_a_1d_tile_and_of_one_with_parallel_lanes():
    s = scan_shape(_layout([4], [32], [4], [0], [1024]), 0)
    assert (s.chunks, s.outputs, s.warps, s.uniform) == (2, 1, 4, True)
    s = scan_shape(_layout([1, 4], [4, 8], [4, 1], [1, 0], [128, 32]), 0)
    assert (s.chunks, s.outputs, s.warps, s.uniform) == (8, 4, 4, False)
    s = scan_shape(_layout([2, 4], [32, 1], [4, 1], [1, 0], [256, 4]), 0)
    assert (s.chunks, s.outputs, s.warps, s.uniform) == (1, 4, 4, True)


def test_cumsum_1d_reloads_become_two_vector_loads_on_nvidia():
    op = _layout([4], [32], [4], [0], [1024])
    p = predict_private("scan", op, op, 32, parse_target("cuda:90"), 0)
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared::cta.b32", 2), ("ld.shared.v4.b32", 2)]
    assert [(e.opcode, e.per_thread) for e in p.extra["triton_loads"]] == [
        ("ld.shared.b32", 8)]
    assert p.extra["loads_after_llvm"] == 7


def test_reloads_of_parallel_lanes_stay_scalar_and_amd_drops_the_dead_reloads_too():
    op = _layout([1, 4], [4, 8], [4, 1], [1, 0], [128, 32])
    p = predict_private("scan", op, op, 32, parse_target("cuda:90"), 0)
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared::cta.b32", 32), ("ld.shared.b32", 124)]  # corpus cumsum_axis0
    p = predict_private("scan", op, op, 32, parse_target("hip:gfx942"), 0)
    # Triton's 128 reloads less the unused one per output (4), paired by LLVM's
    # SILoadStoreOptimizer (totals of one position 32 dwords apart), as the stores
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("ds_write2_b32", 16), ("ds_read2_b32", 62)]
    assert [(e.opcode, e.per_thread) for e in p.extra["triton_loads"]] == [("ds_read_b32", 128)]
    assert [(e.opcode, e.per_thread) for e in p.extra["llvm_loads"]] == [("ds_read2_b32", 62)]


def test_an_amd_scan_counts_the_bytes_the_final_assembly_loads():
    """``tl.cumsum`` of ``i8`` (widened to ``i32``) along axis 0 of a 32x128 tile on gfx950,
    4 warps and 8 chunks along the axis (as ``t_cumsum_b8_32x128_w8`` of a held-out draw):
    Triton reloads 32 totals (128 bytes); the final AMDGCN, 14 ``ds_read2st64_b32`` and 3
    ``ds_read_b32``, loads 124 bytes — LLVM drops the last chunk's last total. The model
    pairs one more (15 and 1: LLVM's leaving 3 reloads single on such scans is not
    modelled); the bytes are the AMDGCN's."""
    op = _layout([1, 1], [1, 64], [4, 2], [1, 0], [32, 128])
    s = scan_shape(op, 0)
    assert (s.chunks, s.outputs, s.warps, s.uniform) == (8, 1, 4, False)
    p = predict_private("scan", op, op, 32, parse_target("hip:gfx950"), 0)
    assert [(x.emitted.opcode, x.emitted.per_thread, x.emitted.bytes_per_thread)
            for x in p.sides] == [("ds_write2st64_b32", 4, 32), ("ds_read_b32", 1, 4),
                                  ("ds_read2st64_b32", 15, 120)]
    assert sum(x.bytes_per_thread for x in p.extra["triton_loads"]) == 128


def test_the_runs_of_used_reloads_follow_tritons_scratch_order():
    # 1-D: 4 chunks of 2 warps, totals at c * 2 + w; only the very last one is unused
    s = scan_shape(_layout([1], [64], [2], [0], [512]), 0)
    assert (s.chunks, s.outputs, s.warps) == (4, 1, 2)
    assert amd_byte_runs(s) == [7]
    # two outputs in the lowest register bit: chunk c, output o at group 2c + o; the last
    # chunk's two groups each lose their last warp's total
    s = scan_shape(_layout([2, 2], [64, 1], [4, 1], [1, 0], [1024, 2]), 0)
    assert (s.chunks, s.outputs, s.warps, s.roles) == (2, 2, 4, ("output", "element", "chunk"))
    assert amd_byte_runs(s) == [11, 3]
    s = scan_shape(_layout([1, 2], [64, 1], [2, 1], [1, 0], [512, 2]), 0)
    assert amd_byte_runs(s) == [13, 1]


def test_amd_reads_the_tail_of_a_byte_run_of_4k_plus_3_as_a_dword():
    """Totals every thread reloads alike are merged by LLVM's LoadStoreVectorizer (16-byte
    aligned scratch): a run of 15 used bytes is read as 12 + 4 (``ds_read_b96``, then the
    3-byte tail aligned to 4 widened to one ``ds_read_b32``, the deleted total's byte
    included), 15 dwords as 3 ``ds_read_b128`` and a ``ds_read_b96`` (the compiled
    ``argscan_i8_4096_a0_s4_t64_w2_o0_gfx950`` of ``scan_amd_fresh``); the stores of two
    operands stay unpaired."""
    op = _layout([4], [64], [2], [0], [4096])  # 8 chunks, 2 warps
    p = predict_private("scan", op, op, 8, parse_target("hip:gfx950"), 0, operands=2,
                        operand_bits=(8, 32))
    got = sorted((x.emitted.opcode, x.emitted.per_thread) for x in p.sides)
    assert got == [("ds_read_b128", 3), ("ds_read_b32", 1), ("ds_read_b96", 1),
                   ("ds_read_b96", 1), ("ds_write_b32", 8), ("ds_write_b8", 8)]
    assert sum(x.emitted.bytes_per_thread for x in p.sides if x.emitted.side == "load") == 76
    # 15 halves: 16 + 12 bytes, one left
    p = predict_private("scan", op, op, 16, parse_target("hip:gfx950"), 0)
    assert [(x.emitted.opcode, x.emitted.per_thread) for x in p.sides
            if x.emitted.side == "load"] == [("ds_read_b128", 1), ("ds_read_b96", 1),
                                             ("ds_read_u16", 1)]
    op = _layout([1, 2], [64, 1], [2, 1], [1, 0], [512, 2])  # runs of 13 and 1: no dword
    p = predict_private("scan", op, op, 8, parse_target("hip:gfx942"), 0)
    assert [(x.emitted.opcode, x.emitted.per_thread) for x in p.sides
            if x.emitted.side == "load"] == [("ds_read_b96", 1), ("ds_read_u8", 2)]


def test_amd_leaves_dword_reloads_of_narrow_totals_single():
    """A dword reload of 8-bit totals (a merged run of four, or the widened 3-byte tail) is
    not paired by LLVM (a fit: no compiled scan pairs one). ``tl.associative_scan`` maxima of
    ``i8`` on gfx942 (the compiled ``s_max_i8_512_w4`` and ``s_max_i8_2x512_ax1_w2`` of
    ``lds_heldout.py --scans``): 7 used bytes per run, read as a dword and the widened tail,
    two ``ds_read_b32`` per run where pairing would give one ``ds_read2_b32``."""
    op = _layout([1], [64], [4], [0], [512])
    p = predict_private("scan", op, op, 8, parse_target("hip:gfx942"), 0)
    assert [(x.emitted.opcode, x.emitted.per_thread) for x in p.sides] == [
        ("ds_write_b8", 2), ("ds_read_b32", 2)]
    op = _layout([1, 1], [1, 64], [1, 2], [1, 0], [2, 512])  # two rows: two runs
    p = predict_private("scan", op, op, 8, parse_target("hip:gfx942"), 1)
    assert [(x.emitted.opcode, x.emitted.per_thread) for x in p.sides] == [
        ("ds_write_b8", 8), ("ds_read_b32", 4)]


def test_byte_runs_need_the_register_roles():
    from linlayout import LayoutError

    with pytest.raises(LayoutError, match="no register roles"):
        amd_byte_runs(ScanShape(2, 1, 4, True))


def test_two_operands_merge_each_at_its_width():
    op = _layout([2], [32], [8], [0], [512])
    p = predict_private("scan", op, op, 64, parse_target("cuda:90"), 0, operands=2,
                        operand_bits=(64, 32))
    got = {(s.emitted.opcode, s.emitted.per_thread) for s in p.sides if s.emitted.side == "load"}
    assert got == {("ld.shared.v2.b64", 3), ("ld.shared.b64", 1), ("ld.shared.v4.b32", 2)}


def test_scan_shape_refuses_an_axis_the_operand_lacks():
    from linlayout import LayoutError

    with pytest.raises(LayoutError, match="axis 1 is not a dim"):
        scan_shape(_layout([4], [32], [4], [0], [1024]), 1)
