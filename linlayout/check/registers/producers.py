"""Where a convert's source elements sit when it starts: for a tensor a global load
produced, the dim along which the load read consecutive addresses and how far (AxisInfo's
contiguity of the pointer). On AMD, packing 8/16-bit elements for a shuffle is free where the
load already put them in one 32-bit register (:mod:`linlayout.lowering.amd_pack`)."""

from __future__ import annotations

import re

from ..._checks import instance_of
from ...triton.axisinfo import ModuleAxisInfo, analyse_axis_info
from ...triton.ttgir import TTGIRModule

__all__ = ["load_sources"]

_RESULT = re.compile(r"^\s*(%[\w$.-]+)\s*=")
_LOADS = ("load", "buffer_load")


def load_sources(module: TTGIRModule, axis: ModuleAxisInfo | None = None
                 ) -> dict[str, tuple[int, int]]:
    """``{SSA name of a global load's result: (dim, contiguity_elems)}``: the tensor dim
    along which the load's pointer (for AMD buffer loads, its offsets) runs over consecutive
    addresses, the one with the largest AxisInfo contiguity, and that contiguity. Loads whose
    pointer is contiguous along no dim are left out.

    Raises:
        LayoutError: ``module`` is not a TTGIR module or ``axis`` not a ModuleAxisInfo.
    """
    instance_of(module, TTGIRModule, "module")
    if axis is not None:
        instance_of(axis, ModuleAxisInfo, "axis")
    axis = axis or analyse_axis_info(module)
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
