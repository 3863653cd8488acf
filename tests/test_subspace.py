"""linlayout.subspace: Subspace, a canonical, hashable subspace of F₂ⁿ, checked against
galois.GF2 and brute force.

galois gives the oracles: the rank of stacked rows (dimensions of sums), the left null space
of ``[U; V]`` (the intersection: ``aU = bV``), and ``row_space``/``row_reduce`` (spans).

And every method fed junk arguments raises LayoutError, never another exception.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, Subspace, f2

from tests.support import GF2
from tests.support import walk_with_junk


SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


NMAX = 8


def rows(vectors, n):
    m = np.zeros((len(vectors), n), dtype=np.uint8)
    for r, v in enumerate(vectors):
        for j in range(n):
            m[r, j] = (v >> j) & 1
    return GF2(m)


def gf_dim(vectors, n) -> int:
    return int(np.linalg.matrix_rank(rows(vectors, n))) if vectors and n else 0


def brute_span(vectors) -> set[int]:
    span = {0}
    for v in vectors:
        span |= {x ^ v for x in span}
    return span


def gf_intersection(u, v, n) -> set[int]:
    """span{aU : [a | b] in the left null space of [U; V]}, enumerated."""
    if not u or not v:
        return {0}
    stacked = rows(list(u) + list(v), n)
    combos = stacked.left_null_space()
    vecs = []
    for c in combos:
        a = np.asarray(c[:len(u)])
        x = 0
        for i, bit in enumerate(a):
            if bit:
                x ^= u[i]
        vecs.append(x)
    return brute_span(vecs)


@st.composite
def spanning(draw, n=None, max_len=6):
    n = draw(st.integers(0, NMAX)) if n is None else n
    gens = draw(st.lists(st.integers(0, (1 << n) - 1), max_size=max_len))
    if gens and draw(st.booleans()):  # add dependent vectors
        gens = gens + [gens[0] ^ gens[-1]]
    return n, gens


@SETTINGS
@given(spanning(), st.randoms(use_true_random=False))
def test_equal_subspaces_share_basis_and_hash(space, rnd):
    n, gens = space
    U = Subspace(gens)
    shuffled = list(gens)
    rnd.shuffle(shuffled)
    mixed = [g ^ shuffled[0] for g in shuffled[1:]] + shuffled[:1] if shuffled else []
    V = Subspace(mixed + [0])
    assert U == V and hash(U) == hash(V) and len({U, V}) == 1
    assert U.basis == f2.echelon(gens)
    assert U.dim == gf_dim(gens, n)
    assert set(U) == brute_span(gens)
    # galois' reduced row-echelon form spans the same space
    if gens and n:
        assert Subspace.from_galois(rows(gens, n).row_reduce()) == U
        assert Subspace.from_galois(U.to_galois(n)) == U
        assert U.to_galois(n).shape == (U.dim, n)


@SETTINGS
@given(spanning(), st.integers(0, (1 << NMAX) - 1))
def test_membership_and_coset_representatives(space, x):
    n, gens = space
    U = Subspace(gens)
    x &= (1 << n) - 1
    assert (x in U) == (x in brute_span(gens))
    assert (x in U) == (gf_dim(gens + [x], n) == gf_dim(gens, n))
    r = U.representative(x)
    assert (r ^ x) in U and (r == 0) == (x in U)


@SETTINGS
@given(st.data())
def test_sum_intersection_and_dimension_formula(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    _, u = data.draw(spanning(n), label="U")
    _, v = data.draw(spanning(n), label="V")
    U, V = Subspace(u), Subspace(v)
    S, I = U + V, U & V
    assert S.dim == gf_dim(u + v, n)  # galois rank of the stacked rows
    assert set(I) == gf_intersection(u, v, n)  # galois left null space
    assert I.dim + S.dim == U.dim + V.dim  # dim(U ∩ V) + dim(U + V) == dim U + dim V
    assert I <= U <= S and I <= V <= S and S >= U
    assert U + V == V + U and U & V == V & U
    assert U & (U + V) == U and U + (U & V) == U  # absorption
    # modular law: W <= U implies U & (V + W) == (U & V) + W
    W = Subspace(data.draw(st.lists(st.sampled_from(list(U.basis) or [0]), max_size=2)))
    assert U & (V + W) == (U & V) + W


@SETTINGS
@given(st.data())
def test_complement_fills_the_ambient_space(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    _, u = data.draw(spanning(n), label="U")
    U = Subspace(u)
    C = U.complement(n)
    assert C.dim == n - U.dim and (U & C).dim == 0 and U + C == Subspace.full(n)
    assert all(b & (b - 1) == 0 for b in C.basis)  # unit vectors
    _, a = data.draw(spanning(n), label="extra")
    A = U + Subspace(a)
    D = U.complement(A)
    assert D <= A and (U & D).dim == 0 and U + D == A and D.dim == A.dim - U.dim
    if not U <= Subspace(a):
        with pytest.raises(LayoutError, match="not in the ambient"):
            U.complement(Subspace(a))


@SETTINGS
@given(st.data())
def test_quotient_represents_each_coset_once(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    _, u = data.draw(spanning(n), label="U")
    _, w = data.draw(spanning(n), label="W")
    U, W = Subspace(u), Subspace(w)
    Q = U.quotient(W)
    assert Q.dim == (U + W).dim - W.dim and (Q & W).dim == 0 and Q + W == U + W
    elems = list(U)[:16]
    for x in elems:  # congruent mod W iff same representative
        for y in elems:
            assert (W.representative(x) == W.representative(y)) == ((x ^ y) in W)
        assert W.representative(x) in Q


@SETTINGS
@given(spanning(max_len=4), st.integers(0, 2**32))
def test_iteration_and_random_elements(space, seed):
    _, gens = space
    U = Subspace(gens)
    elems = list(U)
    assert len(elems) == len(set(elems)) == 2 ** U.dim and elems[0] == 0
    assert all((a ^ b) in U.basis for a, b in zip(elems, elems[1:]))  # Gray code
    x = U.random_element(seed)
    assert x in U and x == U.random_element(random.Random(seed))
    r = random.Random(seed)
    if U.dim <= 3:
        assert {U.random_element(r) for _ in range(200)} == set(elems)


def test_worked_examples_and_layout_subspaces():
    U, V = Subspace([0b1100, 0b0110]), Subspace([0b0110, 0b0001])
    assert U.basis == (0b1010, 0b0110) and U & V == Subspace([0b0110])
    assert (U + V).dim == 3 and 0b1010 in U and U.complement(4).dim == 2
    assert Subspace.zero().dim == 0 and list(Subspace.zero()) == [0]
    assert Subspace.full(3) == Subspace([1, 2, 4]) and Subspace.full(3).nbits == 3
    assert repr(U) == "Subspace([0xa, 0x6])"
    Lx = LinearLayout({"register": [[1], [1]], "lane": [[2]]}, {"dim0": 4})
    assert Lx.image() == Subspace.full(2) and Lx.kernel() == Subspace([0b011])


def test_immutable_copyable_picklable():
    U = Subspace([3, 5])
    with pytest.raises(AttributeError):
        U._basis = ()
    with pytest.raises(AttributeError):
        del U._basis
    for other in (copy.copy(U), copy.deepcopy(U), pickle.loads(pickle.dumps(U))):
        assert other == U and hash(other) == hash(U)
    assert U != (3, 5) and U != "U"


def test_bad_arguments_raise_layout_error():
    for bad in ([-1], [True], [1.5], ["a"], "abc", 5, None):
        with pytest.raises(LayoutError):
            Subspace(bad)
    U = Subspace([3])
    for bad in (-1, 1.5, "x", None, True):
        with pytest.raises(LayoutError):
            bad in U  # noqa: B015
        with pytest.raises(LayoutError):
            U.complement(bad)
        with pytest.raises(LayoutError):
            U.representative(bad)
    with pytest.raises(LayoutError, match="Subspace"):
        U.quotient(3)
    with pytest.raises(LayoutError, match="rng"):
        U.random_element("seed")
    with pytest.raises(LayoutError, match="needs 2 bits"):
        U.to_galois(1)
    with pytest.raises(LayoutError):
        Subspace.from_galois(np.zeros((2, 2, 2)))
    with pytest.raises(LayoutError, match="0 or 1"):
        Subspace.from_galois([[2, 0]])
    with pytest.raises(LayoutError):
        Subspace.full(-1)
    with pytest.raises(TypeError):
        U & 3  # noqa: B018 - operators follow Python's protocol
    with pytest.raises(TypeError):
        U + 3  # noqa: B018


def test_ambient_dimensions_are_capped():
    from linlayout.subspace import MAX_NBITS

    assert Subspace.full(MAX_NBITS).dim == MAX_NBITS
    for call in (lambda: Subspace.full(2 ** 64), lambda: Subspace.full(MAX_NBITS + 1),
                 lambda: Subspace([1]).complement(2 ** 64),
                 lambda: Subspace([1]).to_galois(2 ** 64)):
        with pytest.raises(LayoutError, match=f"largest dimension {MAX_NBITS}"):
            call()


U = Subspace([0b011, 0b100])
SUBSPACE_WALK = {
    "complement": (U, (8,), {}),
    "quotient": (U, (Subspace([1]),), {}),
    "random_element": (U, (3,), {}),
    "representative": (U, (5,), {}),
    "to_galois": (U, (4,), {}),
    "from_galois": (Subspace, ([[1, 0], [0, 1]],), {}),
    "full": (Subspace, (3,), {}),
    "__contains__": (U, (3,), {}),
    "__init__": (Subspace, ([1, 2],), {}),
}


SUBSPACE_NULLARY = {"basis", "dim", "nbits", "zero"}
SUBSPACE_UNCHECKED = {"from_echelon"}


def test_the_walk_covers_the_public_api():
    public = {n for n in dir(Subspace) if not n.startswith("_")}
    assert public | {"__contains__", "__init__"} == \
        set(SUBSPACE_WALK) | SUBSPACE_NULLARY | SUBSPACE_UNCHECKED


def test_every_argument_survives_junk():
    walk_with_junk(SUBSPACE_WALK)


def test_unchecked_constructor_says_so():
    assert "unchecked" in Subspace.from_echelon.__doc__.lower()
