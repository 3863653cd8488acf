"""``Subspace``: an immutable, hashable linear subspace of F₂ⁿ.

A vector is a non-negative ``int`` (bit ``i`` is coordinate ``i``), as everywhere in
:mod:`linlayout.f2`. A subspace is stored as its canonical basis — :func:`linlayout.f2.echelon`:
fully reduced echelon form, leading bits descending — so two subspaces are equal exactly when
their bases are, and the basis can be hashed. The ambient dimension is not part of the value;
the operations that depend on it (:meth:`Subspace.complement`, :meth:`Subspace.to_galois`) take
it as an argument.

Worked 4-bit example::

    U = Subspace([0b1100, 0b0110])      # canonical basis (0b1010, 0b0110): leading bits 3, 2
    V = Subspace([0b0110, 0b0001])
    U & V == Subspace([0b0110])         # intersection
    (U + V).dim == 3                    # sum: dim U + dim V - dim(U ∩ V) = 2 + 2 - 1
    0b1010 in U                         # 0b1100 ^ 0b0110
    U.complement(4).dim == 2            # unit vectors completing U to F₂⁴

In a layout, :meth:`LinearLayout.image` is the subspace of reached outputs (flat out bits) and
:meth:`LinearLayout.kernel` the subspace of inputs mapped to 0 (flat in bits). Triton has no
subspace type; its ``LinearLayout.cpp`` works on the same objects implicitly (``getMatrixRank``,
the pivots behind ``getFreeVariableMasks``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from . import f2
from ._checks import MAX_INT_BITS, bit_vector, random_source, shown
from .errors import LayoutError

__all__ = ["MAX_NBITS", "Subspace"]

#: Largest ambient dimension :meth:`Subspace.full`, :meth:`Subspace.complement` and
#: :meth:`Subspace.to_galois` accept: as wide as any accepted vector
#: (:data:`linlayout._checks.MAX_INT_BITS`); F₂ⁿ for a larger ``n`` would not fit in memory.
MAX_NBITS = MAX_INT_BITS


def _nbits(value: object, what: str) -> int:
    """An ambient dimension: a non-negative int of at most :data:`MAX_NBITS`."""
    n = bit_vector(value, what)
    if n > MAX_NBITS:
        raise LayoutError(f"{what} is {shown(n)}, above the largest dimension {MAX_NBITS}; "
                          f"give at most {MAX_NBITS} bits")
    return n




class Subspace:
    """A subspace of F₂ⁿ given by any spanning vectors (immutable, hashable).

    Args:
        vectors: ints (bit ``i`` = coordinate ``i``); zero and dependent vectors are dropped.

    Raises:
        LayoutError: a vector is not a non-negative int.

    Source: no Triton counterpart; the canonical basis is the fully reduced echelon form of
    :func:`linlayout.f2.echelon` (the basis f2reduce's RREF gives Triton's ``getMatrixRank``).

    Example::

        >>> U = Subspace([0b1100, 0b0110, 0b1010])
        >>> U.dim, U.basis
        (2, (10, 6))
        >>> sorted(U)
        [0, 6, 10, 12]
    """

    __slots__ = ("_basis", "_hash")

    def __init__(self, vectors: Iterable[int] = ()) -> None:
        if isinstance(vectors, (str, bytes)) or not isinstance(vectors, Iterable):
            raise LayoutError(
                f"a Subspace is built from an iterable of int vectors, got {shown(vectors)}"
            )
        vecs = [bit_vector(v, f"vector {i} of the subspace") for i, v in enumerate(vectors)]
        object.__setattr__(self, "_basis", f2.echelon(vecs))
        object.__setattr__(self, "_hash", None)

    @classmethod
    def from_echelon(cls, basis: tuple[int, ...]) -> Subspace:
        """The subspace with this canonical basis, taken as is (an unchecked constructor).

        For callers that already hold an :func:`linlayout.f2.echelon` result (layouts'
        :meth:`~linlayout.LinearLayout.image` and :meth:`~linlayout.LinearLayout.kernel`):
        it skips the reduction the constructor does. Passing anything else makes a Subspace
        whose equality and membership tests are wrong; use ``Subspace(vectors)`` otherwise.
        """
        self = object.__new__(cls)
        object.__setattr__(self, "_basis", basis)
        object.__setattr__(self, "_hash", None)
        return self

    @classmethod
    def zero(cls) -> Subspace:
        """The subspace ``{0}`` (dimension 0)."""
        return cls.from_echelon(())

    @classmethod
    def full(cls, nbits: int) -> Subspace:
        """All of F₂^nbits. Raises LayoutError unless ``nbits`` is a non-negative int of at
        most :data:`MAX_NBITS`."""
        n = _nbits(nbits, "nbits")
        return cls.from_echelon(tuple(1 << i for i in reversed(range(n))))

    # ------------------------------------------------------------------ accessors
    @property
    def basis(self) -> tuple[int, ...]:
        """The canonical basis: fully reduced echelon form, leading bits descending."""
        return self._basis

    @property
    def dim(self) -> int:
        """Dimension (number of basis vectors); the subspace has ``2**dim`` elements."""
        return len(self._basis)

    @property
    def nbits(self) -> int:
        """Smallest ``n`` with the subspace inside F₂ⁿ (highest leading bit + 1; 0 for {0})."""
        return self._basis[0].bit_length() if self._basis else 0

    def __contains__(self, v: object) -> bool:
        """``v in U``: whether the int vector ``v`` lies in the subspace.

        Raises:
            LayoutError: ``v`` is not a non-negative int.
        """
        return f2.reduce(bit_vector(v, "the vector tested for membership"), self._basis) == 0

    def __iter__(self) -> Iterator[int]:
        """Every element (``2**dim`` of them), in Gray-code order from 0.

        Consecutive elements differ by one basis vector (:func:`f2.span_elements`).
        """
        return iter(f2.span_elements(self._basis))

    # ------------------------------------------------------------------ lattice operations
    def __and__(self, other: Subspace) -> Subspace:
        """Intersection ``U ∩ V`` (Zassenhaus, :func:`f2.intersection`)."""
        if not isinstance(other, Subspace):
            return NotImplemented
        return Subspace.from_echelon(f2.intersection(self._basis, other._basis))

    def __add__(self, other: Subspace) -> Subspace:
        """Sum ``U + V``: the span of both."""
        if not isinstance(other, Subspace):
            return NotImplemented
        return Subspace.from_echelon(f2.span_sum(self._basis, other._basis))

    def __le__(self, other: Subspace) -> bool:
        """``U <= V``: ``U`` is a subspace of ``V``."""
        if not isinstance(other, Subspace):
            return NotImplemented
        return all(f2.reduce(b, other._basis) == 0 for b in self._basis)

    def __ge__(self, other: Subspace) -> bool:
        """``U >= V``: ``V`` is a subspace of ``U``."""
        if not isinstance(other, Subspace):
            return NotImplemented
        return other <= self

    def complement(self, ambient: int | Subspace) -> Subspace:
        """A complement ``C`` of this subspace inside ``ambient``: ``U ⊕ C = ambient``.

        Args:
            ambient: an int ``n`` for all of F₂ⁿ (the complement is then spanned by unit
                vectors, lowest bits first, :func:`f2.complement`), or a Subspace containing
                this one (the complement is spanned by vectors of its canonical basis, taken
                lowest leading bit first).

        Returns:
            A subspace of dimension ``dim(ambient) - dim(U)`` meeting ``U`` only in 0.

        Raises:
            LayoutError: this subspace is not inside ``ambient`` (the offending basis vector
                is named), or ``ambient`` is neither a non-negative int (at most
                :data:`MAX_NBITS`) nor a Subspace.
        """
        if isinstance(ambient, Subspace):
            for b in self._basis:
                if f2.reduce(b, ambient._basis):
                    raise LayoutError(
                        f"basis vector {b:#x} is not in the ambient subspace {shown(ambient)}; a "
                        "complement is taken inside a space that contains the subspace"
                    )
            return Subspace(f2.extend_basis(self._basis, reversed(ambient._basis)))
        n = _nbits(ambient, "ambient (an int number of bits or a Subspace)")
        return Subspace(f2.complement(self._basis, n))

    def quotient(self, other: Subspace) -> Subspace:
        """The quotient ``(U + W) / W``, as the subspace of canonical coset representatives.

        Each coset ``u + W`` is represented by :func:`f2.reduce` ``(u, W.basis)``, the unique
        element of the coset with no bit at a leading-bit position of ``W``'s basis. That map
        is linear, so the representatives form a subspace of dimension
        ``dim(U + W) - dim(W)`` (equal to ``dim U - dim W`` when ``W <= U``), meeting ``W``
        only in 0. Two vectors of ``U`` are congruent modulo ``W`` iff their representatives
        are equal.

        Raises:
            LayoutError: ``other`` is not a Subspace.
        """
        if not isinstance(other, Subspace):
            raise LayoutError(f"quotient needs a Subspace, got {type(other).__name__}")
        return Subspace(f2.reduce(b, other._basis) for b in self._basis)

    def representative(self, v: int) -> int:
        """The canonical representative of the coset ``v + U`` (:func:`f2.reduce`).

        Raises:
            LayoutError: ``v`` is not a non-negative int.
        """
        return f2.reduce(bit_vector(v, "the vector to reduce"), self._basis)

    def random_element(self, rng: random.Random | int | None = None) -> int:
        """A uniformly random element (XOR of a random subset of the basis).

        Args:
            rng: a ``random.Random``, an int seed, or None (fresh entropy).

        Raises:
            LayoutError: ``rng`` is none of those.
        """
        r = random_source(rng)
        bits = r.getrandbits(len(self._basis)) if self._basis else 0
        return f2.apply(self._basis, bits)

    # ------------------------------------------------------------------ galois
    def to_galois(self, nbits: int | None = None):
        """The basis as a ``galois.GF(2)`` matrix of shape ``(dim, nbits)``.

        Row ``r`` is basis vector ``r``; column ``j`` is bit ``j`` (least significant first).
        ``nbits`` defaults to :attr:`nbits`. galois is imported lazily.

        Raises:
            LayoutError: a basis vector does not fit in ``nbits`` bits.
        """
        import galois
        import numpy as np

        n = self.nbits if nbits is None else _nbits(nbits, "nbits")
        if n < self.nbits:
            raise LayoutError(f"the subspace needs {self.nbits} bits, got nbits={n}")
        m = np.zeros((self.dim, n), dtype=np.uint8)
        for r, b in enumerate(self._basis):
            for j in range(b.bit_length()):
                m[r, j] = (b >> j) & 1
        return galois.GF2(m)

    @classmethod
    def from_galois(cls, matrix) -> Subspace:
        """The row space of a 0/1 matrix (galois, numpy or nested lists), column ``j`` = bit ``j``.

        Raises:
            LayoutError: the matrix is not 2-D or has an entry other than 0 and 1.
        """
        import numpy as np

        m = np.asarray(matrix)
        if m.ndim == 1 and m.size == 0:
            m = m.reshape(0, 0)
        if m.ndim != 2:
            raise LayoutError(f"a subspace is the row space of a 2-D matrix, got shape {m.shape}")
        if m.size and not np.isin(m, (0, 1)).all():
            raise LayoutError("matrix entries must be 0 or 1 (elements of F2)")
        rows = m.astype(np.int64)
        return cls(sum(int(rows[r, j]) << j for j in range(m.shape[1])) for r in range(m.shape[0]))

    # ------------------------------------------------------------------ dunders
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Subspace):
            return NotImplemented
        return self._basis == other._basis

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(("Subspace", self._basis)))
        return self._hash  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Subspace([{', '.join(f'{b:#x}' for b in self._basis)}])"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Subspace is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Subspace is immutable")

    def __reduce__(self):
        return (Subspace, (self._basis,))
