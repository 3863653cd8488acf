"""``#ttg.padded_shared``: a shared layout that reorders offsets linearly, then pads them.

Triton 3.9 prints it in two forms (``PaddedSharedEncodingAttr::print`` / ``parse`` in
``lib/Dialect/TritonGPU/IR/Dialect.cpp``)::

    #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>           identity remap
    #ttg.padded_shared<[64:+8, 128:+8] {offset = [[0, 1], ...], block = []}> explicit remap

``[I:+P, …]`` inserts ``P`` elements of padding after every ``I`` elements of the unpadded
offset; the pairs add up. The short form's remap is the identity over ``shape`` with
``order[0]`` fastest; the long form gives the offset (and CGA ``block``) bases. Triton's
verifier also requires every basis to move along one dim by a power of two (the remap only
reorders rows or chunks); this class checks the same.

There is no linear layout: :meth:`PaddedSharedEncoding.to_linear_layout` raises (Triton's
``toLinearLayout`` aborts likewise); :meth:`PaddedSharedEncoding.to_padded_layout` gives the
:class:`~linlayout.layout.padded.PaddedLayout` that :func:`linlayout.bank_conflicts` counts,
and :meth:`PaddedSharedEncoding.linear_component` the remap alone (Triton
``paddedLinearLayout``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import int_list
from ...errors import LayoutError
from ...layout import LinearLayout
from ...layout.padded import PaddedLayout, check_padding_pairs
from .base import Encoding, check_bases, check_order, check_shape, format_value
from .construct import from_bases, identity_standard_nd, standard_out_dims
from .registry import AttributeBody, register_encoding

__all__ = ["PaddedSharedEncoding", "padded_shared"]


def _as_identity(offset: tuple[tuple[int, ...], ...]) -> tuple[list[int], list[int]] | None:
    """(shape, order) when ``offset`` is an identity remap (the short form), else None."""
    if not offset:
        return None
    rank = len(offset[0])
    order: list[int] = []
    bits = [0] * rank
    for v in offset:
        nz = [d for d in range(rank) if v[d]]
        if len(nz) != 1 or v[nz[0]] != 1 << bits[nz[0]]:
            return None
        d = nz[0]
        if order and order[-1] != d:
            if d in order:
                return None
        if not order or order[-1] != d:
            order.append(d)
        bits[d] += 1
    order += [d for d in range(rank) if d not in order]
    return [1 << b for b in bits], order


@register_encoding
@dataclass(frozen=True)
class PaddedSharedEncoding(Encoding):
    """``#ttg.padded_shared``: (interval, pad) pairs plus a linear remap (module docstring).

    Attributes:
        pairs: ``((interval, pad), …)`` in elements, powers of two, distinct intervals.
        offset: tensor coordinate of unpadded offset ``2^i``, one tuple per offset bit.
        block: CGA bases (CTA bits), possibly empty.

    Raises:
        LayoutError: invalid pairs (Triton's verifier), no offset bases, bases of differing
            lengths, a basis moving along more than one dim or not by a power of two, or a
            remap that is not a bijection.

    Source: ``PaddedSharedEncodingAttr`` (Triton ``Dialect.cpp``, ``TritonGPUAttrDefs.td``).
    """

    pairs: tuple[tuple[int, int], ...]
    offset: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()
    kind = "shared"
    mnemonic = "padded_shared"
    attribute_keys = frozenset({"order", "shape", "offset", "block"})
    attribute_syntax = "pairs_then_dict"

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body", *,
                       pairs: Sequence[Sequence[int]] = ()) -> PaddedSharedEncoding:
        """From ``#ttg.padded_shared<[I:+P, …] {…}>``: ``pairs`` the ``(I, P)`` before the
        dict, ``body`` the dict — ``{order, shape}`` (identity remap) or ``{offset[,
        block]}``.

        Args:
            body: the parsed ``{key = value}`` dict.
            at: the attribute's position in the text (or a function returning it).
            pairs: the ``(interval, padding)`` pairs, in elements.

        Raises:
            LayoutError: other keys (``malformed MLIR at …``), or invalid values
                (``invalid #ttg.padded_shared at …``).

        Source: ``PaddedSharedEncodingAttr::parse`` (Triton ``Dialect.cpp``).
        """
        b = AttributeBody(body, cls.mnemonic, at)
        keys = set(b)
        try:
            if keys == {"order", "shape"}:
                return padded_shared(pairs, order=b["order"], shape=b["shape"])
            if keys in ({"offset"}, {"offset", "block"}):
                return padded_shared(pairs, offset=b["offset"], block=b.get("block", []))
        except LayoutError as exc:
            raise LayoutError(f"invalid #ttg.padded_shared at {b.at}: {exc}") from None
        raise LayoutError(f"malformed MLIR at {b.at}: #ttg.padded_shared takes either "
                          f"{{order, shape}} or {{offset, block}}, got keys {sorted(keys)}")

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", check_padding_pairs(self.pairs))
        if not self.offset:
            raise LayoutError("padded_shared needs at least one offset basis")
        r = len(int_list(self.offset[0], "offset[0]"))
        object.__setattr__(self, "offset", check_bases(self.offset, r, "offset"))
        object.__setattr__(self, "block", check_bases(self.block, r, "block"))
        for what, bases in (("offset", self.offset), ("block", self.block)):
            for i, v in enumerate(bases):
                nz = [x for x in v if x]
                if len(nz) > 1 or (nz and nz[0] & (nz[0] - 1)):
                    raise LayoutError(
                        f"padded_shared {what} basis {i} = {list(v)} must move along one dim by "
                        "a power of two (Triton's verifier: the remap only reorders rows or "
                        "chunks; use shared_linear for XOR swizzles)")
        self.linear_component(self.covered_shape)  # bijectivity

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.offset[0])

    @property
    def covered_shape(self) -> list[int]:
        """The tensor shape the remap covers (per dim, the largest basis entry doubled)."""
        lay = from_bases({"offset": self.offset, "block": self.block},
                         standard_out_dims(self.rank))
        return list(lay.out_dims.values())

    def linear_component(self, shape: Sequence[int]) -> LinearLayout:
        """The remap alone (``offset, block`` → ``dim0 …``; Triton ``paddedLinearLayout``).

        Raises:
            LayoutError: ``shape`` differs from the covered shape, or the remap is not a
                bijection (Triton: "Broadcasting is not supported").
        """
        shape = check_shape(shape, self.rank)
        lay = from_bases({"offset": self.offset, "block": self.block},
                         standard_out_dims(self.rank))
        if list(lay.out_dims.values()) != list(shape):
            raise LayoutError(f"this padded_shared layout covers a shape of "
                              f"{list(lay.out_dims.values())}, not {list(shape)}")
        if not (lay.is_injective and lay.is_surjective):
            raise LayoutError("padded_shared's remap must be a bijection (Triton: "
                              "'Broadcasting is not supported')")
        if not self.block:
            lay = LinearLayout({"offset": lay.bases["offset"]}, out_dims=lay.out_dims)
        return lay

    def to_padded_layout(self, shape: Sequence[int]) -> PaddedLayout:
        """The padded layout at the allocation ``shape`` (what the bank counters take).

        Raises:
            LayoutError: as :meth:`linear_component`.
        """
        return PaddedLayout(self.linear_component(shape), self.pairs)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        raise LayoutError(
            "#ttg.padded_shared inserts padding, so element offsets are not a linear function "
            "of the index and it has no linear layout; use to_padded_layout(shape) (a "
            "PaddedLayout that bank_conflicts counts) or linear_component(shape)")

    @property
    def identity_form(self) -> tuple[list[int], list[int]] | None:
        """``(shape, order)`` when the remap is the identity (printed in the short form)."""
        return None if self.block else _as_identity(self.offset)

    def text(self) -> str:
        pairs = ", ".join(f"{i}:+{p}" for i, p in self.pairs)
        ident = self.identity_form
        if ident is not None:
            shape, order = ident
            return (f"#ttg.padded_shared<[{pairs}] {{order = {format_value(order)}, "
                    f"shape = {format_value(shape)}}}>")
        return (f"#ttg.padded_shared<[{pairs}] {{offset = "
                f"{format_value([list(b) for b in self.offset])}, block = "
                f"{format_value([list(b) for b in self.block])}}}>")

    @classmethod
    def from_padded_layout(cls, memory: PaddedLayout) -> "PaddedSharedEncoding":
        """The encoding of a :class:`~linlayout.layout.padded.PaddedLayout` whose remap
        Triton accepts (bases along one dim by powers of two).

        Raises:
            LayoutError: a remap Triton cannot express (an XOR basis).
        """
        if not isinstance(memory, PaddedLayout):
            raise LayoutError(f"expected a PaddedLayout, got {type(memory).__name__}")
        b = memory.linear.bases
        return cls(memory.pairs, tuple(tuple(v) for v in b["offset"]),
                   tuple(tuple(v) for v in b.get("block", [])))


def padded_shared(pairs: Sequence[Sequence[int]], *, order: Sequence[int] | None = None,
                  shape: Sequence[int] | None = None,
                  offset: Sequence[Sequence[int]] | None = None,
                  block: Sequence[Sequence[int]] = ()) -> PaddedSharedEncoding:
    """``#ttg.padded_shared``: either ``order`` and ``shape`` (identity remap, the short form;
    Gluon ``PaddedSharedLayout.with_identity_for``) or explicit ``offset`` (and ``block``)
    bases (the long form).

    Raises:
        LayoutError: both or neither of the two forms, or invalid values (see
            :class:`PaddedSharedEncoding`).

    Source: ``PaddedSharedEncodingAttr`` builders (Triton ``TritonGPUAttrDefs.td``).
    """
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise LayoutError(f"pairs must be a list of [interval, padding] pairs, got "
                          f"{type(pairs).__name__}")
    pairs = [int_list(p, f"pairs[{i}]") for i, p in enumerate(pairs)]
    if (offset is None) == (order is None or shape is None):
        raise LayoutError("padded_shared takes either order and shape (identity remap) or "
                          "offset bases, not both and not neither")
    if offset is None:
        shape = check_shape(shape, None)
        order = check_order(order, len(shape))
        ident = identity_standard_nd("offset", shape, order)
        offset = ident.transpose_outs(standard_out_dims(len(shape))).bases["offset"]
    return PaddedSharedEncoding(tuple(tuple(p) for p in pairs), tuple(map(tuple, offset)),
                                tuple(map(tuple, block)))
