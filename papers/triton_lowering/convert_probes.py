#!/usr/bin/env python
"""Random layout-conversion probes: ``convert_layout`` and ``local_alloc``/``local_load``
between random layouts of every kind, compiled by Triton 3.9.0 — the general case of the
scratch and ld/st rules, beyond the layouts Triton's own passes choose.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~10 min)::

    python papers/triton_lowering/convert_probes.py          # writes tests/data/triton_convert_probes.json.gz
    python papers/triton_lowering/convert_probes.py --check  # compare, write nothing

Each Gluon probe loads a tile (64x64, 32x128, 128x32, 16x256 or 128x128 of 8-, 16-, 32- or
64-bit elements) in a random distributed layout — ``BlockedLayout``, a
``DistributedLinearLayout`` whose bases are a random permutation of the tensor's bits, an
``NVMMADistributedLayout`` (mma v2) or one of its ``DotOperandLayout``s — and either converts
it to another (``gl.convert_layout``: Triton's scratch layout) or stores it into a random
shared layout (``SwizzledSharedLayout``, ``NVMMASharedLayout`` with every swizzle width,
plain or transposed, or a ``SharedLinearLayout`` with XOR swizzles of the low offset bits) and
loads it back in another distributed layout; cuda:80/90/100 and gfx942/gfx950, 1 to 8
warps. Drawn with fixed seeds (1, 2 and 3), 80 probes each. The fixture keeps the TTGIR (``loc``
information removed), the static count of every shared-memory instruction of the assembly
(the kernels have no loops) and Triton's LLVM IR accesses before LLVM's optimiser.
"""

from __future__ import annotations

import collections
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fixture import main_for  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parents[1] / "tests" / "data" / "triton_convert_probes.json.gz"
SEEDS = (1, 2, 3)
PER_SEED = 80


def build() -> dict:
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    g_cvt = convert_kernel()

    @gluon.jit
    def g_smem(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr, D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S, x)
        y = smem.load(D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def coord(bit, mb):  # flat bit -> [row, col] basis (col = low bits)
        return [0, 1 << bit] if bit < mb[1] else [1 << (bit - mb[1]), 0]

    def rand_linear(rng, M, N, lanes, warps, mix):
        nb = [M.bit_length() - 1, N.bit_length() - 1]
        d = nb[0] + nb[1]
        cols = [1 << i for i in range(d)]
        rng.shuffle(cols)
        if mix:
            for _ in range(rng.randint(1, 3)):
                i, j = rng.sample(range(d), 2); cols[i] ^= cols[j]
        def to(c):
            r = [0, 0]
            for b in range(d):
                if c >> b & 1:
                    x = coord(b, (nb[0], nb[1])); r[0] |= x[0]; r[1] |= x[1]
            return r
        lb = lanes.bit_length() - 1; wb = warps.bit_length() - 1
        lane = [to(c) for c in cols[:lb]]; warp = [to(c) for c in cols[lb:lb + wb]]; reg = [to(c) for c in cols[lb + wb:]]
        # a register order: vectors come from the first register bases
        return gl.DistributedLinearLayout(reg, lane, warp, [], [M, N])

    def rand_blocked(rng, M, N, lanes, warps):
        for _ in range(100):
            spt = [1 << rng.randint(0, 3) for _ in range(2)]
            tpw = [1, 1]
            for _ in range(lanes.bit_length() - 1): tpw[rng.randrange(2)] *= 2
            wpc = [1, 1]
            for _ in range(warps.bit_length() - 1): wpc[rng.randrange(2)] *= 2
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
        return gl.BlockedLayout([1, 1], [1, lanes], [warps, 1], [1, 0])

    def rand_dist(rng, M, N, lanes, warps, bits, cuda):
        k = rng.random()
        if k < 0.35: return rand_blocked(rng, M, N, lanes, warps), "blocked"
        if k < 0.7: return rand_linear(rng, M, N, lanes, warps, False), "linear"
        if cuda:
            mma = gl.NVMMADistributedLayout([2, 0], [2, 2] if warps == 4 else [4, 2], [16, 8])
            if rng.random() < 0.4 or bits == 64: return mma, "mma"
            kw = max(1, 32 // bits)
            return gl.DotOperandLayout(rng.randint(0, 1), mma, kw), "dot"
        return rand_blocked(rng, M, N, lanes, warps), "blocked"

    def rand_shared(rng, M, N, bits, cuda):
        k = rng.random()
        if k < 0.35:
            vec = 1 << rng.randint(0, 3); per = 1 << rng.randint(0, 2); mx = 1 << rng.randint(0, 3)
            return gl.SwizzledSharedLayout(vec, per, mx, rng.choice([[1, 0], [0, 1]])), "swizzled"
        if k < 0.65 and bits in (8, 16, 32):
            sw = rng.choice([0, 32, 64, 128])
            return gl.NVMMASharedLayout(sw, bits, 2, rng.random() < 0.3), f"nvmma{sw}"
        nb = [M.bit_length() - 1, N.bit_length() - 1]; d = sum(nb)
        cols = [1 << i for i in range(d)]
        # row-major-ish with a random xor swizzle
        cols = list(cols)
        for _ in range(rng.randint(0, 3)):
            i = rng.randrange(3, d) if d > 3 else 0; j = rng.randrange(0, min(3, d))
            if i != j: cols[i] ^= cols[j]
        def to(c):
            r = [0, 0]
            for b in range(d):
                if c >> b & 1:
                    x = coord(b, nb); r[0] |= x[0]; r[1] |= x[1]
            return r
        return gl.SharedLinearLayout([to(c) for c in cols]), "linear"


    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "cuda100": GPUTarget("cuda", 100, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
         "gfx950": GPUTarget("hip", "gfx950", 64)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    def probe_set(seed: int) -> tuple[dict, collections.Counter]:
        rng = random.Random(seed)
        out = {}
        fails = collections.Counter()
        for _ in range(PER_SEED):
            tname = rng.choice(list(T)); cuda = tname.startswith("cuda")
            lanes = 32 if cuda else 64; warps = rng.choice([4, 8]) if rng.random() < 0.8 else rng.choice([1, 2])
            bits = rng.choice([8, 16, 16, 32, 64])
            M, N = rng.choice([(64, 64), (32, 128), (128, 32), (16, 256), (128, 128)])
            if warps in (1, 2) and cuda: warps = 4
            L, lk = rand_dist(rng, M, N, lanes, warps, bits, cuda)
            D, dk = rand_dist(rng, M, N, lanes, warps, bits, cuda)
            smem = rng.random() < 0.5
            if smem:
                S, sk = rand_shared(rng, M, N, bits, cuda)
                sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr", "L": "constexpr", "S": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=g_smem, signature=sig, constexprs={"M": M, "N": N, "L": L, "S": S, "D": D})
                name = f"smem_{lk}_{sk}_{dk}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
            else:
                sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr", "L": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=g_cvt, signature=sig, constexprs={"M": M, "N": N, "L": L, "D": D})
                name = f"cvt_{lk}_{dk}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
            try:
                entry, asm = compile_probe(src, T[tname], warps, "x", "convert_probes.py")
            except Exception as e:
                fails[type(e).__name__] += 1
                continue
            entry["target"] = tname
            entry["ttgir"] = strip_locs(entry["ttgir"])
            del entry["set"]
            out[name] = entry
        return out, fails

    probes = {}
    fails: collections.Counter = collections.Counter()
    for seed in SEEDS:
        out, fail = probe_set(seed)
        probes.update(out)
        fails.update(fail)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
