#!/usr/bin/env python
"""``tt.reduce`` and ``tt.scan`` probes: Triton 3.9.0's shared-memory instructions for
reductions and scans over explicit layouts (Gluon), element widths and targets.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only)::

    python papers/triton_lowering/reduce_probes.py          # writes tests/data/triton_reduce_probes.json.gz
    python papers/triton_lowering/reduce_probes.py --check  # compare, write nothing

Each probe loads a 2-D or 3-D tile in a ``BlockedLayout`` drawn at random (fixed seeds) —
sizes per thread, lanes and warps along and across the reduced axis, 4 or 8 warps, 32-lane
(``cuda:90``) and 64-lane (``gfx942``, ``gfx950``) warps — reduces it along one axis with
``max`` (one operand; i8/f16/f32/i64) or an argmax (two operands: the values and ``i32``
indices), or scans it with ``cumsum``, and stores the result in the slice (or the same) layout,
so the reduce or scan is the kernel's only op that touches shared memory; ``cvt`` probes
convert an 8- or 16-bit tile between two random blocked layouts (``gluon_kernels.py``'s
``g_cvt``). The fixture keeps the TTGIR (locations removed: nothing here reads them, and the
fixture then does not depend on the kernels' Python source lines), the static count of every
shared-memory instruction of the PTX/AMDGCN, and the shared-memory loads and stores of
Triton's LLVM IR *before* LLVM's optimiser (bytes per thread and the access types), which is
what Triton's own lowering emitted.

Probes of set ``"design"`` (seed 1) were the ones looked at while checking the rule;
``"check"`` (seed 2) were generated afterwards and only compared; ``--fresh`` writes a later
draw (set ``"fresh"``, seeds ``FRESH_SEEDS``, made after the convert rules) to
``tests/data/triton_reduce_fresh_probes.json.gz``, only compared.
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fixture import write_or_check  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "tests" / "data" / "triton_reduce_probes.json.gz"
#: ``--fresh``: a later held-out draw (set ``"fresh"``: the reduce/scan seed, the convert
#: seed), compiled after every reduce, scan and convert rule was written and only compared
FRESH_OUT = ROOT / "tests" / "data" / "triton_reduce_fresh_probes.json.gz"
FRESH_SEEDS = (52, 53)
SMEM = re.compile(r"\b((?:ld|st)\.shared[\w.:]*|ldmatrix[\w.]*|stmatrix[\w.]*|"
                  r"ds_(?:read|write)\w*)")
_LL_TYPE_BYTES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8,
                  "double": 8}


def _ll_bytes(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    if m:
        return int(m.group(1)) * _LL_TYPE_BYTES[m.group(2)]
    return _LL_TYPE_BYTES[ty]


def preopt_accesses(ll: str) -> dict:
    """Shared-memory (``addrspace(3)``) loads and stores of an LLVM IR module: bytes per
    thread and a count per access type (``load <4 x i32>``, ``asm st.shared.b32``,
    ``ldmatrix.x2``)."""
    out = {"load": 0, "store": 0, "types": collections.Counter()}
    for line in ll.splitlines():
        m = re.search(r"= load (<\d+ x \w+>|\w+), ptr addrspace\(3\)", line)
        if m:
            out["load"] += _ll_bytes(m.group(1))
            out["types"][f"load {m.group(1)}"] += 1
            continue
        m = re.search(r"\bstore (<\d+ x \w+>|\w+) [^,]+, ptr addrspace\(3\)", line)
        if m:
            out["store"] += _ll_bytes(m.group(1))
            out["types"][f"store {m.group(1)}"] += 1
            continue
        m = re.search(r"call .*@llvm\.nvvm\.((?:ld|st)matrix)\.sync\.aligned\.m8n8\.x(\d)", line)
        if m:  # 4 bytes per lane and matrix (m8n8 of b16)
            side = "load" if m.group(1) == "ldmatrix" else "store"
            out[side] += 4 * int(m.group(2))
            out["types"][f"{m.group(1)}.x{m.group(2)}"] += 1
            continue
        m = re.search(r'asm sideeffect "[^"]*?((?:ld|st)\.shared[\w.:]*)', line)
        if m:
            op = m.group(1)
            bits = int(re.search(r"\.b(\d+)", op).group(1))
            v = re.search(r"\.v(\d)", op)
            side = "load" if op.startswith("ld") else "store"
            out[side] += bits // 8 * (int(v.group(1)) if v else 1)
            out["types"][f"asm {op}"] += 1
    out["types"] = dict(sorted(out["types"].items()))
    return out


def _layouts(rng: random.Random, shape: list[int], lanes: int, warps: int, n: int) -> list:
    """``n`` distinct (size_per_thread, threads_per_warp, warps_per_cta, order) for ``shape``
    (every dim covered at most once by lanes and warps: no broadcast)."""
    rank = len(shape)
    seen, out = set(), []
    for _ in range(2000):
        if len(out) >= n:
            break
        spt = [1 << rng.randint(0, 3) for _ in range(rank)]
        tpw = [1] * rank
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(rank)] *= 2
        wpc = [1] * rank
        for _ in range(warps.bit_length() - 1):
            wpc[rng.randrange(rank)] *= 2
        if any(s * t * w > d for s, t, w, d in zip(spt, tpw, wpc, shape)):
            continue
        order = list(range(rank))
        rng.shuffle(order)
        key = (tuple(spt), tuple(tpw), tuple(wpc), tuple(order))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def compile_probe(src, target, warps: int, set_name: str, script: str) -> tuple[dict, str]:
    """Compile one Gluon probe with Triton (``target`` a GPUTarget) and return its fixture
    entry — the TTGIR (with this machine's path to ``script`` replaced by its name), the
    shared-memory opcodes of the PTX/AMDGCN and the shared accesses of the LLVM IR before
    LLVM's optimiser (captured from ``llvm.optimize_module``) — and the assembly."""
    import triton
    from triton._C.libtriton import llvm as _llvm

    preopt: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **k):
        preopt.append(str(mod))
        return orig(mod, *a, **k)

    _llvm.optimize_module = capture
    try:
        k = triton.compile(src, target=target, options={"num_warps": warps})
    finally:
        _llvm.optimize_module = orig
    asm = k.asm["amdgcn"] if target.backend == "hip" else k.asm["ptx"]
    ttgir = k.asm["ttgir"].replace(str((HERE / script).resolve()), script)
    entry = {"set": set_name, "target": None, "ttgir": ttgir,
             "counts": dict(sorted(collections.Counter(SMEM.findall(asm)).items())),
             "preopt": preopt_accesses(preopt[0])}
    return entry, asm


