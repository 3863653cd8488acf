#!/usr/bin/env python
"""Conversions through shared memory in several rounds with ``ldmatrix``/``stmatrix``: the
instruction width Triton 3.9.0 picks per round.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~10 min: about
2000 candidates compiled)::

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
cuda:80/90/100 with 1 to 8 warps. Candidates are drawn from a seeded generator alone (seed
31, :func:`candidates`), every one compiled, and kept when Triton lowers it in two or more
rounds with an ``ldmatrix`` or ``stmatrix`` on one side (the class under test), read off the
PTX alone (:func:`triton_rounds`: its barriers and matrix instructions), so the draw does not
depend on ``linlayout``'s own plan (an earlier draw kept the candidates whose plan had
several rounds, and changed whenever the plan did); the rule was written before any of them
was compiled. The script compares ``linlayout
check``'s per-thread counts by opcode with the PTX, prints the mismatches and exits non-zero
on one.
"""

from __future__ import annotations

import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_then_compare  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_matrix_round_probes.json.gz"
SEED = 31
PROBES = 60
#: how many candidates :func:`candidates` draws at most
TRIES = 20000
TARGETS = ("cuda80", "cuda90", "cuda100")


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


def compare(entry: dict) -> tuple[dict, dict]:
    """(predicted, Triton's) per-thread counts by opcode width for one probe."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    got, _ = predicted_counts(entry["ttgir"], "probe")
    return got, ptx_counts(entry["counts"])


#: a barrier of the PTX: Triton's convert puts one between a round's stores and its loads
#: and one between rounds, so ``rounds`` rounds have ``2 · rounds − 1``
BARRIER = re.compile(r"^\s*(?:@!?%p\d+\s+)?(?:bar\.sync|barrier\.sync|bar\.warp\.sync)\b",
                     re.M)


def candidates(seed: int = SEED, tries: int = TRIES):
    """The candidate converts, drawn from ``random.Random(seed)`` alone (no model, no
    compiler): ``(rng, target, element_bits, log2 warps, [M, N], src bases, dst bases)``,
    each side's bases from :func:`_bases` (register, lane, warp ``[row, col]`` lists), for
    ``tries`` draws. The generator's ``rng`` is the one it draws from: the caller takes a
    kept candidate's name tag from it before asking for the next."""
    rng = random.Random(seed)
    for _ in range(tries):
        tname = rng.choice(TARGETS)
        bits = rng.choice([8, 16, 16, 32])
        w = rng.randint(0, 3)
        mb, nb = rng.randint(2, 6), rng.randint(2, 6)
        if not 6 <= mb + nb <= 10:
            continue
        picked = []
        for _ in range(2):
            lo = max(0, mb + nb - 5 - w)
            b = _bases(rng, mb, nb, w, rng.randint(lo, max(lo, 4)))
            if b is None:
                break
            picked.append(b)
        if len(picked) == 2:
            yield rng, tname, bits, w, [1 << mb, 1 << nb], picked[0], picked[1]


def triton_rounds(asm: str) -> tuple[int, str, str]:
    """``(rounds, store tile, load tile)`` of a one-convert kernel's PTX, read off Triton's
    output alone: the rounds from its barriers (:data:`BARRIER`), each side's tile
    ``"matrix"`` (``stmatrix``/``ldmatrix``), ``"matrix.trans"`` (their ``.trans`` form) or
    ``"ld/st"`` (``st.shared``/``ld.shared``)."""
    def tile(op: str) -> str:
        m = re.search(rf"^\s*(?:@!?%p\d+\s+)?{op}\.sync\.aligned\.\S*?(\.trans)?\.shared",
                      asm, re.M)
        return "ld/st" if m is None else "matrix" + (m.group(1) or "")

    return (len(BARRIER.findall(asm)) + 1) // 2, tile("stmatrix"), tile("ldmatrix")


def build() -> dict:
    """Compile the candidates of :func:`candidates` (Triton 3.9.0, cuda:80/90/100; no cubin)
    until :data:`PROBES` are kept: those Triton lowers in two or more rounds with an
    ``stmatrix`` or ``ldmatrix`` on one side (:func:`triton_rounds`) — Triton's properties
    only, so the draw does not depend on ``linlayout``."""
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel
    from reduce_probes import compile_probe
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource
    from probe_compile import gpu_target

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    g_cvt = convert_kernel()
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    probes = {}
    compiled = 0
    for rng, tname, bits, w, shape, src, dst in candidates():
        if len(probes) >= PROBES:
            break
        sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "D": "constexpr"}
        src_ast = GluonASTSource(fn=g_cvt, signature=sig, constexprs={
            "M": shape[0], "N": shape[1], "L": gl.DistributedLinearLayout(*src, [], shape),
            "D": gl.DistributedLinearLayout(*dst, [], shape)})
        compiled += 1
        try:
            entry, asm = compile_probe(src_ast, gpu_target(tname), 1 << w, "check",
                                       "matrix_round_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some layouts
            print(f"not compiled: {type(exc).__name__}", file=sys.stderr)
            continue
        rounds, store, load = triton_rounds(asm)
        if rounds < 2 or "matrix" not in store + load:
            continue
        name = (f"cvt_b{bits}_{shape[0]}x{shape[1]}_w{1 << w}_r{rounds}_{store}_{load}_"
                f"{rng.getrandbits(24):06x}_{tname}")
        probes[name] = entry | {"target": tname, "ttgir": strip_locs(entry["ttgir"])}
    print(f"{len(probes)} kept of {compiled} compiled")
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
