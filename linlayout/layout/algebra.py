"""The algebra of layouts: composition, inversion, products, division, solving.

Method bodies of :class:`~linlayout.LinearLayout` (each is installed on the class under the
name it has here; :func:`product` is ``*``). Triton's names and semantics
(``include/triton/Tools/LinearLayout.h``, ``lib/Tools/LinearLayout.cpp``); the elimination
runs on flat columns with :mod:`linlayout.f2`.

Worked example (4 bits): ``A = {"register": [[1], [2]]} -> {"dim0": 4}`` is the identity
and ``B = {"lane": [[2], [1]]} -> {"dim0": 4}`` swaps the two bits; ``B.invert()`` is ``dim0
-> lane`` with the bits swapped back, ``A.invert_and_compose(B)`` maps ``register=1`` to
``lane=2`` (``B(lane=2) == A(register=1) == 1``), and ``A * B`` is a 16-element layout whose
``lane`` values sit above ``register``'s in ``dim0``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._checks import shown
from .. import f2
from ..errors import LayoutError, NotInvertibleError
from ..subspace import Subspace
from .core import LayoutCore, need_layout
from .dims import (
    locate,
    names_arg,
    out_spec,
    remap,
    scatter,
    split_by_dim,
    spread,
    supremum,
)

if TYPE_CHECKING:
    from . import LinearLayout

__all__ = [
    "compose",
    "contiguous_elems_along",
    "divide_left",
    "divide_right",
    "free_variable_masks",
    "image",
    "invert",
    "invert_and_compose",
    "is_trivial_over",
    "kernel",
    "least_squares",
    "num_consecutive_in_out",
    "product",
    "pseudoinvert",
    "quotient",
]

_new = object.__new__


def compose(self, outer: LinearLayout) -> LinearLayout:
    """The layout ``x ↦ outer(self(x))`` (Triton ``compose``, LinearLayout.cpp).

    Requires ``self``'s out dims to equal ``outer``'s in dims as a set, with each out size of
    ``self`` at most the matching in size of ``outer``. The result has ``self``'s in dims
    and ``outer``'s out dims; it may be non-surjective (Triton's ``Compose`` test).

    Raises:
        LayoutError: the dims do not match (named) or a size is too large.
    """
    cls = type(self)
    if type(outer) is cls and self._out == outer._in:  # the usual case, inlined
        ocols, oout = outer._cols, outer._out
        width = oout[0][1] + oout[1][1] if len(oout) == 2 else sum(b for _, b in oout)
        if width < len(ocols):  # the bound on both layouts' columns
            width = len(ocols)
        result = _new(cls)
        result._in, result._out = self._in, oout
        result._cols = tuple(f2.compose_unchecked(ocols, self._cols, width))
        result._hash = result._rank = result._meta = None
        return result
    need_layout(outer, "outer")
    tables = outer.dim_tables
    ooffs, osizes = tables.in_offsets, tables.in_bits
    if len(osizes) != len(self._out) or any(n not in osizes for n, _ in self._out):
        raise LayoutError(
            f"compose needs this layout's out dims {list(self.out_dim_names)} to equal the "
            f"outer layout's in dims {list(outer.in_dim_names)}"
        )
    # Re-express our flat outputs as outer's flat inputs: for each of our output bits,
    # outer's column.
    rows: list[int] = []
    outer_cols = outer._cols
    for n, b in self._out:
        if b > osizes[n]:
            raise LayoutError(
                f"out dim {shown(n)} has size {1 << b} but the outer in dim has size "
                f"{1 << osizes[n]}; it must be at most that"
            )
        rows += outer_cols[ooffs[n]:ooffs[n] + b]
    return cls.unchecked(self._in, outer._out, f2.compose_within(
        rows, self._cols, max(len(rows), outer.total_out_bits)))


def invert(self) -> LinearLayout:
    """The inverse map (out dims become in dims). Triton ``invert``, LinearLayout.cpp.

    Raises:
        NotInvertibleError: the layout is not a bijection.
    """
    if not self.is_invertible:
        raise NotInvertibleError(
            f"the layout is not invertible: rank {self.rank}, {self.total_in_bits} input "
            f"bits, {self.total_out_bits} output bits; a bijection needs all three equal. "
            "Use pseudoinvert() for a surjective layout"
        )
    # A bijection has exactly one inverse, so the direct elimination gives Triton's answer.
    return type(self).unchecked(self._out, self._in, f2.inverse(self._cols))


def pseudoinvert(self) -> LinearLayout:
    """A right inverse ``R`` with ``self(R(y)) == y`` for every output ``y``.

    Exactly Triton's ``pseudoinvert`` (LinearLayout.cpp): ``I.invert_and_compose(self)``
    where ``I`` is the identity on this layout's out dims. Among the preimages, each output
    bit picks the one with all free variables zero; an in dim named like an out dim on
    which this layout is the identity maps back identically (the
    :meth:`invert_and_compose` heuristic).

    Raises:
        NotInvertibleError: the layout is not surjective.
    """
    if not self.is_surjective:
        raise NotInvertibleError(
            f"pseudoinvert needs a surjective layout; rank {self.rank} < "
            f"{self.total_out_bits} output bits"
        )
    ident = type(self).unchecked(
        self._out, self._out, [1 << j for j in range(self.total_out_bits)]
    )
    return ident.invert_and_compose(self)


def _same_out_names(self: LayoutCore, other: LayoutCore, op: str, what: str) -> None:
    """LayoutError unless both layouts have the same out-dim names (any order)."""
    if set(other.out_dim_names) != set(self.out_dim_names):
        only_self = [n for n in self.out_dim_names if n not in other.out_dim_names]
        only_other = [n for n in other.out_dim_names if n not in self.out_dim_names]
        raise LayoutError(
            f"{op} needs equal out dims, got {list(self.out_dim_names)} and "
            f"{list(other.out_dim_names)} (only in this layout: {only_self}; only in "
            f"{what}: {only_other})"
        )


def _columns_in(self: LayoutCore, target: LayoutCore, op: str, what: str) -> Sequence[int]:
    """This layout's columns re-expressed in ``target``'s flat out bits.

    Needs the same out-dim names, each of ours at most ``target``'s size (else LayoutError
    naming the dim).
    """
    if self._out == target._out:
        return self._cols
    tsizes = target.dim_tables.out_bits
    if len(tsizes) != len(self._out) or any(n not in tsizes for n, _ in self._out):
        _same_out_names(self, target, op, what)
    for n, b in self._out:
        if b > tsizes[n]:
            raise LayoutError(
                f"out dim {shown(n)} has size {1 << b} here but {1 << tsizes[n]} in {what} "
                f"({self.out_dims} vs {target.out_dims}); {what}'s out dims must be at "
                "least as large"
            )
    return remap(self._cols, out_spec(self.dim_tables, target.dim_tables.out_shifts))


def least_squares(self, other: LinearLayout) -> LinearLayout:
    """``X`` with ``self(X(x)) == other(x)`` for all ``x``, free variables zero.

    Triton ``LinearLayout::lstsq(A, B)`` (LinearLayout.cpp) with ``A = self``,
    ``B = other``: each column of ``B`` is solved over ``A``'s columns by reduced
    row-echelon elimination with the free variables set to 0 (:func:`f2.least_squares`),
    so among all solutions each input bit maps to the one using only *basic* columns of
    ``A`` (the smallest preimage in ``A``'s flat input order). Unlike
    :meth:`invert_and_compose` there is no identity heuristic and ``A`` need not be
    surjective; only ``Im(B) ⊆ Im(A)`` is required.

    Shapes: ``A``: in bits ``m`` → out bits ``k``; ``B``: in bits ``n`` → out bits
    ``k' ≤ k``; the result maps ``B``'s in dims (``n`` bits) to ``A``'s in dims (``m``).

    Raises:
        LayoutError: the out-dim names differ, or one of ``other``'s out dims is larger
            than ours (named).
        NotInvertibleError: an image of ``other`` is not in the image of this layout (the
            in dim and basis are named).

    Example::

        >>> A = LinearLayout({"lane": [[0], [1], [2]]}, {"dim0": 4})   # lane 1 broadcasts
        >>> B = LinearLayout.identity_1d(4, "register", "dim0")
        >>> A.least_squares(B).bases
        {'register': [[2], [4]]}
    """
    need_layout(other, "other")
    targets = _columns_in(other, self, "least_squares", "this layout")
    sols = f2.solve_many(self._cols, targets)
    for i, s in enumerate(sols):
        if s is None:
            name, bit = locate(other._in, i)
            raise NotInvertibleError(
                f"other's basis {name}={1 << bit} maps to {other.bases[name][bit]}, which is "
                "not in the image of this layout; least squares over F2 needs "
                "Im(other) ⊆ Im(self)"
            )
    return type(self).unchecked(other._in, self._in, sols)  # type: ignore[arg-type]


def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
    """``C`` with ``outer(C(x)) == self(x)`` for all ``x`` (Triton ``invertAndCompose``).

    Both layouts must have the same out dims (any order), each of ``outer``'s at least as
    large as ours (Triton's ``InvertAndComposeLargerA``), and ``outer`` must be
    surjective. As in Triton (LinearLayout.cpp): an in dim that both layouts have, with
    identical images, maps to itself (identity); the rest is solved with free variables
    zero (Triton's ``lstsq``, :meth:`least_squares`) over ``outer``'s other in dims, which
    maps broadcast copies to the smallest input. Where Triton's heuristic fails (an output
    of ``self``'s other dims needs an identity dim of ``outer`` too; Triton asserts), the
    identity dims' columns are used as well, after the others, so a valid ``C`` is always
    returned and equals Triton's whenever Triton's exists.

    This is the rule of Triton's main branch (and of this project's spec). The Triton
    3.9 wheel does not apply the identity-dim rule: where several ``C`` exist it may
    return another, equally valid one (``outer(C(x)) == self(x)`` holds for both; 171
    of 1,836 small random pairs differed, 154 of them sharing a dim, never where ``C``
    is unique: ``papers/linear_layouts/triton_invert_and_compose.py``).

    Returns:
        A layout from ``self``'s in dims to ``outer``'s in dims.

    Raises:
        LayoutError: out dims differ (named) or one of ours is larger than ``outer``'s;
        NotInvertibleError: ``outer`` is not surjective.
    """
    need_layout(outer, "outer")
    mine = _columns_in(self, outer, "invert_and_compose", "outer")
    if not outer.is_surjective:
        raise NotInvertibleError(
            "invert_and_compose needs the outer layout to be surjective (every tensor "
            f"element must have a location); its rank is {outer.rank} < "
            f"{outer.total_out_bits}"
        )
    my_offs, my_sizes = self.dim_tables.in_offsets, self.dim_tables.in_bits
    ooffs, ocols = outer.dim_tables.in_offsets, outer._cols
    identity = [
        n for n, b in outer._in
        if my_sizes.get(n) == b and tuple(mine[my_offs[n]:my_offs[n] + b])
        == ocols[ooffs[n]:ooffs[n] + b]
    ]
    a_cols: list[int] = []
    a_index: list[int] = []  # flat position in outer's input of each A column
    # Non-identity dims first (Triton's lstsq over them), then the identity dims: with free
    # variables zero the identity columns are used only when the others cannot reach a
    # target, so the answer is Triton's whenever Triton's succeeds.
    for use_identity in (False, True):
        for n, b in outer._in:
            if (n in identity) == use_identity:
                a_cols.extend(ocols[ooffs[n]:ooffs[n] + b])
                a_index.extend(range(ooffs[n], ooffs[n] + b))
    b_reduced = [mine[my_offs[n] + i] for n, b in self._in if n not in identity
                 for i in range(b)]
    sols = f2.solve_many(a_cols, b_reduced)  # outer is surjective: every target is reached
    if a_index != list(range(len(a_index))):  # identity dims moved: back to outer's order
        sols = [scatter(x, a_index) for x in sols]  # type: ignore[arg-type]
    it = iter(sols)
    result = []
    for n, b in self._in:
        if n in identity:
            result.extend(1 << (ooffs[n] + i) for i in range(b))
        else:
            result.extend(next(it) for _ in range(b))
    return type(self).unchecked(self._in, outer._in, result)


def product(self, outer: LinearLayout) -> LinearLayout:
    """Triton's direct product ``inner * outer`` (``operator*``, LinearLayout.cpp).

    In dims and out dims are merged by name into Triton's ``supremum`` of the two ordered
    lists (LayoutUtils.cpp): between consecutive shared dims, ``inner``'s own dims come
    first, then ``outer``'s — e.g. ``sup([a, b], [c, b]) == [a, c, b]``. Where both layouts
    share a dim, ``outer``'s bits come after ``inner``'s: its in bits are appended and its
    out values are shifted above ``inner``'s out bits. Sizes multiply; ranks add.

    Worked example (Triton's ``MultiplyOverlapping``)::

        identity_1d(4, "in", "o1") * identity_1d(8, "in", "o2")
        == LinearLayout({"in": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]},
                        {"o1": 4, "o2": 8})

    Raises:
        LayoutError: dims common to both appear in a different relative order (named).
    """
    if not isinstance(outer, LayoutCore):
        return NotImplemented
    mi, mo = self._meta or self.dim_tables, outer._meta or outer.dim_tables
    ins = supremum(self._in, outer._in, mi.in_names, mo.in_names, "in")
    outs = supremum(self._out, outer._out, mi.out_names, mo.out_names, "out")
    shift: dict[str, int] = {}
    s = 0
    for n, b in outs:
        shift[n] = s
        s += b
    inner_bits = mi.out_bits
    # Each layout's out fields keep their relative order in ``outs``: spread them apart.
    inner_cols = spread(self._cols, [(sh, shift[n]) for n, sh, m in mi.out_fields if m])
    outer_cols = spread(outer._cols, [(sh, shift[n] + inner_bits.get(n, 0))
                                       for n, sh, m in mo.out_fields if m])
    if len(ins) == len(self._in) + len(outer._in):  # no shared in dim: inner's, outer's
        return type(self).unchecked(ins, outs, inner_cols + outer_cols)
    inner_by_dim = split_by_dim(self._in, inner_cols)
    outer_by_dim = split_by_dim(outer._in, outer_cols)
    cols: list[int] = []
    for n, _ in ins:
        cols.extend(inner_by_dim.get(n, ()))
        cols.extend(outer_by_dim.get(n, ()))
    return type(self).unchecked(ins, outs, cols)


def divide_left(self, divisor: LinearLayout) -> LinearLayout | None:
    """``C`` with ``divisor * C == self``, or None when there is none (Triton ``divideLeft``).

    LayoutUtils/LinearLayout.cpp ``divideLeft(A, B)`` with ``A = self``, ``B = divisor``:
    ``C`` exists iff, for every pair of in and out dims, ``A``'s matrix is block-diagonal
    ``[[B, 0], [0, C]]`` — ``B``'s in bits come first in each shared in dim and ``B``'s
    out bits are the low bits of each shared out dim. ``C`` has exactly ``A``'s in and out
    dims (size-1 dims kept), so ``C`` is well defined.

    Worked example (Triton's ``Divide_2D``)::

        A = {"in1": [[1, 1], [2, 2], [0, 8], [0, 4]], "in2": [[0, 2], [0, 1]]} (4×16)
        B = {"in1": [[1, 1], [2, 2]], "in2": [[0, 2], [0, 1]]}                 (4×4)
        A.divide_left(B) == {"in1": [[0, 2], [0, 1]], "in2": []}              (1×4)

    Raises:
        LayoutError: ``divisor`` is not a LinearLayout.
    """
    return _divide(self, divisor, left=True)


def divide_right(self, divisor: LinearLayout) -> LinearLayout | None:
    """``C`` with ``C * divisor == self``, or None when there is none (Triton ``divideRight``).

    The mirror of :meth:`divide_left` (LinearLayout.cpp ``divideRight(A, B)``): ``B``'s in
    bits are the last ones of each shared in dim and its out values the high bits of each
    shared out dim. ``C`` has exactly ``self``'s in and out dims.

    Raises:
        LayoutError: ``divisor`` is not a LinearLayout.
    """
    return _divide(self, divisor, left=False)


def _divide(self: Any, divisor: Any, *, left: bool) -> Any:
    """Candidate quotient read off the block structure, kept only if the product matches."""
    need_layout(divisor, "divisor")
    b_in, b_out = divisor.dim_tables.in_bits, divisor.dim_tables.out_bits
    a_in, a_shift, a_out = self.dim_tables.in_bits, self.dim_tables.out_shifts, \
        self.dim_tables.out_bits
    if any(n not in a_in for n in b_in) or any(n not in a_out for n in b_out):
        return None
    c_out = [(n, b - b_out.get(n, 0)) for n, b in self._out]
    c_in = [(n, b - b_in.get(n, 0)) for n, b in self._in]
    if any(b < 0 for _, b in c_out + c_in):
        return None
    # C's out value of dim n is A's value without B's bits: the high bits (left division)
    # or the low bits (right division).
    spec, s = [], 0
    for n, cb in c_out:
        skip = b_out.get(n, 0) if left else 0
        if cb:
            spec.append((a_shift[n] + skip, (1 << cb) - 1, s))
        s += cb
    cols: list[int] = []
    for (n, b), (_, cb) in zip(self._in, c_in):
        own = self.dim_columns(n)
        cols.extend(remap(own[b - cb:] if left else own[:cb], spec))
    quotient = type(self).unchecked(c_in, c_out, cols)
    try:
        product = divisor * quotient if left else quotient * divisor
    except LayoutError:  # dim orders incompatible: no product can equal self
        return None
    return quotient if product == self else None


def is_trivial_over(self, dims: str | Iterable[str]) -> bool:
    """Whether the layout acts as the identity on ``dims`` and keeps them apart from the rest.

    Triton ``isTrivialOver`` (LinearLayout.cpp). Seeing the matrix as blocks
    ``[[A, B], [C, D]]`` with ``D`` the block from the in dims ``dims`` to the out dims
    ``dims``: true iff ``D`` is the identity (the sublayout on ``dims``, flattened, maps
    bit ``k`` to bit ``k``; so each dim has the same size as in and out dim and the dims
    come in the same order on both sides), ``B = 0`` (other in dims never reach ``dims``'
    outputs) and ``C = 0`` (``dims``' inputs never reach other outputs). A name that is not
    both an in dim and an out dim makes the answer False (Triton returns false for a name
    in neither and asserts for a name on one side only).

    Raises:
        LayoutError: a name is not a non-empty string.
    """
    names = names_arg(dims, "dims")
    ins, outs = self.dim_tables.in_bits, self.dim_tables.out_bits
    if any(ins.get(n) is None or outs.get(n) != ins[n] for n in names):
        return False
    rest_in = [n for n in self.in_dim_names if n not in names]
    rest_out = [n for n in self.out_dim_names if n not in names]
    square = self.sublayout(names, names)
    return (
        square._cols == tuple(1 << k for k in range(len(square._cols)))
        and self.sublayout_is_zero(rest_in, names)
        and self.sublayout_is_zero(names, rest_out)
    )


def quotient(self, dims: str | Iterable[str]) -> LinearLayout | None:
    """The layout on the remaining dims when it is trivial over ``dims``, else None.

    Triton ``quotient`` (LinearLayout.cpp): if :meth:`is_trivial_over` ``(dims)``, the
    :meth:`sublayout` without the in and out dims ``dims``; otherwise None.

    Example (Triton's ``QuotientOneDimension``)::

        >>> L = LinearLayout({"dim1": [[1, 0]], "dim2": [[0, 0]]}, {"dim1": 2, "dim2": 1})
        >>> L.quotient("dim1") == LinearLayout.zeros_1d(2, "dim2", "dim2")
        True

    Raises:
        LayoutError: a name is not a non-empty string.
    """
    names = names_arg(dims, "dims")
    if not self.is_trivial_over(names):
        return None
    return self.sublayout([n for n in self.in_dim_names if n not in names],
                          [n for n in self.out_dim_names if n not in names])


def free_variable_masks(self) -> dict[str, int]:
    """For each in dim, the bitmask of its *free variables* (Triton ``getFreeVariableMasks``).

    An input bit is free when its basis is in the span of the bases before it (in flat
    input order): it is a non-pivot column of the reduced row-echelon form
    (LinearLayout.cpp uses f2reduce; here :func:`f2.basic_columns`). Every reached output
    has exactly one preimage whose free bits are all zero (the one :meth:`least_squares`
    picks). All masks are 0 iff the layout is injective.

    Example (Triton's ``FreeVariableMasks``)::

        >>> LinearLayout({"in1": [[1, 1], [2, 2], [0, 0]], "in2": [[1, 0], [0, 1], [2, 0]]},
        ...              ["out1", "out2"]).free_variable_masks()
        {'in1': 4, 'in2': 2}
    """
    free = ~f2.basic_columns(self._cols)
    out, s = {}, 0
    for n, b in self._in:
        out[n] = (free >> s) & ((1 << b) - 1)
        s += b
    return out


def num_consecutive_in_out(self) -> int:
    """How many consecutive inputs of the first in dim map to consecutive outputs of the
    first out dim (Triton ``getNumConsecutiveInOut``, LinearLayout.cpp).

    The largest ``V`` (a power of two) with ``L(a·V + v, b, …) = L(a·V, b, …) + (v, 0, …)``
    for all ``a``, ``b``, … and ``v < V``: the first ``log2 V`` bases of the first in dim
    are ``(1, 0, …), (2, 0, …), (4, 0, …)…`` and no other basis has a bit below ``V`` in the
    first out dim. 1 for a layout without in or out dims. E.g. registers → ``dim1`` (after
    ``transpose_outs`` puts ``dim1`` first): the vector width of a register access.

    Example (Triton's ``NumConsecutiveInOut``)::

        >>> LinearLayout({"in": [[1], [2], [4]], "in2": [[8], [18]]}, ["out"]
        ...              ).num_consecutive_in_out()
        2
    """
    if not self._in or not self._out:
        return 1
    first_bits = self._out[0][1]
    first_cols = self.dim_columns(self._in[0][0])
    consec = 0
    while consec < len(first_cols) and consec < first_bits and \
            first_cols[consec] == 1 << consec:
        consec += 1
    low = (1 << first_bits) - 1
    other = 0
    for c in self._cols[consec:]:  # the first dim's columns come first in the flat order
        other |= c & low
    zeros = (other & -other).bit_length() - 1 if other else consec
    return 1 << min(consec, zeros)


def contiguous_elems_along(self, out_dim: str, in_dim: str | None = None) -> int:
    """Consecutive elements along ``out_dim`` reached by consecutive values of ``in_dim``.

    :meth:`num_consecutive_in_out` after moving ``in_dim`` (default: the first in dim,
    ``register`` for a distributed layout) and ``out_dim`` to the front, which is how
    Triton's lowerings use ``getNumConsecutiveInOut`` (LinearLayout.cpp) on a layout
    transposed so that the contiguous tensor dim comes first. Every aligned group of that
    many ``in_dim`` values holds that many consecutive ``out_dim`` elements (other
    coordinates fixed), so it is a safe vector width, in elements.

    Raises:
        LayoutError: ``out_dim`` or ``in_dim`` is not a dim of this layout (named).
    """
    self.out_bits(out_dim)
    if in_dim is None:
        if not self._in:
            return 1
        in_dim = self._in[0][0]
    self.in_bits(in_dim)
    moved = self.transpose_ins([in_dim] + [n for n in self.in_dim_names if n != in_dim])
    moved = moved.transpose_outs([out_dim] + [n for n in self.out_dim_names if n != out_dim])
    return moved.num_consecutive_in_out()


def image(self) -> Subspace:
    """The subspace of reached outputs, as flat out-bit vectors (dim0 in the low bits).

    ``image().dim == rank``; the layout is surjective iff it is all of F₂^total_out_bits.
    No Triton counterpart (Triton only computes the rank, ``getMatrixRank`` in
    LinearLayout.cpp).
    """
    return Subspace.from_echelon(f2.echelon(self._cols))


def kernel(self) -> Subspace:
    """The subspace of inputs mapped to 0, as flat in-bit vectors (first in dim lowest).

    Rank–nullity: ``kernel().dim + rank == total_in_bits``; the layout is injective iff
    the kernel is 0. Its elements are the broadcast directions: inputs ``x`` and
    ``x ^ k`` hold the same tensor element. No Triton counterpart (Triton reports the free
    variables instead, :meth:`free_variable_masks`).
    """
    return Subspace.from_echelon(f2.null_space(self._cols))
