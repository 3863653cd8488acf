"""Optimal swizzle synthesis: the shared-memory layout a store and its loads pay least for.

What the GPU pays for a tile moved through shared memory is, per warp, the total number of
wavefronts over every instruction that moves it (bandwidth: a wavefront serves at most one
row of banks) and the number of instructions issued. :func:`synthesize_swizzle` minimises
exactly that — the sum over the sides (the store and each load) of their wavefronts per warp,
then of their instructions (or the other order) — with every side counted as the compiler
executes it: vectorised as widely as the memory layout allows.

The search (Linear Layouts paper, arXiv 2505.23819, §5.4 and Lemma 9.5, generalised):

* each side has a few possible accesses — ``ld/st.shared`` of ``2^k`` elements per lane
  for each ``k`` its registers and alignment allow, or ``ldmatrix``/``stmatrix`` when
  allowed — each with exact instruction and phase counts and a lower bound on its conflicts
  (:mod:`.options`); summing each side's best is a lower bound on the total that no layout
  beats;
* assignments of one access per side are tried cheapest-first; each is built
  (:mod:`.plans`: a vector chain, an aligned complement, a Lemma 9.5 segment, banks) and
  counted exactly; the search stops when nothing left can beat the best plan;
* the result is ``optimal`` when it costs exactly the bound — a certificate that needs no
  search. For sides with unit-vector columns (most of Triton's layouts) the first
  assignment's layout is built from bit masks first (:mod:`.direct`); when it costs exactly
  that bound it is the answer and the search does not run. Otherwise simple alternatives (row-major in every dimension order, every TMA mode)
  are counted too, the cheapest layout wins, and the report gives the gap to the bound.

Stages of :func:`synthesize_transfer` (:func:`synthesize_swizzle` builds its
:class:`~.transfer.Transfer` and :class:`~.transfer.Objective`): for the usual call (two
sides, ``ld/st.shared``, unit-vector columns) :func:`_direct_first` — the direct construction
on the first assignment, one option built per side — and :func:`_result` when it reaches the
bound; otherwise :func:`_options`, then :func:`_fixed_tma`, :func:`_pinned_plan`,
:func:`_direct` or :func:`_search`, then :func:`_alternatives` (only when the bound was
missed) and :func:`_result`.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

from .. import f2
from .._checks import as_int, instance_of, shown
from ..errors import LayoutError
from ..hardware.access import widest_vector_log2
from ..hardware.instructions import DEFAULT
from ..hardware.kinds import memory_columns
from ..hardware.model import BankModel, HardwareModel
from ..layout import LinearLayout
from .direct import UnitSides, direct_plan, unit_sides
from .options import SideOption, best_plain_option, matrix_instructions, paired_exponent, \
    side_options
from .plans import (
    MAX_VARIANTS,
    Plan,
    Problem,
    build_plan,
    chain_dims_ok,
    matrix_report,
    plan_key,
    side_report,
    with_conflict_offsets,
)
from ..lowering import Target, triton_scratch_layout
from .lowered import LOWERINGS, chunk_orders, lower_sides, matrix_requests, relaxed_bound, \
    resolve_target, shared_counts, sharing_counts
from .result import OptimalityBound, SideBound, SwizzleResult
from .transfer import WAVEFRONTS, Objective, Transfer
from .._memo import memoize, register

__all__ = ["MAX_ASSIGNMENTS", "OptimalityBound", "SwizzleResult", "common_vector",
           "common_vector_layout", "synthesize_lowered", "synthesize_swizzle",
           "synthesize_transfer"]

#: How many layouts the search constructs at most (over all assignments and their prefix
#: variants) before it settles for the best so far.
MAX_BUILDS = 40
#: How many access assignments the search examines at most — every one it takes off its
#: queue is charged, whether the vector-chain test rejects it or it is built — before it
#: settles for the best so far (the result then says it is not proven optimal and gives the
#: gap to the bound). The number of assignments grows exponentially with the number of
#: distinct sides; this keeps a search over many loads polynomial.
MAX_ASSIGNMENTS = 16384
#: Whether the search may leave constructions unbuilt where their floor proves that the
#: synthesis result cannot change (:func:`_search` with a pruning :class:`_Fallback`);
#: False builds them in the unpruned order (the same results, more slowly: for tests).
PRUNE = True
#: ``instructions=`` entry for a store performed by TMA (not counted: no bank conflicts).
TMA_STORE = "tma"


class _Bound(NamedTuple):
    """A bound on the objective's key and how it was obtained (:class:`OptimalityBound`)."""

    key: tuple[int, int]
    method: str
    assignment: tuple[SideOption, ...] = ()
    candidates: int = 0
    infeasible: int = 0
    stopped: bool = False


def synthesize_swizzle(
    store: LinearLayout,
    load: LinearLayout | Sequence[LinearLayout],
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
    objective: str = "wavefronts",
    weights: Sequence[int] | None = None,
    instructions: str | Sequence[str | None] | None = None,
    fixed: Sequence[Sequence[int]] | str | None = None,
    node_limit: int = 200_000,
    lowering: str = "hardware",
    target: str | None = None,
) -> SwizzleResult:
    """The shared-memory layout that moves the tile in the fewest wavefronts and instructions.

    Args:
        store: distributed layout that writes the tile (in dims among ``register, lane, warp,
            block``); bases may be any linear maps, including broadcasts (zero bases). It
            need not write every element of the tile (an all-zero basis writes one): the
            counts and the bound are exact for the accesses as given, and whether every
            element a load reads was written is not checked.
        load: distributed layout that reads it — or a sequence of them, for a tile read by
            several loads — over the same out dims with the same sizes (the order of out dims
            may differ; the result uses ``store``'s).
        element_bits: bits per element, a power of two up to the widest access (128).
        hardware: a :class:`linlayout.hardware.HardwareModel` (default ``NVIDIA``; other
            bank counts: ``NVIDIA.with_banks(num_banks=16)``).
        objective: ``"wavefronts"`` (default): minimise the total wavefronts per warp over
            the sides, then the total instructions. ``"instructions"``: the other order
            (Triton's generic swizzling prefers the widest vectors).
        weights: one positive int per side (store first): how often each side runs, e.g.
            ``(1, 4)`` for a tile written once and read four times. Default: 1 each.
        instructions: None (default): every side uses ``ld/st.shared``, vectorised as widely
            as the layout allows. ``"auto"``: each side may instead use ``ldmatrix`` (loads)
            or ``stmatrix`` (the store), ``.x1/.x2/.x4``, plain or ``.trans``, whichever the
            objective prefers. A sequence (store first, then each load) fixes each side: None
            for ``ld/st.shared``, a matrix instruction name, ``"auto"``, or for the store
            ``"tma"`` (the tile is written by a TMA copy: not counted, TMA has no bank
            conflicts; needs a TMA mode in ``fixed``).
        fixed: pin the first offsets: ``fixed[i]`` is the tensor coordinate (one int per out
            dim, in the store's out-dim order) that offset bit ``i`` must map to — e.g. a
            contiguity a global-memory access imposes; at most one row of banks. Or a TMA
            swizzle mode name (``"128B"``, ``"64B"``, ``"32B"``, ``"none"``, the 128B
            sub-modes): the layout must be one TMA writes with that mode
            (:func:`linlayout.ptx.tma_layouts`: every contiguous dim, dim order and box size
            is counted, so the result is proven optimal among them).
        node_limit: budget (search nodes) of the exact segment search used with three or
            more distinct sides, for the whole call: every construction is charged its nodes.
            Past it the best segment found is used and the result is not claimed optimal.
        lowering: whose rules pick each side's instruction and vector. ``"hardware"``
            (default): the widest vector the layout admits, ``ld/st.shared`` unless
            ``instructions`` asks for a matrix instruction — the hardware's optimum.
            ``"triton"``: what Triton 3.9 emits for ``local_store``/``local_load`` through the
            layout on ``target`` (``stmatrix``/``ldmatrix`` whenever the tile fits on sm_90+/
            sm_75+, ``largestVectorisation``'s vector, ``ds_read_b64_tr`` on gfx950): the
            result is the cheapest layout under that lowering, reported at Triton's
            instructions (:func:`synthesize_lowered`); ``instructions`` and ``fixed`` must
            then be left out.
        target: with ``lowering="triton"``, the compilation target (``"cuda:80"``,
            ``"cuda:90"``, ``"cuda:100"``, ``"hip:gfx942"``, ``"hip:gfx950"``); default the
            hardware preset's (``cuda:90`` for NVIDIA).

    Returns:
        A :class:`SwizzleResult`: the layout, every side's exact report, the weighted totals,
        and ``optimal`` with its proof (``.bound``) — or, when the bound is not reached, the
        gap. Results are immutable and the last :data:`CACHE_SIZE` distinct calls are cached:
        a compiler pass that asks again for the same layouts gets the same result at once
        (``synthesize_swizzle.cache_clear()`` empties the cache, as for
        :func:`functools.lru_cache`).

    Raises:
        LayoutError: wrong in dims, out dims or sizes that differ between the sides, more
            lanes than a warp, an empty list of loads or more than
            :data:`~linlayout.synthesis.transfer.MAX_LOADS` (16) distinct ones, an unknown objective, bad weights, an
            instruction a side cannot use, invalid hardware parameters, or a fixed prefix or
            TMA mode that no layout of this tile satisfies.

    Source: Linear Layouts paper (arXiv 2505.23819) §5.4, Lemmas 9.4 and 9.5 (generalised:
    ``docs/theory.md``); Triton's ``lib/Tools/GenericSwizzling.cpp`` computes layouts of the
    same kind for unit-vector bases.

    Example (the article's 16×32 fp32 transpose)::

        >>> from linlayout import examples, synthesize_swizzle
        >>> ex = examples.get("transpose")
        >>> r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
        >>> r.load.degree, r.store.degree, r.wavefronts_per_warp, r.optimal
        (1, 1, 32, True)
    """
    key = _cache_key(store, load, element_bits, hardware, objective, weights, instructions,
                     fixed, node_limit, lowering, target)
    if key is not None:
        got = _CACHE.get(key)
        if got is not None:
            _CACHE.move_to_end(key)
            return got
    result = _synthesize(store, load, element_bits, hardware, objective, weights, instructions,
                         fixed, node_limit, lowering, target)
    if key is not None:
        _CACHE[key] = result
        if len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


