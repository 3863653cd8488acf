#!/usr/bin/env python
"""The packed exchange compiled by LLVM's AMDGPU back end for gfx942: does its AMDGCN hold
the ``ds_bpermute_b32`` and ``v_perm_b32`` that ``plan_packed_exchange`` counts on AMD?

Run with Triton 3.9.0 installed (its bundled LLVM; CPU only, seconds)::

    python papers/conversion/packed_exchange_amdgcn.py          # writes tests/data/conversion_packed_exchange_amdgcn.json.gz
    python papers/conversion/packed_exchange_amdgcn.py --check  # compare, write nothing
    python papers/conversion/packed_exchange_amdgcn.py --compare-only  # the committed fixture, no Triton

For every pair of the two AMD exhaustive spaces of
``tests/conversion/test_optimal_exhaustive.py`` (a 32-element tensor on 32 lanes; a
16-element tensor on a 64-lane wavefront, lane bits 3–5 live) at 8 and 16 bits for which
``plan_packed_exchange`` builds a plan on ``hip:gfx942``, and for a few conversions of four
and eight source registers per lane, the plan's tables are written as LLVM IR the way
Triton 3.9 packs (``packed_exchange_ir.py``: ``<2 x i16>`` bitcast to ``i32``; two 8-bit
elements as Triton's ``-O3`` leaves that packing, zero-extended to ``i32``, shifted and
ORed, since this script gives the IR straight to instruction selection: ``amd_byte_join.py``;
``llvm.amdgcn.ds.bpermute``; ``llvm.amdgcn.perm`` with the
selector read from a per-lane table) and translated to gfx942 assembly by Triton's LLVM
(``llvm.translate_to_asm``, as ``triton.backends.amd.compiler`` does). Each source element
is loaded on its own (``global_load_ushort``/``ubyte``: one element per register,
zero-extended, the planner's default producer). Recorded per plan: the assembly's
``ds_bpermute_b32``, ``v_perm_b32``, ``v_cndmask_b32`` and ``v_lshl_or_b32`` counts, beside
the plan's opcodes. No AMD machine or simulator is at hand, so the tables are not run here:
the executor (``linlayout.conversion.execute_plan``) runs every plan, and the NVPTX
translation of the same IR builder is run lane by lane by ``packed_exchange_ptx.py``.
``tests/conversion/test_exchange.py`` replays the fixture without Triton. Exits 1 when a
count differs from the plan's.
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

from linlayout import LinearLayout  # noqa: E402
from linlayout.conversion import ConversionProblem, plan_packed_exchange  # noqa: E402
from linlayout.hardware import AMD_CDNA3  # noqa: E402
from packed_exchange_ir import llvm_ir, unit_layout  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_packed_exchange_amdgcn.json.gz"
TARGET = "hip:gfx942"
OPS = {op: re.compile(rf"^\s*{op}\b", re.M)
       for op in ("ds_bpermute_b32", "v_perm_b32", "v_cndmask_b32", "v_lshl_or_b32")}


def lane_layout(order: tuple[int, ...]) -> LinearLayout:
    """The 32-lane space: register bit ``order[0]``, lane bits ``order[1:]``, a broadcast
    lane."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 32})


def wave_layout(order: tuple[int, ...]) -> LinearLayout:
    """The 64-lane space: register bit ``order[0]``, three broadcast lanes, lane bits 3–5."""
    return LinearLayout({"register": [[1 << order[0]]],
                         "lane": [[0]] * 3 + [[1 << b] for b in order[1:]]}, {"dim0": 16})


def wide(src: list[int], dst: list[int], registers: int) -> tuple[LinearLayout, ...]:
    """A 64-lane pair with ``2^registers`` registers per lane: columns as unit bits."""
    return unit_layout(src, registers), unit_layout(dst, registers)


#: conversions of four and eight source registers per lane (64 lanes)
WIDE = {"wide2_lanes": ([1, 2, 4, 8, 16, 32, 64, 128], [1, 4, 2, 8, 16, 32, 64, 128], 2),
        "wide2_swap": ([1, 2, 4, 8, 16, 32, 64, 128], [4, 8, 1, 2, 16, 32, 64, 128], 2),
        "wide3_mix": ([1, 2, 4, 8, 16, 32, 64, 128, 256],
                      [8, 2, 256, 1, 16, 32, 64, 128, 4], 3)}


def pairs():
    """``(name, src, dst, element_bits)`` of every probe."""
    for space, layout, n in (("lanes", lane_layout, 5), ("wave", wave_layout, 4)):
        for order in itertools.permutations(range(n)):
            for bits in (8, 16):
                yield (f"{space}_{''.join(map(str, order))}_b{bits}", layout(tuple(range(n))),
                       layout(order), bits)
    for name, (src, dst, regs) in WIDE.items():
        for bits in (8, 16):
            yield (f"{name}_b{bits}", *wide(src, dst, regs), bits)


def counts(asm: str) -> dict[str, int]:
    """The instructions of interest in the assembly (comments and directives skipped)."""
    return {k: len(p.findall(asm)) for k, p in OPS.items()}


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm

    llvm.init_targets()
    probes = {}
    for name, src, dst, bits in pairs():
        problem = ConversionProblem.make(src, dst, bits, AMD_CDNA3)
        plan = plan_packed_exchange(problem, TARGET)
        if plan is None:
            continue
        ir, _ = llvm_ir(plan, problem, "amdgcn")
        asm = llvm.translate_to_asm(ir, "amdgcn-amd-amdhsa", "gfx942", "", [], False, False,
                                    False)
        probes[name] = {"element_bits": bits, "amdgcn": counts(asm)}
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """Print each probe beside the plan's opcodes; 1 on a difference."""
    by_name = {name: (src, dst, bits) for name, src, dst, bits in pairs()}
    bad = 0
    for name, p in sorted(data["probes"].items()):
        src, dst, bits = by_name[name]
        plan = plan_packed_exchange(ConversionProblem.make(src, dst, bits, AMD_CDNA3), TARGET)
        got = {op: p["amdgcn"][op] for op in OPS}  # in OPS order, as built
        same = plan is not None and all(
            got[op] == plan.opcodes.get(op, 0) for op in ("ds_bpermute_b32", "v_perm_b32",
                                                           "v_cndmask_b32"))
        bad += not same
        print(f"{name}: AMDGCN {got}; plan {None if plan is None else plan.opcodes}"
              + ("" if same else "  <-- MISMATCH"))
    print(f"{len(data['probes']) - bad} of {len(data['probes'])} plans: the assembly's "
          "ds_bpermute_b32, v_perm_b32 and v_cndmask_b32 equal the plan's")
    return 1 if bad or not data["probes"] else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
