#!/usr/bin/env python
"""Triton's shared-memory allocator against its replay (``linlayout/triton/allocation.py``):
every NVIDIA probe TTGIR kept in ``tests/data`` whose buffers the replay sizes is run through
Triton 3.9.0's own passes up to ``allocate_shared_memory_nv`` (CPU only, no GPU), and the
offset Triton writes on each ``ttg.local_alloc``, each ``ttg.warp_specialize`` (its capture
struct) and the ``tt.func`` (the worker-warp state bytes) is compared with the replay's.

Run with Triton 3.9.0 installed (~1 min)::

    python papers/triton_lowering/allocation_probes.py          # writes tests/data/triton_allocation_offsets.json.gz
    python papers/triton_lowering/allocation_probes.py --check  # compare, write nothing

The replay was written from ``lib/Analysis/Allocation.cpp`` before this comparison was run
(first run: 467 of 467 placed modules equal); converts' scratch (sized from the scratch layout
``check`` predicts: 710 of 710) and reduces' (``ReduceOpHelper::getScratchSizeInBytes`` over
the cross-warp rounds: 991 of 991, with the reduction fixtures added) and scans' on blocked
layouts (``ScanLoweringHelper::getScratchSizeInBytes``: 1194 of 1194, with the scan fixture
added) were added afterwards and compared the same way; then gathers', histograms' and
atomics' scratch and ``shared_linear`` alignments (``defaultAllocationAnalysisScratchSizeFn``,
``GatherLoweringHelper``, ``getRepShapeForAtomic``, ``LocalAllocOp::getAlignmentOrDefault``:
1249 of 1249, with the kernel's total ``ttg.shared`` compared too and three ``VARIANTS``
whose gather and atomics do need scratch); then ``padded_shared`` buffers
(``getPaddedSize``, 16-byte aligned) with the two padded-layout probe fixtures and a variant
holding two padded buffers: 1335 of 1335; then, after the held-out traffic set's grouped and
persistent matmuls and sm_100 attention showed two liveness rules missing (an ``scf.for``'s
own arguments read as uses of it; a buffer yielded into a loop live from the loop's top), a
module written after each rule (``loop_in_loop_dealloc``, ``yielded_into_loop``): 1337 of
1337. Modules the replay does not
place (an op whose scratch size it does not model) are counted and skipped. Mismatches are printed and the exit status is non-zero.
"""

from __future__ import annotations

import gzip
import json
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import write_or_check  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_allocation_offsets.json.gz"
SOURCES = ("triton_warp_specialize_probes", "triton_global_probes", "triton_convert_probes",
           "triton_heldout_probes", "triton_reduce_probes", "triton_unused_result_probes",
           "triton_scan_probes", "triton_padded_fault_probes", "triton_padded_view_probes")


