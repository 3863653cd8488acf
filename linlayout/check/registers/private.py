"""The lane exchanges of ``tt.reduce`` and ``tt.scan`` added to their shared-memory
prediction (:func:`with_registers`)."""

from __future__ import annotations

from dataclasses import replace

from ..._checks import instance_of, sequence_of, string
from ...layout import LinearLayout
from ...lowering.amd_pack import CANONICAL
from ...lowering.byte_extracts import word_extract_permutes
from ...lowering.emitted import Emitted
from ...lowering.round_trip_pack import words_loaded
from ...lowering.target import Target
from ..shared_memory.predict import Prediction, predict_convert
from ..shared_memory.reduce import reduce_steps
from ._args import bits_tuple
from .gather import gather_shuffles
from .reduce import (in_thread_pack_permutes, reduce_rounds, reduce_shuffles, redux_rounds,
                     round_reads_out, round_result_kinds, slp_repacked)
from .scan import scan_shuffles

__all__ = ["round_byte_readers", "with_registers"]

#: Signed 8-bit combine ops: NVPTX computes them on sign-extended registers.
_SIGNED_MIN_MAX = frozenset({"arith.minsi", "arith.maxsi"})


def round_byte_readers(operand: LinearLayout, axis: int, round_index: int, element_bits: int,
                       target: Target, combiner: str | None) -> frozenset[str] | None:
    """How the in-warp round ``round_index`` (:func:`.reduce.reduce_rounds`, 1 for the round
    after the first cross-warp move) of a one-operand 8-bit reduction reads the bytes the
    cross-warp move before it loaded from shared memory
    (:data:`linlayout.lowering.byte_extracts.BYTE_READERS`), or None where that is not
    modelled (not NVIDIA or not 8 bits, no combine op known, no lanes along the axis).

    The round's layout (``getInterLayout``) has no register along the axis, so every loaded
    byte is an accumulator the round reads at once: a ``redux.sync`` round widens it to 32
    bits (``sext`` for a signed ``min``/``max``, else ``zext``; Triton's
    ``TargetInfo::warpReduce``); a butterfly round zero-extends it for ``shfl.sync.bfly`` and
    combines it as a byte (a signed ``min``/``max`` on a sign-extended register).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.

    Source: ``ReduceOpToLLVM.cpp`` and ``TargetInfo::warpReduce``/``shuffleXor``
    (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``), Triton 3.9, as its
    LLVM IR before ``-O3`` shows on compiled reductions
    (``papers/triton_lowering/redux_heldout_probes.py``).
    """
    if not target.is_nvidia or element_bits != 8 or combiner is None:
        return None
    rounds = reduce_rounds(operand, axis)
    if not 0 < round_index < len(rounds) or not rounds[round_index][1]:
        return None
    signed = combiner in _SIGNED_MIN_MAX
    if redux_rounds(operand, axis, element_bits, target, combiner)[round_index]:
        return frozenset({"sext" if signed else "zext"})
    return frozenset({"zext", "signed_byte" if signed else "byte"})


#: what ``check`` says of a reduction whose final assembly LLVM's SLP vectoriser re-packs
#: (:func:`.reduce.slp_repacked`)
SLP_NOTE = ("v_perm_b32 on this line counted as Triton's lowering (-O3 skipped): LLVM's -O3 "
            "SLP vectoriser re-packs this 16-bit reduction in its own pairs, a count not "
            "modelled")


#: the AMDGPU instruction packing two canonical ``f16`` values into one register
PACK_F16 = "v_pack_b32_f16"


def _permutes(ems) -> int:
    return sum(e.per_thread or 0 for e in ems if e.opcode == "v_perm_b32")


