"""Linear algebra over F₂ on Python ints.

A vector of F₂ⁿ is a non-negative ``int``: bit ``i`` is coordinate ``i``. Addition is XOR, so
``u ^ v`` is ``u + v``. A linear map from F₂ⁿ to F₂ᵐ is given by its **columns**: a sequence of
``n`` ints, column ``i`` being the image of the unit vector ``1 << i`` (this is exactly Triton's
``bases`` convention once the output dims are flattened). Applying the map XORs the columns of
the set bits of the input::

    cols = [0b01, 0b11]          # e0 -> 1, e1 -> 3
    apply(cols, 0b11) == 0b10    # 1 ^ 3

A subspace is given by any list of spanning vectors. :func:`echelon` returns its canonical
basis: *fully reduced* row-echelon form, sorted by descending leading bit, where no basis vector
has another's leading bit set. Two lists span the same subspace exactly when their echelon
bases are equal. Worked 4-bit example::

    echelon([0b1100, 0b0110, 0b1010])  ->  (0b1010, 0b0110)
    # 0b1100 ^ 0b0110 = 0b1010, so the three vectors span a plane; its reduced basis has
    # leading bits 3 and 2, and neither vector contains the other's leading bit.

Everything here is pure Python on ints (an 8×8 rank takes a few microseconds); galois is used
only as an independent oracle in the tests, never on these paths. Functions that take a
dimension ``nbits`` need it only where the answer depends on the ambient space (complements,
inverses).

**These functions trust their caller.** They run thousands of times per synthesis, so they do
not check their arguments: every vector must be a non-negative ``int`` (a bool is not a
vector), every ``nbits``/``width`` a non-negative ``int`` at least as large as the vectors'
bit length. Anything else gives a meaningless answer rather than an error (``solve([1, 2],
-3)`` is ``-12``: Python's ``-3`` has infinitely many set bits). The checked entry points are
:class:`~linlayout.LinearLayout` and :class:`~linlayout.Subspace`, which validate once and
then call in here. The only errors raised here are the ones about the mathematics:
:class:`~linlayout.NotInvertibleError` from :func:`inverse`, :class:`~linlayout.LayoutError`
where a documented precondition on the *values* fails.

Sources: textbook linear algebra over F₂ (Gaussian elimination; Zassenhaus' algorithm for
:func:`intersection`); the columns convention is Triton's ``LinearLayout``
(``include/triton/Tools/LinearLayout.h``); :func:`avoiding_sequence` is the construction of
``docs/theory.md`` §4 behind Lemma 9.5 of the Linear Layouts paper (arXiv 2505.23819).
"""

from __future__ import annotations

import sys
from array import array as _array
from collections.abc import Iterable, Sequence
from itertools import chain as _chain

from ._checks import shown
from ._memo import register
from .errors import LayoutError, NotInvertibleError

_BYTEORDER = sys.byteorder

__all__ = [
    "apply",
    "compose",
    "compose_within",
    "compose_unchecked",
    "pack",
    "unpack",
    "echelon",
    "rank",
    "rank_modulo",
    "rank_outside",
    "prefix_ranks",
    "reduce",
    "in_span",
    "span_sum",
    "intersection",
    "low_subspace",
    "complement",
    "extend_basis",
    "null_space",
    "basic_columns",
    "solve",
    "solve_many",
    "solve_with_kernel",
    "least_squares",
    "inverse",
    "avoiding_sequence",
    "avoiding_sequence_echelon",
    "images",
    "span_elements",
]


