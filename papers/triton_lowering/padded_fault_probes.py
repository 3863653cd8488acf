#!/usr/bin/env python
"""Padded-buffer probes: does the vector Triton emits for a ``#ttg.padded_shared`` buffer stay
aligned and gap-free?

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/triton_lowering/padded_fault_probes.py          # writes tests/data/triton_padded_fault_probes.json.gz
    python papers/triton_lowering/padded_fault_probes.py --check  # compare, write nothing

Each Gluon probe loads a tile (32x32, 64x64, 32x128 or 16x64 of 8-, 16- or 32-bit elements)
in a random ``BlockedLayout``, stores it into a ``PaddedSharedLayout.with_identity_for`` with
one or two random (interval, pad) pairs and a random order (``gl.allocate_shared_memory``:
a ``local_alloc``) and loads it back in the same or another random blocked layout
(``local_load``); cuda:80, cuda:90 and gfx942, 1 to 4 warps, drawn with seed 7. The fixture
keeps the TTGIR (``loc`` removed), the static count of every shared-memory instruction of
the assembly, the LLVM IR accesses before LLVM's optimiser, and per side (``store``,
``load``) what the compiled code does:

* ``vector_bytes`` — bytes per lane of each shared-memory instruction Triton emitted (PTX
  ``st/ld.shared[.vN].bK`` on NVIDIA; on AMD the LLVM IR ``store/load <N x T>``, kept in
  ``ir_vector_bytes``, capped at the 16 bytes of ``ds_read/ds_write_b128``: LLVM splits a
  wider one into 16-byte instructions at consecutive addresses);
* ``misaligned`` — some lane's vector starts at a byte address that is not a multiple of
  ``vector_bytes``, and ``gap`` — some vector's elements are not at consecutive padded
  addresses. Both are computed here by brute force, from the TTGIR's layouts (every warp,
  lane and register; a vector = ``vector_bytes`` worth of consecutive unpadded offsets, its
  address that of its first element after padding, as Triton's ``applyPadding``) and the
  vector width read from the assembly — independently of ``linlayout.hardware.access``.

``tests/check/shared_memory/test_padded_fault_probes.py`` replays them without Triton.
"""

from __future__ import annotations

import collections
import pathlib
import random
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from fixture import main_for  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parents[1] / "tests" / "data" / "triton_padded_fault_probes.json.gz"
SEED = 7
PROBES = 44
PTX_LDST = re.compile(r"\b(ld|st)\.shared(?:\.v(\d))?\.[bfsu](\d+)")
LL_LDST = re.compile(r"\b(load|store) (<(\d+) x (\w+)>|\w+)")
LL_BYTES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8}


