"""``CuteLayout``: one CuTe layout as a value — ``shape:stride``, optionally composed with a
swizzle and an offset, ``Sw<B,M,S> o offset o shape:stride``.

CuTe's ``ComposedLayout<Swizzle<B,M,S>, Offset, Layout>`` evaluates (``include/cute/
layout_composed.hpp``)::

    L(c) = Sw(offset + layout(c))

with ``layout(c) = crd2idx(c, shape, stride)`` (:mod:`linlayout.cute.inttuple`). Two offsets
occur in printed layouts:

* an integer (``_0``, ``_32``, or a run-time ``32``): the swizzle acts on the layout's own
  index — what ``composition(Swizzle<…>{}, layout)`` builds (SM80 GEMM atoms, units =
  elements);
* a pointer flag ``smem_ptr[16b](unset)`` (``smem_ptr_flag_bits<16>``, the SM90 GMMA atoms
  ``GMMA::Layout_K_SW128_Atom<T>``): the swizzle acts on the **byte address** of a
  ``sizeof_bits<T>``-bit element (``include/cute/pointer_swizzle.hpp``,
  ``include/cute/pointer_flagged.hpp``). On element indices that is
  ``Sw<B, M + 3 - log2(bits), S>`` — what ``as_position_independent_swizzle_layout`` returns
  (:meth:`CuteLayout.element_swizzle`). Example: ``Sw<3,4,3> o smem_ptr[16b](unset) o
  (_8,_64):(_64,_1)`` is ``Sw<3,3,3>`` on the element index.

Trap: C++'s ``std::cout << layout`` prints the pointer flag of the GMMA atoms as ``_0``, which
reads as the other case (a byte swizzle printed as an element swizzle). Pass what
``cute::print`` writes, or the position-independent form.

Source: CUTLASS ``include/cute/layout_composed.hpp`` (``ComposedLayout``, its ``print`` at
line 648), ``include/cute/swizzle.hpp``, ``include/cute/swizzle_layout.hpp``
(``as_position_independent_swizzle_layout``), ``include/cute/layout.hpp`` (``print`` of a
layout: ``shape:stride``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import as_int, shown
from ..errors import LayoutError
from .inttuple import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    IntTuple,
    congruent,
    crd2idx,
    flatten,
    format_int_tuple,
    idx2crd,
    product,
)
from .swizzle import check_swizzle, cute_swizzle_offset, format_cute_swizzle

__all__ = ["CuteLayout", "MAX_POINTER_BITS"]

#: Widest element a pointer flag ``smem_ptr[Nb]`` may name (bits).
MAX_POINTER_BITS = 1024


def _int_tree(t: Any, what: str, level: int = 0) -> IntTuple:
    """``t`` with every leaf an int (anything with ``__index__``; bools refused) and every
    inner node a tuple (lists are accepted and become tuples); LayoutError past
    :data:`~linlayout.cute.inttuple.MAX_DEPTH` levels."""
    if isinstance(t, (tuple, list)):
        if level >= MAX_DEPTH:
            raise LayoutError(f"{what} is nested deeper than {MAX_DEPTH} levels")
        if not t:
            raise LayoutError(f"{what} holds an empty tuple; every mode needs an extent")
        return tuple(_int_tree(e, what, level + 1) for e in t)
    return as_int(t, what)


@dataclass(frozen=True)
class CuteLayout:
    """A CuTe layout ``shape:stride``, or ``Sw<B,M,S> o offset o shape:stride``.

    Attributes:
        shape: an IntTuple (:mod:`linlayout.cute.inttuple`) of positive ints; one top-level
            mode per entry (an int shape is one mode).
        stride: an IntTuple congruent with ``shape`` (ints; zero and negative allowed here —
            the F₂ conversions refuse what they cannot express, naming the mode).
        swizzle: ``(B, M, S)`` or None (no swizzle). ``Sw<0,M,S>`` is kept as written (the
            identity).
        offset: the integer offset added before the swizzle (layout units; 0 unless the text
            had ``_N``/``N``); non-negative.
        pointer_bits: ``N`` of a ``smem_ptr[Nb](unset)`` flag: the swizzle acts on byte
            addresses of ``N``-bit elements; None for an integer offset.

    Raises:
        LayoutError: shape and stride not congruent, a leaf that is not an int, an empty
            tuple, a shape entry below 1, nesting deeper than :data:`~linlayout.cute.inttuple.MAX_DEPTH`, more than
            :data:`~linlayout.cute.inttuple.MAX_ELEMENTS` elements, an invalid swizzle, a
            negative offset, a pointer flag that is not a power of two up to
            :data:`MAX_POINTER_BITS`, or a pointer flag together with a nonzero offset.

    Example::

        >>> L = CuteLayout((8, 64), (64, 1), swizzle=(3, 3, 3))
        >>> L.text(), L(1, 0), L.size
        ('Sw<3,3,3> o _0 o (_8,_64):(_64,_1)', 72, 512)
    """

    shape: IntTuple
    stride: IntTuple
    swizzle: tuple[int, int, int] | None = None
    offset: int = 0
    pointer_bits: int | None = None

    def __post_init__(self) -> None:
        shape = _int_tree(self.shape, "shape")
        stride = _int_tree(self.stride, "stride")
        if not congruent(shape, stride):
            raise LayoutError(
                f"shape {format_int_tuple(shape)} and stride {format_int_tuple(stride)} are not "
                "congruent (CuTe needs the same tree of tuples in both)"
            )
        for s in flatten(shape):
            if s < 1:
                raise LayoutError(f"shape {format_int_tuple(shape)} has the entry {s}; CuTe "
                                  "shapes are positive")
            if s > MAX_ELEMENTS:
                raise LayoutError(f"shape entry {s} exceeds {MAX_ELEMENTS} (2^24) elements")
        n = product(shape)
        if n > MAX_ELEMENTS:
            raise LayoutError(f"the layout has {n} elements; at most {MAX_ELEMENTS} (2^24) are "
                              "accepted")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)
        if self.swizzle is not None:
            sw = self.swizzle
            if isinstance(sw, (str, bytes)) or not hasattr(sw, "__len__") or len(sw) != 3:
                raise LayoutError(f"swizzle must be (B, M, S) or None, got {shown(sw)}")
            object.__setattr__(self, "swizzle", check_swizzle(*sw))
        off = as_int(self.offset, "offset")
        if off < 0:
            raise LayoutError(f"offset must be non-negative, got {off}")
        object.__setattr__(self, "offset", off)
        if self.pointer_bits is not None:
            bits = as_int(self.pointer_bits, "pointer bits")
            if bits < 1 or bits & (bits - 1) or bits > MAX_POINTER_BITS:
                raise LayoutError(f"smem_ptr[{bits}b]: the element size must be a power of two "
                                  f"from 1 to {MAX_POINTER_BITS} bits")
            if off:
                raise LayoutError("a layout has either a pointer flag (smem_ptr[Nb]) or an "
                                  "integer offset, not both")
            object.__setattr__(self, "pointer_bits", bits)

    # ------------------------------------------------------------------ structure
    @property
    def rank(self) -> int:
        """Number of top-level modes (1 for an int shape)."""
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def modes(self) -> list[tuple[IntTuple, IntTuple]]:
        """``(shape, stride)`` of each top-level mode, mode 0 first."""
        if isinstance(self.shape, tuple):
            return list(zip(self.shape, self.stride))
        return [(self.shape, self.stride)]

    @property
    def size(self) -> int:
        """Number of coordinates (CuTe ``size``)."""
        return product(self.shape)

    @property
    def is_composed(self) -> bool:
        """True when a swizzle, an offset or a pointer flag is present."""
        return self.swizzle is not None or self.offset != 0 or self.pointer_bits is not None

    def inner(self) -> CuteLayout:
        """The plain ``shape:stride`` without swizzle or offset."""
        return CuteLayout(self.shape, self.stride)

    def element_swizzle(self) -> tuple[int, int, int] | None:
        """The swizzle acting on this layout's own index (its units), or None for none.

        With a pointer flag ``smem_ptr[Nb]`` the byte-address swizzle ``Sw<B,M,S>`` becomes
        ``Sw<B, M + 3 - log2(N), S>`` (CUTLASS ``as_position_independent_swizzle_layout``);
        ``Sw<0,M,S>`` is None.

        Raises:
            LayoutError: the byte swizzle moves bits inside one element (``M + 3 < log2(N)``).

        Example::

            >>> CuteLayout((8, 64), (64, 1), (3, 4, 3), pointer_bits=16).element_swizzle()
            (3, 3, 3)
        """
        if self.swizzle is None or self.swizzle[0] == 0:
            return None
        B, M, S = self.swizzle
        if self.pointer_bits is None:
            return (B, M, S)
        m = M + 3 - (self.pointer_bits.bit_length() - 1)
        if m < 0:
            raise LayoutError(
                f"{format_cute_swizzle(B, M, S)} on byte addresses flips bit {M} of the byte "
                f"address, inside one {self.pointer_bits}-bit element; it is not a "
                "permutation of elements"
            )
        return (B, m, S)

    # ------------------------------------------------------------------ evaluation
    def __call__(self, *coord: IntTuple) -> int:
        """CuTe's ``L(c)``: the (swizzled) index of a coordinate, in the layout's units.

        Args:
            coord: one int (split colexicographically over the whole shape), or one
                coordinate per top-level mode (each an int or a nested tuple).

        Raises:
            LayoutError: the wrong number of coordinates, a negative index, or a byte swizzle
                that does not land on an element boundary.
        """
        if len(coord) == 1:
            c: IntTuple = coord[0]
        elif len(coord) == self.rank and isinstance(self.shape, tuple):
            c = tuple(coord)
        else:
            raise LayoutError(f"give one coordinate or {self.rank} (one per mode), got "
                              f"{len(coord)}")
        for x in flatten(c) if isinstance(c, tuple) else (c,):
            as_int(x, "coordinate")
        if not isinstance(c, tuple) and isinstance(self.shape, tuple):
            c = idx2crd(c, self.shape)
        idx = self.offset + crd2idx(c, self.shape, self.stride)
        if self.swizzle is None:
            return idx
        if idx < 0:
            raise LayoutError(f"coordinate {shown(coord)} has the negative index {idx}; a swizzle "
                              "needs a non-negative one")
        B, M, S = self.swizzle
        if self.pointer_bits is None:
            return cute_swizzle_offset(B, M, S, idx)
        bit_addr = idx * self.pointer_bits
        swz = (cute_swizzle_offset(B, M, S, bit_addr >> 3) << 3) | (bit_addr & 7)
        if swz % self.pointer_bits:
            raise LayoutError(f"the byte swizzle moves coordinate {shown(coord)} off an element "
                              "boundary")
        return swz // self.pointer_bits

    # ------------------------------------------------------------------ printing
    def layout_text(self, *, static: bool = True) -> str:
        """``shape:stride`` as ``cute::print`` writes it (``(_8,_64):(_64,_1)``)."""
        return (f"{format_int_tuple(self.shape, static=static)}:"
                f"{format_int_tuple(self.stride, static=static)}")

    def text(self, *, static: bool = True) -> str:
        """The whole layout as ``cute::print`` writes it; ``static=False`` writes run-time
        integers (no ``_``).

        Example::

            >>> CuteLayout((8, 64), (64, 1), (3, 4, 3), pointer_bits=16).text()
            'Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)'
        """
        inner = self.layout_text(static=static)
        if not self.is_composed:
            return inner
        sw = format_cute_swizzle(*(self.swizzle or (0, 4, 3)))
        if self.pointer_bits is not None:
            off = f"smem_ptr[{self.pointer_bits}b](unset)"
        else:
            off = f"_{self.offset}" if static else str(self.offset)
        return f"{sw} o {off} o {inner}"

    def __str__(self) -> str:
        return self.text()
