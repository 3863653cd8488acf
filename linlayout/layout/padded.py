"""``PaddedLayout``: a shared-memory layout that is a linear remap followed by padding.

A padded layout stores tensor element ``x`` at element offset ``pad(L⁻¹(x))`` where

* ``L`` is a bijective :class:`~linlayout.LinearLayout` with in dims ``offset[, block]`` and
  out dims ``dim0 …`` (the *linear component*; ``L⁻¹(x)`` is the unpadded offset), and
* ``pad(off) = off + Σᵢ ⌊off / intervalᵢ⌋ · padᵢ`` inserts ``padᵢ`` unused elements after every
  ``intervalᵢ`` elements of the unpadded offset space; several (interval, pad) pairs add up.

The padding is integer arithmetic, not F₂-linear, so a padded layout is not a
:class:`~linlayout.LinearLayout`; this class carries both parts. It is Triton's
``#ttg.padded_shared`` (``PaddedSharedEncodingAttr`` in
``lib/Dialect/TritonGPU/IR/Dialect.cpp``: the pairs, ``getPaddedSize``; the address function is
``applyPadding`` / ``getPaddedSharedShifts`` in ``lib/Conversion/TritonGPUToLLVM/Utility.cpp``,
``off + Σ (off >> log2 I) << log2 P`` on the offset).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._checks import power_of_two, shown
from ..errors import LayoutError
from . import LinearLayout

__all__ = ["PaddedLayout", "check_padding_pairs", "padded_size_elems", "padding_vector_log2"]


def check_padding_pairs(pairs: Sequence[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    """``pairs`` as a tuple of ``(interval, pad)`` ints, validated as Triton's verifier does.

    Raises:
        LayoutError: no pair, a pair that is not two ints, an interval or pad that is not a
            positive power of two, or a repeated interval.

    Source: ``PaddedSharedEncodingAttr::verify`` (Triton ``Dialect.cpp``).
    """
    try:
        out = tuple((p[0], p[1]) for p in pairs)
        if any(len(p) != 2 for p in pairs):
            raise TypeError
    except (TypeError, IndexError, KeyError):
        raise LayoutError(f"padding must be a list of (interval, pad) pairs, got {shown(pairs)}") \
            from None
    if not out:
        raise LayoutError("a padded layout needs at least one (interval, pad) pair; without "
                          "padding use the LinearLayout itself")
    for i, (interval, pad) in enumerate(out):
        power_of_two(interval, f"interval {i}")
        power_of_two(pad, f"pad {i}")
    intervals = [i for i, _ in out]
    if len(set(intervals)) != len(intervals):
        raise LayoutError(f"intervals must be distinct, got {shown(intervals)} "
                          "(merge equal intervals "
                          "by adding their pads)")
    return out


def padded_size_elems(n_elems: int, pairs: Sequence[Sequence[int]]) -> int:
    """Elements an allocation of ``n_elems`` unpadded elements spans with the padding.

    ``n + Σᵢ ⌊n / Iᵢ⌋·Pᵢ``, minus ``Pᵢ`` when ``Iᵢ`` divides ``n`` (no trailing pad) — Triton's
    ``PaddedSharedEncodingAttr::getPaddedSize``. Equals ``pad(n − 1) + 1``.

    Raises:
        LayoutError: ``n_elems < 1`` or invalid pairs.
    """
    checked = check_padding_pairs(pairs)
    if isinstance(n_elems, bool) or not isinstance(n_elems, int) or n_elems < 1:
        raise LayoutError(f"n_elems must be a positive int, got {shown(n_elems)}")
    return _apply(n_elems - 1, checked) + 1


def padding_vector_log2(pairs: Sequence[Sequence[int]]) -> int:
    """Largest ``k`` such that a vector of ``2^k`` elements never straddles a gap nor loses
    alignment: ``2^k`` ≤ every interval and every pad a multiple of ``2^k``.

    Triton caps vectors at the smallest interval (``getMinInterval`` in ``lowerLocalLdSt``);
    its verifier only admits power-of-two pads, so a pad smaller than the vector also breaks
    the vector's alignment in the padded space.

    Raises:
        LayoutError: invalid pairs.
    """
    checked = check_padding_pairs(pairs)
    return min(min(i, p) for i, p in checked).bit_length() - 1


def _apply(off: int, pairs: tuple[tuple[int, int], ...]) -> int:
    return off + sum((off // i) * p for i, p in pairs)


@dataclass(frozen=True)
class PaddedLayout:
    """A linear remap plus (interval, pad) pairs (see the module docstring).

    Attributes:
        linear: bijective layout, in dims ``offset[, block]`` → ``dim0 …`` (the unpadded
            element offset of each tensor coordinate is its inverse).
        pairs: ``((interval, pad), …)`` in elements, powers of two, distinct intervals.

    Raises:
        LayoutError: a ``linear`` that is not a bijective shared-memory layout (other in dims,
            not invertible), or invalid pairs.

    Source: ``PaddedSharedEncodingAttr`` (Triton ``Dialect.cpp``) and ``applyPadding``
    (``TritonGPUToLLVM/Utility.cpp``).
    """

    linear: LinearLayout
    pairs: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.linear, LinearLayout):
            raise LayoutError(f"linear must be a LinearLayout, got {type(self.linear).__name__}")
        ins = list(self.linear.in_dim_names)
        if ins not in (["offset"], ["offset", "block"]):
            raise LayoutError(f"a padded layout's linear component needs in dims offset[, block], "
                              f"got {shown(ins)}")
        if not (self.linear.is_injective and self.linear.is_surjective):
            raise LayoutError("a padded layout's linear component must be a bijection "
                              "(Triton: 'Broadcasting is not supported')")
        object.__setattr__(self, "pairs", check_padding_pairs(self.pairs))

    @classmethod
    def identity(cls, pairs: Sequence[Sequence[int]], shape: Sequence[int],
                 order: Sequence[int]) -> "PaddedLayout":
        """Row-major-by-``order`` offsets (``order[0]`` fastest) then padding.

        Triton's short printed form ``[I:+P] {order, shape}``
        (``identityStandardND("offset", shape, order)``; Gluon
        ``PaddedSharedLayout.with_identity_for``).

        Raises:
            LayoutError: ``order`` not a permutation of the dims, a size not a power of two,
                or invalid pairs.
        """
        shape = list(shape)
        rank = len(shape)
        if sorted(order) != list(range(rank)):
            raise LayoutError(f"order must be a permutation of 0..{rank - 1}, "
                              f"got {shown(list(order))}")
        for s in shape:
            power_of_two(s, "every dim size")
        bases = []
        for d in order:
            for b in range(shape[d].bit_length() - 1):
                v = [0] * rank
                v[d] = 1 << b
                bases.append(v)
        outs = {f"dim{d}": shape[d] for d in range(rank)}
        lin = LinearLayout({"offset": bases}, out_dims=outs)
        return cls(lin, tuple(tuple(p) for p in pairs))

    # -- sizes
    @property
    def offset_elems(self) -> int:
        """Unpadded elements per CTA (the ``offset`` dim's size)."""
        return self.linear.in_dims["offset"]

    @property
    def size_elems(self) -> int:
        """Elements the padded allocation spans per CTA, padding included (``getPaddedSize``)."""
        return _apply(self.offset_elems - 1, self.pairs) + 1

    def size_bytes(self, element_bits: int) -> int:
        """Bytes of one CTA's padded allocation (rounded up to a byte).

        Raises:
            LayoutError: ``element_bits`` not a positive int.
        """
        if isinstance(element_bits, bool) or not isinstance(element_bits, int) or element_bits < 1:
            raise LayoutError(f"element_bits must be a positive int, got {shown(element_bits)}")
        return -(-self.size_elems * element_bits // 8)

    def overhead_bytes(self, element_bits: int) -> int:
        """Bytes the padding adds per CTA: ``size_bytes − unpadded bytes``."""
        return self.size_bytes(element_bits) - -(-self.offset_elems * element_bits // 8)

    @property
    def max_vector_elems(self) -> int:
        """Widest vector the padding allows (:func:`padding_vector_log2`), in elements."""
        return 1 << padding_vector_log2(self.pairs)

    # -- addresses
    def padded_offset(self, offset: int) -> int:
        """``offset + Σ ⌊offset / I⌋·P``: the padded element offset of an unpadded one.

        Raises:
            LayoutError: ``offset`` outside ``0 … offset_elems − 1``.
        """
        if isinstance(offset, bool) or not isinstance(offset, int) or not (
                0 <= offset < self.offset_elems):
            raise LayoutError(f"offset must be an int in 0..{self.offset_elems - 1}, "
                              f"got {shown(offset)}")
        return _apply(offset, self.pairs)

    def element_offset(self, coord: Sequence[int]) -> tuple[int, int]:
        """(padded element offset, block) of the tensor coordinate ``coord`` (``dim0`` first).

        Raises:
            LayoutError: wrong rank or a coordinate out of range.
        """
        names = list(self.linear.out_dim_names)
        if len(coord) != len(names):
            raise LayoutError(f"coord needs {len(names)} entries ({names}), "
                              f"got {shown(list(coord))}")
        for n, c in zip(names, coord):
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < self.linear.out_dims[n]:
                raise LayoutError(f"coord {shown(list(coord))} is outside the tensor "
                                  f"{dict(self.linear.out_dims)}")
        pre = self.linear.invert().apply(dict(zip(names, coord)))
        return _apply(pre["offset"], self.pairs), pre.get("block", 0)

    def byte_address(self, coord: Sequence[int], element_bits: int) -> int:
        """Byte address (from the CTA's buffer start) of the first bit of element ``coord``.

        Raises:
            LayoutError: as :meth:`element_offset`; an ``element_bits`` that is not positive.
        """
        if isinstance(element_bits, bool) or not isinstance(element_bits, int) or element_bits < 1:
            raise LayoutError(f"element_bits must be a positive int, got {shown(element_bits)}")
        return self.element_offset(coord)[0] * element_bits // 8

    def all_padded_offsets(self) -> list[int]:
        """``pad(off)`` for every unpadded offset, in offset order (a lookup table)."""
        return [_apply(x, self.pairs) for x in range(self.offset_elems)]

    def __str__(self) -> str:
        pairs = ", ".join(f"{i}:+{p}" for i, p in self.pairs)
        return f"PaddedLayout([{pairs}], {self.linear!s})"
