#!/usr/bin/env python
"""The gfx950 packed exchanges with a permlane swap compiled by LLVM's AMDGPU back end: does
each plan's AMDGCN hold exactly the instructions ``plan_packed_exchange`` counts — the
swap-first plans (:attr:`PackedExchangePlan.swaps`) and the read-then-swap plans
(:attr:`PackedExchangePlan.swaps_after`)?

Run with Triton 3.9.0 installed (its bundled LLVM; CPU only, seconds)::

    python papers/conversion/swap_plans_amdgcn.py          # writes tests/data/conversion_swap_plans_amdgcn.json.gz
    python papers/conversion/swap_plans_amdgcn.py --check  # compare, write nothing
    python papers/conversion/swap_plans_amdgcn.py --compare-only  # the committed fixture, no Triton

Every pair of ``packed_exchange_amdgcn.py`` (the two AMD exhaustive spaces at 8 and 16 bits
and its conversions of four and eight source registers), planned by
``plan_packed_exchange`` on ``hip:gfx950`` (``AMD_CDNA4``), whose plan holds a swap — 34
plans: on the 64-lane wavefront, at 8 and at 16 bits each, 12 swap-first plans and the 4
read-then-swap plans of the pairs whose destination register bit is the source's lane bit
3; and the eight-register ``wide3_mix`` at 8 and 16 bits (swap-first); no 32-lane pair
takes one — is written as LLVM IR by ``packed_exchange_ir.py`` (each source element loaded
on its own, zero-extended, the planner's default producer; the swaps as
``llvm.amdgcn.permlane16.swap``/``permlane32.swap`` on whole 32-bit registers; a swap-first
plan's two swapped bytes joined by ``shl 16``/``or`` as Triton's ``-O3`` joins two loaded
bytes, ``amd_byte_join.py``; a read-then-swap plan's received word given to the swap as it
is and its high half shifted down by ``lshr 16``) and translated to gfx950 assembly by
Triton's LLVM (``llvm.translate_to_asm``). The same IR is run on every lane by
``ir_run.py`` (the intrinsics as LLVM's ``AMDGPUUsage`` describes them; no AMD machine is
at hand): every element reaches ``dst``.

Compared per plan, per cost kind: ``shfl`` = ``ds_bpermute_b32`` + ``v_permlane16_swap_b32``
+ ``v_permlane32_swap_b32``, ``prmt`` = ``v_perm_b32``, ``selp`` = ``v_cndmask_b32`` (the
selectors come from the table, as in the other probes), each equal to the plan's
``instructions``; and every vector ALU and LDS opcode of the kernel outside its own index
and address arithmetic (:data:`HARNESS`) must be one the plan counts
(:attr:`PackedExchangePlan.opcodes`, as many) or one the plan implies and no cost kind
counts (:func:`implied`): one ``v_lshl_or_b32`` per joined 8-bit word, one
``v_lshrrev_b32`` per destination register a read-then-swap plan takes from a high half.
Recorded besides: the wait states of the ``s_nop`` the hazard recognizer inserts (gfx950
needs two between a VALU write of a VGPR and a ``v_permlane*_swap`` reading it: a
read-then-swap plan's shift feeds its swap, so it takes one ``s_nop 1``; a swap-first
plan's swap reads loaded registers and takes none); and, for reference, Triton 3.9's own
lowering of each pair (``triton.compile``, its source loaded as Triton loads it): its
counted kinds, its other vector ALU instructions on the data path
(``papers/triton_lowering/datapath.py``) and its wait states. No cost kind counts plain
VALU instructions or wait states, on Triton's path or a plan.
``tests/conversion/test_exchange.py`` replays the fixture without Triton. Exits 1 when a
count differs from the plan's or a probe misses ``dst``.
"""

from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from datapath import data_path_lines  # noqa: E402
from fixture import main_for  # noqa: E402

