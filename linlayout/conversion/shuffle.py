"""Conversions inside a warp: register renaming, and warp shuffles with their lower bound.

Both paths keep every warp's data in the warp: they apply when ``src`` and ``dst`` give the
warp and block bits the same columns, so each warp converts its own elements and every warp
runs the same plan. Write ``A`` and ``B`` for the warp-local parts of ``src`` and ``dst``
(their register and lane columns) and ``P`` for a linear map with ``A ∘ P = B`` — for each
``dst`` register ``r`` of lane ``l``, the ``src`` register and lane ``P(r, l)`` that hold its
element (the Linear Layouts paper, arXiv 2505.23819, §5.3: ``src⁻¹ ∘ dst``; free variables
are set to zero, registers before lanes, and a ``dst`` lane bit whose element its own lane
holds maps to that lane bit, so data that is already in the lane stays there).

The shuffle plan (:func:`plan_shuffles`) moves one 32-bit word per lane per round with
``shfl.sync.idx.b32`` (PTX ISA, ``shfl.sync``). The ``dst`` registers are split as
``r = k ⊕ j ⊕ c``: ``k`` in the duplicates (``P(k, 0) = 0``, copies of one element), ``j`` in
the *slots* (directions that keep the source lane, at most ``32 / element_bits`` elements
packed into one word) and ``c`` the *word index*. In round ``t`` lane ``l`` fetches word
``c = t ⊕ T(l)`` from lane ``P_lane(c, l)``, for a linear *twist* ``T`` from lane bits to
word indices; the sender packs the slots it is asked for (``prmt``), choosing per slot among
its registers by lane (``selp``); the receiver unpacks (``prmt``) and each ``dst`` register
picks, by lane, the round or the local register that holds its element: among ``m``
candidates, ``m − 1`` selects (``selp``) or a tree of lane-dependent byte permutes
(``prmt``), whichever is cheaper under the weights (:func:`choice_instructions`; on NVIDIA a
``prmt`` chooses each 16-bit half among four, packed two to a word by a free ``mov.b32 {lo,
hi}``; the trees are :attr:`ShufflePlan.choices`, run byte by byte by the executor); or,
when these choices are affine in the lane, layers of lane-conditional swaps, when they cost
less (:attr:`ShufflePlan.selects`). A round in which every lane reads itself is no
shuffle. Lane-index arithmetic and predicates are not counted; a sent slot whose per-lane
choice agrees, wherever both are read, with one already built in an earlier round reuses it
(the sender selects once and shuffles the value in both rounds). The planner tries the
twists ``T = 0``, the twist that makes the most rounds local (solving
``P_lane(T(l), 0) = l ⊕ P_lane(0, l)``) and, when small, every twist — for ``P`` and, where
``src`` holds an element in several lanes, for the other solutions that read the copy whose
lane tells the sender which register is asked (:func:`copy_maps`) — and keeps the cheapest
under the weights.

The bound (:func:`shuffle_bound`): a lane must receive every ``dst`` element it does not
hold in ``src``; the elements a lane holds and needs are cosets of ``span(A_register)`` and
``span(B_register)``, so it lacks ``|V| − |U ∩ V|`` or all ``|V|`` of them, and one shuffle
brings it 32 bits. Every lane of a warp issues the same shuffles, so no plan of this family
issues fewer than ``⌈max_l lacking(l) · element_bits / 32⌉`` shuffles per thread. A lane's
share of another lane's coset is a coset of ``U ∩ V``, each in a different lane
(:func:`source_lanes`), and after ``t`` shuffles a lane holds data from at most ``2^t``
lanes, so it also needs ``⌈log2(lanes drawn on + 1)⌉``
(:mod:`~linlayout.conversion.bounds` has the whole argument).

The select bound (:func:`select_bound`) counts the lane-dependent choices. On NVIDIA a
shuffle reads one named register in the lane it reads, a ``mov``, or a ``prmt`` whose
selector is the same in every lane, keeps each element in the register it came from (up to a
renaming common to all lanes); only ``selp`` and a ``prmt`` whose selector depends on the
lane merge values from different registers. Follow each ``dst`` register ``r`` back to
``src`` registers: the elements ``r`` holds across the lanes lie in some set of ``src``
registers, at least one per class of registers modulo ``K`` (the register parts of the
kernel of ``[A_register | A_lane]``: two places that hold the same element differ by it).
The data-flow tree behind ``r`` reaches each of those registers, at each of the
``element_bits / 8`` byte positions of ``r``'s element; with ``m = max_r classes(r) − 1``,
a ``selp.b32`` supplies at most 4 of the byte joins needed (8 for ``selp.b64``) and a
lane-dependent ``prmt`` at most 7, so ``4 · selp + 7 · prmt ≥ (element_bits / 8) · m`` (the
byte-join lemma of :mod:`~linlayout.conversion.bounds`, which counts bytes because packing
is free in the family: a ``prmt`` may choose among four 16-bit halves of 32-bit elements);
:func:`~linlayout.conversion.bounds.merge_cost` prices the cheapest such mix. Plans that
keep elements whole (the planner's, Triton's) also have ``selp + (d − 1) · prmt ≥ m`` with
``d = 2 · max(1, 32 / element_bits)`` (:func:`merge_positions`). The argument assumes the
instruction set of the
family (``shfl``, ``selp``, ``prmt``, ``mov``; no predicated moves or bitwise merges); on AMD
a ``v_permlane*_swap`` or a DPP move merges two registers by itself, so the bound is not
claimed there.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from collections.abc import Mapping

from .. import f2
from .._memo import memoize
from .._checks import instance_of
from ..errors import LayoutError
from .cost import path_cost, resolve_weights
from .problem import ConversionProblem

__all__ = ["AMD_PACK_PERMUTES", "AMD_WIDE_PACK_PERMUTES", "MAX_COPY_MAPS", "MAX_TWIST_SEARCH_BITS", "MAX_TWIST_WORK",
           "RegisterPlan",
           "ShufflePlan", "ShuffleRound", "amd_packing_bound", "copy_maps", "lacking_elements",
           "choice_instructions", "choice_program", "merge_positions", "plan_registers",
           "plan_shuffles", "run_choice", "select_bound",
           "shuffle_bound", "source_lanes", "warp_map"]

#: The planner tries every twist when it has at most this many bits (lane bits × word-index
#: bits): 2^8 candidate plans, each costed on its per-lane tables.
MAX_TWIST_SEARCH_BITS = 8
#: Most solutions of ``A ∘ P = B`` (:func:`copy_maps`) the planner tries, each with its twists.
MAX_COPY_MAPS = 4
#: Most lane-round steps (candidates × rounds × lanes) the planner spends mixing the per-bit
#: choices of its whole twists: about a second of Python.
MAX_TWIST_WORK = 1 << 18


@dataclass(frozen=True)
class WarpMap:
    """``P`` split by output: for each ``dst`` input bit (registers first, then lanes), the
    ``src`` register bits and lane bits holding its element."""

    src_register_bits: int
    dst_register_bits: int
    lane_bits: int
    to_register: tuple[int, ...]
    to_lane: tuple[int, ...]

    def source(self, register: int, lane: int) -> tuple[int, int]:
        """``(src register, src lane)`` holding the element of ``dst`` ``register`` of
        ``lane``."""
        x = register | lane << self.dst_register_bits
        return f2.apply(self.to_register, x), f2.apply(self.to_lane, x)


def warp_map(problem: ConversionProblem) -> WarpMap | None:
    """``P`` with ``A ∘ P = B`` (see the module docstring), or None when some ``dst``
    register or lane column is outside the span of ``src``'s register and lane columns (data
    must cross warps) or the warp and block columns differ.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    instance_of(problem, ConversionProblem, "problem")
    if not problem.same_columns(("warp", "block")):
        return None
    a_reg, a_lane = problem.columns("src", "register"), problem.columns("src", "lane")
    targets = problem.columns("dst", "register") + problem.columns("dst", "lane")
    sols = f2.solve_many(a_reg + a_lane, targets)
    if any(s is None for s in sols):
        return None
    nrs = len(a_reg)
    # a dst lane bit whose element the lane itself holds (up to src's registers) stays in
    # the lane: P(lane bit i) = (x, lane bit i), so no shuffle fetches what is already there
    nrd = problem.register_bits[1]
    own = f2.solve_many(a_reg, [b ^ a for b, a in zip(problem.columns("dst", "lane"), a_lane)])
    for i, x in enumerate(own):
        if x is not None:
            sols[nrd + i] = x | (1 << i) << nrs
    mask = (1 << nrs) - 1
    return WarpMap(nrs, problem.register_bits[1], problem.lane_bits,
                   tuple(s & mask for s in sols), tuple(s >> nrs for s in sols))


