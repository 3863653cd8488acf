#!/usr/bin/env python
"""A held-out draw for the AMD LDS instruction model (``linlayout/lowering/lds_pairs.py``:
LLVM's ``LoadStoreVectorizer`` merges and ``SILoadStoreOptimizer`` pairs): compile a fresh
draw of ``cvt_heldout_probes.build`` (Gluon converts and ``tl`` kernels) on gfx942 and gfx950
and compare, kernel by kernel, the LDS opcodes and their counts per thread of the final
AMDGCN with ``linlayout check --json``'s. Nothing is written but the draw itself, to
``--save`` when given. Needs Triton 3.9.0 (CPU only)::

    N_GLUON=60 N_TL=30 python papers/triton_lowering/lds_heldout.py SEED [--save PATH]
    N_SCAN=60 python papers/triton_lowering/lds_heldout.py SEED --scans [--save PATH]

Prints each kernel with LDS traffic whose opcodes differ and the count that agree as drawn.
``--scans`` draws ``tl`` scans instead (:func:`build_scans`): ``tl.cumsum`` and
``tl.associative_scan`` of one, two (an argmax-like pair) and three operands, 8- to 64-bit
elements, forward and reverse, 1-D tiles and 2-D tiles scanned along either axis, 2 to 8
warps; only scans across warps touch LDS, so only they are compared.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

#: An LDS load or store of the AMDGCN (not ``ds_bpermute``/``ds_swizzle``, not atomics).
LDS = re.compile(r"ds_(read|write)(2st64|2)?_[biu]\d+(_tr_b\d+)?")


def lds_of_asm(p: dict) -> dict:
    """The kernel's LDS opcodes and counts per thread, from a probe of the draw."""
    from cvt_heldout_probes import _kernel_shared

    return {k: v for k, v in _kernel_shared(p).items() if LDS.fullmatch(k) and v}


def lds_of_check(ttgir: str) -> dict:
    """``check --json``'s LDS opcodes and counts per thread over the whole kernel."""
    from cvt_heldout_probes import check_json

    out: collections.Counter = collections.Counter()
    for o in check_json(ttgir)["ops"]:
        for i in o["instructions"]:
            op = i.get("isa") or ""
            if LDS.fullmatch(op) and i.get("per_thread"):
                out[op] += i["per_thread"]
    return dict(out)


