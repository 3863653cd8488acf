#!/usr/bin/env python
"""What instruction selection spends joining two 8/16-bit elements that a producer left
alone in 32-bit registers with unknown upper bits (``wide_source``: a gather's or a
reduction's 32-bit result) into the one 32-bit word a shuffle ships: every spelling of the
join tried in LLVM IR, compiled with Triton 3.9's LLVM.

Run with Triton 3.9.0 installed (CPU only, seconds)::

    python papers/conversion/wide_join_isel.py          # writes tests/data/conversion_wide_join_isel.json.gz
    python papers/conversion/wide_join_isel.py --check  # compare, write nothing

Each kernel reads two 32-bit values through one shuffle each (``shfl.sync.idx.b32`` /
``ds_bpermute_b32``: their upper bits unknown to LLVM), joins their low elements as the
spelling says and ships the word with a third shuffle; the instructions between the second
and the third shuffle are recorded, after LLVM's ``-O3`` (``llvm.optimize_module``, as
Triton's ``make_llir`` runs it) and without it (instruction selection only).

* ``nvptx`` (sm_80, sm_90): two 16-bit elements, the low halves of two registers, into the
  halves of one word, written in MLIR's LLVM dialect and translated as Triton's
  ``make_llir`` does (``llvm.to_module``, ``llvm.optimize_module``, then
  ``llvm.translate_to_asm``). Spellings: Triton's ``<2 x i16>`` ``insertelement`` and
  ``bitcast`` (``transferWithinWarp``'s packing), ``shufflevector`` of the words as
  ``<2 x i16>``, ``<2 x half>``, ``llvm.nvvm.prmt``, ``and``/``shl``/``or`` (and with
  ``add``, ``mul``, ``zext(trunc)``, ``xor``, masks), ``llvm.fshl``/``fshr``, an ``i64``
  funnel.
* ``amdgcn`` (gfx942, gfx950): two 8-bit elements, the low bytes of two registers, into one
  word, compiled as Triton's AMD backend compiles LLVM IR (``compile_amdgpu``) and by
  instruction selection alone: in 16-bit slots (Triton's ``<2 x i16>`` of zero-extended
  bytes; ``and``/``shl 16``/``or``) and in byte slots (``<4 x i8>`` with the other two bytes
  poison, zero or copies; ``<2 x i8>`` as ``i16``; ``and``/``shl 8``/``or``), ``llvm.fshl``,
  ``llvm.amdgcn.perm``.

Result (the fixture; ``tests/conversion/test_exchange.py`` replays it without Triton): on
NVPTX the vector spellings and ``llvm.nvvm.prmt`` are one ``prmt.b32`` and nothing else; the
others take two or three integer instructions (``shl`` and ``shf.l.wrap.b32``; ``and``,
``shl`` and ``or``) and no ``prmt``: no spelling joins the pair in fewer than one
instruction, and Triton's is one ``prmt.b32``. On AMDGPU two computed bytes in zero-extended
16-bit slots take a ``v_perm_b32`` (Triton's spelling: with two ``v_and_b32``; the
``llvm.amdgcn.perm`` intrinsic alone: one), as do the other zero-filled forms; spellings
that leave garbage where the shipped word's unread bits are — ``(a & 0xffff) | (b << 16)``:
``v_lshlrev_b32`` and ``v_and_or_b32``; byte slots (``<4 x i8>`` or ``<2 x i8>`` with the
other bytes poison or zero): ``v_lshlrev_b16``, ``v_or_b32_sdwa`` (gfx950:
``v_bitop3_b16``), ``v_and_b32`` — take none, in no more VALU instructions than Triton's.
The model prices a join as Triton spells it, on both targets (a ``prmt.b32``, a
``v_perm_b32``), and the bounds bound plans lowered that way: the ``v_perm_b32``-free
spellings, like a hand-written ``v_lshl_or_b32`` at 16 bits, lie outside that family.

``plan`` probes: the packed exchange ``plan_packed_exchange`` builds with ``wide_source`` at
8 bits for every pair of the AMD exhaustive spaces (32 lanes: 120 pairs; 64-lane wavefront:
24) on gfx942 and gfx950 — 284 plans — written as LLVM IR (``packed_exchange_ir.llvm_ir``
with ``wide``: each source register a 32-bit value read through a ``ds_bpermute_b32``, so
LLVM cannot know its upper bits, and two such bytes joined as Triton packs an 8-bit pair)
and translated for the plan's target: each holds exactly the plan's ``ds_bpermute_b32``,
``v_perm_b32`` (a join's included) and ``v_permlane*_swap_b32``, no ``v_cndmask_b32``, and
run on every lane by ``ir_run.py`` with garbage in every source register's upper 24 bits,
every element reaches ``dst``. Exits 1 when a count differs from
that.
"""

