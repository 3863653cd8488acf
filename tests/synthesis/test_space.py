"""linlayout.synthesis.space: candidate basis vectors, projections and quotient coordinates.

The module docstring's 3-bit examples, and each helper against its definition by enumeration
on small random subspaces.
"""

from __future__ import annotations

import random

from linlayout import f2
from linlayout.synthesis.space import (
    QuotientSpace,
    candidate_vectors,
    outside_spaces,
    project_along,
    vector_prefix_len,
)


def test_project_along_drops_the_prefix_component():
    # the docstring's example: 0b011 along span(0b001) onto span(0b010, 0b100) is 0b010
    assert project_along([0b011], [0b001], [0b010, 0b100]) == [0b010]
    rng = random.Random(0)
    for _ in range(100):
        n = rng.randint(1, 6)
        randoms = [rng.getrandbits(n) for _ in range(4 * n)]
        basis = f2.extend_basis([], randoms + [1 << i for i in range(n)])  # a basis of F2^n
        k = rng.randint(0, n)
        prefix, aligned = basis[:k], basis[k:]
        vectors = [rng.getrandbits(n) for _ in range(4)]
        for v, a in zip(vectors, project_along(vectors, prefix, aligned)):
            assert f2.in_span(a, aligned) if aligned else a == 0
            assert f2.in_span(v ^ a, prefix) if prefix else v == a


def test_quotient_coordinates_forget_z():
    # the docstring's example: modulo Z = span(0b001), 0b011 and 0b010 are both coordinate 0b01
    q = QuotientSpace([0b001], 3)
    assert (q.z, q.free, q.dim) == ((0b001,), [1, 2], 2)
    assert q.down(0b011) == q.down(0b010) == 0b01
    assert [q.up(c) for c in range(4)] == [0b000, 0b010, 0b100, 0b110]
    rng = random.Random(1)
    for _ in range(100):
        n = rng.randint(0, 6)
        z = [rng.getrandbits(n) for _ in range(rng.randint(0, n))]
        q = QuotientSpace(z, n)
        assert q.dim == n - f2.rank(z)
        for c in range(1 << q.dim):
            assert q.down(q.up(c)) == c
        for _ in range(8):
            x, y = rng.getrandbits(n), rng.getrandbits(n)
            assert (q.down(x) == q.down(y)) == f2.in_span(x ^ y, z)
            assert q.down(x ^ y) == q.down(x) ^ q.down(y)  # linear


def test_candidate_vectors_try_the_given_ones_then_sparse_vectors():
    assert list(candidate_vectors(3, [0, 5])) == [5, 1, 2, 4, 3, 5, 6, 7]
    four = list(candidate_vectors(4, []))
    assert four[:4] == [1, 2, 4, 8]
    assert sorted(four) == sorted(v for v in range(1, 16) if 1 <= bin(v).count("1") <= 3)


def test_outside_spaces_keeps_vectors_in_none_of_them():
    spaces = [f2.echelon([0b001, 0b010]), f2.echelon([0b100])]
    assert list(outside_spaces(iter(range(1, 8)), spaces)) == [0b101, 0b110, 0b111]
    assert list(outside_spaces(iter([3, 0, 5]), [])) == [3, 0, 5]


def test_vector_prefix_len_counts_the_leading_register_directions():
    regs = f2.echelon([0b001, 0b010])
    assert vector_prefix_len([0b001, 0b010, 0b100], regs) == 2
    assert vector_prefix_len([0b011, 0b100, 0b001], regs) == 1  # stops at the first outside
    assert vector_prefix_len([0b100, 0b001], regs) == 0
    assert vector_prefix_len([], regs) == 0
