"""Where a convert's source elements sit when it starts: for a tensor a global load
produced, the dim along which the load read consecutive addresses and how far (AxisInfo's
contiguity of the pointer). On AMD, packing 8/16-bit elements for a shuffle is free where the
load already put them in one 32-bit register (:mod:`linlayout.lowering.amd_pack`). For a
tensor a gather or a reduction produced, whether each 8/16-bit element was left in a 32-bit
register (:func:`wide_sources`): packing it then costs what packing halves of 32-bit registers
costs. For a tensor an AMD scan or reduction produced, what each result register holds
(:func:`produced_values`): ``f16`` values LLVM knows canonical pack with ``v_pack_b32_f16``,
computed bytes with shifts and SDWA ors."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..._checks import instance_of, sequence_of
from ...errors import LayoutError
from ...lowering.target import Target
from ...triton.axisinfo import ModuleAxisInfo
from ...triton.ttgir import Access, TTGIRModule
from ._args import module_axis
from .gather import gather_leaves_words
from .reduce import reduce_leaves_scalars, reduce_leaves_words, reduce_result_values
from .scan import scan_result_values

__all__ = ["load_sources", "load_vectors", "produced_values", "scalar_sources", "truncated_sources",
           "wide_sources"]
_REVERSE = re.compile(r"reverse\s*=\s*true")

_AXIS = re.compile(r"axis\s*=\s*(\d+)")

_RESULT = re.compile(r"^\s*(%[\w$.-]+)\s*=")
_LOADS = ("load", "buffer_load")
_TRUNCI = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.trunci\s+%[\w$.-]+\s*:\s*"
                     r"tensor<(?:\d+x)+i32\b[^\n]*?\s+to\s+tensor<(?:\d+x)+i16\b", re.M)
_TRUNCF = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.truncf\s+%[\w$.-]+\s*:\s*"
                     r"tensor<(?:\d+x)+f32\b[^\n]*?\s+to\s+tensor<(?:\d+x)+(?:f16|bf16)\b",
                     re.M)


def load_sources(module: TTGIRModule, axis: ModuleAxisInfo | None = None
                 ) -> dict[str, tuple[int, int]]:
    """``{SSA name of a global load's result: (dim, contiguity_elems)}``: the tensor dim
    along which the load's pointer (for AMD buffer loads, its offsets) runs over consecutive
    addresses, the one with the largest AxisInfo contiguity, and that contiguity. Loads whose
    pointer is contiguous along no dim are left out.

    Raises:
        LayoutError: ``module`` is not a TTGIR module or ``axis`` not a ModuleAxisInfo.
    """
    axis = module_axis(module, axis)
    out: dict[str, tuple[int, int]] = {}
    for op in axis.global_ops:
        m = _RESULT.match(op.text)
        info = axis.info(op.pointer)
        if op.short not in _LOADS or m is None or info is None:
            continue
        contig = info.contiguity
        dim = max(range(len(contig)), key=lambda d: contig[d])
        if contig[dim] > 1:
            out[m.group(1)] = (dim, contig[dim])
    return out


def load_vectors(module: TTGIRModule, target: Target, axis: ModuleAxisInfo | None = None
                 ) -> dict[str, int]:
    """``{SSA name of a global load's result: elements per vector}``: the ``<vec x T>`` each
    global load (``tt.load``, ``amdg.buffer_load``) reads in Triton's LLVM IR, before LLVM's
    passes join any: AxisInfo's alignment and contiguity, at most 128 bits, cut by a mask's
    alignment (:func:`linlayout.check.global_memory.predict.predict_global`; a pointer
    argument without ``tt.divisibility`` gives 1). Loads not analysed are left out.

    Raises:
        LayoutError: ``module`` is not a TTGIR module, ``target`` not a Target or ``axis``
            not a ModuleAxisInfo.

    Source: ``LoadOpConversion``/``BufferLoadOpConversion`` (``getVectorSize``,
    ``LoadStoreOpToLLVM.cpp``), Triton 3.9.
    """
    from ..global_memory.predict import predict_global

    instance_of(target, Target, "target")
    axis = module_axis(module, axis)
    out: dict[str, int] = {}
    for op in axis.global_ops:
        m = _RESULT.match(op.text)
        if op.short not in _LOADS or m is None:
            continue
        try:
            out[m.group(1)] = predict_global(op, axis, target).vector_elems
        except LayoutError:
            continue
    return out


def truncated_sources(module: TTGIRModule) -> frozenset[str]:
    """SSA names of ``arith.truncf`` results that narrow ``f32`` tensors to ``f16``/``bf16``,
    whatever their encoding (a ``#ttg.slice<{...}>`` written inline included).
    On AMD a convert of such a value packs for free: LLVM converts each pair of 32-bit values
    and packs them in one step (``v_cvt_pk_f16_f32``, or two conversions and
    ``v_pack_b32_f16``), so no ``v_perm_b32`` assembles the packed registers
    (:func:`linlayout.lowering.convert_path`, ``packed_source``; measured on compiled
    gfx942/gfx950 converts, ``papers/triton_lowering/cvt_heldout_probes.py``, and on 5
    exploration converts of a truncated ``f32`` reduction result, a slice layout).

    Raises:
        LayoutError: ``module`` is not a TTGIR module.
    """
    instance_of(module, TTGIRModule, "module")
    return frozenset(m.group(1) for m in _TRUNCF.finditer(module.text))


def truncated_words(module: TTGIRModule, target: Target) -> frozenset[str]:
    """SSA names of ``arith.trunci`` results that narrow ``i32`` tensors to ``i16``, on
    NVIDIA: each element stays the low half of its 32-bit register (NVPTX selects such a
    ``trunc`` as no instruction), so a convert that packs two of them into a word pays one
    ``prmt.b32`` (``build_vector`` of two truncations), as for the producers of
    :func:`wide_sources`. Empty on AMD: AMDGPU builds a word of two truncations with one
    ``v_perm_b32``, as it does two loaded 16-bit elements in separate registers, which a
    convert counts without this (8 exploration gfx942/gfx950 converts equal to Triton's
    lowering; ``docs/triton-lowering.md``).

    Raises:
        LayoutError: ``module`` is not a TTGIR module or ``target`` not a Target.

    Source: NVPTX's selection of ``trunc i32 to i16`` and ``build_vector`` (LLVM, not
    Triton); measured on the lowering of compiled Gluon converts of ``i32`` tiles truncated
    to ``i16`` or ``i8`` (cuda:80/90, through shared memory and by shuffles: written from 20,
    then 50 more all equal), found on a held-out draw
    (``papers/triton_lowering/register_redraw_probes.py --confirm``: a promoted ``i16`` sum
    truncated back).
    """
    instance_of(module, TTGIRModule, "module")
    instance_of(target, Target, "target")
    if not target.is_nvidia:
        return frozenset()
    return frozenset(m.group(1) for m in _TRUNCI.finditer(module.text))


def wide_sources(accesses: Sequence[Access], target: Target) -> frozenset[str]:
    """SSA names of the 8- and 16-bit results that their producer leaves one to a 32-bit
    register with the upper bits unknown: a warp-local ``tt.gather`` whose results are
    truncated 32-bit shuffle results (:func:`~.gather.gather_leaves_words`) and a one-operand
    ``tt.reduce`` whose last round is a ``redux.sync`` (:func:`~.reduce.reduce_leaves_words`).
    A convert of such a value pays for packing it (``wide_source`` of
    :func:`linlayout.lowering.convert_path`): on NVIDIA one ``prmt.b32`` per 32-bit word of two
    16-bit elements, where elements in 16-bit registers pack for nothing. Loads, scans,
    butterfly reductions, gathers through shared memory and elementwise ops leave elements
    in registers of their width (``ld.global``, ``selp.b16``, ``max.s16``), and a value
    reached through any other op is not followed.

    Args:
        accesses: the module's accesses (:func:`linlayout.triton.find_accesses`).
        target: the compilation target.

    Raises:
        LayoutError: ``accesses`` not Access records or ``target`` not a Target.

    Source: ``GatherOpToLLVM.cpp``, ``ReduceOpToLLVM.cpp`` and NVPTX's selection of
    ``trunc``/``build_vector`` (LLVM, not Triton); measured on compiled kernels
    (``papers/triton_lowering/producer_probes.py``).
    """
    accesses = sequence_of(accesses, Access, "accesses")
    instance_of(target, Target, "target")
    out = set()
    for a in accesses:
        if a.op not in ("gather", "reduce") or not a.result or ":" in a.result \
                or a.distributed is None or a.element_bits not in (8, 16):
            continue
        m = _AXIS.search(a.attrs)
        if m is None:
            continue
        try:
            operand = a.distributed.layout
            if a.op == "gather":
                if len(a.operand_types) != 2:
                    continue
                wide = gather_leaves_words(operand, a.operand_types[1].layout, int(m.group(1)),
                                           a.element_bits, target)
            else:
                if len(a.operand_types) != 1:
                    continue
                result = a.destination.layout if a.destination is not None and \
                    a.destination.kind == "tensor" else None
                wide = reduce_leaves_words(operand, result, int(m.group(1)), a.element_bits,
                                           target, a.combiner)
        except LayoutError:
            continue  # the op itself is reported as not analysed
        if wide:
            out.add(a.result)
    return frozenset(out)


def scalar_sources(accesses: Sequence[Access], target: Target) -> frozenset[str]:
    """SSA names of the 16-bit results that an AMD ``tt.reduce`` over all 64 lanes leaves in
    scalar registers (:func:`~.reduce.reduce_leaves_scalars`): a convert packs them for
    nothing (``s_pack_ll_b32_b16``), as it does a float truncation's
    (:func:`truncated_sources`; ``packed_source`` of :func:`linlayout.lowering.convert_path`).

    Raises:
        LayoutError: ``accesses`` not Access records or ``target`` not a Target.

    Source: ``TargetInfo::warpReduce`` of the AMD backend, Triton 3.9, as LLVM's AMDGPU back
    end selects it; measured on compiled kernels (``papers/triton_lowering/producer_probes.py``).
    """
    accesses = sequence_of(accesses, Access, "accesses")
    instance_of(target, Target, "target")
    out = set()
    for a in accesses:
        if a.op != "reduce" or not a.result or ":" in a.result or a.distributed is None \
                or a.element_bits != 16 or len(a.operand_types) != 1:
            continue
        m = _AXIS.search(a.attrs)
        if m is None:
            continue
        try:
            result = a.destination.layout if a.destination is not None and \
                a.destination.kind == "tensor" else None
            if reduce_leaves_scalars(a.distributed.layout, result, int(m.group(1)),
                                     a.element_bits, target):
                out.add(a.result)
        except LayoutError:
            continue  # the op itself is reported as not analysed
    return frozenset(out)


def produced_values(accesses: Sequence[Access], target: Target) -> dict[str, tuple[str, ...]]:
    """``{SSA name: kinds}``: for the 8- and 16-bit results of one-operand ``tt.scan`` and
    ``tt.reduce`` ops on AMD, what each non-broadcast result register holds
    (:data:`linlayout.lowering.amd_pack.VALUE_KINDS`, in register order:
    :func:`~.scan.scan_result_values`, :func:`~.reduce.reduce_result_values`). A convert of
    such a value packs as they say (``source_values`` of
    :func:`linlayout.lowering.convert_path`): two ``f16`` values LLVM knows canonical with one
    ``v_pack_b32_f16`` (no ``v_perm_b32``), bytes computed in 32-bit registers with shifts and
    SDWA ors. Ops not modelled are left out (their converts count as before: one element per
    register, as loaded).

    Raises:
        LayoutError: ``accesses`` not Access records or ``target`` not a Target.

    Source: ``ScanOpToLLVM.cpp``, ``ReduceOpToLLVM.cpp`` (Triton 3.9) as LLVM's AMDGPU back
    end selects the packing (``isCanonicalized``, ``v_pack_b32_f16``, byte-provider
    ``v_perm_b32``); measured on compiled kernels
    (``papers/triton_lowering/producer_probes.py``, ``amd_producer_probes.py``).
    """
    accesses = sequence_of(accesses, Access, "accesses")
    instance_of(target, Target, "target")
    out: dict[str, tuple[str, ...]] = {}
    if target.is_nvidia:
        return out
    for a in accesses:
        if a.op not in ("scan", "reduce") or not a.result or ":" in a.result \
                or a.distributed is None or a.element_bits not in (8, 16) \
                or len(a.operand_types) != 1:
            continue
        m = _AXIS.search(a.attrs)
        if m is None:
            continue
        try:
            if a.op == "scan":
                kinds = scan_result_values(a.distributed.layout, int(m.group(1)),
                                           a.element_bits, a.element_type, target, a.combiner,
                                           bool(_REVERSE.search(a.attrs)))
            else:
                result = a.destination.layout if a.destination is not None and \
                    a.destination.kind == "tensor" else None
                kinds = reduce_result_values(a.distributed.layout, result, int(m.group(1)),
                                             a.element_bits, a.element_type, target,
                                             a.combiner)
        except LayoutError:
            continue  # the op itself is reported as not analysed
        if kinds is not None:
            out[a.result] = kinds
    return out
