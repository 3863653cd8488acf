#!/usr/bin/env python
"""LDS alignment probes: what Triton 3.9.0 and LLVM emit on AMD for a ``#ttg.padded_shared``
buffer whose padding misaligns the vector Triton picked.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/triton_lowering/lds_alignment_probes.py          # writes tests/data/triton_lds_alignment_probes.json.gz
    python papers/triton_lowering/lds_alignment_probes.py --check  # compare, write nothing

The question: the LLVM AMDGPU backend picks ``ds_read_b128``, ``ds_read2_b64``,
``ds_read2_b32``, … for an LDS access from the ``align`` the IR gives it (a ``<4 x i32>`` load
known only 4-byte aligned becomes ``ds_read2_b64``/``ds_read2_b32`` unless unaligned DS access
is enabled), so a misaligned vector might be split into narrower instructions than the one
linlayout predicts. Each Gluon probe (gfx942 and gfx950, seed 11) stores a tile (8-, 16- or
32-bit elements) in a random ``BlockedLayout`` whose contiguous dim holds a 4-, 8- or 16-byte
vector per thread into a ``PaddedSharedLayout.with_identity_for`` with one (interval, pad)
pair that usually breaks that vector's alignment (pads of 1 to 8 elements), and loads it back
in the same or another such layout. The fixture keeps the TTGIR (``loc`` removed), the static
count of every ``ds_*`` instruction of the AMDGCN, and per side (``store``, ``load``):

* ``ir`` — every LDS access of the LLVM IR before LLVM's optimiser, as ``"load <4 x float>
  align 16"``: the vector Triton emitted and the alignment it *claims*;
* ``vector_bytes`` (that vector, capped at 16), ``misaligned`` and ``gap`` — computed by brute
  force from the TTGIR's layouts over every warp, lane and register
  (:func:`padded_fault_probes.brute_force`, independent of :mod:`linlayout.hardware.access`).

Finding (3.9.0, both targets): Triton's ``align`` is always the vector's own size — it claims
natural alignment whatever the padding — so LLVM never sees a misaligned access and emits the
full-width instruction (``ds_read_b128``, or its usual pairing of two neighbouring accesses
into ``ds_read2*``); nothing is split. ``tests/check/shared_memory/test_lds_alignment_probes.py``
replays the fixture without Triton.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
from fixture import main_for  # noqa: E402

OUT = HERE.parents[1] / "tests" / "data" / "triton_lds_alignment_probes.json.gz"
SEED = 11
PROBES = 40
LDS_ACCESS = re.compile(r"(?:= (load) (<\d+ x \w+>|\w+), ptr addrspace\(3\) %\S+|"
                        r"\b(store) (<\d+ x \w+>|\w+) [^,]+, ptr addrspace\(3\) %\S+), align (\d+)")
DS = re.compile(r"\b(ds_(?:read|write)\w*)")


def ir_accesses(ll: str) -> dict[str, list[str]]:
    """Every LDS load and store of an LLVM IR module, per side, as ``"load <4 x float> align
    16"`` (sorted, repeated as often as they occur)."""
    out: dict[str, list[str]] = {"load": [], "store": []}
    for m in LDS_ACCESS.finditer(ll):
        kind = m.group(1) or m.group(3)
        ty = m.group(2) or m.group(4)
        out[kind].append(f"{kind} {ty} align {m.group(5)}")
    return {k: sorted(v) for k, v in out.items()}


def build() -> dict:
    """Compile the probes (seed :data:`SEED`) and return the fixture document
    ``{"triton_version", "probes": {name: entry}}`` (module docstring)."""
    import triton
    from corpus import strip_locs
    from padded_fault_probes import LL_BYTES, brute_force
    from triton._C.libtriton import llvm as _llvm
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def g_lds(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
              D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S, x)
        y = smem.load(D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def rand_blocked(rng, M, N, bits, warps):
        for _ in range(200):
            vec = rng.choice([4, 8, 16]) * 8 // bits
            tpw = [1, 1]
            for _ in range(6):
                tpw[rng.randrange(2)] *= 2
            wpc = [1, 1]
            for _ in range(warps.bit_length() - 1):
                wpc[rng.randrange(2)] *= 2
            spt = [1, vec]
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, [1, 0])
        return gl.BlockedLayout([1, 1], [1, 64], [warps, 1], [1, 0])

    targets = {"gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    ty = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    rng = random.Random(SEED)
    probes, fails = {}, collections.Counter()
    captured: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **k):
        captured.append(str(mod))
        return orig(mod, *a, **k)

    for i in range(PROBES):
        tname = sorted(targets)[i % 2]
        warps = rng.choice([1, 2, 4])
        bits = rng.choice([8, 16, 32])
        M, N = rng.choice([(32, 32), (64, 64), (32, 128), (16, 64)])
        pair = [rng.choice([N, N, 2 * N, 16, 32]), rng.choice([1, 1, 2, 4, 8])]
        S = gl.PaddedSharedLayout.with_identity_for([pair], [M, N], [1, 0])
        L = rand_blocked(rng, M, N, bits, warps)
        D = L if rng.random() < 0.5 else rand_blocked(rng, M, N, bits, warps)
        sig = {"X": ty[bits], "Y": ty[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "S": "constexpr", "D": "constexpr"}
        src = GluonASTSource(fn=g_lds, signature=sig,
                             constexprs={"M": M, "N": N, "L": L, "S": S, "D": D})
        name = f"lds_{pair[0]}p{pair[1]}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
        captured.clear()
        _llvm.optimize_module = capture
        try:
            k = triton.compile(src, target=targets[tname], options={"num_warps": warps})
        except Exception as e:  # a probe Triton refuses is left out, counted
            fails[type(e).__name__] += 1
            continue
        finally:
            _llvm.optimize_module = orig
        if not captured:
            fails["no LLVM IR captured"] += 1
            continue
        ttgir = strip_locs(k.asm["ttgir"].replace(str((HERE / "lds_alignment_probes.py")
                                                      .resolve()), "lds_alignment_probes.py"))
        entry = {"target": tname, "ttgir": ttgir,
                 "counts": dict(sorted(collections.Counter(DS.findall(k.asm["amdgcn"])).items())),
                 "sides": {}}
        ir = ir_accesses(captured[0])
        for side in ("store", "load"):
            widths = set()
            for a in ir[side]:
                m = re.match(r"\w+ (?:<(\d+) x (\w+)>|(\w+)) align", a)
                widths.add(int(m.group(1) or 1) * LL_BYTES[m.group(2) or m.group(3)])
            if len(widths) != 1:
                fails[f"{side} widths {sorted(widths)}"] += 1
                break
            (nbytes,) = widths
            entry["sides"][side] = brute_force(ttgir, min(nbytes, 16), side)
            entry["sides"][side]["ir"] = ir[side]
        else:
            probes[name] = entry
    print(f"{len(probes)} probes kept; left out: {dict(fails)}")
    mis = collections.Counter((e["target"], s["misaligned"], s["gap"])
                              for e in probes.values() for s in e["sides"].values())
    print(f"sides by (target, misaligned, gap): {dict(sorted(mis.items()))}")
    claims = collections.Counter(
        a.split(" align ")[1] == str(s["vector_bytes"]) or int(a.split(" align ")[1]) >= 16
        for e in probes.values() for s in e["sides"].values() for a in s["ir"])
    print(f"IR accesses whose align is the vector's size: {dict(claims)}")
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    """Write the fixture, or with ``--check`` compare it with a fresh build."""
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
