"""linlayout.lowering.scratch: Triton's scratch layout for converts — a bijection,
conflict-free where Triton's search finds a conflict-free pair, with the instruction tiles the
target allows."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, bank_conflicts
from linlayout.triton import parse_encoding
from linlayout.check.shared_memory import predict_convert
from linlayout.lowering.scratch import triton_scratch_layout
from linlayout.check.target import parse_target
from linlayout.lowering.scratch import (compute_segment, optimal_swizzling_ldst,
                                        reorders_bank_bases)

ROW = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
COL = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"


def _pair(shape=(64, 64)):
    return (parse_encoding(ROW).to_linear_layout(list(shape)),
            parse_encoding(COL).to_linear_layout(list(shape)))


def test_scratch_layout_is_a_bijection_onto_the_tensor():
    src, dst = _pair()
    plan = triton_scratch_layout(src, dst, 16)
    assert plan.memory.is_invertible
    assert dict(plan.memory.out_dims) == {"dim0": 64, "dim1": 64}
    assert (plan.store_tile, plan.load_tile) == ("ld/st", "ld/st")


def test_rowmajor_to_colmajor_f16_uses_ldmatrix_trans_on_nvidia_only():
    """Triton's PTX for this convert: st.shared.v4.b32 x4 + ldmatrix.x4.trans x4 on sm_80/90/100;
    16-bit ds_write/ds_read on AMD (no matrix tiles)."""
    src, dst = _pair()
    p = predict_convert(src, dst, 16, parse_target("cuda:80"))
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared.v4.b32", 4), ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4)]
    for s in p.sides:
        kw = {"instruction": s.emitted.counter} if s.emitted.counter else \
            {"vector_elems": s.emitted.vector_elems}
        assert bank_conflicts(s.dist, s.memory, element_bits=16, **kw).degree == 1
    amd = predict_convert(src, dst, 16, parse_target("hip:gfx942", 64))
    assert all(s.emitted.opcode.startswith("ds_") for s in amd.sides)


def test_converts_inside_a_warp_use_no_shared_memory():
    src, _ = _pair()
    p = predict_convert(src, src, 16, parse_target("cuda:90"))
    assert not p.uses_shared and p.sides == ()


def test_an_8bit_transpose_loads_two_bytes_per_lane():
    """``tl.trans`` of a 64×64 int8 tile (4 warps) on sm_80: the wheel's PTX has
    ``st.shared.b8`` x32 and ``ld.shared.v2.b8`` x16 per thread."""
    src = parse_encoding("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], "
                         "warpsPerCTA = [2, 2], order = [1, 0]}>").to_linear_layout([64, 64])
    dst = parse_encoding("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
                         "warpsPerCTA = [2, 2], order = [0, 1]}>").to_linear_layout([64, 64])
    # the probe converts threadsPerWarp [32, 1] into [1, 32] (trans_i8_64x64_w4_80)
    p = predict_convert(dst, src, 8, parse_target("cuda:80"))
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared.b8", 32), ("ld.shared.v2.b8", 16)]
    # the other direction: the source's register fills the word held by the other's warps
    p = predict_convert(src, dst, 8, parse_target("cuda:80"))
    assert [(s.emitted.opcode, s.emitted.per_thread) for s in p.sides] == [
        ("st.shared.v2.b8", 16), ("ld.shared.b8", 32)]


def test_optimal_swizzling_ldst_is_the_ld_st_fallback_with_tritons_estimate():
    """``optimalSwizzlingLdSt`` alone: a bijection; Triton's own estimate (read, write) is
    2^dim(segment ∩ tile) − 1 per side — 0/0 here, where the counter finds no conflict."""
    src, dst = _pair()
    plan = optimal_swizzling_ldst(src, dst, 16)
    assert plan.memory.is_invertible
    assert (plan.store_tile, plan.load_tile) == ("ld/st", "ld/st")
    assert plan.conflicts == (0, 0)
    for side in (src, dst):
        assert bank_conflicts(side, plan.memory, element_bits=16).degree == 1


def test_compute_segment_avoids_both_sides_on_unit_vectors():
    # neither set holds bits 4 and 5: they come first
    assert compute_segment([1, 2], [1, 4, 8], 6, 2) == [16, 32]
    # too few free bits: the set differences are paired and XORed (2 ^ 4)
    assert compute_segment([1, 2], [1, 4], 3, 1) == [2 ^ 4]


def test_bank_bases_are_reordered_under_128_bits_on_at_most_32_banks():
    """``optimalSwizzlingLdSt``'s ``log2Vec < 2`` reordering, guarded by ``numBanks <= 32``."""
    assert reorders_bank_bases(8, 32) and reorders_bank_bases(64, 32)
    assert not reorders_bank_bases(128, 32)
    assert not reorders_bank_bases(8, 64) and not reorders_bank_bases(64, 64)
    for bad in ((0, 32), (24, 32), (32, 48), (32, True)):
        with pytest.raises(LayoutError):
            reorders_bank_bases(*bad)


def test_a_one_warp_byte_convert_puts_the_loads_registers_first_on_32_banks_only():
    """A convert of the ``bank_order`` fixture (``14_w1_i8_64x4``): no register in common, so
    the vector is one byte; with 32 banks (gfx942) the destination's registers lead the bank
    bases and its load widens (Triton's LLVM IR: one ``<4 x i8>`` load), with 64 (gfx950)
    the bank bases stay in ``complementBasis`` order, lowest bit first (4 one-byte loads)."""
    src = parse_encoding("#ttg.linear<{register = [[16, 0], [4, 0]], lane = [[32, 0], [0, 1], "
                         "[1, 0], [2, 0], [0, 2], [8, 0]], warp = [], block = []}>"
                         ).to_linear_layout([64, 4])
    dst = parse_encoding("#ttg.linear<{register = [[1, 0], [0, 2]], lane = [[16, 0], [32, 0], "
                         "[4, 0], [2, 0], [0, 1], [8, 0]], warp = [], block = []}>"
                         ).to_linear_layout([64, 4])
    banks = {bank_bits: triton_scratch_layout(src, dst, 8, bank_bits=bank_bits,
                                              amd_load_lanes=lanes).memory.bases["bank"]
             for bank_bits, lanes in ((1024, (0, 1, 4)), (2048, (0, 1, 3, 4)))}
    assert banks[1024][:2] == dst.bases["register"]
    assert banks[2048] == sorted(banks[2048], key=lambda b: (b[1], b[0]))


def test_bad_widths_are_refused_with_a_layout_error():
    src, dst = _pair()
    for bits in (0, 3, 256):
        with pytest.raises(LayoutError, match="element_bits"):
            triton_scratch_layout(src, dst, bits)
    with pytest.raises(LayoutError, match="bank_bits"):
        optimal_swizzling_ldst(src, dst, 16, bank_bits=48)
