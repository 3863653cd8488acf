"""Every global-memory op of a module, as Triton 3.9 lowers it: :func:`check_global`."""

from __future__ import annotations

from ..._checks import instance_of
from ...errors import LayoutError
from ...lowering.target import Target
from ...triton.axisinfo import ModuleAxisInfo, analyse_axis_info
from ...triton.ttgir import TTGIRModule
from .cost import global_cost
from .predict import predict_global
from .report import GlobalOpReport
from .suggest import suggest_global

__all__ = ["check_global"]


def check_global(module: TTGIRModule, target: Target, axis: ModuleAxisInfo | None = None
                 ) -> tuple[GlobalOpReport, ...]:
    """One :class:`~.report.GlobalOpReport` per global op of ``module`` (file order).

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
            pred = predict_global(op, axis, target)
        except LayoutError as exc:
            out.append(GlobalOpReport(op, None, None, f"not analysed: {exc}"))
            continue
        cost, why = global_cost(op, pred, axis)
        note = "; ".join(x for x in (pred.note, why) if x)
        out.append(GlobalOpReport(op, pred, cost, note, suggest_global(op, pred, cost, axis)))
    return tuple(out)
