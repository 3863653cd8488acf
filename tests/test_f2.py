"""linlayout.f2 against an independent oracle: galois.GF2 (plus brute force where it is cheap).

Vectors are ints of up to NMAX bits; lists hold 0..12 of them. Every f2 function is compared
with what galois computes on the same data as a GF(2) matrix:

* a list of vectors as *rows* (``rows_gf``) for spans, ranks and echelon forms;
* a list of columns as a *map* (``cols_gf``: column ``c`` holds the bits of ``columns[c]``)
  for apply, solve, null space and inverse.

The pivot columns of galois' reduced row-echelon form are exactly the columns that are not in
the span of the columns before them, which gives "basic columns", prefix ranks and the
free-variables-zero solution in one ``row_reduce``.

Also the packed-column helpers (``pack``, ``unpack``, ``compose_within``) that the algebra's fast
paths use, on columns wider than 64 bits and every field width in between.
"""

from __future__ import annotations

import itertools

import galois
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, NotInvertibleError, f2

from tests.support import gl_columns

GF2 = galois.GF2
NMAX = 12
SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# ---------------------------------------------------------------------------- oracle helpers
def rows_gf(vectors, n: int, msb_first: bool = False):
    """GF2 matrix with one row per vector; column j is bit j (bit n-1-j when msb_first)."""
    m = np.zeros((len(vectors), n), dtype=np.uint8)
    for r, v in enumerate(vectors):
        for j in range(n):
            m[r, n - 1 - j if msb_first else j] = (v >> j) & 1
    return GF2(m)


def cols_gf(columns, m: int):
    """GF2 matrix (m rows = output bits) × (len(columns)) of the map with these columns."""
    return rows_gf(columns, m).T


def gf_rank(vectors, n: int) -> int:
    if not vectors or n == 0:
        return 0
    return int(np.linalg.matrix_rank(rows_gf(vectors, n)))


def row_to_int(row, msb_first: bool = False) -> int:
    bits = [int(b) for b in row]
    n = len(bits)
    return sum(b << (n - 1 - j if msb_first else j) for j, b in enumerate(bits))


def pivot_columns(matrix) -> list[int]:
    """Pivot columns of galois' RREF: the columns not in the span of the columns before them."""
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        return []
    out = []
    for row in matrix.row_reduce():
        nz = np.flatnonzero(np.asarray(row))
        if nz.size:
            out.append(int(nz[0]))
    return out


def brute_span(vectors) -> set[int]:
    """All XOR combinations, by plain enumeration (no f2)."""
    span = {0}
    for v in vectors:
        span |= {x ^ v for x in span}
    return span


# ---------------------------------------------------------------------------- strategies
@st.composite
def vectors_in(draw, n: int, max_len: int = 12, min_len: int = 0):
    """A list of n-bit vectors: uniform, low-rank (combinations of few generators) or sparse."""
    mask = (1 << n) - 1
    kind = draw(st.sampled_from(["uniform", "lowrank", "sparse", "mixed"]))
    if kind == "uniform" or n == 0:
        return draw(st.lists(st.integers(0, mask), min_size=min_len, max_size=max_len))
    units = [0] + [1 << i for i in range(n)]
    if kind == "sparse":
        return draw(st.lists(st.sampled_from(units), min_size=min_len, max_size=max_len))
    if kind == "mixed":  # mostly unit vectors and a few others (the f2 unit fast paths)
        return draw(st.lists(st.one_of(st.sampled_from(units), st.integers(0, mask)),
                             min_size=min_len, max_size=max_len))
    gens = draw(st.lists(st.integers(0, mask), min_size=1, max_size=4))
    combos = draw(
        st.lists(st.integers(0, (1 << len(gens)) - 1), min_size=min_len, max_size=max_len)
    )
    out = []
    for c in combos:
        v = 0
        for i, g in enumerate(gens):
            if c >> i & 1:
                v ^= g
        out.append(v)
    return out


@st.composite
def space(draw, min_n: int = 0, max_len: int = 12):
    n = draw(st.integers(min_n, NMAX))
    return n, draw(vectors_in(n, max_len))


# ---------------------------------------------------------------------------- worked examples
def test_module_docstring_examples_hold():
    cols = [0b01, 0b11]
    assert f2.apply(cols, 0b11) == 0b10
    assert f2.echelon([0b1100, 0b0110, 0b1010]) == (0b1010, 0b0110)
    assert f2.rank([0b1100, 0b0110, 0b1010]) == 2