def build(only: str | None = None, sets: tuple = (("design", 1), ("check", 2)),
          cvt: tuple[str, int] = ("check", 3)) -> dict:
    """Compile the probes: the reduces and scans of ``sets`` (``(set name, seed)`` each) and
    the converts of ``cvt`` (set name, seed)."""
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def _argmax_combine(v1, i1, v2, i2):
        gt = v1 > v2
        eq = v1 == v2
        keep = gt | (eq & (i1 < i2))
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def g_reduce2(X, Y, Z, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
                  AXIS: gl.constexpr, KIND: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        offs = rm[:, None] * N + rn[None, :]
        x = gl.load(X + offs)
        if KIND == 2:
            s = gl.cumsum(x, AXIS)
            gl.store(Y + offs, s)
        else:
            if AXIS == 0:
                r = gl.arange(0, N, layout=gl.SliceLayout(0, L))
            else:
                r = gl.arange(0, M, layout=gl.SliceLayout(1, L))
            if KIND == 0:
                gl.store(Y + r, gl.max(x, AXIS))
            else:
                idx = offs.to(gl.int32)
                v, i = gl.reduce((x, idx), AXIS, _argmax_combine)
                gl.store(Y + r, v)
                gl.store(Z + r, i)

    @gluon.jit
    def g_reduce3(X, Y, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, L: gl.constexpr,
                  AXIS: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, gl.SliceLayout(2, L)))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(2, L)))
        rk = gl.arange(0, K, layout=gl.SliceLayout(0, gl.SliceLayout(1, L)))
        offs = (rm[:, None, None] * N + rn[None, :, None]) * K + rk[None, None, :]
        x = gl.load(X + offs)
        r = gl.max(x, AXIS)
        R: gl.constexpr = gl.SliceLayout(AXIS, L)
        if AXIS == 0:
            a = gl.arange(0, N, layout=gl.SliceLayout(1, R))
            b = gl.arange(0, K, layout=gl.SliceLayout(0, R))
            o = a[:, None] * K + b[None, :]
        elif AXIS == 1:
            a = gl.arange(0, M, layout=gl.SliceLayout(1, R))
            b = gl.arange(0, K, layout=gl.SliceLayout(0, R))
            o = a[:, None] * K + b[None, :]
        else:
            a = gl.arange(0, M, layout=gl.SliceLayout(1, R))
            b = gl.arange(0, N, layout=gl.SliceLayout(0, R))
            o = a[:, None] * N + b[None, :]
        gl.store(Y + o, r)

    g_cvt = convert_kernel()

    targets = {"cuda90": GPUTarget("cuda", 90, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
               "gfx950": GPUTarget("hip", "gfx950", 64)}
    types = {"i8": "*i8", "f16": "*fp16", "f32": "*fp32", "i64": "*i64"}
    probes = {}
    for set_name, seed in sets:
        rng = random.Random(seed)
        jobs = []
        for tname in targets:
            lanes = 32 if tname.startswith("cuda") else 64
            for warps in (4, 8):
                for shape in ([64, 64], [32, 128], [128, 16]):
                    for lay in _layouts(rng, shape, lanes, warps, 2):
                        axis = rng.randrange(2)
                        kind = rng.choice(["max", "max", "argmax", "cumsum"])
                        ty = rng.choice(["f32", "f16", "i8", "i64"] if kind == "max"
                                        else ["f32", "f16"])
                        jobs.append((tname, warps, shape, lay, axis, kind, ty))
                for lay in _layouts(rng, [16, 16, 16], lanes, warps, 1):
                    jobs.append((tname, warps, [16, 16, 16], lay, rng.randrange(3), "max",
                                 rng.choice(["f32", "f16"])))
        for tname, warps, shape, lay, axis, kind, ty in jobs:
            spt, tpw, wpc, order = lay
            name = (f"{kind}_{ty}_{'x'.join(map(str, shape))}_a{axis}_s{''.join(map(str, spt))}"
                    f"_t{'.'.join(map(str, tpw))}_w{''.join(map(str, wpc))}"
                    f"_o{''.join(map(str, order))}_{tname}")
            if only and only not in name:
                continue
            L = gl.BlockedLayout(list(spt), list(tpw), list(wpc), list(order))
            if len(shape) == 3:
                sig = {"X": types[ty], "Y": types[ty], "M": "constexpr", "N": "constexpr",
                       "K": "constexpr", "L": "constexpr", "AXIS": "constexpr"}
                src = GluonASTSource(fn=g_reduce3, signature=sig, constexprs={
                    "M": shape[0], "N": shape[1], "K": shape[2], "L": L, "AXIS": axis})
            else:
                sig = {"X": types[ty], "Y": types[ty], "Z": "*i32", "M": "constexpr",
                       "N": "constexpr", "L": "constexpr", "AXIS": "constexpr",
                       "KIND": "constexpr"}
                src = GluonASTSource(fn=g_reduce2, signature=sig, constexprs={
                    "M": shape[0], "N": shape[1], "L": L, "AXIS": axis,
                    "KIND": {"max": 0, "argmax": 1, "cumsum": 2}[kind]})
            entry, _ = compile_probe(src, targets[tname], warps, set_name, "reduce_probes.py")
            # the TTGIR without its Python locations (nothing here reads them)
            probes[name] = entry | {"target": tname, "ttgir": strip_locs(entry["ttgir"])}
            print(name, probes[name]["counts"], file=sys.stderr)
    # 8- and 16-bit converts between random blocked layouts (generated after the
    # getVecBasisLdSt rule was written: set "check")
    rng = random.Random(cvt[1])
    for tname in ("cuda90", "gfx942"):
        lanes = 32 if tname.startswith("cuda") else 64
        for warps in (4, 8):
            for ty in ("i8", "f16"):
                for shape in ([64, 64], [32, 128]):
                    a, b = _layouts(rng, shape, lanes, warps, 2)
                    name = (f"cvt_{ty}_{'x'.join(map(str, shape))}_w{warps}_"
                            f"{rng.getrandbits(24):06x}_{tname}")
                    if only and only not in name:
                        continue
                    sig = {"X": types[ty], "Y": types[ty], "M": "constexpr", "N": "constexpr",
                           "L": "constexpr", "D": "constexpr"}
                    src = GluonASTSource(fn=g_cvt, signature=sig, constexprs={
                        "M": shape[0], "N": shape[1],
                        "L": gl.BlockedLayout(*[list(x) for x in a]),
                        "D": gl.BlockedLayout(*[list(x) for x in b])})
                    entry, _ = compile_probe(src, targets[tname], warps, cvt[0],
                                             "reduce_probes.py")
                    probes[name] = entry | {"target": tname,
                                            "ttgir": strip_locs(entry["ttgir"])}
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("-k", help="only probes whose name contains this (not written)")
    ap.add_argument("--fresh", action="store_true",
                    help="the later held-out draw (FRESH_SEEDS): "
                         "tests/data/triton_reduce_fresh_probes.json.gz")
    args = ap.parse_args(argv)
    if args.fresh:
        data = build(args.k, (("fresh", FRESH_SEEDS[0]),), ("fresh", FRESH_SEEDS[1]))
    else:
        data = build(args.k)
    if args.k:
        return 0
    return write_or_check(FRESH_OUT if args.fresh else OUT, data, args.check)


if __name__ == "__main__":
    sys.exit(main())
