"""A hint or layout that would make a global access wider or coalesced."""

from __future__ import annotations

from ...global_memory import GlobalAccessReport
from ...triton.axisinfo import GlobalOp, ModuleAxisInfo, contig_per_thread, layout_order
from .predict import GlobalPrediction

__all__ = ["fastest_dim", "suggest_global"]


def suggest_global(op: GlobalOp, pred: GlobalPrediction, cost: GlobalAccessReport | None,
                   axis: ModuleAxisInfo) -> str:
    """A suggestion for ``op``, or ``""`` when its access is already as wide as its layout
    allows and coalesced.

    * the layout holds more consecutive elements per thread than the vector Triton proved:
      the pointer's contiguity or divisibility is what is missing — ``tl.multiple_of`` /
      ``tl.max_contiguous`` on the offsets (or a 16-divisible argument), or a mask that is
      constant over each run (e.g. a bound that is a multiple of the vector);
    * the warp touches more sectors than its bytes need and the contiguous dim is not the
      layout's fastest (:func:`fastest_dim`: the thread's consecutive registers, else its
      lanes): a blocked layout with ``order`` starting at the contiguous dim.

    Source: Triton's ``tl.multiple_of``/``tl.max_contiguous`` (``triton/language/core.py``)
    feed AxisInfo through the ``tt.divisibility``/``tt.contiguity`` attributes.
    """
    ptype = op.pointer_type
    if ptype is None:
        return ""
    try:
        lay = ptype.layout
        order = layout_order(lay)
        held = contig_per_thread(lay)[order[0]]
    except Exception:  # noqa: BLE001 - a layout without a linear form: no suggestion
        return ""
    cap = max(1, 128 // pred.element_bits)
    want = min(held, cap)
    if pred.vector_elems < want:
        if pred.mask_alignment is not None and pred.mask_alignment < pred.contiguity:
            return (f"the mask varies within a thread's {want} consecutive elements: a bound "
                    f"that is a multiple of {want} (or no mask) gives {want}-wide accesses")
        info = axis.info(op.pointer)
        d = order[0]
        if info is not None and d < info.rank and info.contiguity[d] < want:
            return (f"Triton cannot prove more than {info.contiguity[d]} consecutive "
                    f"addresses along dim {d} (each thread holds {held}): if they are "
                    f"consecutive, tl.max_contiguous(offsets, {want}) gives {want}-wide "
                    f"accesses")
        return (f"Triton can prove only {pred.vector_elems}-element alignment (each thread "
                f"holds {held} consecutive elements): if the pointer and offsets are "
                f"multiples of {want} elements, say so with tl.multiple_of(offsets, {want}) "
                f"or 16-divisible pointer and stride arguments for {want}-wide accesses")
    if cost is not None and not cost.coalesced:
        strides = axis.strides.get(op.pointer)
        if strides:
            unit = [d for d, s in enumerate(strides) if s == 1]
            fastest = fastest_dim(lay, order, held)
            if unit and unit[0] != fastest:
                return (f"dim {unit[0]} is contiguous in memory but the layout's fastest dim "
                        f"is {fastest}: a blocked layout with order starting at {unit[0]} "
                        f"coalesces the access")
    return ""


def fastest_dim(layout, order: list[int], held: int) -> int:
    """The dim along which a warp's consecutive elements run: ``order[0]`` (the register
    order, :func:`~linlayout.triton.axisinfo.layout_order`) when each thread holds ``held``
    > 1 consecutive elements along it; otherwise the dim of the first lane basis that moves
    (lane 1's neighbour), since the thread's registers then step along ``order[0]`` with a
    stride and the lanes carry the access; ``order[0]`` when no lane moves.

    A ``#ttg.blocked`` layout with ``sizePerThread`` 1 along its ``order[0]`` — e.g.
    ``sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]``
    on a 32x32 tile — has its registers along dim 0 first (the rows each warp repeats),
    so ``order[0]`` of its linear encoding is 0 while its lanes run along dim 1: the
    layout already has the order the suggestion would name. Source: Triton's
    ``BlockedEncodingAttr`` (``order`` ranks dims for ``sizePerThread`` then
    ``threadsPerWarp``), ``LinearEncodingAttr::getOrder``."""
    if held > 1:
        return order[0]
    for b in layout.bases.get("lane", ()):
        for d, v in enumerate(b):
            if v:
                return d
    return order[0]