#: How many distinct :func:`synthesize_swizzle` calls keep their result.
CACHE_SIZE = 512
_CACHE: OrderedDict[tuple, SwizzleResult] = OrderedDict()


synthesize_swizzle.cache_clear = _CACHE.clear  # type: ignore[attr-defined]
register(_CACHE.clear)


def _frozen(value: Any) -> Any:
    """A hashable copy of a nested sequence argument (TypeError when it has no such copy)."""
    if isinstance(value, (str, int, type(None), LinearLayout, HardwareModel)):
        return (type(value), value)
    if isinstance(value, Sequence):
        return ("seq", tuple(_frozen(v) for v in value))
    raise TypeError("not cacheable")


#: Argument types a cache key holds as they are (with their type: ``1`` and ``True`` differ).
_PLAIN = frozenset({str, int, type(None), LinearLayout, HardwareModel})


def _cache_key(*args: Any) -> tuple | None:
    """The cache key of a call, or None when an argument is not a plain value (then the call
    is computed, and validated, as usual).

    Every argument a plain value (the usual call): ``(types, args)``; otherwise one
    ``(type, value)`` pair or :func:`_frozen` copy per argument (a longer tuple, so the two
    forms never meet)."""
    types = tuple(map(type, args))
    if _PLAIN.issuperset(types):
        return types, args
    key = []
    try:
        for a in args:
            t = type(a)
            key.append((t, a) if t in _PLAIN else _frozen(a))
        out = tuple(key)
        hash(out)
    except TypeError:
        return None
    return out


def _synthesize(store: Any, load: Any, element_bits: Any, hardware: Any, objective: Any,
                weights: Any, instructions: Any, fixed: Any, node_limit: Any, lowering: Any,
                target: Any) -> SwizzleResult:
    """:func:`synthesize_swizzle`, uncached: its arguments as one transfer and objective."""
    goal = Objective.parse(objective)
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware,
                             weights=weights)
    if lowering not in LOWERINGS:
        raise LayoutError(f"lowering must be one of {LOWERINGS}, got {shown(lowering)}")
    if lowering == "triton":
        if instructions is not None or fixed is not None:
            raise LayoutError("lowering='triton' picks each side's instruction as Triton does; "
                              "leave instructions= and fixed= out")
        return synthesize_lowered(transfer, goal, target=target, node_limit=node_limit)
    if target is not None:
        raise LayoutError("target= only applies with lowering='triton'")
    return synthesize_transfer(transfer, goal, instructions=instructions, fixed=fixed,
                               node_limit=node_limit)


def synthesize_transfer(
    transfer: Transfer,
    objective: Objective = WAVEFRONTS,
    *,
    instructions: str | Sequence[str | None] | None = None,
    fixed: Sequence[Sequence[int]] | str | None = None,
    node_limit: int = 200_000,
) -> SwizzleResult:
    """The optimal shared-memory layout of a validated transfer (uncached).

    :func:`synthesize_swizzle` is this function behind its keyword arguments and its cache;
    call it directly when the :class:`~.transfer.Transfer` is already built.

    Args:
        transfer: the store, its loads, element width, hardware and weights
            (:class:`~.transfer.Transfer`, validated when it was built).
        objective: an :class:`~.transfer.Objective` (default: wavefronts, then instructions).
        instructions, fixed, node_limit: as :func:`synthesize_swizzle`.

    Returns:
        A :class:`SwizzleResult`, as :func:`synthesize_swizzle`.

    Raises:
        LayoutError: ``node_limit`` not a non-negative int; an instruction a side cannot use;
            a fixed prefix or TMA mode that no layout of this tile satisfies; ``transfer`` not
            a Transfer or ``objective`` not an Objective.

    Source: as :func:`synthesize_swizzle` (the whole-tile bound and search of
    ``docs/theory.md`` §5–§6; Lemmas 9.4 and 9.5 of the Linear Layouts paper, arXiv
    2505.23819).
    """
    if type(transfer) is not Transfer:  # (the usual exact types need no call)
        instance_of(transfer, Transfer, "transfer")
    if type(objective) is not Objective:
        instance_of(objective, Objective, "objective")
    if type(node_limit) is not int:
        node_limit = as_int(node_limit, "node_limit")
    if node_limit < 0:
        raise LayoutError(f"node_limit must be a non-negative int, got {shown(node_limit)}")
    store, model, ws = transfer.store, transfer.model, transfer.weights
    requests = _requests(instructions, len(transfer.sides), fixed)
    if TMA_STORE in requests:  # a TMA store is not counted: its weight is 0
        counted = tuple(req != TMA_STORE for req in requests)
        effective = tuple(w if c else 0 for w, c in zip(ws, counted))
    else:
        counted, effective = (True,) * len(requests), ws
    # each side's columns as masks when they are unit vectors or zero (Triton's usual
    # layouts): read once, by the register bases, the options and the direct construction
    units = unit_sides(transfer)
    problem = _problem(transfer, effective, objective, node_limit, units)
    first = None  # the usual call: its first assignment tried before any option list is built
    if instructions is None and fixed is None and units is not None and \
            len(problem.sides) == 2 and shared_counts() is None:
        first = _direct_first(problem, units)
        if first is not None and first[0] is not None:
            plan, bound = first  # (_result reads only the number of option lists: 2)
            return _result(plan, bound, store, bound.assignment, problem, ws, counted, (),
                           bound.key)
    full_problem, full_options = problem, _options(requests, problem, units)
    # identical loads (same columns, same request) are one side with their summed weight: a
    # layout costs each of them the same, so the search runs on the distinct sides only
    groups = _side_groups(problem.sides, requests) if len(problem.sides) > 2 else None
    problem, options = _merged(full_problem, full_options, groups)
    notes: list[str] = []
    if isinstance(fixed, str):
        plan, bound = _fixed_tma(fixed, store, options, problem)
        if counted[0]:
            notes.append(f"the layout is one TMA writes with swizzle mode {shown(fixed)}; a TMA "
                         "copy has no bank conflicts and would not be counted (the store is "
                         "counted here as ld/st.shared; instructions=('tma', ...) leaves it "
                         "out)")
        else:
            notes.append(f"the layout is one TMA writes with swizzle mode {shown(fixed)}; the "
                         "store is that TMA copy, which has no bank conflicts and is not "
                         "counted: only the loads are")
        plan, bound = _expanded(plan, bound, groups)
        return _result(plan, bound, store, full_options, full_problem, ws, counted,
                       tuple(notes))
    pinned = _pinned(fixed, store, problem.d, model)
    if pinned is not None:
        if any(o.is_matrix for opts in options for o in opts):
            raise LayoutError("fixed= pins the first offsets; it cannot be combined with "
                              "matrix instructions (their 16-byte rows fix the first offsets)")
        plan, bound = _pinned_plan(pinned, options, problem)
    elif first is None and (direct := _direct(options, problem,
                                              units if problem is full_problem else None)
                            ) is not None:
        plan, bound = direct
        if problem is full_problem:  # the direct plan costs exactly the bound: its key
            return _result(plan, bound, store, full_options, full_problem, ws, counted, (),
                           bound.key)
    else:
        start = problem.nodes_spent
        fallback = _Fallback(store, options, problem, prune=PRUNE)
        plan, bound, notes = _searched(options, problem, fallback)
        if fallback.since is not None and problem.nodes_spent != fallback.since:
            # an exhaustive segment search ran after the pruned search left the order of
            # constructions: its budget may differ from that order's, so search in order
            problem.nodes_spent = start
            plan, bound, notes = _searched(options, problem,
                                           _Fallback(store, options, problem, prune=False))
    if plan is None:
        raise LayoutError("no shared-memory layout serves these accesses: the matrix "
                          "instructions need each 16-byte row in the order they deliver it, "
                          "and the sides' rows disagree (or the vectors cannot be aligned)")
    plan, bound = _expanded(plan, bound, groups)
    return _result(plan, bound, store, full_options, full_problem, ws, counted, tuple(notes))


#: How many access assignments :func:`_direct` passes over (each one no layout can give)
#: looking for the first one a layout can give, before it leaves the case to the search.
DIRECT_SKIPS = 64


def _direct(options: Sequence[Sequence[SideOption]], problem: Problem,
            units: UnitSides | None = None) -> tuple[Plan, _Bound] | None:
    """The plan and bound :func:`_search` would prove, from the direct construction
    (:func:`~.direct.direct_plan`) alone — or None, and the search runs.

    For sides with unit-vector columns, the first assignment (cheapest ideal key first,
    :func:`_assignments`) that :func:`~.plans.chain_dims_ok` admits gives the search's
    bound: every cheaper one is proven impossible. When it is an ``ld/st.shared`` assignment
    and the direct construction for it costs exactly its ideal key, that layout reaches the
    bound, so it is optimal: the search would stop at the same key with the same bound (it
    may build another layout of the same cost). When it misses, the segment-search nodes it
    spent are given back, so the search runs exactly as it would have. Not used inside a
    lowered synthesis (:func:`synthesize_lowered` costs the search's own layouts under
    Triton's lowering). ``units``: :func:`~.direct.unit_sides` of ``problem`` when the
    caller has it (None: worked out here)."""
    if len(problem.sides) < 2 or shared_counts() is not None:
        return None
    if units is None:
        units = unit_sides(problem)
    if units is None:
        return None
    weights, objective = problem.weights, problem.objective
    infeasible = 0
    for key, assignment in _first_assignments(options, weights, objective):
        plain = list(map(_geometry, assignment)).count(None) == len(assignment)
        if not (units.chain_ok(assignment) if plain else chain_dims_ok(assignment, problem)):
            infeasible += 1
            if infeasible > DIRECT_SKIPS:
                return None
            continue
        if not plain:
            return None
        spent = problem.nodes_spent
        plan = direct_plan(assignment, problem, units)
        if plan is None or plan_key(plan, weights, objective) != key:
            problem.nodes_spent = spent  # the search gets the whole budget, as without it
            return None
        return plan, _Bound(key, "per-side", assignment, infeasible=infeasible)
    return None


