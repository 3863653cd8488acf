#!/usr/bin/env python
"""What AMD's back end spends joining two zero-extended bytes, held one to a register, into
the 32-bit word a ``ds_bpermute_b32`` ships: the packing step of the 8-bit packed exchange
(``linlayout/conversion/exchange.py``) and of Triton 3.9's ``transferWithinWarp``.

Run with Triton 3.9.0 installed (CPU only, seconds)::

    python papers/conversion/amd_byte_join.py          # writes tests/data/conversion_amd_byte_join.json.gz
    python papers/conversion/amd_byte_join.py --check  # compare, write nothing

Three probes, each compiled for gfx942, their AMDGCN's ``v_perm_b32``, ``v_lshl_or_b32``
and ``ds_bpermute_b32`` counted:

* ``triton_lane_swap``: Triton's own pipeline (``triton.compile`` of a TTGIR kernel) on an
  8-bit ``convert_layout`` of a 64-lane wavefront that swaps lane bits 3 and 4, the two
  source bytes loaded one to a register (``global_load_ubyte``). Triton packs them as a
  ``<2 x i16>`` of zero-extended bytes; its ``-O3`` (``llvm.optimize_module`` in
  ``triton/backends/amd/compiler.py``'s ``make_llir``, before instruction selection)
  rewrites that as ``zext`` to ``i32``, ``shl 16``, ``or``, recorded as ``llir_pack``;
* ``codegen_v2i16`` and ``codegen_shl_or``: the same two loaded bytes joined and shipped by
  one ``llvm.amdgcn.ds.bpermute``, written as LLVM IR in each of those two spellings and
  given straight to instruction selection (``llvm.translate_to_asm``, as
  ``packed_exchange_amdgcn.py`` does: no ``-O3``);
* ``codegen_swap_shl_or`` (gfx950): the packed exchange that starts with a swap
  (``RegisterSwap``): two loaded bytes, each zero-extended to ``i32``, swapped by one
  ``llvm.amdgcn.permlane16.swap``, its two outputs joined by ``shl 16`` and ``or`` (the
  swap moves whole registers, so their upper bits are still zero), the word shipped by one
  ``llvm.amdgcn.ds.bpermute`` whose per-lane address comes from a table, and its two bytes
  stored; counted also for ``v_permlane16_swap_b32`` and ``v_cndmask_b32``.

Result: Triton's pipeline joins the bytes with one ``v_lshl_or_b32`` and no ``v_perm_b32``
— a VALU instruction that no cost kind of ``linlayout.conversion.cost`` counts, for
Triton's path as for the plans; the ``<2 x i16>`` spelling without ``-O3`` is one
``v_perm_b32`` (selector ``0x05040100``, the bytes matched as byte providers), the
``-O3`` spelling one ``v_lshl_or_b32``. So the packed exchange's IR probe spells its 8-bit
pairs as ``-O3`` leaves them, and the plan prices the pair as the model prices Triton's.
The swap probe holds one ``v_permlane16_swap_b32``, one ``v_lshl_or_b32``, one
``ds_bpermute_b32``, no ``v_perm_b32`` and no ``v_cndmask_b32``: the swap and the read the
plan counts, the join it prices at nothing.
``tests/conversion/test_exchange.py`` replays the fixture without Triton. Exits 1 when a
count differs from those.
"""

from __future__ import annotations

import os
import pathlib
import re
import sys
import tempfile

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "conversion_amd_byte_join.json.gz"
OPS = {op: re.compile(rf"^\s*{op}\b", re.M)
       for op in ("v_perm_b32", "v_lshl_or_b32", "ds_bpermute_b32")}
#: the counts each probe must show
EXPECTED = {"triton_lane_swap": {"v_perm_b32": 0, "v_lshl_or_b32": 1, "ds_bpermute_b32": 1},
            "codegen_v2i16": {"v_perm_b32": 1, "v_lshl_or_b32": 0, "ds_bpermute_b32": 1},
            "codegen_shl_or": {"v_perm_b32": 0, "v_lshl_or_b32": 1, "ds_bpermute_b32": 1},
            "codegen_swap_shl_or": {"v_perm_b32": 0, "v_lshl_or_b32": 1, "ds_bpermute_b32": 1,
                                    "v_permlane16_swap_b32": 1, "v_cndmask_b32": 0}}
