"""Which global-memory instructions Triton 3.9 emits for each global op, and how wide.

NVIDIA (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp``, Triton 3.9):
``tt.load``/``tt.store`` move ``vec = min(128 / pointee bits, getContiguity(ptr))`` elements per
instruction, cut to the mask's alignment when masked; each vector is one inline-asm
``ld.global``/``st.global`` of ``nWords`` words of ``min(vec · bits, max(32, bits))`` bits
(``ld.global.v4.b32``, ``ld.global.b16``, ``st.global.v2.b64`` …), with the cache modifier
(``.ca``/``.cg``/``.cs``/``.cv``; stores ``.wb``/``.cg``/``.cs``/``.wt``) in the opcode, one per
``vec`` distinct elements a thread holds (``getUniqueElemsPerThread``).
``ttg.async_copy_global_to_local`` (``AsyncCopyGlobalToLocalOpConversion``) takes
``max(min(getContiguity(src), mask alignment), contiguity attribute)`` elements, at most 16
bytes: ``cp.async.cg.shared.global`` for 16 bytes, ``.ca`` for 4 and 8.

AMD (``third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp`` and ``Utility.cpp``):
the same vector rule (``getVectorSize``) for ``tt.load``/``tt.store``, emitted as LLVM vector
loads the backend selects as ``global_load_dword``/``dwordx2``/``dwordx4``,
``global_load_ushort``/``ubyte`` (stores ``global_store_*``); ``amdg.buffer_load``/
``buffer_store`` take the offsets' contiguity and the base pointer's alignment
(``getVectorSize(ptr, offset)``) and become ``buffer_load_*``/``buffer_store_*``.
Atomics move one element per instruction here (Triton packs ``f16x2`` and, on sm_90, vectors
of ``fadd``; such ops are marked as approximate in their note).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import LayoutError
from ...lowering.target import Target
from ...triton.axisinfo import (GlobalOp, ModuleAxisInfo, contiguity, mask_alignment,
                                pointee_bits, unique_registers)

__all__ = ["GlobalPrediction", "amd_global_name", "nvidia_global_name", "predict_global"]


@dataclass(frozen=True)
class GlobalPrediction:
    """The instruction one global op lowers to.

    Attributes:
        side: ``"load"``, ``"store"`` (``cp.async`` reads global: ``"load"``) or
            ``"atomic"``.
        opcode: Triton's opcode (``"ld.global.v4.b32"``, ``"global_load_dwordx4"``,
            ``"cp.async.cg.shared.global"``).
        per_thread: instructions per thread.
        vector_elems: elements per instruction and lane.
        element_bits: bits per element in memory.
        vector_bytes: bytes per instruction and lane.
        contiguity: ``getContiguity`` of the pointer (elements), before the mask.
        mask_alignment: the mask's alignment (None without a mask).
        note: what limited the vector, or why the count is approximate.
    """

    side: str
    opcode: str
    per_thread: int
    vector_elems: int
    element_bits: int
    vector_bytes: int
    contiguity: int
    mask_alignment: int | None
    note: str = ""


def nvidia_global_name(side: str, vec: int, bits: int, attrs: str = "") -> str:
    """The ``ld.global``/``st.global`` opcode of ``vec`` elements of ``bits`` bits.

    Source: ``LoadOpConversion``/``StoreOpConversion`` (``maxWordWidth = max(32, bits)``,
    ``width = min(vec · bits, maxWordWidth)``, ``nWords = vec · bits / width``).
    """
    total = vec * bits
    width = min(total, max(32, bits))
    words = max(1, total // width)
    mods = ""
    if side == "load" and re.search(r"isVolatile\s*=\s*true", attrs):
        mods += ".volatile"
    m = re.search(r"(?:cacheModifier|cache_modifier)\s*=\s*(\w+)", attrs)
    cache = m.group(1).lower() if m else ""
    allowed = ("ca", "cg", "cs", "cv") if side == "load" else ("wb", "cg", "cs", "wt")
    base = "ld" if side == "load" else "st"
    name = f"{base}{'.volatile' if mods else ''}.global"
    if cache in allowed:
        name += f".{cache}"
    m = re.search(r"(?:evictionPolicy|eviction_policy)\s*=\s*(\w+)", attrs)
    ev = m.group(1).lower() if m else ""
    if ev in ("evict_first", "evict_last"):
        name += f".L1::{ev}.L2::cache_hint"
    return f"{name}{f'.v{words}' if words > 1 else ''}.b{width}"


def amd_global_name(side: str, nbytes: int, buffer: bool = False) -> str:
    """``global_load_dwordx4``/``global_store_short``/``buffer_load_dword`` … of ``nbytes``
    bytes (the instruction LLVM's AMDGPU backend selects for that vector)."""
    kind = "buffer" if buffer else "global"
    verb = "load" if side == "load" else "store"
    if nbytes >= 4:
        n = nbytes // 4
        suffix = "dword" if n == 1 else f"dwordx{n}"
    elif nbytes == 2:
        suffix = "ushort" if side == "load" else "short"
    else:
        suffix = "ubyte" if side == "load" else "byte"
    return f"{kind}_{verb}_{suffix}"


def predict_global(op: GlobalOp, axis: ModuleAxisInfo, target: Target) -> GlobalPrediction:
    """The instruction ``op`` lowers to on ``target``, from its AxisInfo.

    Raises:
        LayoutError: the op is a scalar atomic or buffer op, has no encoding, or its layout
            has no linear form.
    """
    ptype = op.pointer_type
    if (ptype is None or ptype.kind != "tensor") and op.short in ("load", "store"):
        return _scalar(op, target)
    if ptype is None or ptype.kind != "tensor" or ptype.encoding is None:
        raise LayoutError(f"{op.name} at line {op.line}: a scalar or unencoded access "
                          "(one instruction per thread; not analysed)")
    short = op.short
    bits_ax = pointee_bits(op.element_type or ptype.element_type)
    bits = max(8, bits_ax)
    buffer = short.startswith("buffer")
    info = axis.info(op.pointer)
    if buffer:
        contig = contiguity(info, ptype, bits_ax)
        base = axis.info(op.base)
        if base is not None:
            contig = min(contig, max(1, base.divisibility[0] // max(1, bits_ax // 8)))
    else:
        contig = contiguity(info, ptype, bits_ax)
    vec = max(1, min(128 // bits, contig))
    malign = None
    note = ""
    if op.mask is not None:
        malign = mask_alignment(axis.info(op.mask), ptype)
        if malign < vec:
            note = f"vector cut from {vec} to {malign} by the mask's alignment"
        vec = min(vec, malign)
    elems = unique_registers(ptype)
    if short in ("async_copy_global_to_local", "buffer_load_to_local"):
        m = re.search(r"contiguity\s*=\s*(\d+)", op.attrs)
        hint = int(m.group(1)) if m else 1
        vec = max(1, min(max(vec, hint), 128 // bits))
        if target.is_nvidia:
            nbytes = vec * bits // 8
            if nbytes < 4:
                raise LayoutError(f"cp.async of {nbytes} bytes per lane (vector {vec}): "
                                  "Triton refuses copies under 4 bytes")
            name = "cp.async.cg.shared.global" if nbytes == 16 else "cp.async.ca.shared.global"
            return GlobalPrediction("load", name, elems // vec, vec, bits, nbytes, contig,
                                    malign, note)
        raise LayoutError("AMD direct-to-LDS copies are counted with the shared-memory ops")
    side = "load" if short in ("load", "buffer_load") else \
        "store" if short in ("store", "buffer_store") else "atomic"
    if side == "atomic":
        return _atomic(op, target, elems, vec, bits, contig, malign, buffer)
    nbytes = vec * bits // 8
    if target.is_nvidia:
        name = nvidia_global_name(side, vec, bits, op.attrs)
    else:
        name = amd_global_name(side, nbytes, buffer)
    return GlobalPrediction(side, name, max(1, elems // vec), vec, bits, nbytes, contig, malign,
                            note)


def _scalar(op: GlobalOp, target: Target) -> GlobalPrediction:
    """A ``tt.load``/``tt.store`` of one scalar (``!tt.ptr<T>``, no tensor): one access of
    one element per thread, predicated to one lane by Triton (``LoadOpConversion`` /
    ``StoreOpConversion`` in ``third_party/{nvidia,amd}/lib/TritonGPUToLLVM/
    LoadStoreOpToLLVM.cpp`` count a scalar as one element per thread, vector 1)."""
    side = op.short
    bits = max(8, pointee_bits(op.element_type))
    if target.is_nvidia:
        name = nvidia_global_name(side, 1, bits, op.attrs)
    else:
        name = amd_global_name(side, bits // 8)
    return GlobalPrediction(side, name, 1, 1, bits, bits // 8, 1, None,
                            "a scalar access: one element per thread")


def _atomic(op: GlobalOp, target: Target, elems: int, vec: int, bits: int, contig: int,
            malign: int | None, buffer: bool) -> GlobalPrediction:
    """``tt.atomic_rmw``/``tt.atomic_cas``: on NVIDIA ``vec`` elements per instruction only for
    ``fadd`` of f16/bf16/f32 on sm_90+, else one element (two for ``f16``: ``f16x2``); ``red``
    when the result is unused and the order is ``relaxed``/``release`` (not ``exch``), else
    ``atom`` (``AtomicRMWOpConversion``; CAS: one element each)."""
    m = re.match(r"\s*(\w+)\s*,\s*(\w+)", op.text.split(op.name, 1)[-1])
    kind, sem = (m.group(1), m.group(2)) if m and op.short == "atomic_rmw" else ("cas", "")
    per = vec
    if op.short == "atomic_cas":
        per = 1
    elif not (target.is_nvidia and target.cc >= 90 and kind == "fadd"
              and op.element_type in ("f16", "bf16", "f32")):
        per = min(vec, 2) if op.element_type == "f16" else 1
    if target.is_nvidia:
        red = (not op.result_used and kind != "exch" and sem in ("relaxed", "release")
               and op.short == "atomic_rmw")
        name = "red.global" if red else "atom.global"
    else:
        name = "buffer_atomic" if buffer else "global_atomic"
    return GlobalPrediction("atomic", name, max(1, elems // per), per, bits, per * bits // 8,
                            contig, malign, "atomics are named by family (atom/red)")