def _direct_first(problem: Problem, units: UnitSides
                  ) -> tuple[Plan | None, _Bound | None] | None:
    """:func:`_direct` on the first assignment alone, for two ``ld/st.shared`` sides with
    unit-vector columns (the usual call), its options built one per side
    (:func:`~.options.best_plain_option`: the first of least key, as
    :func:`_first_assignments` picks it; every weight is positive). ``(plan, bound)``: what
    :func:`_direct` returns; ``(None, None)``: a layout can give that assignment but the
    direct construction misses its key, so :func:`_direct` would return None (the search
    runs); None: no layout gives it (:func:`_direct` goes on to the next assignments)."""
    (r0, r1), (t0, t1), model, d, objective = units.regs, units.threads, problem.model, \
        problem.d, problem.objective
    (s0, s1), (b0, b1) = problem.sides, problem.regs
    assignment = (best_plain_option(0, s0, b0, model, d, objective, (r0, t0)),
                  best_plain_option(1, s1, b1, model, d, objective, (r1, t1)))
    if not units.chain_ok(assignment):
        return None
    plan = direct_plan(assignment, problem, units)
    if plan is None:
        return None, None
    # the ideal key and the plan's, side by side (_ideal and plan_key inline)
    waves = instrs = got_waves = got_instrs = 0
    for o, rep, wt in zip(assignment, plan.reports, problem.weights):
        waves += wt * o.wavefronts_bound
        instrs += wt * o.instructions_per_warp
        got_waves += wt * rep.wavefronts_per_warp
        got_instrs += wt * rep.instructions_per_warp
    if got_waves != waves or got_instrs != instrs:
        return None, None
    return plan, _Bound(objective.key(waves, instrs), "per-side", assignment)


#: An option's matrix geometry (None for ``ld/st.shared``), read at C speed.
_geometry = attrgetter("geometry")
#: An option's key under the wavefronts objective (a sort key, read at C speed).
_waves_key = attrgetter("wavefronts_bound", "instructions_per_warp")
#: An option's key under the instructions objective (a sort key).
_instrs_key = attrgetter("instructions_per_warp", "wavefronts_bound")


def _first_assignments(options: Sequence[Sequence[SideOption]], weights: Sequence[int],
                       objective: Objective
                       ) -> Iterable[tuple[tuple[int, int], tuple[SideOption, ...]]]:
    """:func:`_assignments`, its first one found without sorting: each side's first option
    of least weighted key (the stable sort puts it first) — usually the only one asked for."""
    first = []
    waves = instrs = 0
    order = _waves_key if objective.name == "wavefronts" else _instrs_key
    for opts, wt in zip(options, weights):
        if not opts:
            return
        # a positive weight scales every key alike; weight 0 ties them all (the first wins)
        best = min(opts, key=order) if wt else opts[0]
        first.append(best)
        waves += wt * best.wavefronts_bound
        instrs += wt * best.instructions_per_warp
    yield objective.key(waves, instrs), tuple(first)
    rest = _assignments(options, weights, objective)
    next(rest)
    yield from rest


def _searched(options: Sequence[Sequence[SideOption]], problem: Problem, fallback: "_Fallback"
              ) -> tuple[Plan | None, _Bound, list[str]]:
    """:func:`_search`, then :func:`_fallbacks` when the plan misses the bound: the plan,
    the bound and the notes to report."""
    notes: list[str] = []
    plan, bound = _search(options, problem, fallback=fallback)
    if plan is None or _key(plan, problem) > bound.key:
        plan = _fallbacks(plan, options, problem, notes, fallback)
        if bound.stopped:
            notes.append(f"the search stopped after examining {MAX_ASSIGNMENTS} access "
                         f"assignments (MAX_ASSIGNMENTS) over {len(problem.sides)} distinct "
                         "sides: the layout is the best found, not proven optimal (the "
                         "bound gives the gap)")
    return plan, bound, notes


def _side_groups(sides: Sequence[Any], requests: Sequence[Any]) -> tuple[int, ...]:
    """For each side, the index of the first side it duplicates (itself when none): loads
    with the same flat columns and the same instruction request. The store is never merged."""
    out = [0]
    for i in range(1, len(sides)):
        out.append(next((j for j in range(1, i) if out[j] == j and sides[j] == sides[i]
                         and requests[j] == requests[i]), i))
    return tuple(out)


def _merged(problem: Problem, options: list[list[SideOption]], groups: tuple[int, ...] | None
            ) -> tuple[Problem, list[list[SideOption]]]:
    """The problem and options on the distinct sides only, each with its group's summed
    weight (the inputs themselves when no side repeats, or ``groups`` is None)."""
    if groups is None:
        return problem, options
    keep = [i for i, g in enumerate(groups) if g == i]
    if len(keep) == len(groups):
        return problem, options
    weights = tuple(sum(w for w, g in zip(problem.weights, groups) if g == k) for k in keep)
    merged = Problem(sides=tuple(problem.sides[k] for k in keep),
                     regs=tuple(problem.regs[k] for k in keep), model=problem.model,
                     d=problem.d, dim_bits=problem.dim_bits, weights=weights,
                     objective=problem.objective, node_limit=problem.node_limit)
    return merged, [[dataclasses.replace(o, side=n) for o in options[k]]
                    for n, k in enumerate(keep)]


def _expanded(plan: Plan, bound: _Bound, groups: tuple[int, ...] | None
              ) -> tuple[Plan, _Bound]:
    """A plan and bound of the merged sides, given back one entry per original side."""
    if groups is None:
        return plan, bound
    keep = [i for i, g in enumerate(groups) if g == i]
    if len(keep) == len(groups):
        return plan, bound
    at = {k: n for n, k in enumerate(keep)}
    pick = [at[g] for g in groups]
    def back(assignment: tuple[SideOption, ...]) -> tuple[SideOption, ...]:
        return tuple(dataclasses.replace(assignment[n], side=i) for i, n in enumerate(pick))

    plan = dataclasses.replace(plan, reports=tuple(plan.reports[n] for n in pick),
                               assignment=back(plan.assignment))
    if bound.assignment:
        bound = bound._replace(assignment=back(bound.assignment))
    return plan, bound


def common_vector_layout(store: LinearLayout, load: LinearLayout | Sequence[LinearLayout], *,
                         element_bits: int, hardware: HardwareModel | None = None,
                         node_limit: int = 200_000) -> LinearLayout:
    """The layout built when every side uses the same, widest possible ``ld/st.shared``
    vector — the Linear Layouts paper's objective (widest common vector, then the fewest
    conflicts per instruction), the reference of :mod:`.family`. Source: the optimal swizzle of
    the Linear Layouts paper (arXiv 2505.23819, Lemmas 9.4 and 9.5), built by the
    construction of ``docs/theory.md`` §4 (correct for bases that are not unit vectors).

    Args: as :func:`synthesize_swizzle`.

    Returns:
        A layout with in dims ``vector, bank, segment``; its ``vector`` is the common one.

    Raises:
        LayoutError: as :func:`synthesize_swizzle`.
    """
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware)
    return common_vector(transfer, node_limit=node_limit)


def common_vector(transfer: Transfer, *, node_limit: int = 200_000) -> LinearLayout:
    """:func:`common_vector_layout` of a validated :class:`~.transfer.Transfer` (its weights
    are ignored: every side counts once).

    Returns:
        A layout with in dims ``vector, bank, segment``; its ``vector`` is the widest vector
        every side can use at once.

    Raises:
        LayoutError: no layout serves the sides with a common vector (not expected: one
            element per lane always fits).
    """
    model, store = transfer.model, transfer.store
    problem = _problem(transfer, (1,) * len(transfer.sides), WAVEFRONTS, node_limit)
    d = problem.d
    options = _options([None] * len(transfer.sides), problem)
    for k in range(min(o[0].vector_log2 for o in options), -1, -1):
        assignment = [next(o for o in opts if o.vector_log2 == k) for opts in options]
        plan = build_plan(assignment, problem)
        if plan is not None:
            row = min(model.seg_lo, d)
            return LinearLayout.unchecked(
                (("vector", k), ("bank", row - k), ("segment", d - row)),
                store.out_dims_log2, plan.cols)
    raise LayoutError("no layout serves these sides with a common vector")  # k = 0 always does


# ------------------------------------------------------------------------------ reading input
def _problem(transfer: Transfer, weights: tuple[int, ...], objective: Objective,
             node_limit: int, units: UnitSides | None = None) -> Problem:
    """The fixed part of one synthesis (:class:`~.plans.Problem`); ``units``: the sides as
    masks when every column of every side is a unit vector or zero
    (:func:`~.direct.unit_sides`: the register bases are read off them)."""
    store, sides = transfer.store, transfer.sides
    return Problem(sides=sides, regs=units.register_bases() if units is not None else
                   tuple(map(_register_basis, sides)),
                   model=transfer.model, d=store.total_out_bits,
                   dim_bits=tuple(map(_width, store.out_dims_log2)),
                   weights=weights, objective=objective, node_limit=node_limit)


#: An out dim's width, from its ``(name, bits)`` entry.
_width = itemgetter(1)


def _register_basis(side: Any) -> tuple[int, ...]:
    """:func:`~linlayout.f2.echelon` of a side's register images: for unit vectors and zeros
    (most of Triton's layouts) the distinct nonzero ones, largest first — which is what
    ``echelon`` returns for them — without an elimination."""
    cols = side.register
    if sum(map(int.bit_count, cols)) == len(cols) - cols.count(0):
        return _unit_basis(side)
    return f2.echelon(cols)


def _unit_basis(side: Any) -> tuple[int, ...]:
    """:func:`_register_basis` of a side whose register columns are unit vectors or zero."""
    return tuple(sorted(set(side.register).difference((0,)), reverse=True))


def _key(plan: Plan, problem: Problem) -> tuple[int, int]:
    """The objective's key of a plan's exact cost."""
    return plan_key(plan, problem.weights, problem.objective)