def test_hand_worked_values():
    # 4-bit plane spanned by 0b1100, 0b0110 (its RREF, leading bits 3 and 2: 1010, 0110).
    plane = [0b1100, 0b0110]
    e = f2.echelon(plane)
    assert e == (0b1010, 0b0110)
    assert f2.reduce(0b1111, e) == 0b0011  # 1111 ^ 1010 ^ 0110 = 0011
    assert f2.reduce(0b1010 ^ 0b0110, e) == 0
    assert f2.in_span(0b1010, plane) and not f2.in_span(0b0001, plane)
    assert f2.span_sum([0b0001], [0b0010]) == (0b0010, 0b0001)
    # {0, 3, 4, 7} ∩ {0, 1, 6, 7} = {0, 7};  {0, 3} ∩ {0, 1, 4, 5} = {0}
    assert f2.intersection([0b0011, 0b0100], [0b0001, 0b0110]) == (0b0111,)
    assert f2.intersection([0b0011], [0b0001, 0b0100]) == ()
    assert f2.complement(plane, 4) == [0b0001, 0b0010]
    assert f2.extend_basis([0b0001], [0b0001, 0b0011, 0b0010, 0b0100]) == [0b0011, 0b0100]
    assert f2.extend_basis([0b0001], [0b0001, 0b0011, 0b0010, 0b0100], limit=1) == [0b0011]
    assert f2.extend_basis([], [1, 2, 4], limit=0) == []
    # map e0 -> 1, e1 -> 1, e2 -> 2: kernel {0, 0b011}; target 3 = col0 ^ col2
    cols = [0b01, 0b01, 0b10]
    assert f2.null_space(cols) == (0b011,)
    assert f2.solve(cols, 0b11) == 0b101  # basic columns 0 and 2; free column 1 is zero
    assert f2.solve(cols, 0b100) is None
    assert f2.solve_many(cols, [0, 1, 2, 3, 4]) == [0, 1, 4, 5, None]
    # inverse of the 2-bit map e0 -> 3, e1 -> 1: inverse sends 1 -> e1, 2 -> e0 ^ e1
    assert f2.inverse([0b11, 0b01]) == [0b10, 0b11]
    assert f2.compose([0b11, 0b01], [0b10, 0b11]) == [0b01, 0b10]
    assert f2.span_elements([0b01, 0b10]) == [0b00, 0b10, 0b11, 0b01]
    assert f2.span_elements([]) == [0]
    assert f2.basic_columns([0b01, 0b01, 0b10, 0b11]) == 0b0101  # docstring example
    assert f2.basic_columns([]) == 0 and f2.basic_columns([0, 0]) == 0


def test_avoiding_sequence_worked_example():
    # Xa = <e0, e1>, Xb = <e0, e2>, Z = <e0> in F2^4.  I = <e0>, A' = [e1], B' = [e2].
    # C = [e3] (complement of Xa + Xb), pair e1^e2, no leftover, nothing of I beyond Z,
    # then the unpaired b'_0 = e2.
    seq = f2.avoiding_sequence([1, 2], [1, 4], [1], 4)
    assert seq == [0b1000, 0b0110, 0b0100]
    # Lemma 9.5: the first 4 - 2 = 2 vectors meet Xa and Xb only in 0.
    assert f2.intersection(seq[:2], [1, 2]) == ()
    assert f2.intersection(seq[:2], [1, 4]) == ()
    assert f2.intersection(seq, [1, 2]) == (0b0010,)


def test_apply_ignores_bits_beyond_columns():
    assert f2.apply([], 0) == 0
    assert f2.apply([], 0b110) == 0  # used to raise IndexError
    assert f2.apply([5], 0b11) == 5
    assert f2.apply([5, 6], 0b1111) == 3


# ---------------------------------------------------------------------------- apply / compose
@SETTINGS
@given(st.data())
def test_apply_and_compose_match_matrix_products(data):
    k = data.draw(st.integers(0, 8), label="in bits")
    m = data.draw(st.integers(0, 8), label="mid bits")
    p = data.draw(st.integers(0, 8), label="out bits")
    inner = data.draw(vectors_in(m, max_len=k, min_len=k), label="inner")
    outer = data.draw(vectors_in(p, max_len=m, min_len=m), label="outer")
    x = data.draw(st.integers(0, (1 << k) - 1), label="x")
    y = f2.apply(inner, x)
    comp = f2.compose(outer, inner)
    assert len(comp) == k
    if k and m:
        xv = GF2([(x >> i) & 1 for i in range(k)])
        assert y == row_to_int(cols_gf(inner, m) @ xv)
    else:
        assert y == 0
    if k and m and p:
        assert np.array_equal(cols_gf(comp, p), cols_gf(outer, p) @ cols_gf(inner, m))
    else:
        assert comp == [0] * k
    assert f2.apply(comp, x) == f2.apply(outer, y)