# ----------------------------------------------------------------------------- registers
@dataclass(frozen=True)
class RegisterPlan:
    """A conversion that only renames registers: ``dst`` register ``r`` of every thread is
    ``src`` register ``source_register[r]`` of the same thread. No instruction is issued
    (ptxas renames the values).

    Source: module docstring (a conversion whose lane, warp and block columns agree).
    """

    source_register: tuple[int, ...]
    instructions: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the register map."""
        return {"source_register": list(self.source_register)}


def plan_registers(problem: ConversionProblem) -> RegisterPlan | None:
    """The renaming plan, or None when the lane, warp and block columns of ``src`` and
    ``dst`` differ or a ``dst`` register column is outside the span of ``src``'s register
    columns (then some element is not in the thread that needs it).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.

    Source: module docstring (a conversion whose lane, warp and block columns agree).
    """
    instance_of(problem, ConversionProblem, "problem")
    if not problem.within(("register",), ("lane", "warp", "block")):
        return None
    sols = f2.solve_many(problem.columns("src", "register"), problem.columns("dst", "register"))
    return RegisterPlan(tuple(f2.apply(sols, r) for r in range(1 << len(sols))))


# ----------------------------------------------------------------------------- shuffles
@dataclass(frozen=True)
class ShuffleRound:
    """One ``shfl.sync.idx`` round (two for 64-bit elements, one per 32-bit half).

    Attributes:
        source_lane: per lane, the lane it reads.
        send: per lane, the ``src`` registers it packs into its word, slot by slot; None when
            no lane reads it (it sends whatever it likes).

    Source: PTX ISA, ``shfl.sync`` (module docstring).
    """

    source_lane: tuple[int, ...]
    send: tuple[tuple[int, ...] | None, ...]


@dataclass(frozen=True)
class ShufflePlan:
    """A warp-shuffle conversion, as per-lane tables a symbolic executor can run.

    Attributes:
        lanes: lanes per warp.
        element_bits: bits per element.
        slots: elements packed into one shuffled word.
        rounds: the shuffle rounds, in order.
        assemble: per lane, per ``dst`` register: ``("register", x)`` (the lane's own
            ``src`` register ``x``) or ``("round", i, s)`` (slot ``s`` of the word it
            received in round ``i``).
        twist: ``T`` — per lane bit, the word index (a bit mask over the word-index basis)
            it adds.
        instructions: per-thread (= per-warp) count of each instruction kind.
        bound: the least number of ``shfl`` per thread any shuffle plan needs
            (:func:`shuffle_bound`).
        selects: how the lane-dependent choices are made, the cheaper of two ways to
            compute the same tables: ``"muxes"`` (each sent slot and each ``dst`` register
            picks among its candidates by lane, ``candidates − 1`` selects) or ``"swaps"``
            (the sent registers are ``f(round, slot) ⊕ Q·lane`` and the received words land
            at ``c ⊕ T·lane``: one layer of lane-conditional pair swaps per dimension of
            ``Q`` over the ``src`` registers and per dimension of ``T`` over the received
            values, one select per value per layer).
        choices: the ``dst`` registers (copies included) whose per-lane choice among their
            candidates is a byte-permute tree rather than a select tree (``"muxes"`` only):
            ``(register, program)`` pairs, each program as :func:`run_choice` runs it. The
            other registers' choices are select trees, counted ``candidates − 1``.

    Source: module docstring (the Linear Layouts paper, arXiv 2505.23819, §5.3; PTX ISA,
    ``shfl.sync``).
    """

    lanes: int
    element_bits: int
    slots: int
    rounds: tuple[ShuffleRound, ...]
    assemble: tuple[tuple[tuple[Any, ...], ...], ...]
    twist: tuple[int, ...]
    instructions: dict[str, int]
    bound: int
    selects: str = "muxes"
    choices: tuple[tuple[int, tuple[Any, ...]], ...] = ()

    @property
    def meets_bound(self) -> bool:
        """The plan issues exactly :attr:`bound` shuffles: no shuffle plan issues fewer."""
        return self.instructions["shfl"] == self.bound

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: rounds, slots per word, the twist and the select scheme (the
        per-lane tables are left out: they are large)."""
        return {"rounds": len(self.rounds), "slots": self.slots, "twist": list(self.twist),
                "selects": self.selects, "permute_choices": len(self.choices)}


