"""``LinearLayout``: a linear map over F₂ between named, power-of-two-sized dimensions.

Conventions are Triton's (``include/triton/Tools/LinearLayout.h``) so results compare with it:

* ``bases[in_dim][i]`` is the image of ``in_dim = 2**i`` (all other inputs 0): a list with one
  int per out dim, in out-dim order.
* ``L(x)`` is the XOR of the images of the set bits of ``x`` — the layout is linear over F₂.
* Dims are ordered minor-to-major. Flattening puts the first dim in the least significant
  bits: ``flat = dim0 + size0 * dim1 + …``.

Worked example (4 elements held by 2 registers × 2 lanes)::

    L = LinearLayout({"register": [[1]], "lane": [[2]]}, out_dims={"dim0": 4})
    L.apply({"register": 1, "lane": 1}) == {"dim0": 3}        # 1 ^ 2
    L.matrix  # out bits × in bits: [[1, 0], [0, 1]] — the identity on 2 bits

Internally a layout keeps its **flat columns**: one int per input bit (in-dims concatenated in
order, register bit 0 first), each the flattened image. All algebra runs on those ints with
:mod:`linlayout.f2`; subspaces (:meth:`LinearLayout.image`, :meth:`LinearLayout.kernel`) are
:class:`linlayout.Subspace` values.

The package, one job per module: :mod:`.core` (storage, constructor, accessors, evaluation),
:mod:`.dims` (dim lists and bit-field bookkeeping), :mod:`.algebra` (compose, invert,
product, divide, solve), :mod:`.structure` (transposes, reshapes, sublayouts), :mod:`.construct`
(the other constructors, matrices, galois), :mod:`.text` (str, repr, parse, dicts). The class
below only names its methods; their bodies live in those modules, which alone read its
storage slots (documented in :mod:`.core`).

The operations, by Triton name (LinearLayout.h / LinearLayout.cpp / LayoutUtils.cpp):

* construction — ``identity1D`` :meth:`~LinearLayout.identity_1d`, ``zeros1D``
  :meth:`~LinearLayout.zeros_1d`, ``strided1D`` :meth:`~LinearLayout.strided_1d`, ``empty``
  :meth:`~LinearLayout.empty`; and :meth:`~LinearLayout.from_columns`,
  :meth:`~LinearLayout.from_matrix`, :meth:`~LinearLayout.from_galois`,
  :meth:`~LinearLayout.from_function`, :meth:`~LinearLayout.random`,
  :meth:`~LinearLayout.parse`, :meth:`~LinearLayout.from_dict`;
* structure — ``transposeIns/Outs``, ``reshapeIns/Outs``, ``flattenIns/Outs``,
  ``resizeInDim/OutDim``, ``squeezeIns/Outs``, ``concatIns/Outs``, ``sublayout``,
  ``sublayoutIsZero``, ``removeZeroBasesAlongDim``; and ``rename_in_dim``/``rename_out_dim``;
* algebra — ``operator*``, ``compose``, ``invert``, ``pseudoinvert``, ``invertAndCompose``,
  ``lstsq`` (:meth:`~LinearLayout.least_squares`), ``divideLeft``/``divideRight``,
  ``quotient``, ``isTrivialOver``, ``getFreeVariableMasks``, ``getNumConsecutiveInOut``.

Every invalid call raises :class:`~linlayout.LayoutError` (or a subclass) naming the offending
dim; the operations that Triton answers with ``std::optional`` (division, quotient) return None.
"""

from __future__ import annotations

from ..errors import LayoutParseError, NotLinearError
from . import algebra, construct, structure, text
from .core import LayoutCore

__all__ = ["LayoutParseError", "LinearLayout", "NotLinearError"]


class LinearLayout(LayoutCore):
    """A linear map over F₂ from named input dims to named output dims (immutable, hashable).

    Immutable through its public API: every attribute is a read-only property and no
    attribute can be added. (The private ``_`` slots are not guarded: a ``__setattr__``
    guard would cost about 0.3 µs on every layout built.)

    Args:
        bases: ``{in_dim: [image of 2^0, image of 2^1, …]}``; each image is a sequence of
            ints, one per out dim, in out-dim order. An in-dim with an empty list has size 1.
        out_dims: ``{out_dim: size}`` (sizes are powers of two), in minor-to-major order; or a
            sequence of out-dim names, in which case each size is inferred as the smallest
            power of two above every basis value and the layout must be surjective (Triton's
            inferring constructor). May be omitted only when ``bases`` is empty (a layout
            with no dims at all).
        require_surjective: raise unless every output is reached.

    Raises:
        LayoutError: a name is not a non-empty string, an image has the wrong length, a value
            is negative or not below its out dim's size, a size is not a power of two, or the
            layout is not surjective when that was required.

    Source: Triton ``LinearLayout`` constructors (include/triton/Tools/LinearLayout.h).

    Example::

        >>> L = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]},
        ...                  out_dims={"dim0": 4, "dim1": 4})
        >>> L.apply({"register": 3, "lane": 1})
        {'dim0': 3, 'dim1': 1}
    """

    __slots__ = ()

    # construction (classmethods; the constructor and ``unchecked`` are in LayoutCore)
    from_columns = classmethod(construct.from_columns)
    empty = classmethod(construct.empty)
    identity_1d = classmethod(construct.identity_1d)
    zeros_1d = classmethod(construct.zeros_1d)
    strided_1d = classmethod(construct.strided_1d)
    from_function = classmethod(construct.from_function)
    random = classmethod(construct.random_layout)
    from_matrix = classmethod(construct.from_matrix)
    from_galois = classmethod(construct.from_galois)
    matrix = property(construct.matrix)
    to_galois = construct.to_galois

    # algebra
    compose = algebra.compose
    __mul__ = algebra.product
    invert = algebra.invert
    pseudoinvert = algebra.pseudoinvert
    least_squares = algebra.least_squares
    invert_and_compose = algebra.invert_and_compose
    divide_left = algebra.divide_left
    divide_right = algebra.divide_right
    is_trivial_over = algebra.is_trivial_over
    quotient = algebra.quotient
    free_variable_masks = algebra.free_variable_masks
    num_consecutive_in_out = algebra.num_consecutive_in_out
    contiguous_elems_along = algebra.contiguous_elems_along
    image = algebra.image
    kernel = algebra.kernel

    # structure
    transpose_ins = structure.transpose_ins
    transpose_outs = structure.transpose_outs
    reshape_ins = structure.reshape_ins
    reshape_outs = structure.reshape_outs
    flatten_ins = structure.flatten_ins
    flatten_outs = structure.flatten_outs
    resize_in_dim = structure.resize_in_dim
    resize_out_dim = structure.resize_out_dim
    rename_in_dim = structure.rename_in_dim
    rename_out_dim = structure.rename_out_dim
    squeeze_ins = structure.squeeze_ins
    squeeze_outs = structure.squeeze_outs
    squeeze = structure.squeeze
    concat_ins = structure.concat_ins
    concat_outs = structure.concat_outs
    sublayout = structure.sublayout
    sublayout_is_zero = structure.sublayout_is_zero
    remove_zero_bases = structure.remove_zero_bases

    # text and dicts
    to_dict = text.to_dict
    from_dict = classmethod(text.from_dict)
    parse = classmethod(text.parse)
    __repr__ = text.layout_repr
    __str__ = text.layout_str
