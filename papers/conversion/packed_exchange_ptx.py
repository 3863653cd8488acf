#!/usr/bin/env python
"""The packed exchange compiled by LLVM's NVPTX back end and run: does its PTX reach the
destination layout with the instructions ``plan_packed_exchange`` counts?

Run with Triton 3.9.0 installed (its bundled LLVM; CPU only, seconds)::

    python papers/conversion/packed_exchange_ptx.py          # writes tests/data/conversion_packed_exchange.json.gz
    python papers/conversion/packed_exchange_ptx.py --check  # compare, write nothing

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
the PTX's ``shfl.sync.idx.b32``, ``prmt.b32``, ``selp`` and ``mov.b32`` packing counts.
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
from packed_exchange_ir import llvm_ir  # noqa: E402

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


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm

    from ptx_run import run_kernel

    llvm.init_targets()
    src = exhaustive_layout(tuple(range(BITS)))
    probes = {}
    for order in itertools.permutations(range(BITS)):
        for bits in (8, 16):
            plan = plan_conversion(src, exhaustive_layout(order), bits, target="cuda:90")
            shuffle = plan.path("shuffle")
            if plan.best is not shuffle or shuffle.method != "packed exchange":
                continue
            ir, table = llvm_ir(shuffle.plan, plan.problem, "nvptx")
            ptx = llvm.translate_to_asm(ir, "nvptx64-nvidia-cuda", "sm_90", "+ptx84", [],
                                        False, False, False)
            size = bits // 8
            x = b"".join((i + 1).to_bytes(size, "little") for i in range(1 << BITS))
            tab = b"".join(v.to_bytes(4, "little") for v in table)
            mem = run_kernel(ptx.replace(".func k(", ".entry k("), [x, bytes(len(x)), tab],
                             lanes=LANES)
            probes[f"{''.join(map(str, order))}_b{bits}"] = {
                "order": list(order), "element_bits": bits,
                "reaches_dst": bytes(mem[1]) == x, "ptx": counts(ptx)}
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """Print each probe beside the plan's counts; 1 on a miss or a difference."""
    src = exhaustive_layout(tuple(range(BITS)))
    bad = 0
    for name, p in sorted(data["probes"].items()):
        plan = plan_conversion(src, exhaustive_layout(tuple(p["order"])), p["element_bits"])
        mine = plan.path("shuffle").instructions
        same = (p["ptx"]["shfl"], p["ptx"]["prmt"], p["ptx"]["selp"]) == \
            (mine["shfl"], mine["prmt"], mine["selp"])
        ok = p["reaches_dst"] and same
        bad += not ok
        print(f"{name}: PTX {p['ptx']}, reaches dst {p['reaches_dst']}; plan shfl "
              f"{mine['shfl']} prmt {mine['prmt']} selp {mine['selp']}"
              + ("" if ok else "  <-- MISMATCH"))
    return 1 if bad or not data["probes"] else 0


def main(argv: list[str] | None = None) -> int:
    data: dict = {}

    def built() -> dict:
        data.update(build())
        return data

    rc = main_for(__doc__, OUT, built, argv)
    return rc or compare(data)


if __name__ == "__main__":
    sys.exit(main())