@SETTINGS
@given(st.data())
def test_compose_dense_and_wide(data):
    """Both compose strategies (a lookup per unit column; the bit-sliced product for dense ones)
    agree with galois on maps up to 30 bits wide, including bits beyond the outer columns."""
    m = data.draw(st.integers(0, 30), label="mid bits")
    p = data.draw(st.integers(1, 30), label="out bits")
    dense = data.draw(st.booleans(), label="dense")
    width = m + data.draw(st.integers(0, 3), label="extra input bits (ignored)")
    k = data.draw(st.integers(0, 30), label="columns")
    inner = data.draw(st.lists(
        st.integers(0, (1 << width) - 1) if dense else
        st.sampled_from([0] + [1 << i for i in range(max(width, 1))]),
        min_size=k, max_size=k), label="inner")
    outer = data.draw(st.lists(st.integers(0, (1 << p) - 1), min_size=m, max_size=m),
                      label="outer")
    comp = f2.compose(outer, inner)
    assert comp == [f2.apply(outer, c) for c in inner]
    if k and m:
        low = [c & ((1 << m) - 1) for c in inner]
        assert np.array_equal(cols_gf(comp, p), cols_gf(outer, p) @ cols_gf(low, m))


@SETTINGS
@given(st.data())
def test_basic_columns_are_the_galois_pivots(data):
    m = data.draw(st.integers(0, NMAX), label="out bits")
    cols = data.draw(vectors_in(m), label="columns")
    mask = f2.basic_columns(cols)
    assert bin(mask).count("1") == f2.rank(cols)
    expected = pivot_columns(cols_gf(cols, m)) if cols and m else []
    assert mask == sum(1 << c for c in expected)


# ---------------------------------------------------------------------------- rank / echelon
@SETTINGS
@given(space())
def test_rank_matches_galois(nv):
    n, vs = nv
    assert f2.rank(vs) == gf_rank(vs, n)
    assert f2.rank(iter(vs)) == f2.rank(vs)  # any iterable


@SETTINGS
@given(space())
def test_prefix_ranks_are_the_ranks_of_the_prefixes(nv):
    _, vs = nv
    assert f2.prefix_ranks(vs) == [f2.rank(vs[:i]) for i in range(len(vs) + 1)]
    assert f2.prefix_ranks([0b01, 0b10, 0b11, 0b100]) == [0, 1, 2, 2, 3]


@SETTINGS
@given(st.data())
def test_rank_modulo_is_the_rank_added(data):
    n = data.draw(st.integers(0, NMAX))
    vs = data.draw(vectors_in(n))
    basis = data.draw(vectors_in(n))
    assert f2.rank_modulo(vs, basis) == gf_rank(vs + basis, n) - gf_rank(basis, n)
    units = [1 << i if i < n else 0 for i in data.draw(st.lists(st.integers(0, NMAX)))]
    assert f2.rank_modulo(units, basis) == f2.rank(units + basis) - f2.rank(basis)
    assert f2.rank_modulo(iter(vs), iter(units)) == f2.rank(vs + units) - f2.rank(units)
    assert f2.rank_modulo([0b011, 0b100], [0b001, 0b010]) == 1


@SETTINGS
@given(st.data())
def test_rank_outside_counts_the_vectors_off_the_span(data):
    n = data.draw(st.integers(0, NMAX))
    vs = data.draw(vectors_in(n))
    basis = f2.echelon(data.draw(vectors_in(n)))
    units = [1 << i if i < n else 0 for i in data.draw(st.lists(st.integers(0, NMAX)))]
    ubasis = f2.echelon(1 << i for i in data.draw(st.lists(st.integers(0, NMAX))) if i < n)
    for xs, b in ((vs, basis), (units, basis), (units, ubasis), (vs, ubasis)):
        off = [x for x in xs if not f2.in_span(x, b)]
        assert f2.rank_outside(xs, b) == gf_rank(off, n)
        assert f2.rank_outside(iter(xs), b) == f2.rank_outside(xs, b)
    assert f2.rank_outside([0b001, 0b011, 0b010], (0b001,)) == 2


