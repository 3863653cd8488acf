"""Brute-force bank simulator: the ground truth for the closed forms.

It uses no subspace algebra: it inverts the memory layout with a dictionary, lists every
element each lane touches in every warp-level instruction, turns element offsets into bank
words by arithmetic on addresses, and counts distinct words per bank in each phase.
"""

from __future__ import annotations

from collections import defaultdict

from .closed_form import AccessPlan, check_vector, plan_access
from .report import ConflictReport
from .._checks import as_int
from ..errors import LayoutError
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..hardware.lds import is_lds_instruction
from ..hardware.instructions import (Instruction, check_element, check_matrix_access,
                                     parse_instruction)
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout, padding_vector_log2

__all__ = ["MAX_SIMULATION_STEPS", "check_work", "simulate_bank_access"]


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
    """The enumeration steps :func:`simulate_bank_access` would take for ``plan``; LayoutError
    when they exceed ``limit`` (default :data:`MAX_SIMULATION_STEPS`)."""
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


def simulate_bank_access(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
    limit: int | None = None,
) -> ConflictReport:
    """Count bank conflicts by enumerating every lane's words (the ground truth).

    Arguments, defaults, result and errors are those of :func:`linlayout.bank_conflicts`; the
    default vector width is found by enumerating the registers' span, and each lane's phase by
    evaluating the hardware's phase masks on its lane id. The cost is one step per
    (block, warp, register, lane) combination plus one per memory location, so keep tensors
    below ~2^16 elements. ``conflict_offsets`` is left empty.

    ``memory`` may be a :class:`~linlayout.layout.padded.PaddedLayout`: each element's offset
    then goes through the padding before it becomes a bank word, the default vector is capped
    by the padding, and (padding being non-linear) the report gives the worst phase and the
    worst instruction instead of requiring all to agree.

    For ldmatrix/stmatrix it replays the instruction: every lane's elements must sit where the
    instruction delivers them (16-byte rows, lane ``4r + j`` holding bytes ``4j…4j+3`` of row
    ``r``, or the ``.trans`` arrangement), and each matrix's 8 rows are one phase.

    ``limit`` (default :data:`MAX_SIMULATION_STEPS`) caps that work: memory locations plus
    (block, warp, register, lane) combinations; a larger access is refused up front.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`; the work exceeds ``limit`` (the
            message gives both and points to the closed form); or the instructions of one
            access disagree (impossible for linear layouts; a guard against bugs).
    """
    if is_lds_instruction(instruction):
        from .lds import lds_bank_conflicts  # imports this module
        return lds_bank_conflicts(layout, memory, element_bits=element_bits,
                                  instruction=instruction, hardware=hardware, simulate=True,
                                  vector_elems=vector_elems)
    model = bank_model(element_bits, hardware)
    instr = parse_instruction(instruction)
    padded = memory if isinstance(memory, PaddedLayout) else None
    if padded is not None:
        if instr.is_matrix:
            raise LayoutError(f"{instr.name} on a padded layout is not modelled; use "
                              "ld/st.shared")
        memory = padded.linear
        table = padded.all_padded_offsets()  # unpadded -> padded element offset
        cap_log2 = padding_vector_log2(padded.pairs)
        if vector_elems is not None and isinstance(vector_elems, int) and \
                vector_elems > 1 << cap_log2:
            raise LayoutError(f"vector_elems={vector_elems} is not possible with padding "
                              f"{list(padded.pairs)}: at most {1 << cap_log2} elements")
    else:
        table = None
        cap_log2 = 64
    plan = plan_access(layout, memory, model.warp_log2)
    check_work(plan, limit)
    if instr.is_matrix:  # the same preconditions as the closed form, from one function
        check_matrix_access(instr, plan.register, plan.lane, model.warp_log2,
                            model.hardware.row_bytes, model.element_bits, vector_elems)
    nmem = len(plan.memory_cols)
    where = {}  # tensor element -> (offset, block)
    for x in range(1 << nmem):
        where[_xor_all(plan.memory_cols, x)] = x
    off_mask = (1 << plan.offset_bits) - 1
    if instr.is_matrix:
        return _simulate_matrix(instr, plan, where, model)

    regs = plan.register
    reg_elems = [_xor_all(regs, r) for r in range(1 << len(regs))]
    # alignment by enumeration: the largest k such that every thread's register-0 element
    # (every lane, warp, block) sits at the same offset modulo 2^k
    starts = set()
    for blk in range(1 << len(plan.block)):
        for w in range(1 << len(plan.warp)):
            base = _xor_all(plan.block, blk) ^ _xor_all(plan.warp, w)
            for lane in range(1 << len(plan.lane)):
                starts.add(where[base ^ _xor_all(plan.lane, lane)] & off_mask)
    align = 0
    while align < plan.offset_bits and len({x & ((2 << align) - 1) for x in starts}) == 1:
        align += 1
    if vector_elems is None:
        held = set(reg_elems)
        k = 0
        while (k < min(model.max_vector_log2, plan.offset_bits, align, cap_log2)
               and plan.memory_cols[k] in held):
            k += 1
    else:
        k = check_vector(vector_elems, plan.memory_cols, plan.offset_bits, regs, model, align)
    v = 1 << k

    # Group registers into vectors: registers whose elements lie in the same aligned run of
    # v offsets (seen from lane 0, warp 0, block 0) are one instruction.
    groups: dict[int, list[int]] = defaultdict(list)
    for r, elem in enumerate(reg_elems):
        groups[where[elem] >> k].append(r)

    e = model.element_bits
    word_bits = 1 << model.word_log2
    nbanks = 1 << model.banks_log2
    warp = 1 << model.warp_log2
    masks = model.phase_masks(k)
    phase_of = [tuple(bin(lane & m).count("1") & 1 for m in masks) for lane in range(warp)]
    phase_members: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for lane in range(warp):
        phase_members[phase_of[lane]].append(lane)
    lpp = warp // len(phase_members)
    lanes = plan.lane
    worst_degree = 0
    worst_wavefronts = 0
    wave_set = set()
    per_warp = 0
    for blk in range(1 << len(plan.block)):
        blk_elem = _xor_all(plan.block, blk)
        for w in range(1 << len(plan.warp)):
            w_elem = blk_elem ^ _xor_all(plan.warp, w)
            warp_total = 0
            for members in groups.values():
                total = 0
                ctas = set()
                for members_of_phase in phase_members.values():
                    banks: dict[int, set[tuple[int, int]]] = defaultdict(set)
                    for lane in members_of_phase:
                        l_elem = w_elem ^ _xor_all(lanes, lane)
                        for r in members:
                            loc = where[l_elem ^ reg_elems[r]]
                            off, mb = loc & off_mask, loc >> plan.offset_bits
                            if table is not None:
                                off = table[off]
                            first_bit = off * e
                            for word in range(first_bit // word_bits,
                                              (first_bit + e - 1) // word_bits + 1):
                                banks[word % nbanks].add((mb, word))
                    degree = max((len(s) for s in banks.values()), default=1)
                    ctas |= {mb for s in banks.values() for mb, _ in s}
                    worst_degree = max(worst_degree, degree)
                    total += degree
                if len(ctas) > 1:  # a distributed (cross-CTA) access is not ld/st.shared
                    raise LayoutError(
                        "the lanes of one instruction reach the shared memory of several CTAs; "
                        "a warp's ld/st.shared addresses only its own CTA"
                    )
                wave_set.add(total)
                worst_wavefronts = max(worst_wavefronts, total)
                warp_total += total
            per_warp = max(per_warp, warp_total)
    if len(wave_set) > 1 and table is None:
        raise LayoutError(f"instructions of one access disagree: {sorted(wave_set)} wavefronts")
    hw = model.hardware
    return ConflictReport(
        degree=worst_degree,
        wavefronts_per_instruction=worst_wavefronts,
        vector_elems=v,
        phases=len(phase_members),
        lanes_per_phase=lpp,
        access_bits=e * v,
        element_bits=e,
        instructions_per_warp=len(groups),
        bytes_per_warp=_warp_bytes(plan, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=(),
        uneven_wavefronts_per_warp=per_warp if len(wave_set) > 1 else None,
    )


def _warp_bytes(plan: AccessPlan, model: BankModel) -> int:
    """Distinct bytes warp 0 of block 0 moves, by listing its elements."""
    regs = [_xor_all(plan.register, r) for r in range(1 << len(plan.register))]
    elems = {_xor_all(plan.lane, lane) ^ r for lane in range(1 << len(plan.lane)) for r in regs}
    return -(-(len(elems) * model.element_bits) // 8)


def _simulate_matrix(instr: Instruction, plan: AccessPlan, where: dict[int, int],
                     model: BankModel) -> ConflictReport:
    """Replay ldmatrix/stmatrix: check every delivered element, count each matrix's rows."""
    e = model.element_bits
    check_element(instr, e)
    if model.warp_log2 != 5:
        raise LayoutError(f"{instr.name} needs 32-lane warps")
    row_elems = 128 // e
    chunk = 1 if instr.trans else 32 // e
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
            for lane in range(32):
                l_elem = base ^ _xor_all(plan.lane, lane)
                for r in range(nreg):
                    off = offset(l_elem ^ _xor_all(regs, r))
                    start, pos = off - off % row_elems, off % row_elems
                    if instr.trans:
                        row, col = 2 * (lane & 3) + (r & sel_bit), lane >> 2
                        group, want = r >> 1, col
                    else:
                        row, group = lane >> 2, None
                        want = None
                        # the register's place in the chunk is its position at lane 0
                        p0 = offset(base ^ _xor_all(regs, r)) % row_elems % chunk
                        want = (lane & 3) * chunk + p0
                        group = (offset(base ^ _xor_all(regs, r)) - p0) // row_elems
                    if pos != want:
                        raise LayoutError(
                            f"{instr.name} would deliver another element to lane {lane}, "
                            f"register {r}: the memory layout does not store its rows as the "
                            "instruction reads them"
                        )
                    key = (group, row)
                    if rows.setdefault(key, start) != start:
                        raise LayoutError(
                            f"{instr.name}: the elements of one row are not in one 16-byte row"
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
