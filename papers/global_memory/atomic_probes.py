#!/usr/bin/env python
"""Global atomics: the exact opcode Triton 3.9.0 emits for each ``tt.atomic_rmw``/
``tt.atomic_cas`` and how many per thread, against ``linlayout check``.

Run with Triton 3.9.0 installed (CPU only, ~3 min)::

    python papers/global_memory/atomic_probes.py          # writes tests/data/triton_atomic_probes.json.gz
    python papers/global_memory/atomic_probes.py --check  # compare with the fixture, write nothing

The naming rule (``linlayout/check/global_memory/predict.py``: ``nvidia_atomic_name``,
``amd_atomic_name``) was written from Triton's ``emitPtxAtomicRMWImpl``/``emitPtxAtomicCAS``
and ``AtomicRMWOpConversion`` and from an exploratory sweep of ``tl`` kernels (one element per
thread, every dtype, op, order and scope on cuda:80/90/100 and gfx942/gfx950). This set (seed
61) was generated afterwards: Gluon kernels whose ``BlockedLayout`` gives each thread 1, 2, 4
or 8 consecutive elements (so the vector ``atom…v4.f32`` of sm_90+ and the packed ``f16x2``
appear), ``atomic_add``/``max``/``min``/``and``/``or``/``xor``/``xchg``/``cas`` on i32, u32,
i64, f16, bf16, f32 and f64, orders ``relaxed``/``acquire``/``release``/``acq_rel``, scopes
``cta``/``gpu``/``sys``, masked or not, the result used or not, the pointers and bound
16-divisible (``tt.divisibility``) or not, 1 to 8 warps.

The fixture keeps per probe the TTGIR and the static count of every atomic opcode: on NVIDIA
from the PTX (Triton's inline assembly, or for a bf16 add below sm_90 the CAS loop LLVM emits),
on AMD from the final AMDGCN (the mnemonics LLVM's backend selects). A probe whose atomics
``check`` names by family only (AMD 16-bit float adds) is kept and counted apart. Exit status 1
on a mismatch.

First comparison: 233 of 236 equal; the 3 others were AMD 16-bit float adds at system scope,
which the rule named as one compare-and-swap loop although it leaves 16-bit float adds
unmodelled (LLVM emits three loops there): the system-scope case was checked before the
16-bit one. With that order fixed, 16-bit float adds on AMD are named by family at every
scope.

Since AMD 16-bit float adds are modelled (a packed ``global_atomic_pk_add_f16``/``_bf16``, with
two compare-and-swap fallbacks per element where the vector is one; drawn against in
``amd_atomic_probes.py``), none is named by family: 240 of 240 equal, the 4 AMD 16-bit adds of
this set included.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
OUT = ROOT / "tests" / "data" / "triton_atomic_probes.json.gz"
SEED, PROBES = 61, 240
NV_ATOMIC = re.compile(r"\b((?:atom|red)\.[\w.:]*global[\w.:]*)")
AMD_ATOMIC = re.compile(r"\b((?:global|buffer|flat)_atomic_\w+)")
TARGETS = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950")
DTYPES = {"i32": "*i32", "u32": "*u32", "i64": "*i64", "f16": "*fp16", "bf16": "*bf16",
          "f32": "*fp32", "f64": "*fp64"}
OPS = ("add", "max", "min", "and", "or", "xor", "xchg", "cas")


def atomic_counts(asm: str, nvidia: bool) -> dict:
    """Static count of every global atomic opcode of a PTX or AMDGCN text."""
    return dict(sorted(collections.Counter((NV_ATOMIC if nvidia else AMD_ATOMIC)
                                           .findall(asm)).items()))


def predicted(ttgir: str) -> tuple[dict, bool]:
    """``check``'s atomic opcodes ``{opcode: per thread}`` and whether every one is named
    exactly (not by family)."""
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    exact = True
    for g in rep.global_ops:
        if g.prediction is None or g.prediction.side != "atomic":
            continue
        for opcode, n in g.prediction.instructions():
            out[opcode] += n
            exact &= opcode not in ("global_atomic", "buffer_atomic", "atom.global",
                                    "red.global")
    return dict(sorted(out.items())), exact


def _kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def katom(X, Y, n, N: gl.constexpr, SPT: gl.constexpr, TPW: gl.constexpr, W: gl.constexpr,
              OP: gl.constexpr, SEM: gl.constexpr, SCOPE: gl.constexpr, MASK: gl.constexpr,
              USED: gl.constexpr):
        L: gl.constexpr = gl.BlockedLayout([SPT], [TPW], [W], [0])
        offs = gl.program_id(0) * N + gl.arange(0, N, layout=L)
        v = gl.load(X + offs)
        m = offs < n
        if MASK:
            if OP == 0:
                old = gl.atomic_add(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 1:
                old = gl.atomic_max(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 2:
                old = gl.atomic_min(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 3:
                old = gl.atomic_and(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 4:
                old = gl.atomic_or(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 5:
                old = gl.atomic_xor(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            elif OP == 6:
                old = gl.atomic_xchg(Y + offs, v, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = gl.atomic_cas(Y + offs, v, v, sem=SEM, scope=SCOPE)
        else:
            if OP == 0:
                old = gl.atomic_add(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 1:
                old = gl.atomic_max(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 2:
                old = gl.atomic_min(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 3:
                old = gl.atomic_and(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 4:
                old = gl.atomic_or(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 5:
                old = gl.atomic_xor(Y + offs, v, sem=SEM, scope=SCOPE)
            elif OP == 6:
                old = gl.atomic_xchg(Y + offs, v, sem=SEM, scope=SCOPE)
            else:
                old = gl.atomic_cas(Y + offs, v, v, sem=SEM, scope=SCOPE)
        if USED:
            gl.store(X + offs, old)

    return katom


def build() -> dict:
    import triton
    from corpus import strip_locs
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.experimental.gluon._runtime import GluonASTSource

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    katom = _kernel()
    rng = random.Random(SEED)
    probes: dict = {}
    tried = 0
    while len(probes) < PROBES and tried < 2000:
        tried += 1
        tname = rng.choice(TARGETS)
        nvidia = tname.startswith("cuda")
        ty = rng.choice(list(DTYPES))
        op = rng.choice(OPS)
        if op in ("and", "or", "xor") and ty[0] in "fb":
            continue
        if op in ("max", "min") and ty in ("f16", "bf16"):
            continue
        sem = rng.choice(["relaxed", "acquire", "release", "acq_rel"])
        scope = rng.choice(["cta", "gpu", "sys"])
        spt, w = rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 2, 4, 8])
        mask, used = rng.random() < 0.4, rng.random() < 0.5
        aligned = rng.random() < 0.7
        tpw = 32 if nvidia else 64
        n_elems = spt * tpw * w * rng.choice([1, 2])
        name = (f"atomic_{op}_{ty}_{sem}_{scope}_spt{spt}_w{w}_n{n_elems}"
                f"{'_mask' if mask else ''}{'_used' if used else ''}"
                f"{'_div16' if aligned else ''}_{tname}")
        if name in probes:
            continue
        sig = {"X": DTYPES[ty], "Y": DTYPES[ty], "n": "i32"}
        consts = {"N": n_elems, "SPT": spt, "TPW": tpw, "W": w, "OP": OPS.index(op),
                  "SEM": sem, "SCOPE": scope, "MASK": mask, "USED": used}
        sig.update({k: "constexpr" for k in consts})
        target = GPUTarget("cuda", int(tname[4:]), 32) if nvidia else \
            GPUTarget("hip", tname, 64)
        try:
            attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]],
                     (2,): [["tt.divisibility", 16]]} if aligned else {}
            k = triton.compile(GluonASTSource(fn=katom, signature=sig, constexprs=consts,
                                              attrs=attrs),
                               target=target, options={"num_warps": w})
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print(f"not compiled: {name}: {type(exc).__name__}: {str(exc)[:100]}",
                  file=sys.stderr)
            continue
        asm = k.asm["ptx"] if nvidia else k.asm["amdgcn"]
        probes[name] = {"set": "check", "target": tname, "ttgir": strip_locs(k.asm["ttgir"]),
                        "counts": atomic_counts(asm, nvidia)}
    return {"triton_version": triton.__version__, "probes": probes}


def compare(probes: dict) -> int:
    """Print each mismatch and a summary; the number of mismatches."""
    bad = family = 0
    per_target: collections.Counter = collections.Counter()
    for name, p in sorted(probes.items()):
        got, exact = predicted(p["ttgir"])
        if not exact:
            family += 1
            continue
        if got != p["counts"]:
            bad += 1
            print(f"MISMATCH {name}: predicted {got} compiled {p['counts']}")
        else:
            per_target[p["target"]] += 1
    n = len(probes) - family
    print(f"{n - bad}/{n} probes: atomic opcodes and per-thread counts equal "
          f"({dict(sorted(per_target.items()))}); {family} named by family only")
    return bad


def main(argv: list[str] | None = None) -> int:
    from fixture import main_then_compare

    return main_then_compare(__doc__, OUT, build, lambda data: compare(data["probes"]), argv)


if __name__ == "__main__":
    sys.exit(main())
