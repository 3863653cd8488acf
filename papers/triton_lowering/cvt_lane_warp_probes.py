#!/usr/bin/env python
"""A held-out draw of distributed-to-distributed converts, with a family for the warp rule's
case no earlier draw had: destination warp bases that differ from the source's by vectors
the source's lanes hold while the source has no broadcast (zero) warp basis. Compiled with
Triton 3.9.0; ``linlayout check``'s path and per-line counts against Triton's lowering and
the final PTX/AMDGCN.

Run with Triton 3.9.0 installed (CPU only; a few minutes)::

    python papers/triton_lowering/cvt_lane_warp_probes.py            # draw, compare, write nothing
    python papers/triton_lowering/cvt_lane_warp_probes.py --write    # also write the fixture
    python papers/triton_lowering/cvt_lane_warp_probes.py --compare-only   # the fixture
    python papers/triton_lowering/cvt_lane_warp_probes.py --confirm [--write|--compare-only]

Drawn after every convert rule of ``linlayout.lowering`` was committed, with the random
number generator started at :data:`SEED` and :data:`LANE_WARP_SEED` (values no other script
uses), on cuda:80, cuda:90,
gfx942 and gfx950 (:data:`DRAW_TARGETS`), 8/16/32/64-bit elements:

* ``g_warp``/``g_cross``/``g_blocked``/``g_slice``/``g_mma``: :data:`N_MIXED` Gluon
  converts of ``cvt_heldout_probes.build`` (its families and their weights: linear layouts
  within a warp and across warps, random blocked pairs, slices, mma/mfma with dot operands);
* ``g_lanewarp``: :data:`PER_TARGET` converts per target between ``DistributedLinearLayout``
  s whose source has every warp basis nonzero (no broadcast warp bit); the destination
  keeps the source's register and lane bases, and one or more of its warp bases is the
  source's XOR a nonempty sum of source lane bases (three draws in four) or XOR a source
  register basis (one in four: a control, whose warps need the source's registers: shared
  memory); then, in half the draws, one destination register
  basis and lane basis trade places, and in half the destination lanes are permuted.

``--confirm``: a second draw, made after the two fixes the first one led to were committed
(``check`` reads ``#ttg.generic_linear``; the warp rule routes a changed warp basis that the
source does not broadcast through a round trip in memory). Its random number generators
start at :data:`CONFIRM_SEEDS` (values no other script uses). It holds
:data:`N_CONFIRM_MIXED` converts of the mixed families, ``g_lanewarp``
again (:data:`CONFIRM_PER_TARGET` per target), and ``g_mixwarp``
(:data:`CONFIRM_PER_TARGET` + 1 per target, 4 or 8 warps): a source broadcast over one or
more warp bits (their tensor bits in its registers) that keeps at least one warp basis; the
destination gives each broadcast warp bit a source lane bit (that lane taking one of the
broadcast register bits, as ``cvt_warp_slice_probes.py``'s ``linear`` family), and in half
the draws also changes a kept warp basis by a nonzero sum of source lane bases — the
boundary of the rule: shuffles without the change, shared memory with it. Fixture
``tests/data/triton_cvt_lane_warp_confirm_probes.json.gz``, set ``cvt_lane_warp_confirm``.

Each probe is counted on its convert's TTGIR line (``cvt_heldout_probes.convert_located``),
given its ``"lowering"`` (``lowering_reference.reference``: Triton's LLVM IR with ``-O3``
skipped, in a private cache) and compared by ``cvt_heldout_probes.compare`` (set
``cvt_lane_warp`` of ``tests/data/known_mismatches.json`` and ``llvm_respelling.json``).
"""

from __future__ import annotations

import collections
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

