"""Triton's ``LinearLayout`` building blocks, replayed step for step (internal).

:class:`linlayout.LinearLayout` is the public type; this module reproduces the handful of
operations Triton's ``toLinearLayout`` functions chain together, with Triton's exact dim-order
rules, so that every intermediate layout — and therefore the final bases — come out bit for bit
as Triton computes them:

* ``mul``: Triton's ``operator*``. In and out dims are merged by the *supremum* of the two
  ordered name lists (``LayoutUtils.cpp`` ``supremum``), which is not always "inner's names,
  then outer's new ones": ``[dim1] * [dim0, dim1]`` gives ``[dim0, dim1]``.
* ``identity1d(0, …)`` is the empty layout (Triton's ``identity1D`` with size 0), used where
  Triton divides sizes and the quotient is 0.
* ``ensure_not_larger`` / ``ensure_not_smaller``: ``LayoutUtils.cpp``'s
  ``ensureLayoutNotLargerThan`` (broadcast the largest bases away, ties in input order) and
  ``ensureLayoutNotSmallerThan`` (grow the first in dim, out dims in layout order).

A layout here is a :class:`TL`: ``ins`` is a tuple of ``(in_dim, images)`` with each image a
tuple with one int per out dim, ``outs`` a tuple of ``(out_dim, size)``. Worked example::

    a = identity1d(2, "register", "dim1")        # register=1 -> (dim1=1)
    b = identity1d(4, "lane", "dim1")            # lane=1,2 -> (dim1=1), (dim1=2)
    mul(a, b).bases == {"register": [(1,)], "lane": [(2,), (4,)]}   # lanes shifted by 2

Source: ``include/triton/Tools/LinearLayout.h``, ``lib/Tools/LinearLayout.cpp``,
``lib/Tools/LayoutUtils.cpp`` (Triton 3.x).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import LayoutError
from ..layout import LinearLayout


@dataclass(frozen=True)
class TL:
    """A Triton-style linear layout: ordered in dims with images, ordered out dims with sizes."""

    ins: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
    outs: tuple[tuple[str, int], ...]

    @property
    def in_names(self) -> list[str]:
        return [n for n, _ in self.ins]

    @property
    def out_names(self) -> list[str]:
        return [n for n, _ in self.outs]

    @property
    def bases(self) -> dict[str, list[tuple[int, ...]]]:
        return {n: list(imgs) for n, imgs in self.ins}

    def out_size(self, name: str) -> int:
        for n, s in self.outs:
            if n == name:
                return s
        raise LayoutError(f"internal: no out dim {name!r} in {self.out_names}")

    def in_size(self, name: str) -> int:
        for n, imgs in self.ins:
            if n == name:
                return 1 << len(imgs)
        return 1

    def to_layout(self) -> LinearLayout:
        """The public :class:`LinearLayout` with the same dims, order and bases."""
        return LinearLayout({n: [list(i) for i in imgs] for n, imgs in self.ins},
                            out_dims={n: s for n, s in self.outs})


def empty() -> TL:
    return TL((), ())


def make(bases: Mapping[str, Sequence[Sequence[int]]], out_names: Sequence[str],
         out_sizes: Sequence[int] | None = None) -> TL:
    """Triton's ``LinearLayout(bases, outDimNames)``: sizes inferred (next power of two above
    the largest value) unless ``out_sizes`` is given."""
    ins = tuple((n, tuple(tuple(int(v) for v in img) for img in imgs)) for n, imgs in bases.items())
    for n, imgs in ins:
        for img in imgs:
            if len(img) != len(out_names):
                raise LayoutError(
                    f"basis {list(img)} of in dim {n!r} has {len(img)} entries but there are "
                    f"{len(out_names)} out dims {list(out_names)}"
                )
            if any(v < 0 for v in img):
                raise LayoutError(f"basis {list(img)} of in dim {n!r} has a negative entry")
    if out_sizes is None:
        sizes = []
        for j in range(len(out_names)):
            m = 0
            for _, imgs in ins:
                for img in imgs:
                    m = max(m, img[j])
            sizes.append(1 << m.bit_length())
    else:
        sizes = list(out_sizes)
    return TL(ins, tuple(zip(out_names, sizes)))


def identity1d(size: int, in_dim: str, out_dim: str) -> TL:
    """``L(x) = x`` on ``[0, size)``; size 0 gives the empty layout (as in Triton)."""
    if size == 0:
        return empty()
    _check_pow2(size, "identity1D size")
    return TL(((in_dim, tuple((1 << i,) for i in range(size.bit_length() - 1))),),
              ((out_dim, size),))


def zeros1d(size: int, in_dim: str, out_dim: str, out_size: int = 1) -> TL:
    """``L(x) = 0`` on ``[0, size)``; size 0 gives the empty layout."""
    if size == 0:
        return empty()
    _check_pow2(size, "zeros1D size")
    return TL(((in_dim, tuple((0,) for _ in range(size.bit_length() - 1))),),
              ((out_dim, out_size),))


def _check_pow2(v: int, what: str) -> None:
    if v < 1 or v & (v - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {v}")


def supremum(x: Sequence[str], y: Sequence[str]) -> list[str]:
    """The shortest list containing ``x`` and ``y`` as subsequences, ties going to ``x``.

    Raises:
        LayoutError: the two lists order a common pair of names differently.
    """
    result: list[str] = []
    seen: set[str] = set()
    pos_x = {n: i for i, n in enumerate(x)}
    pos_y = {n: i for i, n in enumerate(y)}
    i = j = 0
    inf = 1 << 30

    def bad() -> LayoutError:
        return LayoutError(f"dims {list(x)} and {list(y)} are ordered incompatibly")

    while i < len(x) or j < len(y):
        while i < len(x) and x[i] in seen:
            i += 1
        while j < len(y) and y[j] in seen:
            j += 1
        if i >= len(x) and j >= len(y):
            break
        if i < len(x) and j < len(y) and x[i] == y[j]:
            if pos_y[x[i]] < j:
                raise bad()
            result.append(x[i])
            seen.add(x[i])
            i += 1
            j += 1
            continue
        cand_x = pos_y[x[i]] if i < len(x) and x[i] in pos_y and pos_y[x[i]] >= j else inf
        cand_y = pos_x[y[j]] if j < len(y) and y[j] in pos_x and pos_x[y[j]] >= i else inf
        if i < len(x) and cand_x == inf:
            result.append(x[i])
            seen.add(x[i])
            i += 1
            continue
        if j < len(y) and cand_y == inf:
            result.append(y[j])
            seen.add(y[j])
            j += 1
            continue
        if cand_x <= cand_y:
            if pos_y[x[i]] < j:
                raise bad()
            result.append(x[i])
            seen.add(x[i])
            i += 1
        else:
            if pos_x[y[j]] < i:
                raise bad()
            result.append(y[j])
            seen.add(y[j])
            j += 1
    return result


def mul(a: TL, b: TL) -> TL:
    """Triton's ``a * b``: ``b``'s bits go above ``a``'s in every shared in and out dim."""
    in_names = supremum(a.in_names, b.in_names)
    out_names = supremum(a.out_names, b.out_names)
    a_out = dict(a.outs)
    b_out = dict(b.outs)
    sizes = [a_out.get(n, 1) * b_out.get(n, 1) for n in out_names]

    def remap(layout: TL, scale: Mapping[str, int]) -> dict[str, list[tuple[int, ...]]]:
        idx = {n: k for k, n in enumerate(layout.out_names)}
        res: dict[str, list[tuple[int, ...]]] = {}
        for n, imgs in layout.ins:
            res[n] = [
                tuple(img[idx[o]] * scale.get(o, 1) if o in idx else 0 for o in out_names)
                for img in imgs
            ]
        return res

    ra = remap(a, {})
    rb = remap(b, a_out)
    ins = tuple((n, tuple(ra.get(n, []) + rb.get(n, []))) for n in in_names)
    return TL(ins, tuple(zip(out_names, sizes)))