def _requests(instructions: Any, nsides: int, fixed: Any) -> list[Any]:
    """One instruction request per side: None, ``"auto"``, a name, or ``"tma"``."""
    if instructions is None or instructions == "auto":  # the same for every side, no TMA
        return [instructions] * nsides
    if isinstance(instructions, str) or not isinstance(instructions, Sequence):
        raise LayoutError(
            f"instructions must be None, 'auto', or one name per side; got {shown(instructions)}")
    elif len(instructions) != nsides:
        raise LayoutError(
            f"give one instruction per side (store first, then each load): {nsides} names, "
            f"got {len(instructions)}")
    else:
        reqs = list(instructions)
    for i, req in enumerate(reqs):
        if req == TMA_STORE:
            if i != 0:
                raise LayoutError("'tma' names a TMA copy writing the tile: only the store "
                                  "(the first entry) can be one")
            if not isinstance(fixed, str):
                raise LayoutError("instructions 'tma' for the store needs a TMA swizzle mode "
                                  "in fixed= (e.g. fixed='128B'): TMA writes only its modes")
    return reqs


def _options(requests: Sequence[Any], problem: Problem, units: UnitSides | None = None
             ) -> list[list[SideOption]]:
    """Every side's access options, as its request allows (a TMA store: ``ld/st.shared``
    options, used only for its — uncounted — report); ``units``: the problem's sides as
    masks (:func:`~.direct.unit_sides`) when they are unit vectors or zero."""
    out = []
    regs, model, d = problem.regs, problem.model, problem.d
    for i, (req, side) in enumerate(zip(requests, problem.sides)):
        matrix, plain = (None, True) if req in (None, TMA_STORE) else \
            matrix_instructions(req, i)
        opts = side_options(i, side, regs[i], model, d, matrix, plain,
                            None if units is None else (units.regs[i], units.threads[i]))
        if not opts:
            raise LayoutError(f"side {i} cannot use {shown(req)}: its registers do not hold what "
                              "the instruction moves")
        out.append(opts)
    return out


def _pinned(fixed: Any, store: LinearLayout, d: int, model: BankModel) -> list[int] | None:
    """Validate ``fixed`` and return it as flat tensor coordinates (None when not given)."""
    if fixed is None:
        return None
    if isinstance(fixed, (bytes, bytearray)) or not isinstance(fixed, Iterable):
        raise LayoutError(
            f"fixed must be a TMA mode name or a list of tensor coordinates (one list of ints "
            f"per pinned offset bit), got {shown(fixed)}"
        )
    try:
        probe = LinearLayout({"offset": list(fixed)}, store.out_dims)
    except LayoutError as exc:
        raise LayoutError(f"fixed must list tensor coordinates, one per pinned offset bit: {exc}"
                          ) from None
    cols = list(probe.columns)
    if f2.rank(cols) != len(cols):
        raise LayoutError("the pinned offsets in fixed= are linearly dependent (or zero); "
                          "each must add a new tensor direction")
    if len(cols) > min(model.seg_lo, d):
        raise LayoutError(
            f"fixed= pins {len(cols)} offset bits but one row of banks holds "
            f"{min(model.seg_lo, d)}; pin at most that many"
        )
    return cols


# ------------------------------------------------------------------------------ the search
def _ideal(assignment: Sequence[SideOption], weights: Sequence[int],
           objective: Objective) -> tuple[int, int]:
    """The key an assignment would have if every side reached its bound."""
    w = n = 0
    for o, wt in zip(assignment, weights):
        w += wt * (o.instructions_per_warp * o.phases << o.bound_exponent)
        n += wt * o.instructions_per_warp
    return objective.key(w, n)


def _assignments(options: Sequence[Sequence[SideOption]], weights: Sequence[int],
                 objective: Objective
                 ) -> Iterable[tuple[tuple[int, int], tuple[SideOption, ...]]]:
    """Every assignment (one option per side) in increasing ideal key — lazily, best first
    (a heap over index vectors: the key is additive, so a neighbour never sorts earlier).

    Ties go by index vector (each side's options cheapest first, ties in the options'
    order). Each index vector enters the heap once, from its one parent — itself less one
    at its last nonzero position, which sorts before it — so no set of the vectors seen is
    kept, and a child's key is its parent's plus one side's step."""
    ranked = []  # each side's options, cheapest first, with their weighted keys
    for opts, wt in zip(options, weights):
        keyed = [(objective.key(wt * o.wavefronts_bound, wt * o.instructions_per_warp), o)
                 for o in opts]
        keyed.sort(key=lambda ko: ko[0])  # stable: equal keys keep the options' order
        ranked.append(keyed)
    nsides = len(ranked)
    if not all(ranked):
        return
    start = (0,) * nsides
    first = (sum(r[0][0][0] for r in ranked), sum(r[0][0][1] for r in ranked))
    heap = [(first, start, 0)]  # (key, index vector, its last nonzero position)
    pop, push, get = heapq.heappop, heapq.heappush, list.__getitem__
    chosen: list[list[SideOption]] | None = None  # the options alone, once many are taken
    taken = 0
    while heap:
        key, idx, last = pop(heap)
        if chosen is None:
            yield key, tuple([r[i][1] for r, i in zip(ranked, idx)])
            taken += 1
            if taken == 8:
                chosen = [[o for _, o in r] for r in ranked]
        else:
            yield key, tuple(map(get, chosen, idx))
        a, b = key
        for s in range(last, nsides):
            r = ranked[s]
            i = idx[s]
            if i + 1 < len(r):
                (na, nb), (oa, ob) = r[i + 1][0], r[i][0]
                push(heap, ((a + na - oa, b + nb - ob), idx[:s] + (i + 1,) + idx[s + 1:], s))


def _search(options: Sequence[Sequence[SideOption]], problem: Problem, prove: bool = True,
            fallback: "_Fallback | None" = None) -> tuple[Plan | None, _Bound]:
    """Best-first over assignments: build each, keep the cheapest plan, stop when no
    assignment left can beat it (or after :data:`MAX_BUILDS` constructions, or after
    :data:`MAX_ASSIGNMENTS` assignments examined, rejected ones included: ``stopped``).

    An assignment that provably misses its ideal (:func:`_floor`: every plan built for it
    costs at least a key above its ideal) is set aside, not built, with the budget it would
    use charged as if it had been (it would miss its target): it is built only when its
    floor no longer proves that it cannot be the cheapest plan so far or cannot stop the
    search. The result is the plan the search builds every assignment in
    order finds: the same plan, key and bound.

    With a pruning ``fallback`` (:class:`_Fallback`, the top-level search) two more things
    are left unbuilt, and the result is the same *synthesis* result (the caller's
    :func:`_fallbacks` picks the same layout): with three or more sides the floors are
    derived too (:func:`_wide_floor`); and at the end, when set-aside assignments would be
    built only to find the cheapest plan, those whose floor is above the fallback layouts'
    key (:meth:`_Fallback.incumbent`) are not — their plans would lose to a fallback layout
    anyway (one that costs no more and comes later in the candidates only ties with a plan
    built). When no plan is found otherwise, they are built in order until one is (the
    bound is raised only when a plan exists). Both change the order of the constructions:
    ``fallback.since`` records the nodes spent when that first happened (the caller checks
    that no segment-search budget was used after it, :func:`synthesize_transfer`).

    When the plan misses that bound and ``prove`` is set, the bound is raised where the
    sides' accesses provably block each other (:func:`_raised_bound`); the plan is the same.

    Returns:
        ``(plan, bound)``: the bound is the ideal key of the first assignment not proven
        impossible, or the raised bound — no layout costs less.
    """
    best: Plan | None = None
    best_rank: tuple[tuple[int, int], int] | None = None  # (key, order built): first wins
    bound_key: tuple[int, int] | None = None
    bound_assignment: tuple[SideOption, ...] = ()
    infeasible = builds = examined = 0
    stopped = False
    weights, objective = problem.weights, problem.objective
    paired: dict[tuple[int, int, int, int], int] = {}  # the exponents of _paired
    prune = fallback is not None and fallback.prune
    wide: dict | None = {} if prune and len(problem.sides) > 2 else None  # _wide_floor's
    # set aside: (floor, order, ideal key, assignment, max_variants)
    aside: list[tuple[tuple[int, int], int, tuple[int, int], tuple[SideOption, ...], int]] = []
    lowest: list[tuple[int, int] | None] = [None]  # the least floor set aside

    def settle(limit: tuple[int, int] | None) -> None:
        """Build the set-aside assignments whose floor is at most ``limit`` (all: None)."""
        nonlocal best, best_rank
        keep = []
        low = None
        for item in aside:
            floor, order, ideal, assignment, variants = item
            if limit is not None and floor > limit:
                keep.append(item)
                if low is None or floor < low:
                    low = floor
                continue
            plan = _build_plan(assignment, problem, ideal, variants)
            if plan is not None:
                rank = (plan_key(plan, weights, objective), order)
                if best_rank is None or rank < best_rank:
                    best, best_rank = plan, rank
        aside[:] = keep
        lowest[0] = low

    ordered = _Replayed(_assignments(options, weights, objective))
    for order, (key, assignment) in enumerate(ordered):
        if lowest[0] is not None and key >= lowest[0]:
            settle(key)  # one of them might have made the search stop here
        if best_rank is not None and key >= best_rank[0]:
            break
        if builds >= MAX_BUILDS:
            break
        if examined >= MAX_ASSIGNMENTS:
            stopped = True
            if bound_key is None:  # every cheaper assignment was proven impossible
                bound_key, bound_assignment = key, assignment
            break
        examined += 1
        if not chain_dims_ok(assignment, problem):
            if bound_key is None:
                infeasible += 1
            continue
        variants = min(MAX_VARIANTS, MAX_BUILDS - builds)
        floor = _floor(assignment, problem, paired, options, wide)
        if floor is not None and floor > key:
            if bound_key is None:
                bound_key, bound_assignment = key, assignment
            if wide is not None:
                fallback.left_order(problem)  # type: ignore[union-attr]
            aside.append((floor, order, key, assignment, variants))
            if lowest[0] is None or floor < lowest[0]:
                lowest[0] = floor
            builds += variants  # it misses its target: charged as a build that missed
            continue
        plan = _build_plan(assignment, problem, key, variants)
        if bound_key is None:
            bound_key, bound_assignment = key, assignment
        if plan is None:
            builds += variants
            continue
        pk = plan_key(plan, weights, objective)
        builds += 1 if pk <= key else variants
        if best_rank is None or (pk, order) < best_rank:
            best, best_rank = plan, (pk, order)
        if pk == key:  # reached its own ideal: nothing later can beat it
            break
    # a set-aside assignment whose floor is above the best key cannot be the cheapest
    limit = None if best_rank is None else best_rank[0]
    if prune and prove and any(limit is None or a[0] <= limit for a in aside):
        incumbent = fallback.incumbent()  # type: ignore[union-attr]
        if incumbent is not None and (limit is None or incumbent < limit):
            above = [a for a in aside if a[0] > incumbent]
            settle(incumbent)
            for item in above:  # only whether a plan exists matters now (the bound)
                if best_rank is not None:
                    break
                if limit is None or item[0] <= limit:
                    aside[:] = [item]
                    settle(None)
            aside.clear()
    settle(limit)
    bound = _Bound(bound_key or (0, 0), "per-side", bound_assignment, infeasible=infeasible,
                   stopped=stopped)
    if prove and best_rank is not None and best_rank[0] > bound.key:
        bound = _raised_bound(options, problem, bound, paired, ordered)
    return best, bound