from __future__ import annotations

import itertools
import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
sys.path.insert(0, str(ROOT / "papers" / "conversion"))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_wide_join_isel.json.gz"
NV_TARGETS = (80, 90)
AMD_TARGETS = ("gfx942", "gfx950")
#: the spellings that ship the pair as Triton's or a vector's packing (NVPTX: one prmt)
NV_VECTOR = ("v2i16_insertelement", "shufflevector", "v2f16", "prmt_intrinsic")
#: spellings of the AMD 8-bit pair that take no v_perm_b32 and no more VALU instructions than
#: Triton's (outside the family the bounds cover: ``linlayout.conversion.bounds``)
AMD_FREE_JOINS = ("and_shl16_or_garbage_mid", "v4i8_ab_poison", "v4i8_ab00")

NV_HEAD = '''module {
  llvm.func @k(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
    %m1 = llvm.mlir.constant(-1 : i32) : i32
    %c31 = llvm.mlir.constant(31 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c16_16 = llvm.mlir.constant(16 : i16) : i16
    %ffff = llvm.mlir.constant(65535 : i32) : i32
    %c65536 = llvm.mlir.constant(65536 : i32) : i32
    %pa = llvm.getelementptr %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %la = llvm.load %pa : !llvm.ptr<1> -> i32
    %t2 = llvm.add %tid, %c16 : i32
    %pb = llvm.getelementptr %p[%t2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %lb = llvm.load %pb : !llvm.ptr<1> -> i32
    %a = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%m1, %la, %c1, %c31) : (i32, i32, i32, i32) -> i32
    %b = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%m1, %lb, %c1, %c31) : (i32, i32, i32, i32) -> i32
'''
NV_TAIL = '''    %s = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%m1, %w, %tid, %c31) : (i32, i32, i32, i32) -> i32
    %pq = llvm.getelementptr %q[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %s, %pq : i32, !llvm.ptr<1>
    llvm.return
  }
}
'''
#: NVPTX spellings: MLIR LLVM-dialect lines joining %a and %b into %w
NV_SPELLINGS = {
 "v2i16_insertelement": '''    %ta = llvm.trunc %a : i32 to i16
    %tb = llvm.trunc %b : i32 to i16
    %u = llvm.mlir.undef : vector<2xi16>
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %v0 = llvm.insertelement %ta, %u[%i0 : i32] : vector<2xi16>
    %v1 = llvm.insertelement %tb, %v0[%c1 : i32] : vector<2xi16>
    %w = llvm.bitcast %v1 : vector<2xi16> to i32
''',
 "and_shl_or": '''    %x = llvm.and %a, %ffff : i32
    %y = llvm.shl %b, %c16 : i32
    %w = llvm.or %x, %y : i32
''',
 "and_shl_add": '''    %x = llvm.and %a, %ffff : i32
    %y = llvm.shl %b, %c16 : i32
    %w = llvm.add %x, %y : i32
''',
 "zext_trunc_shl_or": '''    %ta = llvm.trunc %a : i32 to i16
    %xa = llvm.zext %ta : i16 to i32
    %y = llvm.shl %b, %c16 : i32
    %w = llvm.or %xa, %y : i32
''',
 "mul_add": '''    %x = llvm.and %a, %ffff : i32
    %y = llvm.mul %b, %c65536 : i32
    %w = llvm.add %x, %y : i32
''',
 "fshl": '''    %y = llvm.shl %a, %c16 : i32
    %w = llvm.intr.fshl(%b, %y, %c16) : (i32, i32, i32) -> i32
''',
 "fshr": '''    %y = llvm.shl %a, %c16 : i32
    %w0 = llvm.intr.fshr(%b, %y, %c16) : (i32, i32, i32) -> i32
    %w = llvm.intr.fshl(%w0, %w0, %c16) : (i32, i32, i32) -> i32
''',
 "shufflevector": '''    %va = llvm.bitcast %a : i32 to vector<2xi16>
    %vb = llvm.bitcast %b : i32 to vector<2xi16>
    %v = llvm.shufflevector %va, %vb [0, 2] : vector<2xi16>
    %w = llvm.bitcast %v : vector<2xi16> to i32
''',
 "xor_and_xor": '''    %d = llvm.shl %b, %c16 : i32
    %e = llvm.xor %a, %d : i32
    %f = llvm.and %e, %ffff : i32
    %w = llvm.xor %f, %d : i32
''',
 "i64_funnel": '''    %a64 = llvm.zext %a : i32 to i64
    %b64 = llvm.zext %b : i32 to i64
    %c48 = llvm.mlir.constant(48 : i64) : i64
    %c32 = llvm.mlir.constant(32 : i64) : i64
    %sa = llvm.shl %a64, %c48 : i64
    %sb = llvm.shl %b64, %c32 : i64
    %o = llvm.or %sa, %sb : i64
    %c16l = llvm.mlir.constant(16 : i64) : i64
    %o2 = llvm.lshr %o, %c16l : i64
    %o3 = llvm.lshr %o2, %c32 : i64
    %sh = llvm.shl %b64, %c16l : i64
    %o4 = llvm.or %o3, %sh : i64
    %w = llvm.trunc %o4 : i64 to i32
''',
 "v2f16": '''    %ta = llvm.trunc %a : i32 to i16
    %tb = llvm.trunc %b : i32 to i16
    %ha = llvm.bitcast %ta : i16 to f16
    %hb = llvm.bitcast %tb : i16 to f16
    %u = llvm.mlir.undef : vector<2xf16>
    %i0 = llvm.mlir.constant(0 : i32) : i32
    %v0 = llvm.insertelement %ha, %u[%i0 : i32] : vector<2xf16>
    %v1 = llvm.insertelement %hb, %v0[%c1 : i32] : vector<2xf16>
    %w = llvm.bitcast %v1 : vector<2xf16> to i32
''',
 "select_mask": '''    %y = llvm.shl %b, %c16 : i32
    %nm = llvm.mlir.constant(-65536 : i32) : i32
    %x = llvm.and %a, %ffff : i32
    %z = llvm.and %y, %nm : i32
    %w = llvm.or %x, %z : i32
''',
 "prmt_intrinsic": '''    %sel = llvm.mlir.constant(21520 : i32) : i32
    %w = llvm.call_intrinsic "llvm.nvvm.prmt"(%a, %b, %sel) : (i32, i32, i32) -> i32
''',
}

