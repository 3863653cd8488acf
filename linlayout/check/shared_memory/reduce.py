"""The layout conversions Triton 3.9.0 runs through shared memory to lower a ``tt.reduce``.

Triton's ``ReduceOpConversion`` (``lib/Conversion/TritonGPUToLLVM/ReduceOpToLLVM.cpp``, with
the layout helpers of ``ReduceOpHelper`` in ``lib/Analysis/Utility.cpp``) works on the
operand's linear layout:

1. each thread combines its own registers along the axis (``reduceWithinThreads``): the
   register bases along the axis are zeroed and dropped;
2. each warp combines its lanes along the axis with shuffles (``reduceWithinWarps``): the lane
   bases lose their axis component (``zeroBasesAlongDimAndReorder``, which also renumbers the
   remaining axis components ``1, 2, 4, …`` in register, lane, warp, block order, so the axis
   dim shrinks to the warps that still hold different partial results);
3. while the axis is not reduced to size 1, the partial results are moved by a
   ``convert_layout`` to ``getInterLayout`` — the warp bases along the axis swapped into lane
   bases (into lanes that are now broadcast when there are enough of them, else into the
   first lanes) — and reduced with shuffles again; at most two rounds;
4. the axis dim is removed (``removeStandardDim``) and, when the layout differs from the
   result's, one more ``convert_layout`` moves the values to the result layout.

Every ``convert_layout`` of steps 3 and 4 is a real ``ttg.convert_layout`` lowered by
``ConvertLayoutOpToLLVM``: through scratch when warps exchange data (one store and one load
round per operand), with shuffles or register moves otherwise.
"""

from __future__ import annotations

from functools import lru_cache

from ...errors import LayoutError
from ...layout import LinearLayout

__all__ = ["inter_layout", "kept_reloads", "reduce_conversions", "reduce_steps",
           "reduced_layout"]

_ORDER = ("register", "lane", "warp", "block")


def _axis_index(layout: LinearLayout, axis: int) -> int:
    if f"dim{axis}" not in layout.out_dim_names:
        raise LayoutError(f"tt.reduce axis {axis} is not a dim of the operand "
                          f"({layout.out_dims}); use an axis below {len(layout.out_dims)}")
    return layout.out_dim_names.index(f"dim{axis}")


def _bases(layout: LinearLayout) -> dict[str, list[list[int]]]:
    """Mutable copies of the bases, in-dims in Triton's order (register, lane, warp, block)."""
    bases = layout.bases  # a fresh copy: its lists may be changed
    names = [d for d in _ORDER if d in bases]
    names += [d for d in bases if d not in _ORDER]
    return {d: bases[d] for d in names}


def _build(bases: dict[str, list[list[int]]], names: tuple[str, ...]) -> LinearLayout:
    """A layout with out-dim sizes inferred from the bases, as Triton's ``LinearLayout(bases,
    outDimNames)`` (each dim the next power of two above its largest component)."""
    sizes = dict.fromkeys(names, 1)
    for imgs in bases.values():
        for img in imgs:
            for n, x in zip(names, img):
                sizes[n] = max(sizes[n], 1 << x.bit_length())
    return LinearLayout(bases, sizes)


def _zero_axis(layout: LinearLayout, k: int, in_dim: str) -> LinearLayout:
    """``zeroBasesAlongDimAndReorder``: the axis components of ``in_dim``'s bases zeroed, the
    other axis components renumbered ``1, 2, 4, …`` in in-dim order."""
    bases = _bases(layout)
    for img in bases.get(in_dim, []):
        img[k] = 0
    nxt = 1
    for imgs in bases.values():
        for img in imgs:
            if img[k]:
                img[k] = nxt
                nxt *= 2
    return _build(bases, layout.out_dim_names)


def _drop_zero_registers(layout: LinearLayout) -> LinearLayout:
    bases = _bases(layout)
    bases["register"] = [b for b in bases.get("register", []) if any(b)]
    return LinearLayout(bases, dict(layout.out_dims))


