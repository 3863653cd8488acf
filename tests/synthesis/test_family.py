"""linlayout.synthesis.family: the optimal family's closed-form count against enumeration,
its members, and certificates for hand-written layouts.
"""

from __future__ import annotations

import itertools
import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, examples, f2, synthesize_swizzle
from linlayout.synthesis.family import (MAX_ENUMERATION, count_meeting, gaussian_binomial,
                                      is_optimal, optimal_swizzles)

from tests.support import SYNTHESIS_JUNK, article_memory, returns_or_raises_layout_error


def test_gaussian_binomial_values():
    assert [gaussian_binomial(4, k) for k in range(5)] == [1, 15, 35, 15, 1]
    assert gaussian_binomial(9, 4) == 3309747
    assert gaussian_binomial(3, 4) == 0


def test_gaussian_binomial_refuses_what_is_not_a_small_int():
    """A float, a string or a bool is refused (a float equal to a cached int used to return
    that int's count), and so is an ``n`` past ``MAX_NBITS`` (its product would take seconds
    per call and grow without bound)."""
    from linlayout.subspace import MAX_NBITS

    assert gaussian_binomial(4, 2) == 35
    for n, k in [(4.0, 2), ("4", 2), (True, 1), (4, 2.0), (MAX_NBITS + 1, 1)]:
        with pytest.raises(LayoutError):
            gaussian_binomial(n, k)
    assert gaussian_binomial(-1, 0) == 0 and gaussian_binomial(MAX_NBITS, 0) == 1


def _all_subspaces(q, s):
    seen = set()
    for combo in itertools.combinations(range(1, 1 << q), s):
        if f2.rank(list(combo)) == s:
            seen.add(f2.echelon(combo))
    return seen


def test_count_formula_matches_enumeration():
    rng = random.Random(3)
    cache = {}
    for _ in range(60):
        q = rng.randint(1, 5)
        s = rng.randint(0, q)
        u_basis = [rng.getrandbits(q) for _ in range(rng.randint(0, q))]
        v_basis = [rng.getrandbits(q) for _ in range(rng.randint(0, q))]
        u, v = f2.rank(u_basis), f2.rank(v_basis)
        i = len(f2.intersection(u_basis, v_basis)) if u and v else 0
        subs = cache.setdefault((q, s), _all_subspaces(q, s) if s else {()})
        tally = {}
        for t in subs:
            key = (len(f2.intersection(t, u_basis)) if t and u_basis else 0,
                   len(f2.intersection(t, v_basis)) if t and v_basis else 0)
            tally[key] = tally.get(key, 0) + 1
        for a in range(0, s + 1):
            for b in range(0, s + 1):
                assert count_meeting(q, s, u, v, i, a, b) == tally.get((a, b), 0), (q, s, u, v, i, a, b)


def test_article_family_is_322560():
    """The article's independence rule: 30·28·24·16 = 322560 of the 2^20 workbench masks."""
    ex = examples.get("transpose")
    fam = optimal_swizzles(ex.store, ex.load, element_bits=32)
    assert fam.count == len(fam) == 30 * 28 * 24 * 16 == 322560
    assert fam.exponents == (0, 0)


def test_family_enumeration_matches_count_and_members_are_optimal():
    """The family is the paper's objective: both sides 1-way at the widest common vector.
    Members need not be optimal for total wavefronts and instructions (per-side vectors can
    do better); the certificate says so, against a bound the synthesized layout reaches."""
    ex = examples.get("blocked-mma")
    fam = optimal_swizzles(ex.store, ex.load, element_bits=16)
    members = list(fam)
    assert len(members) == len(set(members)) == fam.count == 384
    best = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    assert is_optimal(best.layout, ex.store, ex.load, element_bits=16).optimal
    rng = random.Random(0)
    for seg in rng.sample(members, 20):
        mem = fam.layout(seg)
        for side in (ex.store, ex.load):
            rep = bank_conflicts(side, mem, element_bits=16, vector_elems=1 << fam.vector_bits)
            assert rep.degree == 1
        cert = is_optimal(mem, ex.store, ex.load, element_bits=16)
        assert (cert.wavefronts_per_warp, cert.instructions_per_warp) >= \
            (best.wavefronts_per_warp, best.instructions_per_warp)
        assert cert.optimal == ((cert.wavefronts_per_warp, cert.instructions_per_warp) ==
                                (best.wavefronts_per_warp, best.instructions_per_warp))
    assert f2.echelon(fam.reference.dim_columns("segment")) in set(members)


