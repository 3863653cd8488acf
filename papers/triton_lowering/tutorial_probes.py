#!/usr/bin/env python
"""Tutorial-shaped probes: the converts Triton 3.9.0 inserts in kernels shaped like its
tutorials' (a fused softmax, a layer norm, a matmul whose accumulator is converted to the
store's layout, attention's ``P @ V``), at random shapes, types and warps, counted by
``linlayout check --json`` and compared with the PTX/AMDGCN — drawn after every convert rule
was written and only compared.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~3 min)::

    python papers/triton_lowering/tutorial_probes.py                 # writes the fixture
    python papers/triton_lowering/tutorial_probes.py --check         # compare, write nothing
    python papers/triton_lowering/tutorial_probes.py --compare-only  # the committed fixture

Kernels (``tl``, one program, the whole tile in registers):

* ``t_softmax``: the fused softmax of ``02-fused-softmax.py`` over a tile of rows
  (``max``, ``exp``, ``sum``, a divide by the row's sum);
* ``t_layernorm``: the forward layer norm of ``05-layer-norm.py`` over a tile of rows (mean,
  variance, weight and bias), storing the rows' mean and reciprocal deviation too: 1-D
  stores of a reduce's result, which Triton converts to a blocked store layout;
* ``t_matmul``: ``03-matrix-multiplication.py``'s loop over ``K`` (``tl.dot`` into a f32
  accumulator, software-pipelined over ``num_stages``), the accumulator cast and converted to
  the store's layout, optionally with a row sum of the tile stored too;
* ``t_attention``: ``06-fused-attention.py``'s inner step: ``S = Q K^T``, a row softmax, and
  ``P @ V`` with ``P`` cast and converted to the dot operand layout, divided by the row sums.

Targets ``cuda:80/90/100``, ``gfx942`` and ``gfx950``; 1, 2, 4 or 8 warps. The assembly is
counted by TTGIR op, not by Python source line: Triton gives a convert it inserts the
location of the op that produces its operand (``p = p.to(bf16)`` on a line of its own, then
``ttg.convert_layout`` of ``P`` to the dot operand layout: both at that line and column), and
a ``bf16`` rounding on gfx942 is integer arithmetic (``v_cndmask_b32``) that a line would
give to the convert. So each kernel's TTGIR (kept with its locations, file base names) is
compiled again with the locations removed (:func:`cvt_heldout_probes.op_located`): every
op is then located at its own line of ``probe.ttgir``, and ``"lines"`` is keyed so
(``"lines_by"``: :data:`cvt_heldout_probes.TTGIR_OP`). That compile must have every
instruction the kernel compiled from its Python source has (``"counts"``, the whole kernel),
or the script stops.
Compared as the ``t_`` kernels of ``cvt_heldout_probes.py`` (:func:`cvt_heldout_probes.
prediction` with this script's name): the register instructions on each TTGIR line holding
a convert or a gather, the exchanges of reduces and scans over the rest of the kernel, and
the shared-memory instructions over the whole kernel. Each probe has its ``"lowering"`` and
``"data"`` records from ``lowering_reference.py tutorial``; ``check`` is scored against
Triton's lowering. Exits 1 on a difference not listed in ``tests/data/known_mismatches.json``
(set ``tutorial``).
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "triton_tutorial_probes.json.gz"
SEED = 90731
N_PROBES = int(os.environ.get("N_PROBES", 56))
TARGETS = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950")


def build(seed: int = SEED, n: int = N_PROBES) -> dict:
    """Compile ``n`` probes drawn with ``seed`` (Triton 3.9.0)."""
    import triton
    import triton.language as tl
    from cvt_heldout_probes import asm_counts, op_located
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def t_softmax(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :]).to(tl.float32)
        z = x - tl.max(x, axis=1)[:, None]
        num = tl.exp(z)
        den = tl.sum(num, axis=1)
        y = (num / den[:, None]).to(Y.dtype.element_ty)
        tl.store(Y + rm[:, None] * N + rn[None, :], y)

    @triton.jit
    def t_layernorm(X, Y, W, B, Mean, Rstd, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :]).to(tl.float32)
        mean = tl.sum(x, axis=1) / N
        xc = x - mean[:, None]
        var = tl.sum(xc * xc, axis=1) / N
        rstd = 1 / tl.sqrt(var + 1e-5)
        w = tl.load(W + rn).to(tl.float32)
        b = tl.load(B + rn).to(tl.float32)
        y = (xc * rstd[:, None] * w[None, :] + b[None, :]).to(Y.dtype.element_ty)
        tl.store(Y + rm[:, None] * N + rn[None, :], y)
        tl.store(Mean + rm, mean)
        tl.store(Rstd + rm, rstd)

    @triton.jit
    def t_matmul(A, B, C, S, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                 BK: tl.constexpr, ROWSUM: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rk = tl.arange(0, BK)
        acc = tl.zeros((M, N), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        c = acc.to(C.dtype.element_ty)
        tl.store(C + rm[:, None] * N + rn[None, :], c)
        if ROWSUM:
            tl.store(S + rm, tl.sum(acc, axis=1))

    @triton.jit
    def t_attention(Q, Kt, V, O, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rd = tl.arange(0, D)
        q = tl.load(Q + rm[:, None] * D + rd[None, :])
        kt = tl.load(Kt + rd[:, None] * N + rn[None, :])
        s = tl.dot(q, kt)
        m = tl.max(s, axis=1)
        p = tl.exp2(s - m[:, None])
        den = tl.sum(p, axis=1)
        v = tl.load(V + rn[:, None] * D + rd[None, :])
        p = p.to(V.dtype.element_ty)
        acc = tl.dot(p, v)
        o = (acc / den[:, None]).to(O.dtype.element_ty)
        tl.store(O + rm[:, None] * D + rd[None, :], o)

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "cuda100": GPUTarget("cuda", 100, 32),
         "gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    BITS = {"*fp16": 16, "*bf16": 16, "*fp32": 32, "*fp8e5": 8}
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    rng = random.Random(seed)
    kinds = {"softmax": t_softmax, "layernorm": t_layernorm, "matmul": t_matmul,
             "attention": t_attention}
    for _ in range(n):
        tname = rng.choice(TARGETS)
        kind = rng.choices(list(kinds), [2, 2, 3, 3])[0]
        warps = rng.choice([1, 2, 4, 4, 8])
        stages = None
        if kind in ("softmax", "layernorm"):
            ty = rng.choice(["*fp16", "*bf16", "*fp32"])
            M, N = rng.choice([(1, 256), (1, 1024), (2, 512), (4, 128), (8, 64), (16, 128),
                               (32, 32), (4, 1024)])
            sig = {"X": ty, "Y": ty}
            if kind == "layernorm":
                sig.update({"W": ty, "B": ty, "Mean": "*fp32", "Rstd": "*fp32"})
            const = {"M": M, "N": N}
            shape = f"{M}x{N}"
        elif kind == "matmul":
            ty = rng.choice(["*fp16", "*fp16", "*bf16", "*fp32", "*fp8e5"])
            M, N = rng.choice([(16, 16), (32, 32), (64, 64), (64, 32), (128, 64), (64, 128),
                               (128, 128)])
            BK = rng.choice([16, 32, 64])
            K = BK * rng.choice([1, 2, 4])
            out = rng.choice([ty, "*fp32"]) if ty != "*fp8e5" else "*fp16"
            sig = {"A": ty, "B": ty, "C": out, "S": "*fp32"}
            const = {"M": M, "N": N, "K": K, "BK": BK, "ROWSUM": rng.random() < 0.4}
            stages = rng.choice([1, 2, 3])
            shape = f"{M}x{N}x{K}"
        else:
            ty = rng.choice(["*fp16", "*fp16", "*bf16"])
            M, N = rng.choice([(16, 16), (32, 32), (64, 64), (64, 32), (128, 64), (32, 64)])
            D = rng.choice([16, 32, 64])
            sig = {"Q": ty, "Kt": ty, "V": ty, "O": ty}
            const = {"M": M, "N": N, "D": D}
            shape = f"{M}x{N}x{D}"
        sig.update({k: "constexpr" for k in const})
        name = (f"t_{kind}_b{BITS[ty]}_{shape}_w{warps}_{rng.getrandbits(24):06x}_{tname}")
        opts = {"num_warps": warps}
        if stages:
            opts["num_stages"] = stages
        try:
            k = triton.compile(ASTSource(fn=kinds[kind], signature=sig, constexprs=const),
                               target=T[tname], options=opts)
        except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
            fails[type(e).__name__] += 1
            continue
        asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
        # the TTGIR's locations kept (file base names): they show which ops share a line
        ttgir = re.sub(r'loc\("[^"]*/([^"/]*)"', r'loc("\1"', k.asm["ttgir"])
        # counted by op: the same TTGIR compiled with each op located at its own line
        probes[name] = {"target": tname, "num_stages": stages, "counts": asm_counts(asm, None),
                        "ttgir": ttgir, **op_located(ttgir, tname, asm)}
        if len(probes) % 10 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """:func:`cvt_heldout_probes.compare` on these kernels (set ``tutorial``)."""
    from cvt_heldout_probes import compare as cvt_compare

    return cvt_compare(data, "tutorial", pathlib.Path(__file__).name)


def main(argv: list[str] | None = None) -> int:
    import gzip
    import json

    from fixture import draw_parser, write_or_check

    ap = draw_parser(__doc__)
    args = ap.parse_args(argv)
    if args.compare_only:
        return 1 if compare(json.loads(gzip.decompress(OUT.read_bytes()))) else 0
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    if args.seed is not None:
        return 1 if compare(build(args.seed)) else 0
    rc = write_or_check(OUT, build(), args.check)
    print("now run lowering_reference.py tutorial, then --compare-only")
    return rc


if __name__ == "__main__":
    sys.exit(main())
