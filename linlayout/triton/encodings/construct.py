"""Triton's layout-building helpers, as functions on :class:`linlayout.LinearLayout`.

Every ``toLinearLayout`` conversion in Triton chains a few helpers from ``LayoutUtils.cpp``
and ``LinearLayoutConversions.cpp`` around ``LinearLayout``'s own operations. This module holds
those helpers, each a function of :class:`~linlayout.LinearLayout` values built only with the
class's public API (its constructor, ``identity_1d``, ``*``, ``transpose_outs``,
``reshape_outs``, ``resize_out_dim``, …), so that the encodings chain the same steps Triton
does and get the same in dims, out dims, order of bases and out-dim order.

* :func:`identity_1d` / :func:`zeros_1d`: Triton's ``identity1D`` / ``zeros1D``, including
  size 0 (the empty layout, which Triton returns where a size quotient is 0).
* :func:`from_bases`: Triton's ``LinearLayout(bases, outDimNames)``, out-dim sizes inferred.
* :func:`ensure_not_larger` / :func:`ensure_not_smaller`: ``ensureLayoutNotLargerThan`` /
  ``ensureLayoutNotSmallerThan``.
* :func:`identity_standard_nd`, :func:`reshape_layout`, :func:`transpose_linear_layout`,
  :func:`matrix_order`, :func:`dot_operand_order`, :func:`standard_out_dims`.

Products are ``LinearLayout.__mul__`` (Triton's ``operator*``); it requires the dims common to
both factors to appear in the same relative order, so the encodings transpose a factor's out
dims first where Triton multiplies differently ordered layouts (see
:mod:`linlayout.triton.encodings.dot`).

Example::

    >>> lay = identity_1d(2, "register", "dim1") * identity_1d(4, "lane", "dim1")
    >>> lay.bases
    {'register': [[1]], 'lane': [[2], [4]]}
    >>> ensure_not_larger(lay, {"dim1": 4}).bases
    {'register': [[1]], 'lane': [[2], [0]]}

Source: ``lib/Tools/LayoutUtils.cpp``, ``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``
and ``lib/Dialect/TritonGPU/IR/Dialect.cpp`` (Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..._checks import log2_exact
from ...layout import LinearLayout
from ..._memo import memoize

__all__ = [
    "dot_operand_order",
    "ensure_not_larger",
    "ensure_not_smaller",
    "from_bases",
    "identity_1d",
    "identity_standard_nd",
    "matrix_order",
    "reshape_layout",
    "standard_out_dims",
    "transpose_linear_layout",
    "zeros_1d",
]

_STANDARD = tuple(f"dim{i}" for i in range(8))


def standard_out_dims(rank: int) -> list[str]:
    """``["dim0", …, "dim<rank-1>"]`` (Triton ``standardOutDimNames``)."""
    if rank <= len(_STANDARD):
        return list(_STANDARD[:rank])
    return [f"dim{i}" for i in range(rank)]


@memoize(1024)
def identity_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    """``L(x) = x`` on ``[0, size)`` (Triton ``identity1D``); size 0 gives the empty layout,
    as in Triton, where callers pass a quotient of sizes that may be 0.

    Layouts are immutable, so the few distinct ones the conversions use are cached.

    Raises:
        LayoutError: ``size`` is neither 0 nor a power of two.
    """
    if size == 0:
        return LinearLayout.empty()
    return LinearLayout.identity_1d(size, in_dim, out_dim)


@memoize(256)
def zeros_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    """``L(x) = 0`` on ``[0, size)`` with an out dim of size 1 (Triton ``zeros1D``); size 0
    gives the empty layout (cached, as :func:`identity_1d`).

    Raises:
        LayoutError: ``size`` is neither 0 nor a power of two.
    """
    if size == 0:
        return LinearLayout.empty()
    return LinearLayout.zeros_1d(size, in_dim, out_dim)


def from_bases(bases: Mapping[str, Sequence[Sequence[int]]],
               out_names: Sequence[str]) -> LinearLayout:
    """Triton's ``LinearLayout(bases, outDimNames)``: each out dim's size is the smallest power
    of two above every basis value for it.

    Unlike :class:`~linlayout.LinearLayout`'s inferring constructor (and Triton's, which
    asserts), the layout need not be surjective: user-given bases (``#ttg.linear``,
    ``CGALayout``, ``shared_linear``) are taken as they are.

    Raises:
        LayoutError: an image has the wrong length or a negative entry.
    """
    top = [0] * len(out_names)
    try:
        for images in bases.values():
            for img in images:
                for j, v in enumerate(img):
                    top[j] |= v
    except (TypeError, IndexError):  # malformed: the checking constructor names the fault
        return LinearLayout(bases, list(out_names))
    sizes = {n: 1 << max(t, 0).bit_length() for n, t in zip(out_names, top)}
    return LinearLayout(bases if type(bases) is dict else dict(bases), sizes)


def _tight(layout: LinearLayout) -> LinearLayout:
    """``layout`` with each out dim shrunk to the smallest power of two above its values (what
    rebuilding it with Triton's inferring constructor gives)."""
    out_dims = layout.out_dims
    acc = 0
    for c in layout.columns:
        acc |= c
    shift = 0
    for name, size in out_dims.items():
        bits = size.bit_length() - 1
        need = ((acc >> shift) & (size - 1)).bit_length()
        if need < bits:
            layout = layout.resize_out_dim(name, 1 << need)
        shift += bits
    return layout


def ensure_not_larger(layout: LinearLayout, shape: Mapping[str, int],
                      broadcast_registers: bool = True) -> LinearLayout:
    """Shrink every out dim larger than ``shape`` (Triton ``ensureLayoutNotLargerThan``).

    Per out dim, the bases with the largest values for it lose that value (become broadcast)
    until the dim fits; ties go in in-dim order, then basis order (Triton's ``llvm::sort``
    is ``std::sort``, an insertion sort — stable too — up to 16 entries). With
    ``broadcast_registers=False`` such ``register`` bases are removed instead of zeroed. The
    result's out-dim sizes are inferred again (as Triton rebuilds the layout).

    Args:
        layout: the layout; its out dims must all be keys of ``shape``.
        shape: ``{out_dim: size}``.
    """
    out_dims = layout.out_dims
    cols = list(layout.columns)
    shifts = {}
    s = 0
    for name, size in out_dims.items():
        shifts[name] = s
        s += size.bit_length() - 1
    in_dims = layout.in_dims
    reg_lo = reg_hi = i = 0  # the columns of the register bases: [reg_lo, reg_hi)
    for name, size in in_dims.items():
        bits = size.bit_length() - 1
        if name == "register":
            reg_lo, reg_hi = i, i + bits
        i += bits
    dropped: set[int] = set()
    changed = False
    for name, actual in out_dims.items():
        desired = shape[name]
        if actual <= desired:
            continue
        sh, mask = shifts[name], actual - 1
        entries = [(-((c >> sh) & mask), k) for k, c in enumerate(cols) if (c >> sh) & mask]
        entries.sort()  # largest value first; ties in column (= in dim, basis) order
        for _, k in entries:
            if actual <= desired:
                break
            if not broadcast_registers and reg_lo <= k < reg_hi:
                dropped.add(k)
            else:
                cols[k] &= ~(mask << sh)
            actual >>= 1
        changed = True
    if not changed:
        return _tight(layout)
    ins = [(n, sz.bit_length() - 1) for n, sz in in_dims.items()]
    if dropped:
        ins = [(n, b - len(dropped)) if n == "register" else (n, b) for n, b in ins]
        cols = [c for k, c in enumerate(cols) if k not in dropped]
    outs = [(n, sz.bit_length() - 1) for n, sz in out_dims.items()]
    return _tight(LinearLayout.unchecked(ins, outs, cols))


def ensure_not_smaller(layout: LinearLayout, shape: Mapping[str, int]) -> LinearLayout:
    """Grow every out dim smaller than ``shape`` by appending bases to the first in dim
    (``register`` or ``offset``), out dims in the layout's order (Triton
    ``ensureLayoutNotSmallerThan``).

    Args:
        layout: a layout with at least one in dim; its out dims must be keys of ``shape``.
        shape: ``{out_dim: size}``.
    """
    k_dim = layout.in_dim_names[0]
    ret = layout
    for name, actual in layout.out_dims.items():
        desired = shape[name]
        if desired > actual:
            ret = ret * identity_1d(desired // actual, k_dim, name)
    return ret


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]
                         ) -> LinearLayout:
    """Identity from ``in_dim`` onto ``dim0…``, the most minor dim ``order[0]`` first (Triton
    ``identityStandardND``); the out dims come in ``order``.

    Triton multiplies one ``identity1D`` per dim in ``order``; the product is the identity of
    the flattened input onto the out dims in that order, built here in one step.

    Raises:
        LayoutError: a size is not a power of two.
    """
    names = standard_out_dims(len(shape))
    outs = [(names[d], log2_exact(shape[d], f"size of dim {d}")) for d in order]
    total = sum(b for _, b in outs)
    return LinearLayout.unchecked([(in_dim, total)], outs, [1 << i for i in range(total)])


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """``[rank-1, …, 0]``, the first two swapped unless ``row_major`` (Triton
    ``getMatrixOrder``)."""
    order = list(range(rank - 1, -1, -1))
    if not row_major and rank >= 2:
        order[0], order[1] = order[1], order[0]
    return order


def dot_operand_order(op_idx: int, rank: int, k_contig: bool) -> list[int]:
    """Dims of operand ``op_idx`` from most minor, k first when ``k_contig`` (Triton
    ``getOrderForDotOperand``)."""
    return matrix_order(rank, bool(op_idx) != k_contig)


def reshape_layout(layout: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Row-major reshape of the out dims to ``shape`` named ``dim0…`` (Triton
    ``reshapeLayout``): flatten with the last dim fastest, split again, standard order."""
    names = standard_out_dims(len(shape))
    flat = layout.transpose_outs(list(reversed(layout.out_dim_names)))
    split = flat.reshape_outs([(n, int(s)) for n, s in zip(reversed(names),
                                                           reversed(list(shape)))])
    return split.transpose_outs(names)


def transpose_linear_layout(layout: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """Component ``j`` of every basis becomes its old component ``order[j]`` (in the layout's
    own out-dim order); out-dim names kept, sizes inferred again (Triton
    ``transposeLinearLayout``)."""
    bases = {n: [[img[i] for i in order] for img in imgs] for n, imgs in layout.bases.items()}
    return from_bases(bases, layout.out_dim_names)
