#!/usr/bin/env python
"""``redux.sync`` probes: when Triton 3.9.0 reduces inside a warp with one ``redux.sync`` per
accumulator instead of butterfly shuffles, and how many it emits.

Run with Triton 3.9.0 installed (CPU only; about two minutes)::

    python papers/triton_lowering/redux_probes.py          # writes tests/data/triton_redux_probes.json.gz
    python papers/triton_lowering/redux_probes.py --check  # compare, write nothing

Each Gluon probe loads an ``M×N`` tile in a ``BlockedLayout`` and reduces it along dim 1 with
one combine op — ``sum``, ``max``, ``min``, ``xor_sum``, a hand-written ``b + a`` (the
operands reversed), ``&`` and ``|``, and ``max`` propagating NaN — over ``i8``, ``i16``,
``i32``, ``u32``, ``i64`` and ``f32`` elements, on ``cuda:80``, ``cuda:90`` and ``cuda:100``.
The layouts put 32, 16, 8 or 4 lanes along the reduced dim, with the other lane bits along
dim 0 or broadcast (a tile narrower than the warp), and 1, 2 or 4 warps along it (a second,
cross-warp round). The fixture keeps the TTGIR and the static count of every ``redux.sync``
and ``shfl.sync`` opcode of the whole kernel (nothing else in it shuffles or reduces across
lanes). ``tests/check/registers/test_redux_probes.py`` replays it against ``linlayout
check``'s reduce rows.

Source of the rule: ``TargetInfo::warpReduce`` and ``matchReduxKind``
(``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``) and
``ReduceOp::getSingleCombiner`` (``lib/Dialect/Triton/IR/Ops.cpp``), Triton 3.9.
"""

from __future__ import annotations

import collections
import os
import pathlib
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_redux_probes.json.gz"
OPS = re.compile(r"\b(redux\.sync[\w.]*|shfl\.sync[\w.]*)")
#: (name, sizePerThread, threadsPerWarp, warpsPerCTA, M, N)
LAYOUTS = [
    ("lanes32", [1, 2], [1, 32], [4, 1], 16, 64),
    ("lanes16", [1, 2], [2, 16], [4, 1], 16, 64),
    ("lanes8", [1, 2], [4, 8], [4, 1], 16, 64),
    ("lanes4", [1, 1], [8, 4], [4, 1], 32, 16),
    ("bcast16", [1, 1], [1, 32], [4, 1], 8, 16),
    ("bcast8", [1, 1], [1, 32], [4, 1], 8, 8),
    ("bcast4", [1, 1], [1, 32], [4, 1], 8, 4),
    ("warps2", [1, 2], [2, 16], [2, 2], 16, 64),
    ("warps4", [1, 1], [1, 32], [1, 4], 4, 128),
]
KINDS = ("sum", "max", "min", "xor", "rsum", "and", "or", "maxnan")
TYPES = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "u32": "*u32", "i64": "*i64",
         "f32": "*fp32"}
TARGETS = (80, 90, 100)


def build() -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource
    import triton.language as tl

    @gluon.jit
    def _rsum(a, b):
        return b + a

    @gluon.jit
    def _and(a, b):
        return a & b

    @gluon.jit
    def _or(a, b):
        return a | b

    @gluon.jit
    def _maxnan(a, b):
        return gl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)

    @gluon.jit
    def g_red(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, KIND: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if KIND == 0:
            r = gl.sum(x, 1)
        elif KIND == 1:
            r = gl.max(x, 1)
        elif KIND == 2:
            r = gl.min(x, 1)
        elif KIND == 3:
            r = gl.xor_sum(x, 1)
        elif KIND == 4:
            r = gl.reduce(x, 1, _rsum)
        elif KIND == 5:
            r = gl.reduce(x, 1, _and)
        elif KIND == 6:
            r = gl.reduce(x, 1, _or)
        else:
            r = gl.reduce(x, 1, _maxnan)
        gl.store(Y + rm, r)

    probes = {}
    for cc in TARGETS:
        for lname, spt, tpw, wpc, m, n in LAYOUTS:
            for ty, ptr in TYPES.items():
                for k, kind in enumerate(KINDS):
                    if ty == "f32" and kind in ("xor", "and", "or", "rsum"):
                        continue
                    if ty != "f32" and kind == "maxnan":
                        continue
                    if ty in ("i8", "i16", "u32") and lname.startswith(("bcast", "warps")) \
                            and kind not in ("sum", "max"):
                        continue  # keep the set small where nothing new is learnt
                    layout = gl.BlockedLayout(spt, tpw, wpc, [1, 0])
                    warps = wpc[0] * wpc[1]
                    src = GluonASTSource(fn=g_red, signature={
                        "X": ptr, "Y": ptr, "M": "constexpr", "N": "constexpr",
                        "L": "constexpr", "KIND": "constexpr"},
                        constexprs={"M": m, "N": n, "L": layout, "KIND": k})
                    kern = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                                          options={"num_warps": warps})
                    ptx = kern.asm["ptx"]
                    counts = collections.Counter(OPS.findall(ptx))
                    name = f"{kind}_{ty}_{lname}_cuda{cc}"
                    probes[name] = {"ttgir": kern.asm["ttgir"].replace(
                        str(pathlib.Path(__file__).resolve()), "redux_probes.py"),
                        "counts": dict(sorted(counts.items())), "target": f"cuda:{cc}"}
                    print(name, dict(counts), file=sys.stderr)
    return {"probes": probes, "triton_version": triton.__version__}


if __name__ == "__main__":
    sys.exit(main_for(__doc__, OUT, build))