def reduced_layout(operand: LinearLayout, axis: int) -> LinearLayout:
    """The layout of the partial results after the in-thread and in-warp steps
    (``ReduceOpHelper::reducedRegLaneLayout``): same out dims, the axis dim shrunk to the
    warps (and blocks) that still hold different partial results.

    Args:
        operand: the reduce operand's distributed layout (``register, lane, warp[, block]`` →
            ``dim0 …``).
        axis: the reduced dim.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    if type(operand) is LinearLayout and type(axis) is int:
        return _reduced_cached(operand, axis)
    return _reduced(operand, axis)


def _reduced(operand: LinearLayout, axis: int) -> LinearLayout:
    k = _axis_index(operand, axis)
    layout = _drop_zero_registers(operand)
    regs = layout.bases.get("register", [])  # a fresh copy
    if any(img[k] for img in regs):
        # moveAxisBasesToFront keeps the other registers in their order
        bases = _bases(layout)
        bases["register"] = [b for b in regs if b[k]] + [b for b in regs if not b[k]]
        layout = _drop_zero_registers(_zero_axis(LinearLayout(bases, dict(layout.out_dims)),
                                                 k, "register"))
    if any(img[k] for img in layout.bases.get("lane", [])):
        layout = _zero_axis(layout, k, "lane")
    return layout


#: :func:`reduced_layout` and :func:`inter_layout` of a LinearLayout and an int axis, cached
#: (both are pure, and a module asks again for each op and each round)
_reduced_cached = lru_cache(maxsize=4096)(_reduced)


def inter_layout(layout: LinearLayout, axis: int) -> LinearLayout:
    """``ReduceOpHelper::getInterLayout``: the warp (and block) bases along the axis swapped
    into lane bases — into broadcast lanes when there are enough of them, else into the
    first lanes (as many as fit).

    Raises:
        LayoutError: ``axis`` is not a dim of ``layout``.
    """
    if type(layout) is LinearLayout and type(axis) is int:
        return _inter_cached(layout, axis)
    return _inter(layout, axis)


def _inter(layout: LinearLayout, axis: int) -> LinearLayout:
    k = _axis_index(layout, axis)
    bases = _bases(layout)
    lanes = bases.setdefault("lane", [])
    warps = bases.setdefault("warp", [])
    blocks = bases.setdefault("block", [])
    w_axis = [i for i, b in enumerate(warps) if b[k]]
    b_axis = [i for i, b in enumerate(blocks) if b[k]]
    zero = [i for i, b in enumerate(lanes) if not any(b)]
    total = len(w_axis) + len(b_axis)
    if len(zero) >= total:
        slots = zero
    elif total <= len(lanes):
        slots = list(range(len(lanes)))
    else:
        slots = list(range(len(lanes)))
        b_axis = []
        w_axis = w_axis[:len(lanes)]
    j = 0
    for src, idxs in ((warps, w_axis), (blocks, b_axis)):
        for i in idxs:
            lanes[slots[j]], src[i] = src[i], lanes[slots[j]]
            j += 1
    return _build(bases, layout.out_dim_names)


_inter_cached = lru_cache(maxsize=4096)(_inter)


def _remove_dim(layout: LinearLayout, k: int) -> LinearLayout:
    """``removeStandardDim``: out dim ``k`` (of size 1) removed, the others renamed ``dim0 …``."""
    names = layout.out_dim_names
    sizes = [layout.out_dims[n] for i, n in enumerate(names) if i != k]
    bases = {d: [[x for i, x in enumerate(img) if i != k] for img in imgs]
             for d, imgs in _bases(layout).items()}
    return LinearLayout(bases, {f"dim{i}": s for i, s in enumerate(sizes)})


def reduce_steps(operand: LinearLayout, result: LinearLayout | None, axis: int
                 ) -> list[tuple[str, LinearLayout, LinearLayout]]:
    """:func:`reduce_conversions` with each conversion's kind: ``("round", src, dst)`` for a
    cross-warp round (step 3, followed by shuffles and the combine), ``("result", src, dst)``
    for the final move to the result layout (step 4).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    k = _axis_index(operand, axis)
    layout = reduced_layout(operand, axis)
    out = []
    rounds = 0
    while layout.out_dims[f"dim{axis}"] != 1 and rounds < 3:
        tmp = inter_layout(layout, axis)
        out.append(("round", layout, tmp))
        layout = _zero_axis(tmp, k, "lane")
        rounds += 1
    if result is not None and len(operand.out_dims) > 1:
        layout = _remove_dim(layout, k)
        if layout != result:
            out.append(("result", layout, result))
    return out


