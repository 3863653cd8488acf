"""The sectors and lines a warp's global access touches, where its addresses are affine.

A pointer tensor that is an unknown base plus ``Σ stride_d · i_d`` (strides in elements,
found by :mod:`linlayout.triton.axisinfo`) is a placement
:func:`linlayout.global_memory.global_access` counts exactly: dims with stride 0 (broadcast
along the tensor) are dropped from the layout first — every position along them reads the same
address. A pointer Triton knows to be
16-byte aligned (its argument specialisation) is taken to start an allocation (``cudaMalloc``
aligns to 256 bytes); a smaller divisibility (an odd element offset) gives the worst placement
it allows. Negative or unknown strides are not analysed.

On AMD a request is one 64-lane wavefront instruction, counted in 128-byte lines: each
vector-L1 (vL1D) cache access is one cache line, 128 bytes on MI300 (ROCm Compute Profiler,
"Vector L1 cache (vL1D)", the cache-line-size note); no public source states a smaller
sector, so the line is the unit (``sector_bytes = line_bytes = 128``). The source documents
MI300 (gfx942); for gfx950 the 128-byte line is assumed and the note says so. How the
address unit groups a wave's lanes into requests per cycle is not public and not modelled:
the count is the lines touched, not cycles.
"""

from __future__ import annotations

from ...errors import LayoutError
from ...global_memory import GlobalAccessReport, global_access
from ...layout import LinearLayout
from ...lowering.target import Target
from ...triton.axisinfo import RUNTIME_STRIDE, GlobalOp, ModuleAxisInfo, layout_order
from .predict import GlobalPrediction

__all__ = ["AMD_LINE_BYTES", "MAX_CHECK_STEPS", "global_cost"]

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


#: Bytes of one AMD vector-L1 cache line, the unit an AMD request is counted in.
AMD_LINE_BYTES = 128


def global_cost(op: GlobalOp, pred: GlobalPrediction, axis: ModuleAxisInfo,
                target: Target | None = None) -> tuple[GlobalAccessReport | None, str]:
    """The exact sectors/lines of one warp-level instruction of ``op`` at Triton's vector,
    or None with the reason it is not analysed. On an AMD ``target`` (64-lane wavefronts) the
    sectors are 128-byte vector-L1 cache lines (module docstring).

    Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory" (32-byte
    sectors, 128-byte lines); ROCm Compute Profiler, "Vector L1 cache (vL1D)" (a 128-byte
    vL1D line per access on MI300); the count is :func:`linlayout.global_memory.global_access`.
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
    geometry: dict = {}
    amd = (target is not None and not target.is_nvidia) or layout.in_dims.get("lane", 1) > 32
    if amd:
        geometry = {"lanes_per_warp": 64, "sector_bytes": AMD_LINE_BYTES,
                    "line_bytes": AMD_LINE_BYTES}
        line_note = ("64-lane wavefront, counted in 128-byte vector-L1 cache lines (one vL1D "
                     "access per line on MI300)")
        if target is None or target.arch != "gfx942":
            line_note += "; the 128-byte line is documented for MI300 and assumed here"
        note = "; ".join(x for x in (note, line_note) if x)
    try:
        rep = global_access(layout, kept_strides, element_bits=pred.element_bits,
                            vector_elems=pred.vector_elems, base_alignment_bytes=align,
                            limit=MAX_CHECK_STEPS, **geometry)
    except LayoutError as exc:
        if align >= 128:
            return None, f"not analysed: {exc}"
        # too many placements to enumerate here: count the line-aligned one and say so
        try:
            rep = global_access(layout, kept_strides, element_bits=pred.element_bits,
                                vector_elems=pred.vector_elems, base_alignment_bytes=256,
                                limit=MAX_CHECK_STEPS, **geometry)
        except LayoutError as exc2:
            return None, f"not analysed: {exc2}"
        note = "; ".join(x for x in (note, f"base only {align}-byte aligned: counted as if "
                                     "line-aligned (too many placements to enumerate)") if x)
    return rep, note
