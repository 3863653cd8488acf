"""Distributed encodings without an instruction shape: ``#ttg.blocked``, ``#ttg.slice`` and
``#ttg.linear``.

A distributed layout maps ``register, lane, warp, block`` (one thread's elements, the lanes of
a warp, the warps of a CTA, the CTAs of a cluster) to the tensor index ``dim0 … dim{rank-1}``.

Example::

    >>> from linlayout.triton import blocked, slice
    >>> parent = blocked([1, 4], [8, 4], [4, 1], [1, 0])
    >>> slice(1, parent).to_linear_layout([32]).bases["lane"]
    [[0], [0], [1], [2], [4]]

Source: ``BlockedEncodingAttr::toLinearLayout``, ``SliceEncodingAttr::toLinearLayout``,
``LinearEncodingAttr::toLinearLayout`` (``LinearLayoutConversions.cpp``, Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import as_int, int_list
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
    ensure_not_larger,
    ensure_not_smaller,
    from_bases,
    identity_standard_nd,
    standard_out_dims,
)
from .registry import AttributeBody, register_encoding

__all__ = [
    "BlockedEncoding",
    "GenericLinearEncoding",
    "LinearEncoding",
    "SliceEncoding",
    "blocked",
    "generic_linear",
    "linear",
    "slice",
]


@register_encoding
@dataclass(frozen=True)
class BlockedEncoding(Encoding):
    """``#ttg.blocked``: each thread owns ``size_per_thread`` contiguous elements, lanes and
    warps tile the rest in ``order`` (most minor first), CTAs by ``cga``.

    Register bases that fall outside a smaller shape are dropped (not broadcast), as Triton
    3.9 does for this encoding.

    Source: ``BlockedEncodingAttr::toLinearLayout``.
    """

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "distributed"
    mnemonic = "blocked"
    attribute_keys = frozenset({"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order",
                                "CGALayout", "CTAsPerCGA", "CTASplitNum", "CTAOrder"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> BlockedEncoding:
        """From the body of ``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA,
        order[, CGALayout or CTAsPerCGA/CTASplitNum/CTAOrder]}>``.

        Args:
            body: the parsed ``{key = value}`` dict.
            at: the attribute's position in the text (or a function returning it).

        Raises:
            LayoutError: an unknown or missing key (``malformed MLIR at …``), or invalid
                values (``invalid #ttg.blocked at …``).

        Source: ``BlockedEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            order = b.need_list("order")
            return cls(b.need("sizePerThread"), b.need("threadsPerWarp"), b.need("warpsPerCTA"),
                       order, b.cga(len(order)))

    def __post_init__(self) -> None:
        rank = len(int_list(self.order, "order"))
        object.__setattr__(self, "size_per_thread",
                           int_list(self.size_per_thread, "sizePerThread", pow2=True,
                                    length=rank))
        object.__setattr__(self, "threads_per_warp",
                           int_list(self.threads_per_warp, "threadsPerWarp", pow2=True,
                                    length=rank))
        object.__setattr__(self, "warps_per_cta",
                           int_list(self.warps_per_cta, "warpsPerCTA", pow2=True, length=rank))
        object.__setattr__(self, "order", check_order(self.order, rank))
        object.__setattr__(self, "cga", as_cga(self.cga, rank))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.order)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        cta = (identity_standard_nd("register", self.size_per_thread, self.order)
               * identity_standard_nd("lane", self.threads_per_warp, self.order)
               * identity_standard_nd("warp", self.warps_per_cta, self.order))
        return combine_cta_cga(cta, self.cga, shape, drop_registers=True)

    def text(self) -> str:
        f = format_value
        return (f"#ttg.blocked<{{sizePerThread = {f(self.size_per_thread)}, "
                f"threadsPerWarp = {f(self.threads_per_warp)}, "
                f"warpsPerCTA = {f(self.warps_per_cta)}, order = {f(self.order)}"
                f"{self.cga.text()}}}>")

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.BlockedLayout(size_per_thread=…, threads_per_warp=…, warps_per_cta=…,
        order=…[, cga_layout=…])``; ``shape`` is not needed.

        Source: Gluon ``BlockedLayout`` (``_layouts.py``).
        """
        return (f"{module}.BlockedLayout(size_per_thread={gluon_list(self.size_per_thread)}, "
                f"threads_per_warp={gluon_list(self.threads_per_warp)}, "
                f"warps_per_cta={gluon_list(self.warps_per_cta)}, "
                f"order={gluon_list(self.order)}{gluon_cga(self.cga)})")


@register_encoding
@dataclass(frozen=True)
class SliceEncoding(Encoding):
    """``#ttg.slice``: the parent layout with out dim ``dim`` squeezed away.

    The parent is converted at the shape with a 1 inserted at ``dim``; that out dim is
    removed, the later ones renumbered, and register bases that become zero are dropped.

    Source: ``SliceEncodingAttr::toLinearLayout``.
    """

    dim: int
    parent: Encoding
    kind = "distributed"
    mnemonic = "slice"
    attribute_keys = frozenset({"dim", "parent"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> SliceEncoding:
        """From the body of ``#ttg.slice<{dim, parent}>`` (``parent`` an encoding: the
        reader builds nested attributes first).

        Raises:
            LayoutError: an unknown or missing key, a parent that is not a supported layout
                or nests too deep, or an invalid dim.

        Source: ``SliceEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            return cls(b.need("dim"), b.parent(b.need("parent")))

    def __post_init__(self) -> None:
        if not isinstance(self.parent, Encoding) or self.parent.kind != "distributed":
            raise LayoutError(f"a slice's parent must be a distributed encoding, got "
                              f"{getattr(self.parent, 'mnemonic', type(self.parent).__name__)}")
        d = as_int(self.dim, "slice dim")
        if not 0 <= d < self.parent.rank:
            raise LayoutError(f"slice dim {d} is out of range for a rank-{self.parent.rank} parent")
        object.__setattr__(self, "dim", d)

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return self.parent.rank - 1

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        parent = self.parent.build_linear_layout(shape[:self.dim] + [1] + shape[self.dim:])
        names = parent.out_dim_names
        kept = names[:self.dim] + names[self.dim + 1:]
        sizes = parent.out_dims
        sliced = parent.sublayout(parent.in_dim_names, kept).reshape_outs(
            [(new, sizes[old]) for new, old in zip(standard_out_dims(len(kept)), kept)])
        return sliced.remove_zero_bases("register")

    def text(self) -> str:
        return f"#ttg.slice<{{dim = {self.dim}, parent = {self.parent.text()}}}>"

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.SliceLayout(dim=…, parent=…)``, the parent written without a shape.

        Raises:
            LayoutError: the parent has no Gluon constructor here.

        Source: Gluon ``SliceLayout`` (``_layouts.py``).
        """
        parent = self.parent.gluon(None, module=module)
        return f"{module}.SliceLayout(dim={self.dim}, parent={parent})"


@register_encoding
@dataclass(frozen=True)
class LinearEncoding(Encoding):
    """``#ttg.linear``: an explicit layout with ``register, lane, warp, block`` bases.

    For a shape larger than the layout, register bases are added (as Triton's
    ``LinearEncodingAttr::toLinearLayout`` does); for a smaller one the largest bases
    broadcast.

    Source: ``LinearEncodingAttr`` (TritonGPUAttrDefs.td) and ``toLinearLayout``.
    """

    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()
    rank_: int | None = None
    kind = "distributed"
    mnemonic = "linear"
    attribute_keys = frozenset({"register", "lane", "warp", "block"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> LinearEncoding:
        """From the body of ``#ttg.linear<{register, lane, warp, block}>`` (missing groups
        are empty; the rank is the length of the first basis).

        Raises:
            LayoutError: an unknown key, a group that is not a list of bases, or invalid
                bases.

        Source: ``LinearEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            bases = {k: b.bases(b.get(k, []), k) for k in ("register", "lane", "warp", "block")}
            rank = None
            for v in bases.values():
                if v:
                    rank = len(v[0])
                    break
            return cls(bases["register"], bases["lane"], bases["warp"], bases["block"], rank)

    def __post_init__(self) -> None:
        r = self.rank_
        if r is None:
            for group in (self.register, self.lane, self.warp, self.block):
                if group:
                    r = len(group[0])
                    break
        if r is None:
            raise LayoutError("a linear encoding with no bases at all has no rank; pass rank_")
        object.__setattr__(self, "rank_", as_int(r, "rank"))
        for name in ("register", "lane", "warp", "block"):
            object.__setattr__(self, name, check_bases(getattr(self, name), r, name))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return int(self.rank_)  # type: ignore[arg-type]

    def base_layout(self) -> LinearLayout:
        """The bases as given, out dims ``dim0…`` with sizes inferred (Triton
        ``LinearEncodingAttr::getLinearLayout``)."""
        return from_bases({"register": self.register, "lane": self.lane, "warp": self.warp,
                           "block": self.block}, standard_out_dims(self.rank))

    def order(self) -> list[int]:
        """Dims in the order register bases first move them, then the rest from the last dim
        down (Triton ``LinearEncodingAttr::getOrder`` / ``orderPerDim``)."""
        seen: list[int] = []
        for b in self.register:
            for i, v in enumerate(b):
                if v:
                    if i not in seen:
                        seen.append(i)
                    break
        return seen + [d for d in range(self.rank - 1, -1, -1) if d not in seen]

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        names = standard_out_dims(self.rank)
        layout = self.base_layout().transpose_outs([names[d] for d in self.order()])
        want = dict(zip(names, shape))
        layout = ensure_not_smaller(layout, want)
        layout = ensure_not_larger(layout, want)
        return layout.transpose_outs(names)

    def text(self) -> str:
        def g(b):
            return format_value([list(x) for x in b])
        return (f"#ttg.linear<{{register = {g(self.register)}, lane = {g(self.lane)}, "
                f"warp = {g(self.warp)}, block = {g(self.block)}}}>")

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.DistributedLinearLayout(reg_bases=…, lane_bases=…, warp_bases=…,
        block_bases=…, shape=…)``.

        Raises:
            LayoutError: ``shape`` is None (Gluon's class takes the tensor shape).

        Source: Gluon ``DistributedLinearLayout`` (``_layouts.py``).
        """
        if shape is None:
            raise LayoutError("gl.DistributedLinearLayout needs the tensor shape")
        return (f"{module}.DistributedLinearLayout(reg_bases={gluon_list(self.register)}, "
                f"lane_bases={gluon_list(self.lane)}, warp_bases={gluon_list(self.warp)}, "
                f"block_bases={gluon_list(self.block)}, shape={gluon_list(list(shape))})")


@register_encoding
@dataclass(frozen=True)
class GenericLinearEncoding(LinearEncoding):
    """``#ttg.generic_linear``: an explicit layout with ``register, lane, warp, block``
    bases, as ``#ttg.linear``, that Triton 3.9 prints for a distributed linear layout whose
    bases are not all single powers of two (a Gluon ``DistributedLinearLayout`` with a basis
    such as ``[17, 9]``: several tensor bits at once).

    Read and sized as :class:`LinearEncoding` (Triton 3.9 gives both attributes the same
    ``LinearEncodingTrait``); at the tensor's own shape the bases are the layout, checked
    on compiled kernels (``papers/triton_lowering/cvt_lane_warp_probes.py``).

    Source: ``GenericLinearEncodingAttr`` (the 3.9 wheel's ``libtriton`` symbols:
    ``parse``/``print``/``getLinearLayout``, ``LinearEncodingTraitTrait``).
    """

    mnemonic = "generic_linear"

    def text(self) -> str:
        return "#ttg.generic_linear" + super().text()[len("#ttg.linear"):]


# ----------------------------------------------------------------------------- constructors
def blocked(size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
            warps_per_cta: Sequence[int], order: Sequence[int], *,
            cga_layout: Sequence[Sequence[int]] | CGALayout | None = None) -> BlockedEncoding:
    """``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CGALayout]}>``.

    Args:
        size_per_thread, threads_per_warp, warps_per_cta: per dim (powers of two), ``dim0``
            first.
        order: dims from most minor (fastest varying) to most major.
        cga_layout: CTA tile bases (Triton 3.9 ``CGALayout``), or a :class:`CGALayout`
            (use :func:`cga_layout_from_split` for ``CTAsPerCGA/CTASplitNum/CTAOrder``).

    Raises:
        LayoutError: lengths differ, a size is not a power of two, ``order`` is not a
            permutation.

    Source: ``BlockedEncodingAttr::toLinearLayout`` (LinearLayoutConversions.cpp).
    """
    return BlockedEncoding(size_per_thread, threads_per_warp, warps_per_cta, order,
                           as_cga(cga_layout, len(order)) if cga_layout is not None else None)


def slice(dim: int, parent: Encoding) -> SliceEncoding:  # noqa: A001 - Triton's name
    """``#ttg.slice<{dim, parent}>``: ``parent`` with dim ``dim`` removed.

    Raises:
        LayoutError: ``parent`` is not distributed or ``dim`` is out of range.

    Source: ``SliceEncodingAttr::toLinearLayout``.
    """
    return SliceEncoding(dim, parent)


def linear(register: Sequence[Sequence[int]], lane: Sequence[Sequence[int]],
           warp: Sequence[Sequence[int]], block: Sequence[Sequence[int]] = (), *,
           rank: int | None = None) -> LinearEncoding:
    """``#ttg.linear<{register, lane, warp, block}>``: explicit bases, one int per dim.

    Raises:
        LayoutError: bases of differing length or negative entries.

    Source: ``LinearEncodingAttr``.
    """
    return LinearEncoding(register, lane, warp, block, rank)


def generic_linear(register: Sequence[Sequence[int]], lane: Sequence[Sequence[int]],
                   warp: Sequence[Sequence[int]], block: Sequence[Sequence[int]] = (), *,
                   rank: int | None = None) -> GenericLinearEncoding:
    """``#ttg.generic_linear<{register, lane, warp, block}>``: explicit bases, any sum of
    tensor bits each (:class:`GenericLinearEncoding`).

    Raises:
        LayoutError: bases of differing length or negative entries.

    Source: ``GenericLinearEncodingAttr`` (Triton 3.9).
    """
    return GenericLinearEncoding(register, lane, warp, block, rank)
