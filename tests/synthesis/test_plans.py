"""linlayout.synthesis.plans: the feasibility test of a vector chain against its definition."""

from __future__ import annotations


from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import f2
from linlayout.synthesis.plans import aligned_complement, chain_ok


def _functional_exists(prefix, cons, i, n):
    """Brute force: a linear functional g on F2^n with g(prefix[i]) = 1, g = 0 on the other
    prefix vectors and on cons[i] (functionals are ints: g(x) = parity(g & x))."""
    zeros = [v for j, v in enumerate(prefix) if j != i] + list(cons[i] if i < len(cons) else ())
    return any(bin(g & prefix[i]).count("1") % 2 == 1
               and all(bin(g & z).count("1") % 2 == 0 for z in zeros)
               for g in range(1 << n))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_chain_ok_matches_its_definition(data):
    n = data.draw(st.integers(1, 6), label="n")
    k = data.draw(st.integers(0, min(n, 4)), label="prefix length")
    prefix = data.draw(st.lists(st.integers(1, (1 << n) - 1), min_size=k, max_size=k))
    if f2.rank(prefix) != len(prefix):
        return
    groups = data.draw(st.lists(st.lists(st.integers(0, (1 << n) - 1), max_size=3), min_size=1,
                                max_size=2), label="constraint groups")
    cons = [tuple(data.draw(st.sampled_from(groups))) for _ in range(k)]
    want = all(_functional_exists(prefix, cons, i, n) for i in range(k) if cons[i])
    bases: dict = {}
    assert chain_ok(prefix, cons) == want
    assert chain_ok(prefix, cons, bases) == want
    assert chain_ok(prefix, cons, bases) == want  # with the cache filled


def test_chain_ok_worked_example():
    # bit 0 must avoid direction 0b01; prefix[0] = 0b01 is that direction: impossible
    assert not chain_ok([0b01], [(0b01,)])
    assert chain_ok([0b10], [(0b01,)])
    # two bits with the same constraint stay independent modulo it
    assert chain_ok([0b010, 0b100], [(0b001,), (0b001,)])
    assert not chain_ok([0b011, 0b010], [(0b001,), (0b001,)])


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_rank_condition_fails_whatever_the_prefix_below_its_constraint_bound(data):
    # the bound build_plan uses to stop scanning prefixes: the functionals of prefix bits
    # z … kp−1 vanish on C (the intersection of their constraint spans), so on a side's
    # lanes they have rank at most dim(lanes + C) − dim C
    n = data.draw(st.integers(2, 7), label="n")
    kp = data.draw(st.integers(1, min(n, 4)), label="prefix length")
    prefix = data.draw(st.lists(st.integers(1, (1 << n) - 1), min_size=kp, max_size=kp))
    if f2.rank(prefix) != kp:
        return
    group = tuple(data.draw(st.lists(st.integers(1, (1 << n) - 1), min_size=1, max_size=4)))
    cons = [group] * kp
    lanes = data.draw(st.lists(st.integers(0, (1 << n) - 1), min_size=1, max_size=4))
    z = data.draw(st.integers(0, kp - 1), label="z")
    found = aligned_complement(prefix, cons, [lanes], [z], n)
    if found is None:
        return
    common = f2.echelon(group)
    bound = f2.rank(list(lanes) + list(common)) - len(common)
    if bound < min(len(lanes), kp - z):
        assert found[1] is False
