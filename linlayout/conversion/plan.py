"""``plan_conversion``: every way to convert a tensor between two distributed layouts, costed.

Three families of paths (the three ways Triton 3.9 lowers ``ttg.convert_layout``,
``ConvertLayoutOpToLLVM.cpp``):

* ``registers`` — each thread already holds what it needs: a register renaming, no
  instruction (:func:`~linlayout.conversion.shuffle.plan_registers`);
* ``shuffle`` — each warp already holds what it needs: the cheaper of two constructions,
  per-lane shuffle tables with packing and selects
  (:func:`~linlayout.conversion.shuffle.plan_shuffles`) and select–shuffle–select stages
  with run-time ``prmt`` byte selection, on gfx950 ``v_permlane*_swap``
  (:func:`~linlayout.conversion.stages.plan_stages`, Triton's own construction, built for
  any number of transpositions) and, for 8/16-bit elements, the packed exchange
  (:func:`~linlayout.conversion.exchange.plan_packed_exchange`: elements two to a word,
  whole words shuffled, lane-dependent byte permutes choosing halves; ``ds_bpermute_b32``
  and ``v_perm_b32`` on AMD; on gfx950 possibly after a ``v_permlane*_swap`` of register
  pairs, :class:`~linlayout.conversion.exchange.RegisterSwap`, or ending with one,
  :attr:`~linlayout.conversion.exchange.PackedExchangePlan.swaps_after`); against the
  family's bound
  (:func:`~linlayout.conversion.bounds.shuffle_family_bound`: shuffles from the bits and the
  lanes each lane lacks and, on NVIDIA, the selects and lane-dependent permutes, with more of
  them when the shuffles are at their minimum);
* ``shared_memory`` — a store, a barrier and a load through the optimal swizzled scratch
  layout of :func:`~linlayout.synthesize_swizzle`: the cheapest of plain ``ld/st.shared``,
  ``ldmatrix``/``stmatrix`` where the target has them (sm_75+ loads, sm_90+ stores), on
  AMD and for 8/16-bit elements Triton's own instruction choice (``lowering="triton"``:
  ``ds_read_tr`` on gfx950, its vectors), and Triton's own scratch layout; each priced with
  the byte permutes that pack 8/16-bit elements into its stores and out of its loads
  (:mod:`~linlayout.conversion.round_trip`, the same rule as Triton's path); against the
  least of their proven bounds (packing counted as free there) or, on AMD where 8/16-bit
  source elements sit one per register and on NVIDIA where 16-bit ones sit one to a 32-bit
  register (``wide_source``), the floor that makes a wide store pay its packing
  (:func:`~linlayout.conversion.round_trip.packing_floor`, ``stmatrix``/``ldmatrix`` among
  its options on NVIDIA), whichever is higher.

Instruction names are NVIDIA's PTX; on AMD a table shuffle is one ``ds_bpermute_b32`` per
32-bit word (the same count), a stage plan is counted as Triton emits it on the target (DPP,
``v_permlane*_swap``, ``ds_bpermute_b32``, ``v_cndmask_b32``, ``v_perm_b32``) and the
shared-memory path is costed on the AMD bank model.

Each feasible path gets its exact instruction counts under the plan's model, its cost under
the weights (:mod:`linlayout.conversion.cost`) and the least cost any path of its family can
have; the cheapest path is *provably optimal* (among these families, under these weights)
when no feasible family's bound is below its cost. The families contain Triton's own
constructions (its shuffle stages; its scratch layout and instructions), so the plan costs
no more than Triton's path wherever that is costed. Should Triton's path ever cost less, the plan
is not claimed optimal and the argument says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware import HardwareModel
from ..layout import LinearLayout
from ..lowering import Target
from ..lowering.amd_pack import source_words
from ..lowering.convert import check_source_load
from ..lowering.scratch import drop_broadcast_registers
from ..synthesis import SwizzleResult, synthesize_swizzle
from .cost import KINDS, path_cost, resolve_weights
from .exchange import PackedExchangePlan, plan_packed_exchange
from .execute import execute_plan
from .problem import ConversionProblem
from .round_trip import (ScratchRoundTrip, offset_layout, packing_floor, round_trip_packing,
                         side_emitted)
from .triton import TritonChoice, resolve_conversion_target, triton_choice
from .bounds import (amd_lone_shuffle_bound, amd_two_shuffle_bound, nvidia_lone_shuffle_bound,
                     shuffle_family_bound)
from .shuffle import (RegisterPlan, ShufflePlan, amd_packing_bound, plan_registers,
                      plan_shuffles, warp_map)
from .stages import StagePlan, plan_stages

__all__ = ["PATHS", "ConversionPlan", "PathPlan", "plan_conversion"]

#: The path families, cheapest in kind first.
PATHS = ("registers", "shuffle", "shared_memory")


@dataclass(frozen=True)
class PathPlan:
    """One path family's plan and cost.

    Attributes:
        path: one of :data:`PATHS`.
        feasible: a plan of this family was built.
        note: why the family does not apply, or what the plan does, in words.
        instructions: per-thread (= per-warp) count of each kind in
            :data:`~linlayout.conversion.cost.KINDS` (all zero when infeasible).
        wavefronts: shared-memory wavefronts per warp (store plus load).
        scratch_bytes: shared memory the path needs per CTA.
        barriers: ``bar.sync`` per conversion.
        cost: the weighted cost per warp (None when infeasible).
        bound: the least cost any plan of this family can have (None when the family cannot
            apply at all).
        bound_note: the argument for :attr:`bound`.
        plan: the :class:`~linlayout.conversion.shuffle.RegisterPlan`,
            :class:`~linlayout.conversion.shuffle.ShufflePlan`,
            :class:`~linlayout.conversion.stages.StagePlan`,
            :class:`~linlayout.conversion.exchange.PackedExchangePlan`,
            :class:`~linlayout.SwizzleResult` or
            :class:`~linlayout.conversion.round_trip.ScratchRoundTrip` (None when
            infeasible); a shared-memory plan has ``layout``, ``store`` and ``load``.
        method: which construction of the family :attr:`plan` is: ``"renaming"``;
            ``"tables"``, ``"stages"`` or ``"packed exchange"`` (shuffle);
            ``"ld/st.shared"``, ``"matrix"`` (``ldmatrix``/``stmatrix`` on some side), ``"triton"`` (Triton's instruction
            choice through the synthesized layout, ``lowering="triton"``; AMD, and 8/16-bit
            elements on NVIDIA) or ``"triton scratch"`` (Triton's own scratch layout and
            instructions: :attr:`plan` is then a
            :class:`~linlayout.conversion.round_trip.ScratchRoundTrip`) for shared memory;
            empty when infeasible.
    """

    path: str
    feasible: bool
    note: str
    instructions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    wavefronts: int = 0
    scratch_bytes: int = 0
    barriers: int = 0
    cost: float | None = None
    bound: float | None = None
    bound_note: str = ""
    plan: (RegisterPlan | ShufflePlan | StagePlan | PackedExchangePlan | SwizzleResult
           | ScratchRoundTrip | None) = None
    method: str = ""

    @property
    def meets_bound(self) -> bool:
        """The plan costs exactly its family's bound."""
        return self.feasible and self.bound is not None and self.cost <= self.bound + 1e-9

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field, with ``meets_bound``; ``plan`` is the register map or
        the shuffle or stage plan's summary (``to_dict()``), or None (shared memory: the
        layout is what ``linlayout synthesize`` prints)."""
        plan = self.plan.to_dict() if isinstance(
            self.plan, (RegisterPlan, ShufflePlan, StagePlan, PackedExchangePlan)) else None
        return {"path": self.path, "feasible": self.feasible, "note": self.note,
                "method": self.method, "plan": plan,
                "instructions": dict(self.instructions), "wavefronts": self.wavefronts,
                "scratch_bytes": self.scratch_bytes, "barriers": self.barriers,
                "cost": self.cost, "bound": self.bound, "meets_bound": self.meets_bound,
                "bound_note": self.bound_note}


@dataclass(frozen=True)
class ConversionPlan:
    """Every path of a conversion and the cheapest.

    Attributes:
        problem: the checked input.
        weights: the weights used (defaults with the overrides applied).
        paths: one :class:`PathPlan` per family, in :data:`PATHS` order.
        best: the cheapest feasible path (ties: the earlier family).
        optimal: no feasible family's bound is below :attr:`best`'s cost, and Triton's own
            path (:attr:`triton`) is not cheaper.
        argument: the optimality argument, or the gap, in words.
        triton: the path Triton 3.9 takes on the plan's target and its cost under the same
            weights (:class:`~linlayout.conversion.triton.TritonChoice`).
    """

    problem: ConversionProblem
    weights: dict[str, float]
    paths: tuple[PathPlan, ...]
    best: PathPlan
    optimal: bool
    argument: str
    triton: TritonChoice | None = None

    @property
    def saving(self) -> float | None:
        """Triton's cost minus :attr:`best`'s (positive: the plan is cheaper), or None when
        Triton's path is not costed."""
        if self.triton is None or self.triton.cost is None:
            return None
        return self.triton.cost - self.best.cost

    def path(self, name: str) -> PathPlan:
        """The plan of one family by name.

        Raises:
            LayoutError: ``name`` is not one of :data:`PATHS`.
        """
        for p in self.paths:
            if p.path == name:
                return p
        raise LayoutError(f"unknown path {name!r}; the paths are {list(PATHS)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the element width, weights, each path, the choice and its argument."""
        return {"element_bits": self.problem.element_bits, "weights": dict(self.weights),
                "paths": [p.to_dict() for p in self.paths], "best": self.best.path,
                "optimal": self.optimal, "argument": self.argument,
                "triton": self.triton.to_dict() if self.triton is not None else None,
                "saving": self.saving}


def plan_conversion(src: LinearLayout, dst: LinearLayout, element_bits: int, *,
                    hardware: HardwareModel | None = None,
                    weights: Mapping[str, float] | None = None,
                    target: Target | str | None = None,
                    source_load: tuple[int, int] | None = None,
                    packed_source: bool = False,
                    wide_source: bool = False) -> ConversionPlan:
    """Plan a layout conversion on every path and pick the cheapest.

    Args:
        src: the distributed layout the tensor is in (in dims among ``register, lane, warp,
            block``; every element held by some thread).
        dst: the distributed layout it must end in: the same out dims and sizes (any order),
            the same numbers of lanes, warps and blocks.
        element_bits: bits per element: 8, 16, 32 or 64.
        hardware: the hardware model (default ``NVIDIA``): warp size, banks.
        weights: overrides of :data:`~linlayout.conversion.cost.DEFAULT_WEIGHTS`, e.g.
            ``{"bar.sync": 20}``.
        target: the Triton target whose own path is reported beside the plan
            (:attr:`ConversionPlan.triton`): a :class:`~linlayout.lowering.Target` or its text
            (``"cuda:80"``, ``"hip:gfx942"``); default the hardware preset's
            (:func:`~linlayout.lowering.target.default_target`: ``cuda:90`` for NVIDIA).
        source_load: ``(dim, contiguity_elems)`` when the source was loaded from global
            memory with consecutive addresses along out dim ``dim`` (AxisInfo's
            contiguity), as :func:`~linlayout.lowering.convert_path` and ``check`` take it:
            on AMD, packing 8/16-bit elements for a shuffle is then free where the load
            already packed them, for Triton's path and the stage plan alike. None: any other
            producer (one element per register).
        packed_source: the source is a float truncation of 32-bit values to 16 bits (AMD:
            the truncation builds the packed registers, so packing for a shuffle is free),
            as :func:`~linlayout.lowering.convert_path` and ``check`` take it.
        wide_source: the producer left each 8/16-bit element alone in a 32-bit register with
            its upper bits unknown — a warp-local gather's or a ``redux.sync`` reduction's
            truncated 32-bit result (:func:`linlayout.check.registers.wide_sources`), as
            :func:`~linlayout.lowering.convert_path` and ``check`` take it. Packing is then
            priced on every path that packs, Triton's and the plan's alike: on NVIDIA one
            ``prmt`` per 32-bit word of two 16-bit elements — Triton's shuffles and the stage
            plans (per packed register), the packed exchange (its pack), every round trip
            (per word stored); the table plans already pay a ``prmt`` per packed word — and
            on AMD four such bytes pack with no ``v_perm_b32`` (the packing bounds use that
            price; two such bytes, as Triton spells the pair, one ``v_perm_b32``). A
            register renaming packs nothing. The shuffle bounds count the joins such
            registers need as Triton's spelling is selected: on NVIDIA at 16 bits one
            ``prmt`` (:func:`~linlayout.conversion.bounds.nvidia_lone_shuffle_bound`), on AMD
            at 8 bits one ``v_perm_b32`` (the lone- and two-shuffle bounds with
            ``wide_source``); the shared-memory bound, on NVIDIA at 16 bits, a ``prmt``
            per stored word of two registers
            (:func:`~linlayout.conversion.round_trip.packing_floor`).

    Returns:
        A :class:`ConversionPlan`: each path's counts, cost and bound, the cheapest path,
        whether it is provably optimal among the three families, Triton's own path and the
        saving over it.

    Raises:
        LayoutError: bad layouts or sizes (:meth:`ConversionProblem.make`), block bases that
            differ (a conversion across CTAs), bad weights, an unknown target or one whose
            warp size differs from the hardware model's, a bad ``source_load``, or
            ``packed_source`` or ``wide_source`` not a bool.
    """
    if not isinstance(packed_source, bool):
        raise LayoutError(f"packed_source must be True or False, got {packed_source!r}")
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    problem = ConversionProblem.make(src, dst, element_bits, hardware)
    ws = resolve_weights(weights)
    tgt = resolve_conversion_target(target, problem)
    if not problem.same_columns(("block",)):
        raise LayoutError("src and dst place elements in different CTAs (their block bases "
                          "differ): converting across CTAs needs distributed shared memory, "
                          "which is not modelled; give layouts with the same block bases")
    source_load = check_source_load(source_load, problem.src)
    triton = triton_choice(problem, tgt, ws, source_load, packed_source,
                           wide_source=wide_source)
    source = _Source(source_load, packed_source, wide_source)
    paths = (_registers(problem, ws), _shuffle(problem, ws, tgt, source),
             _shared(problem, ws, tgt, source, triton))
    feasible = [p for p in paths if p.feasible]
    best = min(feasible, key=lambda p: p.cost)  # the shared-memory path always applies
    rivals = [p for p in paths if p.bound is not None and p.bound < best.cost - 1e-9]
    if not rivals:
        argument = ("no family's bound is lower ("
                    + ", ".join(f"{p.path} ≥ {p.bound:g}" for p in paths if p.bound is not None)
                    + "), so no register, shuffle or shared-memory plan costs less under "
                      "these weights")
    else:
        argument = ("a plan below its cost is not ruled out: "
                    + ", ".join(f"{p.path}'s bound is {p.bound:g}" for p in rivals))
    optimal = not rivals
    if triton.cost is not None and triton.cost < best.cost - 1e-9:
        # the families hold Triton's constructions, so this is a gap in the model: say so
        # and make no optimality claim
        optimal = False
        argument += (f"; but Triton's own path ({triton.path} on {triton.target}) costs "
                     f"{triton.cost:g}, less: its instructions are outside the modelled "
                     "families")
    return ConversionPlan(problem, ws, paths, best, optimal, argument, triton)


@dataclass(frozen=True)
class _Source:
    """Where the producer left the source elements (:func:`plan_conversion`'s arguments)."""

    load: tuple[int, int] | None = None
    packed: bool = False
    wide: bool = False


def _counts(**kinds: int) -> dict[str, int]:
    out = dict.fromkeys(KINDS, 0)
    out.update(kinds)
    return out


def _registers(problem: ConversionProblem, ws: dict[str, float]) -> PathPlan:
    plan = plan_registers(problem)
    if plan is None:
        if problem.within(("register",), ()) and problem.same_columns(("warp", "block")) \
                and _threads_hold_theirs(problem):
            note = ("every thread holds its elements, but in registers that depend on the "
                    "lane: the shuffle path picks them (no shuffle, only selects)")
        else:
            note = ("some thread needs an element another thread holds (the lane, warp or "
                    "block bases differ)")
        return PathPlan("registers", False, note, bound_note="does not apply")
    return PathPlan("registers", True, "every thread holds its elements: registers renamed",
                    cost=0.0, bound=0.0, bound_note="nothing moves", plan=plan,
                    method="renaming")


def _threads_hold_theirs(problem: ConversionProblem) -> bool:
    """Each dst lane, warp and block basis differs from src's by src registers only."""
    regs = problem.columns("src", "register")
    return all(f2.in_span(a ^ b, regs) for d in ("lane", "warp", "block")
               for a, b in zip(problem.columns("src", d), problem.columns("dst", d)))


def _shuffle(problem: ConversionProblem, ws: dict[str, float], target: Target,
             source: _Source) -> PathPlan:
    if warp_map(problem) is None:
        return PathPlan("shuffle", False, "some warp needs an element another warp holds "
                        "(the warp or block columns differ)", bound_note="does not apply")
    fb = shuffle_family_bound(problem, target, ws)
    bound_cost, note = fb.cost, fb.note
    if not target.is_nvidia and problem.element_bits in (8, 16) and not source.packed \
            and _one_element_per_register(problem, source.load):
        packed = amd_packing_bound(problem, ws,
                                   wide_source=source.wide and source.load is None)
        if packed > bound_cost + 1e-9:
            bound_cost = packed
            note += (f"; the source holds one element per register, so packing them into "
                     f"words costs v_perm_b32: at least {packed:g} in all")
        wide = source.wide and source.load is None
        lone = amd_lone_shuffle_bound(problem, target, ws, wide_source=wide)
        if lone > bound_cost + 1e-9:
            bound_cost = lone
            note += ("; with one shuffle the word it sends joins two registers before it "
                     "and a lane-dependent instruction follows it (16-bit elements, or "
                     "computed bytes, one to a register: a join costs a v_perm_b32), else "
                     f"two shuffles: at least {lone:g}")
        two = amd_two_shuffle_bound(problem, target, ws, wide_source=wide)
        if two > bound_cost + 1e-9:
            bound_cost = two
            note += ("; no two shuffles, swaps included, reach dst without a join (the "
                     "two-shuffle lemma, elements one to a register): a merge or a "
                     f"v_perm_b32, or a third shuffle: at least {two:g}")
    if source.wide and target.is_nvidia and problem.element_bits == 16:
        lone = nvidia_lone_shuffle_bound(problem, target, ws)
        if lone > bound_cost + 1e-9:
            bound_cost = lone
            note += ("; with one shuffle the word it sends joins two registers before it "
                     "(16-bit elements one to a 32-bit register: a join is a prmt, as NVPTX "
                     "selects it) and, where a lane keeps one of its own, a lane-dependent "
                     f"instruction follows it, else two shuffles: at least {lone:g}")
    candidates: list[tuple[float, int, str, Any]] = []
    tables = plan_shuffles(problem, ws, free_packing=target.is_nvidia)
    if tables is not None:
        counts = _counts(**tables.instructions)
        candidates.append((path_cost(counts, 0, ws), 0, "tables", tables))
    stages = plan_stages(problem, target, source.load, source.packed, wide_source=source.wide)
    try:
        if stages is not None and not execute_plan(problem, stages).correct:
            stages = None  # the modelled stages do not reach dst on this pair (see .stages)
    except LayoutError:
        stages = None  # too large to run: not kept unproven
    if stages is not None:
        candidates.append((path_cost(stages.instructions, 0, ws), 1, "stages", stages))
    exchange = plan_packed_exchange(problem, target, ws, source.load, source.packed,
                                    wide_source=source.wide)
    if exchange is not None and execute_plan(problem, exchange).correct:
        candidates.append((path_cost(_counts(**exchange.instructions), 0, ws), 2,
                           "packed exchange", exchange))
    if not candidates:
        return PathPlan("shuffle", False, "no consistent plan of the modelled forms (a lane "
                        "would send two words in one round, and the conversion is not a "
                        "permutation of register and lane bits)", bound=bound_cost,
                        bound_note=note)
    cost, _, method, plan = min(candidates, key=lambda c: c[:2])
    if isinstance(plan, ShufflePlan):
        counts = _counts(**plan.instructions)
        n = len(plan.rounds)
        what = (f"{n} shuffle round{'' if n == 1 else 's'} by per-lane tables, {plan.slots} "
                f"element{'' if plan.slots == 1 else 's'} per word")
        if plan.choices:
            k = len(plan.choices)
            what += (f"; {k} register{'' if k == 1 else 's'} chosen by lane-dependent byte "
                     "permutes")
    elif isinstance(plan, PackedExchangePlan):
        counts = _counts(**plan.instructions)
        n, k = len(plan.rounds), len(plan.permutes)
        what = (f"{n} shuffle{'' if n == 1 else 's'} of words packing two elements each, "
                f"{k} byte permute{'' if k == 1 else 's'} choosing halves by lane")
        if plan.swaps:
            what = "v_permlane swaps of register pairs first, then " + what
    else:
        counts = dict(plan.instructions)
        t = plan.transpositions
        what = (f"{plan.method} stages over {t} register/lane transposition"
                f"{'' if t == 1 else 's'} (Triton's construction"
                + ("; v_permlane swaps" if plan.permlane else "") + ")")
    if cost <= bound_cost + 1e-9:
        what += "; it meets the bound"
    return PathPlan("shuffle", True, what, counts, cost=cost, bound=bound_cost,
                    bound_note=note, plan=plan, method=method)


def _one_element_per_register(problem: ConversionProblem,
                              source_load: tuple[int, int] | None) -> bool:
    """No two source elements share a 32-bit register when the convert starts."""
    words = source_words(problem.src, problem.element_bits,
                         *(source_load if source_load is not None else ()))
    return len({w.word for w in words}) == len(words)


def _matrix_instructions(target: Target) -> str | tuple[str | None, str] | None:
    """``synthesize_swizzle``'s ``instructions`` that let each side use the matrix
    instructions ``target`` has: ``stmatrix`` on sm_90+, ``ldmatrix`` on sm_75+; None when
    it has neither (AMD, older NVIDIA)."""
    if not target.is_nvidia or target.cc < 75:
        return None
    return "auto" if target.cc >= 90 else (None, "auto")


def _shared(problem: ConversionProblem, ws: dict[str, float], target: Target,
            source: _Source, triton: TritonChoice | None = None) -> PathPlan:
    common = {"element_bits": problem.element_bits, "hardware": problem.hardware}
    variants = [("ld/st.shared", synthesize_swizzle(problem.src, problem.dst, **common))]
    matrix = _matrix_instructions(target)
    if matrix is not None:
        try:
            variants.append(("matrix", synthesize_swizzle(problem.src, problem.dst,
                                                          instructions=matrix, **common)))
        except LayoutError:
            pass  # no side of this tile fits a matrix instruction: plain stands
    if not target.is_nvidia or problem.element_bits < 32:
        # Triton's instruction choice: on AMD (ds_read_tr on gfx950, its vectors) outside
        # the two variants above; on NVIDIA within them as instructions, but for 8- and
        # 16-bit elements its narrower vectors may spend fewer byte permutes on packing
        try:
            variants.append(("triton", synthesize_swizzle(problem.src, problem.dst,
                                                          lowering="triton",
                                                          target=target.name, **common)))
        except LayoutError:
            pass  # Triton's lowering of some side is not modelled: the others stand
    unpacked = (not target.is_nvidia and problem.element_bits < 32 and not source.packed
                and _one_element_per_register(problem, source.load))
    if unpacked or (target.is_nvidia and problem.element_bits == 16 and source.wide):
        # on AMD a wide store of unpacked 8/16-bit elements pays v_perm_b32 to pack its
        # words (on NVIDIA a prmt.b32 per word of 16-bit elements held in 32-bit registers)
        # and a wide load unpacks for nothing: where the wavefronts tie, the layout
        # that gives the load the wide vector is cheaper. Synthesized with the load counted
        # twice, it is costed like the others (its weighted bound is not a bound here)
        variants.append(("ld/st.shared", synthesize_swizzle(problem.src, problem.dst,
                                                            weights=(1, 2), **common)))
    cta_cols = [c for d in ("register", "lane", "warp") for c in problem.columns("src", d)]
    scratch = (1 << f2.rank(cta_cols)) * problem.element_bits // 8
    costed = []
    lean_src, lean_dst = (drop_broadcast_registers(x) for x in (problem.src, problem.dst))
    for order, (method, res) in enumerate(variants):
        store, load = res.store, res.load
        memory = offset_layout(res.layout)
        bits = problem.element_bits
        packing = round_trip_packing(
            problem, memory,
            side_emitted("store", lean_src, memory, store.instruction, store.vector_elems,
                         bits, target),
            side_emitted("load", lean_dst, memory, load.instruction, load.vector_elems,
                         bits, target), target, source.load, source.packed,
            wide_source=source.wide)
        counts = _counts(**{"st.shared": store.instructions_per_warp,
                            "ld.shared": load.instructions_per_warp, "bar.sync": 1,
                            "prmt": packing})
        wavefronts = store.wavefronts_per_warp + load.wavefronts_per_warp
        floor = _counts(**{"st.shared": store.instruction_floor,
                           "ld.shared": load.instruction_floor, "bar.sync": 1})
        bound = (path_cost(floor, res.bound.wavefronts_per_warp, ws)
                 if res.bound.weights == (1, 1) else float("inf"))
        costed.append((path_cost(counts, wavefronts, ws), order, method, res, counts,
                       wavefronts, bound))
    low = min(costed, key=lambda c: c[6])
    barriers = 1
    if triton is not None and triton.scratch is not None and triton.cost is not None:
        # Triton's own scratch layout and instructions: in the family, so the plan never
        # costs more than Triton's round trip (its narrower vectors may pack for less)
        costed.append((triton.cost, len(costed), "triton scratch", triton.scratch,
                       dict(triton.instructions), triton.wavefronts, low[6]))
    cost, _, method, res, counts, wavefronts, _ = min(costed, key=lambda c: c[:2])
    if method == "triton scratch":
        barriers, scratch = triton.barriers, triton.scratch_bytes
    lres = low[3]
    bound = low[6]
    note = (f"at least {lres.bound.wavefronts_per_warp} wavefronts (synthesize_swizzle's "
            f"bound, {low[2]} variant; the least over "
            f"{', '.join(dict.fromkeys(c[2] for c in costed if c[2] != 'triton scratch'))}), "
            f"{lres.store.instruction_floor} stores and "
            f"{lres.load.instruction_floor} loads (16 bytes per lane each) and one barrier; "
            "packing counted as free")
    if unpacked or (target.is_nvidia and source.wide):
        floor = packing_floor(problem, target, ws,
                              wide_source=source.wide and source.load is None)
        if floor is not None and floor.cost > bound + 1e-9:
            bound = floor.cost
            note += f"; but with packing paid: {floor.note}"
    store, load = res.store, res.load
    where = ("Triton's own scratch layout" if method == "triton scratch"
             else "a swizzled layout")
    what = (f"store, bar.sync, load through {where} ({store.instruction} "
            f"{store.vector_elems}-element, {load.instruction} {load.vector_elems}-element"
            + (f"; {counts['prmt']} byte permutes to pack and unpack" if counts["prmt"] else "")
            + ")")
    return PathPlan("shared_memory", True, what, counts, wavefronts, scratch, barriers, cost,
                    bound, note, res, method)