#: the opcodes counted in the swap probe (with their ``_e32``/``_e64`` encoding suffix)
SWAP_OPS = {op: re.compile(rf"^\s*{op}(?:_e32|_e64)?\b", re.M)
            for op in ("v_perm_b32", "v_lshl_or_b32", "ds_bpermute_b32",
                       "v_permlane16_swap_b32", "v_cndmask_b32")}

TEMPLATE = """#src = #ttg.linear<{src}>
#dst = #ttg.linear<{dst}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:{arch}", "ttg.threads-per-warp" = 64 : i32}} {{
  tt.func public @g_cvt(%X: !tt.ptr<{ty}>, %Y: !tt.ptr<{ty}>) attributes {{noinline = false}} {{
    %r = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #src>
    %p = tt.splat %X : !tt.ptr<{ty}> -> tensor<{n}x!tt.ptr<{ty}>, #src>
    %q = tt.addptr %p, %r : tensor<{n}x!tt.ptr<{ty}>, #src>, tensor<{n}xi32, #src>
    %x = tt.load %q : tensor<{n}x!tt.ptr<{ty}>, #src>
    %y = ttg.convert_layout %x : tensor<{n}x{ty}, #src> -> tensor<{n}x{ty}, #dst>
    %d = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #dst>
    %s = tt.splat %Y : !tt.ptr<{ty}> -> tensor<{n}x!tt.ptr<{ty}>, #dst>
    %t = tt.addptr %s, %d : tensor<{n}x!tt.ptr<{ty}>, #dst>, tensor<{n}xi32, #dst>
    tt.store %t, %y : tensor<{n}x!tt.ptr<{ty}>, #dst>
    tt.return
  }}
}}
"""


def convert_ttgir(src, dst, element_bits: int = 8, arch: str = "gfx942") -> str:
    """The TTGIR of a one-wavefront kernel that loads a 1-D ``i{element_bits}`` tensor in
    layout ``src`` (a :class:`~linlayout.LinearLayout` onto ``dim0``, register and lane
    bases only), converts it to ``dst`` and stores it: Triton's own lowering of that
    ``convert_layout`` on ``arch``."""
    def body(layout) -> str:
        groups = ", ".join(f"{d} = {[list(v) for v in layout.bases.get(d, [])]}"
                           for d in ("register", "lane", "warp", "block"))
        return "{" + groups.replace("'", "") + "}"

    return TEMPLATE.format(src=body(src), dst=body(dst), arch=arch, ty=f"i{element_bits}",
                           n=src.out_dims["dim0"])


def _lane_swap():
    """The gfx942 probe's pair: lane bits 3 and 4 of a 64-lane wavefront swapped."""
    from linlayout import LinearLayout

    def wave(lanes):
        return LinearLayout({"register": [[8]], "lane": [[0]] * 3 + [[b] for b in lanes]},
                            {"dim0": 16})
    return wave((1, 2, 4)), wave((2, 1, 4))


HEAD = """target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %t8 = add i32 %t, 8
  %p0 = getelementptr i8, ptr addrspace(1) %in, i32 %t
  %p1 = getelementptr i8, ptr addrspace(1) %in, i32 %t8
  %e0 = load i8, ptr addrspace(1) %p0
  %e1 = load i8, ptr addrspace(1) %p1
"""
PACK = {
    "codegen_v2i16": """  %h0 = zext i8 %e0 to i16
  %h1 = zext i8 %e1 to i16
  %a = insertelement <2 x i16> undef, i16 %h0, i32 0
  %b = insertelement <2 x i16> %a, i16 %h1, i32 1
  %w = bitcast <2 x i16> %b to i32
""",
    "codegen_shl_or": """  %h0 = zext i8 %e0 to i32
  %h1 = zext i8 %e1 to i32
  %h1s = shl nuw nsw i32 %h1, 16
  %w = or disjoint i32 %h1s, %h0
""",
}
TAIL = """  %x = xor i32 %t, 1
  %sl = shl i32 %x, 2
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %sl, i32 %w)
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %r, ptr addrspace(1) %o
  ret void
}
"""

