"""CuTe's ``Swizzle<B,M,S>`` as an F₂-linear layout, and back.

CuTe (CUTLASS ``include/cute/swizzle.hpp``) defines a swizzle functor on integer offsets::

    yyy = ((1 << B) - 1) << (M + max(0, S))       # the bits that are read
    Swizzle<B,M,S>(a) = a ^ shiftr(a & yyy, S)      # shiftr(x, s) = x >> s, or x << -s if s < 0

with ``B, M >= 0`` and ``|S| >= B``. For ``S > 0`` the ``B`` bits starting at ``M + S`` are
XORed into the ``B`` bits starting at ``M``; for ``S < 0`` the bits starting at ``M`` are
XORed into the bits starting at ``M + |S|``. Every such map is F₂-linear (each output bit is
the XOR of input bits), so it is a :class:`~linlayout.LinearLayout` with one in dim and one out
dim, both named ``offset``. 4-bit example, ``Swizzle<1,0,2>`` (bit 2 into bit 0)::

    a = 0b0101  ->  0b0101 ^ (0b0100 >> 2) = 0b0100
    columns: 1, 2, 4 ^ 1 = 5, 8

CuTe prints the functor as ``Sw<B,M,S>`` (``print(Swizzle<B,M,S>)``, same file).

**Units.** The functor is unit-agnostic; CUTLASS's shared-memory atoms
(``ComposedLayout<Swizzle<…>, smem_ptr_flag, …>``) apply it to the *byte* address of the
pointer (``swizzle_ptr::apply_swizzle`` casts the pointer to ``uintptr_t``,
``include/cute/pointer_swizzle.hpp``), so for those the offsets here are **bytes**.
:mod:`linlayout.ptx` relates the TMA/tcgen05 modes to these triples.
"""

from __future__ import annotations

import re
from typing import Any

from ._checks import as_int
from .errors import LayoutError
from .layout import LinearLayout

__all__ = [
    "cute_swizzle",
    "cute_swizzle_offset",
    "format_cute_swizzle",
    "parse_cute_swizzle",
    "to_cute_swizzle",
]

#: The triple returned for the identity: CUTLASS spells "no swizzle" ``Swizzle<0,4,3>``
#: (``Layout_{K,MN}_INTER_Atom`` in ``include/cute/atom/mma_traits_sm90_gmma.hpp``).
IDENTITY = (0, 4, 3)




def _check_bms(B: Any, M: Any, S: Any) -> tuple[int, int, int]:
    """Validate a CuTe triple exactly as CuTe's static_asserts do."""
    B, M, S = as_int(B, "B"), as_int(M, "M"), as_int(S, "S")
    if B < 0:
        raise LayoutError(f"Swizzle<B,M,S> needs B >= 0 (number of bits), got B = {B}")
    if M < 0:
        raise LayoutError(f"Swizzle<B,M,S> needs M >= 0 (bits kept constant), got M = {M}")
    if abs(S) < B:
        raise LayoutError(
            f"Swizzle<{B},{M},{S}> needs |S| >= B (CuTe static_assert: the read and written "
            f"bits must not overlap); use |S| >= {B}"
        )
    return B, M, S


def _top_bit(B: int, M: int, S: int) -> int:
    """1 + the highest bit a Swizzle<B,M,S> reads or writes (0 for B = 0)."""
    return M + B + abs(S) if B else 0


def cute_swizzle_offset(B: int, M: int, S: int, offset: int) -> int:
    """Apply ``Swizzle<B,M,S>`` to one non-negative offset (plain integer arithmetic).

    Args:
        B, M, S: CuTe's parameters (``B, M >= 0``, ``|S| >= B``); ``S`` may be negative.
        offset: a non-negative int (bytes when used as CUTLASS's smem pointer swizzle).

    Returns:
        ``offset ^ shiftr(offset & yyy, S)`` with ``yyy = ((1 << B) - 1) << (M + max(0, S))``.

    Raises:
        LayoutError: invalid parameters or a negative offset.

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``Swizzle::apply``).

    Example::

        >>> cute_swizzle_offset(3, 4, 3, 0x90)   # 128B TMA swizzle: line 1, chunk 1 -> chunk 0
        128
    """
    B, M, S = _check_bms(B, M, S)
    a = as_int(offset, "offset")
    if a < 0:
        raise LayoutError(f"offset must be non-negative, got {a}")
    yyy = ((1 << B) - 1) << (M + max(0, S))
    moved = a & yyy
    return a ^ (moved >> S if S >= 0 else moved << -S)


