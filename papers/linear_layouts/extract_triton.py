"""Ask an installed Triton for the linear layouts (and its bank-conflict counts) used in papers/.

Writes ``papers/linear_layouts/data/triton_layouts.json`` so that the reproductions run without
Triton (a ~1 GB install). Needs ``pip install triton`` (3.9 was used; CPU only). Triton is asked
through Gluon's frontend — ``ttgl.to_linear_layout`` and ``ttgl.bank_conflicts`` evaluated in a
parsed (not compiled) kernel, as Triton's own ``python/test/gluon/test_frontend.py`` does;
calling the builder outside a kernel crashes the interpreter in 3.9.

Two lists:

* ``bank_conflict_cases``: the eleven NVIDIA cases of ``test_bank_conflicts`` in Triton's
  ``python/test/gluon/test_frontend.py`` (the same cases as ``BankConflictTest.bankConflicts``
  in ``unittest/Dialect/TritonGPU/SwizzleTest.cpp``), with the expected count published there
  (Triton's counter: extra wavefronts per wavefront, ``degree − 1``) and the count this Triton
  returns live.
* ``zoo``: real ``convert_layout`` pairs (blocked, mma v2/v3 accumulators, dot operands,
  transposes) as Triton lowers them to linear layouts.

Run:  python papers/linear_layouts/extract_triton.py
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "triton_layouts.json"


def main() -> int:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    warnings.filterwarnings("ignore")
    try:
        import triton
        from triton._filecheck import run_parser
        from triton.backends.compiler import GPUTarget
        from triton.experimental import gluon
        from triton.experimental.gluon import language as ttgl
        from triton.experimental.gluon.language._semantic import GluonSemantic
    except ImportError as exc:
        print(f"needs Triton with Gluon (pip install triton): {exc}", file=sys.stderr)
        return 2

    ampere = GPUTarget("cuda", 80, 32)
    record: list = []
    orig_ll = GluonSemantic.to_linear_layout
    orig_bc = GluonSemantic.bank_conflicts

    def to_ll(self, layout, shape):
        res = orig_ll(self, layout, shape)
        record.append(res.value if hasattr(res, "value") else res)
        return res

    def bank(self, distr_ty, shared_ty):
        res = orig_bc(self, distr_ty, shared_ty)
        record.append(int(res))
        return res

    GluonSemantic.to_linear_layout = to_ll
    GluonSemantic.bank_conflicts = bank

    @gluon.jit
    def ll_kernel(a: ttgl.constexpr, b: ttgl.constexpr, shape: ttgl.constexpr):
        x: ttgl.constexpr = ttgl.to_linear_layout(a, shape)  # noqa: F841
        y: ttgl.constexpr = ttgl.to_linear_layout(b, shape)  # noqa: F841

    @gluon.jit
    def bc_kernel(reg_type: ttgl.constexpr, shared_type: ttgl.constexpr):
        c: ttgl.constexpr = ttgl.bank_conflicts(reg_type, shared_type)  # noqa: F841

    def lin(obj, shape) -> dict:
        out_dims = {f"dim{i}": s for i, s in enumerate(shape)}
        if hasattr(obj, "reg_bases"):
            bases = {"register": obj.reg_bases, "lane": obj.lane_bases, "warp": obj.warp_bases}
        else:
            bases = {"offset": obj.offset_bases}
        if obj.block_bases:
            bases["block"] = obj.block_bases
        return {"bases": {k: [list(v) for v in vs] for k, vs in bases.items()}, "out_dims": out_dims}

    def layouts(a, b, shape):
        record.clear()
        run_parser(ll_kernel, args=(a, b, tuple(shape)), target=ampere)
        return lin(record[0], shape), lin(record[1], shape)

    def live_conflicts(reg, shared, shape, bitwidth):
        dtype = {8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32}[bitwidth]
        record.clear()
        run_parser(bc_kernel, args=(ttgl.distributed_type(dtype, shape, reg),
                                    ttgl.shared_memory_descriptor_type(dtype, shape, shared, shape)),
                   target=ampere)
        return record[0]

    mma2 = lambda w: ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=w, instr_shape=[16, 8])  # noqa: E731
    mma3 = lambda w, n: ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=w, instr_shape=[16, n, 16])  # noqa: E731
    nvmma = lambda sw, bw, t=False: ttgl.NVMMASharedLayout(swizzle_byte_width=sw, element_bitwidth=bw, rank=2, transposed=t)  # noqa: E731
    dot = lambda i, p, k: ttgl.DotOperandLayout(operand_index=i, parent=p, k_width=k)  # noqa: E731
    blocked = ttgl.BlockedLayout

    # python/test/gluon/test_frontend.py::test_bank_conflicts (reg, shared, shape, bitwidth, expected)
    published = [
        (blocked([1], [32], [4], [0]), ttgl.SwizzledSharedLayout(1, 1, 1, order=[0]), [32], 32, 0),
        (blocked([1], [32], [4], [0]), ttgl.SwizzledSharedLayout(1, 1, 1, order=[0]), [32], 16, 0),
        (mma3([4, 1], 32), nvmma(128, 16), [128, 128], 16, 0),
        (dot(1, mma2([1, 4]), 2), nvmma(64, 16), [64, 32], 16, 0),
        (dot(0, mma2([1, 4]), 2), nvmma(64, 16, True), [32, 64], 16, 0),
        (dot(1, mma2([1, 4]), 1), nvmma(32, 8), [8, 32], 8, 0),
        (mma2([4, 1]), nvmma(64, 16, True), [64, 64], 16, 0),
        (mma3([2, 2], 32), nvmma(64, 16), [64, 32], 16, 0),
        (mma2([4, 1]), nvmma(32, 8), [32, 32], 8, 0),
        (mma2([2, 4]), nvmma(0, 16), [4, 64], 16, 3),
        (mma3([4, 1], 32), nvmma(128, 32), [128, 64], 32, 1),
    ]
    cases = []
    for reg, shared, shape, bw, expected in published:
        r, s = layouts(reg, shared, shape)
        cases.append({
            "reg_attr": repr(reg), "shared_attr": repr(shared), "shape": shape, "bitwidth": bw,
            "expected": expected, "triton_live": live_conflicts(reg, shared, shape, bw),
            "reg": r, "shared": s,
        })

    # convert_layout pairs (name, src, dst, shape, bitwidth)
    zoo_defs = [
        ("blocked->mma2 64x64 f16", blocked([1, 8], [4, 8], [4, 1], [1, 0]), mma2([2, 2]), [64, 64], 16),
        ("mma2->blocked 128x64 f32", mma2([4, 1]), blocked([1, 4], [8, 4], [4, 1], [1, 0]), [128, 64], 32),
        ("blocked->dotA(k2) 64x32 f16", blocked([1, 8], [8, 4], [4, 1], [1, 0]), dot(0, mma2([4, 1]), 2), [64, 32], 16),
        ("blocked->dotB(k2) 32x64 f16", blocked([1, 8], [4, 8], [4, 1], [1, 0]), dot(1, mma2([4, 1]), 2), [32, 64], 16),
        ("blocked->dotA(k4) 64x64 f8", blocked([1, 16], [8, 4], [4, 1], [1, 0]), dot(0, mma2([4, 1]), 4), [64, 64], 8),
        ("mma3->blocked 128x128 f16", mma3([4, 1], 128), blocked([1, 8], [4, 8], [4, 1], [1, 0]), [128, 128], 16),
        ("mma3->blocked 128x64 f32", mma3([4, 1], 64), blocked([1, 4], [8, 4], [4, 1], [1, 0]), [128, 64], 32),
        ("transpose 64x64 f8", blocked([1, 16], [8, 4], [4, 1], [1, 0]), blocked([16, 1], [4, 8], [1, 4], [0, 1]), [64, 64], 8),
        ("transpose 64x64 f16", blocked([1, 8], [8, 4], [4, 1], [1, 0]), blocked([8, 1], [4, 8], [1, 4], [0, 1]), [64, 64], 16),
        ("transpose 32x32 f32", blocked([1, 4], [8, 4], [4, 1], [1, 0]), blocked([4, 1], [4, 8], [1, 4], [0, 1]), [32, 32], 32),
        ("blocked 8w row->col 128x64 f16", blocked([1, 4], [4, 8], [8, 1], [1, 0]), blocked([4, 1], [8, 4], [1, 8], [0, 1]), [128, 64], 16),
    ]
    zoo = []
    for name, a, b, shape, bw in zoo_defs:
        src, dst = layouts(a, b, shape)
        zoo.append({"name": name, "src_attr": repr(a), "dst_attr": repr(b), "shape": shape,
                    "bitwidth": bw, "src": src, "dst": dst})

    OUT.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "triton_version": triton.__version__,
        "sources": {
            "bank_conflict_cases": "triton-lang/triton python/test/gluon/test_frontend.py "
                                   "test_bank_conflicts (expected = its ref_conflicts)",
            "zoo": "Triton convert_layout pairs, lowered by this Triton's to_linear_layout",
        },
        "bank_conflict_cases": cases,
        "zoo": zoo,
    }
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parents[1])}: {len(cases)} bank-conflict cases, "
          f"{len(zoo)} zoo pairs (Triton {triton.__version__})")
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report at interpreter exit


if __name__ == "__main__":
    sys.exit(main())
