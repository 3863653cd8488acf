#!/usr/bin/env python
"""Held-out probes: kernels written after the lowering rules, to measure ``linlayout check``
on what it was not fitted on.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~5 min; ptxas is skipped)::

    python papers/triton_lowering/heldout_probes.py          # writes tests/data/triton_heldout_probes.json.gz
    python papers/triton_lowering/heldout_probes.py --check  # compare, write nothing

Single-op ``tl`` kernels (no loops, so the assembly's static counts are per-thread counts)
over what the corpus and the other probe sets do not vary: ``tl.dot`` and ``tl.dot`` with a
transposed operand (f16, bf16, f32, i8, fp8 e4m3/e5m2; 16x16x16 to 256x64x64; 1 to 16 warps),
``tl.permute`` and 3-D reductions along a random axis, a row max and a column sum of one tile,
``tl.cumsum`` along a random axis, ``tl.sort``, ``tl.gather``, ``tl.trans`` with a cast,
``tl.join``/``tl.reshape``, ``tl.interleave``, a 1-D softmax and ``tl.histogram``; i8 to i64
and f16 to f64; ``cuda:80``, ``cuda:90``, ``cuda:100``, ``hip:gfx942`` and ``hip:gfx950``.
300 of these configurations are drawn with a fixed seed (7); those Triton refuses to compile
are skipped.
The fixture keeps, per probe, the TTGIR (``loc`` information removed), the static count of every
shared-memory instruction of the PTX/AMDGCN (shared atomics included) and the shared-memory
loads and stores of Triton's LLVM IR before LLVM's optimiser.
"""

from __future__ import annotations

import pathlib
import random
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fixture import main_for  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parents[1] / "tests" / "data" / "triton_heldout_probes.json.gz"
PROBES = 300
ATOMIC = re.compile(r"\b((?:atom|red)\.(?:[\w:]+\.)*shared[\w.:]*|ds_(?:add|max|min)\w*)")