class _Replayed:
    """An iterable over what an iterator yields, drawn from it once: each pass replays the
    items drawn so far, then draws more (the search and the raised bound walk the same
    assignments in the same order, :func:`_assignments`)."""

    __slots__ = ("_source", "_drawn")

    def __init__(self, source: Iterator) -> None:
        self._source, self._drawn = source, []

    def __iter__(self) -> Iterator:
        drawn = self._drawn
        yield from drawn
        for item in self._source:
            drawn.append(item)
            yield item


#: How many constructions :func:`_build_plan` keeps.
BUILT_SIZE = 256
_BUILT: OrderedDict[tuple, tuple[Plan | None, int]] = OrderedDict()
register(_BUILT.clear)


def _build_plan(assignment: tuple[SideOption, ...], problem: Problem, target: tuple[int, int],
                variants: int) -> Plan | None:
    """:func:`~.plans.build_plan` of a chain-feasible assignment, remembered for the
    ``ld/st.shared``-only ones: their construction and exact counts depend on the sides'
    thread columns and register spans, not on the order of the register columns
    (:attr:`~.plans.Problem.signature`), so the searches of ``lowering="triton"``'s chunk
    orders (:func:`~.lowered.chunk_orders`) share them. The key holds the segment-search
    budget left, and a remembered construction charges the nodes it took, so the search
    goes on exactly as if it had been built again."""
    if any(o.geometry is not None for o in assignment):
        return build_plan(assignment, problem, target=target, max_variants=variants,
                          feasible=True)
    # an ld/st.shared option is these fields (its instruction, geometry, prefix and
    # constraints are those of every ld/st.shared option): cheaper to hash than the option
    key = (problem.signature_id, problem.node_limit - problem.nodes_spent,
           tuple([(o.side, o.vector_log2, o.instructions_per_warp, o.phases, o.bound_exponent)
                  for o in assignment]), target, variants)
    got = _BUILT.get(key)
    if got is not None:
        _BUILT.move_to_end(key)
        problem.nodes_spent += got[1]
        return got[0]
    before = problem.nodes_spent
    plan = build_plan(assignment, problem, target=target, max_variants=variants,
                      feasible=True)
    _BUILT[key] = (plan, problem.nodes_spent - before)
    if len(_BUILT) > BUILT_SIZE:
        _BUILT.popitem(last=False)
    return plan


#: How many access assignments :func:`_raised_bound` examines at most.
MAX_RAISE = 1024


def _raised_bound(options: Sequence[Sequence[SideOption]], problem: Problem,
                  bound: _Bound, cache: dict[tuple[int, int, int, int], int],
                  ordered: Iterable[tuple[tuple[int, int], tuple[SideOption, ...]]] | None = None
                  ) -> _Bound:
    """``bound`` raised to the least paired floor over every assignment a layout can give
    (``bound`` itself when that is not higher).

    Every layout gives each side one access — its ``ld/st.shared`` vector is the widest the
    layout admits, counted exactly, or the matrix instruction the plan counts it with — and
    that assignment passes :func:`~.plans.chain_dims_ok`. Given the assignment, each
    ``ld/st.shared`` side costs at least its instructions times phases times
    ``2^e`` with ``e`` the largest :func:`~.options.paired_exponent` beside every other
    ``ld/st.shared`` side (:func:`_paired_floor`). The least of those keys over every
    assignment is therefore a lower bound on every layout's key. The assignments are taken
    in increasing ideal key (the paired floor is at least the ideal) until the ideal reaches
    the least floor found — then it is exact — or :data:`MAX_RAISE` were examined (the
    bound is then the lesser of that floor and the next ideal). ``cache``: :func:`_paired`'s
    exponents; ``ordered``: those assignments in that order, when the caller has drawn them
    already (:class:`_Replayed`).
    """
    weights, objective = problem.weights, problem.objective
    low: tuple[tuple[int, int], tuple[SideOption, ...]] | None = None
    paired = True  # whether low's assignment is one whose paired floor it is
    if ordered is None:
        ordered = _assignments(options, weights, objective)
    for n, (key, assignment) in enumerate(ordered):
        if low is not None and key >= low[0]:
            break
        if n >= MAX_RAISE:  # nothing unexamined costs less than its ideal
            low, paired = (key, assignment), False
            break
        if not chain_dims_ok(assignment, problem):
            continue
        found = _paired_key(assignment, problem, cache)  # the raised options: for the least
        if low is None or found < low[0]:
            low = (found, assignment)
    if low is None or low[0] <= bound.key:
        return bound
    raised = _paired_floor(low[1], problem, cache)[1] if paired else low[1]
    return bound._replace(key=low[0], method="paired", assignment=raised)


def _paired_floor(assignment: Sequence[SideOption], problem: Problem,
                  cache: dict[tuple[int, int, int, int], int]
                  ) -> tuple[tuple[int, int], tuple[SideOption, ...]]:
    """The least key of any layout giving the sides exactly ``assignment``'s accesses, and
    the assignment with each ``ld/st.shared`` side's ``bound_exponent`` raised to its
    :func:`~.options.paired_exponent` beside each other ``ld/st.shared`` side (the largest;
    each pairing is a proof of its own). ``cache``: the exponents by (side, vector, other
    side, other vector)."""
    raised = []
    for o, e in zip(assignment, _paired_exponents(assignment, problem, cache)):
        if e != o.bound_exponent:
            o = dataclasses.replace(o, bound_exponent=e)
        raised.append(o)
    return _paired_key(assignment, problem, cache), tuple(raised)


def _paired_exponents(assignment: Sequence[SideOption], problem: Problem,
                      cache: dict[tuple[int, int, int, int], int]) -> list[int]:
    """Each side's exponent in :func:`_paired_floor` (its ``bound_exponent`` raised by every
    pairing)."""
    out = []
    for o in assignment:
        e = o.bound_exponent
        for other in assignment:
            if other is not o:
                p = _paired(o, other, problem, cache)
                if p > e:
                    e = p
        out.append(e)
    return out


def _paired_key(assignment: Sequence[SideOption], problem: Problem,
                cache: dict[tuple[int, int, int, int], int]) -> tuple[int, int]:
    """The key of :func:`_paired_floor` alone (no raised options built)."""
    w = n = 0
    weights = problem.weights
    for o, e in zip(assignment, _paired_exponents(assignment, problem, cache)):
        wt = weights[o.side]
        w += wt * (o.instructions_per_warp * o.phases << e)
        n += wt * o.instructions_per_warp
    return problem.objective.key(w, n)


def _paired(option: SideOption, other: SideOption, problem: Problem,
            cache: dict[tuple[int, int, int, int], int]) -> int:
    """:func:`~.options.paired_exponent` of two ``ld/st.shared`` options (cached in
    ``cache``); the option's own ``bound_exponent`` when either is a matrix instruction or
    the other vector is no longer than this side's bank word (then the pairing adds
    nothing)."""
    if option.geometry is not None or other.geometry is not None or \
            other.vector_log2 <= max(option.vector_log2, problem.model.within_word_bits):
        return option.bound_exponent
    key = (option.side, option.vector_log2, other.side, other.vector_log2)
    e = cache.get(key)
    if e is None:
        sides = problem.sides
        e = cache[key] = paired_exponent(option, other, sides[option.side], sides[other.side],
                                         problem.model, problem.d)
    return e


def _floor(assignment: Sequence[SideOption], problem: Problem,
           cache: dict[tuple[int, int, int, int], int] | None = None,
           options: Sequence[Sequence[SideOption]] | None = None,
           wide: dict | None = None) -> tuple[int, int] | None:
    """A key no plan :func:`~.plans.build_plan` makes for a two-side ``ld/st.shared``
    assignment can beat (None: not derived — a matrix option, equal vectors, or more sides
    without ``wide``). ``cache``: :func:`_paired`'s exponents, shared by the assignments of
    one search; ``options``: the search's options (their ``ld/st.shared`` ones are every
    such access of a side, whenever the side has any), else each side's are derived here;
    ``wide``: with three or more sides, the floor is :func:`_wide_floor`'s (``wide`` its
    memo, shared by the assignments of one search).

    A plan gives each side at least its assigned vector (its prefix lies in the side's
    register span and its complement is aligned) and the count takes the widest the layout
    allows, so the plan's accesses are some ``(k₀′ ≥ k₀, k₁′ ≥ k₁)`` that
    :func:`~.plans.chain_dims_ok` admits; for each, the exact instruction and phase counts
    and :func:`~.options.paired_exponent` of both sides bound its cost. The floor is the
    least of those keys."""
    if wide is not None and len(assignment) > 2 and options is not None:
        return _wide_floor(assignment, problem, cache if cache is not None else {}, options,
                           wide)
    if len(assignment) != 2 or len(problem.sides) != 2 or \
            any(o.geometry is not None for o in assignment) or \
            assignment[0].vector_log2 == assignment[1].vector_log2:
        return None
    sides, model, d = problem.sides, problem.model, problem.d
    # every ld/st.shared access of each side at least as wide as assigned (the count takes
    # the widest the layout allows, whatever options the caller asked for)
    every = [side_options(x.side, sides[x.side], problem.regs[x.side], model, d)
             if options is None else [o for o in options[x.side] if o.geometry is None]
             for x in assignment]
    wider = [[o for o in opts if o.vector_log2 >= x.vector_log2]
             for opts, x in zip(every, assignment)]
    weights, objective = problem.weights, problem.objective
    cache = {} if cache is None else cache
    floor: tuple[int, int] | None = None
    for x in wider[0]:
        for y in wider[1]:
            pair = (x, y)
            if not chain_dims_ok(pair, problem):
                continue
            w = n = 0
            for o, other in ((x, y), (y, x)):
                wt = weights[o.side]
                e = _paired(o, other, problem, cache)
                w += wt * (o.instructions_per_warp * o.phases << e)
                n += wt * o.instructions_per_warp
            key = objective.key(w, n)
            if floor is None or key < floor:
                floor = key
    return floor