@SETTINGS
@given(space())
def test_echelon_is_galois_rref(nv):
    n, vs = nv
    e = f2.echelon(vs)
    assert isinstance(e, tuple)
    # galois' RREF with the most significant bit in column 0 is the same canonical basis.
    expected = ()
    if vs and n:
        rref = rows_gf(vs, n, msb_first=True).row_reduce()
        expected = tuple(row_to_int(r, msb_first=True) for r in rref if np.any(np.asarray(r)))
    assert e == expected
    # structure: independent, leading bits strictly descending, fully reduced
    assert len(e) == gf_rank(vs, n)
    leads = [b.bit_length() - 1 for b in e]
    assert leads == sorted(leads, reverse=True) and len(set(leads)) == len(leads)
    for b in e:
        for lead in leads:
            if lead != b.bit_length() - 1:
                assert not (b >> lead) & 1
    # same row space as the input: rank of the union does not grow
    assert gf_rank(list(vs) + list(e), n) == len(e)


@SETTINGS
@given(st.data())
def test_echelon_is_canonical(data):
    n, vs = data.draw(space(), label="space")
    # another spanning list of the same subspace: random combinations plus the originals,
    # shuffled, with zeros and duplicates
    combos = data.draw(st.lists(st.integers(0, (1 << len(vs)) - 1), max_size=6), label="combos")
    other = list(vs)
    for c in combos:
        v = 0
        for i, g in enumerate(vs):
            if c >> i & 1:
                v ^= g
        other.append(v)
    other = data.draw(st.permutations(other + [0]), label="shuffled")
    assert f2.echelon(other) == f2.echelon(vs)
    # and a different subspace gives a different echelon basis
    extra = data.draw(st.integers(0, (1 << n) - 1), label="extra")
    grows = gf_rank(list(vs) + [extra], n) > gf_rank(vs, n)
    assert (f2.echelon(list(vs) + [extra]) != f2.echelon(vs)) == grows


# ---------------------------------------------------------------------------- reduce / in_span
@SETTINGS
@given(st.data())
def test_reduce_gives_the_smallest_coset_member(data):
    n, vs = data.draw(space(), label="space")
    v = data.draw(st.integers(0, (1 << n) - 1), label="v")
    e = f2.echelon(vs)
    r = f2.reduce(v, e)
    member = gf_rank(list(vs) + [v], n) == gf_rank(vs, n)
    assert f2.in_span(v, vs) == member
    assert (r == 0) == member
    # v - r lies in the span; r has none of the basis' leading bits
    assert gf_rank(list(vs) + [v ^ r], n) == gf_rank(vs, n)
    for b in e:
        assert not (r >> (b.bit_length() - 1)) & 1
    # canonical coset representative: the smallest element of v + span (brute force)
    if len(e) <= 8:
        assert r == min(v ^ s for s in brute_span(e))
    assert f2.reduce(v, list(e)) == r  # a list basis (not kept in the table) reduces alike
    assert f2.reduce(v, e) == r  # and the tuple again, from the table


