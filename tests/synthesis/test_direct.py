"""linlayout.synthesis.direct: the direct construction on bit masks.

Its vector-chain test is the search's on every ``ld/st.shared`` assignment; its layouts are
bijections counted exactly (each report is what ``bank_conflicts`` says); and a synthesis
that returns it gives the result the search gives — the same costs, optimality and bound —
on random Triton pairs, tiles read by several loads and random unit-vector layouts, under
every hardware preset, both objectives and uneven weights."""

from __future__ import annotations

import itertools
import random

import pytest

import linlayout as ll
from linlayout import LinearLayout, bank_conflicts, f2, synthesize_swizzle
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.hardware.kinds import distributed_columns
from linlayout.hardware.model import bank_model
from linlayout.synthesis import synthesize as mod
from linlayout.synthesis.direct import direct_plan, unit_sides
from linlayout.synthesis.options import side_options
from linlayout.synthesis.plans import Problem, chain_dims_ok
from linlayout.synthesis.transfer import WAVEFRONTS, Objective
from linlayout.triton.encodings.sampling import random_pair as triton_pair

from tests.support import random_out_bits, random_pair


def _problem(layouts, bits, hardware=None):
    model = bank_model(bits, hardware)
    sides = tuple(distributed_columns(ly, "store" if i == 0 else "load", model.warp_log2)
                  for i, ly in enumerate(layouts))
    store = layouts[0]
    return Problem(sides=sides, regs=tuple(f2.echelon(s.register) for s in sides),
                   model=model, d=store.total_out_bits,
                   dim_bits=tuple(store.out_bits(n) for n in store.out_dim_names),
                   weights=(1,) * len(sides))


def _triton_pairs(count, seed):
    rng = random.Random(seed)
    return [triton_pair(rng)[:3] for _ in range(count)]


def test_unit_sides_only_for_unit_vector_columns():
    store = LinearLayout({"register": [[0, 1], [0, 2]], "lane": [[1, 0], [2, 0], [0, 0]]},
                         {"dim0": 4, "dim1": 4})
    mixed = LinearLayout({"register": [[0, 1], [1, 2]], "lane": [[1, 0], [0, 2], [0, 0]]},
                         {"dim0": 4, "dim1": 4})
    units = unit_sides(_problem([store, store], 32))
    assert units is not None
    # flat columns: dim0 is the low bits (0b0001, 0b0010), dim1 the high ones
    assert units.regs == (0b1100, 0b1100) and units.lanes == (0b0011, 0b0011)
    assert units.threads == units.lanes and units.elems_log2 == (4, 4)
    assert units.register_bases() == (f2.echelon([0b0100, 0b1000]),) * 2 == ((0b1000, 0b0100),) * 2
    assert unit_sides(_problem([store, mixed], 32)) is None


def test_the_mask_chain_test_is_the_search_s():
    """UnitSides.chain_ok agrees with plans.chain_dims_ok on every ld/st.shared assignment
    of random Triton pairs and random unit-vector layouts with broadcasts."""
    rng = random.Random(4)
    problems = [_problem([s, ld], bits) for s, ld, bits in _triton_pairs(40, 6)]
    while len(problems) < 80:
        out_bits = random_out_bits(rng, rng.randint(4, 9))
        s, ld = random_pair(rng, out_bits, unit=True, warp_bits=rng.randint(0, 2),
                            broadcast=0.2)
        problems.append(_problem([s, ld], rng.choice([8, 16, 32])))
    checked = 0
    for problem in problems:
        units = unit_sides(problem)
        assert units is not None
        assert units.register_bases() == problem.regs  # (echelon bases, as _problem reads)
        opts = [side_options(i, s, problem.regs[i], problem.model, problem.d)
                for i, s in enumerate(problem.sides)]
        for assignment in itertools.product(*opts):
            assert units.chain_ok(assignment) == chain_dims_ok(assignment, problem)
            checked += 1
    assert checked > 500