def vector_bytes(entry: dict, asm: str) -> dict[str, list[int]]:
    """Bytes per lane of every shared-memory access of the compiled probe, per side."""
    out: dict[str, set] = {"store": set(), "load": set()}
    if entry["target"].startswith("cuda"):
        for op, v, bits in PTX_LDST.findall(asm):
            out["store" if op == "st" else "load"].add(int(v or 1) * int(bits) // 8)
    else:
        for ty in entry["preopt"]["types"]:
            m = LL_LDST.match(ty)
            if m:
                n = int(m.group(3) or 1) * LL_BYTES[m.group(4) or m.group(2)]
                out[m.group(1)].add(n)
    return {k: sorted(v) for k, v in out.items()}


def brute_force(ttgir: str, nbytes: int, side: str) -> dict:
    """Replay every (warp, lane, register) of the probe's ``side`` access at ``nbytes`` per
    lane: is any vector misaligned, does any cross a padding gap?"""
    from linlayout.check.shared_memory.ops import layout_of, padded_of
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    (a,) = [x for x in find_accesses(read_ttgir(ttgir)) if x.kind == side]
    padded = padded_of(a.memory)
    dist = layout_of(a.distributed)
    inv = padded.linear.invert()
    eb = max(8, a.element_bits) // 8
    v = max(1, nbytes // eb)
    dims = dist.in_dims
    mis = gap = False
    for w in range(dims.get("warp", 1)):
        for ln in range(dims.get("lane", 1)):
            for r in range(dims.get("register", 1)):
                point = {k: x for k, x in (("register", r), ("lane", ln), ("warp", w))
                         if k in dims}
                x = inv.apply(dist.apply(point))["offset"]
                if x % v:
                    continue
                p = padded.padded_offset(x)
                mis |= (p * eb) % nbytes != 0
                gap |= [padded.padded_offset(x + j) for j in range(v)] != list(range(p, p + v))
    return {"vector_bytes": nbytes, "misaligned": mis, "gap": gap}


def build() -> dict:
    """Compile the probes (seed :data:`SEED`) and return the fixture document
    ``{"triton_version", "probes": {name: entry}}`` (module docstring)."""
    import triton
    from corpus import strip_locs
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def g_pad(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
              D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S, x)
        y = smem.load(D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def rand_blocked(rng, M, N, lanes, warps, order):
        for _ in range(200):
            spt = [1, 1]
            spt[order[0]] = 1 << rng.randint(0, 4)
            spt[order[1]] = 1 << rng.randint(0, 1)
            tpw = [1, 1]
            for _ in range(lanes.bit_length() - 1):
                tpw[rng.randrange(2)] *= 2
            wpc = [1, 1]
            for _ in range(warps.bit_length() - 1):
                wpc[rng.randrange(2)] *= 2
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, order)
        return gl.BlockedLayout([1, 1], [1, lanes], [warps, 1], [1, 0])

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "gfx942": GPUTarget("hip", "gfx942", 64)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    rng = random.Random(SEED)
    probes, fails = {}, collections.Counter()
    for _ in range(PROBES):
        tname = rng.choice(list(T))
        lanes = 32 if tname.startswith("cuda") else 64
        warps = rng.choice([1, 2, 4])
        bits = rng.choice([8, 16, 32])
        M, N = rng.choice([(32, 32), (64, 64), (32, 128), (16, 64)])
        order = rng.choice([[1, 0], [0, 1]])
        intervals = rng.sample([4, 8, 16, 32, 64, 128], rng.randint(1, 2))
        pairs = [[i, rng.choice([1, 2, 4, 8])] for i in sorted(intervals)]
        S = gl.PaddedSharedLayout.with_identity_for(pairs, [M, N], order)
        L = rand_blocked(rng, M, N, lanes, warps, order)
        D = L if rng.random() < 0.5 else rand_blocked(rng, M, N, lanes, warps, order)
        sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "S": "constexpr", "D": "constexpr"}
        src = GluonASTSource(fn=g_pad, signature=sig,
                             constexprs={"M": M, "N": N, "L": L, "S": S, "D": D})
        tag = "_".join(f"{i}p{p}" for i, p in pairs)
        name = f"pad_{tag}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
        try:
            entry, asm = compile_probe(src, T[tname], warps, "x", "padded_fault_probes.py")
        except Exception as e:  # a probe Triton refuses is left out, counted
            fails[type(e).__name__] += 1
            continue
        entry["target"] = tname
        entry["ttgir"] = strip_locs(entry["ttgir"])
        del entry["set"]
        widths = vector_bytes(entry, asm)
        entry["sides"] = {}
        for side in ("store", "load"):
            if len(widths[side]) != 1:
                fails[f"{side} widths {widths[side]}"] += 1
                break
            (ir,) = widths[side]
            entry["sides"][side] = brute_force(entry["ttgir"], min(ir, 16), side)
            entry["sides"][side]["ir_vector_bytes"] = ir
        else:
            probes[name] = entry
    print(f"{len(probes)} probes kept; left out: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    """Write the fixture, or with ``--check`` compare it with a fresh build."""
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