#: the mixed families' seed (``cvt_heldout_probes.build``)
SEED = 71453
#: the ``g_lanewarp`` family's seed
LANE_WARP_SEED = 71459
N_MIXED = int(os.environ.get("N_MIXED", "32"))
PER_TARGET = int(os.environ.get("PER_TARGET", "5"))
DRAW_TARGETS = ("cuda80", "cuda90", "gfx942", "gfx950")
OUT = ROOT / "tests" / "data" / "triton_cvt_lane_warp_probes.json.gz"
#: ``--confirm``: the generators' start values for the mixed families, ``g_lanewarp`` and
#: ``g_mixwarp``
CONFIRM_SEEDS = (83117, 83119, 83123)
N_CONFIRM_MIXED = int(os.environ.get("N_CONFIRM_MIXED", "24"))
CONFIRM_PER_TARGET = int(os.environ.get("CONFIRM_PER_TARGET", "3"))
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_cvt_lane_warp_confirm_probes.json.gz"


def lane_warp_bases(rng: random.Random, M: int, N: int, lanes: int, warps: int
                    ) -> tuple[tuple[list[int], list[int], list[int]],
                               tuple[list[int], list[int], list[int]]]:
    """``((reg, lane, warp), (reg, lane, warp))``: the flat tensor bases (``1 << i`` sums,
    as ``gluon_kernels.linear_layout`` takes them) of a ``g_lanewarp`` pair (module
    docstring) for an ``M × N`` tile; draws from ``rng`` in a fixed order."""
    d = (M * N).bit_length() - 1
    lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
    bits = [1 << i for i in range(d)]
    rng.shuffle(bits)
    warp, lane, reg = bits[:wb], bits[wb:wb + lb], bits[wb + lb:]
    t_reg, t_lane, t_warp = list(reg), list(lane), list(warp)
    control = rng.random() < 0.25 and reg
    for i in rng.sample(range(wb), rng.randint(1, wb)):
        if control:
            t_warp[i] ^= rng.choice(reg)
        else:
            mask = 0
            while not mask:
                mask = rng.getrandbits(lb)
            for j in range(lb):
                if mask >> j & 1:
                    t_warp[i] ^= lane[j]
    if rng.random() < 0.5 and t_reg:
        i, j = rng.randrange(len(t_reg)), rng.randrange(lb)
        t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
    if rng.random() < 0.5:
        rng.shuffle(t_lane)
    return (reg, lane, warp), (t_reg, t_lane, t_warp)


def mixed_warp_bases(rng: random.Random, M: int, N: int, lanes: int, warps: int
                     ) -> tuple[tuple[list[int], list[int], list[int]],
                                tuple[list[int], list[int], list[int]]]:
    """``((reg, lane, warp), (reg, lane, warp))``: a ``g_mixwarp`` pair (module docstring,
    ``--confirm``) of flat tensor bases for an ``M × N`` tile, ``warps`` >= 4; draws from
    ``rng`` in a fixed order."""
    d = (M * N).bit_length() - 1
    lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
    bits = [1 << i for i in range(d)]
    rng.shuffle(bits)
    warp, lane, reg = bits[:wb], bits[wb:wb + lb], bits[wb + lb:]
    zero = rng.sample(range(wb), rng.randint(1, wb - 1))  # at least one warp basis kept
    s_warp = [0 if i in zero else w for i, w in enumerate(warp)]
    s_reg = reg + [warp[i] for i in zero]  # the broadcast warp bits' offsets in registers
    t_reg, t_lane, t_warp = list(s_reg), list(lane), list(s_warp)
    for i in zero:  # a source lane bit for the warp bit, a register bit for that lane
        j = rng.randrange(lb)
        k = rng.randrange(len(t_reg))
        t_warp[i], t_lane[j], t_reg[k] = t_lane[j], t_reg[k], 0
    t_reg = [c for c in t_reg if c]
    if rng.random() < 0.5:  # a kept warp basis changed by source lanes: shared memory
        i = rng.choice([i for i in range(wb) if i not in zero])
        mask = 0
        while not mask:
            mask = rng.getrandbits(lb)
        for j in range(lb):
            if mask >> j & 1:
                t_warp[i] ^= lane[j]
    if rng.random() < 0.5:
        rng.shuffle(t_lane)
    return (s_reg, lane, s_warp), (t_reg, t_lane, t_warp)