#: Modules derived from the probes (or written out) whose scratch the probes leave at 0:
#: ``{name: (base "source/name" or None, [(old, new), ...] or the whole TTGIR)}``. They are
#: kept whole in the fixture's ``"variants"`` and replayed under ``variants/<name>``.
SCALAR_ATOMIC = """module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, \
ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @probe(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>) attributes {noinline = false} {
    %one = arith.constant 1.000000e+00 : f32
    %true = arith.constant true
    %old = tt.atomic_rmw fadd, acq_rel, gpu, %X, %one, %true : (!tt.ptr<f32>, f32, i1) -> f32
    %old2 = tt.atomic_cas acq_rel, gpu, %Y, %one, %old : (!tt.ptr<f32>, f32, f32) -> f32
    tt.store %X, %old2 : !tt.ptr<f32>
    tt.return
  }
}
"""
TWO_PADDED = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], \
warpsPerCTA = [4, 1], order = [1, 0]}>
#shA = #ttg.padded_shared<[512:+1] {order = [1, 0], shape = [16, 64]}>
#shB = #ttg.padded_shared<[256:+1] {order = [1, 0], shape = [16, 32]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, \
ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<16x64xf16, #blocked>, %y: tensor<16x32xf16, #blocked>) \
-> (tensor<16x64xf16, #blocked>, tensor<16x32xf16, #blocked>) {
    %a = ttg.local_alloc %x : (tensor<16x64xf16, #blocked>) -> !ttg.memdesc<16x64xf16, #shA, #smem>
    %b = ttg.local_alloc %y : (tensor<16x32xf16, #blocked>) -> !ttg.memdesc<16x32xf16, #shB, #smem>
    %ra = ttg.local_load %a : !ttg.memdesc<16x64xf16, #shA, #smem> -> tensor<16x64xf16, #blocked>
    %rb = ttg.local_load %b : !ttg.memdesc<16x32xf16, #shB, #smem> -> tensor<16x32xf16, #blocked>
    tt.return %ra, %rb : tensor<16x64xf16, #blocked>, tensor<16x32xf16, #blocked>
  }
}
"""
#: A buffer of an outer loop deallocated after an inner loop carries views of it: the
#: convert after the dealloc reuses its bytes (the inner loop's iter_args are not uses).
LOOP_IN_LOOP = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, \
1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = \
[1, 4], order = [0, 1]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = \
"cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%n: i32, %x: tensor<64x64xf16, #blocked>, %p: \
tensor<64x64x!tt.ptr<f16>, #blocked1>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1  : i32 {
      %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
      %v0 = ttg.memdesc_index %a[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> \
-> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %r = scf.for %j = %c0 to %n step %c1 iter_args(%arg = %v0) -> \
(!ttg.memdesc<64x64xf16, #shared, #smem, mutable>)  : i32 {
        ttg.local_store %x, %arg : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, \
#shared, #smem, mutable>
        %v1 = ttg.memdesc_index %a[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, \
mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        scf.yield %v1 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      }
      ttg.local_dealloc %a : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
      %cv = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
      tt.store %p, %cv : tensor<64x64x!tt.ptr<f16>, #blocked1>
    }
    tt.return
  }
}
"""
#: A buffer allocated in a loop and yielded: the loop's block argument aliases it from the
#: top of the loop, so the convert there may not share its bytes.
YIELDED_INTO_LOOP = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, \
1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = \
[1, 4], order = [0, 1]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = \
"cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%n: i32, %x: tensor<64x64xf16, #blocked>, %p: \
tensor<64x64x!tt.ptr<f16>, #blocked1>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b0 = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, \
#shared, #smem, mutable>
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%arg = %b0) -> (!ttg.memdesc<64x64xf16, \
#shared, #smem, mutable>)  : i32 {
      %cv = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
      tt.store %p, %cv : tensor<64x64x!tt.ptr<f16>, #blocked1>
      %t = ttg.local_load %arg : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> \
tensor<64x64xf16, #blocked>
      %b1 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttg.local_store %t, %b1 : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, \
#shared, #smem, mutable>
      scf.yield %b1 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    }
    %u = ttg.local_load %r : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> \