AMD_HEAD = """target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.perm(i32, i32, i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) inreg noalias %X, ptr addrspace(1) inreg noalias %Y) #0 {
  %t0 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %t = and i32 %t0, 1023
  %ad = shl i32 %t, 2
  %pa = getelementptr i32, ptr addrspace(1) %X, i32 %t
  %la = load i32, ptr addrspace(1) %pa
  %t2 = add i32 %t, 64
  %pb = getelementptr i32, ptr addrspace(1) %X, i32 %t2
  %lb = load i32, ptr addrspace(1) %pb
  %a = tail call i32 @llvm.amdgcn.ds.bpermute(i32 %ad, i32 %la)
  %b = tail call i32 @llvm.amdgcn.ds.bpermute(i32 %ad, i32 %lb)
"""
AMD_TAIL = """  %x = xor i32 %ad, 4
  %s = tail call i32 @llvm.amdgcn.ds.bpermute(i32 %x, i32 %w)
  %pq = getelementptr i32, ptr addrspace(1) %Y, i32 %t
  store i32 %s, ptr addrspace(1) %pq
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="1,512" "uniform-work-group-size" }
"""


def _v4(e: list[str]) -> str:
    """A ``<4 x i8>`` of the bytes ``e`` (low first) bitcast to ``i32`` as ``%w``."""
    s = f"  %v0 = insertelement <4 x i8> poison, i8 {e[0]}, i32 0\n"
    for i in range(1, 4):
        s += f"  %v{i} = insertelement <4 x i8> %v{i - 1}, i8 {e[i]}, i32 {i}\n"
    return s + "  %w = bitcast <4 x i8> %v3 to i32\n"


