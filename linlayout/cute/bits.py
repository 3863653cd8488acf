"""A CuTe layout as an F₂-linear map: what each coordinate bit adds to the index.

CuTe *adds*: ``index = Σ coordinate_leaf · stride_leaf``. F₂ *XORs*. The two agree exactly
when every leaf's shape is a power of two (so a mode's integer coordinate splits into bit
fields) and the nonzero images ``stride · 2^i`` of all coordinate bits are pairwise
bit-disjoint (a sum of disjoint bit sets never carries). Both conditions are necessary: two
coordinate bits whose images share a bit give ``a + b ≠ a ⊕ b`` at the coordinate that sets
just those two. Worked example, ``((_2,_4),_8):((_1,_16),_2)``::

    mode 0: bit 0 -> 1, bits 1, 2 -> 16, 32      (leaf _2:_1, then leaf _4:_16)
    mode 1: bits 0, 1, 2 -> 2, 4, 8              (leaf _8:_2)

All six images are distinct single bits, so the index is the XOR of the images of the set
coordinate bits. ``(_4,_4):(_1,_2)`` is refused: mode 0's bit 1 (image 2) and mode 1's bit 0
(image 2) collide — coordinate (2, 1) has index 4, not 2 ⊕ 2 = 0.

A zero stride gives zero images (a broadcast: allowed here, refused by the memory reading
because it is not a bijection). Shape-1 leaves have no bits, whatever their stride.

Source: the coordinate mapping of ``media/docs/cpp/cute/01_layout.md`` and ``crd2idx`` in
CUTLASS ``include/cute/stride.hpp``; colexicographic splitting as in
:mod:`linlayout.cute.inttuple`.
"""

from __future__ import annotations

from .._checks import instance_of
from ..errors import LayoutError
from .cutelayout import CuteLayout
from .inttuple import IntTuple, format_int_tuple, leaves

__all__ = ["coordinate_images", "describe_mode"]


def describe_mode(path: tuple[int, ...], shape: IntTuple, stride: IntTuple) -> str:
    """How error messages name a mode: ``"mode 1 (_64:_1)"``, ``"mode 0.1 (_8:_512)"``.

    Args:
        path: tuple indices from the top (``(0, 1)`` = sub-mode 1 of mode 0); ``()`` for the
            single mode of an int shape (named mode 0).
        shape, stride: that mode's.

    Example::

        >>> describe_mode((0, 1), 8, 512)
        'mode 0.1 (_8:_512)'
    """
    name = ".".join(str(i) for i in path) if path else "0"
    return f"mode {name} ({format_int_tuple(shape)}:{format_int_tuple(stride)})"


def coordinate_images(layout: CuteLayout) -> list[list[int]]:
    """The index that each coordinate bit of each top-level mode adds (no swizzle, no offset).

    Args:
        layout: a :class:`CuteLayout`; its swizzle and offset are ignored here.

    Returns:
        ``images[k][i]`` = the index of the coordinate whose mode ``k`` is ``2^i`` (all other
        modes 0), for ``i < log2(size of mode k)``; zero for a broadcast (stride-0) bit. The
        inner layout's index of any coordinate is the XOR of the images of its set bits.

    Raises:
        LayoutError: naming the mode — a shape that is not a power of two (its coordinate does
            not split into bits), a negative stride, or two coordinate bits whose images
            share a bit (CuTe's sum would carry, so the map is not F₂-linear); ``layout`` is
            not a CuteLayout (parse text with :func:`~linlayout.cute.parse_cute`).

    Example::

        >>> coordinate_images(CuteLayout(((2, 4), 8), ((1, 16), 2)))
        [[1, 16, 32], [2, 4, 8]]
    """
    instance_of(layout, CuteLayout, "layout")
    shape = layout.shape if isinstance(layout.shape, tuple) else (layout.shape,)
    stride = layout.stride if isinstance(layout.stride, tuple) else (layout.stride,)
    top_path = isinstance(layout.shape, tuple)
    images: list[list[int]] = []
    owner: dict[int, tuple[str, int, int]] = {}  # index bit -> (mode, coordinate bit, image)
    for k, (ms, md) in enumerate(zip(shape, stride)):
        base = (k,) if top_path else ()
        sleaves = leaves(ms)
        dleaves = leaves(md)
        mode_images: list[int] = []
        for (sub, s), (_, d) in zip(sleaves, dleaves):
            where = describe_mode(base + sub, s, d)
            if s == 1:
                continue
            if s & (s - 1):
                raise LayoutError(
                    f"{where}: the shape {s} is not a power of two, so its coordinate does "
                    "not split into bits; the layout is not F2-linear"
                )
            if d < 0:
                raise LayoutError(
                    f"{where}: the stride {d} is negative; an F2-linear layout needs "
                    "non-negative strides"
                )
            for i in range(s.bit_length() - 1):
                img = d << i
                rest = img
                while rest:
                    bit = (rest & -rest).bit_length() - 1
                    rest &= rest - 1
                    if bit in owner:
                        other, obit, oimg = owner[bit]
                        who = "its" if other == where else f"{other}'s"
                        raise LayoutError(
                            f"{where}: coordinate bit {i} adds {img} and {who} coordinate bit "
                            f"{obit} adds {oimg}; both reach index bit {bit}, so CuTe's sum "
                            "carries and the layout is not F2-linear (strides must be powers "
                            "of two on disjoint bits)"
                        )
                    owner[bit] = (where, i, img)
                mode_images.append(img)
        images.append(mode_images)
    return images

