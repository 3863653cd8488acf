#!/usr/bin/env python
"""Reductions with an unused result: which scratch reloads Triton 3.9.0's lowering drops.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~1 min)::

    python papers/triton_lowering/unused_result_probes.py          # writes tests/data/triton_unused_result_probes.json.gz
    python papers/triton_lowering/unused_result_probes.py --check  # compare, write nothing

Each probe is a two-operand ``tt.reduce`` of which only one result (or both, as a control)
is stored: an argmin/argmax (``gl.reduce`` with a comparing combine: the index depends on the
values), two independent reductions (a sum and a max), or a combine whose first result reads
both operands and whose second only its own. 2-D tiles in a random ``BlockedLayout`` (Gluon,
drawn as in ``reduce_probes.py``) reduced along a random axis, and 1-D tiles reduced to a
scalar (``tl``); f32/f16/i8/i64 values with ``i32`` partners; 1 to 16 warps; cuda:80/90/100,
gfx942 and gfx950.

The rule (``linlayout/check/shared_memory/reduce.py``, ``kept_reloads``) was written from the
``design`` probes (seeds 21 and 22: a first rule that dropped dead round reloads on every
target failed on 13 of them — on NVIDIA the reloads feed ``shfl.sync``, which stays; on AMD
LLVM removes the dead chain); the ``check`` probes (seed 23) and set ``tl`` (seed 24:
30 ``tl.argmin``/``tl.argmax`` kernels keeping only the index) were generated afterwards. For
every probe the script compares ``linlayout check``'s prediction with the assembly (NVIDIA:
per-thread counts by opcode width; AMD: LDS bytes per thread) and prints the mismatches; the
exit status is non-zero when there is one that ``tests/data/known_mismatches.json`` does not
list. The fixture also keeps Triton's LLVM IR accesses
before LLVM's optimiser (``preopt``): the reload of an unused result in the final move to the
result layout is already missing there (Triton's lowering drops it), the AMD round reloads
are not (LLVM drops them).
"""

from __future__ import annotations

import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_then_compare  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_unused_result_probes.json.gz"
SETS = (("design", 21, 36), ("design", 22, 90), ("check", 23, 90))
TARGETS = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950")


def compare(entry: dict) -> tuple[dict, dict]:
    """(predicted, Triton's) for one probe, as the fixture test compares them."""
    from tests.check.shared_memory.asm_counts import lds_bytes, predicted_counts, ptx_counts

    got, totals = predicted_counts(entry["ttgir"], "probe")
    if entry["target"].startswith("gfx"):
        return totals, lds_bytes(entry["counts"])
    return got, ptx_counts(entry["counts"])