def _wide_floor(assignment: Sequence[SideOption], problem: Problem,
                cache: dict[tuple[int, int, int, int], int],
                options: Sequence[Sequence[SideOption]], memo: dict) -> tuple[int, int] | None:
    """:func:`_floor` of an ``ld/st.shared`` assignment of three or more sides (None when a
    side has a matrix option or no ``ld/st.shared`` option).

    The same argument as for two sides: the plan gives every side at least its assigned
    vector, so its accesses are some assignment at least as wide on every side that
    :func:`~.plans.chain_dims_ok` admits, and each such assignment costs at least its
    :func:`_paired_floor` (every ``ld/st.shared`` side beside each other one). The floor is
    the least of those keys, over the lattice of wider assignments: the least at an
    assignment is the lesser of its own (when admitted) and the least at each one-step
    wider assignment — each computed once per search (``memo``). None too when the
    assignment's own paired floor is its ideal key: the floor is then at most that key, and
    proves nothing."""
    for o in assignment:
        if o.geometry is not None:  # a matrix option
            return None
    if _paired_key(assignment, problem, cache) <= _ideal(assignment, problem.weights,
                                                         problem.objective):
        return None
    lists = memo.get("lists")
    if lists is None:
        lists = memo["lists"] = [sorted((o for o in opts if not o.is_matrix),
                                        key=lambda o: o.vector_log2) for opts in options]
    if not all(lists):
        return None
    start = []
    for x, opts in zip(assignment, lists):
        i = next((i for i, o in enumerate(opts) if o.vector_log2 >= x.vector_log2), None)
        if i is None:
            return None
        start.append(i)
    floors: dict[tuple[int, ...], tuple[int, int] | None] = memo.setdefault("floors", {})

    def least(idx: tuple[int, ...]) -> tuple[int, int] | None:
        if idx in floors:
            return floors[idx]
        pick = tuple(opts[i] for opts, i in zip(lists, idx))
        out = _paired_key(pick, problem, cache) if chain_dims_ok(pick, problem) else None
        for s, i in enumerate(idx):
            if i + 1 < len(lists[s]):
                got = least(idx[:s] + (i + 1,) + idx[s + 1:])
                if got is not None and (out is None or got < out):
                    out = got
        floors[idx] = out
        return out

    return least(tuple(start))


class _Fallback:
    """The layouts :func:`_fallbacks` compares the search's plan with that do not depend on
    the search — the widest common vector's construction and the simple layouts — each
    computed at most once per synthesis, so that the search can use their key
    (:meth:`incumbent`) before :func:`_fallbacks` runs.

    ``prune``: whether :func:`_search` may leave constructions unbuilt (and floors derived
    for three or more sides); ``since``: the nodes spent when it first left the order of
    constructions of the unpruned search (None: never)."""

    def __init__(self, store: LinearLayout, options: Sequence[Sequence[SideOption]],
                 problem: Problem, prune: bool) -> None:
        self.store, self.options, self.problem, self.prune = store, options, problem, prune
        self.since: int | None = None
        self._common: list[Plan | None] = []
        self._alternative: list[Plan | None] = []

    def left_order(self, problem: Problem) -> None:
        """Record that the constructions no longer follow the unpruned search's order."""
        if self.since is None:
            self.since = problem.nodes_spent

    def common(self) -> Plan | None:
        """The construction for the widest vector every side shares (None when a side has
        no ``ld/st.shared`` option or none is built)."""
        if not self._common:
            plain = [[o for o in opts if not o.is_matrix] for opts in self.options]
            found = None
            if all(plain):
                for k in range(min(o[0].vector_log2 for o in plain), -1, -1):
                    found = build_plan([next(o for o in opts if o.vector_log2 == k)
                                        for opts in plain], self.problem, max_variants=1)
                    if found is not None:
                        break
            self._common.append(found)
        return self._common[0]

    def alternatives(self, beat: tuple[int, int] | None) -> Plan | None:
        """:func:`_alternatives` with ``beat`` — or, when :meth:`incumbent` has counted them
        already (with the common construction's key as ``beat``), that answer: it is the
        cheapest simple layout whenever that costs less than the common construction, and
        else costs no less than it, so the candidates' first cheapest is the same."""
        if self._alternative:
            return self._alternative[0]
        return _alternatives(self.store, self.options, self.problem, beat)

    def incumbent(self) -> tuple[int, int] | None:
        """The least key of the common construction and the simple layouts (None when there
        is neither). Building them now leaves the unpruned search's order
        (:meth:`left_order`)."""
        self.left_order(self.problem)
        common = self.common()
        beat = None if common is None else _key(common, self.problem)
        alt = _alternatives(self.store, self.options, self.problem, beat)
        self._alternative.append(alt)
        keys = [k for k in (beat, None if alt is None else _key(alt, self.problem))
                if k is not None]
        return min(keys, default=None)


def _fallbacks(plan: Plan | None, options: Sequence[Sequence[SideOption]], problem: Problem,
               notes: list[str], fallback: _Fallback) -> Plan | None:
    """When the search missed its bound: the cheapest of its plan, the ``ld/st.shared``-only
    search (matrix options may have used up the budget), the widest common vector (the Linear
    Layouts paper's objective) and the simple layouts (:func:`_alternatives`) — so the result
    never costs more than any of them (the first of the cheapest wins). ``fallback``: the
    last two (:class:`_Fallback`)."""
    plain = [[o for o in opts if not o.is_matrix] for opts in options]
    candidates: list[Plan] = [] if plan is None else [plan]
    if all(plain) and plain != [list(o) for o in options]:
        alone, _ = _search(plain, problem, prove=False)
        if alone is not None:
            candidates.append(alone)
    common = fallback.common()
    if common is not None:
        candidates.append(common)
    beat = min((_key(c, problem) for c in candidates), default=None)
    alt = fallback.alternatives(beat)
    if alt is not None:
        candidates.append(alt)
    if not candidates:
        return None
    best = min(candidates, key=lambda c: _key(c, problem))
    if best.source != "construction":
        notes.append(f"the {best.source} layout costs less than every constructed one and is "
                     "returned")
    return best


def _pinned_plan(pinned: list[int], options: Sequence[Sequence[SideOption]],
                 problem: Problem) -> tuple[Plan | None, _Bound]:
    """The best plan whose first offset bits are ``pinned``: each side takes the widest
    ``ld/st.shared`` vector the pinned prefix gives it."""
    assignment = []
    for opts, r in zip(options, problem.regs):
        k = 0
        while k < len(pinned) and f2.reduce(pinned[k], r) == 0:
            k += 1
        plain = [o for o in opts if not o.is_matrix]
        if not plain:
            raise LayoutError("fixed= pins the first offsets; it cannot be combined with "
                              "matrix instructions")
        fits = [o for o in plain if o.vector_log2 <= k]
        assignment.append(max(fits, key=lambda o: o.vector_log2) if fits else plain[-1])
    plan = build_plan(assignment, problem, prefix=pinned)
    if plan is None:
        raise LayoutError("no layout starting with the pinned offsets keeps every thread's "
                          "vector aligned; pin other directions")
    return plan, _Bound(_ideal(assignment, problem.weights, problem.objective), "pinned",
                        tuple(assignment))


def _fixed_tma(mode: str, store: LinearLayout, options: Sequence[Sequence[SideOption]],
               problem: Problem) -> tuple[Plan, _Bound]:
    """The cheapest layout TMA writes with ``mode``, by counting every candidate."""
    from .. import ptx  # imported only when a TMA mode is fixed

    model = problem.model
    cands = ptx.tma_layouts(mode, store.out_dims, model.element_bits)
    if not cands:
        raise LayoutError(
            f"TMA cannot write a tile of shape {list(store.out_dims.values())} with "
            f"{model.element_bits}-bit elements in mode {shown(mode)} (no box fits); try another mode"
        )
    best: Plan | None = None
    for _, mem in cands:
        cols = list(memory_columns(mem, store.out_dim_names)[0])
        plan = _count(cols, options, problem, f"TMA {mode}")
        if plan is not None and (best is None or _key(plan, problem) < _key(best, problem)):
            best = plan
    if best is None:
        raise LayoutError(f"no layout TMA writes in mode {shown(mode)} serves the requested "
                          "instructions (a matrix instruction needs its 16-byte rows)")
    return best, _Bound(_key(best, problem), "exhaustive", best.assignment,
                        candidates=len(cands))


def _count(cols: Sequence[int], options: Sequence[Sequence[SideOption]], problem: Problem,
           source: str, inv: Sequence[int] | None = None) -> Plan | None:
    """A given layout as a plan: each side's cheapest allowed access on it (None when a side
    has no allowed access the layout serves); ``inv``: its inverse columns, when known."""
    model, d, key = problem.model, problem.d, problem.objective.key
    if inv is None:
        inv = f2.inverse(cols)
    shared = shared_counts()  # the counts a lowered synthesis's searches share, if any
    if shared is not None:
        cols = tuple(cols)
    reports, chosen = [], []
    for index, (opts, side, reg) in enumerate(zip(options, problem.sides, problem.regs)):
        best = None
        if any(not o.is_matrix for o in opts):
            if shared is None:
                rep = side_report(cols, inv, side, reg, model, d, False, load=index > 0)
            else:
                at = ("plain", cols, side.lane, side.warp, side.block, reg, index > 0)
                rep = shared.get(at)
                if rep is None:
                    rep = shared[at] = side_report(cols, inv, side, reg, model, d, False,
                                                   load=index > 0)
            plain = next(o for o in opts if not o.is_matrix)
            best = (key(rep.wavefronts_per_warp, rep.instructions_per_warp), rep, plain)
        for o in opts:
            if not o.is_matrix:
                continue
            if tuple(cols[:len(o.prefix)]) != o.prefix:
                # check_memory's first rule: the layout's first offset bits hold the row's
                # directions in order (its inverse takes them to 1, 2, 4, …)
                continue
            if shared is None:
                try:
                    rep = matrix_report(o, inv, side, model, False)
                except LayoutError:
                    continue
            else:
                at = ("matrix", cols, o.instruction, o.geometry, side.register, side.lane,
                      side.warp)
                rep = shared.get(at)
                if rep is None:
                    try:
                        rep = shared[at] = matrix_report(o, inv, side, model, False)
                    except LayoutError:
                        rep = shared[at] = False  # the layout does not serve it
                if rep is False:
                    continue
            k = key(rep.wavefronts_per_warp, rep.instructions_per_warp)
            if best is None or k < best[0]:
                best = (k, rep, o)
        if best is None:
            return None
        reports.append(best[1])
        chosen.append(best[2])
    return Plan(tuple(cols), tuple(reports), tuple(chosen), True, source)