def _scan_kernels() -> dict:
    """The ``tl`` scan kernels of :func:`build_scans` (``tl.cumsum``, a maximum, an argmax-like
    pair, three operands), 1-D (``s_<kind>1``) and 2-D (``s_<kind>2``). Needs Triton."""
    import triton
    import triton.language as tl

    @triton.jit
    def c_max(a, b):
        return tl.maximum(a, b)

    @triton.jit
    def c_arg(v1, i1, v2, i2):
        take = v2 > v1
        return tl.where(take, v2, v1), tl.where(take, i2, i1)

    @triton.jit
    def c_three(s1, m1, n1, s2, m2, n2):
        return s1 + s2, tl.maximum(m1, m2), n1 + n2

    @triton.jit
    def s_cumsum1(X, Y, N: tl.constexpr, REV: tl.constexpr):
        r = tl.arange(0, N)
        tl.store(Y + r, tl.cumsum(tl.load(X + r), axis=0, reverse=REV))

    @triton.jit
    def s_max1(X, Y, N: tl.constexpr, REV: tl.constexpr):
        r = tl.arange(0, N)
        tl.store(Y + r, tl.associative_scan(tl.load(X + r), 0, c_max, reverse=REV))

    @triton.jit
    def s_arg1(X, Y, I, N: tl.constexpr, REV: tl.constexpr):
        r = tl.arange(0, N)
        i = r.to(I.dtype.element_ty)
        v, j = tl.associative_scan((tl.load(X + r), i), 0, c_arg, reverse=REV)
        tl.store(Y + r, v)
        tl.store(I + r, j)

    @triton.jit
    def s_three1(X, Y, Z, I, N: tl.constexpr, REV: tl.constexpr):
        r = tl.arange(0, N)
        x = tl.load(X + r)
        s, m, n = tl.associative_scan((x, x, (x != 0).to(tl.int32)), 0, c_three, reverse=REV)
        tl.store(Y + r, s)
        tl.store(Z + r, m)
        tl.store(I + r, n)

    @triton.jit
    def s_cumsum2(X, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                  REV: tl.constexpr):
        o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        tl.store(Y + o, tl.cumsum(tl.load(X + o), axis=AXIS, reverse=REV))

    @triton.jit
    def s_max2(X, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REV: tl.constexpr):
        o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        tl.store(Y + o, tl.associative_scan(tl.load(X + o), AXIS, c_max, reverse=REV))

    @triton.jit
    def s_arg2(X, Y, I, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
               REV: tl.constexpr):
        o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        i = (o // N if AXIS == 0 else o % N).to(I.dtype.element_ty)
        v, j = tl.associative_scan((tl.load(X + o), i), AXIS, c_arg, reverse=REV)
        tl.store(Y + o, v)
        tl.store(I + o, j)

    @triton.jit
    def s_three2(X, Y, Z, I, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                 REV: tl.constexpr):
        o = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        x = tl.load(X + o)
        s, m, n = tl.associative_scan((x, x, (x != 0).to(tl.int32)), AXIS, c_three,
                                      reverse=REV)
        tl.store(Y + o, s)
        tl.store(Z + o, m)
        tl.store(I + o, n)

    return {k: v for k, v in locals().items() if k.startswith("s_")}


def build_scans(seed: int, targets: tuple[str, ...] = ("gfx942", "gfx950")) -> dict:
    """Compile ``N_SCAN`` (environment, default 60) random ``tl`` scans (Triton 3.9.0), each
    counted by TTGIR op like ``cvt_heldout_probes.build``'s ``tl`` probes:
    ``{"triton_version", "probes": {name: {"target", "ttgir", "counts", "lines", ...}}}``.
    Kinds: ``cumsum`` (``tl.cumsum``; integers under 32 bits are widened by ``tl``), ``max``
    (a one-operand ``tl.associative_scan`` of ``tl.maximum``, no widening), ``arg`` (a pair:
    value and an ``i32``/``i64`` index, argmax-like) and ``three`` (value, running maximum and an
    ``i32`` count). Kernels Triton rejects are skipped and counted."""
    import os
    import random

    import triton
    from corpus import strip_locs
    from cvt_heldout_probes import asm_counts, op_located
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    T = {"gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    TY = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
          "bf16": "*bf16", "f32": "*fp32", "f64": "*fp64"}
    K = _scan_kernels()
    rng = random.Random(seed)
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    for _ in range(int(os.environ.get("N_SCAN", "60"))):
        tname = rng.choice(targets)
        kind = rng.choices(["cumsum", "max", "arg", "three"], [3, 2, 3, 2])[0]
        ty = rng.choice(list(TY) if kind != "cumsum" else
                        ["i8", "i16", "i32", "i32", "i64", "f16", "f32", "f32", "f64"])
        warps = rng.choice([2, 4, 4, 8])
        rev = rng.random() < 0.35
        one_d = rng.random() < 0.4
        if one_d:
            N = rng.choice([128, 256, 512, 1024, 2048])
            while N < 64 * warps:
                N *= 2
            const = {"N": N, "REV": rev}
            fn = {"cumsum": K["s_cumsum1"], "max": K["s_max1"], "arg": K["s_arg1"],
                  "three": K["s_three1"]}[kind]
            shape = f"{N}"
        else:
            M, N = rng.choice([(256, 4), (128, 8), (64, 16), (32, 32), (16, 64), (512, 2),
                               (8, 128), (4, 256), (64, 64), (128, 32), (2, 512)])
            const = {"M": M, "N": N, "AXIS": rng.randint(0, 1), "REV": rev}
            fn = {"cumsum": K["s_cumsum2"], "max": K["s_max2"], "arg": K["s_arg2"],
                  "three": K["s_three2"]}[kind]
            shape = f"{M}x{N}_ax{const['AXIS']}"
        sig = {"X": TY[ty], "Y": TY[ty]}
        if kind == "arg":
            sig["I"] = rng.choice(["*i32", "*i64"])
        elif kind == "three":
            sig["Z"], sig["I"] = TY[ty], "*i32"
        sig.update({k: "constexpr" for k in const})
        extra = sig.get("I", "")[1:]
        name = (f"s_{kind}{extra}_{ty}_{shape}{'_rev' if rev else ''}_w{warps}_"
                f"{rng.getrandbits(24):06x}_{tname}")
        try:
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=const),
                               target=T[tname], options={"num_warps": warps})
        except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
            fails[type(e).__name__] += 1
            continue
        asm = k.asm["amdgcn"]
        ttgir = strip_locs(k.asm["ttgir"])
        probes[name] = {"target": tname, "ttgir": ttgir, "counts": asm_counts(asm, None),
                        **op_located(ttgir, tname, asm)}
        if len(probes) % 20 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} scans compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--save", type=pathlib.Path)
    ap.add_argument("--scans", action="store_true",
                    help="draw tl scans across warps (build_scans) instead of the converts")
    args = ap.parse_args()
    import cvt_heldout_probes as C

    data = build_scans(args.seed) if args.scans else C.build(args.seed, ("gfx942", "gfx950"))
    if args.save:
        args.save.write_bytes(gzip.compress(json.dumps(data).encode()))
    agree = total = 0
    for name, p in sorted(data["probes"].items()):
        seen = lds_of_asm(p)
        if not seen:
            continue
        total += 1
        got = lds_of_check(p["ttgir"])
        if got == seen:
            agree += 1
        else:
            print(f"{name}: check {got}, AMDGCN {seen}")
    print(f"{len(data['probes'])} kernels, {total} with LDS traffic: {agree} of {total} "
          f"equal by LDS opcode and count as drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