TR = "  %ta = trunc i32 %a to i8\n  %tb = trunc i32 %b to i8\n"
#: AMDGPU spellings: LLVM IR lines joining the low bytes of %a and %b into %w
AMD_SPELLINGS = {
 "triton_v2i16_zext": TR + """  %za = zext i8 %ta to i16
  %zb = zext i8 %tb to i16
  %v0 = insertelement <2 x i16> poison, i16 %za, i32 0
  %v1 = insertelement <2 x i16> %v0, i16 %zb, i32 1
  %w = bitcast <2 x i16> %v1 to i32
""",
 "and_and_shl16_or": """  %x1 = and i32 %a, 255
  %y0 = and i32 %b, 255
  %y1 = shl i32 %y0, 16
  %w = or i32 %x1, %y1
""",
 "and_and_shl8_or": """  %x1 = and i32 %a, 255
  %y0 = and i32 %b, 255
  %y1 = shl i32 %y0, 8
  %w = or i32 %x1, %y1
""",
 "and_shl8_or_garbage_top": """  %x1 = and i32 %a, 255
  %y1 = shl i32 %b, 8
  %w = or i32 %x1, %y1
""",
 "and_shl16_or_garbage_top": """  %x1 = and i32 %a, 255
  %y1 = shl i32 %b, 16
  %w = or i32 %x1, %y1
""",
 "and_shl16_or_garbage_mid": """  %x1 = and i32 %a, 65535
  %y1 = shl i32 %b, 16
  %w = or i32 %x1, %y1
""",
 "fshl16": """  %y1 = shl i32 %a, 16
  %w = call i32 @llvm.fshl.i32(i32 %b, i32 %y1, i32 16)
""",
 "fshl8": """  %y1 = shl i32 %a, 24
  %w = call i32 @llvm.fshl.i32(i32 %b, i32 %y1, i32 8)
""",
 "v4i8_abab": TR + _v4(["%ta", "%tb", "%ta", "%tb"]),
 "v4i8_ab_poison": TR + _v4(["%ta", "%tb", "poison", "poison"]),
 "v4i8_ab00": TR + _v4(["%ta", "%tb", "0", "0"]),
 "v4i8_a0b0": TR + _v4(["%ta", "0", "%tb", "0"]),
 "v4i8_aabb": TR + _v4(["%ta", "%ta", "%tb", "%tb"]),
 "v2i8_bitcast_i16_zext": TR + """  %v0 = insertelement <2 x i8> poison, i8 %ta, i32 0
  %v1 = insertelement <2 x i8> %v0, i8 %tb, i32 1
  %h = bitcast <2 x i8> %v1 to i16
  %w = zext i16 %h to i32
""",
 "v2i8_bitcast_i16_anyext": TR + """  %v0 = insertelement <2 x i8> poison, i8 %ta, i32 0
  %v1 = insertelement <2 x i8> %v0, i8 %tb, i32 1
  %h = bitcast <2 x i8> %v1 to i16
  %v2 = insertelement <2 x i16> poison, i16 %h, i32 0
  %w = bitcast <2 x i16> %v2 to i32
""",
 "bfi_mask": """  %y1 = shl i32 %b, 8
  %x1 = and i32 %a, 255
  %y2 = and i32 %y1, -256
  %w = or i32 %x1, %y2
""",
 "perm_intrinsic": """  %w = call i32 @llvm.amdgcn.perm(i32 %b, i32 %a, i32 201589764)
""",
}