def _alternatives(store: LinearLayout, options: Sequence[Sequence[SideOption]],
                  problem: Problem, beat: tuple[int, int] | None = None) -> Plan | None:
    """The cheapest of the simple layouts: row-major in every dimension order (all orders up
    to rank 3; both directions beyond) and every TMA mode's layouts (built once per tile
    shape and element width: :func:`_simple_layouts`). A layout is counted only when its
    lower bound (:func:`_lower_key`) is below ``beat`` (a key to beat, if any) and below the
    best simple layout so far: the others cannot be cheaper."""
    best: Plan | None = None
    best_key: tuple[int, int] | None = None
    dims = tuple((n, 1 << bits) for n, bits in store.out_dims_log2)
    # _lower_key reads only a layout's first offset bits (the widest vector, a matrix row):
    # the simple layouts share them often, so each distinct lead is bounded once
    lead = min(problem.d, max([problem.model.max_vector_log2] +
                              [len(o.prefix) for opts in options for o in opts if o.is_matrix]))
    floors: dict[tuple[int, ...], tuple[int, int] | None] = {}
    for simple in _simple_layouts(dims, problem.model.element_bits):
        limit = best_key if beat is None or (best_key is not None and best_key < beat) else beat
        if limit is not None:
            at = simple.lead(lead)
            if at in floors:
                floor = floors[at]
            else:
                floor = floors[at] = _lower_key(at, options, problem)
            if floor is not None and floor >= limit:
                continue
        plan = _count(simple.cols(), options, problem, simple.source, simple.inv)
        if plan is not None:
            key = _key(plan, problem)
            if best_key is None or key < best_key:
                best, best_key = plan, key
    return best


def _lower_key(cols: Sequence[int], options: Sequence[Sequence[SideOption]],
               problem: Problem) -> tuple[int, int] | None:
    """A lower bound on the key :func:`_count` gives a layout, from its first columns alone
    (None when there is none to give): ``cols`` may stop after the first
    ``min(d, max(max_vector_log2, longest matrix row))`` columns.

    An ``ld/st.shared`` side vectorises by at most the widest vector its registers back
    (:func:`~linlayout.hardware.access.widest_vector_log2`); with ``k`` elements it costs
    exactly its option's instructions and at least its option's wavefronts, so it costs at
    least the cheapest option of a vector up to that width; a matrix side at least its
    option's bound, for the options whose row the layout's first offset bits hold (the others
    it cannot serve: :func:`_count` skips them). The sum of the sides' cheapest keys is the least total key (a side's
    cheapest first component is needed for the least sum of first components).
    """
    objective, model, d = problem.objective, problem.model, problem.d
    shared = shared_counts()  # the counts a lowered synthesis's searches share, if any
    total_a = total_b = 0
    for opts, reg, wt in zip(options, problem.regs, problem.weights):
        # a matrix option counts only where the layout's first offset bits are its row
        # (else _count does not use it)
        cands = [o for o in opts if o.is_matrix and tuple(cols[:len(o.prefix)]) == o.prefix]
        plain = [o for o in opts if not o.is_matrix]
        if plain:
            if shared is None:
                k = widest_vector_log2(cols, d, reg, model)
            else:
                at = ("widest", tuple(cols), reg)
                k = shared.get(at)
                if k is None:
                    k = shared[at] = widest_vector_log2(cols, d, reg, model)
            if k > max(o.vector_log2 for o in plain):  # a vector no option describes
                return None
            cands += [o for o in plain if o.vector_log2 <= k]
        if not cands:
            return None
        a, b = min(objective.key(o.wavefronts_bound, o.instructions_per_warp) for o in cands)
        total_a += wt * a
        total_b += wt * b
    return total_a, total_b


class _Simple:
    """One layout :func:`_alternatives` counts, known by its inverse columns (the offset of
    each tensor bit: what TMA's address rule gives); its columns are derived only as far as
    they are read (:meth:`lead`, :meth:`cols`): most layouts are ruled out by their first
    ones."""

    __slots__ = ("source", "inv", "_cols")

    def __init__(self, source: str, inv: tuple[int, ...],
                 cols: tuple[int, ...] | None = None) -> None:
        self.source, self.inv, self._cols = source, inv, cols

    def cols(self) -> tuple[int, ...]:
        """The layout's columns (the tensor coordinate of each offset bit)."""
        if self._cols is None:
            self._cols = tuple(f2.inverse(self.inv))
        return self._cols

    def lead(self, n: int) -> tuple[int, ...]:
        """The first ``n`` columns. Where offset ``2^j`` is the offset of one tensor bit (a
        row-major order; a TMA layout below its 16-byte swizzle unit) column ``j`` is that
        bit, found without the inverse."""
        if self._cols is None:
            try:
                index = self.inv.index
                return tuple([1 << index(1 << j) for j in range(n)])
            except ValueError:  # an offset that no single tensor bit has: invert
                pass
        return self.cols()[:n]


@memoize(64)
def _simple_layouts(dims: tuple[tuple[str, int], ...], element_bits: int
                    ) -> tuple[_Simple, ...]:
    """The layouts :func:`_alternatives` counts for a tile of out dims ``dims`` (name, size;
    the store's order), row-major orders first, then every TMA mode's layouts
    (:data:`linlayout.ptx.MATCH_ORDER`). They depend only on the shape and the element
    width, so they are built once per pair of them."""
    from .. import ptx
    from ..ptx.tma import tma_offset_columns

    names = tuple(n for n, _ in dims)
    sizes = [size.bit_length() - 1 for _, size in dims]
    orders = (list(itertools.permutations(range(len(names)))) if len(names) <= 3 else
              [tuple(range(len(names))), tuple(reversed(range(len(names))))])
    shifts = [0]
    for b in sizes:
        shifts.append(shifts[-1] + b)
    out: list[_Simple] = []
    for order in orders:  # order[0] is the fastest-varying dim
        cols = tuple(1 << (shifts[dim] + i) for dim in order for i in range(sizes[dim]))
        inv = [0] * len(cols)  # a permutation of unit vectors: its inverse at once
        for i, c in enumerate(cols):
            inv[c.bit_length() - 1] = 1 << i
        out.append(_Simple("row-major", tuple(inv), cols))
    for mode in ptx.MATCH_ORDER:
        # the offset of each tensor bit, straight from TMA's address rule (no layout built)
        for _, offsets in tma_offset_columns(mode, dict(dims), element_bits):
            out.append(_Simple(f"TMA {mode.value}", offsets))
    return tuple(out)


# ------------------------------------------------------------------------------ the result
def _result(plan: Plan, bound: _Bound, store: LinearLayout,
            options: Sequence[Sequence[SideOption]], problem: Problem,
            weights: tuple[int, ...], counted: tuple[bool, ...],
            notes: tuple[str, ...], key: tuple[int, int] | None = None) -> SwizzleResult:
    """The plan as a :class:`SwizzleResult`: the layout with in dims ``vector, bank,
    segment``, the bound and the optimality claim. ``key``: the plan's key under
    ``problem``'s weights and objective when the caller has it (None: worked out here)."""
    model, d, objective = problem.model, problem.d, problem.objective
    if list(map(_degree, plan.reports)).count(1) != len(plan.reports):  # some side conflicts
        plan = with_conflict_offsets(plan, problem)
    eff = problem.weights
    row = min(model.seg_lo, d)
    nseg = d - row
    plain = [rep.vector_elems for rep in plan.reports if rep.instruction == DEFAULT]
    nvec = min((min(plain) if plain else plan.reports[0].vector_elems).bit_length() - 1, row)
    layout = LinearLayout.unchecked(
        (("vector", nvec), ("bank", row - nvec), ("segment", nseg)), store.out_dims_log2,
        plan.cols)
    names = ("store", "load") if len(options) == 2 else \
        ["store"] + [f"load {i}" for i in range(len(options) - 1)]
    side_bounds = []
    assignment = bound.assignment or plan.assignment
    # the frozen dataclasses below are filled without their per-field __setattr__ calls
    for name, best, rep in zip(names, assignment, plan.reports):
        side = _new(SideBound)
        side.__dict__.update(
            side=name, instruction=best.instruction.name, vector_elems=1 << best.vector_log2,
            degree=1 << best.bound_exponent, wavefronts_per_warp=best.wavefronts_bound,
            instructions_per_warp=best.instructions_per_warp,
            wavefront_floor=rep.wavefront_floor)
        side_bounds.append(side)
    if key is None:
        key = plan_key(plan, eff, objective)
    w_bound, i_bound = objective.totals(bound.key)
    reached = key == bound.key
    ob = _new(OptimalityBound)
    ob.__dict__.update(
        objective=objective.name, weights=weights, sides=tuple(side_bounds),
        wavefronts_per_warp=w_bound, instructions_per_warp=i_bound, reached=reached,
        method=bound.method, candidates=bound.candidates, infeasible=bound.infeasible)
    result = _new(SwizzleResult)
    result.__dict__.update(
        _RESULT_DEFAULTS, layout=layout, vector_elems=1 << nvec, store=plan.reports[0],
        loads=tuple(plan.reports[1:]), optimal=reached and plan.proven, bound=ob,
        element_bits=model.element_bits, objective=objective.name, weights=weights, notes=notes,
        counted=counted)
    return result