def build_confirm() -> dict:
    """Compile the ``--confirm`` draw (Triton 3.9.0)."""
    import cvt_heldout_probes as cvt
    import triton
    from probe_compile import private_triton_cache

    cvt.N_GLUON, cvt.N_TL = N_CONFIRM_MIXED, 0
    with private_triton_cache():
        probes = dict(cvt.build(CONFIRM_SEEDS[0], DRAW_TARGETS)["probes"])
        probes.update(_pairs("lanewarp", lane_warp_bases, CONFIRM_SEEDS[1],
                             CONFIRM_PER_TARGET, (2, 4, 4, 8)))
        probes.update(_pairs("mixwarp", mixed_warp_bases, CONFIRM_SEEDS[2],
                             CONFIRM_PER_TARGET + 1, (4, 4, 8)))
    return {"triton_version": triton.__version__, "seeds": list(CONFIRM_SEEDS),
            "probes": probes}


def _pairs(family: str, draw, seed: int, per_target: int, warp_counts: tuple) -> dict:
    """``per_target`` Gluon converts a target of ``family``, layouts from ``draw`` (as
    :func:`lane_warp_bases`), seed ``seed``; a kernel Triton rejects is skipped."""
    import cvt_heldout_probes as cvt
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, linear_layout
    from probe_compile import gpu_target
    from triton.experimental.gluon._runtime import GluonASTSource

    g_cvt = convert_kernel()
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    rng = random.Random(seed)
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    for tname in DRAW_TARGETS:
        lanes = 64 if tname.startswith("gfx") else 32
        for _ in range(per_target):
            warps = rng.choice(warp_counts)
            bits = rng.choice([8, 16, 32, 64])
            M, N = rng.choice([(16, 32), (32, 32), (16, 64), (64, 32), (32, 64)])
            while M * N < lanes * warps * 2:
                M *= 2
            (s_reg, s_lane, s_warp), (t_reg, t_lane, t_warp) = draw(rng, M, N, lanes, warps)
            L = linear_layout(s_reg, s_lane, s_warp, M, N)
            D = linear_layout(t_reg, t_lane, t_warp, M, N)
            sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
                   "L": "constexpr", "D": "constexpr"}
            name = f"g_{family}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
            try:
                k = triton.compile(GluonASTSource(fn=g_cvt, signature=sig, constexprs={
                    "M": M, "N": N, "L": L, "D": D}), target=gpu_target(tname),
                    options={"num_warps": warps})
            except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
                fails[type(e).__name__] += 1
                continue
            asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
            probes[name] = {"target": tname,
                            **cvt.convert_located(strip_locs(k.asm["ttgir"]), tname, asm)}
            print(f"  {name}", flush=True)
    print(f"{len(probes)} g_{family} probes compiled; not compiled: {dict(fails)}")
    return probes


def build() -> dict:
    """Compile the draw (Triton 3.9.0); each probe counted on its convert's TTGIR line."""
    import cvt_heldout_probes as cvt
    import triton
    from probe_compile import private_triton_cache

    cvt.N_GLUON, cvt.N_TL = N_MIXED, 0
    with private_triton_cache():  # no kernel of another run's cache (a skipped -O3)
        probes = dict(cvt.build(SEED, DRAW_TARGETS)["probes"])
        probes.update(_pairs("lanewarp", lane_warp_bases, LANE_WARP_SEED, PER_TARGET,
                             (2, 4, 4, 8)))
    return {"triton_version": triton.__version__, "seed": SEED,
            "lane_warp_seed": LANE_WARP_SEED, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    import argparse

    from cvt_heldout_probes import compare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the fixture too")
    ap.add_argument("--compare-only", action="store_true", help="compare the fixture")
    ap.add_argument("--confirm", action="store_true",
                    help="the second draw (CONFIRM_SEEDS), made after the fixes")
    args = ap.parse_args(argv)
    out, known = (CONFIRM_OUT, "cvt_lane_warp_confirm") if args.confirm else \
        (OUT, "cvt_lane_warp")
    if args.compare_only:
        data = json.loads(gzip.decompress(out.read_bytes()))
    else:
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        from lowering_reference import reference

        data = build_confirm() if args.confirm else build()
        for name, p in data["probes"].items():  # Triton's lowering (before -O3) too
            p["lowering"] = reference(name, p)
        if args.write:
            out.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    return 1 if compare(data, known) else 0


if __name__ == "__main__":
    sys.exit(main())
