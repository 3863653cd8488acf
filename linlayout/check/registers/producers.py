"""Where a convert's source elements sit when it starts: for a tensor a global load
produced, the dim along which the load read consecutive addresses and how far (AxisInfo's
contiguity of the pointer). On AMD, packing 8/16-bit elements for a shuffle is free where the
load already put them in one 32-bit register (:mod:`linlayout.lowering.amd_pack`)."""

from __future__ import annotations

import re

from ..._checks import instance_of
from ...triton.axisinfo import ModuleAxisInfo, analyse_axis_info
from ...triton.ttgir import TTGIRModule

__all__ = ["load_sources", "truncated_sources"]

_RESULT = re.compile(r"^\s*(%[\w$.-]+)\s*=")
_LOADS = ("load", "buffer_load")
_TRUNCF = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.truncf\s+%[\w$.-]+\s*:\s*"
                     r"tensor<[^>]*xf32\b[^>]*>\s+to\s+tensor<[^>]*x(?:f16|bf16)\b", re.M)


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


def truncated_sources(module: TTGIRModule) -> frozenset[str]:
    """SSA names of ``arith.truncf`` results that narrow ``f32`` tensors to ``f16``/``bf16``.
    On AMD a convert of such a value packs for free: LLVM converts each pair of 32-bit values
    and packs them in one step (``v_cvt_pk_f16_f32``, or two conversions and
    ``v_pack_b32_f16``), so no ``v_perm_b32`` assembles the packed registers
    (:func:`linlayout.lowering.convert_path`, ``packed_source``; measured on compiled
    gfx942/gfx950 converts, ``papers/triton_lowering/cvt_heldout_probes.py``).

    Raises:
        LayoutError: ``module`` is not a TTGIR module.
    """
    instance_of(module, TTGIRModule, "module")
    return frozenset(m.group(1) for m in _TRUNCF.finditer(module.text))