_new = object.__new__
#: A report's conflict degree (read at C speed).
_degree = attrgetter("degree")
#: The fields of :class:`SwizzleResult` with defaults, with them (:func:`_result` sets the
#: others).
_RESULT_DEFAULTS = {f.name: f.default for f in dataclasses.fields(SwizzleResult)
                    if f.default is not dataclasses.MISSING}


# ------------------------------------------------------------------------ lowered synthesis
def _lowered_candidates(transfer: Transfer, objective: Objective, target: Target,
                        node_limit: int
                        ) -> tuple[list[LinearLayout], SwizzleResult, list[SwizzleResult]]:
    """Hardware optima to cost under the lowering — plain accesses, the matrix instructions
    the target has (:func:`~.lowered.matrix_requests`), the common-vector layout, Triton's
    own scratch — the plain hardware result, and :func:`_matrix_searches` on the given
    register order."""
    plain = synthesize_transfer(transfer, objective, node_limit=node_limit)
    layouts = [plain.layout]
    matrix = _matrix_searches([transfer], objective, target, node_limit)
    for res in matrix:
        if res.layout not in layouts:
            layouts.append(res.layout)
    common = common_vector(transfer, node_limit=node_limit)
    if common not in layouts:
        layouts.append(common)
    for load in transfer.loads:  # Triton's own convert scratch, as a whole-tile layout
        theirs = _triton_scratch(transfer.store, load, transfer, target)
        if theirs is not None and theirs not in layouts:
            layouts.append(theirs)
    return _rebased(layouts, transfer), plain, matrix


def _matrix_searches(orders: Sequence[Transfer], objective: Objective, target: Target,
                     node_limit: int) -> list[SwizzleResult]:
    """The hardware search with the target's matrix instructions on each register order
    (:func:`~.lowered.chunk_orders`); none when the target has none."""
    requests = matrix_requests(orders[0], target)
    out = []
    if requests is None:
        return out
    for tr in orders:
        try:
            out.append(synthesize_transfer(tr, objective, instructions=requests,
                                           node_limit=node_limit))
        except LayoutError:
            continue
    return out


def _rebased(layouts: list[LinearLayout], transfer: Transfer) -> list[LinearLayout]:
    """``layouts`` followed by their register-first re-basings (:func:`_registers_first`)
    on every side."""
    max_k = max(0, (128 // max(8, transfer.element_bits)).bit_length() - 1)
    out = list(layouts)
    for layout in layouts:
        for side in transfer.sides:
            rebased = _registers_first(layout, side.register, max_k)
            if rebased is not None and rebased not in out:
                out.append(rebased)
    return out


def _cheapest(layouts: Sequence[LinearLayout], transfer: Transfer, objective: Objective,
              target: Target) -> tuple[tuple[int, int], LinearLayout, tuple] | None:
    """The first of ``layouts`` that costs least as Triton lowers it, with its key and
    sides (None when Triton lowers none of them)."""
    best = None
    for layout in layouts:
        try:
            sides = lower_sides(layout, transfer, target)
        except LayoutError:
            continue
        key = objective.key(*transfer.totals(s.report for s in sides))
        if best is None or key < best[0]:
            best = (key, layout, sides)
    return best


def _triton_scratch(store: LinearLayout, load: LinearLayout, transfer: Transfer,
                    target: Target) -> LinearLayout | None:
    """The scratch layout Triton 3.9 would build to convert ``store`` into ``load``
    (:func:`~linlayout.lowering.triton_scratch_layout`), its ``reps`` rounds laid out one
    after the other as the top offset bits: a whole-tile layout; None when Triton builds
    none for the pair."""
    try:
        plan = triton_scratch_layout(
            store, load.transpose_outs(store.out_dim_names), max(8, transfer.element_bits),
            **target.scratch_options())
    except LayoutError:
        return None
    dims = plan.memory.in_dims
    in_dims = {"vector": dims.get("vector", 1), "bank": dims.get("bank", 1),
               "segment": dims.get("segment", 1) * dims.get("reps", 1)}
    return LinearLayout.from_columns(plan.memory.columns, in_dims, plan.memory.out_dims)


def _registers_first(layout: LinearLayout, registers: Sequence[int], max_k: int
                     ) -> LinearLayout | None:
    """``layout`` with its lowest offsets re-based onto one side's register images.

    The lowest ``k`` offset bits of ``layout`` span a subspace ``W`` inside the side's
    register span; any basis of ``W`` moves the same elements in every aligned block of
    ``2^k`` offsets. Triton's ``largestVectorisation`` vectorises only when *single*
    registers land on offsets ``1, 2, …, 2^(k-1)``, so choosing the register images as that
    basis lets Triton emit the vector the hardware model counts (other sides' banks may
    change: the caller recounts). None when nothing changes.
    """
    cols = list(layout.columns)
    regs = f2.echelon(r for r in registers if r)
    k = 0
    while k < min(max_k, len(cols)) and f2.in_span(cols[k], regs):
        k += 1
    if k == 0:
        return None
    span = f2.echelon(cols[:k])
    basis: list[int] = []
    for r in registers:
        if r and f2.in_span(r, span) and not f2.in_span(r, basis):
            basis.append(r)
    if len(basis) != k or basis == cols[:k]:
        return None
    return LinearLayout.from_columns(basis + cols[k:], layout.in_dims, layout.out_dims)


def _lowered_search(transfer: Transfer, objective: Objective, t: Target, node_limit: int
                    ) -> tuple[tuple[tuple[int, int], LinearLayout, tuple] | None,
                               OptimalityBound, SwizzleResult]:
    """The search of :func:`synthesize_lowered`: the cheapest candidate as Triton lowers it
    (:func:`_cheapest`'s answer, None when Triton lowers none), the bound, and the plain
    hardware result."""
    layouts, plain, first = _lowered_candidates(transfer, objective, t, node_limit)
    best = _cheapest(layouts, transfer, objective, t)
    relaxed = relaxed_bound(transfer, objective, t)
    loose = objective.key(relaxed.wavefronts_per_warp, relaxed.instructions_per_warp)
    bound = relaxed if matrix_requests(transfer, t) is not None else plain.bound
    if best is None or best[0] > loose:
        # not proven yet: search every 32-bit lane chunk Triton may pick for a matrix
        # instruction; the least of those searches' bounds covers them all
        orders, complete = chunk_orders(transfer, t)  # the given order first: searched
        searched = first + (_matrix_searches(orders[1:], objective, t, node_limit)
                            if len(orders) > 1 else [])
        more = [r.layout for r in searched[1:] if r.layout not in layouts]
        extra = _cheapest([x for x in _rebased(more, transfer) if x not in layouts],
                          transfer, objective, t)
        if extra is not None and (best is None or extra[0] < best[0]):
            best = extra
        if searched and complete and len(searched) == len(orders):
            bound = min((r.bound for r in searched), key=lambda b: objective.key(
                b.wavefronts_per_warp, b.instructions_per_warp))
    return best, bound, plain


def synthesize_lowered(transfer: Transfer, objective: Objective, *,
                       target: str | Target | None = None,
                       node_limit: int = 200_000) -> SwizzleResult:
    """The layout that costs least when Triton 3.9 lowers both sides through it
    (``synthesize_swizzle(..., lowering="triton")``): the cheapest, under
    :func:`~.lowered.lower_sides`, of the hardware optimum, the optima with the target's
    matrix instructions allowed (one search per 32-bit lane chunk Triton may pick,
    :func:`~.lowered.chunk_orders`), the common-vector layout, Triton's own convert scratch
    and their register-first re-basings; proven optimal when its cost reaches a lower bound
    on every ``ld/st.shared`` vector and matrix instruction Triton can pick: the least of
    the searches' bounds (every chunk searched), or else the per-side bound
    (:func:`~.lowered.relaxed_bound`).

    Args:
        transfer: the store, its loads, element width, hardware and weights.
        objective: what is minimised (wavefronts then instructions, or the other order).
        target: the compilation target (``"cuda:90"``, ``"hip:gfx942"``, …); default the
            hardware preset's (:func:`~linlayout.lowering.target.default_target`).
        node_limit: as :func:`~linlayout.synthesize_swizzle`.

    Returns:
        A :class:`~linlayout.SwizzleResult` whose ``store``/``loads`` are the reports at the
        instructions Triton emits (``instruction``, ``vector_elems`` as Triton picks them),
        ``lowering="triton"`` and ``target`` set, its ``bound`` that lower bound (the
        target's matrix instructions allowed: ``ldmatrix`` on sm_75+, ``stmatrix`` on
        sm_90+; plain accesses elsewhere), and ``optimal`` True when the lowered cost
        reaches it.

    Raises:
        LayoutError: as :func:`~linlayout.synthesize_swizzle`; an unknown target or one that
            does not match the hardware model; ``transfer`` not a Transfer or ``objective``
            not an Objective.
    """
    instance_of(transfer, Transfer, "transfer")
    instance_of(objective, Objective, "objective")
    t = resolve_target(target, transfer)
    with sharing_counts():  # the searches below count the same simple layouts
        best, bound, plain = _lowered_search(transfer, objective, t, node_limit)
    if best is None:
        raise LayoutError(f"no candidate layout can be lowered by Triton on {t.name}")
    key, layout, sides = best
    floor = objective.key(bound.wavefronts_per_warp, bound.instructions_per_warp)
    notes = [f"costed as Triton 3.9 lowers local_store/local_load through this layout on "
             f"{t.name}: " + "; ".join(f"{s.side} {s.emitted.opcode} x{s.emitted.per_thread}"
                                       for s in sides)]
    if key < floor:  # an access outside the bound's options (e.g. an AMD LDS grouping)
        notes.append("Triton picks an access the hardware model's bound does not cover here, "
                     "so optimality is not claimed")
    vector_bits = layout.in_dims.get("vector", 1).bit_length() - 1
    return replace(plain, layout=layout, vector_elems=1 << vector_bits,
                   store=sides[0].report, loads=tuple(s.report for s in sides[1:]),
                   optimal=key == floor, bound=replace(bound, reached=key == floor),
                   notes=tuple(notes), counted=(), lowering="triton", target=t.name)