from amd_byte_join import convert_ttgir  # noqa: E402
from ir_run import every_element_arrives  # noqa: E402
from linlayout.conversion import ConversionProblem, plan_packed_exchange  # noqa: E402
from linlayout.hardware import AMD_CDNA4  # noqa: E402
from packed_exchange_amdgcn import pairs  # noqa: E402
from packed_exchange_ir import llvm_ir  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_swap_plans_amdgcn.json.gz"
TARGET = "hip:gfx950"
#: the opcodes each cost kind counts (the plan's ``instructions``)
KINDS = {"shfl": ("ds_bpermute_b32", "v_permlane16_swap_b32", "v_permlane32_swap_b32"),
         "prmt": ("v_perm_b32",), "selp": ("v_cndmask_b32",)}
#: the VALU instructions no cost kind counts that the plans imply (join, shift)
FREE = ("v_lshl_or_b32", "v_lshrrev_b32")
#: the probe kernel's own lane-index and address arithmetic (the work-item id masked with
#: ``0x3ff``, the table row, 64-bit addresses): not the exchange's
HARNESS = ("v_and_b32 0x3ff", "v_mul_u32_u24", "v_lshlrev_b32", "v_ashrrev_i32", "v_mov_b32",
           "v_lshl_add_u64")
OP = re.compile(r"^\s*((?:v|ds)_[a-z0-9_]+?)(?:_e32|_e64)?(?:\s+(.*))?$", re.M)
NOP = re.compile(r"^\s*s_nop\s+(\d+)", re.M)


def counts(asm: str) -> dict[str, int]:
    """Every vector ALU and LDS instruction of ``asm`` by opcode (the ``_e32``/``_e64``
    encoding suffix dropped; the work-item id's ``v_and_b32`` with ``0x3ff`` apart)."""
    out: dict[str, int] = {}
    for op, operands in OP.findall(asm):
        if op == "v_and_b32" and "0x3ff," in operands:
            op = "v_and_b32 0x3ff"
        out[op] = out.get(op, 0) + 1
    return dict(sorted(out.items()))


def implied(plan) -> dict[str, int]:
    """The uncounted VALU instructions ``plan`` needs: one ``v_lshl_or_b32`` per 8-bit word
    of two registers that is shipped or permuted (two zero-extended bytes joined, as
    Triton's ``-O3`` joins them), one ``v_lshrrev_b32`` per destination register a
    read-then-swap plan takes from a high half (the swap takes whole VGPRs)."""
    used = {ref for p in plan.permutes for ref in p.inputs} | {("x", r.word) for r in plan.rounds}
    joins = sum(1 for c, (lo, hi) in enumerate(plan.pack)
                if plan.element_bits == 8 and lo != hi and ("x", c) in used)
    shifts = sum(half for ref, half in plan.unpack if ref[0] != "x" or ref in used
                 ) if plan.swaps_after else 0
    return {"v_lshl_or_b32": joins, "v_lshrrev_b32": shifts}


def swap_plans():
    """``(name, problem, plan)`` of every probe pair whose gfx950 plan holds a swap."""
    for name, src, dst, bits in pairs():
        problem = ConversionProblem.make(src, dst, bits, AMD_CDNA4)
        plan = plan_packed_exchange(problem, TARGET)
        if plan is not None and (plan.swaps or plan.swaps_after):
            yield name, problem, plan


def reaches_dst(plan, problem) -> bool:
    """Run the plan's IR on every lane (``ir_run.every_element_arrives``): does every
    element arrive?"""
    ir, table = llvm_ir(plan, problem, "amdgcn")
    return every_element_arrives(ir, table, 1 << problem.src.total_out_bits,
                                 1 << problem.lane_bits)


def wait_states(asm: str) -> int:
    """The wait states of the ``s_nop`` instructions in ``asm`` (``s_nop n``: ``n + 1``)."""
    return sum(int(n) + 1 for n in NOP.findall(asm))