# ---------------------------------------------------------------------------- span_sum
@SETTINGS
@given(st.data())
def test_span_sum_is_the_echelon_basis_of_all_vectors(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    spaces = data.draw(st.lists(vectors_in(n, max_len=5), max_size=3), label="spaces")
    allv = [v for s in spaces for v in s]
    got = f2.span_sum(*spaces)
    assert got == f2.echelon(allv)
    assert len(got) == gf_rank(allv, n)
    assert gf_rank(allv + list(got), n) == len(got)


# ---------------------------------------------------------------------------- intersection
@SETTINGS
@given(st.data())
def test_intersection_meets_the_dimension_formula(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    u = data.draw(vectors_in(n), label="u")
    v = data.draw(vectors_in(n), label="v")
    inter = f2.intersection(u, v)
    assert inter == f2.echelon(inter)  # echelon basis
    du, dv, dsum = gf_rank(u, n), gf_rank(v, n), gf_rank(u + v, n)
    assert len(inter) + dsum == du + dv  # dim(U ∩ V) + dim(U + V) = dim U + dim V
    # every intersection vector lies in both
    assert gf_rank(u + list(inter), n) == du
    assert gf_rank(v + list(inter), n) == dv
    assert f2.intersection(v, u) == inter
    if n <= 8:
        assert set(f2.span_elements(inter)) == brute_span(u) & brute_span(v)


@SETTINGS
@given(st.data())
def test_low_subspace_is_the_span_below_nbits(data):
    n = data.draw(st.integers(0, 10), label="n")
    u = data.draw(vectors_in(n), label="u")
    k = data.draw(st.integers(0, n), label="nbits")
    low = f2.low_subspace(u, k)
    assert f2.rank(low) == len(low) and all(x >> k == 0 for x in low)
    assert set(f2.span_elements(low)) == {x for x in brute_span(u) if x >> k == 0}


@SETTINGS
@given(st.data())
def test_images_lists_apply_of_every_input(data):
    n = data.draw(st.integers(0, 8), label="n")
    cols = data.draw(vectors_in(n, max_len=6), label="columns")
    assert f2.images(cols) == [f2.apply(cols, x) for x in range(1 << len(cols))]


def test_intersection_edge_cases():
    assert f2.intersection([], [1, 2]) == ()
    assert f2.intersection([0, 0], [0]) == ()
    assert f2.intersection([3], [3, 3]) == (3,)
    assert f2.intersection(iter([1, 2]), iter([3])) == (3,)


# ---------------------------------------------------------------------------- complement
@SETTINGS
@given(space())
def test_complement_is_unit_vectors_filling_the_space(nv):
    n, vs = nv
    c = f2.complement(vs, n)
    assert all(x > 0 and x & (x - 1) == 0 for x in c)  # unit vectors
    assert c == sorted(c)  # lowest bit first
    assert len(c) == n - gf_rank(vs, n)
    assert gf_rank(list(vs) + c, n) == n  # together they fill F2^n


def test_complement_rejects_wide_vectors():
    with pytest.raises(LayoutError, match="does not fit in 3 bits"):
        f2.complement([0b1000], 3)
    with pytest.raises(LayoutError):
        f2.complement([-1], 3)


# ---------------------------------------------------------------------------- extend_basis
@SETTINGS
@given(st.data())
def test_extend_basis_is_greedy_in_order(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    base = data.draw(vectors_in(n, max_len=6), label="base")
    cands = data.draw(vectors_in(n), label="candidates")
    chosen = f2.extend_basis(base, cands)
    # greedy in order: exactly the candidates outside the span of base + earlier candidates,
    # i.e. the pivot columns of [base | candidates] that fall among the candidates
    piv = pivot_columns(cols_gf(base + cands, n)) if n and cands else []
    assert chosen == [cands[p - len(base)] for p in piv if p >= len(base)]
    db = gf_rank(base, n)
    assert gf_rank(base + chosen, n) == db + len(chosen)  # independent together with base
    assert gf_rank(base + chosen, n) == gf_rank(base + cands, n)  # same span as all
    limit = data.draw(st.integers(0, 4), label="limit")
    assert f2.extend_basis(base, iter(cands), limit=limit) == chosen[:limit]


def test_extend_basis_limit_stops_consuming():
    def gen():
        yield 1
        yield 2
        raise AssertionError("consumed past the limit")

    assert f2.extend_basis([], gen(), limit=2) == [1, 2]


# ---------------------------------------------------------------------------- null space
@SETTINGS
@given(st.data())
def test_null_space_matches_galois(data):
    m = data.draw(st.integers(0, NMAX), label="out bits")
    cols = data.draw(vectors_in(m), label="columns")
    k = len(cols)
    ns = f2.null_space(cols)
    assert ns == f2.echelon(ns)
    assert all(0 < x < (1 << k) for x in ns)
    assert all(f2.apply(cols, x) == 0 for x in ns)
    assert len(ns) == k - gf_rank(cols, m)  # rank-nullity
    if k:
        mat = cols_gf(cols, max(m, 1)) if m else GF2(np.zeros((1, k), dtype=np.uint8))
        g = mat.null_space()
        expected = f2.echelon(row_to_int(r) for r in g)
        assert ns == expected
        if ns:
            assert not np.any(np.asarray(mat @ rows_gf(list(ns), k).T))


# ---------------------------------------------------------------------------- solve
def _galois_free_zero_solution(cols, m, target):
    """(solution or None, basic columns) from galois' RREF of [A | target]."""
    k = len(cols)
    aug = cols_gf(list(cols) + [target], max(m, 1))
    rref = aug.row_reduce()
    pivots = []
    x = 0
    for row in rref:
        row = np.asarray(row)
        nz = np.flatnonzero(row)
        if not nz.size:
            continue
        p = int(nz[0])
        if p == k:
            return None, pivots
        pivots.append(p)
        if row[k]:
            x |= 1 << p
    return x, pivots


@SETTINGS
@given(st.data())
def test_solve_gives_the_free_variables_zero_solution(data):
    m = data.draw(st.integers(0, NMAX), label="out bits")
    cols = data.draw(vectors_in(m), label="columns")
    in_image = data.draw(st.booleans(), label="in image")
    if in_image:
        x0 = data.draw(st.integers(0, (1 << len(cols)) - 1), label="x0")
        target = f2.apply(cols, x0)
    else:
        target = data.draw(st.integers(0, (1 << m) - 1), label="target")
    x = f2.solve(cols, target)
    expected, basic = _galois_free_zero_solution(cols, m, target)
    # None exactly when the target is outside the column space
    solvable = gf_rank(list(cols) + [target], m) == gf_rank(cols, m)
    assert (x is not None) == solvable == (expected is not None)
    if x is None:
        return
    assert f2.apply(cols, x) == target  # valid
    # free variables zero: only basic columns (the pivots of the RREF = the columns not in
    # the span of the columns before them)
    assert all(i in basic for i in range(len(cols)) if x >> i & 1)
    assert x == expected  # galois RREF read with free variables zero
    # the free-variables-zero solution is the smallest one
    if len(cols) <= 10:
        assert x == min(y for y in range(1 << len(cols)) if f2.apply(cols, y) == target)


@SETTINGS
@given(st.data())
def test_solve_many_solves_each_target(data):
    m = data.draw(st.integers(0, NMAX), label="out bits")
    cols = data.draw(vectors_in(m), label="columns")
    targets = data.draw(st.lists(st.integers(0, (1 << m) - 1), max_size=6), label="targets")
    got = f2.solve_many(cols, targets)
    assert got == [f2.solve(cols, t) for t in targets]
    for t, x in zip(targets, got):
        assert (x is None) == (gf_rank(list(cols) + [t], m) > gf_rank(cols, m))
        if x is not None:
            assert f2.apply(cols, x) == t


@SETTINGS
@given(st.data())
def test_solve_with_kernel_is_solve_many_and_null_space(data):
    m = data.draw(st.integers(0, NMAX), label="out bits")
    cols = data.draw(vectors_in(m), label="columns")
    targets = data.draw(st.lists(st.integers(0, (1 << m) - 1), max_size=6), label="targets")
    sols, kernel = f2.solve_with_kernel(cols, targets)
    assert sols == f2.solve_many(cols, targets)
    assert kernel == f2.null_space(cols)


# ---------------------------------------------------------------------------- inverse
@SETTINGS
@given(st.permutations(range(NMAX)), st.integers(0, NMAX))
def test_inverse_of_a_permutation_of_unit_vectors(perm, n):
    cols = [1 << p for p in perm if p < n]
    inv = f2.inverse(cols)
    assert f2.compose(cols, inv) == [1 << i for i in range(n)]
    assert inv == [1 << cols.index(1 << j) for j in range(n)]


@SETTINGS
@given(st.data())
def test_inverse_of_mostly_unit_columns_matches_galois(data):
    # a permutation of unit vectors with a few columns added into others: the unit columns
    # are read off, the rest solved as a block
    n = data.draw(st.integers(1, NMAX), label="n")
    cols = [1 << p for p in data.draw(st.permutations(range(n)), label="perm")]
    for a, b in data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                   max_size=5), label="column additions"):
        if a != b:
            cols[a] ^= cols[b]
    inv = f2.inverse(cols)
    assert f2.compose(cols, inv) == [1 << i for i in range(n)]
    assert np.array_equal(cols_gf(inv, n), np.linalg.inv(cols_gf(cols, n)))
    if n > 1:  # and a singular one: a column repeated, or a sum of two others
        singular = cols[:-1] + [cols[0] if data.draw(st.booleans()) else cols[0] ^ cols[-1]]
        if gf_rank(singular, n) < n:
            with pytest.raises(NotInvertibleError):
                f2.inverse(singular)


def test_inverse_rejects_repeated_or_wide_unit_columns():
    for cols in ([1, 1], [1, 4], [2, 0], [4, 2, 2]):
        with pytest.raises(NotInvertibleError):
            f2.inverse(cols)


@SETTINGS
@given(st.data())
def test_inverse_matches_galois(data):
    n = data.draw(st.integers(0, NMAX), label="n")
    cols = data.draw(gl_columns(n), label="columns")
    inv = f2.inverse(cols)
    assert f2.inverse(cols, n) == inv
    assert len(inv) == n
    assert f2.compose(cols, inv) == [1 << i for i in range(n)]
    assert f2.compose(inv, cols) == [1 << i for i in range(n)]
    if n:
        g = np.linalg.inv(cols_gf(cols, n))
        assert np.array_equal(cols_gf(inv, n), g)
        assert f2.inverse(inv) == cols


@SETTINGS
@given(st.data())
def test_inverse_rejects_singular(data):
    n = data.draw(st.integers(1, NMAX), label="n")
    cols = data.draw(gl_columns(n), label="columns")
    i = data.draw(st.integers(0, n - 1), label="column to replace")
    subset = data.draw(st.integers(0, (1 << n) - 1), label="combination")
    others = [c for j, c in enumerate(cols) if j != i]
    dep = 0
    for j, c in enumerate(others):
        if subset >> j & 1:
            dep ^= c
    singular = cols[:i] + [dep] + cols[i + 1:]
    assert gf_rank(singular, n) < n
    with pytest.raises(NotInvertibleError):
        f2.inverse(singular)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(cols_gf(singular, n))


def test_inverse_rejects_non_square():
    with pytest.raises(NotInvertibleError, match="not square"):
        f2.inverse([1, 2], 3)
    with pytest.raises(NotInvertibleError, match="not square"):
        f2.inverse([1, 2, 4], 2)
    with pytest.raises(NotInvertibleError):
        f2.inverse([1, 4])  # full rank, but image outside 2 bits
    assert issubclass(NotInvertibleError, LayoutError)
    assert issubclass(LayoutError, ValueError)


# ---------------------------------------------------------------------------- span_elements
@SETTINGS
@given(st.data())
def test_span_elements_in_gray_code_order(data):
    n = data.draw(st.integers(0, 10), label="n")
    vs = data.draw(vectors_in(n, max_len=8), label="vectors")
    els = f2.span_elements(vs)
    basis = f2.echelon(vs)
    assert len(els) == 1 << gf_rank(vs, n)
    assert set(els) == brute_span(vs)
    assert els[0] == 0
    # Gray-code order: neighbours differ by exactly one basis vector
    assert all(a ^ b in basis for a, b in itertools.pairwise(els))


# ---------------------------------------------------------------------------- avoiding_sequence
@st.composite
def avoid_case(draw):
    n = draw(st.integers(0, NMAX))
    z = draw(vectors_in(n, max_len=4))
    xa = z + draw(vectors_in(n, max_len=8))
    xb = z + draw(vectors_in(n, max_len=8))
    xa = draw(st.permutations(xa))
    xb = draw(st.permutations(xb))
    return n, xa, xb, z


def _prefix_meets(seq, x, n):
    """([dim(span(seq[:j]) ∩ span(x)) for j = 0..len(seq)], dim span(x)), from one galois
    RREF of [x | seq] (its pivots among the first c columns give the rank of those columns)."""
    piv = pivot_columns(cols_gf(list(x) + list(seq), n))
    dx = sum(1 for p in piv if p < len(x))
    out = []
    for j in range(len(seq) + 1):
        dsum = sum(1 for p in piv if p < len(x) + j)  # dim(X + T_j)
        out.append(j + dx - dsum)  # dim T_j = j (checked separately)
    return out, dx


@SETTINGS
@given(avoid_case())
def test_avoiding_sequence_meets_both_subspaces_minimally(case):
    n, xa, xb, z = case
    seq = f2.avoiding_sequence(xa, xb, z, n)
    dz = gf_rank(z, n)
    assert len(seq) == n - dz
    assert all(0 < v < (1 << n) for v in seq)
    assert gf_rank(list(z) + seq, n) == n  # independent together with Z: T ∩ Z = 0
    if n == 0:
        return
    for x in (xa, xb):
        meets, dx = _prefix_meets(seq, x, n)
        assert dx == gf_rank(x, n)
        assert meets == [max(0, j - (n - dx)) for j in range(len(seq) + 1)]
    # Lemma 9.5: the first n - max(dim Xa, dim Xb) vectors avoid both
    k = n - max(gf_rank(xa, n), gf_rank(xb, n))
    assert f2.intersection(seq[:k], xa) == () and f2.intersection(seq[:k], xb) == ()
    # deterministic in the subspaces, not the spanning lists
    assert f2.avoiding_sequence(f2.echelon(xa), f2.echelon(xb), f2.echelon(z), n) == seq


@SETTINGS
@given(avoid_case(), st.integers(0, NMAX))
def test_avoiding_sequence_echelon_count_is_the_sequence_prefix(case, count):
    n, xa, xb, _ = case
    ea, eb = sorted(f2.echelon(xa)), sorted(f2.echelon(xb))
    full = f2.avoiding_sequence_echelon(ea, eb, (), n)
    assert f2.avoiding_sequence_echelon(ea, eb, (), n, count=count) == full[:count]


@st.composite
def unit_avoid_case(draw):
    """Spans of unit vectors (Triton's usual layouts), in any order, with zeros and repeats."""
    n = draw(st.integers(0, NMAX))
    units = st.sampled_from([0] + [1 << i for i in range(n)])
    return n, draw(st.lists(units, max_size=n + 2)), draw(st.lists(units, max_size=n + 2))


@SETTINGS
@given(st.one_of(avoid_case(), unit_avoid_case()), st.integers(0, NMAX))
def test_avoiding_sequence_count_is_the_echelon_sequence_prefix(case, count):
    n, xa, xb = case[:3]
    ea, eb = sorted(f2.echelon(xa)), sorted(f2.echelon(xb))
    full = f2.avoiding_sequence_echelon(ea, eb, (), n)
    assert f2.avoiding_sequence(xa, xb, (), n) == full
    assert f2.avoiding_sequence(iter(xa), iter(xb), iter(()), n, count=count) == full[:count]
    assert f2.avoiding_sequence(xa, xb, [], n, count=count) == full[:count]


def test_avoiding_sequence_rejects_z_outside_intersection():
    with pytest.raises(LayoutError, match="not in span"):
        f2.avoiding_sequence([1, 2], [1, 4], [2], 4)


def test_least_squares_is_exact_solve_with_free_variables_zero():
    cols = [0b011, 0b110, 0b101, 0b001]  # column 2 = column 0 ^ column 1
    x = f2.least_squares(cols, [0b101, 0b011, 0b000])
    assert [f2.apply(cols, v) for v in x] == [0b101, 0b011, 0b000]
    assert all(v & 0b0100 == 0 for v in x)  # column 2 is not basic: its variable is 0
    with pytest.raises(NotInvertibleError, match="column 0"):
        f2.least_squares([0b001], [0b010])


# ---------------------------------------------------------------------------- packed columns
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 130), st.lists(st.integers(0, 2**130), max_size=12))
def test_pack_unpack_round_trip(width, values):
    cols = [v & ((1 << width) - 1) for v in values]
    packed, w = f2.pack(cols, width)
    assert w >= width and (w in (8, 16, 32, 64) or w == width > 64)
    assert packed == sum(c << j * w for j, c in enumerate(cols))
    assert f2.unpack(packed, len(cols), w) == cols


