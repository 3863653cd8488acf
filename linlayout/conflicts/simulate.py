"""Brute-force bank simulator on linear layouts: the ground truth for the closed forms.

It uses no subspace algebra: it inverts the memory layout with a dictionary, lists every
element each lane touches in every warp-level instruction, turns element offsets into bank
words by arithmetic on addresses, and counts distinct words per bank in each phase.

:func:`simulate_access` is the engine, in named steps: :func:`check_simulation` (arguments
and work), :func:`element_locations` (address enumeration), :func:`enumerated_vector_log2`
and :func:`register_groups` (the vector and the instructions), :func:`phase_lanes_by_id`,
:func:`phase_degree` and :func:`instruction_wavefronts` (per-phase counting), then
:func:`simulation_report`. It imports only the access rule (:mod:`linlayout.hardware.access`),
the report and the layers below; padded layouts reach it through ``offset_map`` from
:mod:`.padded`, AMD LDS instructions through :mod:`.lds`, and the public
:func:`linlayout.simulate_bank_access` (:mod:`.dispatch`) routes to all three.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .._checks import as_int
from ..errors import LayoutError
from ..hardware.access import AccessPlan, check_vector, plan_access
from ..hardware.instructions import Instruction, check_element, check_matrix_access
from ..hardware.model import BankModel
from ..layout import LinearLayout
from .report import ConflictReport

__all__ = ["MAX_SIMULATION_STEPS", "check_simulation", "check_work", "element_locations",
           "enumerated_alignment_log2", "enumerated_vector_log2", "instruction_wavefronts",
           "packed_by_lanes", "phase_degree", "phase_lanes_by_id", "register_groups", "simulate_access",
           "simulation_report"]


def _xor_all(cols: tuple[int, ...], x: int) -> int:
    out = 0
    for i, c in enumerate(cols):
        if x >> i & 1:
            out ^= c
    return out


#: Default work limit of :func:`simulate_bank_access`: memory locations plus thread-register
#: combinations (about ten seconds of enumeration at the limit).
MAX_SIMULATION_STEPS = 1 << 22


def check_work(plan: AccessPlan, limit: int | None = None) -> int:
    """The enumeration steps :func:`simulate_access` would take for ``plan``: memory
    locations plus (block, warp, register, lane) combinations.

    Raises:
        LayoutError: the steps exceed ``limit`` (default :data:`MAX_SIMULATION_STEPS`); the
            message gives both and points to the closed form.
    """
    limit = MAX_SIMULATION_STEPS if limit is None else as_int(limit, "limit")
    locations = 1 << len(plan.memory_cols)
    threads = 1 << (len(plan.block) + len(plan.warp) + len(plan.register) + len(plan.lane))
    steps = locations + threads
    if steps > limit:
        raise LayoutError(
            f"simulating this access enumerates 2^{len(plan.memory_cols)} memory locations and "
            f"{threads} (block, warp, register, lane) combinations, {steps} steps, over the "
            f"limit of {limit}; bank_conflicts counts the same access in closed form (pass "
            "limit= to simulate anyway)")
    return steps


def check_simulation(layout: LinearLayout, memory: LinearLayout, model: BankModel,
                     instr: Instruction, vector_elems: int | None,
                     limit: int | None) -> AccessPlan:
    """Step 1, the argument checks: validate the pair, bound the work, and for
    ldmatrix/stmatrix apply the closed form's preconditions (one function for both).

    Returns:
        The pair in flat form (:func:`~linlayout.hardware.access.plan_access`).

    Raises:
        LayoutError: as :func:`~linlayout.hardware.access.plan_access`, :func:`check_work`
            and :func:`~linlayout.hardware.instructions.check_matrix_access`.
    """
    plan = plan_access(layout, memory, model.warp_log2)
    check_work(plan, limit)
    if instr.is_matrix:
        check_matrix_access(instr, plan.register, plan.lane, model.warp_log2,
                            model.hardware.row_bytes, model.element_bits, vector_elems)
    return plan


def element_locations(plan: AccessPlan) -> dict[int, int]:
    """Step 2, the address enumeration: the memory location of every tensor element
    (flat tensor coordinate → ``offset | block << offset_bits``), by listing every location
    of the memory layout (no inversion)."""
    where = {}
    for x in range(1 << len(plan.memory_cols)):
        where[_xor_all(plan.memory_cols, x)] = x
    return where


def enumerated_alignment_log2(plan: AccessPlan, where: dict[int, int]) -> int:
    """The largest ``k`` such that every thread's register-0 element (every lane, warp and
    block) sits at the same offset modulo ``2^k`` (at most ``offset_bits``): the alignment of
    :func:`~linlayout.hardware.access.alignment_log2`, by enumeration."""
    off_mask = (1 << plan.offset_bits) - 1
    starts = set()
    for blk in range(1 << len(plan.block)):
        for w in range(1 << len(plan.warp)):
            base = _xor_all(plan.block, blk) ^ _xor_all(plan.warp, w)
            for lane in range(1 << len(plan.lane)):
                starts.add(where[base ^ _xor_all(plan.lane, lane)] & off_mask)
    align = 0
    while align < plan.offset_bits and len({x & ((2 << align) - 1) for x in starts}) == 1:
        align += 1
    return align


def enumerated_vector_log2(plan: AccessPlan, reg_elems: Sequence[int], model: BankModel,
                           vector_elems: int | None, align_log2: int, cap_log2: int) -> int:
    """log2 of the vector: by default the widest ``k`` with memory offsets ``0 … 2^k−1`` among
    the elements the registers hold (``reg_elems``, listed), capped by the widest access,
    ``align_log2`` and ``cap_log2``; a requested one is checked by
    :func:`~linlayout.hardware.access.check_vector`.

    Raises:
        LayoutError: a requested vector that is not possible.
    """
    if vector_elems is None:
        held = set(reg_elems)
        k = 0
        while (k < min(model.max_vector_log2, plan.offset_bits, align_log2, cap_log2)
               and plan.memory_cols[k] in held):
            k += 1
        return k
    return check_vector(vector_elems, plan.memory_cols, plan.offset_bits, plan.register, model,
                        align_log2)


def register_groups(reg_elems: Sequence[int], where: dict[int, int],
                    vector_log2: int) -> list[list[int]]:
    """The instructions: registers whose elements lie in the same aligned run of
    ``2^vector_log2`` offsets (seen from lane 0, warp 0, block 0) are one instruction; each
    group lists its register indices."""
    groups: dict[int, list[int]] = defaultdict(list)
    for r, elem in enumerate(reg_elems):
        groups[where[elem] >> vector_log2].append(r)
    return list(groups.values())


def packed_by_lanes(plan: AccessPlan, model: BankModel, vector_log2: int, load: bool) -> bool:
    """Whether the access's return is packed, found by comparing every lane's element with
    its partner's: a load that may pack (:meth:`~linlayout.hardware.model.BankModel.may_pack`)
    where, for one of the hardware's ``packing_lanes`` ``m``, every lane ``n`` holds the same
    element as lane ``n ^ m``."""
    if not model.may_pack(vector_log2, load):
        return False
    elems = [_xor_all(plan.lane, n) for n in range(1 << model.warp_log2)]
    return any(all(elems[n] == elems[n ^ m] for n in range(len(elems)))
               for m in model.hardware.packing_lanes)


def phase_lanes_by_id(model: BankModel, vector_log2: int,
                      packed: bool = False) -> list[list[int]]:
    """The lanes of each phase of a ``2^vector_log2``-element access, found by evaluating the
    hardware's phase masks (:meth:`~linlayout.hardware.model.BankModel.phase_masks`, of the
    half-width access when ``packed``) on every lane id."""
    masks = model.phase_masks(vector_log2, packed)
    members: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for lane in range(1 << model.warp_log2):
        members[tuple(bin(lane & m).count("1") & 1 for m in masks)].append(lane)
    return list(members.values())


def phase_degree(lane_elems: Sequence[int], regs: Sequence[int], reg_elems: Sequence[int],
                 where: dict[int, int], plan: AccessPlan, model: BankModel,
                 offset_map: Sequence[int] | None) -> tuple[int, set[int]]:
    """Per-phase counting: the wavefronts of one phase and the CTAs it reaches.

    Args:
        lane_elems: the tensor element of register 0 of each lane of the phase.
        regs: the register indices of the instruction; reg_elems: each register's element.
        where: :func:`element_locations`; plan: the access.
        model: the bank model (element, word and bank sizes).
        offset_map: unpadded → padded element offset, or None.

    Returns:
        ``(degree, ctas)``: the most distinct ``(CTA, word)`` pairs any bank is asked for
        (every word an element overlaps counts), and the memory blocks touched.
    """
    e = model.element_bits
    word_bits = 1 << model.word_log2
    nbanks = 1 << model.banks_log2
    off_mask = (1 << plan.offset_bits) - 1
    banks: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for l_elem in lane_elems:
        for r in regs:
            loc = where[l_elem ^ reg_elems[r]]
            off, mb = loc & off_mask, loc >> plan.offset_bits
            if offset_map is not None:
                off = offset_map[off]
            first_bit = off * e
            for word in range(first_bit // word_bits, (first_bit + e - 1) // word_bits + 1):
                banks[word % nbanks].add((mb, word))
    degree = max((len(s) for s in banks.values()), default=1)
    ctas = {mb for s in banks.values() for mb, _ in s}
    return degree, ctas


def instruction_wavefronts(base_elem: int, regs: Sequence[int], reg_elems: Sequence[int],
                           phases: Sequence[Sequence[int]], where: dict[int, int],
                           plan: AccessPlan, model: BankModel,
                           offset_map: Sequence[int] | None) -> tuple[int, int]:
    """One warp-level instruction: ``(wavefronts, worst phase degree)``, summing
    :func:`phase_degree` over ``phases`` (lane ids); ``base_elem`` is the element of the
    warp's and block's register 0 at lane 0.

    Raises:
        LayoutError: the lanes reach the shared memory of several CTAs (not ld/st.shared).
    """
    total = 0
    worst = 0
    ctas: set[int] = set()
    for members in phases:
        lane_elems = [base_elem ^ _xor_all(plan.lane, lane) for lane in members]
        degree, reached = phase_degree(lane_elems, regs, reg_elems, where, plan, model,
                                       offset_map)
        ctas |= reached
        worst = max(worst, degree)
        total += degree
    if len(ctas) > 1:  # a distributed (cross-CTA) access is not ld/st.shared
        raise LayoutError(
            "the lanes of one instruction reach the shared memory of several CTAs; "
            "a warp's ld/st.shared addresses only its own CTA"
        )
    return total, worst


def simulate_access(layout: LinearLayout, memory: LinearLayout, model: BankModel,
                    instr: Instruction, *, vector_elems: int | None = None,
                    limit: int | None = None, offset_map: Sequence[int] | None = None,
                    cap_log2: int = 64) -> ConflictReport:
    """Count bank conflicts by enumerating every lane's words (the engine of
    :func:`linlayout.simulate_bank_access` on linear layouts).

    Args:
        layout, memory: the distributed and the (linear) shared-memory layout.
        model: the validated bank model; instr: the parsed NVIDIA-style instruction.
        vector_elems: the requested vector (default: the widest, by enumeration).
        limit: the work limit of :func:`check_work`.
        offset_map: unpadded → padded element offset of every offset (padded layouts,
            :mod:`.padded`); the report then gives the worst phase and instruction, and
            ``uneven_wavefronts_per_warp`` when instructions differ.
        cap_log2: a cap on the default vector (padding).

    Returns:
        The :class:`ConflictReport`, ``conflict_offsets`` empty.

    Raises:
        LayoutError: as :func:`linlayout.simulate_bank_access`.
    """
    plan = check_simulation(layout, memory, model, instr, vector_elems, limit)
    where = element_locations(plan)
    if instr.is_matrix:
        return _simulate_matrix(instr, plan, where, model)
    reg_elems = [_xor_all(plan.register, r) for r in range(1 << len(plan.register))]
    align = enumerated_alignment_log2(plan, where)
    k = enumerated_vector_log2(plan, reg_elems, model, vector_elems, align, cap_log2)
    groups = register_groups(reg_elems, where, k)
    phases = phase_lanes_by_id(model, k, packed_by_lanes(plan, model, k, instr.is_plain_load))

    worst_degree = 0
    worst_wavefronts = 0
    wave_set = set()
    per_warp = 0
    for blk in range(1 << len(plan.block)):
        blk_elem = _xor_all(plan.block, blk)
        for w in range(1 << len(plan.warp)):
            w_elem = blk_elem ^ _xor_all(plan.warp, w)
            warp_total = 0
            for regs in groups:
                total, degree = instruction_wavefronts(w_elem, regs, reg_elems, phases, where,
                                                       plan, model, offset_map)
                worst_degree = max(worst_degree, degree)
                wave_set.add(total)
                worst_wavefronts = max(worst_wavefronts, total)
                warp_total += total
            per_warp = max(per_warp, warp_total)
    if len(wave_set) > 1 and offset_map is None:
        raise LayoutError(f"instructions of one access disagree: {sorted(wave_set)} wavefronts")
    uneven = per_warp if len(wave_set) > 1 else None
    return simulation_report(plan, model, k, len(phases), len(groups), worst_degree,
                             worst_wavefronts, uneven)


def simulation_report(plan: AccessPlan, model: BankModel, vector_log2: int, phases: int,
                      instructions: int, degree: int, wavefronts: int,
                      uneven_wavefronts_per_warp: int | None) -> ConflictReport:
    """The last step: the :class:`ConflictReport` of a simulated ``ld/st.shared`` access.

    Args:
        plan: the access; model: the bank model; vector_log2: log2 of the vector (elements).
        phases: phases per instruction; instructions: instructions per warp.
        degree: the worst phase's wavefronts; wavefronts: the worst instruction's.
        uneven_wavefronts_per_warp: the costliest warp's total when instructions differ
            (padded layouts), else None.
    """
    e = model.element_bits
    v = 1 << vector_log2
    hw = model.hardware
    return ConflictReport(
        degree=degree,
        wavefronts_per_instruction=wavefronts,
        vector_elems=v,
        phases=phases,
        lanes_per_phase=(1 << model.warp_log2) // phases,
        access_bits=e * v,
        element_bits=e,
        instructions_per_warp=instructions,
        bytes_per_warp=_warp_bytes(plan, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=(),
        uneven_wavefronts_per_warp=uneven_wavefronts_per_warp,
    )


def _warp_bytes(plan: AccessPlan, model: BankModel) -> int:
    """Distinct bytes warp 0 of block 0 moves, by listing its elements."""
    regs = [_xor_all(plan.register, r) for r in range(1 << len(plan.register))]
    elems = {_xor_all(plan.lane, lane) ^ r for lane in range(1 << len(plan.lane)) for r in regs}
    return -(-(len(elems) * model.element_bits) // 8)


def _simulate_matrix(instr: Instruction, plan: AccessPlan, where: dict[int, int],
                     model: BankModel) -> ConflictReport:
    """Replay ldmatrix/stmatrix: check that each matrix row is one full, 16-byte-aligned row
    of memory (its bytes in any order, as the closed form counts), count each matrix's rows."""
    e = model.element_bits
    check_element(instr, e)
    if model.warp_log2 != 5:
        raise LayoutError(f"{instr.name} needs 32-lane warps")
    row_elems = 128 // e
    word_bits = 1 << model.word_log2
    nbanks = 1 << model.banks_log2
    regs = plan.register
    nreg = 1 << len(regs)

    def offset(elem: int) -> int:
        return where[elem]

    sel_bit = 1  # .trans: register bit 0 selects the row pair
    degrees = set()
    groups_seen = set()
    for blk in range(1 << len(plan.block)):
        base_b = _xor_all(plan.block, blk)
        for w in range(1 << len(plan.warp)):
            base = base_b ^ _xor_all(plan.warp, w)
            rows: dict[tuple[int, int], int] = {}  # (group, row) -> row start offset
            places: dict[tuple[int, int], set[int]] = defaultdict(set)
            for lane in range(32):
                l_elem = base ^ _xor_all(plan.lane, lane)
                for r in range(nreg):
                    off = offset(l_elem ^ _xor_all(regs, r))
                    start, pos = off - off % row_elems, off % row_elems
                    # any order of a row's bytes is counted (the bank cost is the rows'):
                    # a row's place may depend only on what the instruction spreads over it
                    if instr.trans:
                        # the matrix: the memory row of lane 0's element of register r
                        # without its selector (broadcast registers repeat a matrix)
                        row = 2 * (lane & 3) + (r & sel_bit)
                        group = offset(base ^ _xor_all(regs, r & ~sel_bit)) // row_elems
                        ref = offset(base_b ^ _xor_all(plan.lane, lane & ~3)) % row_elems
                    else:
                        row = lane >> 2
                        group = offset(base ^ _xor_all(regs, r)) // row_elems
                        ref = offset(base_b ^ _xor_all(plan.lane, lane & 3)
                                     ^ _xor_all(regs, r)) % row_elems
                    if pos != ref:
                        raise LayoutError(
                            f"{instr.name} needs every row to start on a 16-byte boundary; "
                            f"lane {lane}, register {r} lands mid-row"
                        )
                    key = (group, row)
                    if rows.setdefault(key, start) != start:
                        raise LayoutError(
                            f"{instr.name}: the elements of one row are not in one 16-byte row"
                        )
                    places[key].add(pos)
            if any(len(p) != row_elems for p in places.values()):
                raise LayoutError(
                    f"{instr.name} reads rows of 16 contiguous bytes: the memory layout does "
                    "not fill a row with one lane quad's registers"
                )
            by_group: dict[int, list[int]] = defaultdict(list)
            for (group, row), start in rows.items():
                by_group[group].append(start)
            for group, starts in by_group.items():
                groups_seen.add((blk, w, group))
                banks: dict[int, set[tuple[int, int]]] = defaultdict(set)
                for start in starts:
                    loc_block = 0  # rows of one warp stay in its CTA (checked by plan_access)
                    first = start * e
                    for word in range(first // word_bits, (first + 128 - 1) // word_bits + 1):
                        banks[word % nbanks].add((loc_block, word))
                degrees.add(max(len(x) for x in banks.values()))
    if len(degrees) > 1:
        raise LayoutError(f"matrices of one access disagree: {sorted(degrees)}")
    degree = degrees.pop()
    matrices_per_warp = len(groups_seen) // ((1 << len(plan.block)) * (1 << len(plan.warp)))
    hw = model.hardware
    return ConflictReport(
        degree=degree,
        wavefronts_per_instruction=instr.matrices * degree,
        vector_elems=row_elems,
        phases=instr.matrices,
        lanes_per_phase=8,
        access_bits=128,
        element_bits=e,
        instructions_per_warp=max(1, matrices_per_warp // instr.matrices),
        bytes_per_warp=_warp_bytes(plan, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=(),
        instruction=instr.name,
    )
