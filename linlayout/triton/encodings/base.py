"""The :class:`Encoding` base class, CGA layouts, and the argument checks every encoding shares.

* :class:`Encoding`: what every Triton layout attribute offers — ``to_linear_layout(shape)``
  (checks the shape, then calls the subclass's :meth:`Encoding.build_linear_layout`) and
  ``text()`` (the attribute as Triton 3.9 prints it).
* :class:`CGALayout` / :func:`cga_layout_from_split`: how the CTAs of a cluster tile a tensor.
* :func:`combine_cta_cga`: one CTA's layout extended to the whole shape plus the ``block`` dim
  (Triton ``combineCtaCgaWithShape``), the last step of almost every conversion.
* ``check_*`` / :func:`as_cga` / :func:`format_value`: the parameter checks and the printer
  shared by the encoding modules (package-internal; bad values raise
  :class:`~linlayout.LayoutError` with the parameter's Triton name).

Source: ``CGAEncodingAttr`` (``include/triton/Dialect/TritonGPU/IR/CGAEncodingAttr.td``),
``combineCtaCgaWithShape`` / ``makeCgaLayout`` (``LinearLayoutConversions.cpp``, Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import as_int, int_list, shown
from ...errors import LayoutError
from ...layout import LinearLayout
from ..._memo import memoize
from .construct import (
    ensure_not_larger,
    ensure_not_smaller,
    from_bases,
    standard_out_dims,
)

__all__ = [
    "CGALayout",
    "Encoding",
    "as_cga",
    "cga_layout_from_split",
    "check_bases",
    "check_order",
    "check_shape",
    "combine_cta_cga",
    "format_value",
    "gluon_cga",
    "gluon_list",
]


# ----------------------------------------------------------------------------- checks
def check_order(order: Any, rank: int, what: str = "order") -> tuple[int, ...]:
    """``order`` as a tuple: a permutation of ``0 … rank-1``.

    Raises:
        LayoutError: not a list of ints, wrong length, or not a permutation.
    """
    o = int_list(order, what, length=rank)
    if sorted(o) != list(range(rank)):
        raise LayoutError(f"{what} must be a permutation of 0..{rank - 1}, got {list(o)}")
    return o


def check_bases(seq: Any, rank: int, what: str) -> tuple[tuple[int, ...], ...]:
    """``seq`` as a tuple of bases, each ``rank`` non-negative ints.

    Raises:
        LayoutError: not a list of lists of ints, a basis of the wrong length, or a negative
            entry.
    """
    if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
        raise LayoutError(f"{what} must be a list of bases [[...], ...], got {shown(seq)}")
    out = []
    for i, b in enumerate(seq):
        vals = int_list(b, f"{what}[{i}]", length=rank)
        if any(v < 0 for v in vals):
            raise LayoutError(f"{what}[{i}] = {list(vals)} has a negative entry")
        out.append(vals)
    return tuple(out)


def check_shape(shape: Any, rank: int | None, what: str = "shape") -> list[int]:
    """``shape`` as a list of powers of two, of length ``rank`` when given.

    Raises:
        LayoutError: not a list of ints, a size that is not a power of two, or the wrong rank.
    """
    s = list(int_list(shape, what, pow2=True))
    if rank is not None and len(s) != rank:
        raise LayoutError(f"{what} {s} has rank {len(s)} but the encoding has rank {rank}")
    return s


def format_value(v: Any) -> str:
    """A parameter as Triton prints it: ``true``/``false``, ``[1, 2]``, ``[[0, 1]]``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    return str(v)


def gluon_list(v: Sequence[Any]) -> str:
    """A list (nested lists/tuples of ints) as Gluon source: ``[1, 0]``, ``[[0, 1], [2, 0]]``.

    Source: the list arguments of Gluon's ``_layouts.py`` constructors.
    """
    return "[" + ", ".join(gluon_list(x) if isinstance(x, (list, tuple)) else str(x)
                           for x in v) + "]"


def gluon_cga(cga: CGALayout | None) -> str:
    """``", cga_layout=[[…]]"`` for a Gluon constructor, or ``""`` for one CTA (Gluon's
    default ``cga_layout=[]``)."""
    if cga is None or cga.is_trivial:
        return ""
    return f", cga_layout={gluon_list([list(b) for b in cga.bases])}"


