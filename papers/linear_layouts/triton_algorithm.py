"""Triton's generic swizzling for ``ld/st.shared`` (``optimalSwizzlingLdSt``), as the papers'
comparisons use it.

Source: ``lib/Tools/GenericSwizzling.cpp`` in triton-lang/triton, the function
``optimalSwizzlingLdSt`` that ``unittest/Dialect/TritonGPU/SwizzleTest.cpp`` exercises. The
algorithm itself lives in the library, reproduced as Triton 3.9.0 runs it and checked against
the PTX of hundreds of Triton-compiled kernels:
:func:`linlayout.lowering.scratch.optimal_swizzling_ldst`. This module only adapts its
result to what ``compare_synthesizers.py``, ``../synthesis/compare_alternatives.py`` and
``../synthesis/tutorial_table.py`` read (the bases by role, whether they form a bijection,
Triton's own conflict estimate), so that Triton's choice stands next to
:func:`linlayout.synthesize_swizzle` on the same layout pairs, each measured by the same exact
counter. The steps, as Triton documents them:

1. **Vector** (``getVecBasisLdSt``): the register bases common to both layouts, capped at
   128-bit accesses; under a 32-bit bank word, filled up to one word with one side's
   remaining registers that are *warp* bases of the other side, then with warp bases.
2. **Tiles** (``getLaneTile``): each side's lanes served in one wavefront.
3. **Segment** (``computeSegment``): the unit vectors in neither side's ``vector + tile``
   set; if too few, the set differences of the two sets (as *sets of basis vectors*), paired
   and XORed; pairs that do not fit are replaced by unpaired vectors (accepted conflicts).
4. **Bank** (``complementBasis``): the unit vectors completing ``vector + segment``; under
   128-bit vectors those held in registers of the side that filled the word come first.
5. **Reps** (``buildReps``): segment bases that are registers of both sides (the tile is
   moved in that many rounds).

Step 3 treats subspaces as sets of basis vectors, which is exact only when both sides' bases
are unit vectors; on general linear layouts it can pick dependent segment vectors (then the
result is not a bijection — reported here as ``valid = False``) or conflicting ones.

Triton's own conflict estimate (``bankConflictsLdSt``): per side,
``2^dim(span(segment) ∩ span(tile))`` − 1 extra wavefronts; it does not model the
within-word sharing of sub-word elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from linlayout import LinearLayout, f2
from linlayout.lowering.scratch import optimal_swizzling_ldst

__all__ = ["TritonSwizzle", "triton_swizzle"]


@dataclass(frozen=True)
class TritonSwizzle:
    """The result of the re-expressed algorithm.

    Attributes:
        layout: memory layout with in dims ``vector, bank, segment, reps`` (empty dims dropped),
            or ``None`` when the chosen bases are dependent (``valid`` is False).
        valid: the bases form a bijection onto the tensor.
        vector: vector bases (flat tensor ints), in order.
        bank, segment, reps: the other bases.
        estimate: Triton's own ``(write, read)`` extra-wavefront estimate (``degree − 1``).
        notes: what happened on the way (for the report).
    """

    layout: LinearLayout | None
    valid: bool
    vector: tuple[int, ...]
    bank: tuple[int, ...]
    segment: tuple[int, ...]
    reps: tuple[int, ...]
    estimate: tuple[int, int] | None
    notes: tuple[str, ...] = field(default=())


def triton_swizzle(src: LinearLayout, dst: LinearLayout, element_bits: int,
                   num_banks: int = 32) -> TritonSwizzle:
    """Triton's ``optimalSwizzlingLdSt`` on a (store, load) pair.

    Args:
        src, dst: distributed layouts (in dims among register, lane, warp, block) over the same
            out dims; ``dst``'s out dims are put in ``src``'s order.
        element_bits: bits per element (1 … 128).
        num_banks: 32-bit banks per row (Triton's ``bankBits = num_banks · 32``).

    Returns:
        A :class:`TritonSwizzle` (``layout`` is None when the bases are dependent).

    Raises:
        ValueError: the layouts span several CTAs (block bases).
    """
    dst = dst.transpose_outs(src.out_dim_names)
    if any(src.dim_columns("block")) or any(dst.dim_columns("block")):
        raise ValueError("layouts spanning several CTAs (block bases) are not handled here")
    d = src.total_out_bits
    plan = optimal_swizzling_ldst(src, dst, element_bits, bank_bits=num_banks * 32)
    mem = plan.memory
    parts = {n: tuple(mem.dim_columns(n)) if n in mem.in_dim_names else ()
             for n in ("vector", "bank", "segment", "reps")}
    cols = [c for n in ("vector", "bank", "segment", "reps") for c in parts[n]]
    valid = len(cols) == d and f2.rank(cols) == d
    notes: tuple[str, ...] = ()
    layout = None
    if valid:
        sizes = {n: 1 << len(c) for n, c in parts.items() if c}
        layout = LinearLayout.from_columns(cols, sizes, src.out_dims)
    else:
        notes = (f"vector+bank+segment bases have rank {f2.rank(cols)} of {d}: not a "
                 "bijection",)
    read, write = plan.conflicts
    return TritonSwizzle(layout=layout, valid=valid, vector=parts["vector"],
                         bank=parts["bank"], segment=parts["segment"], reps=parts["reps"],
                         estimate=(write, read) if valid else None, notes=notes)
