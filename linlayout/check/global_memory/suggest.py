"""A hint or layout that would make a global access wider or coalesced."""

from __future__ import annotations

from dataclasses import replace

from ..._checks import as_int, instance_of, sequence_of
from ...errors import LayoutError
from ...global_memory import GlobalAccessReport
from ...layout import LinearLayout
from ...lowering.target import Target
from ...triton.axisinfo import GlobalOp, ModuleAxisInfo, contig_per_thread, layout_order
from ...triton.encodings.distributed import BlockedEncoding
from .cost import global_cost
from .predict import GlobalPrediction, predict_global

__all__ = ["fastest_dim", "filled_blocked", "suggest_global"]


def suggest_global(op: GlobalOp, pred: GlobalPrediction, cost: GlobalAccessReport | None,
                   axis: ModuleAxisInfo, target: Target | None = None) -> str:
    """A suggestion for ``op``, or ``""`` when its access is already as wide as its layout
    allows and coalesced.

    * the layout holds more consecutive elements per thread than the vector Triton proved:
      the pointer's contiguity or divisibility is what is missing — ``tl.multiple_of`` /
      ``tl.max_contiguous`` on the offsets (or a 16-divisible argument), or a mask that is
      constant over each run (e.g. a bound that is a multiple of the vector);
    * the warp touches more sectors than its bytes need and the contiguous dim is not the
      layout's fastest (:func:`fastest_dim`: the thread's consecutive registers, else its
      lanes): for a ``#ttg.blocked`` layout, the same layout with ``order`` starting at the
      contiguous dim, as Triton text with the sectors per warp it touches — only when that
      is fewer (costed as the op itself: :func:`~.predict.predict_global`,
      :func:`~.cost.global_cost` on ``target``); for another layout, the hint in words.

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
                return _order_suggestion(op, cost, axis, target, unit[0], fastest)
    return ""


def _order_suggestion(op: GlobalOp, cost: GlobalAccessReport, axis: ModuleAxisInfo,
                      target: Target | None, unit: int, fastest: int) -> str:
    """The layout-order suggestion for ``op``: for a ``#ttg.blocked`` pointer layout, the same
    layout with ``order`` starting at ``unit`` (the other dims in their order), and that
    order with the lanes and warps laid out again along it (:func:`filled_blocked`), each
    costed by the same prediction and sector count — the cheaper suggested, as Triton text
    with its sectors per warp, only when it touches fewer sectors than ``cost`` (else
    ``""``: e.g. a tile smaller than the warp, broadcast over lanes; an order alone keeps
    each instruction's lane box, so it rarely helps); for another layout, the hint in words
    (not costed)."""
    enc = op.pointer_type.encoding
    head = f"dim {unit} is contiguous in memory but the layout's fastest dim is {fastest}"
    if not isinstance(enc, BlockedEncoding):
        return f"{head}: a blocked layout with order starting at {unit} coalesces the access"
    order = (unit,) + tuple(d for d in enc.order if d != unit)
    best = None
    for cand in (replace(enc, order=order),
                 filled_blocked(enc, order, op.pointer_type.shape)):
        alt_op = replace(op, pointer_type=replace(op.pointer_type, encoding=cand))
        try:
            alt, _ = global_cost(alt_op, predict_global(alt_op, axis, target), axis, target)
        except LayoutError:
            continue
        if alt is not None and (best is None or alt.sectors_per_warp < best[1]):
            best = (cand, alt.sectors_per_warp)
    if best is None or best[1] >= cost.sectors_per_warp:
        return ""
    return (f"{head}: {best[0].text()} touches {best[1]} sectors per warp instead of "
            f"{cost.sectors_per_warp}")


def filled_blocked(enc: BlockedEncoding, order: tuple[int, ...],
                   shape: tuple[int, ...]) -> BlockedEncoding:
    """``enc``'s ``sizePerThread``, lanes and warps laid out again along ``order`` for a tensor
    of ``shape``: each dim but the last of ``order`` takes as many threads as its extent
    (over ``sizePerThread``) and what is left allows, lanes before warps; the last dim takes
    the remaining lanes and warps. Source: Triton's ``BlockedEncodingAttr::get`` builder
    from a shape, ``sizePerThread``, ``order``, ``numWarps`` and ``threadsPerWarp``
    (``TritonGPUAttrDefs.td``), which its coalescing pass uses.

    Raises:
        LayoutError: ``enc`` not a :class:`BlockedEncoding`; ``order`` not a permutation of
            its dims; ``shape`` not positive ints, one per dim.
    """
    instance_of(enc, BlockedEncoding, "enc")
    order = sequence_of(order, int, "order")
    shape = sequence_of(shape, int, "shape")
    rank = len(enc.size_per_thread)
    if sorted(order) != list(range(rank)):
        raise LayoutError(f"order must be a permutation of 0..{rank - 1}, got {list(order)}")
    if len(shape) != rank or any(x < 1 for x in shape):
        raise LayoutError(f"shape must be {rank} positive ints, got {list(shape)}")
    lanes = warps = 1
    for t in enc.threads_per_warp:
        lanes *= t
    for w in enc.warps_per_cta:
        warps *= w
    tpw, wpc = [1] * rank, [1] * rank
    left_lanes, left_warps, left_threads = lanes, warps, lanes * warps
    prev_lanes = prev_warps = 1
    for i in order[:-1]:
        per_cta = min(max(left_threads, 1), max(1, shape[i] // enc.size_per_thread[i]))
        tpw[i] = min(max(per_cta, 1), left_lanes)
        wpc[i] = min(max(per_cta // tpw[i], 1), left_warps)
        left_warps //= wpc[i]
        left_lanes //= tpw[i]
        left_threads //= per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    tpw[order[-1]] = lanes // prev_lanes
    wpc[order[-1]] = warps // prev_warps
    return replace(enc, threads_per_warp=tuple(tpw), warps_per_cta=tuple(wpc), order=order)


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
    ``threadsPerWarp``), ``LinearEncodingAttr::getOrder``.

    Raises:
        LayoutError: ``layout`` not a LinearLayout; ``order`` not a non-empty list of ints;
            ``held`` not an int.
    """
    instance_of(layout, LinearLayout, "layout")
    order = sequence_of(order, int, "order")
    if not order:
        raise LayoutError("order must name at least one dim")
    held = as_int(held, "held")
    if held > 1:
        return order[0]
    for b in layout.bases.get("lane", ()):
        for d, v in enumerate(b):
            if v:
                return d
    return order[0]