def _checked_direct_plans(layouts, bits, hw, limit=None) -> int:
    """Build every direct plan of the layouts' chain-feasible assignments (the first
    ``limit`` assignments), assert each is a basis of the tensor's bits whose per-side
    reports are what bank_conflicts counts on it, and return how many were built."""
    problem = _problem(layouts, bits, hw)
    units = unit_sides(problem)
    opts = [side_options(i, s, problem.regs[i], problem.model, problem.d)
            for i, s in enumerate(problem.sides)]
    built = 0
    for assignment in itertools.islice(itertools.product(*opts), limit):
        if not units.chain_ok(assignment):
            continue
        plan = direct_plan(assignment, problem, units)
        if plan is None:
            continue
        assert f2.rank(plan.cols) == problem.d == len(plan.cols)
        memory = LinearLayout.from_columns(list(plan.cols), {"offset": 1 << problem.d},
                                           layouts[0].out_dims)
        for i, (layout, rep) in enumerate(zip(layouts, plan.reports)):
            want = bank_conflicts(layout, memory, element_bits=bits, hardware=hw,
                                  instruction="ld.shared" if i else "st.shared")
            assert (rep.wavefronts_per_warp, rep.instructions_per_warp,
                    rep.vector_elems, rep.degree) == \
                (want.wavefronts_per_warp, want.instructions_per_warp,
                 want.vector_elems, want.degree)
        built += 1
    return built


def test_direct_layouts_are_bijections_counted_exactly():
    """Every direct layout is a basis of the tensor's bits, and each side's report is what
    bank_conflicts counts on it (the reports come from the exact count, not the plan)."""
    for hw in (NVIDIA, AMD_CDNA3):
        built = sum(_checked_direct_plans([store, load], bits, hw)
                    for store, load, bits in _triton_pairs(30, 9))
        assert built > 100


def test_direct_layouts_of_tiles_are_bijections_counted_exactly():
    """With three or four sides (the segment then from free bits or the exact segment
    search): every direct layout is a basis, each report what bank_conflicts counts."""
    built = sum(_checked_direct_plans([store] + loads, bits, hw, limit=40)
                for store, loads, bits, hw, _ in _tile_cases()[:12])
    assert built > 50


def test_first_assignments_are_the_search_s_order():
    """_first_assignments finds the first assignment without sorting, then yields the rest
    of _assignments' order: the same sequence."""
    for store, load, bits in _triton_pairs(30, 2):
        problem = _problem([store, load], bits)
        opts = [side_options(i, s, problem.regs[i], problem.model, problem.d)
                for i, s in enumerate(problem.sides)]
        for objective, weights in ((WAVEFRONTS, (1, 1)), (Objective.parse("instructions"),
                                                          (3, 1))):
            assert list(mod._first_assignments(opts, weights, objective)) == \
                list(mod._assignments(opts, weights, objective))


def _cases():
    """(store, load, bits, hardware, kwargs): random Triton pairs under each preset, both
    objectives and uneven weights; random unit-vector layouts (broadcasts, few banks)."""
    out = []
    for i, (store, load, bits) in enumerate(_triton_pairs(60, 12)):
        hw = (NVIDIA, AMD_CDNA3, AMD_CDNA4)[i % 3]
        kw = ({}, {"objective": "instructions"}, {"weights": (1, 4)},
              {"instructions": "auto"})[i % 4]
        if hw is not NVIDIA and "instructions" in kw:
            kw = {}
        out.append((store, load, bits, hw, kw))
    rng = random.Random(13)
    while len(out) < 110:
        out_bits = random_out_bits(rng, rng.randint(5, 9))
        store, load = random_pair(rng, out_bits, unit=True, warp_bits=rng.randint(0, 2),
                                  broadcast=0.15)
        hw = NVIDIA.with_banks(num_banks=rng.choice([4, 8, 32]))
        out.append((store, load, rng.choice([8, 16, 32]), hw, {}))
    return out