def shuffle_bound(problem: ConversionProblem) -> int:
    """The least ``shfl.sync.idx.b32`` per thread of any shuffle conversion (module
    docstring): the larger of ``⌈n · element_bits / 32⌉`` (``n``:
    :func:`lacking_elements`, the bits that must arrive) and ``⌈log2(q + 1)⌉`` (``q``:
    :func:`source_lanes`, the other lanes whose data must arrive: after ``t`` shuffles a
    lane holds data of at most ``2^t`` lanes). Meaningful when the warp and block columns
    of ``src`` and ``dst`` agree.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    n, inter = _lacking(problem)
    q = n >> inter
    return max(-(-n * problem.element_bits // 32), q.bit_length() if q else 0)


def source_lanes(problem: ConversionProblem) -> int:
    """``q``: the most other lanes one lane must receive data from (module docstring).
    A lane holds a coset of ``U = span(A_register)`` and needs a coset of
    ``V = span(B_register)``; each lane's share of what another lane needs is a coset of
    ``U ∩ V`` or nothing, and two such shares in one needed coset lie in different cosets of
    ``U`` — different lanes. So a lane lacking ``n`` elements draws on exactly
    ``n / |U ∩ V|`` other lanes (copies of a lane's data in other lanes being one choice).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    n, inter = _lacking(problem)
    return n >> inter


def lacking_elements(problem: ConversionProblem) -> int:
    """The most ``dst`` elements one lane lacks in ``src`` (module docstring): every one
    must reach it by a shuffle.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    return _lacking(problem)[0]


def _lacking(problem: ConversionProblem) -> tuple[int, int]:
    """(the most elements a lane lacks, log2 |U ∩ V|)."""
    instance_of(problem, ConversionProblem, "problem")
    u = problem.columns("src", "register")
    v = problem.columns("dst", "register")
    rank_u, rank_v = f2.rank(u), f2.rank(v)
    both = f2.span_sum(u, v)
    inter = rank_u + rank_v - len(both)
    offsets = [a ^ b for a, b in zip(problem.columns("src", "lane"),
                                     problem.columns("dst", "lane"))]
    if all(f2.in_span(x, both) for x in offsets):
        return (1 << rank_v) - (1 << inter), inter
    return 1 << rank_v, inter


#: On AMD, the ``v_perm_b32`` (``prmt`` kind) the backend spends packing ``j`` elements that
#: sit in ``j`` different registers into one 32-bit word, by element width
#: (:func:`~linlayout.lowering.amd_pack.pack_permutes`: a 16-bit pair one; 8-bit pairs none,
#: ``v_lshl_or_b32``/``v_or_b32_sdwa``; four bytes two, one per half).
AMD_PACK_PERMUTES: Mapping[int, Mapping[int, int]] = {
    8: {1: 0, 2: 0, 4: 2}, 16: {1: 0, 2: 1}, 32: {1: 0}, 64: {1: 0}}
#: The same where each element sits in its own 32-bit register with the upper bits unknown
#: (a 32-bit shuffle's result truncated: ``wide``, :func:`~linlayout.lowering.amd_pack.
#: source_words`): four such bytes join with shifts and SDWA ors, no ``v_perm_b32``.
AMD_WIDE_PACK_PERMUTES: Mapping[int, Mapping[int, int]] = {
    8: {1: 0, 2: 0, 4: 0}, 16: {1: 0, 2: 1}, 32: {1: 0}, 64: {1: 0}}


def amd_packing_bound(problem: ConversionProblem,
                      weights: Mapping[str, float] | None = None, *,
                      wide_source: bool = False) -> float:
    """A lower bound on the cost of any shuffle conversion on AMD whose source elements sit
    one per register (no producer packed them): ``min_j (⌈n / j⌉ · h · w_shfl + permutes(j)
    · w_prmt)`` over the word sizes ``j`` of :data:`AMD_PACK_PERMUTES` (1, 2 or 4 elements;
    ``n``: :func:`lacking_elements`; ``h`` = 2 shuffles per 64-bit element, else 1).

    Proof. Let ``j`` be the most elements any shuffled word holds, in any lane. A lane
    lacking ``n`` elements receives at most ``j`` per shuffle (``h`` shuffles per 64-bit
    element), so the plan issues at least ``⌈n / j⌉ · h`` shuffles; and some word of ``j``
    elements, which sit in ``j`` registers, was built at least once: ``permutes(j)``
    ``v_perm_b32``. Nothing is charged per round: a word built once and shuffled in several
    rounds (from different lanes) pays its packing once. (An earlier form charged each
    element its share of a word's packing, ``n · min_j (w_shfl + permutes(j) · w_prmt) /
    j``; reuse refutes it: with 16-bit elements, two source registers and eight destination
    registers that hold, in lane ``l``, the elements of lanes ``l ⊕ v`` for ``v < 4``, one
    ``v_perm_b32`` packs a lane's pair and three ``ds_bpermute_b32`` read it from lanes
    ``l ⊕ 1``, ``l ⊕ 2``, ``l ⊕ 3``, each destination register the same half of the same
    word in every lane: 3.5 at the default weights, below that form's 4.5 —
    ``tests/conversion/test_bounds.py`` runs this plan to the destination.) The packing
    forms are the family's (1, 2 or 4 elements per word, priced as LLVM's back end builds
    them); a plan that packs otherwise is not covered. ``wide_source``: each element is a
    32-bit register's low bytes, upper bits unknown (:data:`AMD_WIDE_PACK_PERMUTES`).
    Joins are priced as LLVM's AMDGPU back end selects them, the ``v_lshl_or_b32`` it
    uses for two zero-extended bytes at nothing (:mod:`~linlayout.conversion.cost`): the
    bound holds for plans lowered that way, not for a hand-written ``v_lshl_or_b32`` join of
    a 16-bit pair or of four bytes.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, bad weights, or
            ``wide_source`` not a bool.
    """
    ws = resolve_weights(weights)
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    table = AMD_WIDE_PACK_PERMUTES if wide_source else AMD_PACK_PERMUTES
    n = lacking_elements(problem)
    if n == 0:
        return 0.0
    halves = 2 if problem.element_bits == 64 else 1
    return min(-(-n // j) * halves * ws["shfl"] + k * ws["prmt"]
               for j, k in table[problem.element_bits].items())


def select_bound(problem: ConversionProblem) -> int:
    """``m``, the least number of register merges any shuffle conversion needs (module
    docstring): the most classes of ``src`` registers (modulo the registers that hold the
    same elements as other lanes do) that one ``dst`` register draws on across the lanes,
    minus one. Any plan of the family on NVIDIA has ``4 · selp + 7 · prmt ≥ (element_bits
    / 8) · m`` (byte joins, :func:`~linlayout.conversion.bounds.merge_cost`); plans that keep
    elements whole also ``selp + (d − 1) · prmt ≥ m`` with ``d = 2 · max(1, 32 /
    element_bits)``. 0 when data must cross warps.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    pm = warp_map(problem)
    if pm is None:
        return 0
    a_reg, a_lane = problem.columns("src", "register"), problem.columns("src", "lane")
    mask = (1 << len(a_reg)) - 1
    kernel = f2.echelon(k & mask for k in f2.null_space(a_reg + a_lane))
    dup = f2.null_space(problem.columns("dst", "register"))
    worst = 1
    for r in range(1 << pm.dst_register_bits):
        if f2.reduce(r, dup) != r:
            continue  # a copy of a register already counted
        classes = {f2.reduce(pm.source(r, lane)[0], kernel)
                   for lane in range(1 << pm.lane_bits)}
        worst = max(worst, len(classes))
    return worst - 1


