"""The lower bound of the shuffle family: the least cost any warp-shuffle conversion can have.

The family (what :func:`~linlayout.conversion.shuffle.plan_shuffles`, the stage plans of
:mod:`.stages`, the packed exchange of :mod:`.exchange` and Triton 3.9's
``transferWithinWarp``, ``ConvertLayoutOpToLLVM.cpp``, emit)
is a straight-line program run by every lane of a warp, on 32-bit registers, with:

* ``shfl.sync.idx.b32`` (PTX ISA, *Data Movement and Conversion Instructions:
  shfl.sync*): every lane reads one named register of a lane of its choice — the same
  register in every lane, 32 bits (a 64-bit element moves as two);
* *merges*: ``selp.b32`` (``selp.b64`` for 64-bit elements; PTX ISA, *Comparison and
  Selection Instructions: selp*) with a predicate that differs between lanes, and
  ``prmt.b32`` (PTX ISA, *Data Movement and Conversion Instructions: prmt*) with a selector
  that differs between lanes: the only instructions whose output draws on different
  registers in different lanes. Each writes one register of at most ``max(32,
  element_bits)`` bits;
* anything else that is the same in every lane — ``mov``, packing and unpacking, a
  ``prmt``/``selp`` whose selector or predicate is the same in every lane — counted as free
  here, whatever the weights say, so the bound also holds for plans that pack differently.

Lane-index arithmetic is not counted (as in the plans): an instruction whose inputs are
only the lane index and constants — the source lane of a shuffle, a predicate, a
lane-dependent ``prmt``'s selector (a per-lane constant, however it is spelled: the cost
model's ``selector`` kind, weighted 0 by default; with a positive weight the bound still
counts none, so it stays a lower bound). Packing 16-bit elements that a producer left in
32-bit registers (``wide_source``) is free here too; :func:`nvidia_lone_shuffle_bound`
counts it where one shuffle needs such a join (a ``prmt``, as NVPTX selects it; applied by
:func:`~linlayout.plan_conversion` with ``wide_source``, the higher bound kept). Bitwise
merges (``and``/``or`` with lane masks) and predicated moves are outside the family, as in
Triton's and the planner's plans.

**Shuffles.** :func:`~linlayout.conversion.shuffle.shuffle_bound` ``S``: the bits a lane
lacks must arrive 32 per shuffle, and after ``t`` shuffles a lane holds data from at most
``2^t`` lanes (its own, plus what it read from a lane that held data from at most
``2^(t−1)``), so a lane that needs data from ``q`` other lanes
(:func:`~linlayout.conversion.shuffle.source_lanes`) needs ``⌈log2(q + 1)⌉`` shuffles
however the elements are packed.

**Merges.** Follow each byte of a value back through the free instructions and the
shuffles: it ends at a byte of a ``src`` register or at a byte a merge wrote (its *root*),
and along the way every instruction treats all lanes alike. So a value none of whose
bytes roots at a merge takes each byte from the same ``src`` register in every lane.
:func:`~linlayout.conversion.shuffle.select_bound` ``m``: some ``dst`` register draws on
``m + 1`` classes of ``src`` registers across the lanes. Count the joins byte by byte
(the *byte-join lemma*): each byte position of that register (``e = element_bits / 8`` of
them, 8 for 64-bit elements) roots at a merge's output byte, and following, lane by lane,
the input byte each merge byte took leads to a byte of a ``src`` register; the nodes (a
merge's output byte) and leaves (a ``src`` register's byte) reached from the register's
``e`` roots form a graph with at least ``e · (m + 1)`` leaves (the ``m + 1`` classes, at
each byte position). A spanning forest of it from the ``e`` roots has at most ``e +
Σ (children − 1)`` leaves over its nodes, so ``Σ (children − 1) ≥ e · m``. A ``selp.b32``
(or a gfx950 swap output, a ``v_cndmask_b32``) writes 4 bytes, each with 2 children: at
most 4 (8 for ``selp.b64``); a lane-dependent ``prmt`` (``v_perm_b32``) writes 4 bytes
chosen from 8 input bytes, which its output bytes share: at most ``8 − 1 = 7``. So
``c · selp + 7 · prmt ≥ e · m`` (``c`` = 4, 8 for 64-bit elements), and
:func:`merge_cost` is the cheapest such mix under the weights. (An earlier form counted a
32-bit element as one position a ``prmt`` chooses among two of, ``selp + prmt ≥ m``;
packing is free in the family — ``mov.b32 {lo, hi}`` — so a ``prmt`` can choose each
16-bit half among four: a register that takes its element from one of 16 registers by
lane takes 10 lane-dependent ``prmt``, two 4-way levels per half, where that form
charged 15 merges. ``tests/conversion/test_bounds.py`` runs that plan on symbolic bytes;
the table planner builds such trees, :func:`~linlayout.conversion.shuffle.
choice_instructions`, whose half nodes supply 6 of a ``prmt``'s 7 byte joins, so that plan
stays above this bound's 9 ``prmt``.)

**Merges when the shuffles are at their minimum** (:func:`tight_merges`, elements of 32 or
64 bits). Let ``n`` elements be the most a lane lacks, ``T`` the lanes lacking ``n``, and
say a plan issues exactly ``S = n · element_bits / 32`` shuffles. Then every byte a lane of
``T`` reads in a shuffle is a byte it lacks. Take a ``dst`` register ``r`` that some lane
``t`` of ``T`` already holds (its element there is the lane's own), and that is not one
``src`` register renamed (no ``src`` register holds, in every lane, that lane's element of
``r``). Were some byte of ``r`` rooted through a shuffle, that byte would, in lane ``t``, be
a lacked byte read by its last shuffle — not the lane's own; were every byte rooted at a
``src`` register without a shuffle, ``r`` would be that register renamed. So some byte of
``r`` is a merge's byte passed on without a shuffle, in the same lane; and two ``dst``
registers (not copies) share no such byte — they would hold the same element in every lane.
Hence the ``F`` such registers need ``F`` merges. With 32-bit elements and ``n = 1`` there
is one shuffle; if no single ``src`` register holds (in some lane) the lacked element of
every lane of ``T``, the word that shuffle sends takes bytes from different registers in
different lanes, so some byte of it roots at a merge made before the shuffle — one more,
unless it can be one of the ``F``: those that some lane lacks hold another lane's data, so
come after the shuffle; one that every lane holds could be shuffled only if its elements
included every lane's lacked one, which is checked. A plan with ``S`` shuffles thus needs
``F + p`` merges (``p`` that extra one), and one with more shuffles pays at least one more
shuffle: the bound is the smaller of the two.

**Merge volume** (:func:`merge_volume`, every element width, however many shuffles).
Follow each byte position of a ``dst`` register back as above: through the free
instructions and the shuffles the path is the same in every lane, so it ends at one byte
of one ``src`` register or at one byte of one merge's output — the same root in every
lane, and the byte the register holds in lane ``l`` is the byte the root held in lane
``π(l)``, ``π`` the composition of the shuffles' source-lane maps on the path (the
identity without shuffles). Call a ``dst`` register *mixed* when no ``src`` register holds
(in some lane) every element it asks of the lanes; a byte of a mixed register cannot root
at a ``src`` register (that register would hold all of them), so it roots at a merge. A
merge writes one register: ``L`` lanes of ``B = max(32, element_bits)`` bits, so its
output holds at most ``L · B / 8`` distinct bytes, and every byte any mixed register holds
in any lane is one of them for its root's merge. So the merges hold, between them, every
distinct byte of the mixed registers: ``merges ≥ ⌈N · element_bits / (L · B)⌉``, ``N`` the
distinct elements of the mixed registers over the lanes. Unlike ``tight_merges`` this does
not depend on the number of shuffles, so it also bounds plans that spend more shuffles
than the least: any plan costs at least ``S · w_shfl + max(merge_cost(m), V · u)`` with
``u = min(w_selp, w_prmt)`` (each merge is a ``selp`` or a lane-dependent ``prmt``; with a
swap, below, two outputs for one ``w_shfl``). With 32-bit elements, ``8`` registers that
each hold every lane's own element of another register (32 distinct elements each) need
8 merges however the plan is built, where ``select_bound`` sees 1.

**On AMD** (AMD CDNA3 ISA) the argument holds, word for word, on gfx942 for the
family the planner and Triton 3.9 build there: the shuffles are ``ds_bpermute_b32``
(*LDS instructions*: every lane reads one named VGPR of the lane its address names, 32
bits, without touching LDS memory) and DPP moves that fill every lane from one register
(``quad_perm``, ``row_ror``; Triton's xor by 4, a ``row_shr:4`` and a ``row_shl:4`` into
complementary banks, reads one register too); the merges are ``v_cndmask_b32`` with a
lane-dependent mask (``selp``) and ``v_perm_b32`` with a lane-dependent selector VGPR
(``prmt``: any four bytes of two VGPRs). Left out, as predicated moves are on NVIDIA: a DPP
move whose row or bank mask leaves some lanes holding another register's value, an
exec-masked write, and a VALU operation with a DPP operand (``v_cndmask_b32_dpp``): each
is a shuffle and a merge in one instruction, and can beat the bound. With 32-bit elements,
the register bit exchanged with lane bit 2 takes two masked ``v_mov_b32_dpp`` (``row_shr:4``
of register 1 into banks 1 and 3 of register 0, ``row_shl:4`` of register 0 into banks 0 and
2 of register 1): 2, where every plan of the family costs at least 2.5.

On gfx950 ``v_permlane16/32_swap_b32`` (AMD CDNA4 ISA, *VOP1 instructions*) swaps the
upper lanes of one register with the lower lanes of another across lane bit 4 (5): per
lane, one output keeps the lane's own value and the other takes 32 bits of lane
``l ⊕ 16`` (``l ⊕ 32``), so the shuffle counts hold with a swap counted as a shuffle, and
each of its two outputs joins two registers. Where no lane lacks what its partner lanes
hold (:func:`swaps_bring_nothing_lacked`) a swap brings nothing lacked and is only two
merges for the price of one shuffle: the argument above holds with a select priced at
``min(w_selp, w_shfl / 2)``. Otherwise ``p`` swaps among the shuffles pay for up to ``8p``
byte joins (two outputs of 4 bytes, each byte a lane-dependent choice of two) and ``2p``
merge outputs, and the bound is the least over ``p`` of ``w_shfl · max(S, p) +
max(join_cost(e·m − 8p), (V − 2p) · min(w_selp, w_prmt))``.
That lets one swap be a shuffle and a merge at once; with 32-bit elements where two
shuffles are needed and the lanes lacking the most lack all they need,
:func:`two_shuffles_without_merge` shows case by case (read or swap, then read or swap)
when no two shuffles alone reach ``dst``: then a plan pays a merge or a third shuffle,
``min(2 · w_shfl + min(w_selp, w_prmt), 3 · w_shfl)`` (the ``tight_merges`` of
:class:`ShuffleBound` is then 1). With 16-bit elements one to a register the same holds
element by element once packing a pair counts as a join (a ``v_perm_b32``:
:func:`amd_two_shuffle_bound`, applied by :func:`~linlayout.plan_conversion` where the
source is unpacked), and so it does at 8 bits with a wide source, whose computed bytes
join with a ``v_perm_b32`` too. At 8 bits otherwise it is not claimed: two zero-extended
bytes join for nothing in the model (``v_lshl_or_b32``), and a swap, one such join of its
two outputs and one ``ds_bpermute_b32`` of the joined word do reach some of these
destinations with two shuffles and no merge.

**AMD, one element per register.** Where 8/16-bit source elements sit one to a register,
packing them costs ``v_perm_b32`` on AMD:
:func:`~linlayout.conversion.shuffle.amd_packing_bound` counts it (a packed word paid for
once, however many rounds ship it), and :func:`amd_lone_shuffle_bound` shows that at 16 bits
(at 8 bits with a wide source) a plan with one shuffle needs a join before it and a
lane-dependent instruction after it (:func:`lone_shuffle_joins`), both priced;
:func:`~linlayout.plan_conversion` keeps the highest bound. On NVIDIA the same lemma holds
for 16-bit elements a producer left one to a 32-bit register (:func:`nvidia_lone_shuffle_bound`,
a join there the ``prmt`` NVPTX selects).

Exhaustively checked on every pair of a 32-element, one-warp space at 8, 16 and 32 bits, on
cuda:90, gfx942 and gfx950, and of a 16-element space on a 64-lane wavefront on gfx942 and
gfx950 (``tests/conversion/test_optimal_exhaustive.py``: no buildable plan costs less than
its family's bound) and against every ``shfl``/``selp`` program, every one-shuffle
one-join program (16 bits, AMD) and every two-shuffle program with swaps of the smallest
warps by brute force (``tests/conversion/test_bounds.py``). The merge volume lemma is
also checked against 400 seeded random byte-level programs (shuffles, selects and byte
permutes, lane-dependent and uniform) on each of 2, 4 and 8 lanes, six choices of ``dst``
among the registers of each — none holds a ``dst`` with fewer merges than
:func:`merge_volume` says — and the whole bound against every plan the model builds on 60
seeded random one-warp pairs per target. The byte-join lemma is checked against 300 such
programs on each of 2, 4 and 8 lanes, every register they compute (``4 · selp + 7 · prmt``
at least the ``src`` byte classes that cover its bytes, less its 4 byte positions), and its
example (a 16-way register choice in 10 lane-dependent ``prmt``) is run on symbolic bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of, shown
from ..errors import LayoutError
from ..lowering import Target
from .cost import resolve_weights
from .problem import ELEMENT_BITS, ConversionProblem
from .shuffle import lacking_elements, select_bound, shuffle_bound, warp_map

__all__ = ["GFX950_SWAP_LANE_MASKS", "ShuffleBound", "amd_lone_shuffle_bound",
           "amd_two_shuffle_bound",
           "join_cost", "lone_shuffle_joins", "merge_cost", "merge_volume",
           "nvidia_lone_shuffle_bound", "shuffle_family_bound",
           "swaps_bring_nothing_lacked", "tight_merges", "two_shuffles_without_merge"]


@dataclass(frozen=True)
class ShuffleBound:
    """The least cost of any plan of the shuffle family (module docstring).

    Attributes:
        cost: the bound, in the weights' units.
        shuffles: the least ``shfl`` per thread
            (:func:`~linlayout.conversion.shuffle.shuffle_bound`).
        merges: ``m``, merges any plan needs
            (:func:`~linlayout.conversion.shuffle.select_bound`; 0 where not claimed).
        tight_merges: merges a plan with exactly :attr:`shuffles` shuffles needs
            (:func:`tight_merges`; 0 where not claimed).
        note: the argument, in words.
        volume: merges any plan needs by the merge volume lemma (:func:`merge_volume`),
            however many shuffles it issues.
    """

    cost: float
    shuffles: int
    merges: int
    tight_merges: int
    note: str
    volume: int = 0


def merge_cost(merges: int, element_bits: int,
               weights: Mapping[str, float] | None = None) -> float:
    """The least ``a · w_selp + b · w_prmt`` over whole ``a, b ≥ 0`` with
    ``c · a + 7 · b ≥ e · merges`` (``e = element_bits / 8`` bytes per element; ``c`` = 4
    bytes a ``selp.b32`` writes, 8 for 64-bit elements): the cheapest mix of selects and
    lane-dependent byte permutes that joins ``merges + 1`` classes of registers at every
    byte position of one register (the byte-join lemma, module docstring; :func:`join_cost`).

    Raises:
        LayoutError: ``merges`` not an int ≥ 0 (at most 2^20), an element width not in
            :data:`~linlayout.conversion.problem.ELEMENT_BITS`, or bad weights.
    """
    merges = _count_in_range(merges, "merges", 1 << 20)
    _check_element_bits(element_bits)
    return join_cost(merges * (element_bits // 8), element_bits, weights)


def _count_in_range(value: object, what: str, limit: int) -> int:
    """``value`` as an int (:func:`~linlayout._checks.as_int`) between 0 and ``limit``
    inclusive; raise :class:`LayoutError` naming ``what`` otherwise."""
    value = as_int(value, what)
    if not 0 <= value <= limit:
        raise LayoutError(f"{what} must be between 0 and {limit}, got {value}")
    return value


def _check_element_bits(element_bits: object) -> None:
    """Raise :class:`LayoutError` unless ``element_bits`` is one of
    :data:`~linlayout.conversion.problem.ELEMENT_BITS`."""
    if isinstance(element_bits, bool) or element_bits not in ELEMENT_BITS:
        raise LayoutError(f"element_bits must be one of {list(ELEMENT_BITS)}, got "
                          f"{shown(element_bits)}")


def join_cost(joins: int, element_bits: int,
              weights: Mapping[str, float] | None = None) -> float:
    """The least ``a · w_selp + b · w_prmt`` over whole ``a, b ≥ 0`` with
    ``c · a + 7 · b ≥ joins`` (``c`` = 4, 8 for 64-bit elements): the cheapest merges that
    supply ``joins`` byte joins (the byte-join lemma, module docstring: a select supplies
    at most ``c``, a lane-dependent byte permute at most 7).

    Raises:
        LayoutError: ``joins`` not an int ≥ 0 (at most 2^24), an element width not in
            :data:`~linlayout.conversion.problem.ELEMENT_BITS`, or bad weights.
    """
    joins = _count_in_range(joins, "joins", 1 << 24)
    _check_element_bits(element_bits)
    ws = resolve_weights(weights)
    if joins <= 0:
        return 0.0
    c = 8 if element_bits == 64 else 4
    return min(b * ws["prmt"] + -(-max(0, joins - 7 * b) // c) * ws["selp"]
               for b in range(-(-joins // 7) + 1))


def tight_merges(problem: ConversionProblem) -> int:
    """``F + p`` (module docstring): the merges any shuffle plan of 32- or 64-bit elements
    needs when it issues no more shuffles than :func:`~linlayout.conversion.shuffle.
    shuffle_bound`; 0 for narrower elements, when no lane lacks anything, or when data must
    cross warps. Counted lane by lane on warp 0 (every warp runs the same plan).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    instance_of(problem, ConversionProblem, "problem")
    if problem.element_bits < 32 or warp_map(problem) is None:
        return 0
    n = lacking_elements(problem)
    if n == 0:
        return 0
    nrs, nrd = problem.register_bits
    lanes = range(1 << problem.lane_bits)
    held = [{problem.thread_elements("src", x, lane, 0) for x in range(1 << nrs)}
            for lane in lanes]
    need = [[problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)]
            for lane in lanes]
    tight = [lane for lane in lanes if len(set(need[lane]) - held[lane]) == n]
    src_regs = [[problem.thread_elements("src", x, lane, 0) for lane in lanes]
                 for x in range(1 << nrs)]
    dup = f2.null_space(problem.columns("dst", "register"))
    count = 0
    local_only = []  # merged registers every lane holds: their merges may precede the shuffle
    for r in range(1 << nrd):
        if f2.reduce(r, dup) != r:
            continue  # a copy of a register already counted
        column = [need[lane][r] for lane in lanes]
        if not any(column[lane] in held[lane] for lane in tight) or column in src_regs:
            continue  # may come through a shuffle, or is a source register renamed
        count += 1
        if all(column[lane] in held[lane] for lane in lanes):
            local_only.append(set(column))
    if n == 1 and problem.element_bits == 32:
        where: dict[int, set[int]] = {}
        for lane in lanes:
            for x in range(1 << nrs):
                where.setdefault(src_regs[x][lane], set()).add(x)
        lacked = [next(iter(set(need[lane]) - held[lane])) for lane in tight]
        common = set.intersection(*(where[e] for e in lacked))
        if not common and all(any(e not in image for e in lacked) for image in local_only):
            count += 1
    return count


