"""The bit space of a tile and its subspaces: candidate basis vectors, projections, quotients.

Helpers the synthesizer (:mod:`.synthesize`), the segment search (:mod:`.segments`) and the
family (:mod:`.family`) share. Vectors are ints over the tensor's flat bits (``dim0`` lowest).
Example in 3 bits: :func:`project_along` of ``0b011`` along ``span(0b001)`` onto
``span(0b010, 0b100)`` is ``0b010`` (the ``0b001`` part is dropped); in
:class:`QuotientSpace` modulo ``Z = span(0b001)``, ``0b011`` and ``0b010`` are both the
coordinate ``0b01``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

from .. import f2

__all__ = ["QuotientSpace", "candidate_vectors", "outside_spaces", "project_along",
           "vector_prefix_len"]


def outside_spaces(candidates: Iterator[int], spaces: list[tuple[int, ...]]) -> Iterator[int]:
    """The candidates that lie in none of the given subspaces (each an :func:`f2.echelon`
    basis), in order."""
    for c in candidates:
        if all(f2.reduce(c, s) for s in spaces):
            yield c


def candidate_vectors(nbits: int, first: list[int]) -> Iterator[int]:
    """Vectors to try for a basis slot, in order: the nonzero ones of ``first``, the unit
    vectors of F₂^nbits, then sums of two and of three unit vectors."""
    yield from (c for c in first if c)
    units = [1 << i for i in range(nbits)]
    yield from units
    for a, b in combinations(units, 2):
        yield a | b
    for a, b, c in combinations(units, 3):
        yield a | b | c


def project_along(vectors: Sequence[int], prefix: Sequence[int], aligned: Sequence[int]) -> list[int]:
    """Each vector's component in ``span(aligned)`` along ``span(prefix)``.

    ``prefix + aligned`` must be a basis of the whole space (``aligned`` a complement of
    ``span(prefix)``): every vector is written as ``p + a`` with ``p`` in the prefix span
    and ``a`` in the aligned one, and ``a`` is returned.
    """
    basis = list(prefix) + list(aligned)
    out = []
    for x in f2.solve_many(basis, vectors):
        assert x is not None
        out.append(f2.apply(aligned, x >> len(prefix)))
    return out


def vector_prefix_len(prefix: Sequence[int], reg_basis: tuple[int, ...]) -> int:
    """How many leading vectors of ``prefix`` lie in the span of ``reg_basis`` (an echelon
    basis): the log2 of the vector a side with those registers gets from the prefix."""
    k = 0
    while k < len(prefix) and f2.reduce(prefix[k], reg_basis) == 0:
        k += 1
    return k


class QuotientSpace:
    """Coordinates on ``F₂ⁿ / Z``: reduce modulo Z's echelon basis, then drop its pivot bits.

    Args:
        z: a spanning list of ``Z`` (vectors of F₂ⁿ).
        nbits: ``n``.

    Attributes:
        z: the echelon basis of ``Z``.
        free: the non-pivot bit positions, in increasing order; the quotient has one
            coordinate per free bit (:attr:`dim` of them).
    """

    def __init__(self, z: Sequence[int], nbits: int) -> None:
        self.z = f2.echelon(z)
        pivots = {b.bit_length() - 1 for b in self.z}
        self.free = [i for i in range(nbits) if i not in pivots]
        self._identity = not self.z  # Z = 0: the coordinates are the vector's own bits
        self._mask = (1 << nbits) - 1

    @property
    def dim(self) -> int:
        """``n − dim Z``."""
        return len(self.free)

    def down(self, v: int) -> int:
        """The coordinates of the class ``v + Z``."""
        if self._identity:
            return v & self._mask
        v = f2.reduce(v, self.z)
        out = 0
        for j, i in enumerate(self.free):
            if v >> i & 1:
                out |= 1 << j
        return out

    def up(self, c: int) -> int:
        """The representative of coordinates ``c`` with no pivot bits (``down(up(c)) == c``)."""
        if self._identity:
            return c & self._mask
        out = 0
        for j, i in enumerate(self.free):
            if c >> j & 1:
                out |= 1 << i
        return out
