"""The sectors and lines a warp's global access touches, where its addresses are affine.

A pointer tensor that is an unknown base plus ``Σ stride_d · i_d`` (strides in elements,
found by :mod:`linlayout.triton.axisinfo`) is a placement :func:`linlayout.global_access`
counts exactly: dims with stride 0 (broadcast along the tensor) are dropped from the layout
first — every position along them reads the same address. A pointer Triton knows to be
16-byte aligned (its argument specialisation) is taken to start an allocation (``cudaMalloc``
aligns to 256 bytes); a smaller divisibility (an odd element offset) gives the worst placement
it allows. Negative or unknown strides are not analysed.
"""

from __future__ import annotations

from ...errors import LayoutError
from ...global_memory import GlobalAccessReport, global_access
from ...layout import LinearLayout
from ...triton.axisinfo import RUNTIME_STRIDE, GlobalOp, ModuleAxisInfo, layout_order
from .predict import GlobalPrediction

__all__ = ["MAX_CHECK_STEPS", "global_cost"]

#: Enumeration steps one op may spend in ``check`` (a kernel has tens of global ops; the
#: closed form needs none).
MAX_CHECK_STEPS = 1 << 15


def _drop_dims(layout: LinearLayout, keep: list[str]) -> LinearLayout:
    """``layout`` with only the out dims ``keep`` (the others forgotten)."""
    names = layout.out_dim_names
    idx = [names.index(k) for k in keep]
    bases = {d: [[b[i] for i in idx] for b in bs] for d, bs in layout.bases.items()}
    return LinearLayout(bases, {k: layout.out_dims[k] for k in keep})


def _one_warp(layout: LinearLayout, strides: list[int], elem_bytes: int,
              align: int) -> LinearLayout:
    """``layout`` without its warp and block bases when every warp is warp 0 moved by a
    multiple of ``align`` bytes: the placements enumerated for warp 0 then include every
    other warp's, so one warp gives the same worst case at a fraction of the work."""
    bases = layout.bases
    for dim in ("warp", "block"):
        for b in bases.get(dim, []):
            if sum(s * x for s, x in zip(strides, b)) * elem_bytes % align:
                return layout
    kept = {d: v for d, v in bases.items() if d not in ("warp", "block")}
    return LinearLayout(kept, layout.out_dims)


def global_cost(op: GlobalOp, pred: GlobalPrediction, axis: ModuleAxisInfo
                ) -> tuple[GlobalAccessReport | None, str]:
    """The exact sectors/lines of one warp-level instruction of ``op`` at Triton's vector,
    or None with the reason it is not analysed.

    Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory" (32-byte
    sectors, 128-byte lines); the count is :func:`linlayout.global_access`.
    """
    ptype = op.pointer_type
    strides = axis.strides.get(op.pointer)
    if ptype is None or strides is None or len(strides) != len(ptype.shape):
        return None, "addresses not affine in the tensor index: not analysed"
    if any(s < 0 for s in strides):
        return None, "a negative stride: not analysed"
    try:
        layout = ptype.layout
    except LayoutError as exc:
        return None, f"not analysed: {exc}"
    names = list(layout.out_dim_names)
    keep = [n for n, s, size in zip(names, strides, ptype.shape) if s > 0 and size > 1]
    if not keep:
        return None, "every lane reads one address (a broadcast): not analysed"
    kept_strides = [s for n, s in zip(names, strides) if n in keep]
    if len(keep) != len(names):
        layout = _drop_dims(layout, keep)
    info = axis.info(op.pointer if op.base is None else op.base)
    align = 256
    if info is not None:
        # the alignment of each run's start along the layout's fastest dim (what Triton
        # reads too); a scalar base has one dim
        d = layout_order(ptype.layout)[0] if op.base is None else 0
        align = min(256, info.divisibility[min(d, info.rank - 1)])
        if align >= 16:  # Triton's argument specialisation: an allocation's base
            align = 256
    elem_bytes = max(1, pred.element_bits // 8)
    align = max(align, elem_bytes)
    if align < 128:
        layout = _one_warp(layout, kept_strides, elem_bytes, max(align, elem_bytes))
    note = ""
    if any(s >= RUNTIME_STRIDE for s in kept_strides):
        note = "a runtime stride is taken as at least a line (rows in distinct lines)"
    if layout.in_dims.get("lane", 1) > 32:
        return None, "64-lane waves: sectors not analysed (the counter models 32 lanes)"
    try:
        rep = global_access(layout, kept_strides, element_bits=pred.element_bits,
                            vector_elems=pred.vector_elems, base_alignment_bytes=align,
                            limit=MAX_CHECK_STEPS)
    except LayoutError as exc:
        if align >= 128:
            return None, f"not analysed: {exc}"
        # too many placements to enumerate here: count the line-aligned one and say so
        try:
            rep = global_access(layout, kept_strides, element_bits=pred.element_bits,
                                vector_elems=pred.vector_elems, base_alignment_bytes=256,
                                limit=MAX_CHECK_STEPS)
        except LayoutError as exc2:
            return None, f"not analysed: {exc2}"
        note = "; ".join(x for x in (note, f"base only {align}-byte aligned: counted as if "
                                     "line-aligned (too many placements to enumerate)") if x)
    return rep, note
