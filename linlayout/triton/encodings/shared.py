"""Shared-memory encodings: ``#ttg.swizzled_shared``, ``#ttg.amd_rotating_shared``,
``#ttg.nvmma_shared`` and ``#ttg.shared_linear``.

A shared layout maps ``offset`` (the element offset in one CTA's buffer) and ``block`` (the
CTA) to the tensor index ``dim0 … dim{rank-1}``. Pass the *allocation* shape (Triton's
``toLinearLayout(MemDescType)`` does).

Example (8-element vectors XOR-swizzled by the row)::

    >>> from linlayout.triton import swizzled_shared
    >>> L = swizzled_shared(8, 1, 8, [1, 0]).to_linear_layout([8, 64])
    >>> L.bases["offset"][6:]
    [[1, 8], [2, 16], [4, 32]]

Source: ``swizzledSharedToLinearLayout``, ``sharedToLinearLayoutAMDRotating``,
``nvmmaSharedToLinearLayout`` / ``getCoreMatrixLinearLayout``,
``SharedLinearEncodingAttr::toLinearLayout`` (``LinearLayoutConversions.cpp``) and
``getTMABlockShape`` (``TMAUtilities.cpp``), Triton 3.9.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import as_int, int_list, power_of_two, shown
from ...errors import LayoutError
from ...layout import LinearLayout
from .base import (
    CGALayout,
    Encoding,
    as_cga,
    check_bases,
    check_order,
    combine_cta_cga,
    format_value,
    gluon_cga,
    gluon_list,
)
from .construct import (
    ensure_not_smaller,
    from_bases,
    identity_1d,
    reshape_layout,
    standard_out_dims,
    transpose_linear_layout,
)
from .registry import AttributeBody, register_encoding

__all__ = [
    "AmdRotatingSharedEncoding",
    "LegacySharedEncoding",
    "NvmmaSharedEncoding",
    "SharedLinearEncoding",
    "SwizzledSharedEncoding",
    "amd_rotating_shared",
    "nvmma_shared",
    "shared_linear",
    "swizzled_shared",
]


# ----------------------------------------------------------------------------- XOR swizzles
@dataclass(frozen=True)
class _XorSharedEncoding(Encoding):
    """The (vec, perPhase, maxPhase, order) shared encodings: rows XOR their vec-groups with
    a phase of the row index (the subclasses say which phase)."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "shared"
    _rotating = False
    attribute_keys = frozenset({"vec", "perPhase", "maxPhase", "order", "CGALayout",
                                "CTAsPerCGA", "CTASplitNum", "CTAOrder"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> _XorSharedEncoding:
        """From the body of ``#ttg.<mnemonic><{vec, perPhase, maxPhase, order[,
        CGALayout]}>``.

        Args:
            body: the parsed ``{key = value}`` dict.
            at: the attribute's position in the text (or a function returning it).

        Raises:
            LayoutError: an unknown or missing key, or invalid values.

        Source: ``SwizzledSharedEncodingAttr`` / ``AMDRotatingSharedEncodingAttr``
        (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            order = b.need_list("order")
            return cls(b.need("vec"), b.need("perPhase"), b.need("maxPhase"), order,
                       b.cga(len(order)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "vec", power_of_two(self.vec, "vec"))
        object.__setattr__(self, "per_phase", power_of_two(self.per_phase, "perPhase"))
        object.__setattr__(self, "max_phase", power_of_two(self.max_phase, "maxPhase"))
        o = int_list(self.order, "order")
        object.__setattr__(self, "order", check_order(o, len(o)))
        object.__setattr__(self, "cga", as_cga(self.cga, len(o)))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.order)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        rank = len(shape)
        names = standard_out_dims(rank)
        cga = self.cga
        per_cta = cga.shape_per_cta(shape)
        if rank == 1:
            return combine_cta_cga(identity_1d(per_cta[0], "offset", "dim0"), cga, shape)
        col_dim, row_dim = self.order[0], self.order[1]
        # Triton's rotating layout uses the full shape here, the swizzled one the per-CTA shape.
        src = shape if self._rotating else per_cta
        ncols, nrows = src[col_dim], src[row_dim]
        vec, per_phase, max_phase = self.vec, self.per_phase, self.max_phase
        bases = [(0, 1 << i) for i in range(ncols.bit_length() - 1)]
        for i in range(nrows.bit_length() - 1):
            row = 1 << i
            phase = (row // per_phase) % max_phase
            if self._rotating:
                phase ^= row // max_phase // per_phase % max_phase
            bases.append((row, (vec * phase) % ncols))
        cta = from_bases({"offset": bases}, [names[row_dim], names[col_dim]])
        for d in self.order[2:]:
            cta = cta * identity_1d(src[d], "offset", names[d])
        return combine_cta_cga(cta, cga, shape)

    def text(self) -> str:
        return (f"#ttg.{self.mnemonic}<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = {format_value(self.order)}"
                f"{self.cga.text()}}}>")


@register_encoding
@dataclass(frozen=True)
class SwizzledSharedEncoding(_XorSharedEncoding):
    """``#ttg.swizzled_shared``: row ``r`` of the two most minor dims (``order[1]``,
    ``order[0]``) has its ``vec``-element groups XORed with ``(r / perPhase) % maxPhase``.

    Raises:
        LayoutError: ``vec``, ``perPhase`` or ``maxPhase`` not a power of two, or ``order``
            not a permutation.

    Source: ``swizzledSharedToLinearLayout`` (LinearLayoutConversions.cpp).
    """

    mnemonic = "swizzled_shared"

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.SwizzledSharedLayout(vec=…, per_phase=…, max_phase=…, order=…[,
        cga_layout=…])``; ``shape`` is not needed.

        Source: Gluon ``SwizzledSharedLayout`` (``_layouts.py``).
        """
        return (f"{module}.SwizzledSharedLayout(vec={self.vec}, per_phase={self.per_phase}, "
                f"max_phase={self.max_phase}, order={gluon_list(self.order)}"
                f"{gluon_cga(self.cga)})")


@register_encoding
@dataclass(frozen=True)
class LegacySharedEncoding(Encoding):
    """Triton ≤ 3.2's ``#ttg.shared``: read as :class:`SwizzledSharedEncoding`, or with
    ``hasLeadingOffset = true`` as this value — the MMAv3 layout that 3.3 renamed
    ``nvmma_shared``, whose element width comes from the enclosing memdesc type
    (:meth:`with_bits`; :func:`linlayout.triton.parse_type` resolves it).

    Attributes:
        swizzling_byte_width: 32, 64 or 128, from ``(perPhase, maxPhase)``.
        transposed: ``order[0] == 0`` (rank ≥ 2).
        rank_: the rank.
        cga: the CGA layout, or None.

    Source: ``SharedEncodingAttr`` of Triton 3.2 (TritonGPUAttrDefs.td).
    """

    swizzling_byte_width: int
    transposed: bool
    rank_: int
    cga: Any = None
    kind = "shared"
    mnemonic = "shared"
    attribute_keys = frozenset({"vec", "perPhase", "maxPhase", "order", "hasLeadingOffset",
                                "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> Encoding:
        """From the body of ``#ttg.shared<{vec, perPhase, maxPhase, order[,
        hasLeadingOffset]}>``: a :class:`SwizzledSharedEncoding`, or with
        ``hasLeadingOffset = true`` a :class:`LegacySharedEncoding` whose swizzle width
        follows from ``(perPhase, maxPhase)``: (4, 2) 32, (2, 4) 64, (1, 8) 128 bytes.

        Raises:
            LayoutError: an unknown or missing key, another (perPhase, maxPhase) with
                ``hasLeadingOffset``, or invalid values.
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            order = b.need_list("order")
            cga = b.cga(len(order))
            if b.get("hasLeadingOffset", False):
                width = {(4, 2): 32, (2, 4): 64, (1, 8): 128}.get((b.get("perPhase"),
                                                                 b.get("maxPhase")))
                if width is None:
                    raise LayoutError(f"invalid #ttg.shared at {b.at}: with hasLeadingOffset, "
                                      "(perPhase, maxPhase) must be (4, 2), (2, 4) or (1, 8)")
                return cls(width, order[0] == 0 if len(order) > 1 else False, len(order), cga)
            return SwizzledSharedEncoding(b.need("vec"), b.need("perPhase"),
                                          b.need("maxPhase"), order, cga)

    @property
    def rank(self) -> int:
        """The rank (``len(order)``)."""
        return self.rank_

    def with_bits(self, bits: int) -> Encoding:
        """The :class:`NvmmaSharedEncoding` for elements of ``bits`` bits.

        Raises:
            LayoutError: ``bits`` is not an element width nvmma_shared takes.
        """
        return NvmmaSharedEncoding(self.swizzling_byte_width, self.transposed, bits, False,
                                   self.cga, self.rank_)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:  # pragma: no cover
        # resolved by parse_type
        raise LayoutError("a legacy #ttg.shared<{hasLeadingOffset = true}> needs the element "
                          "type: parse it as part of a memdesc type")

    def text(self) -> str:
        """The 16-bit :meth:`with_bits` layout's text (the element width is not known)."""
        return self.with_bits(16).text()


@register_encoding
@dataclass(frozen=True)
class AmdRotatingSharedEncoding(_XorSharedEncoding):
    """``#ttg.amd_rotating_shared``: like swizzled_shared, but the XOR phase of row ``r`` is
    ``((r / perPhase) % maxPhase) ^ ((r / (perPhase·maxPhase)) % maxPhase)``.

    Raises:
        LayoutError: as :class:`SwizzledSharedEncoding`.

    Source: ``sharedToLinearLayoutAMDRotating`` (LinearLayoutConversions.cpp).
    """

    mnemonic = "amd_rotating_shared"
    _rotating = True


# ----------------------------------------------------------------------------- NVMMA
@register_encoding
@dataclass(frozen=True)
class NvmmaSharedEncoding(Encoding):
    """``#ttg.nvmma_shared``: the shared-memory layout of TMA and wgmma/tcgen05 operands.

    Rows of ``swizzling_byte_width`` bytes (0, 32, 64 or 128) are XOR-swizzled in 16-byte
    units over 8-row core matrices (CUDA's ``CU_TENSOR_MAP_SWIZZLE_32B/64B/128B``);
    ``transposed`` makes dim 0 the contiguous one; ``fp4_padded`` stores 4-bit pairs padded
    to 16 bytes per 8 bytes (tcgen05 ``mxf8f6f4``).

    Raises:
        LayoutError: unsupported width or element size, ``fp4_padded`` without 128 and 8,
            rank below 1; at conversion, a per-CTA shape too small for one swizzle tile.

    Source: ``nvmmaSharedToLinearLayout``, ``getCoreMatrixLinearLayout`` and
    ``getTMABlockShape`` (TMAUtilities.cpp).
    """

    swizzling_byte_width: int
    transposed: bool
    element_bit_width: int
    fp4_padded: bool = False
    cga: CGALayout | None = None
    rank_: int = 2
    kind = "shared"
    mnemonic = "nvmma_shared"
    attribute_keys = frozenset({"swizzlingByteWidth", "transposed", "elementBitWidth",
                                "fp4Padded", "rank", "CGALayout", "CTAsPerCGA", "CTASplitNum",
                                "CTAOrder"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> NvmmaSharedEncoding:
        """From the body of ``#ttg.nvmma_shared<{swizzlingByteWidth, transposed,
        elementBitWidth[, fp4Padded, CGALayout, rank]}>``. Without ``rank`` the rank is the
        CGA bases' length (2 without them); ``transposed`` and ``fp4Padded`` default to false.

        Raises:
            LayoutError: an unknown or missing key, or invalid values.

        Source: ``NVMMASharedEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            rank = b.get("rank")
            if rank is None:
                cga = b.bases(b.get("CGALayout", []), "CGALayout")
                rank = len(cga[0]) if cga else 2
            return cls(b.need("swizzlingByteWidth"), b.get("transposed", False),
                       b.need("elementBitWidth"), b.get("fp4Padded", False), b.cga(rank), rank)

    def __post_init__(self) -> None:
        s = as_int(self.swizzling_byte_width, "swizzlingByteWidth")
        if s not in (0, 32, 64, 128):
            raise LayoutError(f"swizzlingByteWidth must be 0, 32, 64 or 128, got {s}")
        object.__setattr__(self, "swizzling_byte_width", s)
        e = as_int(self.element_bit_width, "elementBitWidth")
        if e not in (8, 16, 32, 64):
            raise LayoutError(f"elementBitWidth must be 8, 16, 32 or 64, got {e}")
        object.__setattr__(self, "element_bit_width", e)
        for name in ("transposed", "fp4_padded"):
            if not isinstance(getattr(self, name), bool):
                raise LayoutError(f"{name} must be a bool, got {shown(getattr(self, name))}")
        if self.fp4_padded and (s != 128 or e != 8):
            raise LayoutError("fp4Padded needs swizzlingByteWidth = 128 and elementBitWidth = 8")
        r = as_int(self.rank_, "rank")
        if r < 1:
            raise LayoutError(f"rank must be at least 1, got {r}")
        object.__setattr__(self, "rank_", r)
        object.__setattr__(self, "cga", as_cga(self.cga, r))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return self.rank_

    def tma_block_shape(self, shape_per_cta: Sequence[int], packed: bool = True) -> list[int]:
        """The TMA box for a per-CTA shape: at most 256 per dim, the contiguous dim exactly
        one swizzle row (Triton ``getTMABlockShape``, TMAUtilities.cpp).

        Raises:
            LayoutError: the contiguous dim is shorter than one swizzle row.
        """
        block = list(shape_per_cta)
        contig = 0 if self.transposed else len(block) - 1
        if self.fp4_padded:
            block[contig] *= 2
        block = [min(b, 256) for b in block]
        if self.swizzling_byte_width:
            need = 8 * self.swizzling_byte_width // self.element_bit_width
            if block[contig] < need:
                raise LayoutError(
                    f"nvmma_shared with swizzlingByteWidth = {self.swizzling_byte_width} and "
                    f"{self.element_bit_width}-bit elements needs at least {need} elements "
                    f"along the contiguous dim {contig}, got {shape_per_cta[contig]}"
                )
            block[contig] = need
        if self.fp4_padded and packed:
            block[contig] //= 2
        return block

    def core_matrix_layout(self) -> LinearLayout:
        """One swizzle tile, ``offset`` -> ``(dim0, dim1)``: 8 rows of ``max(16,
        swizzlingByteWidth)`` bytes, the 16-byte groups of row ``r`` XORed with its phase
        (Triton ``getCoreMatrixLinearLayout``). With ``fp4_padded`` the padding offsets map
        onto the same elements as the data."""
        e, sw = self.element_bit_width, self.swizzling_byte_width
        vec = 128 // e
        per_phase, max_phase = {0: (1, 1), 32: (4, 2), 64: (2, 4), 128: (1, 8)}[sw]
        tile_cols = 8 * max(16, sw) // e
        pad = self.fp4_padded
        bases = []
        col = 1
        while col < tile_cols:
            bases.append((0, col // 16 * 8 + col % 8 if pad else col))
            col *= 2
        row = 1
        while row < 8:
            c = vec * ((row // per_phase) % max_phase)
            bases.append((row, c // 16 * 8 + c % 8 if pad else c))
            row *= 2
        return from_bases({"offset": bases}, ["dim0", "dim1"])

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        rank = self.rank
        names = standard_out_dims(rank)
        per_cta = self.cga.shape_per_cta(shape)
        tma = self.tma_block_shape(per_cta)
        # Triton's ``transposeLinearLayout``: component j of every basis (in the layout's own
        # out-dim order) becomes old component rotate[j]. In the unswizzled branch the layout's
        # out dims run from the last dim down, so for rank > 2 this does not undo the rotation
        # of the TMA shape (offset bits end up broadcast); it is replayed as Triton 3.9 does.
        rotate = [rank - 1] + list(range(rank - 1))
        if self.swizzling_byte_width == 0:
            src = tma[1:] + tma[:1] if self.transposed else tma
            layout = identity_1d(src[rank - 1], "offset", names[rank - 1])
            for i in range(rank - 2, -1, -1):
                layout = layout * identity_1d(src[i], "offset", names[i])
            if self.transposed:
                layout = transpose_linear_layout(layout, rotate)
            layout = ensure_not_smaller(layout, dict(zip(names, per_cta)))
            return combine_cta_cga(layout, self.cga, shape)
        if rank < 2:
            raise LayoutError("a swizzled nvmma_shared layout needs rank >= 2")
        collapsed = [1, tma[-1]]
        for t in tma[:-1]:
            collapsed[0] *= t
        if self.transposed:
            collapsed.reverse()
        tile = self.core_matrix_layout()
        rows, cols = tile.out_dims["dim0"], tile.out_dims["dim1"]
        pack = 2 if self.fp4_padded else 1
        if collapsed[1] * pack < cols or collapsed[0] < rows:
            raise LayoutError(
                f"nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}}}> needs the "
                f"collapsed per-CTA shape to be at least [{rows}, {cols // pack}], got "
                f"{collapsed}"
            )
        layout = ensure_not_smaller(tile, {"dim0": collapsed[0], "dim1": collapsed[1]})
        target = list(tma)
        if self.transposed:
            target = target[1:] + target[:1]
        layout = reshape_layout(layout, target)
        if self.transposed:
            layout = transpose_linear_layout(layout, rotate)
        layout = ensure_not_smaller(layout, dict(zip(names, per_cta)))
        return combine_cta_cga(layout, self.cga, shape)

    def text(self) -> str:
        extra = ", fp4Padded = true" if self.fp4_padded else ""
        extra += self.cga.text()
        if self.rank != 2 and self.cga.is_trivial:
            extra += f", rank = {self.rank}"
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}, "
                f"transposed = {format_value(self.transposed)}, elementBitWidth = "
                f"{self.element_bit_width}{extra}}}>")

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.NVMMASharedLayout(swizzle_byte_width=…, element_bitwidth=…[, rank=…,
        transposed=True, fp4_padded=True, cga_layout=…])``, Gluon's defaults left out;
        ``shape`` is not needed.

        Source: Gluon ``NVMMASharedLayout`` (``_layouts.py``).
        """
        extra = ""
        if self.rank_ != 2:
            extra += f", rank={self.rank_}"
        if self.transposed:
            extra += ", transposed=True"
        if self.fp4_padded:
            extra += ", fp4_padded=True"
        return (f"{module}.NVMMASharedLayout(swizzle_byte_width={self.swizzling_byte_width}, "
                f"element_bitwidth={self.element_bit_width}{extra}{gluon_cga(self.cga)})")


# ----------------------------------------------------------------------------- linear
@register_encoding
@dataclass(frozen=True)
class SharedLinearEncoding(Encoding):
    """``#ttg.shared_linear``: an explicit shared layout with ``offset`` (and ``block``) bases.

    Triton asserts that the shape equals the layout's; so does this class.

    Raises:
        LayoutError: no offset bases, bases of differing length or with negative entries,
            an ``alignment`` that is not a power of two; at conversion, a shape other than
            the layout's.

    Source: ``SharedLinearEncodingAttr::toLinearLayout``.
    """

    offset: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()
    alignment: int = 16
    kind = "shared"
    mnemonic = "shared_linear"
    attribute_keys = frozenset({"offset", "block", "alignment"})
    attribute_syntax = "dict_then_keys"

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> SharedLinearEncoding:
        """From the body of ``#ttg.shared_linear<{offset, block[, alignment]}>``
        (``block`` defaults to none, ``alignment`` to 16). Keys printed after the dict
        (``<{…}, alignment = 16>``) are read and ignored by the reader.

        Raises:
            LayoutError: an unknown or missing key, or invalid bases.

        Source: ``SharedLinearEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            return cls(b.need("offset"), b.get("block", []), b.get("alignment", 16))

    def __post_init__(self) -> None:
        if isinstance(self.offset, (str, bytes)) or not isinstance(self.offset, Sequence):
            raise LayoutError(f"offset must be a list of bases [[...], ...], got "
                              f"{shown(self.offset)}")
        if not self.offset:
            raise LayoutError("shared_linear needs at least one offset basis")
        r = len(int_list(self.offset[0], "offset[0]"))
        object.__setattr__(self, "offset", check_bases(self.offset, r, "offset"))
        object.__setattr__(self, "block", check_bases(self.block, r, "block"))
        object.__setattr__(self, "alignment", power_of_two(self.alignment, "alignment"))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.offset[0])

    def base_layout(self) -> LinearLayout:
        """The bases as given, out dims ``dim0…`` with sizes inferred."""
        return from_bases({"offset": self.offset, "block": self.block},
                          standard_out_dims(self.rank))

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        layout = self.base_layout()
        have = list(layout.out_dims.values())
        if have != list(shape):
            raise LayoutError(f"this shared_linear layout covers a shape of {have}, not "
                              f"{list(shape)}; Triton requires them to be equal")
        return layout

    def text(self) -> str:
        blk = (f", block = {format_value([list(b) for b in self.block])}" if self.block
               else "")
        return (f"#ttg.shared_linear<{{offset = {format_value([list(b) for b in self.offset])}"
                f"{blk}}}, alignment = {self.alignment}>")

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.SharedLinearLayout(offset_bases=…[, block_bases=…, alignment=…])``, Gluon's
        defaults left out; ``shape`` is not needed.

        Source: Gluon ``SharedLinearLayout`` (``_layouts.py``).
        """
        extra = f", block_bases={gluon_list(self.block)}" if self.block else ""
        if self.alignment != 16:
            extra += f", alignment={self.alignment}"
        return f"{module}.SharedLinearLayout(offset_bases={gluon_list(self.offset)}{extra})"


# ----------------------------------------------------------------------------- constructors
def swizzled_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], *,
                    cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                    ) -> SwizzledSharedEncoding:
    """``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>``.

    Raises:
        LayoutError: a parameter is not a power of two or ``order`` is not a permutation.

    Source: ``swizzledSharedToLinearLayout``.
    """
    return SwizzledSharedEncoding(vec, per_phase, max_phase, order,
                                  as_cga(cga_layout, len(order))
                                  if cga_layout is not None else None)


def amd_rotating_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], *,
                        cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                        ) -> AmdRotatingSharedEncoding:
    """``#ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order}>``.

    Raises:
        LayoutError: as :func:`swizzled_shared`.

    Source: ``sharedToLinearLayoutAMDRotating``.
    """
    return AmdRotatingSharedEncoding(vec, per_phase, max_phase, order,
                                     as_cga(cga_layout, len(order))
                                     if cga_layout is not None else None)


def nvmma_shared(swizzling_byte_width: int, element_bit_width: int, *, transposed: bool = False,
                 fp4_padded: bool = False, rank: int = 2,
                 cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                 ) -> NvmmaSharedEncoding:
    """``#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, fp4Padded]}>``.

    Args:
        swizzling_byte_width: 0, 32, 64 or 128 (bytes per swizzled row).
        element_bit_width: 8, 16, 32 or 64.
        transposed: dim 0 is contiguous instead of the last dim.
        fp4_padded: 4-bit operands padded for tcgen05 (needs 128 and 8).

    Raises:
        LayoutError: unsupported values.

    Source: ``nvmmaSharedToLinearLayout``.
    """
    cga = as_cga(cga_layout, rank) if cga_layout is not None else None
    return NvmmaSharedEncoding(swizzling_byte_width, transposed, element_bit_width, fp4_padded,
                               cga, rank)


def shared_linear(offset: Sequence[Sequence[int]], block: Sequence[Sequence[int]] = (), *,
                  alignment: int = 16) -> SharedLinearEncoding:
    """``#ttg.shared_linear<{offset, block}, alignment>``: explicit shared bases.

    Raises:
        LayoutError: no offset bases, or bases of differing length.

    Source: ``SharedLinearEncodingAttr``.
    """
    return SharedLinearEncoding(offset, block, alignment)
