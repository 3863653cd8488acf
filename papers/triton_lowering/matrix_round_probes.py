#!/usr/bin/env python
"""Conversions through shared memory in several rounds with ``ldmatrix``/``stmatrix``: the
instruction width Triton 3.9.0 picks per round.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/triton_lowering/matrix_round_probes.py          # writes tests/data/triton_matrix_round_probes.json.gz
    python papers/triton_lowering/matrix_round_probes.py --check  # compare, write nothing

``transferWithinBlockSwizzling`` (``ConvertLayoutOpToLLVM.cpp``) splits a conversion into
``reps`` store → barrier → load rounds and lowers each round's registers on their own
(``lowerLdStMatrix``/``lowerLdStShared`` once per round), so an ``ldmatrix``/``stmatrix`` is at
most as wide as one round's 32-bit words: a thread holding 2 words in 2 rounds emits two
``.x1``, not one ``.x2``. Rounds with fewer than 4 words per thread appear with broadcast
layouts (lanes or warps holding copies, registers dropped as broadcast), as in reductions
and small tiles.

Each Gluon probe converts a 2-D tile (64 to 1024 elements of 8, 16 or 32 bits) between two
random ``DistributedLinearLayout``s whose lane and warp bases may be zero (broadcast), on
cuda:80/90/100 with 1 to 8 warps. Candidates are drawn with a fixed seed (31) and kept when
``linlayout``'s plan has several rounds and a matrix tile on one side (the class under test);
the rule was written before any of them was compiled. The script compares ``linlayout
check``'s per-thread counts by opcode with the PTX, prints the mismatches and exits non-zero
on one.
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

OUT = ROOT / "tests" / "data" / "triton_matrix_round_probes.json.gz"
SEED = 31
PROBES = 60


def _bases(rng: random.Random, mb: int, nb: int, warps_log2: int, regs_log2: int):
    """Random 2-D bases: every tensor bit once, the remaining lane/warp/register slots zero
    (broadcast). Returns (register, lane, warp) lists of ``[row, col]`` bases, or None."""
    d = mb + nb
    slots = 5 + warps_log2 + regs_log2
    if d > slots:
        return None
    cols = [[0, 1 << i] for i in range(nb)] + [[1 << i, 0] for i in range(mb)]
    cols += [[0, 0]] * (slots - d)
    rng.shuffle(cols)
    lane, warp, reg = cols[:5], cols[5:5 + warps_log2], cols[5 + warps_log2:]
    return reg, lane, warp


def _linear(reg, lane, warp, shape):
    from linlayout.layout import LinearLayout

    # Gluon's [row, col] bases; linlayout's dims in the same order (dim0 rows, dim1 cols)
    return LinearLayout({"register": reg, "lane": lane, "warp": warp},
                        {"dim0": shape[0], "dim1": shape[1]})


def compare(entry: dict) -> tuple[dict, dict]:
    """(predicted, Triton's) per-thread counts by opcode width for one probe."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    got, _ = predicted_counts(entry["ttgir"], "probe")
    return got, ptx_counts(entry["counts"])


def build() -> dict:
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    from linlayout.check.shared_memory.predict import predict_convert
    from linlayout.check.target import parse_target

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""

    g_cvt = convert_kernel()

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "cuda100": GPUTarget("cuda", 100, 32)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    rng = random.Random(SEED)
    probes = {}
    tried = 0
    while len(probes) < PROBES and tried < 20000:
        tried += 1
        tname = rng.choice(list(T))
        bits = rng.choice([8, 16, 16, 32])
        w = rng.randint(0, 3)
        mb, nb = rng.randint(2, 6), rng.randint(2, 6)
        if not 6 <= mb + nb <= 10:
            continue
        shape = [1 << mb, 1 << nb]
        picked = []
        for _ in range(2):
            lo = max(0, mb + nb - 5 - w)
            b = _bases(rng, mb, nb, w, rng.randint(lo, max(lo, 4)))
            if b is None:
                break
            picked.append(b)
        if len(picked) < 2:
            continue
        src, dst = (_linear(*b, shape) for b in picked)
        try:
            p = predict_convert(src, dst, bits, parse_target(f"cuda:{tname[4:]}", 32))
        except Exception:  # noqa: BLE001 - layouts linlayout refuses are not candidates
            continue
        if p.plan is None or p.plan.reps < 2 or "matrix" not in p.plan.store_tile + \
                p.plan.load_tile:
            continue
        L = gl.DistributedLinearLayout(*picked[0], [], shape)
        D = gl.DistributedLinearLayout(*picked[1], [], shape)
        sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "D": "constexpr"}
        src_ast = GluonASTSource(fn=g_cvt, signature=sig, constexprs={
            "M": shape[0], "N": shape[1], "L": L, "D": D})
        name = (f"cvt_b{bits}_{shape[0]}x{shape[1]}_w{1 << w}_r{p.plan.reps}_"
                f"{p.plan.store_tile}_{p.plan.load_tile}_{rng.getrandbits(24):06x}_{tname}")
        try:
            entry, _ = compile_probe(src_ast, T[tname], 1 << w, "check",
                                     "matrix_round_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some layouts
            print(f"not compiled: {name}: {type(exc).__name__}", file=sys.stderr)
            continue
        entry["ttgir"] = strip_locs(entry["ttgir"])
        probes[name] = entry | {"target": tname}
    return {"triton_version": triton.__version__, "probes": probes}


def report(data: dict) -> int:
    """Print each probe whose prediction differs from Triton's and a tally; return the number
    of differences."""
    bad = 0
    narrow = 0
    for name, entry in sorted(data["probes"].items()):
        got, want = compare(entry)
        if got != want:
            bad += 1
            print(f"MISMATCH {name}: predicted {got}, Triton {want}")
        if any(".x1." in k or ".x2." in k for k in want):
            narrow += 1
    n = len(data["probes"])
    print(f"{n - bad}/{n} probes equal ({narrow} with .x1/.x2 matrices)")
    return bad


def main(argv: list[str] | None = None) -> int:
    return main_then_compare(__doc__, OUT, build, report, argv, compare_first=True)


if __name__ == "__main__":
    sys.exit(main())
