#!/usr/bin/env python
"""Padded-buffer view probes: is the vector Triton emits for a view of a
``#ttg.padded_shared`` buffer at an offset (``memdesc_subslice``) or in a pipeline stage
(``memdesc_index``) aligned where the view lies?

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/triton_lowering/padded_view_probes.py          # writes tests/data/triton_padded_view_probes.json.gz
    python papers/triton_lowering/padded_view_probes.py --check  # compare, write nothing

Each Gluon probe allocates a padded buffer (``PaddedSharedLayout.with_identity_for`` with one
random (interval, pad) pair, row-major, 32-bit elements; cuda:80 or cuda:90, one warp, seed
11) and stores a tile into, then loads it from, either

* ``smem.slice(off, k, dim)`` of a ``[M, N]`` buffer, ``off`` a nonzero multiple of ``k``
  (a ``memdesc_subslice`` at ``[off, 0]`` or ``[0, off]``), or
* ``smem.index(i)`` of a ``[B, M, N]`` buffer, ``i`` a constant or a kernel argument (a
  ``memdesc_index``; a dynamic index may select any stage).

The fixture keeps the TTGIR (``loc`` removed) and per side (``store``, ``load``):

* ``vector_bytes`` — bytes per lane of the PTX ``st/ld.shared[.vN].b32``;
* ``misaligned`` / ``gap`` — computed here by brute force from the layouts and the offsets
  this script chose, independently of ``linlayout.hardware.access``: the element at view
  coordinates ``c`` lies at unpadded offset ``L⁻¹(origin + c)`` of the allocation (a
  subslice), or at ``pad(i·n) + pad(L⁻¹(c))`` (stage ``i`` of ``n``-element buffers; every
  stage for a dynamic index), padded as Triton's ``applyPadding``;
* ``lane0_bytes`` — the byte addresses of lane 0's vectors so computed, and
  ``ptx_immediates`` — the ``[%r+imm]`` offsets of the PTX's shared accesses: for a
  constant offset each is one of lane 0's addresses (the compiled address arithmetic puts
  the view where the brute force does; ptxas may move an offset into a register, so a few
  of lane 0's addresses can be missing);
* ``faults_at_origin`` — whether the same access already faults with the view at the
  allocation's origin (stage 0): where it does not, only the view's offset makes it fault.

The script prints, per probe, what ``linlayout check`` says (``MISALIGNED`` exactly when a
vector is misaligned or crosses a gap) and exits 1 on any disagreement.
``tests/check/shared_memory/test_padded_view_probes.py`` replays the fixture without Triton.
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
OUT = HERE.parents[1] / "tests" / "data" / "triton_padded_view_probes.json.gz"
SEED = 11
PROBES = 60
PTX_LDST = re.compile(r"\b(ld|st)\.shared(?:\.v(\d))?\.b(\d+)\s[^;]*?\[%r\d+(?:\+(\d+))?\]")


def ptx_sides(asm: str) -> dict[str, dict]:
    """Bytes per lane and ``[%r+imm]`` immediates of the PTX's shared accesses, per side."""
    out = {"store": (set(), set()), "load": (set(), set())}
    for op, v, bits, imm in PTX_LDST.findall(asm):
        w, ims = out["store" if op == "st" else "load"]
        w.add(int(v or 1) * int(bits) // 8)
        ims.add(int(imm or 0))
    return {k: {"widths": sorted(w), "immediates": sorted(i)} for k, (w, i) in out.items()}


def brute_force(ttgir: str, side: str, nbytes: int, view: dict) -> dict:
    """Every (lane, register) vector of ``side`` at ``nbytes`` per lane, placed where the
    view lies: misaligned? crossing a gap? lane 0's byte addresses."""
    from linlayout.check.shared_memory.ops import layout_of, padded_of
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    (a,) = [x for x in find_accesses(read_ttgir(ttgir)) if x.kind == side]
    padded = padded_of(a.memory)
    pairs = padded.pairs
    inv = padded.linear.invert()
    dist = layout_of(a.distributed)
    n = padded.offset_elems

    def pad(x: int) -> int:
        return x + sum((x // i) * p for i, p in pairs)

    origin = view.get("origin", [0, 0])
    stages = view.get("stages", [0])
    v = nbytes // 4
    mis = gap = False
    lane0 = set()
    for stage in stages:
        start = pad(stage * n)
        for ln in range(dist.in_dims.get("lane", 1)):
            for r in range(dist.in_dims.get("register", 1)):
                c = dist.apply({"register": r, "lane": ln, "warp": 0})
                if view.get("kind") == "subslice":
                    dims = list(c)
                    c = {d: c[d] + o for d, o in zip(dims, origin)}
                    x = inv.apply(c)["offset"]
                    addr = lambda y: pad(y)  # noqa: E731
                else:
                    x = inv.apply(c)["offset"]
                    addr = lambda y: start + pad(y)  # noqa: E731
                if x % v:
                    continue
                p = addr(x)
                mis |= (p * 4) % nbytes != 0
                gap |= [addr(x + j) for j in range(v)] != list(range(p, p + v))
                if ln == 0 and stage == stages[0]:
                    lane0.add(p * 4)
    return {"vector_bytes": nbytes, "misaligned": mis, "gap": gap,
            "lane0_bytes": sorted(lane0)}


def build() -> dict:
    """Compile the probes (seed :data:`SEED`) and return the fixture document
    ``{"triton_version", "probes": {name: entry}}`` (module docstring)."""
    import triton
    from corpus import strip_locs
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def g_slice(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
                OFF: gl.constexpr, K: gl.constexpr, DIM: gl.constexpr):
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S)
        if DIM == 0:
            v = smem.slice(OFF, K, dim=0)
            rm = gl.arange(0, K, layout=gl.SliceLayout(1, L))
            rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
            p = rm[:, None] * N + rn[None, :]
        else:
            v = smem.slice(OFF, K, dim=1)
            rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
            rn = gl.arange(0, K, layout=gl.SliceLayout(0, L))
            p = rm[:, None] * K + rn[None, :]
        v.store(gl.load(X + p))
        gl.store(Y + p, v.load(L))

    @gluon.jit
    def g_index(X, Y, I, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
                B: gl.constexpr, CI: gl.constexpr):
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [B, M, N], S)
        if CI >= 0:
            v = smem.index(CI)
        else:
            v = smem.index(I)
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        p = rm[:, None] * N + rn[None, :]
        v.store(gl.load(X + p))
        gl.store(Y + p, v.load(L))

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32)}
    rng = random.Random(SEED)
    probes, fails = {}, collections.Counter()
    for k in range(PROBES):
        tname = rng.choice(list(T))
        M, N = rng.choice([(32, 32), (64, 32), (32, 64)])
        iv = rng.choice([4, 8, 16, 32, 64, 256, 512, 1024, 1024, 2048, 2048])
        pd = rng.choice([1, 2, 4])
        S = gl.PaddedSharedLayout.with_identity_for([[iv, pd]], [M, N], [1, 0])
        spt = rng.choice([1, 2, 4])
        if k % 2 == 0:
            dim = rng.randrange(2)
            size = (M, N)[dim]
            K = size // rng.choice([2, 4])
            off = K * rng.randrange(1, size // K)
            shape = [K, N] if dim == 0 else [M, K]
            tpw = [32 // min(32, shape[1] // spt), min(32, shape[1] // spt)]
            L = gl.BlockedLayout([1, spt], tpw, [1, 1], [1, 0])
            src = GluonASTSource(fn=g_slice, signature={
                "X": "*fp32", "Y": "*fp32", **{c: "constexpr" for c in "M N L S OFF K DIM".split()}},
                constexprs=dict(M=M, N=N, L=L, S=S, OFF=off, K=K, DIM=dim))
            view = {"kind": "subslice", "origin": [off, 0] if dim == 0 else [0, off]}
            name = f"{k:02d}_slice_d{dim}_{off}_{K}_{M}x{N}_{iv}p{pd}_v{spt}_{tname}"
        else:
            B = rng.choice([2, 3, 4])
            ci = rng.choice([-1, 1, B - 1])
            tpw = [32 // min(32, N // spt), min(32, N // spt)]
            L = gl.BlockedLayout([1, spt], tpw, [1, 1], [1, 0])
            src = GluonASTSource(fn=g_index, signature={
                "X": "*fp32", "Y": "*fp32", "I": "i32", **{c: "constexpr" for c in "M N L S B CI".split()}},
                constexprs=dict(M=M, N=N, L=L, S=S, B=B, CI=ci))
            view = {"kind": "index", "stages": list(range(B)) if ci < 0 else [ci]}
            name = f"{k:02d}_index_{'dyn' if ci < 0 else ci}_of{B}_{M}x{N}_{iv}p{pd}_v{spt}_{tname}"
        try:
            kern = triton.compile(src, target=T[tname], options={"num_warps": 1})
        except Exception as e:  # a probe Triton refuses is left out, counted
            fails[type(e).__name__] += 1
            continue
        ttgir = strip_locs(kern.asm["ttgir"].replace(str(pathlib.Path(__file__).resolve()),
                                                     "padded_view_probes.py"))
        seen = ptx_sides(kern.asm["ptx"])
        entry = {"target": tname, "ttgir": ttgir, "view": view, "sides": {}}
        for side in ("store", "load"):
            if len(seen[side]["widths"]) != 1:
                fails[f"{side} widths {seen[side]['widths']}"] += 1
                break
            bf = brute_force(ttgir, side, seen[side]["widths"][0], view)
            bf["ptx_immediates"] = seen[side]["immediates"]
            origin = brute_force(ttgir, side, seen[side]["widths"][0], {"kind": view["kind"]})
            bf["faults_at_origin"] = origin["misaligned"] or origin["gap"]
            entry["sides"][side] = bf
        else:
            probes[name] = entry
    print(f"{len(probes)} probes kept; left out: {dict(fails)}")
    if compare(probes):
        raise SystemExit(1)
    return {"triton_version": triton.__version__, "probes": probes}


def compare(probes: dict) -> int:
    """Print linlayout check's verdict beside the brute force's; the number that differ."""
    from linlayout.check import OpStatus, check_module
    from linlayout.triton import read_ttgir

    bad = same_imm = const = only_view = 0
    for name, e in probes.items():
        report = check_module(read_ttgir(e["ttgir"]), suggest=False)
        for op in report.ops:
            s = e["sides"][op.access.kind]
            want = s["misaligned"] or s["gap"]
            got = op.status is OpStatus.MISALIGNED
            if e["view"].get("stages", [0, 0])[1:] == [] or e["view"]["kind"] == "subslice":
                const += 1
                same_imm += set(s["ptx_immediates"]) <= set(s["lane0_bytes"])
            flag = "" if got == want else "  <-- MISMATCH"
            bad += got != want
            only_view += want and not s["faults_at_origin"]
            print(f"{name:48} {op.access.kind:5} {s['vector_bytes']:2}B "
                  f"faults={want!s:5} check={op.status.value}{flag}")
    print(f"{only_view} faulting sides fault only where the view lies (legal at the origin)")
    print(f"{bad} mismatches; every PTX immediate is one of lane 0's addresses on "
          f"{same_imm}/{const} constant-offset sides")
    return bad


def main(argv: list[str] | None = None) -> int:
    """Write the fixture, or with ``--check`` compare it with a fresh build."""
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
