#!/usr/bin/env python
"""``tt.scan`` probes: what LLVM leaves of Triton 3.9.0's reloads of the warps' totals.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only)::

    python papers/triton_lowering/scan_probes.py             # writes tests/data/triton_scan_probes.json.gz
    python papers/triton_lowering/scan_probes.py --check     # compare, write nothing
    python papers/triton_lowering/scan_probes.py -k NAME -v  # print matching probes' shared accesses

Each probe scans a 1-D or 2-D tile held in an explicit ``BlockedLayout`` (Gluon) with
``cumsum``, ``cumprod`` or a two-operand ``associative_scan`` (the values and ``i32`` indices,
keeping the larger value), forward or ``reverse``, in i8/i16/i32/i64/f16/f32/f64, on
``cuda:80/90/100`` and ``hip:gfx942/gfx950``, and stores the result: the scan is the kernel's
only op that touches shared memory. The fixture keeps the TTGIR, the static count of every
shared-memory instruction of the PTX/AMDGCN and the shared-memory accesses of Triton's LLVM
IR *before* LLVM's optimiser.

Set ``"design"`` (seed 11) was looked at while deriving the rule for LLVM's merging of the
reloads (:mod:`linlayout.check.shared_memory.scan`); set ``"check"`` (seed 12) was generated after
the rule was written and only compared; set ``"fresh"`` (seed 13, ``--sets fresh``, written to
``tests/data/triton_scan_fresh_probes.json.gz``) was drawn later still, after the convert
rules, and only compared. Set ``"amd_fresh"`` (seed 14, ``--sets amd_fresh``, written to
``tests/data/triton_scan_amd_fresh_probes.json.gz``) holds AMD scans across warps only (2 to
8 warps along the axis, every type, gfx942/gfx950), drawn after ``check`` switched to counting
the AMD reloads the final AMDGCN runs (Triton's less the unused reload of the last total),
and only compared. Set ``"amd_bytes"`` (seed 15, ``--sets amd_bytes``, written to
``tests/data/triton_scan_amd_bytes_probes.json.gz``) holds AMD two-operand scans of ``i8``
values across warps only (``cumsum``/``cumprod`` widen ``i8``), drawn after the rule for
AMDGPU's dword read of a byte run's last three bytes, and only compared.

The AMDGCN's LDS opcodes (``"counts"``) are the final assembly's: the tests compare ``check``
with them by LDS bytes per thread on AMD (a ``ds_read2*`` moves two of its width), and with
``"preopt"`` (Triton's own accesses) through ``Prediction.extra["triton_loads"]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fixture import write_or_check  # noqa: E402
from reduce_probes import SMEM, compile_probe  # noqa: E402

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "triton_scan_probes.json.gz"
TYPES = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
         "f32": "*fp32", "f64": "*fp64"}
TARGETS = {"cuda80": ("cuda", 80, 32), "cuda90": ("cuda", 90, 32), "cuda100": ("cuda", 100, 32),
           "gfx942": ("hip", "gfx942", 64), "gfx950": ("hip", "gfx950", 64)}
SEEDS = {"design": 11, "check": 12, "fresh": 13, "amd_fresh": 14, "amd_bytes": 15}
#: ``--sets fresh``: a later held-out draw (seed ``SEEDS["fresh"]``), compiled after every
#: scan and convert rule was written and only compared, written here
FRESH_OUT = ROOT / "tests" / "data" / "triton_scan_fresh_probes.json.gz"
#: ``--sets amd_fresh``: AMD scans across warps only (seed ``SEEDS["amd_fresh"]``: 2 to 8
#: warps along the axis, every type, gfx942/gfx950), drawn after ``check`` switched to
#: counting the reloads the final AMDGCN runs, and only compared, written here
AMD_FRESH_OUT = ROOT / "tests" / "data" / "triton_scan_amd_fresh_probes.json.gz"
#: ``--sets amd_bytes``: AMD two-operand scans of ``i8`` values across warps only (seed
#: ``SEEDS["amd_bytes"]``), drawn after the rule for AMDGPU's dword reads of a run of byte
#: reloads (``linlayout.check.shared_memory.scan.amd_byte_runs``), and only compared
AMD_BYTES_OUT = ROOT / "tests" / "data" / "triton_scan_amd_bytes_probes.json.gz"
#: the sets written to a file of their own (the others go to ``OUT`` together)
OWN_FILE = {"fresh": FRESH_OUT, "amd_fresh": AMD_FRESH_OUT, "amd_bytes": AMD_BYTES_OUT}


def _blocked_1d(rng: random.Random, size: int, lanes: int, warps: int):
    """(size_per_thread, threads_per_warp, warps_per_cta, order) of a 1-D tile of ``size``
    elements, or None when the warps cannot all hold distinct elements."""
    spt = 1 << rng.randint(0, 3)
    while spt > 1 and spt * lanes * warps > size:
        spt //= 2
    if lanes * warps > size:
        return None
    return [spt], [lanes], [warps], [0]


def _blocked_2d(rng: random.Random, shape: list[int], lanes: int, warps: int, axis: int):
    """A random 2-D blocked layout with at least two warps along ``axis`` (so the scan goes
    through shared memory), every element held once; None when none was found."""
    for _ in range(200):
        spt = [1 << rng.randint(0, 2) for _ in range(2)]
        tpw = [1, 1]
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(2)] *= 2
        wpc = [1, 1]
        wpc[axis] = 2
        for _ in range(warps.bit_length() - 2):
            wpc[rng.randrange(2)] *= 2
        if any(s * t * w > d for s, t, w, d in zip(spt, tpw, wpc, shape)):
            continue
        order = [0, 1]
        rng.shuffle(order)
        return spt, tpw, wpc, order
    return None


def jobs(set_name: str) -> list[tuple]:
    """The probes of one set: (name, target, warps, shape, layout, axis, kind, type, reverse)."""
    rng = random.Random(SEEDS[set_name])
    # AMD scans across warps: 2 to 8 warps, more of them; amd_bytes: i8 two-operand scans
    # only (cumsum and cumprod widen i8), the kind and type drawn as for the others
    amd_only = set_name in ("amd_fresh", "amd_bytes")
    eight_bit = set_name == "amd_bytes"
    out = []
    for tname, (_, _, lanes) in TARGETS.items():
        if amd_only and tname.startswith("cuda"):
            continue
        n1 = 14 if tname.startswith("cuda") else 8 if amd_only else 6
        n2 = 6 if tname.startswith("cuda") or amd_only else 3
        for i in range(n1 + n2):
            kind = rng.choice(["cumsum", "cumsum", "cumprod", "argscan"])
            ty = rng.choice(list(TYPES))
            if eight_bit:
                kind, ty = "argscan", "i8"
            rev = rng.random() < 0.3
            warps = rng.choice([1, 2, 2, 4, 4, 8, 8] if i < n1 and not amd_only else [2, 4, 8])
            if i < n1:
                size = 1 << rng.randint(5, 12)
                lay = _blocked_1d(rng, size, lanes, warps)
                shape, axis = [size], 0
            else:
                shape = rng.choice([[64, 64], [32, 128], [128, 16], [16, 256]])
                axis = rng.randrange(2)
                lay = _blocked_2d(rng, shape, lanes, warps, axis)
            if lay is None:
                continue
            spt, tpw, wpc, order = lay
            name = (f"{kind}_{ty}_{'x'.join(map(str, shape))}_a{axis}{'r' if rev else ''}"
                    f"_s{'.'.join(map(str, spt))}_t{'.'.join(map(str, tpw))}"
                    f"_w{'.'.join(map(str, wpc))}_o{''.join(map(str, order))}_{tname}")
            out.append((name, tname, warps, shape, lay, axis, kind, ty, rev))
        # 2-D tiles whose lanes and warps all lie along the axis (every thread reloads the
        # same addresses) and several columns per thread
        for _ in range(3 if eight_bit else 2 if tname.startswith("cuda") or amd_only else 1):
            kind = rng.choice(["cumsum", "argscan"])
            ty = rng.choice(list(TYPES))
            if eight_bit:
                kind, ty = "argscan", "i8"
            warps = rng.choice([2, 4, 8])
            cols = 1 << rng.randint(1, 2)
            spt = 1 << rng.randint(0, 2)
            size = spt * lanes * warps * (1 << rng.randint(0, 1))
            lay = ([spt, cols], [lanes, 1], [warps, 1], [1, 0])
            name = (f"{kind}_{ty}_{size}x{cols}_a0_s{spt}.{cols}_t{lanes}.1_w{warps}.1_o10_"
                    f"{tname}")
            out.append((name, tname, warps, [size, cols], lay, 0, kind, ty, False))
    return out


def build(sets: list[str], only: str | None = None, verbose: bool = False) -> dict:
    import re

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def _keep_larger(v1, i1, v2, i2):
        keep = v1 > v2
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def g_scan1(X, Y, Z, N: gl.constexpr, L: gl.constexpr, KIND: gl.constexpr,
                REV: gl.constexpr):
        r = gl.arange(0, N, layout=L)
        x = gl.load(X + r)
        if KIND == 0:
            gl.store(Y + r, gl.cumsum(x, 0, reverse=REV))
        elif KIND == 1:
            gl.store(Y + r, gl.cumprod(x, 0, reverse=REV))
        else:
            v, i = gl.associative_scan((x, r), 0, _keep_larger, reverse=REV)
            gl.store(Y + r, v)
            gl.store(Z + r, i)

    @gluon.jit
    def g_scan2(X, Y, Z, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
                AXIS: gl.constexpr, KIND: gl.constexpr, REV: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        offs = rm[:, None] * N + rn[None, :]
        x = gl.load(X + offs)
        if KIND == 0:
            gl.store(Y + offs, gl.cumsum(x, AXIS, reverse=REV))
        elif KIND == 1:
            gl.store(Y + offs, gl.cumprod(x, AXIS, reverse=REV))
        else:
            v, i = gl.associative_scan((x, offs), AXIS, _keep_larger, reverse=REV)
            gl.store(Y + offs, v)
            gl.store(Z + offs, i)

    probes = {}
    for set_name in sets:
        for name, tname, warps, shape, lay, axis, kind, ty, rev in jobs(set_name):
            if only and only not in name:
                continue
            L = gl.BlockedLayout(*[list(x) for x in lay])
            kid = {"cumsum": 0, "cumprod": 1, "argscan": 2}[kind]
            sig = {"X": TYPES[ty], "Y": TYPES[ty], "Z": "*i32"}
            if len(shape) == 1:
                sig.update({"N": "constexpr", "L": "constexpr", "KIND": "constexpr",
                            "REV": "constexpr"})
                src = GluonASTSource(fn=g_scan1, signature=sig, constexprs={
                    "N": shape[0], "L": L, "KIND": kid, "REV": rev})
            else:
                sig.update({"M": "constexpr", "N": "constexpr", "L": "constexpr",
                            "AXIS": "constexpr", "KIND": "constexpr", "REV": "constexpr"})
                src = GluonASTSource(fn=g_scan2, signature=sig, constexprs={
                    "M": shape[0], "N": shape[1], "L": L, "AXIS": axis, "KIND": kid,
                    "REV": rev})
            entry, asm = compile_probe(src, GPUTarget(*TARGETS[tname]), warps, set_name,
                                       "scan_probes.py")
            probes[name] = entry | {"target": tname}
            print(name, probes[name]["counts"], file=sys.stderr)
            if verbose:
                for line in asm.splitlines():
                    if SMEM.search(line):
                        print("   ", re.sub(r"\s+", " ", line.strip()), file=sys.stderr)
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--sets", default="design,check",
                    help="which sets (design,check; or fresh or amd_fresh alone: written to "
                         "FRESH_OUT or AMD_FRESH_OUT)")
    ap.add_argument("-k", help="only probes whose name contains this (not written)")
    ap.add_argument("-v", action="store_true", help="print each probe's shared accesses")
    args = ap.parse_args(argv)
    sets = args.sets.split(",")
    data = build(sets, args.k, args.v)
    if args.k or args.v:
        return 0
    own = OWN_FILE.get(sets[0]) if len(sets) == 1 else None
    return write_or_check(own or OUT, data, args.check)


if __name__ == "__main__":
    sys.exit(main())