def build() -> dict:
    import itertools

    import triton
    import triton.language as tl
    from corpus import strip_locs
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend

    # only the PTX is read: skip ptxas (minutes for the large sort kernels)
    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""

    T = {"80": GPUTarget("cuda", 80, 32), "90": GPUTarget("cuda", 90, 32),
         "100": GPUTarget("cuda", 100, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
         "gfx950": GPUTarget("hip", "gfx950", 64)}

    @triton.jit
    def dot_k(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rk[:, None] * N + rn[None, :])
        c = tl.dot(a, b)
        tl.store(C + rm[:, None] * N + rn[None, :], c.to(C.dtype.element_ty))

    @triton.jit
    def dot_bt(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rn[:, None] * K + rk[None, :])
        c = tl.dot(a, tl.trans(b))
        tl.store(C + rm[:, None] * N + rn[None, :], c.to(C.dtype.element_ty))

    @triton.jit
    def permute3(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
        ra = tl.arange(0, A); rb = tl.arange(0, B); rc = tl.arange(0, C)
        x = tl.load(X + ra[:, None, None] * B * C + rb[None, :, None] * C + rc[None, None, :])
        y = tl.permute(x, (2, 0, 1))
        tl.store(Y + rc[:, None, None] * A * B + ra[None, :, None] * B + rb[None, None, :], y)

    @triton.jit
    def reduce3(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AX: tl.constexpr):
        ra = tl.arange(0, A); rb = tl.arange(0, B); rc = tl.arange(0, C)
        x = tl.load(X + ra[:, None, None] * B * C + rb[None, :, None] * C + rc[None, None, :])
        s = tl.sum(x, axis=AX)
        if AX == 0:
            tl.store(Y + rb[:, None] * C + rc[None, :], s)
        elif AX == 1:
            tl.store(Y + ra[:, None] * C + rc[None, :], s)
        else:
            tl.store(Y + ra[:, None] * B + rb[None, :], s)

    @triton.jit
    def rowcol(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        r = tl.max(x, axis=1)
        c = tl.sum(x, axis=0)
        tl.store(Y + rm[:, None] * N + rn[None, :], x - r[:, None] + c[None, :])

    @triton.jit
    def joinsplit(X, Y, Z, N: tl.constexpr):
        rn = tl.arange(0, N)
        x = tl.load(X + rn)
        y = tl.load(Y + rn)
        j = tl.join(x, y)
        j = tl.reshape(j, (2 * N,))
        tl.store(Z + tl.arange(0, 2 * N), j)

    @triton.jit
    def interleave_k(X, Y, Z, N: tl.constexpr):
        rn = tl.arange(0, N)
        z = tl.interleave(tl.load(X + rn), tl.load(Y + rn))
        tl.store(Z + tl.arange(0, 2 * N), z)

    @triton.jit
    def cumsum2(X, Y, M: tl.constexpr, N: tl.constexpr, AX: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rm[:, None] * N + rn[None, :], tl.cumsum(x, axis=AX))

    @triton.jit
    def sort_k(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rm[:, None] * N + rn[None, :], tl.sort(x, dim=1))

    @triton.jit
    def gather_k(X, I, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        i = tl.load(I + rm[:, None] * N + rn[None, :])
        tl.store(Y + rm[:, None] * N + rn[None, :], tl.gather(x, i, axis=0))

    @triton.jit
    def hist_k(X, Y, N: tl.constexpr, BINS: tl.constexpr):
        x = tl.load(X + tl.arange(0, N))
        tl.store(Y + tl.arange(0, BINS), tl.histogram(x, BINS))

    @triton.jit
    def softmax_k(X, Y, N: tl.constexpr):
        rn = tl.arange(0, N)
        x = tl.load(X + rn).to(tl.float32)
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(Y + rn, (e / tl.sum(e, axis=0)).to(Y.dtype.element_ty))

    @triton.jit
    def trans_cast(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M); rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x).to(Y.dtype.element_ty))


    rng = random.Random(7)
    jobs = []
    for ty, (m, n, kk), w, t in itertools.product([("*fp16", "*fp16"), ("*bf16", "*fp32"), ("*fp32", "*fp32"), ("*i8", "*i32"), ("*fp8e4nv", "*fp32"), ("*fp8e5", "*fp16")],
                                                 [(16, 16, 16), (32, 32, 64), (128, 128, 32), (64, 256, 16), (256, 64, 64)], [1, 2, 4, 8, 16], list(T)):
        jobs.append(("dot", dot_k if rng.random() < 0.5 else dot_bt, {"A": ty[0], "B": ty[0], "C": ty[1]}, {"M": m, "N": n, "K": kk}, t, w))
    for ty, shp, w, t in itertools.product(["*i8", "*fp16", "*fp32", "*i64"], [(4, 8, 16), (8, 32, 4), (2, 64, 16), (16, 16, 16)], [1, 4, 8], list(T)):
        jobs.append(("permute3", permute3, {"X": ty, "Y": ty}, dict(zip("ABC", shp)), t, w))
        jobs.append(("reduce3", reduce3, {"X": ty, "Y": ty}, {**dict(zip("ABC", shp)), "AX": rng.randint(0, 2)}, t, w))
    for ty, (m, n), w, t in itertools.product(["*fp16", "*fp32", "*i32", "*i64", "*i8"], [(16, 512), (256, 32), (64, 64), (1, 1024), (128, 8)], [1, 2, 4, 8, 16], list(T)):
        jobs.append(("rowcol", rowcol, {"X": ty, "Y": ty}, {"M": m, "N": n}, t, w))
        jobs.append(("cumsum2", cumsum2, {"X": ty, "Y": ty}, {"M": m, "N": n, "AX": rng.randint(0, 1)}, t, w))
        jobs.append(("sort", sort_k, {"X": ty, "Y": ty}, {"M": m, "N": n}, t, w))
        jobs.append(("gather", gather_k, {"X": ty, "I": "*i32", "Y": ty}, {"M": m, "N": n}, t, w))
        jobs.append(("trans_cast", trans_cast, {"X": ty, "Y": rng.choice(["*fp16", "*fp32", "*i8", "*fp64"])}, {"M": m, "N": n}, t, w))
    for ty, n, w, t in itertools.product(["*fp16", "*fp32", "*i8", "*i64"], [64, 512, 4096], [1, 4, 8, 16], list(T)):
        jobs.append(("joinsplit", joinsplit, {"X": ty, "Y": ty, "Z": ty}, {"N": n}, t, w))
        jobs.append(("interleave", interleave_k, {"X": ty, "Y": ty, "Z": ty}, {"N": n}, t, w))
        jobs.append(("softmax", softmax_k, {"X": ty if ty != "*i8" else "*fp16", "Y": "*fp16"}, {"N": n}, t, w))
        jobs.append(("hist", hist_k, {"X": "*i32", "Y": "*i32"}, {"N": n, "BINS": rng.choice([16, 64, 256])}, t, w))
    rng.shuffle(jobs)
    jobs = jobs[:PROBES]  # a random sample of the configurations above
    probes = {}
    skipped = 0
    for kind, fn, sig, const, t, w in jobs:
        name = (f"{kind}_{'_'.join(f'{k}{v}' for k, v in const.items())}_"
                f"{'_'.join(v[1:] for v in sig.values())}_w{w}_{t}")
        src = triton.compiler.ASTSource(
            fn=fn, signature={**sig, **{k: "constexpr" for k in const}}, constexprs=const)
        try:
            entry, asm = compile_probe(src, T[t], w, "heldout", "heldout_probes.py")
        except Exception:  # a configuration Triton does not compile: not a probe
            skipped += 1
            continue
        for op in ATOMIC.findall(asm):
            entry["counts"][op] = entry["counts"].get(op, 0) + 1
        entry["counts"] = dict(sorted(entry["counts"].items()))
        entry["target"] = str(T[t].arch) if T[t].backend == "hip" else f"cuda{T[t].arch}"
        entry["ttgir"] = strip_locs(entry["ttgir"])
        del entry["set"]
        probes[name] = entry
    print(f"{len(probes)} probes compiled, {skipped} configurations skipped")
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