tensor<64x64xf16, #blocked1>
    tt.store %p, %u : tensor<64x64x!tt.ptr<f16>, #blocked1>
    tt.return
  }
}
"""
VARIANTS = {
    # two padded buffers live together: 2050 bytes, then one at the padded layout's alignment
    "two_padded_buffers": (None, TWO_PADDED),
    # warps split the gather axis: not warp-local, the whole source goes to shared memory
    "gather_warps_on_axis": ("triton_heldout_probes/gather_M128_N8_i64_i32_i64_w4_100", [(
        "#blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], "
        "warpsPerCTA = [1, 4], order = [0, 1]}>",
        "#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
        "warpsPerCTA = [4, 1], order = [0, 1]}>")]),
    # 16 warps over 256 elements: the used result broadcasts, so it goes through scratch
    "atomic_broadcast_result": ("triton_global_probes/check_atomic_9_cuda90", [
        ("warpsPerCTA = [8]", "warpsPerCTA = [16]"),
        ('"ttg.num-warps" = 8', '"ttg.num-warps" = 16')]),
    "atomic_scalar_results": (None, SCALAR_ATOMIC),
    "loop_in_loop_dealloc": (None, LOOP_IN_LOOP),
    "yielded_into_loop": (None, YIELDED_INTO_LOOP),
}


def variant_ttgirs() -> dict[str, str]:
    """The TTGIR of every :data:`VARIANTS` module."""
    out = {}
    for name, (base, edit) in VARIANTS.items():
        if base is None:
            out[name] = edit
            continue
        source, probe = base.split("/", 1)
        text = json.loads(gzip.decompress((ROOT / "tests" / "data" / f"{source}.json.gz")
                                          .read_bytes()))["probes"][probe]["ttgir"]
        for old, new in edit:
            if old not in text:
                raise SystemExit(f"variant {name}: {old!r} not in {base}")
            text = text.replace(old, new)
        out[name] = text
    return out


def triton_offsets(ttgir: str, capability: int) -> dict:
    """The offsets Triton's own allocator gives: ``{"alloc": [...], "captures": [...],
    "state": offset or None}`` in file order."""
    from triton._C.libtriton import ir, nvidia, passes
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend

    ctx = ir.context()
    ir.load_dialects(ctx)
    CUDABackend(GPUTarget("cuda", capability, 32)).load_dialects(ctx)
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(ttgir)
    mod = ir.parse_mlir_module(f.name, ctx)
    mod.context = ctx
    pm = ir.pass_manager(ctx)  # make_llir's passes up to the allocation (Triton 3.9.0)
    passes.ttgpuir.add_combine_tensor_select_and_if(pm)
    passes.ttgpuir.add_allocate_warp_groups(pm, False)
    passes.convert.add_scf_to_cf(pm)
    passes.gluon.add_inliner(pm)
    nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, capability, 87)
    pm.run(mod, "allocation_probes")
    pathlib.Path(f.name).unlink()
    out: dict = {"alloc": [], "captures": [], "scratch": [], "state": None, "size": None}
    for line in str(mod).splitlines():
        total = re.search(r'"?ttg\.shared"? = (\d+)', line)
        if total and line.lstrip().startswith("module"):
            out["size"] = int(total.group(1))
        m = re.search(r"allocation\.offset = (\d+)", line)
        if not m:
            continue
        if "tt.func" in line:
            out["state"] = int(m.group(1))
        elif "ttg.warp_specialize" in line:
            out["captures"].append(int(m.group(1)))
        elif "local_alloc" in line:
            out["alloc"].append(int(m.group(1)))
        else:
            out["scratch"].append(int(m.group(1)))
    return out


def replay_offsets(ttgir: str) -> dict | None:
    """The replay's offsets in the same form, None where it does not place the module (the
    converts' scratch sized as ``linlayout check`` sizes it)."""
    from linlayout.check.shared_memory.ops import module_allocation, predict_module
    from linlayout.triton.ttgir import read_ttgir

    module = read_ttgir(ttgir, "probe")
    placed, _ = module_allocation(module, predict_module(module))
    if placed is None:
        return None
    return {"alloc": [b.offset_bytes for b in placed.buffers if b.kind == "alloc"],
            "captures": [b.offset_bytes for b in placed.buffers if b.kind == "captures"],
            "scratch": [b.offset_bytes for b in placed.buffers if b.kind == "scratch"],
            "state": placed.offset("state"), "size": placed.size_bytes}


def build() -> tuple[dict, int, int]:
    import triton

    probes, bad, skipped = {}, 0, 0
    for source in SOURCES:
        data = json.loads(gzip.decompress((ROOT / "tests" / "data" / f"{source}.json.gz")
                                          .read_bytes()))
        for name, e in sorted(data["probes"].items()):
            target = str(e.get("target", ""))
            if not target.startswith("cuda"):
                continue
            mine = replay_offsets(e["ttgir"])
            if mine is None:
                skipped += 1
                continue
            truth = triton_offsets(e["ttgir"], int(re.search(r"\d+", target).group(0)))
            if truth != mine:
                bad += 1
                print(f"MISMATCH {source}/{name}: Triton {truth}, replay {mine}")
            probes[f"{source}/{name}"] = truth
    variants = variant_ttgirs()
    for name, text in variants.items():
        mine = replay_offsets(text)
        truth = triton_offsets(text, int(re.search(r'cuda:(\d+)', text).group(1)))
        if truth != mine:
            bad += 1
            print(f"MISMATCH variants/{name}: Triton {truth}, replay {mine}")
        probes[f"variants/{name}"] = truth
    return {"triton_version": triton.__version__, "probes": probes,
            "variants": variants}, bad, skipped


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture, write nothing")
    args = ap.parse_args(argv)
    data, bad, skipped = build()
    n = len(data["probes"])
    print(f"{n - bad}/{n} modules placed as Triton places them ({skipped} not placed: a "
          "scratch size the replay does not model)")
    status = write_or_check(OUT, data, args.check)
    return 1 if bad else status


if __name__ == "__main__":
    sys.exit(main())
