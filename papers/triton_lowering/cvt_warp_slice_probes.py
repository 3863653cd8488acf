#!/usr/bin/env python
"""Held-out draw for the warp rule of the convert path: converts whose source is a slice of
a blocked (or linear) layout broadcast over some warp (and lane) bits, compiled with Triton
3.9.0, ``linlayout check``'s path and register counts against the final PTX/AMDGCN.

Run with Triton 3.9.0 installed (CPU only; a few minutes)::

    python papers/triton_lowering/cvt_warp_slice_probes.py            # draw, compare, write nothing
    python papers/triton_lowering/cvt_warp_slice_probes.py --write    # also write the fixture

Drawn after the rule (``linlayout.lowering.decompose.warp_broadcast_bits``: warp bases that
differ only by what the source's lanes hold stay in each warp) was committed, seed
:data:`SEED` (used by no other script). Each probe is ``cvt_heldout_probes.py``'s ``g_cvt``
(load a tile in the source layout, ``gl.convert_layout``, store) with

* ``slice``: source ``SliceLayout(d, BlockedLayout)`` of a 3-d parent with 2 or 4 warps
  and possibly lanes along the sliced dim ``d`` (so the source is broadcast over those warp
  and lane bits), destination a random 2-d ``BlockedLayout`` with the same warps;
* ``linear``: a ``DistributedLinearLayout`` source with one or two zero warp bases and the
  other warp bases kept, and a destination whose zero warp bits are given bits the source's
  lanes (or, in a third of the draws, registers) hold.

* ``sliced`` (seed :data:`SLICED_SEED`, drawn after the first two families were compared,
  where every ``slice`` probe happened to need another warp): the source a
  ``SliceLayout`` as in ``slice``, the destination a ``DistributedLinearLayout`` of the
  same bits in which each broadcast warp bit is given a bit the source's lanes (two draws
  in three) or registers hold.

Targets cuda:90 and gfx942; 8/16/32-bit elements. The comparison is
``cvt_heldout_probes.compare`` (convert line, register and shared-memory instructions)
against Triton's lowering (``lowering_reference.py``: the assembly of Triton's LLVM IR with
``-O3`` skipped, in a private cache), and the final assembly's differences from it listed.
"""

from __future__ import annotations

import gzip
import json
import os
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

#: the draw's seed and size (probes per family and target)
SEED = 60917
#: the second family's seed (``sliced``, drawn after the first two families were compared)
SLICED_SEED = 60919
PER = int(os.environ.get("PER", "7"))
OUT = ROOT / "tests" / "data" / "triton_cvt_warp_slice_probes.json.gz"


