"""Every global-memory op of a module, as Triton 3.9 lowers it: :func:`check_global`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..._checks import instance_of
from ...errors import LayoutError
from ...lowering.target import Target
from ...triton.axisinfo import ModuleAxisInfo, analyse_axis_info
from ...triton.ttgir import TTGIRModule
from .cost import global_cost
from ..target import check_lanes
from .predict import predict_global
from .report import GlobalOpReport
from .suggest import suggest_global

__all__ = ["check_global"]


def check_global(module: TTGIRModule, target: Target, axis: ModuleAxisInfo | None = None,
                 async_vectors: Mapping[int, int] | None = None
                 ) -> tuple[GlobalOpReport, ...]:
    """One :class:`~.report.GlobalOpReport` per global op of ``module`` (file order).

    ``async_vectors`` maps the line of a ``cp.async`` copy to the vector (elements) its
    shared-memory side allows (the destination's contiguity: Triton's
    ``AsyncCopyGlobalToLocalOpConversion`` takes the smaller of AxisInfo's vector and the
    largest vectorisation of the register-to-shared map); a smaller one replaces AxisInfo's.

    AMD direct-to-LDS copies (``buffer_load_to_local``, ``async_copy_global_to_local`` on
    ``hip``) are reported with the shared-memory ops and skipped here. An op that cannot be
    analysed gets a note, never an exception.

    Raises:
        LayoutError: ``module`` is not a TTGIR module, ``target`` not a
            :class:`~linlayout.lowering.target.Target` or ``axis`` not a
            :class:`~linlayout.triton.axisinfo.ModuleAxisInfo`.
    """
    instance_of(module, TTGIRModule, "module")
    instance_of(target, Target, "target")
    if axis is not None:
        instance_of(axis, ModuleAxisInfo, "axis")
    axis = axis or analyse_axis_info(module)
    out = []
    for op in axis.global_ops:
        if not target.is_nvidia and op.short in ("buffer_load_to_local",
                                                 "async_copy_global_to_local"):
            continue
        try:
            check_lanes(op.pointer_type, target, module.num_ctas, module.warps_at(op.line))
            pred = predict_global(op, axis, target)
        except LayoutError as exc:
            out.append(GlobalOpReport(op, None, None, f"not analysed: {exc}"))
            continue
        cap = (async_vectors or {}).get(op.line)
        if op.short == "async_copy_global_to_local" and cap and cap < pred.vector_elems:
            nbytes = cap * pred.element_bits // 8
            pred = replace(pred, opcode="cp.async.cg.shared.global" if nbytes == 16
                           else "cp.async.ca.shared.global",
                           per_thread=pred.per_thread * pred.vector_elems // cap,
                           vector_elems=cap, vector_bytes=nbytes,
                           note=f"vector cut from {pred.vector_elems} to {cap} by the shared "
                                "layout's contiguity")
        cost, why = global_cost(op, pred, axis, target)
        note = "; ".join(x for x in (pred.note, why) if x)
        out.append(GlobalOpReport(op, pred, cost, note, suggest_global(op, pred, cost, axis, target)))
    return tuple(out)