def test_pack_unpack_and_compose_within_reject_bad_input():
    for columns, width in (([1, "a"], 8), ([300], 8), ([-1], 8), ([1 << 70], 70),
                           ([-1], 70), ([1.0], 70)):
        with pytest.raises(LayoutError, match="pack needs"):
            f2.pack(columns, width)
    for packed, w in ((1 << 70, 8), (1 << 70, 9), ("x", 16), (-1, 32)):
        with pytest.raises(LayoutError, match="unpack needs"):
            f2.unpack(packed, 2, w)
    with pytest.raises(LayoutError, match="8-bit bound"):
        f2.compose_within([1] * 9, [300], 8)
    # an outer column beyond the bound would spill into the next field: refused, any width
    for width in (8, 16, 70):
        with pytest.raises(LayoutError, match="outer column"):
            f2.compose_within([1 << width, 1], [3, 3], width)
    with pytest.raises(LayoutError, match="non-negative"):
        f2.compose_within([-1, 1], [3, 3], 8)
    with pytest.raises(LayoutError):
        f2.compose_within([-1, 1], [3, 3], 16)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 100), st.integers(1, 100), st.integers(0, 12), st.data())
def test_compose_handles_columns_wider_than_64_bits(m, k, n, data):
    """Columns beyond 64 bits (hand packing) and every field width in between."""
    outer = data.draw(st.lists(st.integers(0, (1 << k) - 1), min_size=m, max_size=m))
    inner = data.draw(st.lists(st.integers(0, (1 << m) - 1), min_size=n, max_size=n))
    expect = [f2.apply(outer, c) for c in inner]
    assert f2.compose(outer, inner) == expect
    assert f2.compose_within(outer, inner, max(m, k)) == expect
