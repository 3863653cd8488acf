#!/usr/bin/env python
"""Triton 3.9's select–shuffle–select stages compiled and *run*: does its PTX reach the
destination layout, and does linlayout's model of the stages emit the same instructions?

Run with Triton 3.9.0 installed (CPU only; a few minutes)::

    python papers/conversion/stage_probes.py          # writes tests/data/conversion_stage_probes.json.gz
    python papers/conversion/stage_probes.py --check  # compare, write nothing

Each probe is one warp (3 register and 5 lane bits, a 16×16 tile of 8-, 16- or 32-bit
integers): the source holds element ``i`` at register bits 0–2 and lane bits 3–7, the
destination a random permutation of those bits (a seed drawn after the model was fixed:
held out), plus every order whose 8-bit decomposition folds the register swap ``(r0 r1)``
into a single transposition with butterfly shuffles (``f`` probes: where the side of the
shuffle the fold goes to decides Triton's method). The Gluon kernel loads the tile, converts it and stores it; its TTGIR gets the
``force_warp_shuffle`` attribute on the convert (Triton 3.9's ``ConvertLayoutOp`` property
that makes ``transferWithinWarp`` lower conversions with two or more register/lane
transpositions too, which ``cvtNeedsWarpShuffle`` would send through shared memory) and is
compiled for cuda:90. ``ptx_run.py`` then runs the PTX on all 32 lanes with the tile's
element indices as data and checks every stored element. Recorded per probe: whether
Triton's code reaches the destination, the convert's ``shfl``/``selp``/``prmt`` in the PTX
and in the LLVM IR before ``-O3``, and the ``prmt`` selector constants the PTX selects
among. Beside them (``compare``, no Triton needed): linlayout's stage plan
(``plan_stages``), its instruction counts, its constants, and whether
``execute_plan`` proves it reaches ``dst``. The script exits 1 if any Triton probe misses
``dst``, if a linlayout stage plan misses it, or if the counts differ.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_stage_probes.json.gz"
SEED = 2611
PERMS = 60
REGISTER_BITS, LANE_BITS = 3, 5
LLVM_PRMT = "llvm prmt"
OPS = {"shfl": re.compile(r"shfl\.sync\.\w+\.b32"), "selp": re.compile(r"selp\.b\d+"),
       "prmt": re.compile(r"prmt\.b32")}


def permutations(seed: int = SEED, count: int = PERMS) -> list[list[int]]:
    """The destination bit orders (register bits first), fixed by ``seed``."""
    rng = random.Random(seed)
    out = []
    n = REGISTER_BITS + LANE_BITS
    for _ in range(count):
        perm = list(range(n))
        rng.shuffle(perm)
        out.append(perm)
    return out


def folded_swaps() -> list[list[int]]:
    """Every destination bit order whose 8-bit decomposition is one transposition with the
    register swap ``(r0 r1)`` folded into its selectors and no lane permutation (butterfly
    shuffles): the pairs where the fold's side of the shuffle decides Triton's method."""
    import itertools

    from linlayout.lowering.decompose import decompose

    src = _layout(list(range(REGISTER_BITS + LANE_BITS)))
    out = []
    for perm in itertools.permutations(range(REGISTER_BITS + LANE_BITS)):
        d = decompose(src, _layout(list(perm)), 8)
        if d.n_pack == 2 and len(d.transpositions) == 1 and d.lane_perm_trivial \
                and d.transpositions[0].top_pre == 0x3120:
            out.append(list(perm))
    return out


def element_bytes(i: int, bits: int) -> bytes:
    """Element ``i`` of the input tile: its index in the low byte, other bytes distinct
    (so a byte moved to the wrong place is seen)."""
    v = (i | (i ^ 0xA5) << 8 | (i ^ 0x3C) << 16 | (i ^ 0x77) << 24) & ((1 << bits) - 1)
    return v.to_bytes(bits // 8, "little")


def ptx_counts(ptx: str, line: int) -> dict[str, int]:
    """The convert's shuffles, selects and byte permutes (PTX lines whose ``.loc`` is
    ``line``)."""
    cur = None
    out: collections.Counter = collections.Counter()
    for raw in ptx.splitlines():
        s = raw.strip()
        m = re.match(r"\.loc\s+\d+\s+(\d+)\s+\d+", s)
        if m:
            cur = int(m.group(1))
            continue
        if cur != line or not s or s.startswith(("//", ".", "{", "}")):
            continue
        op = s.split()[0]
        for k, rx in OPS.items():
            if rx.fullmatch(op):
                out[k] += 1
    return {k: out[k] for k in OPS}


def ptx_selectors(ptx: str, line: int) -> list[int]:
    """Sorted immediate operands of the convert's ``selp`` whose results feed a ``prmt``
    as its selector — the byte-permute selectors Triton chooses among per lane."""
    cur = None
    selp_imm: dict[str, list[int]] = {}
    used: list[int] = []
    for raw in ptx.splitlines():
        s = raw.strip()
        m = re.match(r"\.loc\s+\d+\s+(\d+)\s+\d+", s)
        if m:
            cur = int(m.group(1))
            continue
        if cur != line:
            continue
        m = re.match(r"selp\.b32\s+(%r\d+),\s*(-?\d+),\s*(-?\d+),", s)
        if m:
            selp_imm[m.group(1)] = [int(m.group(2)), int(m.group(3))]
        m = re.match(r"prmt\.b32\s+%r\d+,\s*%r\d+,\s*%r\d+,\s*(%r\d+);", s)
        if m and m.group(1) in selp_imm:
            used.extend(selp_imm.pop(m.group(1)))
    return sorted(used)


def build() -> dict:
    import tempfile

    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, convert_line
    from triton._C.libtriton import llvm as _llvm
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    from ptx_run import run_kernel
    from shuffle_probes import preopt_counts

    g_cvt = convert_kernel()

    def coord(b: int) -> list[int]:
        return [0, 1 << b] if b < 4 else [1 << (b - 4), 0]

    def layout(bits: list[int]):
        return gl.DistributedLinearLayout([coord(b) for b in bits[:REGISTER_BITS]],
                                          [coord(b) for b in bits[REGISTER_BITS:]],
                                          [], [], [16, 16])

    target = GPUTarget("cuda", 90, 32)
    ident = list(range(REGISTER_BITS + LANE_BITS))
    probes = {}
    drawn = [(f"s{k:02d}", perm) for k, perm in enumerate(permutations())]
    folded = [(f"f{k:02d}", perm) for k, perm in enumerate(folded_swaps())]
    for tag, perm in drawn + folded:
        if perm[:REGISTER_BITS] == ident[:REGISTER_BITS] or \
                sorted(perm[:REGISTER_BITS]) == ident[:REGISTER_BITS]:
            continue  # registers only: no shuffle
        for bits in (8, 16, 32):
            ty = {8: "*i8", 16: "*i16", 32: "*i32"}[bits]
            sig = {"X": ty, "Y": ty, "M": "constexpr", "N": "constexpr", "L": "constexpr",
                   "D": "constexpr"}
            src = GluonASTSource(fn=g_cvt, signature=sig, constexprs={
                "M": 16, "N": 16, "L": layout(ident), "D": layout(perm)})
            first_k = triton.compile(src, target=target, options={"num_warps": 1})
            # locations removed: each op at its own TTGIR line, the convert's counted there
            ttgir = re.sub(r"(ttg\.convert_layout %\S+)", r"\1 {force_warp_shuffle}",
                           strip_locs(first_k.asm["ttgir"]), count=1)
            preopt: list[str] = []
            orig = _llvm.optimize_module

            def capture(mod, *a, **kw):
                preopt.append(str(mod))
                return orig(mod, *a, **kw)

            _llvm.optimize_module = capture
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    path = pathlib.Path(tmp) / "k.ttgir"
                    path.write_text(ttgir)
                    kern = triton.compile(str(path), target=target)
            finally:
                _llvm.optimize_module = orig
            ptx = kern.asm["ptx"]
            x = b"".join(element_bytes(i, bits) for i in range(256))
            mem = run_kernel(ptx, [x, bytes(len(x)), None, None])
            line = convert_line(ttgir)
            probes[f"{tag}_b{bits}"] = {
                "perm": perm, "element_bits": bits,
                "triton": {"reaches_dst": bytes(mem[1]) == x,
                           "ptx": ptx_counts(ptx, line),
                           "preopt": preopt_counts(preopt[0], line) if preopt else {},
                           "selectors": ptx_selectors(ptx, line)}}
    return {"triton_version": triton.__version__, "probes": probes}


def _layout(bits: list[int]):
    from linlayout import LinearLayout
    return LinearLayout({"register": [[1 << b] for b in bits[:REGISTER_BITS]],
                         "lane": [[1 << b] for b in bits[REGISTER_BITS:]]},
                        {"dim0": 1 << len(bits)})


def model(perm: list[int], bits: int) -> dict | None:
    """linlayout's stage plan for a probe: counts, selector constants, whether it runs to
    ``dst``; None when it builds none."""
    from linlayout.conversion import ConversionProblem, execute_plan, plan_stages
    from linlayout.lowering.shuffle import live_prmt_selectors

    pb = ConversionProblem.make(_layout(list(range(len(perm)))), _layout(perm), bits)
    st = plan_stages(pb, "cuda:90")
    if st is None:
        return None
    ops = st.opcodes
    low = st.lowering.counts
    # the plan counts the four byte extracts of each shuffled register of four 8-bit elements
    # as Triton's lowering asks for them; after -O3 they sit on the consumer's line, which the
    # PTX column does not count (tests/data/llvm_respelling.json: consumer_extract)
    four = bits == 8 and st.lowering.decomposition.n_pack == 2
    unpacked = 4 * low.get("pack", 0) if four else 0
    return {"reaches_dst": execute_plan(pb, st).correct,
            "preopt": {k: low[k] for k in ("permute", "select", "shuffle") if low.get(k)},
            "transpositions": st.transpositions,
            "ptx": {"shfl": sum(v for k, v in ops.items() if k.startswith("shfl")),
                    "selp": sum(v for k, v in ops.items() if k.startswith("selp")),
                    "prmt": ops.get("prmt.b32", 0) - unpacked},
            "selectors": live_prmt_selectors(st.lowering)}


def _trivial_lanes(perm: list[int]) -> bool:
    """Whether the decomposition's lane permutation is the identity (butterfly shuffles,
    no lane-index arithmetic)."""
    from linlayout.lowering.decompose import decompose

    d = decompose(_layout(list(range(len(perm)))), _layout(perm), 32)
    return d.lane_perm_trivial


def compare(data: dict) -> int:
    """Print Triton's stages beside linlayout's; 1 on a miss or a count difference."""
    bad = 0
    tally: dict = collections.defaultdict(lambda: collections.Counter())
    for name, p in sorted(data["probes"].items()):
        t = p["triton"]
        m = model(p["perm"], p["element_bits"])
        key = (m["transpositions"] if m else -1, p["element_bits"])
        c = tally[key]
        c["probes"] += 1
        c["triton reaches dst"] += t["reaches_dst"]
        if m is None:
            bad += 1
            print(f"{name}: linlayout builds no stage plan")
            continue
        c["model reaches dst"] += m["reaches_dst"]
        same = m["ptx"] == t["ptx"]
        lowering = m["preopt"] == t["preopt"]
        # LLVM may spell part of an indexed shuffle's lane arithmetic with a prmt
        llvm = not same and lowering and all(
            m["ptx"][k] == t["ptx"][k] for k in ("shfl", "selp")) \
            and t["ptx"]["prmt"] == m["ptx"]["prmt"] + 1 and m["preopt"].get("shuffle") \
            and not _trivial_lanes(p["perm"])
        c["same counts"] += same
        c["same before -O3"] += lowering
        c[LLVM_PRMT] += llvm
        c["same selectors"] += m["selectors"] == t["selectors"]
        if not (t["reaches_dst"] and m["reaches_dst"] and lowering and (same or llvm)
                and m["selectors"] == t["selectors"]):
            bad += 1
            print(f"{name}: Triton {t['ptx']} reach={t['reaches_dst']} | linlayout "
                  f"{m['ptx']} reach={m['reaches_dst']}")
    print("transpositions | bits | probes | Triton reaches dst | linlayout reaches dst | "
          "same before -O3 | same PTX | LLVM's prmt | same prmt selectors")
    for (tr, bits), c in sorted(tally.items()):
        print(f"{tr:14} | {bits:4} | {c['probes']:6} | {c['triton reaches dst']:18} | "
              f"{c['model reaches dst']:21} | {c['same before -O3']:15} | "
              f"{c['same counts']:8} | {c[LLVM_PRMT]:11} | {c['same selectors']}")
    print("every probe: Triton's PTX and linlayout's stage plan reach dst, with the same "
          "instructions and selectors" if not bad else f"{bad} probes differ: FAILED")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