def build() -> dict:
    import triton
    import triton.language as tl
    from corpus import strip_locs
    from reduce_probes import _layouts, compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "cuda100": GPUTarget("cuda", 100, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
         "gfx950": GPUTarget("hip", "gfx950", 64)}

    @gluon.jit
    def c_arg(v1, i1, v2, i2):
        lt = v1 < v2
        keep = lt | ((v1 == v2) & (i1 < i2))
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def c_ind(v1, i1, v2, i2):
        return v1 + v2, gl.maximum(i1, i2)

    @gluon.jit
    def c_half(v1, i1, v2, i2):
        return v1 + v2 + i1.to(v1.dtype), gl.maximum(i1, i2)

    @gluon.jit
    def g2(X, Y, Z, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, AXIS: gl.constexpr,
           COMB: gl.constexpr, KEEP: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        offs = rm[:, None] * N + rn[None, :]
        x = gl.load(X + offs)
        idx = offs.to(gl.int32)
        if COMB == 0:
            v, i = gl.reduce((x, idx), AXIS, c_arg)
        elif COMB == 1:
            v, i = gl.reduce((x, idx), AXIS, c_ind)
        else:
            v, i = gl.reduce((x, idx), AXIS, c_half)
        if AXIS == 0:
            r = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        else:
            r = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        if KEEP != 1:
            gl.store(Y + r, v)
        if KEEP != 0:
            gl.store(Z + r, i)

    @triton.jit
    def t_arg(a, i, b, j):
        lt = a < b
        keep = lt | ((a == b) & (i < j))
        return tl.where(keep, a, b), tl.where(keep, i, j)

    @triton.jit
    def t_ind(a, i, b, j):
        return a + b, tl.maximum(i, j)

    @triton.jit
    def t_half(a, i, b, j):
        return a + b + i.to(a.dtype), tl.maximum(i, j)

    @triton.jit
    def t1(X, Y, Z, N: tl.constexpr, COMB: tl.constexpr, KEEP: tl.constexpr):
        r = tl.arange(0, N)
        x = tl.load(X + r)
        if COMB == 0:
            v, i = tl.reduce((x, r), 0, t_arg)
        elif COMB == 1:
            v, i = tl.reduce((x, r), 0, t_ind)
        else:
            v, i = tl.reduce((x, r), 0, t_half)
        if KEEP != 1:
            tl.store(Y, v)
        if KEEP != 0:
            tl.store(Z, i)

    types = {"f32": "*fp32", "f16": "*fp16", "i8": "*i8", "i64": "*i64"}
    probes = {}
    for set_name, seed, count in SETS:
        rng = random.Random(seed)
        made = 0
        while made < count:
            tname = rng.choice(TARGETS)
            lanes = 64 if tname.startswith("gfx") else 32
            warps = rng.choice([1, 2, 4, 8, 16] if lanes == 32 else [1, 2, 4, 8])
            comb = rng.choice(["arg", "arg", "ind", "half"])
            keep = rng.choice([0, 1, 1, 2] if comb == "arg" else [0, 1, 2])
            ty = rng.choice(["f32", "f16", "i8", "i64"])
            ci = {"arg": 0, "ind": 1, "half": 2}[comb]
            if rng.random() < 0.25:
                n = rng.choice([256, 1024, 4096])
                if n < lanes * warps:
                    continue
                name = f"{comb}_k{keep}_{ty}_{n}_w{warps}_{tname}"
                sig = {"X": types[ty], "Y": types[ty], "Z": "*i32", "N": "constexpr",
                       "COMB": "constexpr", "KEEP": "constexpr"}
                src = ASTSource(fn=t1, signature=sig,
                                constexprs={"N": n, "COMB": ci, "KEEP": keep})
            else:
                shape = rng.choice([[64, 64], [32, 128], [128, 32], [16, 256], [256, 16]])
                lays = _layouts(rng, shape, lanes, warps, 1)
                if not lays:
                    continue
                spt, tpw, wpc, order = lays[0]
                axis = rng.randrange(2)
                name = (f"{comb}_k{keep}_{ty}_{'x'.join(map(str, shape))}_a{axis}"
                        f"_s{''.join(map(str, spt))}_t{'.'.join(map(str, tpw))}"
                        f"_w{''.join(map(str, wpc))}_o{''.join(map(str, order))}_{tname}")
                sig = {"X": types[ty], "Y": types[ty], "Z": "*i32", "M": "constexpr",
                       "N": "constexpr", "L": "constexpr", "AXIS": "constexpr",
                       "COMB": "constexpr", "KEEP": "constexpr"}
                src = GluonASTSource(fn=g2, signature=sig, constexprs={
                    "M": shape[0], "N": shape[1],
                    "L": gl.BlockedLayout(list(spt), list(tpw), list(wpc), list(order)),
                    "AXIS": axis, "COMB": ci, "KEEP": keep})
            if name in probes:
                continue
            entry, _ = compile_probe(src, T[tname], warps, set_name, "unused_result_probes.py")
            entry["ttgir"] = strip_locs(entry["ttgir"])
            probes[name] = entry | {"target": tname}
            made += 1
    # set "tl": tl.argmin/tl.argmax keeping only the index (2-D rows or columns, or 1-D to a
    # scalar), drawn with seed 24 after the rule was final
    @triton.jit
    def t_argidx(X, Z, M: tl.constexpr, N: tl.constexpr, AX: tl.constexpr, MAX: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        if MAX:
            i = tl.argmax(x, AX)
        else:
            i = tl.argmin(x, AX)
        if AX == 0:
            tl.store(Z + rn, i)
        else:
            tl.store(Z + rm, i)

    rng = random.Random(24)
    made = 0
    while made < 30:
        tname = rng.choice(TARGETS)
        lanes = 64 if tname.startswith("gfx") else 32
        warps = rng.choice([2, 4, 8, 16] if lanes == 32 else [2, 4, 8])
        m, n = rng.choice([(64, 64), (32, 256), (256, 32), (16, 1024), (1024, 16), (128, 128)])
        ax, mx, ty = rng.randrange(2), rng.randrange(2), rng.choice(["f32", "f16", "i32", "i8"])
        name = f"tl_arg{'max' if mx else 'min'}_{ty}_{m}x{n}_a{ax}_w{warps}_{tname}"
        if name in probes:
            continue
        sig = {"X": "*" + {"f32": "fp32", "f16": "fp16", "i32": "i32", "i8": "i8"}[ty],
               "Z": "*i32", "M": "constexpr", "N": "constexpr", "AX": "constexpr",
               "MAX": "constexpr"}
        src = ASTSource(fn=t_argidx, signature=sig,
                        constexprs={"M": m, "N": n, "AX": ax, "MAX": mx})
        entry, _ = compile_probe(src, T[tname], warps, "tl", "unused_result_probes.py")
        entry["ttgir"] = strip_locs(entry["ttgir"])
        probes[name] = entry | {"target": tname}
        made += 1
    return {"triton_version": triton.__version__, "probes": probes}


def report(data: dict) -> int:
    """Print each probe whose prediction differs from Triton's (known mismatches apart) and a
    tally; return the number of differences not listed in ``tests/data/known_mismatches.json``
    (set ``unused_result``)."""
    import json

    known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text(
        encoding="utf-8")).get("unused_result", {})
    bad = 0
    hits = 0
    dropped = 0
    for name, entry in sorted(data["probes"].items()):
        got, want = compare(entry)
        if got != want and name in known:
            hits += 1
            print(f"KNOWN {entry['set']} {name}: predicted {got}, Triton {want} ({known[name]})")
        elif got != want:
            bad += 1
            print(f"MISMATCH {entry['set']} {name}: predicted {got}, Triton {want}")
        if "of unused results dropped" in _notes(entry["ttgir"]):
            dropped += 1
    n = len(data["probes"])
    print(f"{n - bad - hits}/{n} probes equal, {hits} known mismatches "
          f"({dropped} with reloads of an unused result dropped)")
    return bad


def main(argv: list[str] | None = None) -> int:
    return main_then_compare(__doc__, OUT, build, report, argv, compare_first=True)


def _notes(ttgir: str) -> str:
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    return " ".join(p.note for _, p in predict_module(read_ttgir(ttgir, "probe"))
                    if not isinstance(p, Exception))


if __name__ == "__main__":
    sys.exit(main())