def _nv_ops(ptx: str) -> list[str]:
    """The opcodes after the second input shuffle and before the shipping one."""
    ops = []
    for line in ptx.split("{", 1)[1].splitlines():
        s = line.strip()
        if s and not s.startswith(("//", ".", "{", "}", "$")) and not s.endswith(":"):
            ops.append(s.split()[0].rstrip(";"))
    shf = [i for i, o in enumerate(ops) if o.startswith("shfl.sync")]
    return ops[shf[1] + 1:shf[2]]


def _amd_ops(asm: str) -> list[str]:
    from swap_pack_isel import opcodes
    ops = [o for o in opcodes(asm) if not o.startswith(("s_waitcnt", "s_nop"))]
    ds = [i for i, o in enumerate(ops) if o.startswith("ds_bpermute")]
    # the shipping read's address (lane * 4 ^ 4) is lane arithmetic, not the join
    return [o for o in ops[ds[1] + 1:ds[2]] if not o.startswith("v_xor_b32")]


def nvptx(body: str, cc: int, o3: bool) -> list[str]:
    """The join's PTX opcodes for one spelling."""
    from triton._C.libtriton import ir, llvm
    from triton.backends.nvidia.compiler import get_llvm_flags

    ctx = ir.context()
    ir.load_dialects(ctx)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "join.mlir"
        path.write_text(NV_HEAD + body + NV_TAIL)
        mod = ir.parse_mlir_module(str(path), ctx)
    lctx = llvm.context()
    lm = llvm.to_module(mod, lctx)
    flags = get_llvm_flags()
    proc = f"sm_{cc}"
    llvm.attach_datalayout(lm, "nvptx64-nvidia-cuda", proc, "+ptx84", flags)
    if o3:
        llvm.optimize_module(lm, llvm.OPTIMIZE_O3, flags=flags)
    return _nv_ops(llvm.translate_to_asm(str(lm), "nvptx64-nvidia-cuda", proc, "+ptx84",
                                         flags, False, False, False))


def amdgcn(body: str, arch: str, o3: bool) -> list[str]:
    """The join's AMDGCN opcodes for one spelling."""
    from swap_pack_isel import compile_ir
    from triton._C.libtriton import llvm

    src = AMD_HEAD + body + AMD_TAIL
    asm = (compile_ir(src, arch) if o3 else
           llvm.translate_to_asm(src, "amdgcn-amd-amdhsa", arch, "", [], False, False, False))
    return _amd_ops(asm)


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm

    llvm.init_targets()
    probes = {}
    for name, body in NV_SPELLINGS.items():
        probes[f"nvptx/{name}"] = {f"sm_{cc}{'_o3' if o3 else ''}": nvptx(body, cc, o3)
                                   for cc in NV_TARGETS for o3 in (False, True)}
    for name, body in AMD_SPELLINGS.items():
        probes[f"amdgcn/{name}"] = {f"{arch}{'_o3' if o3 else ''}": amdgcn(body, arch, o3)
                                    for arch in AMD_TARGETS for o3 in (False, True)}
    probes.update(plan_probes())
    return {"triton_version": triton.__version__, "probes": probes}


def wide_plans():
    """``(name, arch, problem, plan)``: the packed exchange ``plan_packed_exchange`` builds
    with ``wide_source`` at 8 bits for every pair of the AMD exhaustive spaces
    (``packed_exchange_amdgcn.pairs``' 32-lane and 64-lane spaces) on gfx942 and gfx950."""
    from packed_exchange_amdgcn import lane_layout, wave_layout

    from linlayout.conversion import ConversionProblem, plan_packed_exchange
    from linlayout.hardware import AMD_CDNA3, AMD_CDNA4

    for arch, hw in (("gfx942", AMD_CDNA3), ("gfx950", AMD_CDNA4)):
        for space, layout, n in (("lanes", lane_layout, 5), ("wave", wave_layout, 4)):
            for order in itertools.permutations(range(n)):
                problem = ConversionProblem.make(layout(tuple(range(n))), layout(order), 8, hw)
                plan = plan_packed_exchange(problem, f"hip:{arch}", wide_source=True)
                if plan is not None:
                    yield f"{space}_{''.join(map(str, order))}", arch, problem, plan