def cute_swizzle(B: int, M: int, S: int, size: int | None = None) -> LinearLayout:
    """``Swizzle<B,M,S>`` as a layout ``offset -> offset`` on ``[0, size)``.

    Args:
        B, M, S: CuTe's parameters (``B, M >= 0``, ``|S| >= B``).
        size: number of offsets (a power of two; bytes for CUTLASS's smem swizzles). Default:
            ``2^(M + B + |S|)``, the smallest range containing every bit the swizzle touches
            (1 for ``B = 0``). A smaller size is allowed while the written bits fit in it (the
            map is then the restriction, still a bijection).

    Returns:
        A :class:`LinearLayout` with in dim ``offset`` and out dim ``offset`` of size ``size``.

    Raises:
        LayoutError: invalid parameters, ``size`` not a power of two, or written bits at or
            above ``log2(size)`` (the map would leave ``[0, size)``).

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``Swizzle::apply`` and the diagram above
    ``struct Swizzle``: the ``B`` bits "YYY" at ``M + S`` are XORed into the ``B`` bits "ZZZ"
    at ``M``); for ``S >= 0`` that is ``a ^ ((a & (((1<<B)-1) << (M+S))) >> S)``.

    Example::

        >>> cute_swizzle(1, 4, 3).columns   # 32B swizzle: byte-address bit 7 flips bit 4
        (1, 2, 4, 8, 16, 32, 64, 144)
    """
    B, M, S = _check_bms(B, M, S)
    if size is None:
        size = 1 << _top_bit(B, M, S)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1 or size & (size - 1):
        raise LayoutError(f"size must be a positive power of two, got {size!r}")
    n = size.bit_length() - 1
    if B:
        written_top = (M + B if S >= 0 else M - S + B)  # 1 + highest written bit
        if written_top > n:
            raise LayoutError(
                f"Swizzle<{B},{M},{S}> writes bit {written_top - 1}, outside offsets "
                f"[0, {size}); use size >= {1 << written_top}"
            )
    cols = [cute_swizzle_offset(B, M, S, 1 << i) for i in range(n)]
    return LinearLayout.from_columns(cols, {"offset": size}, {"offset": size})


def to_cute_swizzle(layout: LinearLayout) -> tuple[int, int, int] | None:
    """The ``(B, M, S)`` with ``cute_swizzle(B, M, S, size) == layout``, or None.

    Args:
        layout: a layout with exactly one in dim and one out dim of the same size (the names
            do not matter; ``offset -> offset`` by convention).

    Returns:
        ``(B, M, S)`` with ``B >= 1`` when the layout is a single non-trivial CuTe swizzle
        (the triple is then unique); ``(0, 4, 3)`` — CUTLASS's spelling of "no swizzle" —
        for the identity; ``None`` for anything else (e.g. the 8-byte-flip TMA mode, which
        needs two swizzles, or any non-swizzle permutation).

    Raises:
        LayoutError: ``layout`` is not a LinearLayout or has other than one in and one out
            dim of equal size.

    Example::

        >>> to_cute_swizzle(cute_swizzle(3, 4, 3))
        (3, 4, 3)
    """
    if not isinstance(layout, LinearLayout):
        raise LayoutError(f"layout must be a LinearLayout, got {type(layout).__name__}")
    if len(layout.in_dims) != 1 or len(layout.out_dims) != 1:
        raise LayoutError(
            "to_cute_swizzle needs one in dim and one out dim (offset -> offset); got in "
            f"dims {list(layout.in_dim_names)} and out dims {list(layout.out_dim_names)}"
        )
    (isize,), (osize,) = layout.in_dims.values(), layout.out_dims.values()
    if isize != osize:
        raise LayoutError(f"in and out dims must have the same size, got {isize} and {osize}")
    pairs = []  # (target bit, source bit)
    for s, col in enumerate(layout.columns):
        extra = col ^ (1 << s)
        if extra & (extra - 1):
            return None  # a source feeding two targets (or a lost identity bit)
        if extra:
            t = extra.bit_length() - 1
            if not col >> s & 1:
                return None  # the identity part is missing: not a swizzle
            pairs.append((t, s))
    if not pairs:
        return IDENTITY
    targets = sorted(t for t, _ in pairs)
    sources = sorted(s for _, s in pairs)
    B = len(pairs)
    if len(set(targets)) != B:
        return None
    if targets != list(range(targets[0], targets[0] + B)):
        return None
    if sources != list(range(sources[0], sources[0] + B)):
        return None
    S = sources[0] - targets[0]
    if any(s - t != S for t, s in pairs) or abs(S) < B:
        return None
    M = targets[0] if S > 0 else sources[0]
    if cute_swizzle(B, M, S, isize).columns != layout.columns:
        return None
    return (B, M, S)


_SW = re.compile(r"(?:Sw|Swizzle)\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>")


def parse_cute_swizzle(text: str) -> tuple[int, int, int]:
    """Read ``(B, M, S)`` from CuTe's printed form.

    Args:
        text: ``"Sw<3,4,3>"`` (what ``cute::print`` writes), ``"Swizzle<3,4,3>"``, or a printed
            composed layout such as ``"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"``
            (the first swizzle is read; whitespace is allowed).

    Returns:
        ``(B, M, S)``, validated like CuTe's static_asserts.

    Raises:
        LayoutError: no ``Sw<B,M,S>`` in the text, more than one, or invalid parameters.

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``print(Swizzle<B,M,S>)``).

    Example::

        >>> parse_cute_swizzle("Sw<2,5,2>")
        (2, 5, 2)
    """
    if not isinstance(text, str):
        raise LayoutError(f"expected a string such as 'Sw<3,4,3>', got {type(text).__name__}")
    found = _SW.findall(text)
    if not found:
        raise LayoutError(
            f"no CuTe swizzle in {text!r}; write it as CuTe prints it, e.g. 'Sw<3,4,3>'"
        )
    if len(found) > 1:
        raise LayoutError(
            f"{text!r} holds {len(found)} swizzles; pass one, e.g. 'Sw<3,4,3>' (a composition "
            "of swizzles is not a single CuTe Swizzle)"
        )
    return _check_bms(*(int(v) for v in found[0]))


def format_cute_swizzle(B: int, M: int, S: int) -> str:
    """``"Sw<B,M,S>"``, exactly as CuTe prints it.

    Raises:
        LayoutError: invalid parameters.

    Example::

        >>> format_cute_swizzle(3, 4, 3)
        'Sw<3,4,3>'
    """
    B, M, S = _check_bms(B, M, S)
    return f"Sw<{B},{M},{S}>"
