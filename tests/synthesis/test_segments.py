"""linlayout.synthesis.segments: the exact segment search against brute force over every
subspace (small spaces), and the two-sided case against Lemma 9.5's bound."""

from __future__ import annotations

import itertools
import random

from linlayout import f2
from linlayout.synthesis.segments import best_segment


def all_subspaces(n: int, s: int, z: list[int]):
    """Every s-dim subspace of F2^n meeting span(z) only in 0 (as echelon tuples)."""
    seen = set()
    vecs = range(1, 1 << n)
    for combo in itertools.combinations(vecs, s):
        if f2.rank(list(combo)) != s or f2.rank(list(combo) + z) != s + f2.rank(z):
            continue
        e = f2.echelon(combo)
        if e not in seen:
            seen.add(e)
            yield e


def brute_optimum(xs, z, n, s):
    """(worst exponent, Σ degrees) minimum, and the least Σ degrees."""
    best = None
    best_sum = None
    for sub in all_subspaces(n, s, z):
        exps = [len(f2.intersection(sub, list(x) + z)) for x in xs]
        sc = (max(exps), sum(1 << e for e in exps))
        best = sc if best is None or sc < best else best
        best_sum = sc[1] if best_sum is None else min(best_sum, sc[1])
    return best, best_sum


def random_subspace(rng, n, dim, base):
    vecs = list(base)
    while f2.rank(vecs) < min(n, f2.rank(base) + dim):
        vecs.append(rng.getrandbits(n))
    return vecs


def test_matches_brute_force_for_three_and_four_sides():
    rng = random.Random(5)
    for _ in range(120):
        n = rng.randint(3, 5)
        z = random_subspace(rng, n, rng.randint(0, 1), [])
        zdim = f2.rank(z)
        m = rng.randint(3, 4)
        xs = [random_subspace(rng, n, rng.randint(1, n - zdim), z) for _ in range(m)]
        s = rng.randint(1, n - zdim)
        got = best_segment(xs, z, n, s, node_limit=10**6)
        assert got.proven
        assert len(got.segment) == s
        assert f2.rank(list(got.segment) + z) == s + zdim  # St ∩ Z = 0, independent
        assert got.exponents == tuple(len(f2.intersection(got.segment, list(x) + z)) for x in xs)
        worst_first, least_sum = brute_optimum(xs, z, n, s)
        assert got.score == worst_first, (xs, z, n, s)
        assert got.min_sum_degrees == least_sum
        assert sum(1 << len(f2.intersection(got.sum_witness, list(x) + z)) for x in xs) == least_sum


def test_matches_brute_force_for_seven_sides():
    # more sides than the heuristic's mask arithmetic takes: its candidate scan runs instead
    rng = random.Random(11)
    for _ in range(25):
        n = rng.randint(4, 5)
        xs = [random_subspace(rng, n, rng.randint(1, n - 1), []) for _ in range(7)]
        s = rng.randint(1, n - 1)
        got = best_segment(xs, [], n, s, node_limit=10**6)
        assert got.proven
        worst_first, least_sum = brute_optimum(xs, [], n, s)
        assert got.score == worst_first, (xs, n, s)
        assert got.min_sum_degrees == least_sum


def test_two_sides_meet_the_lemma_bound():
    rng = random.Random(6)
    for _ in range(200):
        n = rng.randint(2, 8)
        z = random_subspace(rng, n, rng.randint(0, 2), [])
        xa = random_subspace(rng, n, rng.randint(0, n), z)
        xb = random_subspace(rng, n, rng.randint(0, n), z)
        s = rng.randint(0, n - f2.rank(z))
        got = best_segment([xa, xb], z, n, s)
        assert got.proven and got.exponents == got.lower_bounds


def test_three_lines_in_a_plane_block_each_other():
    """u, v, u^v: every line of the plane is one of them, so some side must conflict."""
    got = best_segment([[0b01], [0b10], [0b11]], [], 2, 1)
    assert got.proven and got.score == (1, 4) and got.lower_bounds == (0, 0, 0)


def test_wide_quotients_give_valid_segments_with_their_exponents():
    # quotients of 8-10 dimensions take the heuristic's sampled passes (kept as bit sets);
    # the segment must avoid Z and report the exponents it has
    rng = random.Random(17)
    for _ in range(30):
        n = rng.randint(9, 11)
        z = random_subspace(rng, n, rng.randint(0, 1), [])
        zdim = f2.rank(z)
        xs = [random_subspace(rng, n, rng.randint(2, n - zdim - 2), z)
              for _ in range(rng.randint(3, 5))]
        s = rng.randint(2, n - zdim - 1)
        got = best_segment(xs, z, n, s, node_limit=2_000)
        assert len(got.segment) == s
        assert f2.rank(list(got.segment) + z) == s + zdim
        assert got.exponents == tuple(len(f2.intersection(got.segment, list(x) + z)) for x in xs)
        assert all(e >= b for e, b in zip(got.exponents, got.lower_bounds))
