"""``linlayout.check.shared_memory.ops``: the scratch sizes handed to the allocator replay
(every offset they lead to is checked against Triton's own pass in
``tests/triton/test_allocation.py``)."""

from __future__ import annotations

from linlayout.check.shared_memory.ops import (convert_scratch_bytes, module_allocation,
                                               predict_module, scan_scratch_bytes)
from linlayout.triton.ttgir import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries


def _sizes(name):
    module = read_ttgir(entries("reduce")[name]["ttgir"], name)
    return module, convert_scratch_bytes(predict_module(module))


def test_a_cross_warp_argmax_sums_its_two_operands_over_the_largest_round():
    # f32 values and i32 indices: 4 bytes each per element of the round's scratch layout
    _, sizes = _sizes("argmax_f32_128x16_a1_s41_t16.2_w24_o10_cuda90")
    assert list(sizes.values()) == [4096]


def test_a_reduce_within_warps_needs_no_scratch():
    _, sizes = _sizes("argmax_f16_128x16_a0_s41_t8.4_w14_o01_cuda90")
    assert list(sizes.values()) == [0]


def test_a_scan_across_warps_is_sized_and_placed():
    # 64x64 f32, sizePerThread [8, 1], threadsPerWarp [2, 16], warpsPerCTA [4, 1], axis 0:
    # 4 warps x 16 off-axis lanes x 1 off-axis element x 1 block along x 4 blocks off the
    # axis = 256 elements of 4 bytes
    module, sizes = _sizes("cumsum_f32_64x64_a0_s81_t2.16_w41_o01_cuda90")
    assert list(sizes.values()) == [1024]
    scan = next(a for a, _ in predict_module(module) if a.op == "scan")
    assert scan_scratch_bytes(scan) == 1024
    placed, why = module_allocation(module, predict_module(module))
    assert placed is not None and placed.offset("scratch") is not None, why
