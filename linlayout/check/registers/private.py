"""The lane exchanges of ``tt.reduce`` and ``tt.scan`` added to their shared-memory
prediction (:func:`with_registers`)."""

from __future__ import annotations

from dataclasses import replace

from ..._checks import instance_of, sequence_of, string
from ...layout import LinearLayout
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..shared_memory.predict import Prediction, predict_convert
from ..shared_memory.reduce import reduce_conversions
from ._args import bits_tuple
from .gather import gather_shuffles
from .reduce import reduce_shuffles, redux_rounds
from .scan import scan_shuffles

__all__ = ["with_registers"]


def with_registers(pred: Prediction, op: str, operand: LinearLayout | None,
                   result: LinearLayout | None, axis: int | None,
                   operand_bits: tuple[int, ...], target: Target,
                   integer: bool = False,
                   operand_types: tuple[LinearLayout, ...] = (),
                   combiner: str | None = None) -> Prediction:
    """``pred`` (a ``tt.reduce`` or ``tt.scan`` prediction) with its register instructions:
    a reduce's butterfly shuffles or ``redux.sync`` (:func:`.reduce.reduce_shuffles`, with
    ``combiner`` its single combine op when known) and the register
    instructions of its ``convert_layout`` s (those after a ``redux.sync`` round packing
    32-bit registers: :func:`.reduce.redux_rounds`), a scan's shuffles
    (:func:`.scan.scan_shuffles`), a warp-local gather's indexed shuffles and selects
    (:func:`.gather.gather_shuffles`, ``operand_types`` = the source and index layouts; such a
    gather uses no shared memory). Other ops, or a missing operand or axis, are returned
    unchanged.

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
        regs, why = scan_shuffles(operand, axis, operand_bits, target)
        return replace(pred, registers=regs, note=pred.note + (f"; {why}" if why else ""))
    regs, why = reduce_shuffles(operand, axis, operand_bits, target, integer, combiner)
    extra: list[Emitted] = list(regs)
    # a convert after a redux.sync round packs 32-bit registers (one operand only)
    wide = redux_rounds(operand, axis, operand_bits[0], target, combiner) \
        if len(operand_bits) == 1 else []
    keys: list = []
    for j, (src, dst) in enumerate(reduce_conversions(operand, result, axis)):
        for b in operand_bits:
            inner = predict_convert(src, dst, b, target, wide_source=j < len(wide) and wide[j])
            extra.extend(inner.registers)
            keys.extend(inner.extra.get("selector_selects", ()))
    merged: dict[tuple[str, str], int] = {}
    for e in extra:
        merged[(e.side, e.opcode)] = merged.get((e.side, e.opcode), 0) + (e.per_thread or 0)
    ems = tuple(Emitted(side, opcode, n, None, 32, 0, "")
                for (side, opcode), n in merged.items() if n)
    return replace(pred, registers=ems, note=pred.note + (f"; {why}" if why else ""),
                   extra={**pred.extra, "selector_selects": tuple(keys)} if keys
                   else pred.extra)
