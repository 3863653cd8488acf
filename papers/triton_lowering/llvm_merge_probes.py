#!/usr/bin/env python
"""Held-out probes for LLVM's merging of Triton's ``ld.shared``/``st.shared`` vectors
(``linlayout/lowering/llvm_merge.py``: LLVM's ``LoadStoreVectorizer``, not Triton), generated
after the rule was written.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~7 min)::

    python papers/triton_lowering/llvm_merge_probes.py          # writes tests/data/triton_llvm_merge_probes.json.gz
    python papers/triton_lowering/llvm_merge_probes.py --check  # compare, write nothing
    python papers/triton_lowering/llvm_merge_probes.py --confirm  # the held-out draw below

Each Gluon probe loads a tile (8- to 64-bit elements, 32x64 to 128x128) in a random register
layout — a ``BlockedLayout`` with 1 to 8 elements per thread along each dim, or a
``DistributedLinearLayout`` with random bases — stores it into a ``SharedLinearLayout``
whose offset bases are a row- or column-major order with one to three of the four lowest
offset bits XORed into higher ones (so a thread's elements can sit next to each other in
another order than its registers: the case where Triton emits narrow vectors and LLVM may
merge them), and loads it back in another random layout; a fifth of the probes are plain
``convert_layout``s through Triton's own scratch layout instead. Targets cuda:80/90/100,
1 to 8 warps, drawn with seed 2601 (80 probes), then a second batch of 100 that favours
merges (seed 2602: 2 to 8 elements per thread along each dim, 1 or 2 warps, the three lowest
offset bits XORed in). The fixture keeps the TTGIR, the static
count of each shared-memory instruction of the PTX and Triton's LLVM IR accesses before
LLVM's optimiser (``preopt``), so the probes where LLVM merged something are visible
(fewer instructions in the PTX than in the LLVM IR).

``--confirm`` writes ``tests/data/triton_llvm_merge_confirm_probes.json.gz`` instead: a
fresh stress draw of 30 (seed 2641), made after the rule for LLVM's SLP vectoriser
(``slp`` in ``linlayout/lowering/llvm_merge.py``) was committed.

It prints, per probe, whether ``linlayout``'s prediction equals the PTX's counts by opcode
width, and exits 1 on any mismatch.
"""

from __future__ import annotations

import collections
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_then_compare  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_llvm_merge_probes.json.gz"
#: (seed, probes, stress): the first batch draws layouts as described; the second
#: ("stress") favours what makes LLVM merge — 2 to 8 elements per thread along each dim, 1 or
#: 2 warps, XORs of the three lowest offset bits.
BATCHES = ((2601, 80, False), (2602, 100, True))
#: ``--confirm``: the draw held out from the SLP rule (a stress batch)
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_llvm_merge_confirm_probes.json.gz"
CONFIRM_BATCHES = ((2641, 30, True),)