@pytest.mark.parametrize("shift, degree", [(None, 16), (0, 2), (1, 1)])
def test_certificates_for_the_article_layouts(shift, degree):
    """The article's layouts store one element per lane: never optimal (a 16-byte store
    needs a quarter of the instructions), and only the shifted one is conflict-free."""
    ex = examples.get("transpose")
    cert = is_optimal(article_memory(shift), ex.store, ex.load, element_bits=32)
    assert not cert.optimal
    assert cert.store.degree == 1 and cert.load.degree == degree
    assert cert.reasons[0].startswith("store: 16 wavefronts and 16 instructions per warp")
    at_bound = cert.wavefronts_per_warp == cert.bound.wavefronts_per_warp
    assert at_bound is (degree == 1)
    assert any(r.startswith(f"load: {16 * degree} wavefronts") for r in cert.reasons)
    assert any(r.startswith("total:") for r in cert.reasons)


def test_certificate_rejects_narrow_vectors():
    ex = examples.get("blocked-mma")
    # a row-major layout stores dim1 contiguously: both sides vectorise 2 — but conflicts
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(4)] + [[1 << i, 0] for i in range(4)]},
                       {"dim0": 16, "dim1": 16})
    cert = is_optimal(mem, ex.store, ex.load, element_bits=16)
    assert not cert.optimal
    # column-major: dim0 contiguous, which no side holds in registers: vector 1
    mem_t = LinearLayout({"offset": [[1 << i, 0] for i in range(4)] + [[0, 1 << i] for i in range(4)]},
                         {"dim0": 16, "dim1": 16})
    cert = is_optimal(mem_t, ex.store, ex.load, element_bits=16)
    assert not cert.optimal
    assert cert.store.vector_elems == cert.load.vector_elems == 1
    assert any("at 1 elements per lane" in r for r in cert.reasons)


def test_family_rejects_several_loads_and_bad_segments():
    ex = examples.get("transpose")
    with pytest.raises(LayoutError):
        optimal_swizzles(ex.store, [ex.load], element_bits=32)
    fam = optimal_swizzles(ex.store, ex.load, element_bits=32)
    with pytest.raises(LayoutError):
        fam.layout([1])


def test_junk_arguments_raise_layout_error_only():
    """Every argument of optimal_swizzles and is_optimal, fed junk: LayoutError or a result."""
    ex = examples.get("transpose")
    for j in SYNTHESIS_JUNK + [ex.store]:
        returns_or_raises_layout_error(optimal_swizzles, ex.store, j, element_bits=32)
        returns_or_raises_layout_error(is_optimal, j, ex.store, ex.load, element_bits=32)


# ----------------------------------------------------------------------------- size limits
@pytest.mark.parametrize("segment, match", [
    ([1 << 100, 2, 4, 8], "outside the tensor"),
    ([-1, 2, 4, 8], "outside the tensor"),
    ([0, 2, 4, 8], "outside the tensor"),
    (None, "sequence"),
    ("abcd", "sequence"),
    ([None, 2, 4, 8], "ints"),
    ([True, 2, 4, 8], "ints"),
    ([1, 2, 4, 8], "not a member"),
    ([3, 3, 4, 8], "not a member"),
])
def test_layout_refuses_non_members(segment, match):
    ex = examples.get("transpose")
    fam = optimal_swizzles(ex.store, ex.load, element_bits=32)
    with pytest.raises(LayoutError, match=match):
        fam.layout(segment)
    if match == "not a member":
        assert not fam.is_member(segment)


def test_members_are_members_and_give_bijections():
    ex = examples.get("blocked-mma")
    fam = optimal_swizzles(ex.store, ex.load, element_bits=16)
    for seg in list(fam)[:50]:
        assert fam.is_member(seg)
        fam.layout(seg).invert()  # a bijection, so it inverts


def test_len_of_a_huge_family_is_a_layout_error():
    import dataclasses

    ex = examples.get("transpose")
    fam = dataclasses.replace(optimal_swizzles(ex.store, ex.load, element_bits=32),
                              count=1 << 70)
    with pytest.raises(LayoutError, match=r"about 2\^70.*\.count"):
        len(fam)
    assert fam.count == 1 << 70


def test_enumeration_refuses_oversize_work_before_yielding():
    from linlayout.triton import blocked

    shape = [64, 64]
    st = blocked([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout(shape)
    ld = blocked([8, 1], [8, 4], [1, 4], [0, 1]).to_linear_layout(shape)
    fam = optimal_swizzles(st, ld, element_bits=16)
    assert fam.enumeration_size > MAX_ENUMERATION
    with pytest.raises(LayoutError, match=rf"{fam.enumeration_size}.*limit of {MAX_ENUMERATION}"
                       r".*\.count"):
        next(iter(fam))
    with pytest.raises(LayoutError, match="limit of 10"):
        fam.members(limit=10)
    with pytest.raises(LayoutError, match="limit"):
        fam.members(limit="many")
    small = optimal_swizzles(examples.get("blocked-mma").store, examples.get("blocked-mma").load,
                             element_bits=16)
    assert small.enumeration_size == 1024
    assert len(list(small.members(limit=1024))) == small.count
    with pytest.raises(LayoutError):
        small.members(limit=1023)
