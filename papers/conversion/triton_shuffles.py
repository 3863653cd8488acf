#!/usr/bin/env python
"""Triton 3.9's warp-shuffle converts beside linlayout's conversion plans.

Run with Triton 3.9.0 installed (CPU only; about a minute)::

    python papers/conversion/triton_shuffles.py          # writes tests/data/conversion_triton_shuffles.json.gz
    python papers/conversion/triton_shuffles.py --check  # compare, write nothing

Each probe converts a tile between two random distributed layouts that keep the warp bases
(``gl.DistributedLinearLayout``; the register and lane bases a random permutation of the
remaining tensor bits, so every warp keeps its elements), of 8-, 16-, 32- or 64-bit elements,
1 or 4 warps, compiled for cuda:90. The PTX of the kernel minus the PTX of the same kernel
without the convert (it loads straight into the destination layout) gives the instructions
the convert costs: ``shfl.sync.idx.b32``, ``selp``, ``prmt``, ``ld/st.shared``, ``bar.sync``.
Beside them, ``plan_conversion``'s bounds (shuffles; register merges, ``selp + (d − 1)·prmt``)
and plans. The script fails (exit 1) if Triton ever issues fewer shuffles or merges than
linlayout's lower bounds — a bound would be wrong — or if linlayout's shuffle plan costs more
than Triton's shuffles. ``--compare-only`` replays the committed fixture without Triton.
"""

from __future__ import annotations

import pathlib
import random
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_triton_shuffles.json.gz"
SEED = 26
PROBES = 16
KINDS = {"shfl": r"shfl\.sync\.idx\.b32", "selp": r"selp\.\w+", "prmt": r"prmt\.b32",
         "st.shared": r"st\.shared[\w.]*", "ld.shared": r"ld\.shared[\w.]*",
         "bar.sync": r"bar\.sync|barrier\.sync"}


def counts(ptx: str) -> dict[str, int]:
    """How many of each kind of instruction the PTX holds (static count: no loops)."""
    body = "\n".join(line for line in ptx.splitlines() if not line.strip().startswith("//"))
    return {k: len(re.findall(r"^\s*(?:@%p\d+\s+)?" + rx + r"\b", body, re.M))
            for k, rx in KINDS.items()}


def line_counts(ptx: str, line: int) -> dict[str, int]:
    """The same kinds, counting only the PTX lines whose ``.loc`` is line ``line`` (the
    convert's TTGIR line, where the TTGIR is compiled without locations: what ``check``
    attributes to the convert)."""
    keep, cur = [], None
    for raw in ptx.splitlines():
        m = re.match(r"\s*\.loc\s+\d+\s+(\d+)\s+\d+", raw)
        if m:
            cur = int(m.group(1))
        elif cur == line:
            keep.append(raw)
    return counts("\n".join(keep))