def _tile_cases():
    """(store, loads, bits, hardware, kwargs): random Triton tiles read by two or three loads
    (the exact segment search decides the direct construction's segment), with a tight
    node budget on some."""
    rng = random.Random(17)
    out = []
    while len(out) < 24:
        store, load, bits, _ = triton_pair(rng)
        loads = [load]
        while len(loads) < 2 + len(out) % 2:
            other = triton_pair(rng, element_bits=(bits,))[1]
            if other.out_dims == store.out_dims:
                loads.append(other)
        kw = ({}, {"node_limit": 30}, {"weights": (1,) + (2,) * len(loads)})[len(out) % 3]
        out.append((store, loads, bits, NVIDIA, kw))
    return out


def _result(store, load, bits, hw, kw):
    ll.clear_caches()
    try:
        r = synthesize_swizzle(store, load, element_bits=bits, hardware=hw, **kw)
    except ll.LayoutError as exc:
        return str(exc)
    return (r.wavefronts_per_warp, r.instructions_per_warp, r.optimal,
            r.bound.wavefronts_per_warp, r.bound.instructions_per_warp, r.bound.method,
            r.bound.infeasible, r.bound.sides, r.notes)


def test_the_direct_result_is_the_search_s(monkeypatch):
    """With the direct construction and without it (the search alone), every result has the
    same costs, optimality and bound (its method, sides and infeasible count too) — pairs
    and tiles of three or four sides, a tight segment-search budget included — and the
    direct construction is taken on most of these inputs."""
    cases = _cases() + _tile_cases()
    taken = [0]
    real, real_first = mod._direct, mod._direct_first

    def counted(options, problem, units=None):
        got = real(options, problem, units)
        taken[0] += got is not None
        return got

    def counted_first(problem, units):
        got = real_first(problem, units)
        taken[0] += got is not None and got[0] is not None
        return got

    monkeypatch.setattr(mod, "_direct", counted)
    monkeypatch.setattr(mod, "_direct_first", counted_first)
    with_direct = [_result(*c) for c in cases]
    monkeypatch.setattr(mod, "_direct", lambda options, problem, units=None: None)
    monkeypatch.setattr(mod, "_direct_first", lambda problem, units: None)
    searched = [_result(*c) for c in cases]
    assert with_direct == searched
    assert taken[0] > len(cases) // 2


@pytest.mark.parametrize("name", ["transpose", "blocked-mma", "transpose-128", "gemm-operand"])
def test_the_built_in_examples_take_the_direct_construction(monkeypatch, name):
    """The built-in examples are proven optimal by the direct construction alone."""
    from linlayout import examples

    ex = examples.get(name)
    monkeypatch.setattr(mod, "_search", None)  # the search must not run
    ll.clear_caches()
    r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    assert r.optimal and r.bound.method == "per-side"


def test_the_first_assignment_path_is_the_direct_path_s(monkeypatch):
    """The usual call's first-assignment path gives what the direct construction over the
    full option lists gives — the same layout, reports, bound (its assignment and infeasible
    count too) and notes — and, where it declines, the same result as without it, on random
    pairs under every preset, both objectives and uneven weights."""
    cases = [c for c in _cases() if "instructions" not in c[4] or c[4]["instructions"] != "auto"]

    def full(store, load, bits, hw, kw):
        ll.clear_caches()
        try:
            r = synthesize_swizzle(store, load, element_bits=bits, hardware=hw, **kw)
        except ll.LayoutError as exc:
            return str(exc)
        return r

    taken = [0]
    real = mod._direct_first

    def counted(problem, units):
        got = real(problem, units)
        taken[0] += got is not None and got[0] is not None
        return got

    monkeypatch.setattr(mod, "_direct_first", counted)
    first = [full(*c) for c in cases]
    monkeypatch.setattr(mod, "_direct_first", lambda problem, units: None)
    without = [full(*c) for c in cases]
    assert first == without
    assert taken[0] > len(cases) // 2