def merge_volume(problem: ConversionProblem) -> int:
    """``V``: the fewest merges any shuffle plan needs, however many shuffles it issues, by
    the *merge volume lemma* (module docstring): ``⌈N · element_bits / (L · B)⌉`` with ``N``
    the distinct elements that the *mixed* ``dst`` registers hold across the lanes (a
    ``dst`` register is mixed when no ``src`` register holds, in some lane, the element it
    asks of every lane; copies of a register counted once), ``L`` the lanes of a warp and
    ``B = max(32, element_bits)`` the bits one merge writes per lane. 0 when data must cross
    warps. Counted lane by lane on warp 0 (every warp runs the same plan).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    instance_of(problem, ConversionProblem, "problem")
    if warp_map(problem) is None:
        return 0
    nrs, nrd = problem.register_bits
    lanes = range(1 << problem.lane_bits)
    images = [{problem.thread_elements("src", x, lane, 0) for lane in lanes}
              for x in range(1 << nrs)]
    dup = f2.null_space(problem.columns("dst", "register"))
    mixed: set[int] = set()
    for r in range(1 << nrd):
        if f2.reduce(r, dup) != r:
            continue  # a copy of a register already counted
        column = {problem.thread_elements("dst", r, lane, 0) for lane in lanes}
        if not any(column <= image for image in images):
            mixed |= column
    per_merge = max(32, problem.element_bits) << problem.lane_bits
    return -(-len(mixed) * problem.element_bits // per_merge)


def swaps_bring_nothing_lacked(problem: ConversionProblem) -> bool:
    """No lane lacks an element that lane ``l ⊕ 16`` or ``l ⊕ 32`` holds: a gfx950
    ``v_permlane16/32_swap_b32`` then brings no lane anything it lacks, and is only a merge
    (module docstring). Counted lane by lane on warp 0 (every warp runs the same plan);
    a partner lane outside the layout's lanes holds nothing of the tensor.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`.
    """
    instance_of(problem, ConversionProblem, "problem")
    nrs, nrd = problem.register_bits
    lanes = 1 << problem.lane_bits
    held = [{problem.thread_elements("src", x, lane, 0) for x in range(1 << nrs)}
            for lane in range(lanes)]
    for lane in range(lanes):
        lacked = {problem.thread_elements("dst", r, lane, 0)
                  for r in range(1 << nrd)} - held[lane]
        if any(p < lanes and lacked & held[p] for p in (lane ^ 16, lane ^ 32)):
            return False
    return True


def shuffle_family_bound(problem: ConversionProblem, target: Target | str,
                         weights: Mapping[str, float] | None = None) -> ShuffleBound:
    """The least cost of any shuffle plan on ``target`` (module docstring): shuffles
    (:func:`~linlayout.conversion.shuffle.shuffle_bound`) and merges (:func:`merge_cost` of
    :func:`~linlayout.conversion.shuffle.select_bound`, or :func:`merge_volume` merges at
    ``u = min(w_selp, w_prmt)`` each where that is more; for 32- and 64-bit elements the
    smaller of ``S`` shuffles with :func:`tight_merges` merges and ``S + 1`` shuffles with
    those), on NVIDIA and gfx942. On gfx950 a ``v_permlane*_swap`` counts as two merges
    for the price of a shuffle where it brings nothing lacked
    (:func:`swaps_bring_nothing_lacked`), else as a shuffle that also joins two registers
    in each output: the least over the number of swaps. The AMD packing bound is
    :func:`~linlayout.conversion.shuffle.amd_packing_bound` (applied by
    :func:`~linlayout.plan_conversion` where the source is unpacked, the higher of the two
    kept).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target, or
            bad weights.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    ws = resolve_weights(weights)
    s = shuffle_bound(problem)
    n = lacking_elements(problem)
    note = (f"each lane lacks up to {n} {problem.element_bits}-bit element"
            f"{'' if n == 1 else 's'}, 32 bits per shfl, data of at most 2^t lanes after t "
            f"shfl: at least {s} shfl")
    m = select_bound(problem)
    v = merge_volume(problem)
    mw = ws
    if target.arch == "gfx950":
        if not swaps_bring_nothing_lacked(problem):
            # a swap is a shuffle that also joins two registers in each of its two outputs
            # (and writes two merge outputs: the volume lemma counts both)
            u = min(ws["selp"], ws["prmt"])
            joins = m * (problem.element_bits // 8)
            cost = min(ws["shfl"] * max(s, p)
                       + max(join_cost(max(0, joins - 8 * p), problem.element_bits, ws),
                             max(0, v - 2 * p) * u)
                       for p in range(max(-(-joins // 8), -(-v // 2)) + 1))
            note += (f"; some dst register draws on {m + 1} classes of src registers, and "
                     "a v_permlane*_swap (a shfl that joins two registers in each of its "
                     "two outputs: 8 byte joins), a select (4) or a lane-dependent byte "
                     "permute (7) joins them byte by byte")
            if v > 1:
                note += (f"; the mixed dst registers hold bytes that only {v} merge outputs "
                         "can hold (the merge volume lemma; a swap writes two)")
            if not two_shuffles_without_merge(problem):
                two = min(2 * ws["shfl"] + min(ws["selp"], ws["prmt"]), 3 * ws["shfl"])
                if two > cost + 1e-12:
                    cost = two
                    note += ("; but no plan of two shfl, swaps included, and no selp or "
                             "lane-dependent prmt reaches dst (the two-shuffle lemma): a "
                             "merge, or a third shfl")
                return ShuffleBound(cost, s, m, 1, note, v)
            return ShuffleBound(cost, s, m, 0, note, v)
        # every swap only joins registers: two merges for the price of a shuffle
        mw = dict(ws, selp=min(ws["selp"], ws["shfl"] / 2))
        note += ("; no lane lacks what lane l^16 or l^32 holds, so a v_permlane*_swap is "
                 "two merges")
    unit = min(mw["selp"], mw["prmt"])
    mc = merge_cost(m, problem.element_bits, mw)
    if m:
        note += (f"; some dst register draws on {m + 1} classes of src registers across the "
                 f"lanes: {m * (problem.element_bits // 8)} byte joins, at most "
                 f"{8 if problem.element_bits == 64 else 4} per selp and 7 per "
                 "lane-dependent prmt")
    if v * unit > mc + 1e-12:
        mc = v * unit
        note += (f"; the mixed dst registers hold bytes that only {v} merge outputs can hold "
                 "(the merge volume lemma), however many shfl")
    cost = s * ws["shfl"] + mc
    t = tight_merges(problem)
    if t * unit > mc + 1e-12:
        tight = s * ws["shfl"] + max(mc, t * unit)
        more = (s + 1) * ws["shfl"] + mc
        if min(tight, more) > cost:
            cost = min(tight, more)
            note += (f"; with only {s} shfl at least {t} merges (each dst register a "
                     "lane lacking the most already holds that no src register renames, "
                     "and the word a lone shfl sends where no register serves every "
                     f"lane), else {s + 1} shfl")
    return ShuffleBound(cost, s, m, t, note, v)


#: The lane masks a gfx950 ``v_permlane16_swap_b32`` and ``v_permlane32_swap_b32`` cross.
GFX950_SWAP_LANE_MASKS = (16, 32)


def two_shuffles_without_merge(problem: ConversionProblem,
                               swap_lane_masks: tuple[int, ...] = GFX950_SWAP_LANE_MASKS,
                               *, one_element_per_register: bool = False) -> bool:
    """Whether a plan of exactly two shuffles and no lane-dependent merge may reach ``dst``
    (the *two-shuffle lemma*, below): False only where the lemma proves that none can;
    True (claiming nothing) where its hypotheses fail.

    The shuffles are those of the gfx950 family (module docstring): ``ds_bpermute_b32`` and
    DPP moves (*reads*: every lane reads one named register of a lane of its choice), and
    swaps across each lane mask ``b`` of ``swap_lane_masks`` (``v_permlane16/32_swap_b32``:
    of registers ``A, B``, lane ``t`` with ``t & b = 0`` keeps ``A`` and puts ``A`` of lane
    ``t ⊕ b`` in ``B``; a lane with ``t & b ≠ 0`` keeps ``B`` and puts ``B`` of lane ``t ⊕ b``
    in ``A``); the merges are ``v_cndmask_b32`` and ``v_perm_b32`` with a lane-dependent
    mask or selector; everything else moves bytes alike in every lane.

    **Hypotheses.** 32-bit elements, one warp, :func:`~linlayout.conversion.shuffle.
    shuffle_bound` 2, each lane lacks at most two elements, and every lane ``t`` of ``T``
    (the lanes lacking two) lacks every element of its ``dst`` registers. With
    ``one_element_per_register``, 8- or 16-bit elements the producer left one to a register
    too (the caller's claim that a join of two is priced: at 8 bits, bytes with unknown
    upper bits), where a *merge* is then any instruction that writes bytes of two registers into one
    (a uniform ``v_perm_b32`` packing a pair included): without one, every value holds at
    most one element in each lane, and the argument below runs with one element in place of
    4 bytes and one ``dst`` register in place of 4 slots.

    **Lemma.** Take such a plan. A lane ``t`` of ``T`` must receive 8 bytes it lacks in two
    shuffles of 4 bytes each (a read's result, or the output of a swap that takes the
    partner's register): every received byte is a distinct lacked byte, and every byte of
    a ``dst`` register comes, in ``t``, from a received byte. Each byte position of each
    ``dst`` register (a *slot*) is, through the instructions alike in every lane, one byte
    of one register the plan wrote or read — the same in every lane. A slot taken from a
    ``src`` register, or from a swap output that a lane of ``T`` keeps (its own data, or data
    it held before the swap), must hold, in that lane, a lacked byte. Case by case, with
    ``I1``, ``I2`` the two shuffles:

    * read, read: each slot traces to one byte of one ``src`` register (the lane read from
      varies, the register does not), so each ``dst`` register takes its element, in every
      lane, from one ``src`` register (``PP``).
    * swap on ``b``, read: a slot taken from either swap output holds a lane's own data in
      the lanes of ``T`` that keep that output, so when ``T`` has lanes on both sides of
      ``b`` every slot comes from the read's 4 bytes — fewer than the 8 needed. Possible
      only when ``T`` lies on one side of ``b``.
    * read, swap on ``b``, ``T`` on both sides of ``b``: the 4 bytes a lane of ``T`` receives
      in the swap fill 4 slots from output ``B`` (lanes with ``t & b = 0``) and 4 from ``A``
      (the others), so the other 4 slots of each output are, in the lanes of ``T`` keeping
      it, the read's bytes: ``A`` and ``B`` before the swap are the read's result, bytes
      rearranged alike in every lane. Then lanes ``t`` and ``t ⊕ b`` both end with the bytes
      the read brought to ``t`` and to ``t ⊕ b``: they need the same elements (``PW``).
    * swap on ``b1``, swap on ``b2``, ``T`` on both sides of ``b2``: all 8 slots come from
      the second swap's outputs, and the register a lane of ``T`` keeps there must hold, in
      each lane of ``T`` on that side of ``b2``, bytes the first swap brought — from the one
      output that lane received in, which depends on the lane's side of ``b1``. So the
      lanes of ``T`` on each side of ``b2`` lie on one side of ``b1``; with ``b1 = b2 = b``
      every lane ``t`` of ``T`` ends with bytes of lane ``t ⊕ b``'s ``src`` registers only:
      its ``dst`` elements are among what lane ``t ⊕ b`` holds (``WW``).

    Where none of these holds for any masks, every two-shuffle plan needs a merge, so any
    plan costs at least ``min(2 · w_shfl + min(w_selp, w_prmt), 3 · w_shfl)``
    (:func:`shuffle_family_bound`). Brute-force checked against every program of two
    shuffles (reads with every source-lane map, swaps across both lane bits) on a 4-lane
    warp (``tests/conversion/test_bounds.py``).

    Args:
        problem: the conversion.
        swap_lane_masks: the lane masks the swaps cross (gfx950: lane bits 4 and 5).
        one_element_per_register: the source holds one 8- or 16-bit element per register
            (the caller knows where the producer left them, and that joining two costs a
            priced instruction); joins then count as merges.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, the masks are not a
            tuple of powers of two, or ``one_element_per_register`` is not a bool.
    """
    instance_of(problem, ConversionProblem, "problem")
    if not isinstance(swap_lane_masks, (tuple, list)) or any(
            isinstance(b, bool) or not isinstance(b, int) or b <= 0 or b & (b - 1)
            for b in swap_lane_masks):
        raise LayoutError(f"swap_lane_masks must be powers of two, got {swap_lane_masks!r}")
    if not isinstance(one_element_per_register, bool):
        raise LayoutError("one_element_per_register must be True or False, got "
                          f"{one_element_per_register!r}")
    lanes = 1 << problem.lane_bits
    widths = (8, 16, 32) if one_element_per_register else (32,)
    if (problem.element_bits not in widths or warp_map(problem) is None
            or shuffle_bound(problem) != 2 or lacking_elements(problem) != 2
            or any(b >= lanes for b in swap_lane_masks)):
        return True
    nrs, nrd = problem.register_bits
    src = [[problem.thread_elements("src", x, lane, 0) for x in range(1 << nrs)]
           for lane in range(lanes)]
    dst = [[problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)]
           for lane in range(lanes)]
    held = [set(row) for row in src]
    need = [set(row) for row in dst]
    tight = [t for t in range(lanes) if len(need[t] - held[t]) == 2]
    if any(need[t] & held[t] or len(need[t]) != 2 for t in tight):
        return True  # a lane of T keeps something: the lemma does not apply

    def one_side(group: list[int], b: int) -> bool:
        return len({t & b for t in group}) <= 1

    images = [{src[s][x] for s in range(lanes)} for x in range(1 << nrs)]
    if all(any(all(dst[t][r] in image for t in range(lanes)) for image in images)
           for r in range(1 << nrd)):
        return True  # PP
    for b in swap_lane_masks:
        if one_side(tight, b):
            return True  # a swap on b then a read, or a read then a swap, not refuted
        if all(need[t] == need[t ^ b] for t in tight):
            return True  # PW
        if all(need[t] <= held[t ^ b] for t in tight):
            return True  # WW with b1 = b2
        for b1 in swap_lane_masks:
            if b1 != b and all(one_side([t for t in tight if t & b == side], b1)
                               for side in (0, b)):
                return True  # WW with b1 != b2 = b, not refuted
    return False


def _swap_group(lane: int, lanes: int, target: Target) -> set[int]:
    """The lanes whose source data may reach ``lane`` without a shuffle: itself and, on
    gfx950, the lanes ``v_permlane16/32_swap_b32`` reach (``l ⊕ 16``, ``l ⊕ 32``, both)."""
    if target.arch != "gfx950":
        return {lane}
    return {lane ^ x for x in (0, 16, 32, 48) if lane ^ x < lanes}


def lone_shuffle_joins(problem: ConversionProblem, target: Target | str) -> tuple[int, int]:
    """``(pre, post)``: the joins any plan with exactly one shuffle (one ``ds_bpermute_b32``
    or DPP move; on gfx950 any number of ``v_permlane*_swap`` besides, where they bring
    nothing lacked; on NVIDIA one ``shfl.sync.idx.b32``) needs before and after it, each 0
    or 1 (the lone-shuffle lemma of :func:`amd_lone_shuffle_bound` and
    :func:`nvidia_lone_shuffle_bound`). ``pre`` is 1 when no single ``src`` register holds,
    in some lane, everything each lacking lane lacks: the shipped word then takes bytes of
    two registers (a lane-dependent merge, or a join of two registers the same in every
    lane). ``post`` is 1 when some ``dst`` register holds, in a lane ``t`` that lacks
    something, an element ``t`` already holds which no lane that could serve ``t``'s lone
    shuffle holds (its swap partners' data included), and in some lane an element that
    lane lacks: then a lane-dependent instruction follows the shuffle. ``(0, 0)`` when
    :func:`~linlayout.conversion.shuffle.shuffle_bound` is not 1, data crosses warps, or
    (gfx950) a swap, or two, could bring a lane something it lacks (from ``l ⊕ 16``,
    ``l ⊕ 32`` or ``l ⊕ 48``). Counted lane by lane on warp 0.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, or an unknown target.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    if warp_map(problem) is None or shuffle_bound(problem) != 1:
        return 0, 0
    nrs, nrd = problem.register_bits
    lanes = 1 << problem.lane_bits
    src = [[problem.thread_elements("src", x, lane, 0) for x in range(1 << nrs)]
           for lane in range(lanes)]
    held = [set(row) for row in src]
    need = [[problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)]
            for lane in range(lanes)]
    lacked = [set(need[lane]) - held[lane] for lane in range(lanes)]
    lacking = [lane for lane in range(lanes) if lacked[lane]]
    if not lacking:
        return 0, 0
    # pre: is there one register x whose element, in some lane, is all a lacking lane lacks?
    pre = int(not any(all(any(lacked[t] <= {src[s][x]} for s in range(lanes))
                          for t in lacking) for x in range(1 << nrs)))
    # data each lane can hold without the shuffle: its own and (gfx950) what swaps, one or
    # two, bring it; the lemma needs none of it lacked
    reach = [set().union(*(held[p] for p in _swap_group(s, lanes, target)))
             for s in range(lanes)]
    if any(lacked[t] & reach[t] for t in lacking):
        return 0, 0
    servers = {t: [s for s in range(lanes) if lacked[t] <= reach[s]] for t in lacking}
    post = 0
    for r in range(1 << nrd):
        column = [need[lane][r] for lane in range(lanes)]
        if not any(column[lane] in lacked[lane] for lane in range(lanes)):
            continue  # no lane receives this register's element
        if any(column[t] in held[t] and all(column[t] not in reach[s] for s in servers[t])
               for t in lacking):
            post = 1
            break
    return pre, post


def amd_lone_shuffle_bound(problem: ConversionProblem, target: Target | str,
                           weights: Mapping[str, float] | None = None, *,
                           wide_source: bool = False) -> float:
    """A lower bound on any shuffle plan on AMD (gfx942; gfx950 where no swap, nor two,
    brings a lane anything it lacks) of 16-bit elements that the producer left one to a
    register — or, with ``wide_source``, 8-bit ones left one to a 32-bit register with
    unknown upper bits — when one shuffle may suffice
    (:func:`~linlayout.conversion.shuffle.shuffle_bound` 1); 0 where it does not apply
    (other widths, NVIDIA, more shuffles needed).

    **Lemma (joins on AMD).** Every instruction that writes, into one VGPR, bytes of two
    different VGPRs is a VALU instruction. A lane-dependent one is a merge (``v_cndmask_b32``,
    ``v_perm_b32`` with a per-lane selector: ``selp``/``prmt`` weights; on gfx950 a
    ``v_permlane*_swap``: the ``shfl`` weight); one the same in every lane that joins two
    16-bit elements held one to a register is, in the family, the packing ``v_perm_b32`` of
    :data:`~linlayout.conversion.shuffle.AMD_PACK_PERMUTES` (as
    :func:`~linlayout.conversion.shuffle.amd_packing_bound` prices it). Either way a join
    costs at least ``u = min(w_selp, w_prmt, w_shfl)``. At 8 bits the model prices a
    same-in-every-lane join of two zero-extended bytes at nothing (``v_lshl_or_b32``), so the
    lemma, and this bound, stop there; but two *computed* bytes (``wide_source``: a gather's
    or reduction's 32-bit results, upper bits unknown) take one ``v_perm_b32`` as LLVM
    selects Triton's zero-extended ``<2 x i16>`` spelling of the pair (with two
    ``v_and_b32``; :func:`~linlayout.lowering.amd_pack.pack_permutes`,
    ``papers/conversion/wide_join_isel.py``), as the plans pay it, so with ``wide_source``
    the lemma holds at 8 bits too. Like the other AMD packing bounds it bounds plans whose
    joins are spelled so: ``(a & 0xffff) | (b << 16)``, each slot's high byte left unknown,
    is two VALU instructions of no counted kind (``v_lshlrev_b32``, ``v_and_or_b32``) and
    could undercut it, as a hand-written ``v_lshl_or_b32`` could at 16 bits
    (:mod:`~linlayout.conversion.cost`).

    **Lone shuffle.** Take a plan with exactly one shuffle ``S`` (``ds_bpermute_b32`` or a
    DPP move: every lane reads one named register of one lane; swaps, bringing nothing
    lacked, are merges here). Without ``S`` a lane holds only its own data and (gfx950) what
    swaps bring it from lanes ``l ⊕ 16``, ``l ⊕ 32``, ``l ⊕ 48`` — none of it lacked. *Before:* the word ``W`` that ``S`` sends must hold, in the lane each
    lacking lane reads, what that lane lacks. Were no byte of ``W`` rooted at a
    lane-dependent instruction, each byte position of ``W`` would come from the same
    ``src`` register in every lane; if no register serves every lacking lane
    (:func:`lone_shuffle_joins`' ``pre``), ``W`` draws on two registers: one join, before
    ``S``. *After:* suppose no lane-dependent instruction depends on ``S``'s result. Then
    swaps carry only data held without ``S`` — nothing lacked — so each lacking lane ``t``
    receives all it lacks through ``S``, from a lane ``s`` holding it (in its own data or
    its swap partners'); and every byte of a
    ``dst`` register is, in every lane, the same byte of the same value. A ``dst`` register
    whose element some lane lacks then takes that byte from ``S``'s result in every lane —
    in lane ``t`` a byte of lane ``s``'s data; if ``t``'s element there is one ``t`` holds
    and no such ``s`` holds (``post``), that is a contradiction. So a lane-dependent
    instruction depends on ``S``: a second join, after ``S``, not the first. A one-shuffle
    plan costs at least ``w_shfl + max(merge_cost(m), (pre + post) · u)``; any other at
    least ``2 · w_shfl + merge_cost(m)`` (``m``:
    :func:`~linlayout.conversion.shuffle.select_bound`; merges priced as
    :func:`shuffle_family_bound` prices them on the target). The bound is the smaller.

    On gfx950, where a swap could bring a lane something it lacks (:func:`lone_shuffle_joins`
    claims nothing) but no single swap serves every lacking lane (for each of lane masks 16
    and 32, some lane lacks an element its partner ``l ⊕ mask`` does not hold), a plan with
    one shuffle-kind instruction (read, DPP move or swap) has a read as that instruction and
    no swap, so the gfx942 argument holds for it (``pre``/``post`` without swap partners),
    and any other plan costs at least ``2 · w_shfl``: the bound is ``min(w_shfl +
    max(merge_cost(m), (pre + post) · u), 2 · w_shfl)``. (A lane permutation that keeps the
    register bit and trades lane bits 4 and 5 is one: 1.5 at the default weights.)

    On the single register/lane exchange (each lane lacks one element, held by its partner
    in the other register) ``pre = post = 1``: ``min(1 + 2 · 0.5, 2 + 0.5) = 2`` at the
    default weights, the packed exchange's cost.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target,
            bad weights, or ``wide_source`` not a bool.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    ws = resolve_weights(weights)
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    if target.is_nvidia or problem.element_bits not in ((8, 16) if wide_source else (16,)):
        return 0.0
    pre, post = lone_shuffle_joins(problem, target)
    more = None  # the least cost of a plan with two shuffles or more, where not 2 + mc
    if not pre + post and target.arch == "gfx950" and _no_swap_serves(problem):
        # swaps may bring lacked data, but no single swap serves every lacking lane: a plan
        # of one shuffle-kind instruction is one read and no swap, as on gfx942
        pre, post = lone_shuffle_joins(problem, "hip:gfx942")
        more = 2 * ws["shfl"]
    if not pre + post:
        return 0.0
    mw = ws
    if target.arch == "gfx950":
        mw = dict(ws, selp=min(ws["selp"], ws["shfl"] / 2))
    mc = merge_cost(select_bound(problem), problem.element_bits, mw)
    u = min(ws["selp"], ws["prmt"], ws["shfl"])
    if more is not None:
        return min(ws["shfl"] + max(merge_cost(select_bound(problem), problem.element_bits,
                                               ws), (pre + post) * u), more)
    one = ws["shfl"] + max(mc, (pre + post) * u)
    return min(one, 2 * ws["shfl"] + mc)


def _no_swap_serves(problem: ConversionProblem) -> bool:
    """Data crosses no warp, one shuffle may suffice, and for each gfx950 swap mask (16, 32,
    below the lane count) some lane lacks an element its swap partner ``l ⊕ mask`` does not
    hold: then no plan whose only shuffle-kind instruction is one ``v_permlane*_swap``
    reaches ``dst`` (a swap gives a lane one register of its partner and nothing else)."""
    if warp_map(problem) is None or shuffle_bound(problem) != 1:
        return False
    nrs, nrd = problem.register_bits
    lanes = 1 << problem.lane_bits
    held = [{problem.thread_elements("src", x, lane, 0) for x in range(1 << nrs)}
            for lane in range(lanes)]
    lacked = [{problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)}
              - held[lane] for lane in range(lanes)]
    return all(any(lacked[t] - held[t ^ b] for t in range(lanes))
               for b in GFX950_SWAP_LANE_MASKS if b < lanes)


def nvidia_lone_shuffle_bound(problem: ConversionProblem, target: Target | str,
                              weights: Mapping[str, float] | None = None) -> float:
    """A lower bound on any shuffle plan on NVIDIA of 16-bit elements that the producer left
    one to a 32-bit register with unknown upper bits (``wide_source``: a gather's or
    ``redux.sync`` reduction's result), when one shuffle may suffice
    (:func:`~linlayout.conversion.shuffle.shuffle_bound` 1); 0 where it does not apply
    (AMD, other widths, more shuffles needed). :func:`~linlayout.plan_conversion` applies it
    only with ``wide_source``.

    **Lemma (joins of wide registers on NVIDIA).** Each element sits in the low half of its
    own register, so a value holding two of them in its two halves needs an instruction
    that moves bits within a register: no renaming does that (a renaming changes which
    register holds a value, not where its bits sit). A lane-dependent one is a merge
    (``selp``, a ``prmt`` with a per-lane selector); one the same in every lane is a *join*,
    which the model charges as one ``prmt.b32`` — what NVPTX selects for Triton 3.9's
    ``<2 x i16>`` packing, a ``shufflevector`` or ``<2 x half>`` of the two, and
    ``llvm.nvvm.prmt``; every other spelling measured takes two or three integer
    instructions of kinds no weight counts (``shl`` and ``shf.l.wrap.b32``; ``and``,
    ``shl``, ``or``) and no ``prmt`` (``papers/conversion/wide_join_isel.py``, sm_80 and
    sm_90, with and without ``-O3``). So the bound holds over plans whose joins are spelled
    as NVPTX selects Triton's packing, as every plan here and Triton's own path are; a
    join spelled with shifts would cost nothing under the counted kinds and could undercut
    it, though it issues more integer instructions than the ``prmt`` it replaces (as the
    AMD packing bounds bound plans whose joins are ``v_perm_b32`` as LLVM selects them:
    :mod:`~linlayout.conversion.cost`). Either kind of join costs at least
    ``u = min(w_selp, w_prmt)``.

    **Lone shuffle.** The argument of :func:`amd_lone_shuffle_bound`, without swaps: a
    plan with exactly one ``shfl.sync.idx.b32`` needs a join or merge before it when no
    single ``src`` register holds, in some lane, everything each lacking lane lacks
    (:func:`lone_shuffle_joins`' ``pre``: the shipped word draws on two registers), and a
    lane-dependent instruction after it when some ``dst`` register holds, in a lacking lane,
    an element that lane already holds and no lane serving it holds (``post``). A
    one-shuffle plan costs at least ``w_shfl + max(merge_cost(m), (pre + post) · u)``, any
    other at least ``2 · w_shfl + merge_cost(m)``; the bound is the smaller. A lane whose
    two ``dst`` elements both sit in another lane's two registers (a lane permutation that
    keeps the register bit) has ``pre = 1``: ``min(1 + 0.5, 2) = 1.5`` at the default
    weights, one join and one shuffle; the single register/lane exchange has
    ``pre = post = 1``: ``min(1 + 2 · 0.5, 2 + 0.5) = 2``, the packed exchange's pack,
    shuffle and lane-dependent ``prmt``. Checked against every program of one shuffle and
    at most one join of a 4-lane warp (``tests/conversion/test_bounds.py``).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target, or
            bad weights.

    Source: the lone-shuffle argument above (``amd_lone_shuffle_bound``'s, with NVPTX's
    ``prmt.b32`` for a join: ``papers/conversion/wide_join_isel.py``, Triton 3.9's LLVM).
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    ws = resolve_weights(weights)
    if not target.is_nvidia or problem.element_bits != 16:
        return 0.0
    pre, post = lone_shuffle_joins(problem, target)
    if not pre + post:
        return 0.0
    mc = merge_cost(select_bound(problem), problem.element_bits, ws)
    u = min(ws["selp"], ws["prmt"])
    return min(ws["shfl"] + max(mc, (pre + post) * u), 2 * ws["shfl"] + mc)


def amd_two_shuffle_bound(problem: ConversionProblem, target: Target | str,
                          weights: Mapping[str, float] | None = None, *,
                          wide_source: bool = False) -> float:
    """A lower bound on any shuffle plan on gfx950 of 16-bit elements that the producer left
    one to a register (with ``wide_source`` also 8-bit ones left one to a 32-bit register,
    whose join is a ``v_perm_b32`` as :func:`amd_lone_shuffle_bound` says), where two
    shuffles are needed and the two-shuffle lemma
    (:func:`two_shuffles_without_merge` with ``one_element_per_register``) shows that no two
    shuffles reach ``dst`` without a join: ``min(2 · w_shfl + min(w_selp, w_prmt),
    3 · w_shfl)`` — a join that is not a swap is a lane-dependent merge (``v_cndmask_b32``,
    ``v_perm_b32``) or a same-in-every-lane ``v_perm_b32`` packing a pair (the lemma on AMD
    joins of :func:`amd_lone_shuffle_bound`), else a third shuffle. 0 where it does not
    apply (other targets or widths, the lemma not refuting).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target,
            bad weights, or ``wide_source`` not a bool.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    ws = resolve_weights(weights)
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    if target.arch != "gfx950" or problem.element_bits not in ((8, 16) if wide_source
                                                                else (16,)):
        return 0.0
    if two_shuffles_without_merge(problem, one_element_per_register=True):
        return 0.0
    return min(2 * ws["shfl"] + min(ws["selp"], ws["prmt"]), 3 * ws["shfl"])