def build() -> dict:
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, convert_line
    from probe_compile import compile_ttgir
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    g_cvt = convert_kernel()
    ty = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    target = GPUTarget("cuda", 90, 32)
    rng = random.Random(SEED)

    def coord(bit: int, nb: tuple[int, int]) -> list[int]:
        return [0, 1 << bit] if bit < nb[1] else [1 << (bit - nb[1]), 0]

    def compile_ptx(L, D, M, N, bits, warps):
        sig = {"X": ty[bits], "Y": ty[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "D": "constexpr"}
        src = GluonASTSource(fn=g_cvt, signature=sig,
                             constexprs={"M": M, "N": N, "L": L, "D": D})
        return triton.compile(src, target=target, options={"num_warps": warps})

    probes = {}
    for i in range(PROBES):
        bits = rng.choice([8, 16, 32, 64])
        warps = rng.choice([1, 4])
        M, N = rng.choice([(32, 32), (16, 64), (64, 16), (32, 64)])
        nb = (M.bit_length() - 1, N.bit_length() - 1)
        cols = list(range(sum(nb)))
        rng.shuffle(cols)
        wb = warps.bit_length() - 1
        warp, rest = cols[:wb], cols[wb:]
        layouts = []
        for _ in range(2):
            order = rest[:]
            rng.shuffle(order)
            lanes, regs = order[:5], order[5:]
            layouts.append(dict(reg=[coord(b, nb) for b in regs],
                                lane=[coord(b, nb) for b in lanes],
                                warp=[coord(b, nb) for b in warp]))
        L, D = (gl.DistributedLinearLayout(x["reg"], x["lane"], x["warp"], [], [M, N])
                for x in layouts)
        k = compile_ptx(L, D, M, N, bits, warps)
        with_cvt = counts(k.asm["ptx"])
        without = counts(compile_ptx(D, D, M, N, bits, warps).asm["ptx"])
        # the convert's own instructions: its TTGIR without locations compiled again, each op
        # at its own TTGIR line
        ttgir = strip_locs(k.asm["ttgir"])
        by_op = compile_ttgir(ttgir, "cuda90", o3=True)
        if counts(by_op) != with_cvt:
            raise RuntimeError(f"the TTGIR without its locations compiles to other "
                               f"instructions: {counts(by_op)} against {with_cvt}")
        probes[f"p{i:02d}_b{bits}_{M}x{N}_w{warps}"] = {
            "element_bits": bits, "shape": [M, N], "src": layouts[0], "dst": layouts[1],
            "triton": {k: with_cvt[k] - without[k] for k in KINDS},
            "triton_at_convert": line_counts(by_op, convert_line(ttgir))}
    return {"triton_version": triton.__version__, "probes": probes}


def layout_of(side: dict, shape: list[int]):
    """The probe's layout as a :class:`linlayout.LinearLayout` (dims ``dim0``, ``dim1``;
    Gluon bases are ``[row, col]`` = ``[dim0, dim1]``)."""
    from linlayout import LinearLayout

    return LinearLayout({"register": side["reg"], "lane": side["lane"], "warp": side["warp"]},
                        {"dim0": shape[0], "dim1": shape[1]})


def compare(data: dict) -> int:
    """Print Triton's counts beside linlayout's bounds and plans; 1 if Triton beats a bound
    or the plan costs more than Triton's shuffles."""
    from linlayout import plan_conversion
    from linlayout.conversion import select_bound, shuffle_bound
    from linlayout.conversion.cost import path_cost
    from linlayout.conversion.shuffle import merge_positions

    bad = 0
    print(f"{'probe':24} | Triton: shfl selp prmt smem | bounds: shfl merge | linlayout "
          "shuffle plan (shfl selp prmt, how) | best")
    for name, p in sorted(data["probes"].items()):
        plan = plan_conversion(layout_of(p["src"], p["shape"]), layout_of(p["dst"], p["shape"]),
                               p["element_bits"])
        t = p["triton"]
        sh = plan.path("shuffle")
        shfl_bound, merges = shuffle_bound(plan.problem), select_bound(plan.problem)
        d = merge_positions(p["element_bits"])
        ours = sh.instructions if sh.feasible else None
        smem = t["st.shared"] + t["ld.shared"]
        if t["shfl"]:
            theirs = path_cost({k: t[k] for k in ("shfl", "selp", "prmt")}, 0, plan.weights)
            if t["shfl"] < shfl_bound or t["selp"] + (d - 1) * t["prmt"] < merges \
                    or theirs < sh.bound - 1e-9 or sh.cost > theirs + 1e-9:
                bad += 1
        # selp as the PTX would count it: data selects and those that pick a prmt selector
        # (the cost kind selector, weighted apart)
        mine = (f"{ours['shfl']:4} {ours['selp'] + ours['selector']:4} {ours['prmt']:4}, "
                f"{sh.method}" if ours
                else "  none")
        print(f"{name:24} | {t['shfl']:4} {t['selp']:4} {t['prmt']:4} {smem:4} | "
              f"{shfl_bound:11} {merges:5} | {mine:38} | {plan.best.path} ({plan.best.cost:g})")
    print("every Triton shuffle conversion is at or above linlayout's bounds, and no plan "
          "costs more" if not bad else f"{bad} probes contradict a bound or the plan: FAILED")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