def reaches_dst(ir: str, table: list[int], problem) -> bool:
    """Run the plan's IR on every lane, each source register's upper 24 bits filled with
    garbage (``ir_run.every_element_arrives``): does every element arrive?"""
    from ir_run import every_element_arrives

    return every_element_arrives(ir, table, 1 << problem.src.total_out_bits,
                                 1 << problem.lane_bits, garbage=True)


def plan_probes() -> dict:
    """Each wide 8-bit AMD plan written as LLVM IR (``packed_exchange_ir.llvm_ir`` with
    ``wide``), given to instruction selection (``llvm.translate_to_asm``, as the other plan
    probes of this folder) for its target, its ``ds_bpermute_b32`` (less the producer's
    one per source register), ``v_perm_b32`` and ``v_permlane*_swap_b32`` counted, and run
    on every lane."""
    from packed_exchange_ir import llvm_ir
    from triton._C.libtriton import llvm

    out = {}
    for name, arch, problem, plan in wide_plans():
        ir, table = llvm_ir(plan, problem, "amdgcn", wide=True)
        asm = llvm.translate_to_asm(ir, "amdgcn-amd-amdhsa", arch, "", [], False, False,
                                    False)
        ops = {op: len(re.findall(rf"^\s*{op}(?:_e32|_e64)?\s", asm, re.MULTILINE)) for op in
               ("ds_bpermute_b32", "v_perm_b32", "v_permlane16_swap_b32",
                "v_permlane32_swap_b32", "v_cndmask_b32")}
        ops["ds_bpermute_b32"] -= 1 << problem.register_bits[0]
        out[f"plan/{arch}/{name}"] = {"amdgcn": {k: n for k, n in ops.items() if n},
                                      "reaches_dst": reaches_dst(ir, table, problem)}
    return out


def problems(data: dict) -> list[str]:
    """What in ``data`` contradicts the result the docstring states (empty: none)."""
    bad = []
    plans = {f"plan/{arch}/{name}": plan for name, arch, _, plan in wide_plans()}
    for key, plan in plans.items():
        got = data["probes"].get(key)
        if got is None or not got["reaches_dst"] or got["amdgcn"] != plan.opcodes:
            bad.append(f"{key}: compiled {got}, planned {plan.opcodes}")
    for key, runs in data["probes"].items():
        if key.startswith("plan/"):
            if key not in plans:
                bad.append(f"{key}: no longer planned")
            continue
        backend, name = key.split("/")
        for run, ops in runs.items():
            if backend == "nvptx":
                prmt = sum(o == "prmt.b32" for o in ops)
                if name in NV_VECTOR and ops != ["prmt.b32"]:
                    bad.append(f"{key} {run}: {ops}, not one prmt.b32")
                elif not ops or (not prmt and len(ops) < 2):
                    bad.append(f"{key} {run}: {ops}, fewer than one prmt or two instructions")
            else:
                perm = sum(o == "v_perm_b32" for o in ops)
                if name == "triton_v2i16_zext" and perm != 1:
                    bad.append(f"{key} {run}: {ops}, not one v_perm_b32")
                if name in AMD_FREE_JOINS:
                    pair = data["probes"]["amdgcn/triton_v2i16_zext"][run]
                    if perm or len(ops) > len(pair):
                        bad.append(f"{key} {run}: {ops}, a v_perm_b32 or more than {pair}")
    return bad


def compare(data: dict) -> int:
    bad = problems(data)
    for line in bad:
        print(line)
    print("joins as stated" if not bad else f"{len(bad)} differences")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv, compare)


if __name__ == "__main__":
    sys.exit(main())
