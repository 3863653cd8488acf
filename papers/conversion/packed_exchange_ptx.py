#!/usr/bin/env python
"""The packed exchange compiled by LLVM's NVPTX back end and run: does its PTX reach the
destination layout with the instructions ``plan_packed_exchange`` counts?

Run with Triton 3.9.0 installed (its bundled LLVM; CPU only, seconds)::

    python papers/conversion/packed_exchange_ptx.py          # writes tests/data/conversion_packed_exchange.json.gz
    python papers/conversion/packed_exchange_ptx.py --check  # compare, write nothing
    python papers/conversion/packed_exchange_ptx.py --compare-only  # the committed fixture, no Triton

For every pair of the exhaustive space of ``tests/conversion/test_optimal_exhaustive.py``
(a 32-element tensor on one warp, one register bit, four live lane bits and a broadcast one)
at 8 and 16 bits whose cheapest plan is the packed exchange, the plan's tables are written
as LLVM IR the way Triton 3.9's ``transferWithinWarp`` writes its packing
(``ConvertLayoutOpToLLVM.cpp``: elements in a ``<2 x i16>`` vector bitcast to ``i32``, 8-bit
ones zero-extended to 16 bits first; ``llvm.nvvm.shfl.sync.idx.i32``; ``llvm.nvvm.prmt``;
the bitcast back and ``extractelement``; ``packed_exchange_ir.py``), with each lane's source
lane and ``prmt`` selector read from a table (lane-index arithmetic, as the plan leaves it
uncounted).
Triton's LLVM translates it to PTX for sm_90 (``llvm.translate_to_asm``, as
``triton.backends.nvidia.compiler`` does); ``ptx_run.py`` runs it on all 32 lanes with
distinct element values. Recorded per pair: whether every destination element arrives, and
the PTX's ``shfl.sync.idx.b32``, ``prmt.b32``, ``selp`` and ``mov.b32`` packing counts. The
same for three conversions of four and eight source registers per lane (:data:`WIDE`), the
packed exchange past two source registers: several packed words, a shuffle per word and
source lane, chained permutes.
``tests/conversion/test_exchange.py`` replays the fixture without Triton. Exits 1 when an
element is missed or the counts differ from the plan's.
"""

from __future__ import annotations

import itertools
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from fixture import main_for  # noqa: E402

from linlayout import LinearLayout, plan_conversion  # noqa: E402
from packed_exchange_ir import llvm_ir, unit_layout  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_packed_exchange.json.gz"
BITS = 5
LANES = 32
OPS = {"shfl": re.compile(r"\bshfl\.sync\.idx\.b32\b"), "prmt": re.compile(r"\bprmt\.b32\b"),
       "selp": re.compile(r"\bselp\.b\d+\b"),
       "mov_pack": re.compile(r"\bmov\.b32\s+(?:%r\d+,\s*\{|\{)")}


def exhaustive_layout(order: tuple[int, ...]) -> LinearLayout:
    """The exhaustive space's layout: register bit ``order[0]``, lane bits ``order[1:]``,
    then a broadcast lane."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 1 << BITS})


def counts(ptx: str) -> dict[str, int]:
    """The instructions of interest in the PTX."""
    return {k: len(p.findall(ptx)) for k, p in OPS.items()}


#: conversions of four and eight source registers per lane on 32 lanes (``src`` and ``dst``
#: columns as unit bits, the first ``registers`` of them registers): the packed exchange
#: beyond two source registers, built by ``plan_packed_exchange`` whether or not it is the
#: cheapest plan
WIDE = {"wide2_lanes": ([1, 2, 4, 8, 16, 32, 64], [1, 4, 2, 8, 16, 32, 64], 2),
        "wide2_swap": ([1, 2, 4, 8, 16, 32, 64], [4, 8, 1, 2, 16, 32, 64], 2),
        "wide3_mix": ([1, 2, 4, 8, 16, 32, 64, 128], [8, 2, 128, 1, 16, 32, 64, 4], 3)}


def wide_problem(name: str, bits: int):
    """The :class:`~linlayout.conversion.ConversionProblem` of a :data:`WIDE` entry."""
    from linlayout.conversion import ConversionProblem

    src, dst, regs = WIDE[name]
    return ConversionProblem.make(unit_layout(src, regs), unit_layout(dst, regs), bits)


def run(plan, problem) -> dict:
    """Compile one plan to sm_90 PTX, run it on 32 lanes: reaches dst, and its counts."""
    from triton._C.libtriton import llvm

    from ptx_run import run_kernel

    ir, table = llvm_ir(plan, problem, "nvptx")
    ptx = llvm.translate_to_asm(ir, "nvptx64-nvidia-cuda", "sm_90", "+ptx84", [], False,
                                False, False)
    size = plan.element_bits // 8
    n = 1 << problem.src.total_out_bits
    x = b"".join((i + 1).to_bytes(size, "little") for i in range(n))
    tab = b"".join(v.to_bytes(4, "little") for v in table)
    mem = run_kernel(ptx.replace(".func k(", ".entry k("), [x, bytes(len(x)), tab],
                     lanes=LANES)
    return {"element_bits": plan.element_bits, "reaches_dst": bytes(mem[1]) == x,
            "ptx": counts(ptx)}


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm

    from linlayout.conversion import plan_packed_exchange

    llvm.init_targets()
    src = exhaustive_layout(tuple(range(BITS)))
    probes = {}
    for order in itertools.permutations(range(BITS)):
        for bits in (8, 16):
            plan = plan_conversion(src, exhaustive_layout(order), bits, target="cuda:90")
            shuffle = plan.path("shuffle")
            if plan.best is not shuffle or shuffle.method != "packed exchange":
                continue
            probes[f"{''.join(map(str, order))}_b{bits}"] = {
                "order": list(order), **run(shuffle.plan, plan.problem)}
    for name, (cols, _, _) in WIDE.items():
        # distinct non-zero 8-bit values for at most 255 elements
        for bits in (8, 16) if len(cols) < 8 else (16,):
            problem = wide_problem(name, bits)
            probes[f"{name}_b{bits}"] = run(plan_packed_exchange(problem), problem)
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """Print each probe beside the plan's counts; 1 on a miss or a difference."""
    from linlayout.conversion import plan_packed_exchange

    src = exhaustive_layout(tuple(range(BITS)))
    bad = 0
    for name, p in sorted(data["probes"].items()):
        if "order" in p:
            plan = plan_conversion(src, exhaustive_layout(tuple(p["order"])),
                                   p["element_bits"])
            mine = plan.path("shuffle").instructions
        else:
            mine = plan_packed_exchange(wide_problem(name.rsplit("_b", 1)[0],
                                                     p["element_bits"])).instructions
        same = (p["ptx"]["shfl"], p["ptx"]["prmt"], p["ptx"]["selp"]) == \
            (mine["shfl"], mine["prmt"], mine["selp"])
        ok = p["reaches_dst"] and same
        bad += not ok
        ptx = {op: p["ptx"][op] for op in OPS}  # in OPS order, as built
        print(f"{name}: PTX {ptx}, reaches dst {p['reaches_dst']}; plan shfl "
              f"{mine['shfl']} prmt {mine['prmt']} selp {mine['selp']}"
              + ("" if ok else "  <-- MISMATCH"))
    return 1 if bad or not data["probes"] else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
