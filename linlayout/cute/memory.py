"""CuTe shared-memory layouts as linlayout memory layouts: ``offset -> dim0, dim1, …``.

A CuTe layout maps a coordinate to an offset; linlayout's shared-memory layouts
(:func:`linlayout.bank_conflicts`, :func:`linlayout.synthesize_swizzle`) map an offset to the
coordinate stored there. :func:`parse_layout` reads the first and returns the second — its
inverse — which exists exactly when the CuTe layout is F₂-linear and a bijection onto
``[0, size)``:

* every mode's shape a power of two, strides powers of two on pairwise disjoint bits
  (:mod:`linlayout.cute.bits`), no zero stride on a mode of size > 1 (a broadcast), and the
  strides filling ``[0, size)`` with no gap (cosize = size);
* the swizzle (on the layout's index: ``Sw<B,M,S>`` after ``o _0 o``, or the byte swizzle of
  ``smem_ptr[Nb]`` recast to elements) moving no bit of ``[0, size)`` outside it;
* an offset ``o`` other than 0 only where it leaves the map linear relative to the start of
  the tile, which this module recognises in two cases: no swizzle (``Sw<0,M,S>``: the tile
  simply starts ``o`` units later), or ``o`` a multiple of the size ``N`` (so
  ``o + i = o ⊕ i`` for every index ``i``) with ``Sw(o)`` a multiple of ``N`` too (then
  ``Sw(o ⊕ i) = Sw(o) + Sw(i)``: the same tile, starting ``Sw(o)`` units later). The result
  is relative to that start. Any other offset is refused with the reason: typically the map is
  affine — a constant XORed into every offset, as in a slice of a larger swizzled layout
  (``Sw<3,3,3> o _64 o (_4,_64):(_128,_1)``); parse the whole layout instead. (A swizzle that
  happens to read only bits the shifted tile never sets would also be linear; such offsets
  are refused too.)

**Padded layouts.** A plain layout (no swizzle, offset 0) whose strides are those of a compact
layout with padding inserted — ``(_64,_64):(_72,_1)``, 64 rows of 64 elements, each row padded
by 8 — is Triton's ``#ttg.padded_shared<[64:+8] …>``, not a linear map:
:func:`parse_layout` returns it as a :class:`~linlayout.layout.padded.PaddedLayout` (which
:func:`linlayout.bank_conflicts` counts exactly as it counts ``#ttg.padded_shared``). Sorted by
stride, each leaf's stride must be the padded offset of its compact stride ``u`` (the product
of the smaller leaves' shapes), ``pad(u) = u + Σ ⌊u / I⌋·P`` over the pairs found so far; a
leaf whose stride exceeds that by ``P`` adds the pair ``(u, P)``. The map is then exactly
``pad(compact(c))`` at every coordinate (``⌊Σ c_i u_i / u_k⌋ = Σ_{i ≥ k} c_i u_i / u_k``), and
the pairs must be powers of two (Triton's verifier). Worked example, ``(_64,_64):(_72,_1)``:
the column leaf ``64:1`` has ``u = 1``, stride 1, no pad; the row leaf ``64:72`` has ``u = 64``
and ``pad(64) = 64``, so the pair ``(64, 8)``. Anything else keeps the refusal below.

Units: the offsets are the CuTe layout's (usually elements); the out dims ``dim0, dim1, …``
are the top-level modes in order, and a coordinate of a hierarchical mode is its
colexicographic index (CuTe's 1-D coordinate of that mode). Example: the SM80 f16 GEMM atom
``Sw<3,3,3> o _0 o (_8,_64):(_64,_1)`` (8 rows of 64 halves) is ``offset -> (dim0 = row,
dim1 = column)`` with ``offset 8 -> (0, 8)`` and ``offset 64 -> (1, 8)`` (row 1's first chunk
is swizzled to chunk 1).

Source: CUTLASS ``include/cute/layout_composed.hpp`` (``ComposedLayout``:
``L(c) = Sw(offset + layout(c))``), ``include/cute/swizzle.hpp``.
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .bits import coordinate_images, describe_mode
from .cutelayout import CuteLayout
from .inttuple import IntTuple, flatten, leaves, product
from .parse import parse_cute
from .swizzle import apply_xor_pairs, format_cute_swizzle, xor_pairs

__all__ = ["byte_swizzle_hint", "index_layout", "parse_layout"]


def _mode_leaves(cl: CuteLayout) -> list[tuple[str, int, int]]:
    """``(description, shape, stride)`` of every leaf, mode 0 first."""
    out = []
    top = isinstance(cl.shape, tuple)
    for k, (ms, md) in enumerate(cl.modes()):
        base = (k,) if top else ()
        for (sub, s), (_, d) in zip(leaves(ms), leaves(md)):
            out.append((describe_mode(base + sub, s, d), s, d))
    return out


def _dims(cl: CuteLayout) -> dict[str, int]:
    """``{"dim{k}": size of top-level mode k}``."""
    return {f"dim{k}": product(ms) for k, (ms, _) in enumerate(cl.modes())}


def _with_leaves(tree: IntTuple, values: list[int]) -> IntTuple:
    """``tree`` with its leaves replaced, left to right, by ``values`` (consumed)."""
    if isinstance(tree, tuple):
        return tuple(_with_leaves(t, values) for t in tree)
    return values.pop(0)


def _padding(cl: CuteLayout) -> tuple[CuteLayout, tuple[tuple[int, int], ...]] | None:
    """(the compact layout, the (interval, pad) pairs) when ``cl`` is a compact layout with
    padding (module docstring), else None."""
    if cl.is_composed:
        return None
    shapes, strides = flatten(cl.shape), flatten(cl.stride)
    big = [i for i, s in enumerate(shapes) if s > 1]
    if any(shapes[i] & (shapes[i] - 1) or strides[i] <= 0 for i in big):
        return None
    compact = [0] * len(shapes)
    pairs: list[tuple[int, int]] = []
    u = 1
    for i in sorted(big, key=lambda k: strides[k]):
        extra = strides[i] - (u + sum((u // iv) * pad for iv, pad in pairs))
        if extra < 0 or extra & (extra - 1):
            return None
        if extra:
            pairs.append((u, extra))
        compact[i] = u
        u *= shapes[i]
    if not pairs:
        return None
    return CuteLayout(cl.shape, _with_leaves(cl.stride, compact)), tuple(pairs)


def index_layout(layout: Any) -> LinearLayout:
    """A CuTe layout as the F₂-linear map ``dim0, dim1, … -> offset`` (the CuTe direction).

    Args:
        layout: CuTe text, a :class:`~linlayout.cute.CuteLayout` or a pycute object
            (:func:`linlayout.cute.parse_cute`). Zero strides (broadcasts) are allowed here.

    Returns:
        In dims ``dim{k}`` (the size of top-level mode ``k``), one out dim ``offset`` of the
        smallest power-of-two size holding every index; ``apply_flat(i)`` is CuTe's ``L(i)``.

    Raises:
        LayoutError: the layout is not F₂-linear (:func:`linlayout.cute.bits.
            coordinate_images`), it has an offset other than 0, or its byte swizzle splits an
            element.

    Example::

        >>> index_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)").apply_flat(64)  # (0, 8)
        8
    """
    cl = parse_cute(layout)
    images = coordinate_images(cl)
    if cl.offset:
        raise LayoutError(f"{cl.text()}: the offset {cl.offset} makes the map affine "
                          "(coordinate 0 is not at offset 0); index_layout needs offset 0")
    sw = cl.element_swizzle()
    pairs = xor_pairs(*sw) if sw else ()
    cols = [apply_xor_pairs(pairs, img) for mode in images for img in mode]
    top = 0
    for c in cols:
        top |= c
    return LinearLayout.from_columns(cols, _dims(cl), {"offset": 1 << top.bit_length()})


def parse_layout(layout: Any) -> LinearLayout | PaddedLayout:
    """A CuTe shared-memory layout as a linlayout memory layout ``offset -> dim0, dim1, …``.

    Args:
        layout: CuTe text as CuTe prints it — ``"(_64,_64):(_64,_1)"``,
            ``"((_8,_8),_64):((_64,_512),_1)"``, ``"Sw<3,4,3> o _0 o (_64,_64):(_64,_1)"``,
            ``"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"``, pycute's
            ``"SW_3_4_3 o 0 o (8, 64):(64, 1)"`` — a :class:`~linlayout.cute.CuteLayout`, or a
            pycute ``Layout``/``ComposedLayout`` object.

    Returns:
        A :class:`~linlayout.LinearLayout` with in dim ``offset`` (the layout's units, size =
        the number of coordinates) and out dims ``dim0, dim1, …``, one per top-level mode (a
        hierarchical mode's coordinate is its colexicographic index); it maps each offset to
        the coordinate CuTe stores there. A padded layout (``(_64,_64):(_72,_1)``, module
        docstring) is a :class:`~linlayout.layout.padded.PaddedLayout` instead: its
        ``linear`` is that map on the unpadded offsets, its ``pairs`` the padding.

    Raises:
        LayoutError: unless the layout is F₂-linear and a bijection onto ``[0, size)``, or a
            padded one (module docstring); the message names the offending mode, swizzle bit
            or offset and why.

    Example::

        >>> M = parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
        >>> M.out_dims, M.apply({"offset": 64})
        ({'dim0': 8, 'dim1': 64}, {'dim0': 1, 'dim1': 8})
        >>> P = parse_layout("(_64,_64):(_72,_1)")
        >>> P.pairs, P.element_offset([1, 0])
        (((64, 8),), (72, 0))
    """
    cl = parse_cute(layout)
    try:
        return _linear_memory(cl)
    except LayoutError as exc:
        padded = _padding(cl)
        if padded is None:
            if cl.is_composed:
                raise
            raise LayoutError(f"{exc}; nor is it a padded layout (the strides of a compact "
                              "layout plus power-of-two padding, e.g. (_64,_64):(_72,_1))") \
                from None
    compact, pairs = padded
    return PaddedLayout(_linear_memory(compact), pairs)


def _linear_memory(cl: CuteLayout) -> LinearLayout:
    """:func:`parse_layout` for the F₂-linear bijections (LayoutError naming why not)."""
    images = coordinate_images(cl)
    size = cl.size
    n = size.bit_length() - 1
    text = cl.text()
    for where, s, d in _mode_leaves(cl):
        if s > 1 and d == 0:
            raise LayoutError(
                f"{text}: {where} has stride 0, a broadcast: {s} coordinates share each "
                "offset, so it is not a bijection and has no memory layout"
            )
    for where, s, d in _mode_leaves(cl):
        if s > 1 and d & (d - 1):
            raise LayoutError(
                f"{text}: {where} has the stride {d}, not a power of two: each of its "
                "coordinate bits lands on several offset bits, so it is not a bijection onto "
                f"[0, {size})"
            )
    flat = [img for mode in images for img in mode]
    reach = 0
    for img in flat:
        reach |= img
    if reach >= size:
        cosize = reach + 1
        for where, s, d in _mode_leaves(cl):
            if s > 1 and (d * (s - 1)) >= size:
                raise LayoutError(
                    f"{text}: {where} reaches offset {d * (s - 1)}, beyond the {size} "
                    f"coordinates: the layout leaves gaps (cosize {cosize} > size {size}), so "
                    f"it is not a bijection onto [0, {size})"
                )
        raise LayoutError(
            f"{text}: the strides are not the powers of two 1 … {size // 2}: the layout leaves "
            f"gaps (cosize {cosize} > size {size}), so it is not a bijection onto [0, {size})"
        )
    sw = cl.element_swizzle()
    pairs = xor_pairs(*sw) if sw else ()
    for t, s in pairs:
        if s < n <= t:
            raise LayoutError(
                f"{text}: {format_cute_swizzle(*sw)} XORs index bit {s} into bit {t}, outside "
                f"the {size} offsets [0, {size}); the swizzle must stay inside the layout's "
                "codomain"
            )
    if cl.offset and pairs:
        o = cl.offset
        if o % size:
            raise LayoutError(
                f"{text}: the offset {o} is not a multiple of the size {size}, so offset + "
                "index carries into the bits the swizzle reads and the map is not F2-linear; "
                "parse the whole (unsliced) layout instead"
            )
        k = apply_xor_pairs(pairs, o)
        if k % size:
            raise LayoutError(
                f"{text}: the swizzle turns the offset {o} into {k}, which XORs the constant "
                f"{k % size} into every offset of the tile: an affine map, not a linear one "
                "(this is a slice of a larger swizzled layout); parse the whole layout instead"
            )
    cols = [apply_xor_pairs(pairs, img) for img in flat]
    forward = LinearLayout.from_columns(cols, _dims(cl), {"offset": size})
    return forward.invert()


def byte_swizzle_hint(layout: Any, element_bits: int) -> str | None:
    """A hint for a swizzle that may have been written in the wrong unit, or None.

    CuTe's SM90 atoms print their swizzle on *byte* addresses (``Sw<3,4,3> o
    smem_ptr[16b](unset) o …``); the same swizzle on *element* offsets of 16-bit elements is
    ``Sw<3,3,3> o _0 o …``. A layout written ``Sw<B,M,S> o _0 o …`` (element units) whose
    ``M`` is at least ``log2(element_bytes)`` may be the byte swizzle copied without its
    pointer flag; the hint names both spellings.

    Args:
        layout: CuTe text (or anything :func:`parse_cute` reads).
        element_bits: bits per element.

    Returns:
        One sentence, or None when the text has no element-unit swizzle, the elements are a
        byte or less, or the text does not parse.

    Example::

        >>> byte_swizzle_hint("Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", 16) is not None
        True
        >>> byte_swizzle_hint("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", 16)

    Source: CuTe's ``ComposedLayout`` printing (``Sw<B,M,S> o smem_ptr[Nb](unset) o …`` for a
    swizzle on byte addresses, ``include/cute/pointer_swizzle.hpp``).

    Raises:
        nothing: a hint is None for any input it cannot read.
    """
    try:
        cl = parse_cute(layout)
    except (LayoutError, TypeError, ValueError):
        return None
    if (cl.swizzle is None or cl.pointer_bits is not None or not isinstance(element_bits, int)
            or element_bits <= 8 or element_bits % 8 or element_bits & (element_bits - 1)):
        return None
    b, m, s = cl.swizzle
    shift = (element_bits // 8).bit_length() - 1
    if b == 0 or m < shift:
        return None
    return (f"Sw<{b},{m},{s}> o _0 o … swizzles {element_bits}-bit element offsets; if it is "
            f"a byte-address swizzle (as CUTLASS's SM90 atoms print it), write it in elements "
            f"as Sw<{b},{m - shift},{s}> o _0 o …, or keep it in bytes as "
            f"Sw<{b},{m},{s}> o smem_ptr[{element_bits}b](unset) o …")
