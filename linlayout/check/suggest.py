"""Better shared layouts for a buffer: the cheapest layout Triton can express for all of the
buffer's accesses, judged with the instructions Triton would then emit.

Candidates (:func:`suggest_layout`): every ``swizzled_shared`` (vec / perPhase / maxPhase, both
minor-dim orders) for the tile, and :func:`linlayout.synthesize_swizzle` of each (store, load)
pair of the buffer (printed as ``shared_linear`` or the named layout it equals); for buffers
that TMA or wgmma/tcgen05 also use, only ``nvmma_shared`` widths. Each candidate is costed by
re-predicting every access's instruction on it (:mod:`linlayout.check.shared_memory` — so a
layout that allows ``ldmatrix`` or wider vectors gains them, one that breaks them loses them)
and counting it exactly; the score is (worst degree, total wavefronts per warp, instructions
per warp, named layout before synthesized).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._memo import memoize
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..synthesis import synthesize_swizzle
from ..triton import encodings as Lyt
from .count import count_side
from .report import Suggestion
from ..lowering.target import Target
from .shared_memory.ops import cached_copy
from ..triton.limits import MAX_SUGGEST_ACCESSES, MAX_SUGGEST_BYTES
from ..triton.to_triton import to_triton_text

__all__ = ["BufferSide", "MAX_SUGGEST_ACCESSES", "MAX_SUGGEST_BYTES", "cost_on", "skipped_search",
           "suggest_layout"]

# MAX_SUGGEST_ACCESSES (linlayout.triton.limits, with the reader's other limits): the most
# distinct accesses of one buffer for which a better layout is searched.


@dataclass(frozen=True)
class BufferSide:
    """One access of a buffer: ``kind`` ``"store"``/``"load"``, its register layout inside the
    allocation, the element bits, the line, and the async-copy settings."""

    line: int
    kind: str
    dist: LinearLayout
    bits: int
    async_copy: bool = False
    contiguity: int | None = None


@memoize(64)
def _catalog(shape: tuple[int, ...]) -> tuple[tuple[LinearLayout, str], ...]:
    """Every distinct ``swizzled_shared`` layout of a tile of ``shape`` with its description,
    cached per shape (the search meets the same tile shapes across a file's buffers)."""
    rank = len(shape)
    out: list[tuple[LinearLayout, str]] = []
    seen: set[LinearLayout] = set()
    pairs = [(rank - 1, rank - 2), (rank - 2, rank - 1)] if rank >= 2 else [(0,)]
    for pair in pairs:
        order = list(pair) + [d for d in range(rank - 1, -1, -1) if d not in pair]
        cols = shape[order[0]]
        rows = shape[order[1]] if rank >= 2 else 1
        vecs = [1 << k for k in range(max(1, cols).bit_length()) if (1 << k) <= cols]
        phases = [1 << k for k in range(max(1, rows).bit_length()) if (1 << k) <= rows]
        for vec in vecs:
            maxes = [1 << k for k in range((cols // vec).bit_length()) if (1 << k) <= cols // vec]
            for per in phases:
                for mx in maxes:
                    if mx == 1 and (per != 1 or vec != 1):
                        continue
                    try:
                        layout = Lyt.swizzled_shared(vec, per, mx, order).to_linear_layout(shape)
                    except LayoutError:
                        continue
                    if layout in seen:
                        continue
                    seen.add(layout)
                    out.append((layout, f"swizzled_shared vec={vec} perPhase={per} "
                                        f"maxPhase={mx} order={order}"))
    return tuple(out)


def _distinct(sides: Sequence[BufferSide]) -> list[tuple[tuple, int]]:
    """Identical accesses once, with how many times they occur."""
    times: dict[tuple, int] = {}
    for s in sides:
        key = (s.kind, s.dist, s.bits, s.async_copy, s.contiguity)
        times[key] = times.get(key, 0) + 1
    return list(times.items())


def cost_on(sides: Sequence[BufferSide], layout: LinearLayout, target: Target,
            hardware: HardwareModel) -> tuple[int, int, int]:
    """(worst degree, wavefronts per warp, instructions per warp) of ``sides`` on ``layout``.

    Raises:
        LayoutError: an access cannot be lowered on this layout.
    """
    return _cost(_distinct(sides), layout, target, hardware)


def _cost(distinct: list[tuple[tuple, int]], layout: LinearLayout, target: Target,
          hardware: HardwareModel) -> tuple[int, int, int]:
    deg, wf, ins = 1, 0, 0
    for (kind, dist, bits, async_copy, contiguity), n in distinct:
        p = cached_copy(kind, dist, layout, bits, target, async_copy, contiguity)
        for side in p.sides:
            rep = count_side(side, hardware)
            if rep is None:
                continue
            deg = max(deg, rep.degree)
            wf += n * rep.wavefronts_per_warp
            ins += n * rep.instructions_per_warp
    return deg, wf, ins


def skipped_search(sides: Sequence[BufferSide], tile: LinearLayout) -> str | None:
    """Why :func:`suggest_layout` does not search a buffer of shape ``tile.out_dims`` with
    these accesses, or None when it does: more than :data:`MAX_SUGGEST_ACCESSES` distinct
    accesses, or more than :data:`MAX_SUGGEST_BYTES` bytes (no GPU's shared memory holds it:
    228 KiB on sm_90/sm_100, CUDA C++ Programming Guide, "Compute Capabilities").

    Args:
        sides: the buffer's accesses (:class:`BufferSide`, element bits in each).
        tile: the buffer's tile (out dims ``dim0, dim1, …``; only its size is read).

    Returns:
        A one-line note (``"no layout searched: …"``) or None. Raises nothing: both
        arguments come checked from :func:`~linlayout.check.check_module`."""
    distinct = len(_distinct(sides))
    if distinct > MAX_SUGGEST_ACCESSES:
        return (f"no layout searched: {distinct} distinct accesses, more than "
                f"{MAX_SUGGEST_ACCESSES} (MAX_SUGGEST_ACCESSES)")
    size = (1 << tile.total_out_bits) * max(8, sides[0].bits) // 8 if sides else 0
    if size > MAX_SUGGEST_BYTES:
        return (f"no layout searched: the buffer has {size} bytes, more than any GPU's shared "
                f"memory ({MAX_SUGGEST_BYTES} bytes, MAX_SUGGEST_BYTES)")
    return None


def suggest_layout(sides: Sequence[BufferSide], tile: LinearLayout, target: Target,
                   hardware: HardwareModel, nvmma_only: bool = False,
                   current: Lyt.Encoding | None = None) -> Suggestion | None:
    """The cheapest layout for all ``sides`` of one buffer of shape ``tile.out_dims``, or None
    when no candidate can be lowered or the buffer has more than
    :data:`MAX_SUGGEST_ACCESSES` distinct accesses or more than :data:`MAX_SUGGEST_BYTES`
    bytes (the search is not run: :func:`skipped_search` says why)."""
    if skipped_search(sides, tile) is not None:
        return None
    distinct = _distinct(sides)
    bits = sides[0].bits
    shape = [tile.out_dims[f"dim{i}"] for i in range(len(tile.out_dims))]
    cands: list[tuple[LinearLayout, str, int]] = []
    if nvmma_only:
        transposed = [current.transposed] if isinstance(current, Lyt.NvmmaSharedEncoding) \
            else [False, True]
        for sw in (128, 64, 32, 0):
            for tr in transposed:
                try:
                    enc = Lyt.nvmma_shared(sw, bits, transposed=tr, rank=len(shape))
                    cands.append((enc.to_linear_layout(shape),
                                  f"nvmma_shared swizzle {sw}B{' transposed' if tr else ''} "
                                  "(the buffer is used by TMA/wgmma/tcgen05)", 0))
                except LayoutError:
                    continue
    else:
        cands.extend((lay, how, 0) for lay, how in _catalog(tuple(shape)))
        first: dict[tuple[LinearLayout, str], BufferSide] = {}
        for s in sides:  # the first access of each (layout, kind), in file order
            first.setdefault((s.dist, s.kind), s)
        uniq = list(first.values())
        stores = [s for s in uniq if s.kind == "store"] or uniq
        loads = [s for s in uniq if s.kind == "load"] or uniq
        for st in stores[:4]:
            for ld in loads[:4]:
                try:
                    r = synthesize_swizzle(st.dist, ld.dist, element_bits=bits,
                                           hardware=hardware)
                except LayoutError:
                    continue
                cands.append((r.layout, f"synthesize_swizzle(store line {st.line}, "
                                        f"load line {ld.line})", 1))
    best = None
    for layout, how, pref in cands:
        try:
            deg, wf, ins = _cost(distinct, layout, target, hardware)
        except LayoutError:
            continue
        key = (deg, wf, ins, pref)
        if best is None or key < best[0]:
            best = (key, layout, how)
    if best is None:
        return None
    (deg, wf, ins, _), layout, how = best
    text = to_triton_text(layout, bits if bits in (8, 16, 32, 64) else None,
                          prefer="nvmma" if nvmma_only else "swizzled")
    return Suggestion(text, deg, wf, ins, how, layout)
