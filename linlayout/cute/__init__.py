"""CuTe (CUTLASS) layouts in and out.

* :mod:`~linlayout.cute.swizzle` — ``Swizzle<B,M,S>`` as an F₂-linear layout and back, and the
  XOR-pair helpers :mod:`linlayout.ptx` evaluates its swizzle modes with.
"""

from .swizzle import (
    IDENTITY,
    XorPairs,
    apply_xor_pairs,
    check_swizzle,
    cute_from_xor_pairs,
    cute_swizzle,
    cute_swizzle_offset,
    format_cute_swizzle,
    parse_cute_swizzle,
    to_cute_swizzle,
    xor_pairs,
    xor_pairs_layout,
)

__all__ = [
    "IDENTITY",
    "XorPairs",
    "apply_xor_pairs",
    "check_swizzle",
    "cute_from_xor_pairs",
    "cute_swizzle",
    "cute_swizzle_offset",
    "format_cute_swizzle",
    "parse_cute_swizzle",
    "to_cute_swizzle",
    "xor_pairs",
    "xor_pairs_layout",
]