def build(batches: tuple = BATCHES) -> dict:
    """Compile the probes of ``batches`` (``(seed, count, stress)`` each)."""
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
    def g_smem(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
               D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S, x)
        y = smem.load(D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def to_coord(c: int, nb: tuple[int, int]) -> list[int]:
        """A flat tensor index (column bits low) as [row, col]."""
        return [c >> nb[1], c & ((1 << nb[1]) - 1)]

    def rand_blocked(rng, M, N, warps, stress):
        for _ in range(200):
            spt = [1 << rng.randint(1 if stress else 0, 3) for _ in range(2)]
            tpw = [1, 1]
            for _ in range(5):
                tpw[rng.randrange(2)] *= 2
            wpc = [1, 1]
            for _ in range(warps.bit_length() - 1):
                wpc[rng.randrange(2)] *= 2
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]])), "blocked"
        return gl.BlockedLayout([1, 1], [1, 32], [warps, 1], [1, 0]), "blocked"

    def rand_linear(rng, M, N, warps):
        nb = (M.bit_length() - 1, N.bit_length() - 1)
        bits = list(range(nb[0] + nb[1]))
        rng.shuffle(bits)
        cols = [1 << b for b in bits]
        wb = warps.bit_length() - 1
        lane = [to_coord(c, nb) for c in cols[:5]]
        warp = [to_coord(c, nb) for c in cols[5:5 + wb]]
        reg = [to_coord(c, nb) for c in cols[5 + wb:]]
        return gl.DistributedLinearLayout(reg, lane, warp, [], [M, N]), "linear"

    def rand_dist(rng, M, N, warps, stress):
        return rand_blocked(rng, M, N, warps, stress) if rng.random() < 0.6 else \
            rand_linear(rng, M, N, warps)

    def rand_shared(rng, M, N, stress):
        nb = (M.bit_length() - 1, N.bit_length() - 1)
        d = nb[0] + nb[1]
        if rng.random() < 0.5:  # row-major: offset bit i -> flat index bit i
            cols = [1 << i for i in range(d)]
        else:  # column-major
            cols = [1 << (nb[1] + i) for i in range(nb[0])] + [1 << i for i in range(nb[1])]
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(0, 3 if stress else 4)
            j = rng.randrange(i + 1, d)
            cols[j] ^= cols[i]
        return gl.SharedLinearLayout([to_coord(c, nb) for c in cols]), "xorlinear"

    targets = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
               "cuda100": GPUTarget("cuda", 100, 32)}
    types = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    probes, fails = {}, collections.Counter()
    for seed, count, stress in batches:
        rng = random.Random(seed)
        for _ in range(count):
            tname = rng.choice(list(targets))
            warps = rng.choice([1, 2] if stress else [1, 2, 4, 4, 8])
            bits = rng.choice([8, 16, 16, 32, 64])
            M, N = rng.choice([(32, 64), (64, 32), (64, 64), (32, 128), (128, 32), (128, 128)])
            L, lk = rand_dist(rng, M, N, warps, stress)
            D, dk = rand_dist(rng, M, N, warps, stress)
            tag = f"{rng.getrandbits(24):06x}"
            if rng.random() < 0.8:
                S, sk = rand_shared(rng, M, N, stress)
                sig = {"X": types[bits], "Y": types[bits], "M": "constexpr", "N": "constexpr",
                       "L": "constexpr", "S": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=g_smem, signature=sig,
                                     constexprs={"M": M, "N": N, "L": L, "S": S, "D": D})
                name = f"smem_{lk}_{sk}_{dk}_b{bits}_{M}x{N}_w{warps}_{tag}_{tname}"
            else:
                sig = {"X": types[bits], "Y": types[bits], "M": "constexpr", "N": "constexpr",
                       "L": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=g_cvt, signature=sig,
                                     constexprs={"M": M, "N": N, "L": L, "D": D})
                name = f"cvt_{lk}_{dk}_b{bits}_{M}x{N}_w{warps}_{tag}_{tname}"
            try:
                entry, _ = compile_probe(src, targets[tname], warps, "x",
                                         "llvm_merge_probes.py")
            except Exception as exc:  # layouts Triton refuses
                fails[type(exc).__name__] += 1
                continue
            entry["target"] = tname
            entry["ttgir"] = strip_locs(entry["ttgir"])
            entry["stress"] = stress
            del entry["set"]
            probes[name] = entry
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def merged_by_llvm(entry: dict) -> bool:
    """Whether the PTX has fewer ``ld/st.shared`` than Triton's LLVM IR has accesses."""
    ptx = sum(n for k, n in entry["counts"].items() if k.startswith(("ld.shared", "st.shared")))
    pre = sum(n for k, n in entry["preopt"]["types"].items()
              if k.startswith(("load", "store")))
    return ptx < pre


def compare(data: dict) -> int:
    """Print linlayout's prediction against the PTX per probe; the number of mismatches."""
    sys.path.insert(0, str(ROOT))
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    bad = merged = 0
    for name, e in sorted(data["probes"].items()):
        got, _ = predicted_counts(e["ttgir"], name)
        want = ptx_counts(e["counts"])
        ok = got == want
        m = merged_by_llvm(e)
        merged += m
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {'merged' if m else '      '} {name}"
              + ("" if ok else f"  predicted {got}  ptx {want}"))
    print(f"{len(data['probes']) - bad}/{len(data['probes'])} equal the PTX; LLVM merged "
          f"accesses in {merged}")
    return bad


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--confirm" in argv:
        argv.remove("--confirm")
        return main_then_compare(__doc__, CONFIRM_OUT, lambda: build(CONFIRM_BATCHES), compare,
                                 argv)
    return main_then_compare(__doc__, OUT, build, compare, argv)


if __name__ == "__main__":
    sys.exit(main())