def mul_all(*layouts: TL) -> TL:
    """``((l0 * l1) * l2) * …`` (C++ left associativity)."""
    out = layouts[0]
    for nxt in layouts[1:]:
        out = mul(out, nxt)
    return out


def transpose_outs(layout: TL, order: Sequence[str]) -> TL:
    """Reorder the out dims (Triton ``transposeOuts``)."""
    order = list(order)
    if sorted(order) != sorted(layout.out_names):
        raise LayoutError(f"internal: {order} is not a permutation of {layout.out_names}")
    idx = {n: k for k, n in enumerate(layout.out_names)}
    perm = [idx[n] for n in order]
    ins = tuple((n, tuple(tuple(img[p] for p in perm) for img in imgs)) for n, imgs in layout.ins)
    sizes = dict(layout.outs)
    return TL(ins, tuple((n, sizes[n]) for n in order))


def ensure_not_larger(layout: TL, shape: Mapping[str, int],
                      broadcast_registers: bool = True) -> TL:
    """Zero the largest bases of every out dim bigger than ``shape`` (Triton
    ``ensureLayoutNotLargerThan``); with ``broadcast_registers=False`` register bases are
    dropped instead of zeroed."""
    bases = {n: [list(img) for img in imgs] for n, imgs in layout.ins}
    dropped: set[int] = set()
    sizes = dict(layout.outs)
    new_sizes = dict(sizes)
    for j, out in enumerate(layout.out_names):
        actual = sizes[out]
        desired = shape[out]
        if actual <= desired:
            continue
        entries = []
        for n, imgs in layout.ins:
            for k, img in enumerate(imgs):
                if img[j]:
                    entries.append((n, k, img[j]))
        entries.sort(key=lambda e: -e[2])  # stable: ties keep in-dim order
        for n, k, _ in entries:
            if actual <= desired:
                break
            if not broadcast_registers and n == "register":
                dropped.add(k)
            else:
                bases[n][k][j] = 0
            actual >>= 1
        new_sizes[out] = desired
    if not broadcast_registers and "register" in bases:
        bases["register"] = [b for k, b in enumerate(bases["register"]) if k not in dropped]
    # Triton rebuilds with inferred sizes; the result is surjective onto min(size, shape).
    return make(bases, layout.out_names)