def apply(columns: Sequence[int], x: int) -> int:
    """Apply the linear map with the given columns to the vector ``x``.

    Args:
        columns: ``n`` ints, column ``i`` is the image of ``1 << i``.
        x: the input vector; bits at or above ``n`` are ignored.

    Returns:
        The XOR of ``columns[i]`` over the set bits ``i`` of ``x``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    out = 0
    n = len(columns)
    while x:  # visit the set bits only (layouts are mostly sparse)
        low = x & -x
        i = low.bit_length() - 1
        if i >= n:
            break
        out ^= columns[i]
        x ^= low
    return out


def compose(outer: Sequence[int], inner: Sequence[int]) -> list[int]:
    """Columns of ``outer ∘ inner`` (apply ``inner`` first).

    Args:
        outer: columns of a map F₂ᵐ → F₂ᵏ.
        inner: columns of a map F₂ⁿ → F₂ᵐ; bits at or above ``m`` are ignored, as in
            :func:`apply`.

    Returns:
        ``n`` columns of the composite map F₂ⁿ → F₂ᵏ.

    Raises:
        LayoutError: some negative columns (a negative inner column; an outer one where the
            product meets it); the caller is otherwise trusted (module docstring).
    """
    return list(compose_unchecked(outer, inner, None))


def compose_within(outer: Sequence[int], inner: Sequence[int], width: int) -> list[int]:
    """:func:`compose` for callers that know a bound on the columns (a layout knows it from
    its dims; this saves two ``max`` scans).

    Args:
        outer: ``m`` columns of a map F₂ᵐ → F₂ᵏ (bit vectors).
        inner: ``n`` columns of a map F₂ⁿ → F₂ᵐ.
        width: bits; every column of both must be below ``2^width``.

    Returns:
        ``n`` columns of ``outer ∘ inner``, as :func:`compose`.

    Raises:
        LayoutError: a column is negative or does not fit the bound (checked where the
            answer depends on it: unit inner columns are exact lookups whatever the bound).

    Source: Triton ``compose`` on flattened layouts (LinearLayout.cpp), computed by bit
    slicing (:func:`pack`).
    """
    if max(outer, default=0) >> width:  # it would spill across fields of the product
        raise LayoutError(f"an outer column is wider than the {width}-bit bound")
    return list(compose_unchecked(outer, inner, width))


def compose_unchecked(outer: Sequence[int], inner: Sequence[int],
                     width: int | None) -> Sequence[int]:
    """:func:`compose_within` without the bound check: for callers whose dims already
    guarantee that every outer column is below ``2^width`` (a layout's compose).

    Args:
        outer: ``m`` columns (bit vectors), each below ``2^width`` — not checked: a wider one
            silently spills into the neighbouring field of the bit-sliced product.
        inner: ``n`` columns; checked against ``width`` where the dense path needs it.
        width: the bound in bits, or None to find it from the columns.

    Returns:
        The ``n`` columns of ``outer ∘ inner``, as a list or a tuple (whichever is cheaper to
        make).

    Raises:
        LayoutError: an inner column wider than ``width`` or a negative outer column.
    """
    if inner and not inner[0] & (inner[0] - 1):  # a unit or zero column first: try lookups
        out = []
        try:
            for c in inner:  # unit and zero columns (Triton's usual layouts): a lookup each
                if c & (c - 1):
                    break
                out.append(outer[c.bit_length() - 1] if c else 0)
            else:
                return out
        except IndexError:  # a bit beyond outer's columns: the general path ignores it
            pass
    elif not inner:
        return []
    # Dense columns: bit-sliced. All n inner columns are packed as w-bit fields of one int;
    # outer column i is added to every field whose bit i is set by one multiplication
    # (spread * outer[i] copies outer[i] into each selected field, carry-free as
    # outer[i] < 2^w): m big-int steps instead of one XOR per set bit of inner.
    n = len(inner)
    if width is None:
        width = max(max(outer, default=0), max(inner)).bit_length()
    if width <= 8:  # pack(), _ones() and unpack() inlined for the smallest fields (hot)
        try:
            packed = int.from_bytes(bytes(inner), _BYTEORDER)
        except ValueError:
            raise LayoutError(f"a column of {list(inner)} is wider than the {width}-bit "
                              "bound") from None
        ones = _ONES.get(n << 7 | 8) or _ones(n, 8)
        acc = 0
        for o in outer[:8] if len(outer) > 8 else outer:
            acc ^= (packed & ones) * o
            packed >>= 1
        try:
            return tuple(acc.to_bytes(n, _BYTEORDER))
        except OverflowError:  # only a negative outer column gets here
            raise LayoutError("compose needs non-negative columns") from None
    packed, w = pack(inner, width)
    ones = _ones(n, w)
    if len(outer) > w:  # inner has no bit there; shifting further would cross fields
        outer = outer[:w]
    acc = 0
    for o in outer:
        acc ^= (packed & ones) * o
        packed >>= 1
    return unpack(acc, n, w)


def pack(columns: Sequence[int], width: int) -> tuple[int, int]:
    """All columns in one int, as fields of ``w`` bits: ``Σ columns[j] << j·w``.

    Args:
        columns: ``n`` non-negative ints, each below ``2^width`` (bit vectors).
        width: a bound on their bit length.

    Returns:
        ``(packed, w)``: ``w`` is ``width`` rounded up to 8, 16, 32 or 64 bits (then packing
        is one C-level array conversion), or ``width`` itself above 64; :func:`unpack`
        reverses it. Bit slicing ("SIMD within a register"): one big-int operation then acts
        on every column at once (:func:`compose`).

    Raises:
        LayoutError: a column is not an int, is negative, or does not fit its field.
    """
    packing = _PACKINGS.get(width)
    if packing is None:  # fields wider than 64 bits: pack by hand
        packed = 0
        for j, c in enumerate(columns):
            if not isinstance(c, int) or c < 0 or c >> width:
                raise LayoutError(f"pack needs non-negative ints below 2^{width}; got {shown(c)}")
            packed |= c << j * width
        return packed, width
    code, w = packing
    try:
        data = bytes(columns) if w == 8 else _array(code, columns)
    except (TypeError, ValueError, OverflowError):
        bad = next((c for c in columns if not isinstance(c, int) or c < 0 or c >> width),
                   None)
        raise LayoutError(f"pack needs non-negative ints below 2^{width}; got {shown(bad)}") from None
    return int.from_bytes(data, _BYTEORDER), w


def unpack(packed: int, count: int, w: int) -> list[int]:
    """The ``count`` fields of ``w`` bits of ``packed``, low field first: reverses :func:`pack`.

    Raises:
        LayoutError: ``packed`` is not a non-negative int below ``2^(count·w)``.
    """
    packing = _PACKINGS.get(w)
    try:
        if packing is None or packing[1] != w:  # a width without an array type: by hand
            if packed < 0 or packed >> (count * w):
                raise OverflowError
            mask = (1 << w) - 1
            return [packed >> j & mask for j in range(0, count * w, w)]
        data = packed.to_bytes(count * w >> 3, _BYTEORDER)
    except (OverflowError, TypeError, AttributeError):
        raise LayoutError(f"unpack needs a non-negative int below 2^({count}·{w}), got "
                          f"{shown(packed)}") from None
    return list(data) if w == 8 else _array(packing[0], data).tolist()


def _ones(count: int, w: int) -> int:
    """Bit 0 of each of ``count`` fields of ``w`` bits (cached for w <= 64)."""
    key = count << 7 | w if w <= 64 else -1  # unambiguous for w <= 64; wider: not cached
    ones = _ONES.get(key)
    if ones is None:
        ones = ((1 << count * w) - 1) // ((1 << w) - 1)
        if key >= 0:
            _ONES[key] = ones
    return ones


def _packings() -> dict[int, tuple[str, int]]:
    """Column bit width → (array typecode, field bits) of the narrowest unsigned array type
    that holds it, for widths 0..64."""
    types = sorted((_array(c).itemsize * 8, c) for c in "BHILQ")
    return {width: next((code, bits) for bits, code in types if bits >= max(width, 1))
            for width in range(65)}


_PACKINGS = _packings()
_ONES: dict[int, int] = {}  # fields << 7 | field bits (<= 64) -> bit 0 of every field


def _pivots(vectors: Iterable[int]) -> dict[int, int]:
    """Echelon form keyed by leading-bit position (not fully reduced)."""
    piv: dict[int, int] = {}
    get = piv.get
    for v in vectors:
        while v:
            top = v.bit_length()
            p = get(top)
            if p is None:
                piv[top] = v
                break
            v ^= p
    return piv


def _split_units(vectors: Iterable[int]) -> tuple[int, list[int]]:
    """``(U, rest)``: the OR of the unit (and zero) vectors, and the other vectors with the
    bits of ``U`` cleared. The unit vectors span exactly the coordinates of ``U``, so
    ``span(vectors) = span(units) ⊕ span(rest)`` and ``rest`` has no coordinate in ``U``:
    most of Triton's layouts are unit vectors, which then cost one OR each."""
    units = 0
    rest: list[int] = []
    for v in vectors:
        if v & (v - 1):
            rest.append(v)
        else:
            units |= v
    if units and rest:
        keep = ~units
        rest = [v & keep for v in rest]
    return units, rest


def rank(vectors: Iterable[int]) -> int:
    """Dimension of the span of ``vectors``.

    Example: ``rank([0b1100, 0b0110, 0b1010]) == 2``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    units = 0
    if type(vectors) is not list and type(vectors) is not tuple:
        vectors = list(vectors)
    for v in vectors:  # unit and zero vectors (most of Triton's): their coordinates
        if v & (v - 1):
            break
        units |= v
    else:
        return units.bit_count()
    units, rest = _split_units(vectors)
    return units.bit_count() + len(_pivots(rest))


def rank_modulo(vectors: Iterable[int], basis: Iterable[int]) -> int:
    """``rank(vectors + basis) − rank(basis)``: the dimension ``vectors`` add to ``span(basis)``
    (the rank of their images in the quotient by it).

    Unit and zero vectors on both sides (Triton's usual layouts) span coordinate subspaces:
    the answer is the number of the vectors' coordinates outside the basis's, read off their
    masks with no elimination.

    Example: ``rank_modulo([0b011, 0b100], [0b001, 0b010]) == 1``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    vectors = vectors if isinstance(vectors, (list, tuple)) else list(vectors)
    basis = basis if isinstance(basis, (list, tuple)) else list(basis)
    outside = _units_outside(vectors, basis)
    if outside is not None:
        return outside
    return rank(list(vectors) + list(basis)) - rank(basis)


def rank_outside(vectors: Iterable[int], basis: Sequence[int]) -> int:
    """The rank of those ``vectors`` that lie outside ``span(basis)`` (an :func:`echelon`
    basis): ``rank([v for v in vectors if reduce(v, basis)])`` — not :func:`rank_modulo`, as
    two vectors outside the span may differ by one inside it.

    Unit and zero vectors on both sides (Triton's usual layouts): the unit vectors off the
    basis's coordinates, counted off the masks with no reduction.

    Example: ``rank_outside([0b001, 0b011, 0b010], (0b001,)) == 2``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    vectors = vectors if isinstance(vectors, (list, tuple)) else list(vectors)
    outside = _units_outside(vectors, basis)
    if outside is not None:
        return outside
    return rank([x for x in vectors if reduce(x, basis)])


def _units_outside(vectors: Sequence[int], basis: Sequence[int]) -> int | None:
    """When every vector and basis column is a unit or zero vector: how many of the vectors'
    coordinates lie outside the basis's (read off the masks); otherwise ``None``."""
    m = 0
    for b in basis:
        if b & (b - 1):
            return None
        m |= b
    v = 0
    for x in vectors:
        if x & (x - 1):
            return None
        v |= x
    return (v & ~m).bit_count()


def prefix_ranks(vectors: Iterable[int]) -> list[int]:
    """The rank of every prefix: ``out[i] == rank(vectors[:i])`` for ``0 <= i <= n`` (one
    elimination for all of them, e.g. the lanes of phases of every width).

    Example: ``prefix_ranks([0b01, 0b10, 0b11, 0b100]) == [0, 1, 2, 2, 3]``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    piv: dict[int, int] = {}
    get = piv.get
    out = [0]
    r = 0
    for v in vectors:
        while v:
            top = v.bit_length()
            p = get(top)
            if p is None:
                piv[top] = v
                r += 1
                break
            v ^= p
        out.append(r)
    return out


def echelon(vectors: Iterable[int]) -> tuple[int, ...]:
    """Canonical basis of ``span(vectors)``: fully reduced echelon form, leading bits descending.

    Two inputs span the same subspace iff their echelon bases are equal, so the result can be
    compared and hashed. Zero vectors and dependent vectors are dropped.

    Example: ``echelon([0b1100, 0b0110, 0b1010]) == (0b1010, 0b0110)``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    units = 0
    if type(vectors) is not list and type(vectors) is not tuple:
        vectors = list(vectors)
    for v in vectors:  # unit and zero vectors (most of Triton's) are their own basis
        if v & (v - 1):
            break
        units |= v
    else:
        if units.bit_count() == len(vectors):  # distinct and nonzero: sorting suffices
            return tuple(sorted(vectors, reverse=True))
        out = []
        while units:
            top = 1 << (units.bit_length() - 1)
            out.append(top)
            units ^= top
        return tuple(out)
    units, rest = _split_units(vectors)
    out: list[int] = []
    if rest:
        piv = _pivots(rest)
        tops = sorted(piv, reverse=True)
        basis = [piv[t] for t in tops]
        # Back-substitution: clear each leading bit from the vectors above it (those below
        # have lower leading bits, so cannot hold it).
        for i in range(1, len(basis)):
            b = basis[i]
            bit = 1 << (tops[i] - 1)
            for j in range(i):
                if basis[j] & bit:
                    basis[j] ^= b
        if not units:
            return tuple(basis)
        out = basis
    # the unit vectors are their own reduced basis (no other vector holds their bits)
    while units:
        top = 1 << (units.bit_length() - 1)
        out.append(top)
        units ^= top
    if rest:
        out.sort(reverse=True)  # distinct leading bits: by value is by leading bit
    return tuple(out)


def reduce(v: int, basis: Sequence[int]) -> int:
    """Reduce ``v`` modulo ``span(basis)``, where ``basis`` is an :func:`echelon` basis.

    The result is the canonical representative of the coset ``v + span(basis)``: it is 0 iff
    ``v`` lies in the span. ``basis`` must be the output of :func:`echelon` (fully reduced);
    for an arbitrary spanning list use :func:`in_span`.

    A fully reduced basis's unit vectors hold bits no other basis vector has, so they are
    cleared by one mask; a tuple basis keeps its mask and its other vectors in a small table
    (a synthesis reduces by the same few register spans many times).

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    try:
        split = _REDUCERS.get(basis)  # type: ignore[call-overload]
    except TypeError:  # not hashable (a list): split it every time
        keep, rest = _reducer(basis)
    else:
        if split is None:
            if len(_REDUCERS) >= _MAX_REDUCERS:
                _REDUCERS.clear()
            split = _REDUCERS[basis] = _reducer(basis)  # type: ignore[index]
        keep, rest = split
    v &= keep
    for b in rest:
        w = v ^ b
        if w < v:  # v has b's leading bit set (b is fully reduced, so order does not matter)
            v = w
    return v


def _reducer(basis: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """``(keep, rest)`` of an echelon basis: the mask clearing its unit vectors' bits, and its
    other vectors."""
    units = 0
    rest = []
    for b in basis:
        if b & (b - 1):
            rest.append(b)
        else:
            units |= b
    return ~units, tuple(rest)


#: Echelon bases (tuples) -> :func:`_reducer`'s split, for :func:`reduce` (bounded; emptied
#: by :func:`linlayout.clear_caches`).
_REDUCERS: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
_MAX_REDUCERS = 4096
register(_REDUCERS.clear)


def in_span(v: int, vectors: Iterable[int]) -> bool:
    """Whether ``v`` lies in ``span(vectors)``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    units, rest = _split_units(vectors)
    v &= ~units
    if not v:
        return True
    piv = _pivots(rest)
    while v:
        p = piv.get(v.bit_length())
        if p is None:
            return False
        v ^= p
    return True


def span_sum(*spaces: Iterable[int]) -> tuple[int, ...]:
    """Echelon basis of ``U + V + …`` (the span of the union of the given spanning lists).

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    allv: list[int] = []
    for s in spaces:
        allv.extend(s)
    return echelon(allv)


def intersection(u: Iterable[int], v: Iterable[int]) -> tuple[int, ...]:
    """Echelon basis of ``span(u) ∩ span(v)`` (Zassenhaus' algorithm; spans of unit vectors
    directly: their common coordinates).

    Rows ``(a | a)`` for ``a`` in ``u`` and ``(b | 0)`` for ``b`` in ``v`` are reduced with the
    left half in the high bits; the reduced rows whose left half vanished carry, in their
    right half, a basis of the intersection.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    u = list(u)
    v = list(v)
    if not u or not v:
        return ()
    # unit and zero vectors only (most of Triton's spans): coordinate subspaces, whose
    # intersection is the one of their coordinates
    a = b = 0
    for x in u:
        if x & (x - 1):
            break
        a |= x
    else:
        for x in v:
            if x & (x - 1):
                break
            b |= x
        else:
            common = a & b
            out = []
            while common:
                top = 1 << (common.bit_length() - 1)
                out.append(top)
                common ^= top
            return tuple(out)
    shift = max(max(u).bit_length(), max(v).bit_length())
    rows = [(a << shift) | a for a in u] + [b << shift for b in v]
    piv = _pivots(rows)
    low = (1 << shift) - 1
    return echelon(r & low for t, r in piv.items() if t <= shift)


def low_subspace(vectors: Iterable[int], nbits: int) -> list[int]:
    """A basis of ``span(vectors) ∩ F₂^nbits``: the elements of the span with no bit at or
    above ``nbits`` (in echelon form by leading bit, the pivots whose leading bit is below
    ``nbits`` span exactly those).

    Example: ``low_subspace([0b110, 0b101], 2) == [0b011]``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    if type(vectors) is not list and type(vectors) is not tuple:
        vectors = list(vectors)
    units = 0
    out = []
    for v in vectors:  # unit and zero vectors: the distinct ones below 2^nbits, in order
        if v & (v - 1):
            break
        if v & ~units:
            units |= v
            if not v >> nbits:
                out.append(v)
    else:
        return out
    return [r for t, r in _pivots(vectors).items() if t <= nbits]


def extend_basis(
    base: Iterable[int], candidates: Iterable[int], limit: int | None = None
) -> list[int]:
    """Greedily pick the candidates that enlarge ``span(base)``, in the order given.

    Args:
        base: spanning list of the starting subspace.
        candidates: vectors to try, in order (may be a lazy iterator).
        limit: stop after choosing this many (the iterator is not consumed further).

    Returns:
        The chosen candidates (not reduced): together with ``base`` they are linearly
        independent, and, without ``limit``, ``span(base + chosen) == span(base + candidates)``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    chosen: list[int] = []
    if limit is not None and limit <= 0:
        return chosen
    if type(base) is not list and type(base) is not tuple:
        base = list(base)
    units = 0
    for b in base:
        if b & (b - 1):
            break
        units |= b
    else:  # span(base) is the coordinates of ``units``: unit candidates extend it by a mask
        candidates = iter(candidates)
        for c in candidates:
            if c & (c - 1):  # the first other candidate: reduced by the general loop below
                candidates = _chain((c,), candidates)
                break
            if c & ~units:
                units |= c
                chosen.append(c)
                if limit is not None and len(chosen) >= limit:
                    return chosen
        else:
            return chosen
        base = ()
    # span(base) = span(unit vectors of base) ⊕ span(rest): a candidate is reduced modulo the
    # units by a mask, then by the pivots of the rest (and of the candidates chosen)
    if base:
        units, rest = _split_units(base)
        piv = _pivots(rest)
    else:
        piv = {}
    keep = ~units
    for c in candidates:
        w = c & keep
        while w:
            top = w.bit_length()
            p = piv.get(top)
            if p is None:
                piv[top] = w
                chosen.append(c)
                break
            w ^= p
        if limit is not None and len(chosen) >= limit:
            break
    return chosen


def complement(vectors: Iterable[int], nbits: int) -> list[int]:
    """Unit vectors completing ``span(vectors)`` to all of F₂^nbits, lowest bit first.

    Args:
        vectors: a spanning list of a subspace of F₂^nbits.
        nbits: the ambient dimension.

    Returns:
        ``nbits - rank(vectors)`` unit vectors ``1 << i`` (ascending ``i``) such that
        ``span(vectors) ⊕ span(result) = F₂^nbits``.

    Raises:
        LayoutError: a vector has a bit at or above ``nbits``.
    """
    vectors = list(vectors)
    for v in vectors:
        if v < 0 or v >> nbits:
            raise LayoutError(f"vector {v:#x} does not fit in {nbits} bits")
    piv = _pivots(vectors)
    return extend_basis(piv.values(), (1 << i for i in range(nbits)), limit=nbits - len(piv))


def _eliminate(columns: Sequence[int]) -> tuple[dict[int, int], list[int], int]:
    """Gaussian elimination tracking input combinations.

    Each row is one int ``(image << n) | combo`` with ``apply(columns, combo) == image`` (``n``
    = number of columns), so one XOR updates both halves. Returns ``(piv, kernel, n)``:
    ``piv`` maps the bit length of a row (its image's leading bit, offset by ``n``) to the
    row, every ``combo`` using only *basic* columns (those not in the span of earlier
    columns); ``kernel`` is a basis of the null space (rows whose image vanished).
    """
    n = len(columns)
    limit = 1 << n
    piv: dict[int, int] = {}
    kernel = []
    for i, col in enumerate(columns):
        r = (col << n) | (1 << i)
        while r >= limit:
            top = r.bit_length()
            p = piv.get(top)
            if p is None:
                piv[top] = r
                break
            r ^= p
        else:
            kernel.append(r)
    return piv, kernel, n


def null_space(columns: Sequence[int]) -> tuple[int, ...]:
    """Echelon basis of the kernel ``{x : apply(columns, x) == 0}`` (vectors over input bits).

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    return echelon(_eliminate(columns)[1])


def basic_columns(columns: Sequence[int]) -> int:
    """Bitmask of the *basic* columns: those not in the span of the columns before them.

    These are the pivot columns of the reduced row-echelon form of the matrix whose column
    ``i`` is ``columns[i]``; the others are the free variables (Triton's
    ``getFreeVariableMasks``, LinearLayout.cpp, reports their complement). The basic columns
    form a basis of the image, so ``popcount(result) == rank(columns)``.

    Example: ``basic_columns([0b01, 0b01, 0b10, 0b11]) == 0b0101``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    # The pivot created while processing column i has a combination whose top bit is i.
    piv, _, n = _eliminate(columns)
    low = (1 << n) - 1
    mask = 0
    for r in piv.values():
        mask |= 1 << ((r & low).bit_length() - 1)
    return mask


def solve(columns: Sequence[int], target: int) -> int | None:
    """Solve ``apply(columns, x) == target`` with every free variable set to zero.

    A column is *basic* when it is not in the span of the columns before it; the solution
    uses basic columns only, which makes it unique. This is the solution Triton's ``lstsq``
    (LinearLayout.cpp) picks: the reduced row-echelon solution with free variables zero.

    Returns:
        The input vector ``x``, or ``None`` when ``target`` is not in the image.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    piv, _, n = _eliminate(columns)
    return _solve_with(piv, n, target)


def _solve_with(piv: dict[int, int], n: int, target: int) -> int | None:
    """Reduce ``target << n`` by the pivot rows; the low ``n`` bits left are the solution."""
    limit = 1 << n
    r = target << n
    while r >= limit:
        p = piv.get(r.bit_length())
        if p is None:
            return None
        r ^= p
    return r


def solve_many(columns: Sequence[int], targets: Sequence[int]) -> list[int | None]:
    """:func:`solve` for several targets, sharing one elimination.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    piv, _, n = _eliminate(columns)
    return [_solve_with(piv, n, t) for t in targets]


def solve_with_kernel(columns: Sequence[int], targets: Sequence[int]
                      ) -> tuple[list[int | None], tuple[int, ...]]:
    """:func:`solve_many` and :func:`null_space` of the same columns from one elimination.

    Returns:
        ``(solutions, kernel)``: one :func:`solve` answer per target (None when not in the
        image) and the echelon basis of ``{x : apply(columns, x) == 0}``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    piv, kernel, n = _eliminate(columns)
    return [_solve_with(piv, n, t) for t in targets], echelon(kernel)


def least_squares(columns: Sequence[int], targets: Sequence[int]) -> list[int]:
    """Columns ``X`` with ``A ∘ X = B`` for ``A = columns`` and ``B = targets``, free variables 0.

    Triton's ``lstsq`` (LinearLayout.cpp): the reduced row-echelon solution of ``A X = B``,
    i.e. :func:`solve` for each column of ``B``. Over F₂ it is exact, so every target must lie
    in the image of ``A``.

    Args:
        columns: ``n`` columns of ``A`` (F₂ⁿ → F₂ᵐ).
        targets: ``p`` columns of ``B`` (F₂ᵖ → F₂ᵐ).

    Returns:
        ``p`` columns of ``X`` (F₂ᵖ → F₂ⁿ).

    Raises:
        NotInvertibleError: a target is not in the image of ``A`` (its index is named).
    """
    sols = solve_many(columns, targets)
    for i, s in enumerate(sols):
        if s is None:
            raise NotInvertibleError(
                f"target column {i} ({targets[i]:#x}) is not in the image of the map; "
                "least squares over F2 needs Im(B) ⊆ Im(A)"
            )
    return sols  # type: ignore[return-value]


def inverse(columns: Sequence[int], nbits: int | None = None) -> list[int]:
    """Columns of the inverse of a bijection of F₂ⁿ.

    Args:
        columns: ``n`` columns of a square map F₂ⁿ → F₂ⁿ.
        nbits: ``n``; defaults to ``len(columns)``.

    Returns:
        ``n`` columns: column ``j`` is the input whose image is ``1 << j``.

    Raises:
        NotInvertibleError: the map is not square or not of full rank.
    """
    n = len(columns) if nbits is None else nbits
    if len(columns) != n:
        raise NotInvertibleError(f"a map with {len(columns)} columns on {n} bits is not square")
    fast = _inverse_by_units(columns, n)
    if fast is not None:
        return fast
    piv, kernel, _ = _eliminate(columns)
    if kernel or any(c >> n for c in columns):
        raise NotInvertibleError(
            f"the {n}x{n} map has rank {len(piv)} (or images outside {n} bits); "
            "only a bijection can be inverted"
        )
    out = []
    for j in range(n):
        x = _solve_with(piv, n, 1 << j)
        assert x is not None  # full rank
        out.append(x)
    return out


def _inverse_by_units(columns: Sequence[int], n: int) -> list[int] | None:
    """:func:`inverse` of a bijection, read off its unit columns (None when the map may not be
    a bijection: the caller's elimination then decides, and says why).

    A unit column ``i`` with image ``1 << t`` gives inverse column ``t`` at once
    (``1 << i``). The other columns, with the unit columns' bits ``U`` cleared, form the
    square block ``B`` on the remaining coordinates; for each remaining ``t``, ``B y = e_t``
    is solved by elimination over those few columns, and the unit columns then cancel the
    ``U`` bits of the image of ``y``. Triton's layouts are mostly unit columns (a
    permutation costs one pass)."""
    out = [0] * n  # the unit columns' entries first: out[t] = 1 << i for image 1 << t
    units = 0
    others: list[int] = []  # indices of the other columns
    try:
        for i, c in enumerate(columns):
            if c & (c - 1):
                others.append(i)
            else:
                units |= c
                out[c.bit_length() - 1] = 1 << i
    except IndexError:  # an image beyond n bits
        return None
    if units.bit_count() != n - len(others):  # a repeated or zero image among the units
        return None
    if not others:
        return out
    keep = ~units
    block = []
    for i in others:
        c = columns[i]
        if c < 0 or c >> n:
            return None
        block.append(c & keep)
    piv, kernel, m = _eliminate(block)
    if kernel:
        return None
    free = ((1 << n) - 1) & keep
    while free:
        low = free & -free
        free ^= low
        y = _solve_with(piv, m, low)
        if y is None:
            return None
        x = image = 0
        while y:  # the other columns y combines
            bit = y & -y
            y ^= bit
            i = others[bit.bit_length() - 1]
            x |= 1 << i
            image ^= columns[i]
        image &= units  # cancelled by the unit columns
        while image:
            u = image & -image
            image ^= u
            x |= out[u.bit_length() - 1]
        out[low.bit_length() - 1] = x
    return out


def images(columns: Sequence[int]) -> list[int]:
    """The image of every input of the map: ``images(columns)[x] == apply(columns, x)`` for
    ``0 <= x < 2**len(columns)`` (a list of that length: for small maps, e.g. every offset a
    warp's lanes reach).

    Example: ``images([0b01, 0b11]) == [0b00, 0b01, 0b11, 0b10]``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    out = [0]
    for c in columns:
        out += [x ^ c for x in out]
    return out


def span_elements(vectors: Sequence[int]) -> list[int]:
    """Every element of ``span(vectors)`` (2^rank of them), in Gray-code order from 0.

    Consecutive elements differ by exactly one vector of the :func:`echelon` basis (the
    reflected binary Gray code over that basis). Intended for small subspaces (tests, brute
    force); the list has 2^rank entries.

    Example: ``span_elements([0b01, 0b10]) == [0b00, 0b10, 0b11, 0b01]``.

    Raises:
        nothing: the caller is trusted (module docstring).
    """
    basis = echelon(vectors)
    out = [0]
    for b in basis:
        out += [x ^ b for x in reversed(out)]
    return out


def avoiding_sequence(
    xa: Iterable[int], xb: Iterable[int], z: Iterable[int], nbits: int,
    count: int | None = None,
) -> list[int]:
    """An ordered basis of a complement of ``Z`` whose prefixes meet ``Xa`` and ``Xb`` minimally.

    The generalised construction behind Lemma 9.5 of the Linear Layouts paper
    (arXiv 2505.23819), for arbitrary subspaces rather than spans of unit vectors.

    Preconditions: ``span(z) ⊆ span(xa) ∩ span(xb)``. Write ``I = Xa ∩ Xb``,
    ``Xa = I ⊕ A′`` and ``Xb = I ⊕ B′``. The sequence is

    1. ``C``: a complement of ``Xa + Xb`` (meets neither),
    2. ``a′ᵢ ⊕ b′ᵢ`` for ``i < min(|A′|, |B′|)`` (meets neither: each has a component that
       the other side cannot produce),
    3. the unpaired rest of the longer of ``A′``, ``B′`` (meets only that side),
    4. a complement of ``Z`` inside ``I`` (meets both),
    5. ``b′ᵢ`` (or ``a′ᵢ``) for the paired ``i`` (meets both).

    For every ``j`` the span ``T`` of the first ``j`` vectors satisfies ``T ∩ Z = 0`` and
    ``dim(T ∩ Xa) = max(0, j − (n − dim Xa))``, ``dim(T ∩ Xb) = max(0, j − (n − dim Xb))``
    — both the smallest any ``j``-dimensional ``T`` can have (a dimension count), reached
    simultaneously. In particular the first ``n − max(dim Xa, dim Xb)`` vectors span a
    subspace meeting both only in 0 (Lemma 9.5).

    Args:
        xa, xb: spanning lists of the two subspaces to avoid.
        z: a spanning list of a common subspace to complement (may be empty).
        nbits: the ambient dimension ``n``.
        count: only the first ``count`` vectors are wanted (as in
            :func:`avoiding_sequence_echelon`). Lists of unit vectors (most of Triton's
            layouts) are taken as they are, with no echelon forms.

    Returns:
        ``nbits - dim Z`` vectors (the first ``count`` of them, when given). Choices are
        canonical: bases are taken from the reduced echelon forms in ascending order and
        paired in that order.

    Raises:
        LayoutError: ``span(z)`` is not inside ``span(xa) ∩ span(xb)``, or a vector of ``xa``
            or ``xb`` has a bit at or above ``nbits``.
    """
    xa = xa if isinstance(xa, (list, tuple)) else list(xa)
    xb = xb if isinstance(xb, (list, tuple)) else list(xb)
    ma, mb = _unit_mask(xa), _unit_mask(xb)
    if ma is not None and mb is not None:  # spans of unit vectors: their masks say it all
        both = ma | mb
        if count is not None and count <= nbits - both.bit_count():
            # part 1 holds them all: the unit vectors outside both, lowest first
            head = []
            i = 0
            while len(head) < count:
                if not both >> i & 1:
                    head.append(1 << i)
                i += 1
            return head
        ez = echelon(z) if z or not isinstance(z, (list, tuple)) else ()
        if not ez:
            return _mask_avoiding_sequence(ma, mb, nbits, count)
        ea = [1 << i for i in range(ma.bit_length()) if ma >> i & 1]
        eb = [1 << i for i in range(mb.bit_length()) if mb >> i & 1]
    else:
        ea, eb = sorted(echelon(xa)), sorted(echelon(xb))
        ez = echelon(z) if z or not isinstance(z, (list, tuple)) else ()
    return avoiding_sequence_echelon(ea, eb, ez, nbits, count)


def _unit_mask(vectors: Sequence[int]) -> int | None:
    """The OR of ``vectors`` when each is a unit vector or zero (their span is the
    coordinate subspace of that mask), else None."""
    mask = 0
    for v in vectors:
        if v & (v - 1):
            return None
        mask |= v
    return mask


def _unit_avoiding_sequence(ea: list[int], eb: list[int], ez: Sequence[int], nbits: int,
                            count: int | None) -> list[int] | None:
    """:func:`avoiding_sequence_echelon` when ``ea`` and ``eb`` are unit vectors (most of
    Triton's layouts), on their coordinate masks: the same sequence, part by part (None when
    a vector is not a unit vector, or a ``z`` is given beyond part 1)."""
    ma = mb = 0
    for v in ea:
        if v & (v - 1):
            return None
        ma |= v
    for v in eb:
        if v & (v - 1):
            return None
        mb |= v
    if ez:
        both = ma | mb
        room = nbits - both.bit_count()
        if count is None or count > room:
            return None
    return _mask_avoiding_sequence(ma, mb, nbits, count)


def _mask_avoiding_sequence(ma: int, mb: int, nbits: int, count: int | None) -> list[int]:
    """:func:`avoiding_sequence_echelon` of the unit vectors of the masks ``ma`` and ``mb``
    with no ``z`` (or with only part 1 wanted), part by part."""
    both = ma | mb
    room = nbits - both.bit_count()
    # part 1: the unit vectors outside both (extend_basis over the units, lowest first)
    limit = room if count is None or count > room else count
    c = []
    if limit > 0:
        for i in range(nbits):
            if not both >> i & 1:
                c.append(1 << i)
                if len(c) >= limit:
                    break
    if count is not None and count <= room:
        return c
    common = ma & mb
    a_rest = _units_of(ma & ~common)
    b_rest = _units_of(mb & ~common)
    npair = min(len(a_rest), len(b_rest))
    pairs = [a_rest[i] ^ b_rest[i] for i in range(npair)]
    longer = a_rest if len(a_rest) > len(b_rest) else b_rest
    out = c + pairs + longer[npair:] + _units_of(common) + b_rest[:npair]
    return out if count is None else out[:count]


def _units_of(mask: int) -> list[int]:
    """The unit vectors of ``mask``'s bits, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def avoiding_sequence_echelon(ea: list[int], eb: list[int], ez: Sequence[int],
                              nbits: int, count: int | None = None) -> list[int]:
    """:func:`avoiding_sequence` on bases already in :func:`echelon` form (``ea``, ``eb``
    sorted ascending), for callers that have them: same result, no re-reduction.

    ``count``: only the first ``count`` vectors are wanted (the result is the full
    sequence's first ``count``); when they all come from part 1, the complement of
    ``Xa + Xb``, the intersection is not computed (``z`` is then not checked).

    Raises:
        LayoutError: ``ez`` is not inside ``span(xa) ∩ span(xb)`` (as :func:`avoiding_sequence`).
    """
    fast = _unit_avoiding_sequence(ea, eb, ez, nbits, count)
    if fast is not None:
        return fast
    if count is not None:
        # part 1 depends only on span(ea + eb) = Xa + Xb (extend_basis keeps the candidates
        # that enlarge the span, whatever basis of it it starts from)
        room = nbits - rank(ea + eb)
        if count <= room:
            return extend_basis(ea + eb, (1 << i for i in range(nbits)), limit=count)
    inter_e = intersection(ea, eb)
    for v in ez:
        if reduce(v, inter_e):
            raise LayoutError(
                f"z vector {v:#x} is not in span(xa) ∩ span(xb); avoiding_sequence needs "
                "span(z) ⊆ span(xa) ∩ span(xb)"
            )
    inter = sorted(inter_e)
    a_rest = extend_basis(inter, ea)
    b_rest = extend_basis(inter, eb)
    npair = min(len(a_rest), len(b_rest))
    pairs = [a_rest[i] ^ b_rest[i] for i in range(npair)]
    longer = a_rest if len(a_rest) > len(b_rest) else b_rest
    leftover = longer[npair:]
    c = extend_basis(ea + b_rest, (1 << i for i in range(nbits)),
                     limit=nbits - len(ea) - len(b_rest))
    i_part = extend_basis(ez, inter)
    unpaired = b_rest[:npair]
    out = c + pairs + leftover + i_part + unpaired
    return out if count is None else out[:count]