def slice_parent(rng: random.Random, lanes: int, warps: int
                 ) -> tuple[int, list[int], list[int], list[int], list[int], list[int]]:
    """``(d, others, size_per_thread, threads_per_warp, warps_per_cta, order)``: a random
    3-d blocked parent for a slice along dim ``d`` (``others``: the two kept dims) with
    ``lanes`` lanes and ``warps`` warps, 2 or 4 warps (and, in half the draws, 2 lanes) along
    ``d``, the rest spread over the kept dims one factor of two at a time, 1 or 2 elements
    a thread along each kept dim, a random order. Both families draw it from their own
    ``rng`` in this fixed order (the fixture depends on it)."""
    d = rng.randrange(3)
    others = [k for k in range(3) if k != d]
    tpw, wpc, spt = [1, 1, 1], [1, 1, 1], [1, 1, 1]
    wpc[d] = rng.choice([2, 2, 4]) if warps >= 4 else 2
    for _ in range((warps // wpc[d]).bit_length() - 1):
        wpc[rng.choice(others)] *= 2
    if rng.random() < 0.5:
        tpw[d] = 2
    for _ in range((lanes // tpw[d]).bit_length() - 1):
        tpw[rng.choice(others)] *= 2
    for k in others:
        spt[k] = 1 << rng.randint(0, 1)
    order = list(range(3))
    rng.shuffle(order)
    return d, others, spt, tpw, wpc, order


def build(seed: int = SEED) -> dict:
    """Compile the draw; each probe counted on its convert's TTGIR line."""
    import collections

    import triton
    from corpus import strip_locs
    from cvt_heldout_probes import convert_located
    from gluon_kernels import convert_kernel, random_blocked
    from gluon_kernels import linear_layout as linear
    from probe_compile import private_triton_cache
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    g_cvt = convert_kernel()
    T = {"cuda90": GPUTarget("cuda", 90, 32), "gfx942": GPUTarget("hip", "gfx942", 64)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    rng = random.Random(seed)
    probes: dict = {}
    fails: collections.Counter = collections.Counter()

    def slice_pair(lanes, warps):
        d, others, spt, tpw, wpc, order = slice_parent(rng, lanes, warps)
        parent = gl.BlockedLayout(spt, tpw, wpc, order)
        src = gl.SliceLayout(d, parent)
        shape = [max(spt[k] * tpw[k] * wpc[k], 1) * rng.choice([1, 2]) for k in others]
        M, N = shape
        while M * N < lanes * warps:
            M *= 2
        return src, random_blocked(rng, M, N, lanes, warps), M, N

    def linear_pair(lanes, warps):
        M, N = rng.choice([(16, 32), (32, 32), (16, 64), (64, 32)])
        while M * N < lanes * warps * 2:
            M *= 2
        d = (M * N).bit_length() - 1
        lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
        bits = [1 << i for i in range(d)]
        rng.shuffle(bits)
        lane, reg = bits[:lb], bits[lb:]
        warp = [reg.pop() for _ in range(wb)]
        nz = rng.sample(range(wb), rng.randint(1, min(2, wb)))
        s_warp = [0 if i in nz else w for i, w in enumerate(warp)]
        s_reg = reg + [warp[i] for i in nz]  # the broadcast warps' bits in registers
        t_reg, t_lane, t_warp = list(s_reg), list(lane), list(s_warp)
        for i in nz:
            if rng.random() < 1 / 3:  # a bit the source's registers hold: shared memory
                j = rng.randrange(len(t_reg))
                t_warp[i], t_reg[j] = t_reg[j], 0
            else:  # a bit the source's lanes hold, that lane given a register bit
                j = rng.randrange(len(t_lane))
                k = rng.randrange(len(t_reg))
                t_warp[i], t_lane[j], t_reg[k] = t_lane[j], t_reg[k], 0
        t_reg = [c for c in t_reg if c]
        if rng.random() < 0.5:
            rng.shuffle(t_lane)
        return (linear(s_reg, lane, s_warp, M, N), linear(t_reg, t_lane, t_warp, M, N), M, N)

    with private_triton_cache():
        for tname in T:
            lanes = 64 if tname.startswith("gfx") else 32
            for family in ("slice", "linear"):
                for _ in range(PER):
                    warps = rng.choice([2, 4, 4, 8])
                    bits = rng.choice([8, 16, 32])
                    try:
                        L, D, M, N = (slice_pair if family == "slice" else linear_pair)(
                            lanes, warps)
                    except Exception as e:  # noqa: BLE001 - a draw gluon rejects is skipped
                        fails[f"draw {type(e).__name__}"] += 1
                        continue
                    sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
                           "L": "constexpr", "D": "constexpr"}
                    src = GluonASTSource(fn=g_cvt, signature=sig,
                                         constexprs={"M": M, "N": N, "L": L, "D": D})
                    name = (f"g_{family}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}"
                            f"_{tname}")
                    try:
                        k = triton.compile(src, target=T[tname], options={"num_warps": warps})
                    except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
                        fails[type(e).__name__] += 1
                        continue
                    asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
                    probes[name] = {"target": tname,
                                    **convert_located(strip_locs(k.asm["ttgir"]), tname, asm)}
                    print(f"  {name}", flush=True)
        # a second family on its own seed (drawn after the first was compared): the source a
        # gl.SliceLayout with warps (and maybe lanes) along the sliced dim, the destination
        # the same bits with each broadcast warp bit given a bit the source's lanes (two
        # draws in three) or registers hold
        from linlayout.triton.encodings.distributed import blocked as ll_blocked
        from linlayout.triton.encodings.distributed import slice as ll_slice

        rng2 = random.Random(SLICED_SEED)
        for tname, target in T.items():
            lanes = 64 if tname.startswith("gfx") else 32
            for _ in range(PER):
                warps = rng2.choice([2, 4, 4, 8])
                bits = rng2.choice([8, 16, 32])
                d, others, spt, tpw, wpc, order = slice_parent(rng2, lanes, warps)
                M, N = (spt[k] * tpw[k] * wpc[k] for k in others)
                M, N = M * 2, N * 2
                while M * N < lanes * warps * 4:
                    M, N = (M * 2, N) if rng2.random() < 0.5 else (M, N * 2)
                ll = ll_slice(d, ll_blocked(spt, tpw, wpc, order)).to_linear_layout([M, N])
                nb = N.bit_length() - 1

                def flat(v, nb=nb):
                    return (v[0] << nb) | v[1]

                s_reg = [flat(v) for v in ll.bases["register"] if any(v)]
                s_lane = [flat(v) for v in ll.bases["lane"]]
                s_warp = [flat(v) for v in ll.bases["warp"]]
                t_reg, t_lane, t_warp = list(s_reg), list(s_lane), list(s_warp)
                for i, c in enumerate(s_warp):
                    if c or not t_reg:
                        continue
                    nz = [j for j, x in enumerate(t_lane) if x]
                    if rng2.random() < 1 / 3:
                        t_warp[i] = t_reg.pop(rng2.randrange(len(t_reg)))
                    else:
                        j = rng2.choice(nz)
                        t_warp[i], t_lane[j] = t_lane[j], t_reg.pop(rng2.randrange(len(t_reg)))
                if rng2.random() < 0.5:
                    rng2.shuffle(t_lane)
                L = gl.SliceLayout(d, gl.BlockedLayout(spt, tpw, wpc, order))
                D = linear(t_reg, t_lane, t_warp, M, N)
                sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
                       "L": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=g_cvt, signature=sig,
                                     constexprs={"M": M, "N": N, "L": L, "D": D})
                name = f"g_sliced_b{bits}_{M}x{N}_w{warps}_{rng2.getrandbits(24):06x}_{tname}"
                try:
                    k = triton.compile(src, target=target, options={"num_warps": warps})
                except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
                    fails[type(e).__name__] += 1
                    continue
                asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
                probes[name] = {"target": tname,
                                **convert_located(strip_locs(k.asm["ttgir"]), tname, asm)}
                print(f"  {name}", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "seed": seed, "sliced_seed": SLICED_SEED,
            "probes": probes}


def main(argv: list[str] | None = None) -> int:
    import argparse

    from cvt_heldout_probes import compare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the fixture too")
    ap.add_argument("--compare-only", action="store_true", help="compare the fixture")
    args = ap.parse_args(argv)
    if args.compare_only:
        data = json.loads(gzip.decompress(OUT.read_bytes()))
    else:
        from lowering_reference import reference

        data = build()
        for name, p in data["probes"].items():  # Triton's lowering (before -O3) too
            p["lowering"] = reference(name, p)
        if args.write:
            OUT.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    return 1 if compare(data, "cvt_warp_slice") else 0


if __name__ == "__main__":
    sys.exit(main())
