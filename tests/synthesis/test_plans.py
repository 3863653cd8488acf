"""linlayout.synthesis.plans: the feasibility test of a vector chain against its definition,
and the prefix enumeration against that test."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import f2
from linlayout.hardware.kinds import distributed_columns
from linlayout.hardware.model import bank_model
from linlayout.synthesis.options import side_options
from linlayout.synthesis.plans import (Problem, aligned_complement, alignment_constraints,
                                       chain_dims_ok, chain_ok, prefixes)
from linlayout.triton.encodings.sampling import random_pair


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


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_rank_condition_fails_below_the_bound_of_any_set_of_prefix_bits(data):
    # the bound build_plan stops scanning on, per set I of the bits z … kp−1: the
    # functionals of I vanish on the intersection C_I of their constraint spans, so on a
    # side's lanes they have rank at most dim(lanes + C_I) − dim C_I; each other bit adds
    # at most one
    n = data.draw(st.integers(2, 7), label="n")
    kp = data.draw(st.integers(1, min(n, 4)), label="prefix length")
    prefix = data.draw(st.lists(st.integers(1, (1 << n) - 1), min_size=kp, max_size=kp))
    if f2.rank(prefix) != kp:
        return
    groups = st.lists(st.integers(1, (1 << n) - 1), min_size=1, max_size=4)
    cons = [tuple(data.draw(groups, label=f"constraints of bit {i}")) for i in range(kp)]
    lanes = data.draw(st.lists(st.integers(0, (1 << n) - 1), min_size=1, max_size=4))
    z = data.draw(st.integers(0, kp - 1), label="z")
    found = aligned_complement(prefix, cons, [lanes], [z], n)
    if found is None:
        return
    rows = range(z, kp)
    for size in range(1, len(rows) + 1):
        for chosen in itertools.combinations(rows, size):
            common = f2.echelon(cons[chosen[0]])
            for i in chosen[1:]:
                common = f2.intersection(common, f2.echelon(cons[i]))
            bound = (len(rows) - size + f2.rank(list(lanes) + list(common)) - len(common))
            if bound < min(len(lanes), kp - z):
                assert found[1] is False


def _reference_prefixes(assignment, problem):
    """Every vector prefix of an assignment by brute force: each level's bits from the
    common register span of the sides that reach it, kept while :func:`chain_ok` holds
    (None when a span has more than 5 dimensions)."""
    top = max(o.vector_log2 for o in assignment)
    cons = alignment_constraints(assignment, problem.sides, top)
    spans = {}
    for k in range(1, top + 1):
        members = [o.side for o in assignment if o.vector_log2 >= k]
        space = problem.regs[members[0]]
        for s in members[1:]:
            space = f2.intersection(space, problem.regs[s])
        if len(space) > 5:
            return None  # too many to enumerate here
        spans[k - 1] = [v for v in f2.span_elements(space) if v]
    out = set()

    def extend(prefix):
        if len(prefix) == top:
            out.add(tuple(prefix))
            return
        for v in spans[len(prefix)]:
            trial = prefix + [v]
            if f2.rank(trial) == len(trial) and chain_ok(trial, cons):
                extend(trial)

    extend([])
    return out


def test_prefixes_are_exactly_the_chains_chain_ok_admits():
    """The incremental chain test of the prefix enumeration gives the same prefixes as
    testing every extension with chain_ok, on assignments of unequal vectors to a Triton
    store and one or two loads of the same tile."""
    rng = random.Random(5)
    checked = 0
    while checked < 25:
        store, load, bits, _ = random_pair(rng)
        layouts = [store, load]
        if rng.random() < 0.6:
            extra = random_pair(rng, element_bits=(bits,))[1]
            if extra.out_dims == store.out_dims:
                layouts.append(extra)
        model = bank_model(bits)
        sides = tuple(distributed_columns(ly, "store" if i == 0 else "load", model.warp_log2)
                      for i, ly in enumerate(layouts))
        regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
        d = store.total_out_bits
        problem = Problem(sides=sides, regs=regs, model=model, d=d,
                          dim_bits=tuple(store.out_bits(n) for n in store.out_dim_names),
                          weights=(1,) * len(sides))
        opts = [side_options(i, sides[i], regs[i], model, d) for i in range(len(sides))]
        for assignment in itertools.product(*opts):
            vectors = [o.vector_log2 for o in assignment]
            if len(set(vectors)) == 1 or max(vectors) > 3 \
                    or not chain_dims_ok(assignment, problem):
                continue
            want = _reference_prefixes(assignment, problem)
            if want is None:
                continue
            got = [tuple(p) for p in prefixes(assignment, problem)]
            assert len(got) == len(set(got)) and set(got) == want
            checked += 1


def test_a_repeated_construction_gives_the_same_plan_and_charges_the_same_nodes():
    """The segment problems of a search's constructions are remembered (the variants of one
    assignment often pose the same one): building again, caches warm, gives the same plan
    and charges the segment search's nodes again, as building from cold does."""
    import linlayout as ll
    from linlayout.synthesis.plans import build_plan

    rng = random.Random(11)
    built = 0
    while built < 20:
        store, load, bits, _ = random_pair(rng)
        layouts = [store, load]
        while len(layouts) < 3:
            extra = random_pair(rng, element_bits=(bits,))[1]
            if extra.out_dims == store.out_dims:
                layouts.append(extra)
        model = bank_model(bits)
        sides = tuple(distributed_columns(ly, "store" if i == 0 else "load", model.warp_log2)
                      for i, ly in enumerate(layouts))
        regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
        d = store.total_out_bits

        def fresh():
            return Problem(sides=sides, regs=regs, model=model, d=d,
                           dim_bits=tuple(store.out_bits(n) for n in store.out_dim_names),
                           weights=(1,) * len(sides))

        opts = [side_options(i, sides[i], regs[i], model, d) for i in range(len(sides))]
        for assignment in list(itertools.product(*opts))[:6]:
            if not chain_dims_ok(assignment, fresh()):
                continue
            ll.clear_caches()
            cold = fresh()
            want = build_plan(assignment, cold)
            warm = fresh()
            assert build_plan(assignment, warm) == want
            assert warm.nodes_spent == cold.nodes_spent
            built += 1