SWAP_IR = """target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.workitem.id.x()
declare {i32, i32} @llvm.amdgcn.permlane16.swap(i32, i32, i1 immarg, i1 immarg)
define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out,
                             ptr addrspace(1) %table) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %t64 = add i32 %t, 64
  %p0 = getelementptr i8, ptr addrspace(1) %in, i32 %t
  %p1 = getelementptr i8, ptr addrspace(1) %in, i32 %t64
  %e0 = load i8, ptr addrspace(1) %p0
  %e1 = load i8, ptr addrspace(1) %p1
  %h0 = zext i8 %e0 to i32
  %h1 = zext i8 %e1 to i32
  %s = call {i32, i32} @llvm.amdgcn.permlane16.swap(i32 %h0, i32 %h1, i1 false, i1 false)
  %a = extractvalue {i32, i32} %s, 0
  %b = extractvalue {i32, i32} %s, 1
  %bs = shl i32 %b, 16
  %w = or i32 %bs, %a
  %pa = getelementptr i32, ptr addrspace(1) %table, i32 %t
  %addr = load i32, ptr addrspace(1) %pa
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %w)
  %lo = trunc i32 %r to i8
  %r16 = lshr i32 %r, 16
  %hi = trunc i32 %r16 to i8
  %o0 = getelementptr i8, ptr addrspace(1) %out, i32 %t
  %o1 = getelementptr i8, ptr addrspace(1) %out, i32 %t64
  store i8 %lo, ptr addrspace(1) %o0
  store i8 %hi, ptr addrspace(1) %o1
  ret void
}
"""


def counts(asm: str, ops: dict = OPS) -> dict[str, int]:
    """The instructions of interest (``ops``) in the assembly."""
    return {k: len(p.findall(asm)) for k, p in ops.items()}


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm
    from triton.backends.compiler import GPUTarget

    llvm.init_targets()
    probes = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "lane_swap.ttgir"
        path.write_text(convert_ttgir(*_lane_swap()))
        kernel = triton.compile(str(path), target=GPUTarget("hip", "gfx942", 64))
    llir = kernel.asm["llir"]
    probes["triton_lane_swap"] = {
        "amdgcn": counts(kernel.asm["amdgcn"]),
        "llir_pack": {"v2i16": "<2 x i16>" in llir,
                      "shl_16": bool(re.search(r"shl nuw nsw i32 %\w+, 16", llir))}}
    for name, body in PACK.items():
        asm = llvm.translate_to_asm(HEAD + body + TAIL, "amdgcn-amd-amdhsa", "gfx942", "", [],
                                    False, False, False)
        probes[name] = {"amdgcn": counts(asm)}
    asm = llvm.translate_to_asm(SWAP_IR, "amdgcn-amd-amdhsa", "gfx950", "", [], False, False,
                                False)
    probes["codegen_swap_shl_or"] = {"amdgcn": counts(asm, SWAP_OPS)}
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """Print each probe beside the expected counts; 1 on a difference."""
    bad = 0
    for name, want in EXPECTED.items():
        got = data["probes"][name]["amdgcn"]
        bad += got != want
        print(f"{name}: {got}" + ("" if got == want else f"  <-- expected {want}"))
    pack = data["probes"]["triton_lane_swap"]["llir_pack"]
    print(f"Triton's LLVM IR after -O3: <2 x i16> left {pack['v2i16']}, shl 16 {pack['shl_16']}")
    bad += pack != {"v2i16": False, "shl_16": True}
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    data: dict = {}

    def built() -> dict:
        data.update(build())
        return data

    rc = main_for(__doc__, OUT, built, argv)
    return rc or compare(data)


if __name__ == "__main__":
    sys.exit(main())
