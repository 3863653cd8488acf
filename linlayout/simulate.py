"""Brute-force bank simulator: the ground truth for the closed forms.

It uses no subspace algebra: it inverts the memory layout with a dictionary, lists every
element each lane touches in every warp-level instruction, turns element offsets into bank
words by arithmetic on addresses, and counts distinct words per bank in each phase.
"""

from __future__ import annotations

from collections import defaultdict

from .conflicts import ConflictReport, check_vector, plan_access
from .errors import LayoutError
from .hardware import HardwareModel, bank_model
from .layout import LinearLayout

__all__ = ["simulate_bank_access"]


def _xor_all(cols: tuple[int, ...], x: int) -> int:
    out = 0
    for i, c in enumerate(cols):
        if x >> i & 1:
            out ^= c
    return out


def simulate_bank_access(
    layout: LinearLayout,
    memory: LinearLayout,
    *,
    element_bits: int,
    num_banks: int | None = None,
    bank_bytes: int | None = None,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
) -> ConflictReport:
    """Count bank conflicts by enumerating every lane's words (the ground truth).

    Arguments, defaults, result and errors are those of :func:`linlayout.bank_conflicts`; the
    default vector width is found by enumerating the registers' span, and each lane's phase by
    evaluating the hardware's phase masks on its lane id. The cost is one step per
    (block, warp, register, lane) combination plus one per memory location, so keep tensors
    below ~2^16 elements. ``conflict_offsets`` is left empty.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`; also when the instructions of one
            access disagree (impossible for linear layouts; a guard against bugs).
    """
    model = bank_model(element_bits, num_banks, bank_bytes, hardware)
    plan = plan_access(layout, memory, model.warp_log2)
    nmem = len(plan.memory_cols)
    where = {}  # tensor element -> (offset, block)
    for x in range(1 << nmem):
        where[_xor_all(plan.memory_cols, x)] = x
    off_mask = (1 << plan.offset_bits) - 1

    regs = plan.register
    reg_elems = [_xor_all(regs, r) for r in range(1 << len(regs))]
    if vector_elems is None:
        held = set(reg_elems)
        k = 0
        while (k < min(model.max_vector_log2, plan.offset_bits)
               and plan.memory_cols[k] in held):
            k += 1
    else:
        k = check_vector(vector_elems, plan.memory_cols, plan.offset_bits, regs, model)
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
    for blk in range(1 << len(plan.block)):
        blk_elem = _xor_all(plan.block, blk)
        for w in range(1 << len(plan.warp)):
            w_elem = blk_elem ^ _xor_all(plan.warp, w)
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
    if len(wave_set) > 1:
        raise LayoutError(f"instructions of one access disagree: {sorted(wave_set)} wavefronts")
    return ConflictReport(
        degree=worst_degree,
        wavefronts=worst_wavefronts,
        vector_elems=v,
        phases=len(phase_members),
        lanes_per_phase=lpp,
        access_bits=e * v,
        element_bits=e,
        instructions=len(groups),
        conflict_offsets=(),
    )