def with_registers(pred: Prediction, op: str, operand: LinearLayout | None,
                   result: LinearLayout | None, axis: int | None,
                   operand_bits: tuple[int, ...], target: Target,
                   integer: bool = False,
                   operand_types: tuple[LinearLayout, ...] = (),
                   combiner: str | None = None, *, element_type: str = "",
                   combine_ops: int | None = None,
                   source_load: tuple[int, int] | None = None,
                   source_values: tuple[str, ...] | None = None,
                   load_vector: int | None = None, reverse: bool = False) -> Prediction:
    """``pred`` (a ``tt.reduce`` or ``tt.scan`` prediction) with its register instructions:
    a reduce's butterfly shuffles or ``redux.sync`` (:func:`.reduce.reduce_shuffles`, with
    ``combiner`` its single combine op when known) and the register
    instructions of its ``convert_layout`` s (those after a ``redux.sync`` round packing
    32-bit registers: :func:`.reduce.redux_rounds`), a scan's shuffles
    (:func:`.scan.scan_shuffles`; ``reverse``: the scan is ``reverse = true``, its two flips
    counted too), a warp-local gather's indexed shuffles and selects
    (:func:`.gather.gather_shuffles`, ``operand_types`` = the source and index layouts; such a
    gather uses no shared memory). Other ops, or a missing operand or axis, are returned
    unchanged.

    On AMD a reduce also counts the ``v_perm_b32`` that build its in-thread step's
    ``<2 x T>`` vectors (:func:`.reduce.in_thread_pack_permutes`: ``element_type``, the
    combine region's op count ``combine_ops``, and where the operand sits — ``source_load``,
    ``(dim, contiguity)`` of its global load, or ``source_values``, what a scan or reduction
    producer left; ``load_vector``, the elements of each of the load's vectors in Triton's
    IR, for the reductions whose final assembly LLVM re-packs, where Triton's lowering is
    counted), and the converts after a round over the whole wavefront
    (:func:`.reduce.round_reads_out`) store scalar totals: 16-bit ones pack for free
    (``s_pack_ll_b32_b16``), 8-bit ones cost one ``v_perm_b32`` per two-byte word
    (``ds_write_b16``) besides the word packing the convert counts.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; layouts that do not fit; an
            argument of the wrong type.
    """
    instance_of(pred, Prediction, "pred")
    string(op, "op")
    operand_types = sequence_of(operand_types, LinearLayout, "operand_types")
    if result is not None:
        instance_of(result, LinearLayout, "result")
    if op not in ("reduce", "scan", "gather") or operand is None or axis is None \
            or not pred.analysed:
        return pred
    operand_bits = bits_tuple(operand_bits)
    if op == "gather":
        if len(operand_types) != 2:
            return pred
        ems = gather_shuffles(operand_types[0], operand_types[1], axis, operand_bits[0],
                              target)
        if ems is None:
            return pred
        return replace(pred, registers=ems, uses_shared=False,
                       note="warp-local gather: indexed shuffles and selects, no shared memory")
    if op == "scan":
        regs, why = scan_shuffles(operand, axis, operand_bits, target, reverse)
        return replace(pred, registers=regs, note=pred.note + (f"; {why}" if why else ""))
    regs, why = reduce_shuffles(operand, axis, operand_bits, target, integer, combiner)
    extra: list[Emitted] = list(regs)
    if len(operand_bits) == 1:
        n = in_thread_pack_permutes(operand, axis, element_type, combiner, combine_ops,
                                    target, source_load, source_values,
                                    load_vector=load_vector)
        if n:
            extra.append(Emitted("permute", "v_perm_b32", n, None, 32, 0, ""))
        if slp_repacked(operand, axis, element_type, combiner, target):
            why = "; ".join(w for w in (why, SLP_NOTE) if w)
    # a convert after a redux.sync round packs 32-bit registers (one operand only)
    wide = redux_rounds(operand, axis, operand_bits[0], target, combiner) \
        if len(operand_bits) == 1 else []
    # a convert after a whole-wavefront AMD round stores scalar totals
    scalar = round_reads_out(operand, axis, operand_bits, target)
    # what each round's combine left in the registers its convert packs (one operand only)
    left = round_result_kinds(operand, axis, operand_bits[0], element_type, target,
                              combiner) if len(operand_bits) == 1 and element_type else []
    keys: list = []
    for j, (kind, src, dst) in enumerate(reduce_steps(operand, result, axis)):
        values = None
        if j < len(left) and left[j] is not None:
            values = (left[j],) * (1 << sum(1 for c in src.dim_columns("register") if c))
        for b in operand_bits:
            scalars = j < len(scalar) and scalar[j] and b in (8, 16)
            inner = predict_convert(src, dst, b, target, wide_source=j < len(wide) and wide[j],
                                    packed_source=scalars and b == 16, source_values=values)
            extra.extend(inner.registers)
            if values is not None and values[0] == CANONICAL and element_type == "f16":
                # each word of two canonical f16 values is one v_pack_b32_f16 where loaded
                # values would cost a v_perm_b32 (every pair here is of two registers)
                raw = predict_convert(src, dst, b, target)
                packs = _permutes(raw.registers) - _permutes(inner.registers)
                if packs:
                    extra.append(Emitted("permute", PACK_F16, packs, None, 32, 0, ""))
            if scalars and b == 8 and (inner.uses_shared or inner.registers):
                # two scalar bytes per ds_write_b16 word, joined with one v_perm_b32
                pairs = sum(sd.emitted.per_thread or 0 for sd in inner.sides
                            if sd.emitted.opcode == "ds_write_b16"
                            and sd.emitted.vector_elems == 2)
                if pairs:
                    extra.append(Emitted("permute", "v_perm_b32", pairs, None, 32, 0, ""))
            keys.extend(inner.extra.get("selector_selects", ()))
            readers = round_byte_readers(operand, axis, j + 1, b, target, combiner) \
                if kind == "round" and len(operand_bits) == 1 and inner.plan is not None \
                else None
            if readers is not None:
                # NVPTX's selection of the loaded bytes' extracts, by how the round reads
                # them (LLVM, not Triton: linlayout.lowering.byte_extracts)
                words = words_loaded(tuple(s.emitted for s in inner.sides
                                           if s.emitted.side == "load"))
                extra.append(Emitted("permute", "prmt.b32",
                                     words * (word_extract_permutes(readers) - 4), None, 32,
                                     0, ""))
    merged: dict[tuple[str, str], int] = {}
    for e in extra:
        merged[(e.side, e.opcode)] = merged.get((e.side, e.opcode), 0) + (e.per_thread or 0)
    ems = tuple(Emitted(side, opcode, n, None, 32, 0, "")
                for (side, opcode), n in merged.items() if n)
    return replace(pred, registers=ems, note=pred.note + (f"; {why}" if why else ""),
                   extra={**pred.extra, "selector_selects": tuple(keys)} if keys
                   else pred.extra)