# ----------------------------------------------------------------------------- CGA layouts
@dataclass(frozen=True)
class CGALayout:
    """How the CTAs of a cluster (CGA) tile the tensor: ``block`` bits -> tile index per dim.

    ``bases[i]`` is the tile coordinate (one int per tensor dim, in units of one CTA's tile)
    of block ``2**i``; zero entries broadcast. Triton 3.9 prints it as ``CGALayout = [[…]]``;
    Triton ≤ 3.5 wrote ``CTAsPerCGA / CTASplitNum / CTAOrder``
    (:func:`cga_layout_from_split` converts).

    Raises:
        LayoutError: a basis of the wrong length, a negative entry, or an entry that is
            neither 0 nor a power of two.

    Source: ``CGAEncodingAttr`` (``include/triton/Dialect/TritonGPU/IR/CGAEncodingAttr.td``).
    """

    rank: int
    bases: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank", as_int(self.rank, "CGA rank"))
        object.__setattr__(self, "bases", check_bases(self.bases, self.rank, "CGALayout"))
        for i, b in enumerate(self.bases):
            for v in b:
                if v & (v - 1):
                    raise LayoutError(
                        f"CGALayout[{i}] = {list(b)}: tile coordinates must be 0 or a power of "
                        "two"
                    )

    @property
    def is_trivial(self) -> bool:
        """One CTA (no block bits)."""
        return not self.bases

    def linear_layout(self) -> LinearLayout:
        """``block`` -> ``dim0…`` with sizes inferred (Triton ``CGAEncodingAttr::
        getLinearLayout``)."""
        return from_bases({"block": self.bases}, standard_out_dims(self.rank))

    @property
    def split_num(self) -> tuple[int, ...]:
        """CTA tiles per dim (Triton ``getCTASplitNum``)."""
        return tuple(self.linear_layout().out_dims.values())

    def shape_per_cta(self, shape: Sequence[int]) -> list[int]:
        """``shape`` divided by the tiles per dim, at least 1 (Triton ``getShapePerCTA``)."""
        return [max(1, s // k) for s, k in zip(shape, self.split_num)]

    def drop_dim(self, dim: int) -> CGALayout:
        """The CGA layout of a slice along ``dim``."""
        return CGALayout(self.rank - 1, tuple(b[:dim] + b[dim + 1:] for b in self.bases))

    def zero_dim(self, dim: int) -> CGALayout:
        """The CGA layout of a dot operand: the k dim ``dim`` broadcast."""
        return CGALayout(self.rank, tuple(b[:dim] + (0,) + b[dim + 1:] for b in self.bases))

    def text(self) -> str:
        """``", CGALayout = [[…]]"`` or ``""`` when trivial (Triton's printer omits it)."""
        if self.is_trivial:
            return ""
        return f", CGALayout = {format_value([list(b) for b in self.bases])}"


def cga_layout_from_split(ctas_per_cga: Sequence[int], cta_split_num: Sequence[int],
                          cta_order: Sequence[int]) -> CGALayout:
    """The CGA layout of Triton ≤ 3.5's ``CTAsPerCGA / CTASplitNum / CTAOrder`` triple.

    Along each dim (``cta_order[0]`` first) the block id first splits the dim into
    ``CTASplitNum`` tiles, then broadcasts over the remaining ``CTAsPerCGA / CTASplitNum``.

    Raises:
        LayoutError: lengths differ, a value is not a power of two, ``CTASplitNum`` does not
            divide ``CTAsPerCGA``, or ``cta_order`` is not a permutation.

    Source: ``makeCgaLayout`` / ``CGAEncodingAttr::fromSplitParams``
    (LinearLayoutConversions.cpp).
    """
    rank = len(int_list(cta_order, "CTAOrder"))
    per = int_list(ctas_per_cga, "CTAsPerCGA", pow2=True, length=rank)
    split = int_list(cta_split_num, "CTASplitNum", pow2=True, length=rank)
    order = check_order(cta_order, rank, "CTAOrder")
    names = standard_out_dims(rank)
    ret = LinearLayout.empty()
    for d in order:
        if per[d] % split[d]:
            raise LayoutError(
                f"CTASplitNum[{d}] = {split[d]} must divide CTAsPerCGA[{d}] = {per[d]}"
            )
        ret = ret * (LinearLayout.identity_1d(split[d], "block", names[d])
                     * LinearLayout.zeros_1d(per[d] // split[d], "block", names[d]))
    # The out dims are now in CTAOrder; bases are named, so read them in dim0… order.
    ret = ret.transpose_outs(names)
    return CGALayout(rank, tuple(tuple(b) for b in ret.bases.get("block", ())))


def as_cga(cga: Any, rank: int) -> CGALayout:
    """A :class:`CGALayout` of ``rank`` from one, from a list of bases, or from None (one CTA).

    Raises:
        LayoutError: the rank differs or the bases are malformed.
    """
    if cga is None:
        return CGALayout(rank)
    if isinstance(cga, CGALayout):
        if cga.rank != rank:
            raise LayoutError(f"CGALayout has rank {cga.rank} but the encoding has rank {rank}")
        return cga
    return CGALayout(rank, check_bases(cga, rank, "cga_layout"))


def combine_cta_cga(cta: LinearLayout, cga: CGALayout, shape: Sequence[int],
                    drop_registers: bool = False) -> LinearLayout:
    """Extend a one-CTA layout to ``shape`` and add the ``block`` dim.

    The CGA layout is first cut to ``shape``; the CTA layout is then grown (register or
    offset bases appended, out dims in ``cta``'s order) or cut to ``shape`` divided by the CTA
    tiles. Register bases that land outside are zeroed (broadcast), or dropped with
    ``drop_registers`` (what Triton 3.9 does for ``#ttg.blocked``).

    Args:
        cta: in dims ``register, lane, warp`` or ``offset``; out dims ``dim0…`` in any order.
        cga: the CTA tiling.
        shape: the tensor shape, ``dim0`` first.

    Returns:
        ``cta * cga`` with out dims ``dim0 …`` in standard order, of sizes ``shape``.

    Source: ``combineCtaCgaWithShape`` (LinearLayoutConversions.cpp).
    """
    names = standard_out_dims(len(shape))
    labeled = dict(zip(names, shape))
    cta_names = cta.out_dim_names
    cga_layout = _cga_within(cga, tuple(shape), cta_names)
    cga_sizes = cga_layout.out_dims
    cta_shape = {n: max(1, labeled[n] // cga_sizes[n]) for n in cta_names}
    cta = ensure_not_smaller(cta, cta_shape)
    cta = ensure_not_larger(cta, cta_shape, broadcast_registers=not drop_registers)
    return (cta * cga_layout).transpose_outs(names)


@memoize(1024)
def _cga_within(cga: CGALayout, shape: tuple[int, ...], order: tuple[str, ...]) -> LinearLayout:
    """``cga``'s layout cut to ``shape``, out dims in ``order`` (cached: every conversion
    needs it, and layouts are immutable)."""
    labeled = dict(zip(standard_out_dims(len(shape)), shape))
    return ensure_not_larger(cga.linear_layout(), labeled).transpose_outs(order)


# ----------------------------------------------------------------------------- base class
class Encoding:
    """A Triton layout attribute. Subclasses are frozen dataclasses.

    A subclass sets :attr:`kind` and :attr:`mnemonic` and implements :attr:`rank`,
    :meth:`build_linear_layout` and :meth:`text`; :meth:`gluon` where Gluon has a constructor.
    A class the MLIR reader builds also sets :attr:`attribute_keys` (and
    :attr:`mnemonic_aliases`, :attr:`attribute_syntax` where they differ from the defaults),
    defines a classmethod ``from_attribute(body, at)`` and is decorated with
    :func:`linlayout.triton.encodings.registry.register_encoding`.
    """

    #: ``"distributed"`` or ``"shared"``.
    kind: str = ""
    #: The attribute mnemonic after ``#ttg.``.
    mnemonic: str = ""
    #: Older mnemonics the MLIR reader also maps to this class.
    mnemonic_aliases: tuple[str, ...] = ()
    #: The keys the attribute body may hold.
    attribute_keys: frozenset[str] = frozenset()
    #: The form of the body inside ``<…>`` (see :mod:`~linlayout.triton.encodings.registry`).
    attribute_syntax: str = "dict"

    @property
    def rank(self) -> int:  # pragma: no cover - every subclass overrides
        """Number of tensor dims."""
        raise NotImplementedError

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The layout for a tensor (or buffer) of this ``shape`` (Triton ``toLinearLayout``).

        Args:
            shape: sizes per dim (powers of two), ``dim0`` first; for shared encodings the
                allocation shape.

        Returns:
            A :class:`LinearLayout` with in dims ``register, lane, warp, block`` (distributed)
            or ``offset, block`` (shared) and out dims ``dim0 … dim{rank-1}`` of these sizes.

        Raises:
            LayoutError: the shape's rank differs from the encoding's, a size is not a power of
                two, or the shape is too small for the encoding (Triton asserts there).
        """
        return self.build_linear_layout(check_shape(shape, self.rank))

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:  # pragma: no cover
        """The conversion itself, for a ``shape`` that :meth:`to_linear_layout` has checked.

        Subclasses implement it (and may call it on a parent encoding with a shape they
        derived); everyone else calls :meth:`to_linear_layout`.
        """
        raise NotImplementedError

    def text(self) -> str:  # pragma: no cover
        """The attribute in Triton 3.9's printed syntax."""
        raise NotImplementedError

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """The Gluon constructor call that builds this encoding.

        Args:
            shape: the tensor shape, for the encodings whose Gluon class takes one
                (``gl.DistributedLinearLayout``).
            module: the name the kernel imported ``triton.experimental.gluon.language`` as.

        Raises:
            LayoutError: Gluon has no constructor for this encoding here (the default).

        Source: Gluon's ``_layouts.py``; ``layoutToGluon`` in ``python/src/gluon_ir.cc``.
        """
        raise LayoutError(f"no Gluon constructor is written for {type(self).__name__} "
                          f"({self.text()})")