def reduce_conversions(operand: LinearLayout, result: LinearLayout | None, axis: int
                       ) -> list[tuple[LinearLayout, LinearLayout]]:
    """The ``(source, destination)`` layouts of every ``convert_layout`` Triton 3.9.0 emits
    to lower a ``tt.reduce`` of ``operand`` along ``axis`` (per operand), in order.

    Args:
        operand: the operand's distributed layout.
        result: the result's layout (a slice of the operand's), or None for a scalar result.
        axis: the reduced dim.

    Returns:
        Zero, one, two or three conversions: the rounds of cross-warp partial results, then
        the move to ``result`` when the reduced layout is not already it. Each is lowered as a
        ``convert_layout`` (it may stay within warps).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    return [(src, dst) for _, src, dst in reduce_steps(operand, result, axis)]


def kept_reloads(kinds: list[str], shared: list[bool], results_used: tuple[bool, ...],
                 combine: tuple[frozenset[int], ...] | None, operands: int,
                 dead_shuffles_removed: bool = False) -> list[frozenset[int]]:
    """Per conversion of :func:`reduce_steps`, the operands whose scratch reloads are left in
    the assembly when some results of the reduce are unused.

    The stores of every conversion stay (they write memory), and so does everything feeding a
    later conversion through shared memory. Of the last conversion through shared memory:

    * the final move to the result layout: the reload of an unused result is dropped by
      Triton's own lowering (its LLVM IR before LLVM's optimiser already lacks it);
    * a last cross-warp round: its reloads feed the warp shuffles of the in-warp reduction.
      On NVIDIA they stay (``shfl.sync`` is not removed, neither by Triton nor by LLVM); on
      AMD (``dead_shuffles_removed``) LLVM's optimiser removes the dead cross-lane chain,
      and with it the reload of every operand that no used result depends on through the
      combine region (an argmin's index depends on the values, the values not on the
      index; two independent sums do not depend on each other).

    Measured on Triton 3.9.0 (``papers/triton_lowering/unused_result_probes.py``).

    Args:
        kinds: ``"round"``/``"result"`` per conversion, in order.
        shared: per conversion, whether it goes through shared memory.
        results_used: per result, whether it is used; empty when all are.
        combine: per result, the operands it depends on (None: unknown — every result then
            depends on every operand).
        operands: the number of operands.
        dead_shuffles_removed: the target's LLVM removes unused cross-lane ops (AMD).

    Returns:
        One frozenset of operand indices per conversion.

    Raises:
        LayoutError: ``kinds`` and ``shared`` differ in length, or ``results_used``/``combine``
            do not have one entry per operand.
    """
    if len(kinds) != len(shared):
        raise LayoutError(f"{len(kinds)} conversion kinds but {len(shared)} shared flags; "
                          "pass one of each per conversion")
    everything = frozenset(range(operands))
    if not results_used:
        return [everything] * len(kinds)
    if len(results_used) != operands or (combine is not None and len(combine) != operands):
        raise LayoutError(f"a reduce of {operands} operands needs {operands} result flags and "
                          f"dependency sets; got {len(results_used)} and "
                          f"{None if combine is None else len(combine)}")
    used = frozenset(j for j, u in enumerate(results_used) if u)
    live = set(used)
    if combine is None:
        live = set(everything) if used else set()
    else:
        todo = list(used)
        while todo:
            for k in combine[todo.pop()]:
                if k not in live:
                    live.add(k)
                    todo.append(k)
    out = []
    for c, kind in enumerate(kinds):
        if any(shared[c + 1:]):
            out.append(everything)
        elif kind == "result":
            out.append(used)
        elif dead_shuffles_removed:
            out.append(frozenset(live))
        else:
            out.append(everything)
    return out
