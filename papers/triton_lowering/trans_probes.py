#!/usr/bin/env python
"""``tl.trans`` and ``tl.dot`` probes: Triton 3.9.0's shared-memory instructions over
element types, tile shapes, warp counts and targets — data that the corpus (``corpus.py``)
does not vary and that the rules were not fitted on.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only)::

    python papers/triton_lowering/trans_probes.py            # writes tests/data/triton_trans_probes.json.gz
    python papers/triton_lowering/trans_probes.py --check    # compare, write nothing

A ``trans`` probe loads an ``M×N`` tile and stores ``tl.trans`` of it (sm_80, sm_90, gfx942;
4 and 8 warps); a ``dot`` probe multiplies one ``M×K`` by one ``K×N`` tile (f16, bf16, f32,
i8; sm_80, sm_90, gfx942, gfx950). The fixture keeps the TTGIR and the static count of every
shared-memory instruction of the PTX/AMDGCN (kernels without loops: every count is Triton's
and LLVM's decision for the kernel's few ops; AMD counts include LLVM's ``ds_read2*`` pairs).
"""

from __future__ import annotations

import collections
import itertools
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fixture import main_for  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "triton_trans_probes.json.gz"
SMEM = re.compile(r"\b((?:ld|st)\.shared[\w.:]*|ldmatrix[\w.]*|stmatrix[\w.]*|"
                  r"ds_(?:read|write)\w*)")


def build() -> dict:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget

    @triton.jit
    def trans_probe(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x))

    targets = [GPUTarget("cuda", 80, 32), GPUTarget("cuda", 90, 32),
               GPUTarget("hip", "gfx942", 64)]
    probes = {}
    for ty, (m, n), warps, tgt in itertools.product(
            ["*i8", "*fp16", "*fp32"], [(64, 64), (32, 128), (128, 32)], [4, 8], targets):
        src = triton.compiler.ASTSource(
            fn=trans_probe, signature={"X": ty, "Y": ty, "M": "constexpr", "N": "constexpr"},
            constexprs={"M": m, "N": n})
        k = triton.compile(src, target=tgt, options={"num_warps": warps})
        asm = k.asm["ptx"] if tgt.backend == "cuda" else k.asm["amdgcn"]
        ttgir = k.asm["ttgir"].replace(str(pathlib.Path(__file__).resolve()), "trans_probes.py")
        name = f"trans_{ty[1:]}_{m}x{n}_w{warps}_{tgt.arch}"
        probes[name] = {"target": str(tgt.arch), "ttgir": ttgir,
                        "counts": dict(sorted(collections.Counter(SMEM.findall(asm)).items()))}
    @triton.jit
    def dot_probe(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rk = tl.arange(0, K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rk[:, None] * N + rn[None, :])
        c = tl.dot(a, b)
        tl.store(C + rm[:, None] * N + rn[None, :], c.to(C.dtype.element_ty))

    targets.append(GPUTarget("hip", "gfx950", 64))
    for (ta, tc), (m, n, kk), warps, tgt in itertools.product(
            [("*fp16", "*fp16"), ("*bf16", "*fp32"), ("*fp32", "*fp32"), ("*i8", "*i32")],
            [(64, 64, 32), (128, 64, 64), (64, 128, 16)], [4, 8], targets):
        src = triton.compiler.ASTSource(
            fn=dot_probe, signature={"A": ta, "B": ta, "C": tc, "M": "constexpr",
                                     "N": "constexpr", "K": "constexpr"},
            constexprs={"M": m, "N": n, "K": kk})
        try:
            k = triton.compile(src, target=tgt, options={"num_warps": warps})
        except Exception:  # e.g. an i8 dot a target does not support: not a probe
            continue
        asm = k.asm["ptx"] if tgt.backend == "cuda" else k.asm["amdgcn"]
        ttgir = k.asm["ttgir"].replace(str(pathlib.Path(__file__).resolve()), "trans_probes.py")
        name = f"dot_{ta[1:]}_{m}x{n}x{kk}_w{warps}_{tgt.arch}"
        probes[name] = {"target": str(tgt.arch), "ttgir": ttgir,
                        "counts": dict(sorted(collections.Counter(SMEM.findall(asm)).items()))}
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
