"""``linlayout.check.shared_memory.ops``: the scratch sizes handed to the allocator replay
(every offset they lead to is checked against Triton's own pass in
``tests/triton/test_allocation.py``)."""

from __future__ import annotations

from linlayout.check.shared_memory.ops import (atomic_scratch_bytes, convert_scratch_bytes,
                                               gather_scratch_bytes, histogram_scratch_bytes,
                                               module_allocation, predict_module,
                                               scan_scratch_bytes)
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


GATHER = """#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], \
warpsPerCTA = [WARPS], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, \
ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%s: tensor<128x8xi64, #blocked>, %i: tensor<128x8xi32, #blocked>) {
    %g = tt.gather %s[%i] {axis = 0 : i32} : (tensor<128x8xi64, #blocked>, \
tensor<128x8xi32, #blocked>) -> tensor<128x8xi64, #blocked>
    %h = tt.histogram %i : tensor<128x8xi32, #blocked> -> tensor<16xi32, #ttg.blocked<{\
sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %a = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : (tensor<128x!tt.ptr<f32>, #ttg.blocked<{\
sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<128xf32, \
#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, \
tensor<128xi1, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], \
order = [0]}>>) -> tensor<128xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], \
warpsPerCTA = [4], order = [0]}>>
    tt.return %g, %h, %a
  }
}
"""


def _scratch_accesses(warps):
    text = GATHER.replace("WARPS", warps)
    return {a.op: a for a, _ in predict_module(read_ttgir(text, "k"))}


def test_a_gather_across_warps_stages_its_whole_source():
    # warps split the gather axis: 128 x 8 i64 elements go to shared memory
    assert gather_scratch_bytes(_scratch_accesses("4, 1")["gather"]) == 128 * 8 * 8
    # warps split the other axis the same way for source and indices: warp-local
    assert gather_scratch_bytes(_scratch_accesses("1, 4")["gather"]) == 0


def test_histogram_and_atomic_scratch():
    ops = _scratch_accesses("1, 4")
    assert histogram_scratch_bytes(ops["histogram"]) == 32 * 4  # max(16 bins, 32 lanes)
    assert atomic_scratch_bytes(ops["atomic_rmw"]) == 0  # 128 lanes own 128 elements


_ASYNC = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: tensor<PTRSx!tt.ptr<f16>, #blocked>) {
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %b : tensor<PTRSx!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""


def test_an_async_copy_of_another_shape_than_its_buffer_is_not_analysed():
    # Triton 3.9's verifier accepts 32x64 pointers into a 64x64 buffer (it does not compare
    # the shapes); it was counted as a copy of part of the buffer, a lowering not modelled
    from linlayout.check import check_module

    ok = check_module(read_ttgir(_ASYNC.replace("PTRS", "64x64")))
    assert [r.status.value for r in ok.ops if r.access.line == 7] == ["counted"]
    bad = check_module(read_ttgir(_ASYNC.replace("PTRS", "32x64")))
    (r,) = [r for r in bad.ops if r.access.line == 7]
    assert r.status.value == "not analysed" and r.degree is None
    assert "a copy of a [32, 64] tensor into a memdesc of shape [64, 64]" in r.note


def test_a_scratch_op_of_more_results_than_any_op_has_is_not_analysed():
    # `%0:10^17`: each result's width was repeated 10^17 times (MemoryError); reached
    # through predict_module (check_module's AxisInfo refuses the file first)
    from linlayout.triton.limits import MAX_OP_RESULTS

    text = entries("reduce")["argmax_f32_128x16_a1_s41_t16.2_w24_o10_cuda90"]["ttgir"]
    assert '%0:2 = "tt.reduce"' in text
    module = read_ttgir(text.replace('%0:2 = "tt.reduce"', '%0:100000000000000000 = "tt.reduce"'))
    (a, err), = [(a, p) for a, p in predict_module(module) if a.op == "reduce"]
    assert f"at most {MAX_OP_RESULTS} (MAX_OP_RESULTS)" in str(err)


def test_the_other_copies_terms_equal_the_plain_union():
    # each copy sees the terms of every other distinct expression: counted once per distinct
    # expression (a union over every pair of copies took minutes on 20,000 loads)
    import random

    from linlayout.check.shared_memory.ops import _other_copies_terms

    rng = random.Random(5)
    for _ in range(300):
        pool = [("shl", rng.randrange(1, 64), rng.randrange(6)) for _ in range(8)]
        terms = {k: frozenset(rng.sample(pool, rng.randrange(0, 5)))
                 for k in range(rng.randrange(1, 9))}
        ranges = frozenset(rng.sample(pool, rng.randrange(0, 3)))
        plain = {k: frozenset().union(ranges, *[t for j, t in terms.items()
                                                if j != k and t != mine])
                 for k, mine in terms.items()}
        assert _other_copies_terms(terms, ranges) == plain
