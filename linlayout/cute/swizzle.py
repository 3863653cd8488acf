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

**Bit pairs.** A swizzle is also a set of ``(target bit, source bit)`` pairs —
``Sw<3,4,3>`` is ``((4, 7), (5, 8), (6, 9))`` — and the hardware's TMA/tcgen05 modes are
written that way in :mod:`linlayout.ptx` (one of them, the 8-byte flip, is not a single CuTe
swizzle). :func:`xor_pairs`, :func:`apply_xor_pairs`, :func:`xor_pairs_layout` and
:func:`cute_from_xor_pairs` are the code both modules evaluate swizzles with.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .._checks import MAX_INT_BITS, as_int, bit_vector, log2_exact, shown
from ..errors import LayoutError
from ..layout import LinearLayout

__all__ = [
    "IDENTITY",
    "MAX_SWIZZLE_BITS",
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

#: The triple returned for the identity: CUTLASS spells "no swizzle" ``Swizzle<0,4,3>``
#: (``Layout_{K,MN}_INTER_Atom`` in ``include/cute/atom/mma_traits_sm90_gmma.hpp``).
IDENTITY = (0, 4, 3)

#: A bit-XOR swizzle as ``(target bit, source bit)`` pairs: bit ``target`` of the result is bit
#: ``target`` of the input XOR bit ``source`` of the input. CuTe swizzles and the hardware's
#: TMA/tcgen05 modes (:attr:`linlayout.ptx.SwizzleMode.xor_pairs`) are both written this way.
XorPairs = tuple[tuple[int, int], ...]


def check_swizzle(B: Any, M: Any, S: Any) -> tuple[int, int, int]:
    """Validate a CuTe triple exactly as CuTe's static_asserts do.

    Args:
        B, M, S: ``Swizzle<B,M,S>``'s parameters (ints; bools are refused).

    Returns:
        ``(B, M, S)`` as ints.

    Raises:
        LayoutError: ``B < 0``, ``M < 0`` or ``|S| < B`` (CUTLASS ``include/cute/swizzle.hpp``:
            the read bits ``YYY`` and the written bits ``ZZZ`` must not overlap).

    Example::

        >>> check_swizzle(3, 4, 3)
        (3, 4, 3)
    """
    B, M, S = as_int(B, "B"), as_int(M, "M"), as_int(S, "S")
    if B < 0:
        raise LayoutError(f"Swizzle<B,M,S> needs B >= 0 (number of bits), got B = {_short(B)}")
    if M < 0:
        raise LayoutError(f"Swizzle<B,M,S> needs M >= 0 (bits kept constant), got M = "
                          f"{_short(M)}")
    if abs(S) < B:
        raise LayoutError(
            f"Swizzle<{_short(B)},{_short(M)},{_short(S)}> needs |S| >= B (CuTe static_assert: "
            f"the read and written bits must not overlap); use |S| >= {_short(B)}"
        )
    if M + B + abs(S) > MAX_SWIZZLE_BITS:
        raise LayoutError(
            f"Swizzle<{_short(B)},{_short(M)},{_short(S)}> touches address bits up to "
            f"M + B + |S| = {_short(M + B + abs(S))}; at most {MAX_SWIZZLE_BITS} (a 64-bit "
            "address) are accepted"
        )
    return B, M, S


#: Highest address bit + 1 a swizzle may touch: ``M + B + |S| <= 64`` (addresses are at most
#: 64-bit; CUTLASS's swizzles use at most 10).
MAX_SWIZZLE_BITS = 64


def _short(n: int) -> str:
    """``n`` in decimal, or its bit length when it is too long to print usefully."""
    return str(n) if abs(n) < 1 << 64 else f"<{n.bit_length()}-bit integer>"


def _top_bit(B: int, M: int, S: int) -> int:
    """1 + the highest bit a Swizzle<B,M,S> reads or writes (0 for B = 0)."""
    return M + B + abs(S) if B else 0


def _checked_pairs(pairs: Any) -> list[tuple[int, int]]:
    """``pairs`` as a list of ``(target, source)`` int pairs; LayoutError for anything else."""
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise LayoutError(f"pairs must be (target bit, source bit) pairs, got {shown(pairs)}")
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise LayoutError(f"pairs[{i}] must be a (target bit, source bit) pair, got {shown(pair)}")
        t, src = as_int(pair[0], f"pairs[{i}] target"), as_int(pair[1], f"pairs[{i}] source")
        if t < 0 or src < 0:
            raise LayoutError(f"pairs[{i}] = {shown(pair)}: bit positions must be non-negative")
        out.append((t, src))
    return out


def xor_pairs(B: int, M: int, S: int) -> XorPairs:
    """``Swizzle<B,M,S>`` as ``(target bit, source bit)`` pairs, targets ascending.

    Args:
        B, M, S: CuTe's parameters (``B, M >= 0``, ``|S| >= B``).

    Returns:
        For ``S >= 0``: ``((M, M+S), (M+1, M+S+1), …)`` (the ``B`` bits at ``M + S`` flip the
        ``B`` bits at ``M``); for ``S < 0``: ``((M+|S|, M), …)``; ``()`` for ``B = 0``.

    Raises:
        LayoutError: invalid parameters.

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``yyy_msk`` and ``shiftr`` in ``apply``).

    Example::

        >>> xor_pairs(3, 4, 3)     # the 128B TMA swizzle: address bits 7, 8, 9 flip 4, 5, 6
        ((4, 7), (5, 8), (6, 9))
    """
    B, M, S = check_swizzle(B, M, S)
    if S >= 0:
        return tuple((M + i, M + S + i) for i in range(B))
    return tuple((M - S + i, M + i) for i in range(B))


def apply_xor_pairs(pairs: XorPairs, value: int) -> int:
    """Apply a bit-XOR swizzle to one non-negative int.

    Args:
        pairs: ``(target bit, source bit)`` pairs (see :data:`XorPairs`); sources are read from
            ``value`` itself, so the order of the pairs does not matter.
        value: a non-negative int (a byte address for the hardware modes).

    Returns:
        ``value`` with bit ``t`` XORed with bit ``s`` of ``value`` for every pair ``(t, s)``.

    Raises:
        LayoutError: ``pairs`` is not a sequence of two non-negative ints each below
            :data:`~linlayout._checks.MAX_INT_BITS`, or ``value`` is not a non-negative int.

    Example::

        >>> apply_xor_pairs(((4, 7),), 0x80)   # bit 7 set: bit 4 flips
        144

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``Swizzle::apply``), one XOR per pair.
    """
    value = bit_vector(value, "value")
    checked = _checked_pairs(pairs)
    for i, (t, src) in enumerate(checked):
        if t >= MAX_INT_BITS or src >= MAX_INT_BITS:
            raise LayoutError(f"pairs[{i}] = {shown((t, src))}: bit positions must be below "
                              f"{MAX_INT_BITS}")
    return _xor(checked, value)


def _xor(pairs: XorPairs | list[tuple[int, int]], value: int) -> int:
    """:func:`apply_xor_pairs` on checked arguments (this module's loops)."""
    x = value
    for t, src in pairs:
        x ^= ((value >> src) & 1) << t
    return x


def xor_pairs_layout(pairs: XorPairs, size: int) -> LinearLayout:
    """A bit-XOR swizzle restricted to ``[0, size)``, as a layout ``offset -> offset``.

    Args:
        pairs: ``(target bit, source bit)`` pairs (see :data:`XorPairs`). Pairs whose source is
            at or above ``log2(size)`` read only zeros there and drop out of the restriction.
        size: number of offsets, a positive power of two.

    Returns:
        A :class:`LinearLayout` with in dim ``offset`` and out dim ``offset`` of size ``size``;
        column ``i`` is ``apply_xor_pairs(pairs, 1 << i)``.

    Raises:
        LayoutError: ``size`` not a positive power of two, a pair that is not two non-negative
            ints, or a pair whose source lies inside ``[0, size)`` but whose target does not (the
            map would leave the range).

    Example::

        >>> xor_pairs_layout(((4, 7),), 256).columns   # the 32B TMA swizzle on 256 bytes
        (1, 2, 4, 8, 16, 32, 64, 144)

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``Swizzle::apply``), one XOR per pair.
    """
    n = log2_exact(size, "size")
    checked = _checked_pairs(pairs)
    for t, src in checked:
        if src < n <= t:
            raise LayoutError(
                f"the pair ({t}, {src}) writes bit {t}, outside offsets [0, {1 << n}); use "
                f"size >= {1 << (t + 1)}"
            )
    cols = [_xor(checked, 1 << i) for i in range(n)]
    return LinearLayout.from_columns(cols, {"offset": 1 << n}, {"offset": 1 << n})


def cute_from_xor_pairs(pairs: XorPairs) -> tuple[int, int, int] | None:
    """The CuTe ``(B, M, S)`` whose :func:`xor_pairs` are ``pairs`` (in any order), or None.

    Args:
        pairs: ``(target bit, source bit)`` pairs.

    Returns:
        ``(B, M, S)`` when the targets are ``B`` contiguous bits, the sources are ``B``
        contiguous bits, every source is its target plus the same shift ``S``, and
        ``|S| >= B`` (CuTe's static_assert); :data:`IDENTITY` ``(0, 4, 3)`` for no pairs;
        None otherwise (e.g. the 8-byte-flip TMA mode, whose written bits 3, 5, 6 are not
        contiguous: it is the composition of two CuTe swizzles).

    Raises:
        LayoutError: an entry that is not a pair of non-negative ints.

    Example::

        >>> cute_from_xor_pairs(((6, 7),))      # the 128B_atom_64B TMA mode
        (1, 6, 1)
    """
    clean = _checked_pairs(pairs)
    if not clean:
        return IDENTITY
    targets = sorted(t for t, _ in clean)
    sources = sorted(s for _, s in clean)
    B = len(clean)
    if targets != list(range(targets[0], targets[0] + B)):
        return None
    if sources != list(range(sources[0], sources[0] + B)):
        return None
    S = sources[0] - targets[0]
    if any(s - t != S for t, s in clean) or abs(S) < B:
        return None
    return (B, targets[0] if S > 0 else sources[0], S)


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
    pairs = xor_pairs(B, M, S)
    a = as_int(offset, "offset")
    if a < 0:
        raise LayoutError(f"offset must be non-negative, got {a}")
    return _xor(pairs, a)


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
    pairs = xor_pairs(B, M, S)
    n = _top_bit(B, M, S) if size is None else log2_exact(size, "size")
    if pairs:
        written_top = max(t for t, _ in pairs) + 1
        if written_top > n:
            raise LayoutError(
                f"Swizzle<{B},{M},{S}> writes bit {written_top - 1}, outside offsets "
                f"[0, {1 << n}); use size >= {1 << written_top}"
            )
    return xor_pairs_layout(pairs, 1 << n)


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
    triple = cute_from_xor_pairs(pairs)
    if triple is None or not pairs:
        return triple
    if cute_swizzle(*triple, isize).columns != layout.columns:
        return None
    return triple


_SW = re.compile(r"(?:Sw|Swizzle)\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>")
#: Digits of one swizzle parameter in text (no valid parameter has more than 2).
_SW_DIGITS = 6


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
            f"no CuTe swizzle in {shown(text)}; write it as CuTe prints it, e.g. 'Sw<3,4,3>'"
        )
    if len(found) > 1:
        raise LayoutError(
            f"{shown(text)} holds {len(found)} swizzles; pass one, e.g. 'Sw<3,4,3>' (a composition "
            "of swizzles is not a single CuTe Swizzle)"
        )
    if any(len(v.lstrip("-")) > _SW_DIGITS for v in found[0]):
        raise LayoutError(f"a swizzle parameter in {text[:60]!r} has more than {_SW_DIGITS} "
                          f"digits; B, M and |S| are at most {MAX_SWIZZLE_BITS}")
    return check_swizzle(*(int(v) for v in found[0]))


def format_cute_swizzle(B: int, M: int, S: int) -> str:
    """``"Sw<B,M,S>"``, exactly as CuTe prints it.

    Raises:
        LayoutError: invalid parameters.

    Example::

        >>> format_cute_swizzle(3, 4, 3)
        'Sw<3,4,3>'
    """
    B, M, S = check_swizzle(B, M, S)
    return f"Sw<{B},{M},{S}>"