def merge_positions(element_bits: int) -> int:
    """``d``: the element positions one lane-dependent ``prmt`` chooses among when elements
    stay whole (two 32-bit words of packed elements; 2 for 32- and 64-bit elements). The
    family's bound does not use it: packing is free there, so it counts byte joins
    (:func:`~linlayout.conversion.bounds.merge_cost`)."""
    return 2 * max(1, 32 // element_bits)


def plan_shuffles(problem: ConversionProblem,
                  weights: Mapping[str, float] | None = None, *,
                  free_packing: bool = True) -> ShufflePlan | None:
    """The cheapest shuffle plan of the family in the module docstring under ``weights``
    (overrides of :data:`~linlayout.conversion.cost.DEFAULT_WEIGHTS`), or None when data
    must cross warps (:func:`warp_map` is None) or no twist gives a consistent plan (some
    lane would have to send two different words in one round).

    Each ``dst`` register's per-lane choice among its ``m`` candidates is the cheaper under
    the weights of a select tree (``m − 1`` selects) and a byte-permute tree
    (:func:`choice_instructions`); ``free_packing``: packing two 16-bit halves into a word is
    free (NVIDIA's ``mov.b32 {lo, hi}``, PTX ISA *mov*), so one lane-dependent ``prmt``
    chooses each half among four. On AMD (``free_packing=False``) such a pack costs a
    ``v_perm_b32`` (:data:`AMD_PACK_PERMUTES`), and only two-way permutes of whole
    registers are built.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, bad weights, or
            ``free_packing`` not a bool.
    """
    weights = resolve_weights(weights)
    if not isinstance(free_packing, bool):
        raise LayoutError(f"free_packing must be True or False, got {free_packing!r}")
    pm0 = warp_map(problem)
    if pm0 is None:
        return None
    best: tuple[tuple[float, int], int, tuple[int, ...]] | None = None
    for index, twist, base, ms, swaps in _candidates(problem):
        instructions = _price(dict(base), ms, swaps, problem.element_bits, weights,
                              free_packing)[0]
        key = (path_cost(instructions, 0, weights), instructions["shfl"])
        if best is None or key < best[0]:
            best = (key, index, twist)
    if best is None:
        return None
    pm = copy_maps(problem, pm0)[best[1]]
    split, tables = _prepare(problem, pm)
    return _build(problem, pm, split, best[2], tables, shuffle_bound(problem), weights,
                  free_packing)


@memoize(256)
def _candidates(problem: ConversionProblem) -> tuple[tuple[Any, ...], ...]:
    """Every consistent plan the planner tries, in its order, as ``(index of the map in
    copy_maps, twist, instruction counts without the dst choices, candidates per dst
    choice, selects of the swaps way or None)``: what :func:`plan_shuffles` prices under any
    weights (the tables themselves do not depend on them), so the weightings of one problem
    share one search and only the cheapest plan is rebuilt."""
    pm0 = warp_map(problem)
    bound = shuffle_bound(problem)
    out = []
    for index, pm in enumerate(copy_maps(problem, pm0)):
        split, tables = _prepare(problem, pm)
        for twist in _twists(pm, split.words, 1 << len(split.words)):
            got = _tables_of(problem, pm, split, twist, tables, bound)
            if got is not None:
                base, ms, swaps = got[3], got[4], got[5]
                out.append((index, twist, tuple(base.items()), ms, swaps))
    return tuple(out)


def copy_maps(problem: ConversionProblem, pm: WarpMap) -> list[WarpMap]:
    """``pm`` and the other solutions of ``A ∘ P = B`` the planner tries: where ``src``
    holds an element in several lanes (a kernel vector ``k`` of ``[A_register | A_lane]``
    with a lane part), ``P + k · g`` reads the copy whose coordinate along ``k`` (the top bit
    of ``k``) equals one bit of the ``src`` register asked for. A sender can then tell from its own lane
    index which register each reader wants, so one select of its registers serves every
    round that reads it (:func:`_count`). At most :data:`MAX_COPY_MAPS` maps, ``pm`` first,
    then the picks that tie the most distinct register bits to kernel vectors (with every
    register bit tied, no two readers of one sender ask for different registers).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    instance_of(problem, ConversionProblem, "problem")
    nrs = pm.src_register_bits
    a = problem.columns("src", "register") + problem.columns("src", "lane")
    lane_kernel = [k for k in f2.null_space(a) if k >> nrs]
    out = [pm]
    if not lane_kernel or nrs == 0:
        return out
    choices = [[None, *range(nrs)] for _ in lane_kernel]
    # the picks that tell a sender the most register bits come first (each pass in the
    # product's order, lazily: only the first few are used): with every register bit told
    # by a lane bit of the copy read, a sender knows from its lane alone which register
    # each reader asks for
    picks = (p for told in range(min(len(lane_kernel), nrs), 0, -1)
             for p in itertools.product(*choices)
             if len({b for b in p if b is not None}) == told)
    for pick in picks:
        to_reg, to_lane = list(pm.to_register), list(pm.to_lane)
        for k, b in zip(lane_kernel, pick):
            if b is None:
                continue
            top = k.bit_length() - 1  # the lane coordinate along k: this bit of (reg, lane)
            for i, col in enumerate(pm.to_register):
                now = (to_reg[i] | to_lane[i] << nrs) >> top & 1
                if now != col >> b & 1:
                    to_reg[i] ^= k & ((1 << nrs) - 1)
                    to_lane[i] ^= k >> nrs
        out.append(WarpMap(nrs, pm.dst_register_bits, pm.lane_bits, tuple(to_reg),
                           tuple(to_lane)))
        if len(out) >= MAX_COPY_MAPS:
            break
    return out


def _prepare(problem: ConversionProblem, pm: WarpMap) -> tuple["_Split", "_Tables"]:
    """The split of the ``dst`` registers into copies, slots and word indices for one
    solution ``pm`` of ``A ∘ P = B``, and the tables every twist reads."""
    nrd = pm.dst_register_bits
    reg_cols = [pm.to_register[i] | pm.to_lane[i] << pm.src_register_bits for i in range(nrd)]
    dup = list(f2.null_space(reg_cols))
    keep_lane = f2.null_space(list(pm.to_lane[:nrd]))
    max_slot_bits = max(0, (32 // problem.element_bits).bit_length() - 1)
    slot_basis = f2.extend_basis(dup, keep_lane, limit=max_slot_bits)
    word_basis = f2.extend_basis(dup + slot_basis, (1 << i for i in range(nrd)),
                                 limit=nrd - len(dup) - len(slot_basis))
    split = _Split(dup, slot_basis, word_basis)
    return split, _Tables.make(pm, split)


@dataclass(frozen=True)
class _Split:
    dup: list[int]
    slots: list[int]
    words: list[int]

    def vector(self, basis: list[int], index: int) -> int:
        return f2.apply(basis, index)

    def parts(self, register: int) -> tuple[int, int]:
        """``(slot index, word index)`` of a ``dst`` register."""
        x = f2.solve(self.dup + self.slots + self.words, register)
        x >>= len(self.dup)
        return x & ((1 << len(self.slots)) - 1), x >> len(self.slots)


@dataclass(frozen=True)
class _Tables:
    """What every twist of one map reads, worked out once: ``source[r][lane]`` is
    ``pm.source(r, lane)``, ``parts[r]`` is ``split.parts(r)``, ``words[t]`` is the word
    vector of index ``t``; by word index ``t``, ``lane_from[t][lane]`` is the lane holding
    word ``t`` of ``lane`` and ``wants[t][lane]`` the ``src`` registers of its slots there;
    ``keep[r]`` is the register a ``("register", ·)`` step of ``r`` names in each lane;
    ``representatives`` the ``dst`` registers that are no copy of a smaller one."""
    source: list[list[tuple[int, int]]]
    parts: list[tuple[int, int]]
    words: list[int]
    lane_from: list[list[int]]
    wants: list[list[tuple[int, ...]]]
    keep: list[list[tuple[str, int]]]
    representatives: list[int]

    @staticmethod
    def make(pm: WarpMap, split: _Split) -> "_Tables":
        lanes = range(1 << pm.lane_bits)
        registers = range(1 << pm.dst_register_bits)
        source = [[pm.source(r, lane) for lane in lanes] for r in registers]
        words = [split.vector(split.words, t) for t in range(1 << len(split.words))]
        slot_vecs = [split.vector(split.slots, j) for j in range(1 << len(split.slots))]
        dup_span = f2.span_elements(split.dup) if split.dup else [0]
        return _Tables(source, [split.parts(r) for r in registers], words,
                       [[source[c][lane][1] for lane in lanes] for c in words],
                       [[tuple(source[c ^ j][lane][0] for j in slot_vecs) for lane in lanes]
                        for c in words],
                       [[("register", x) for x, _ in row] for row in source],
                       [r for r in registers if r == min(r ^ d for d in dup_span)])


def _twists(pm: WarpMap, word_basis: list[int], rounds: int):
    """Candidate twists, each a tuple of word indices per lane bit, without repeats: whole
    twists first (none; the one making the most rounds local; one making every lane's source
    a bijection; one making what each lane sends independent of the lane, so no send-side
    selects), then, within :data:`MAX_TWIST_WORK`, every mix of their per-bit choices, and
    when tiny (:data:`MAX_TWIST_SEARCH_BITS`) every twist."""
    nl, nw, nrd = pm.lane_bits, len(word_basis), pm.dst_register_bits
    zero = (0,) * nl
    lane_cols = [f2.apply(pm.to_lane, w) for w in word_basis]
    reg_cols = [f2.apply(pm.to_register, w) for w in word_basis]

    def per_bit(cols: list[int], targets: list[int]) -> tuple[int, ...]:
        return tuple(f2.solve(cols, t) or 0 for t in targets)

    local = per_bit(lane_cols, [pm.to_lane[nrd + i] ^ (1 << i) for i in range(nl)])
    uniform = per_bit(reg_cols, [pm.to_register[nrd + i] for i in range(nl)])
    whole = [zero, local, uniform]
    spanning = _invertible_twist(pm, lane_cols)
    if spanning is not None:
        whole.append(spanning)
    seen = set()
    for t in whole:
        if t not in seen:
            seen.add(t)
            yield t
    choices = [sorted({t[i] for t in whole}) for i in range(nl)]
    count = 1
    for c in choices:
        count *= len(c)
    if count * rounds << nl <= MAX_TWIST_WORK:
        for t in itertools.product(*choices):
            if t not in seen:
                seen.add(t)
                yield t
    if nl * nw <= MAX_TWIST_SEARCH_BITS:
        for t in itertools.product(range(1 << nw), repeat=nl):
            if t not in seen:
                seen.add(t)
                yield t


def _invertible_twist(pm: WarpMap, cols: list[int]) -> tuple[int, ...] | None:
    """A twist ``T`` that makes ``S = P_lane(T(l), l)`` — the lane each lane reads, up to a
    constant — a bijection, so every lane is read by exactly one lane and no round can
    conflict; None when none exists (the lane columns of ``P`` and of the word indices do not
    span the lanes). Lane bits whose column is independent of the others and of the words'
    keep ``T = 0``; each remaining one gets a twist that adds one basis vector of the words'
    lane span, preferring the one that makes it read its own lane."""
    nl, nrd = pm.lane_bits, pm.dst_register_bits
    a = [pm.to_lane[nrd + i] for i in range(nl)]
    w_basis = list(f2.echelon(cols))
    base: list[int] = []
    rest: list[int] = []
    for i in range(nl):
        if f2.rank(base + [a[i]] + w_basis) > len(base) + len(w_basis):
            base.append(a[i])
        else:
            rest.append(i)
    if len(base) + len(w_basis) != nl:
        return None

    def w_part(v: int) -> int:
        x = f2.solve(base + w_basis, v)
        return f2.apply(w_basis, x >> len(base))

    wanted = [w_part(1 << j) for j in rest]
    if f2.rank(wanted) != len(rest):
        wanted = w_basis
    twist = [0] * nl
    for j, target in zip(rest, wanted):
        k = f2.solve(cols, target ^ w_part(a[j]))
        if k is None:
            return None
        twist[j] = k
    return tuple(twist)


def _tables_of(problem: ConversionProblem, pm: WarpMap, split: _Split,
               twist: tuple[int, ...], tables: _Tables, bound: int):
    """The tables of one twist: ``(rounds, assemble, columns, base counts, candidates per
    representative dst register with a choice, selects of the swaps way or None)``, or None
    when some lane would send two words in one round."""
    lanes = 1 << pm.lane_bits
    nslot = 1 << len(split.slots)
    shift = f2.images(twist)
    lane_from, wants = tables.lane_from, tables.wants
    own = list(range(lanes))
    rounds: list[ShuffleRound] = []
    position: dict[int, int] = {}
    for t in range(1 << len(split.words)):
        index = [t ^ s for s in shift]
        sources = [lane_from[w][lane] for lane, w in enumerate(index)]
        if sources == own:
            continue  # a local round: the registers are read where they are
        send: list[tuple[int, ...] | None] = [None] * lanes
        for lane, w in enumerate(index):
            s = sources[lane]
            want = wants[w][lane]
            sent = send[s]
            if sent is None:
                send[s] = want
            elif sent != want:
                return None  # lane s would have to send two words
        position[t] = len(rounds)
        rounds.append(ShuffleRound(tuple(sources), tuple(send)))
    steps = {t: [("round", i, j) for j in range(nslot)] for t, i in position.items()}
    columns = []  # per dst register, per lane: where its element comes from
    for (j, c), kept in zip(tables.parts, tables.keep):
        if not steps:
            columns.append(kept)
            continue
        column = []
        for sh, step in zip(shift, kept):
            got = steps.get(c ^ sh)
            column.append(step if got is None else got[j])
        columns.append(column)
    assemble = list(zip(*columns))
    base = _count(problem.element_bits, nslot, rounds)
    ms = tuple(m for m in (len(set(columns[r])) for r in tables.representatives) if m > 1)
    swaps = _swap_selects(pm, split, twist, shift, rounds, assemble, tables)
    return rounds, assemble, columns, base, ms, swaps


def _build(problem: ConversionProblem, pm: WarpMap, split: _Split,
           twist: tuple[int, ...], tables: _Tables, bound: int,
           weights: Mapping[str, float], free_packing: bool) -> ShufflePlan | None:
    got = _tables_of(problem, pm, split, twist, tables, bound)
    if got is None:
        return None
    rounds, assemble, columns, base, ms, swaps = got
    eb = problem.element_bits
    instructions, selects, ways = _price(base, ms, swaps, eb, weights, free_packing)
    choices = []
    if selects == "muxes":
        dup_span = f2.span_elements(split.dup) if split.dup else [0]
        for r in tables.representatives:
            way = ways.get(len(set(columns[r])))
            if way is None or way[0] == way[1] == way[2] == 0:
                continue  # a select tree
            program = choice_program(columns[r], eb, *way)
            for d in dup_span:  # its copies run the same program (renamed)
                choices.append((r ^ d, program))
    return ShufflePlan(1 << pm.lane_bits, eb, 1 << len(split.slots), tuple(rounds),
                       tuple(assemble), twist, instructions, bound, selects,
                       tuple(sorted(choices, key=lambda c: c[0])))


def choice_instructions(m: int, element_bits: int, weights: Mapping[str, float],
                        free_packing: bool = True) -> tuple[int, int, int, int, int, int]:
    """The cheapest way, under ``weights``, to give each lane one of ``m ≥ 1`` candidate
    values (each holding one element of ``element_bits``), chosen by lane:
    ``(selp, prmt, four-way nodes, three-way nodes, two-way permutes, two-way selects)``.

    A tree whose nodes are: *half nodes* (only with ``free_packing``) — one lane-dependent
    ``prmt`` per 16-bit half of the element (``h = max(1, element_bits / 16)`` of them; an
    8-bit element sits in the low byte of its half) choosing that half among the halves of
    four (three) items packed two to a word for free (``mov.b32 {lo, hi}``): ``h`` ``prmt``
    join four (three) items; then *two-way nodes* on whole values, each a ``selp`` or a
    ``prmt`` of the two registers (``max(1, element_bits / 32)`` of them), whichever is
    cheaper (a tie keeps the select). ``m − 1`` joins in all; the fewest instructions at the
    least cost are kept (ties: more selects, the plain select tree). Against the byte-join
    lemma (:mod:`~linlayout.conversion.bounds`): a half node supplies ``3·e/h`` byte joins
    per ``prmt`` (6 of the 7 possible at 16 and 32 bits, 3 at 8 bits).

    Raises:
        LayoutError: ``m`` not an int from 1 to 2^20, an element width the family does not
            take, bad weights, or ``free_packing`` not a bool.
    """
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= 1 << 20:
        raise LayoutError(f"m must be an int from 1 to {1 << 20}, got {m!r}")
    if isinstance(element_bits, bool) or not isinstance(element_bits, int) \
            or element_bits not in (8, 16, 32, 64):
        raise LayoutError(f"element_bits must be 8, 16, 32 or 64, got {element_bits!r}")
    if not isinstance(free_packing, bool):
        raise LayoutError(f"free_packing must be True or False, got {free_packing!r}")
    ws = resolve_weights(weights)
    halves = max(1, element_bits // 16)
    words = max(1, element_bits // 32)
    two_by_prmt = words * ws["prmt"] < ws["selp"]
    best = None
    # the cost and the instruction count are linear in ``four`` for each ``three``: its
    # least and most values decide
    fours = {0, (m - 1) // 3, max(0, (m - 3) // 3)} if free_packing else {0}
    for four in sorted(fours):
        for three in ((0, 1) if free_packing and m - 1 - 3 * four >= 2 else (0,)):
            rest = m - 1 - 3 * four - 2 * three
            prmt = halves * (four + three) + (words * rest if two_by_prmt else 0)
            selp = 0 if two_by_prmt else rest
            cost = prmt * ws["prmt"] + selp * ws["selp"]
            key = (cost, prmt + selp, -selp)
            if best is None or key < best[0]:
                best = (key, (selp, prmt, four, three, rest if two_by_prmt else 0,
                              0 if two_by_prmt else rest))
    return best[1]


def _price(base: dict[str, int], ms: tuple[int, ...], swaps: int | None, element_bits: int,
           weights: Mapping[str, float], free_packing: bool
           ) -> tuple[dict[str, int], str, dict[int, tuple[int, int, int, int]]]:
    """The instruction counts of a plan's tables under ``weights``: the dst choices (``ms``,
    candidates per representative register) each the cheaper tree
    (:func:`choice_instructions`), or every select made by the swaps way (``swaps``) when
    that costs less. Also the scheme and, per candidate count, ``(four-way nodes,
    three-way nodes, two-way permutes, two-way selects)``."""
    muxes = dict(base)
    ways = {}
    for m in set(ms):
        selp, prmt, four, three, two_p, two_s = choice_instructions(
            m, element_bits, weights, free_packing)
        ways[m] = (four, three, two_p, two_s)
    for m in ms:
        selp, prmt = _way_counts(ways[m], element_bits)
        muxes["selp"] += selp
        muxes["prmt"] += prmt
    if swaps is not None:
        swapped = dict(base, selp=swaps)
        if path_cost(swapped, 0, weights) < path_cost(muxes, 0, weights) - 1e-12:
            return swapped, "swaps", {}
    return muxes, "muxes", ways


def _way_counts(way: tuple[int, int, int, int], element_bits: int) -> tuple[int, int]:
    four, three, two_p, two_s = way
    return two_s, (max(1, element_bits // 16) * (four + three)
                   + max(1, element_bits // 32) * two_p)


def choice_program(column: list[Any], element_bits: int, four: int, three: int,
                   two_p: int, two_s: int) -> tuple[Any, ...]:
    """The instructions that give each lane the candidate ``column[lane]`` names (any
    hashable step, the same candidate list in every lane), as :func:`run_choice` runs them:
    ``four`` four-way and ``three`` three-way half nodes, then ``two_p`` two-way permutes
    and ``two_s`` selects of whole values (:func:`choice_instructions`).

    The program is ``(leaves, ops, result)``: value ``k < len(leaves)`` is candidate
    ``leaves[k]``; op ``j`` makes value ``len(leaves) + j``: ``("pack", (v, h), (w, g))``
    (``mov.b32 {lo, hi}``: half ``h`` of ``v`` low, half ``g`` of ``w`` high), ``("prmt", a,
    b, selectors)`` (per lane four byte indices into the eight bytes of ``a`` then ``b``, as
    ``prmt.b32`` reads them, PTX ISA *prmt*; AMD ``v_perm_b32`` likewise) or ``("selp", a, b,
    picks)`` (per lane 0 for ``a``, 1 for ``b``); ``result`` is the halves ``(v, h)`` that
    make the element, lowest first.

    Raises:
        LayoutError: the node counts do not make ``len(set(column)) − 1`` joins.
    """
    leaves = list(dict.fromkeys(column))
    m = len(leaves)
    if 3 * four + 2 * three + two_p + two_s != m - 1:
        raise LayoutError(f"{four} four-way, {three} three-way and {two_p + two_s} two-way "
                          f"nodes do not join {m} candidates")
    lanes = len(column)
    pick = [leaves.index(c) for c in column]
    halves = max(1, element_bits // 16)
    ops: list[tuple[Any, ...]] = []

    def new(op: tuple[Any, ...]) -> int:
        ops.append(op)
        return m + len(ops) - 1

    # items: (per half position, the value holding that half at half 0 or at its own
    # position), the leaves covered
    items = [([(k, h) for h in range(halves)], {k}) for k in range(m)]
    for c in [4] * four + [3] * three:
        chunk, items = items[:c], items[c:]
        roots = []
        for h in range(halves):
            parts = [item[0][h] for item in chunk]
            a = new(("pack", parts[0], parts[1]))
            b = new(("pack", parts[2], parts[3] if c == 4 else parts[2]))
            sel = []
            for lane in range(lanes):
                p = next((i for i, item in enumerate(chunk) if pick[lane] in item[1]), 0)
                sel.append((2 * p, 2 * p + 1, 2 * p, 2 * p + 1))
            roots.append((new(("prmt", a, b, tuple(sel))), 0))
        items.append((roots, set().union(*(item[1] for item in chunk))))

    def whole(item) -> int:
        parts = item[0]
        if all(v == parts[0][0] and g == h for h, (v, g) in enumerate(parts)):
            return parts[0][0]  # already one value, halves in place
        if halves == 1:
            return parts[0][0] if parts[0][1] == 0 else new(("pack", parts[0], parts[0]))
        words = []
        for w in range(0, halves, 2):
            words.append(new(("pack", parts[w], parts[w + 1])))
        if len(words) == 1:
            return words[0]
        return new(("pack2", tuple(words)))

    for kind in ["prmt"] * two_p + ["selp"] * two_s:
        (x, y), items = items[:2], items[2:]
        a, b = whole(x), whole(y)
        which = [0 if pick[lane] in x[1] else 1 for lane in range(lanes)]
        if kind == "selp":
            v = new(("selp", a, b, tuple(which)))
        else:
            nbytes = max(4, element_bits // 8)
            sel = tuple(tuple((4 if w else 0) + i for i in range(4)) for w in which)
            if nbytes == 8:  # two permutes, one per 32-bit word: as one op here
                v = new(("prmt64", a, b, tuple(which)))
            else:
                v = new(("prmt", a, b, sel))
        items.append(([(v, h) for h in range(halves)], x[1] | y[1]))
    (result, _), = items
    return tuple(leaves), tuple(ops), tuple(result)


def run_choice(program: tuple[Any, ...], leaf_values: list[list[Any]],
               element_bits: int) -> list[Any]:
    """Run a :func:`choice_program` on symbolic bytes: ``leaf_values[lane][k]`` is the
    element candidate ``k`` holds in that lane (None: unwritten). Each element is its
    ``max(1, element_bits / 8)`` bytes ``(element, i)``, registers are 32-bit words of four
    bytes (an element below 16 bits sits in the low byte of its half, the other byte
    unknown), and every instruction moves bytes as its table says, lane by lane. Returns
    per lane the element the result's bytes spell, or None when they are not one element's
    bytes in order. ``pack2`` joins 32-bit words into a 64-bit value (free, ``mov.b64``);
    ``prmt64`` is the two ``prmt`` of a 64-bit two-way choice.

    Raises:
        LayoutError: an instruction of a kind not listed in :func:`choice_program`.
    """
    leaves, ops, result = program
    nb = max(1, element_bits // 8)
    out = []
    for lane, cands in enumerate(leaf_values):
        vals: list[tuple[Any, ...]] = []
        for e in cands:
            b = tuple((e, i) if e is not None else None for i in range(nb))
            vals.append(b + (None,) * (max(2, nb) - nb) if nb < 2 else b)
        for op in ops:
            kind = op[0]
            if kind == "pack":
                (v, h), (w, g) = op[1], op[2]
                vals.append(tuple(vals[v][2 * h:2 * h + 2]) + tuple(vals[w][2 * g:2 * g + 2]))
            elif kind == "pack2":
                vals.append(sum((vals[v] for v in op[1]), ()))
            elif kind == "prmt":
                both = (tuple(vals[op[1]]) + (None,) * 4)[:4] + \
                    (tuple(vals[op[2]]) + (None,) * 4)[:4]
                vals.append(tuple(both[i] for i in op[3][lane]))
            elif kind in ("selp", "prmt64"):
                vals.append(vals[op[2]] if op[3][lane] else vals[op[1]])
            else:
                raise LayoutError(f"unknown choice instruction {kind!r}")
        got = sum((tuple(vals[v][2 * h:2 * h + 2]) for v, h in result), ())[:nb]
        e = got[0][0] if got and got[0] is not None else None
        out.append(e if e is not None and got == tuple((e, i) for i in range(nb)) else None)
    return out


def _swap_selects(pm: WarpMap, split: _Split, twist: tuple[int, ...], shift: list[int],
                  rounds: list[ShuffleRound],
                  assemble: list[tuple[tuple[Any, ...], ...]], tables: _Tables) -> int | None:
    """The selects of the ``"swaps"`` way (:class:`ShufflePlan`), or None when the tables do
    not have its shape (some lane is read by two lanes, or a choice is not affine in the
    lane). Checked on the tables themselves, value by value. ``shift[lane]`` is
    ``T(lane)``."""
    lanes = 1 << pm.lane_bits
    source = tables.source
    reader = {}
    for lane in range(lanes):
        c = tables.words[shift[lane]]
        reader[source[c][lane][1]] = lane
    if len(reader) != lanes:
        return None
    q = []
    for i in range(pm.lane_bits):
        lane = reader[1 << i]
        c = tables.words[shift[lane]]
        q.append(source[c][lane][0] ^ source[0][0][0])
    qv = f2.images(q)  # Q·lane for every lane
    for rnd in rounds:
        first = rnd.send[0]
        for j in range(len(first or ())):
            base = first[j]
            if any(w is None or w[j] != base ^ qv[s] for s, w in enumerate(rnd.send)):
                return None
    local: dict[tuple[int, int], int] = {}
    parts = tables.parts
    for lane, row in enumerate(assemble):
        sh, ql = shift[lane], qv[lane]
        for r, step in enumerate(row):
            if step[0] == "register":
                j, c = parts[r]
                v = step[1] ^ ql
                if local.setdefault((c ^ sh, j), v) != v:
                    return None
    values = (1 << len(split.words)) << len(split.slots)
    return f2.rank(q) * (1 << pm.src_register_bits) + f2.rank(twist) * values


def _count(element_bits: int, nslot: int, rounds: list[ShuffleRound]) -> dict[str, int]:
    """Per-thread instruction counts of a plan's tables without the dst registers' choices
    (:func:`_price` adds those): shuffles, the send-side selects and the packing."""
    words_per_element = max(1, element_bits // 32)
    shfl = len(rounds) * words_per_element
    prmt = 0
    merged: list[list[Any]] = []
    for rnd in rounds:
        for j in range(nslot):
            column = [None if w is None else w[j] for w in rnd.send]
            if len({x for x in column if x is not None}) > 1:
                _share(merged, column)
        if nslot > 1:
            prmt += 2 * (nslot - 1)  # pack at the sender, unpack at the receiver
    selp = sum(len({x for x in c if x is not None}) - 1 for c in merged)
    return {"shfl": shfl, "selp": selp, "prmt": prmt, "mov": 0}


def _share(merged: list[list[Any]], column: list[Any]) -> None:
    """Add one sent slot (per lane, the register it sends; None where no lane reads it) to
    the selected values already built: a value that agrees with it wherever both are read,
    and draws on no register it does not, is reused (the sender computes it once and
    shuffles it in several rounds); otherwise it is a new value."""
    regs = {x for x in column if x is not None}
    for value in merged:
        if regs <= {x for x in value if x is not None} and all(
                a is None or b is None or a == b for a, b in zip(value, column)):
            for i, x in enumerate(column):
                if x is not None:
                    value[i] = x
            return
    merged.append(list(column))