def ensure_not_smaller(layout: TL, shape: Mapping[str, int]) -> TL:
    """Grow the first in dim (``register`` or ``offset``) until every out dim reaches
    ``shape`` (Triton ``ensureLayoutNotSmallerThan``), out dims in the layout's order."""
    if not layout.ins:
        raise LayoutError("internal: ensure_not_smaller needs an in dim")
    k_dim = layout.in_names[0]
    ret = layout
    for out, actual in layout.outs:
        desired = shape[out]
        ret = mul(ret, identity1d(desired // actual, k_dim, out))
    return ret


def standard_out_dims(rank: int) -> list[str]:
    """``["dim0", …, "dim<rank-1>"]``."""
    return [f"dim{i}" for i in range(rank)]


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> TL:
    """Triton ``identityStandardND``: the most minor dim ``order[0]`` first."""
    names = standard_out_dims(len(shape))
    ret = empty()
    for d in order:
        ret = mul(ret, identity1d(int(shape[d]), in_dim, names[d]))
    return ret


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton ``getMatrixOrder``: ``[rank-1, …, 0]``, first two swapped if not row-major."""
    order = list(range(rank - 1, -1, -1))
    if not row_major and rank >= 2:
        order[0], order[1] = order[1], order[0]
    return order


def dot_operand_order(op_idx: int, rank: int, k_contig: bool) -> list[int]:
    """Triton ``getOrderForDotOperand``."""
    row_major = bool(op_idx) != k_contig
    return matrix_order(rank, row_major)


def flat_reshape_outs(layout: TL, new_outs: Sequence[tuple[str, int]]) -> TL:
    """Triton ``reshapeOuts``: flatten the out dims (first least significant), then split."""
    shifts = []
    s = 0
    for _, size in layout.outs:
        shifts.append(s)
        s += size.bit_length() - 1
    total = s
    if sum(size.bit_length() - 1 for _, size in new_outs) != total:
        raise LayoutError(f"internal: cannot reshape {layout.outs} into {list(new_outs)}")
    ins = []
    for n, imgs in layout.ins:
        new_imgs = []
        for img in imgs:
            flat = 0
            for v, sh in zip(img, shifts):
                flat |= v << sh
            vals = []
            for _, size in new_outs:
                b = size.bit_length() - 1
                vals.append(flat & ((1 << b) - 1))
                flat >>= b
            new_imgs.append(tuple(vals))
        ins.append((n, tuple(new_imgs)))
    return TL(tuple(ins), tuple(new_outs))


def reshape_standard(layout: TL, shape: Sequence[int]) -> TL:
    """Triton ``reshapeLayout``: row-major reshape to ``shape`` with standard out names."""
    src = list(reversed(layout.out_names))
    names = standard_out_dims(len(shape))
    new_outs = list(reversed(list(zip(names, [int(x) for x in shape]))))
    return transpose_outs(flat_reshape_outs(transpose_outs(layout, src), new_outs), names)


def permute_components(layout: TL, order: Sequence[int]) -> TL:
    """Triton ``transposeLinearLayout``: basis component ``j`` becomes old component
    ``order[j]``; out names kept, sizes inferred again."""
    bases = {n: [tuple(img[i] for i in order) for img in imgs] for n, imgs in layout.ins}
    return make(bases, layout.out_names)


def remove_zero_registers(layout: TL) -> TL:
    """Drop the register bases that map to 0 (Triton ``actionRemoveBroadcastedRegs``)."""
    ins = tuple(
        (n, tuple(img for img in imgs if any(img)) if n == "register" else imgs)
        for n, imgs in layout.ins
    )
    return TL(ins, layout.outs)