def tritons(problem, tmp: pathlib.Path) -> dict:
    """Triton 3.9's own lowering of the same ``convert_layout`` on gfx950
    (``triton.compile`` of ``amd_byte_join.convert_ttgir``: the source loaded by Triton, so
    packed as its load leaves it): the vector and LDS instructions on the data path
    (``papers/triton_lowering/datapath.py``) and the kernel's ``s_nop`` wait states."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = tmp / "cvt.ttgir"
    path.write_text(convert_ttgir(problem.src, problem.dst, problem.element_bits, "gfx950"))
    asm = triton.compile(str(path), target=GPUTarget("hip", "gfx950", 64)).asm["amdgcn"]
    lines = asm.splitlines()
    data = "\n".join(lines[i] for i in sorted(data_path_lines(asm, True)))
    return {"amdgcn_data": counts(data), "nop_wait_states": wait_states(asm)}


def build() -> dict:
    import tempfile

    import triton
    from triton._C.libtriton import llvm

    llvm.init_targets()
    probes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, problem, plan in swap_plans():
            ir, _ = llvm_ir(plan, problem, "amdgcn")
            asm = llvm.translate_to_asm(ir, "amdgcn-amd-amdhsa", "gfx950", "", [], False,
                                        False, False)
            probes[name] = {"element_bits": plan.element_bits,
                            "kind": "read_then_swap" if plan.swaps_after else "swap_first",
                            "amdgcn": counts(asm), "nop_wait_states": wait_states(asm),
                            "reaches_dst": reaches_dst(plan, problem),
                            "triton": tritons(problem, pathlib.Path(tmp))}
    return {"triton_version": triton.__version__, "probes": probes}


def by_kind(ops: dict[str, int]) -> dict[str, int]:
    """Opcode counts summed per cost kind (:data:`KINDS`), and ``"other"``: the vector ALU
    instructions no kind counts."""
    out = {k: sum(ops.get(op, 0) for op in kind) for k, kind in KINDS.items()}
    counted = {op for kind in KINDS.values() for op in kind}
    out["other"] = sum(n for op, n in ops.items() if op.startswith("v_") and op not in counted)
    return out


def compare(data: dict) -> int:
    """Print each probe's opcodes per cost kind beside the plan's (and Triton's own
    lowering's, for reference); 1 on a difference between a probe and its plan."""
    plans = {name: (problem, plan) for name, problem, plan in swap_plans()}
    bad = 0
    print(f"{'probe':14} {'plan':14} | compiled plan: shfl prmt selp | counted: shfl prmt "
          "selp | lshl_or lshrrev (implied) | nop | dst || Triton: shfl prmt selp other nop")
    for name, p in sorted(data["probes"].items()):
        problem, plan = plans.get(name, (None, None))
        got = p["amdgcn"]
        kinds = by_kind(got)
        rest = {op: n for op, n in got.items() if op not in HARNESS}
        want = implied(plan) if plan is not None else {}
        same = (plan is not None and p["reaches_dst"]
                and all(kinds[k] == plan.instructions[k] for k in KINDS)
                and rest == {op: n for op, n in {**plan.opcodes, **want}.items() if n})
        bad += not same
        mine = plan.instructions if plan is not None else {k: "-" for k in KINDS}
        tri = by_kind(p["triton"]["amdgcn_data"])
        print(f"{name:14} {p['kind']:14} | {kinds['shfl']:18} {kinds['prmt']:4} "
              f"{kinds['selp']:4} | {mine['shfl']:13} {mine['prmt']:4} {mine['selp']:4} | "
              f"{got.get('v_lshl_or_b32', 0):7} {got.get('v_lshrrev_b32', 0):7} "
              f"({want.get('v_lshl_or_b32', '-')}, {want.get('v_lshrrev_b32', '-')}) | "
              f"{p['nop_wait_states']:3} | {str(p['reaches_dst']):5} || {tri['shfl']:12} "
              f"{tri['prmt']:4} {tri['selp']:4} {tri['other']:5} "
              f"{p['triton']['nop_wait_states']:3}" + ("" if same else "  <-- MISMATCH"))
    missing = sorted(set(plans) - set(data["probes"]))
    for name in missing:
        print(f"{name}: planned with a swap, not in the fixture  <-- MISMATCH")
    n = len(data["probes"])
    print(f"{n - bad} of {n} swap plans: every element reaches dst, the AMDGCN's opcodes per "
          "cost kind equal the plan's, and the only uncounted VALU instructions are the "
          "joins and shifts the plan implies")
    return 1 if bad or missing or not n else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
