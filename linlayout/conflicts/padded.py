"""Exact bank conflicts of padded shared-memory layouts (:class:`~linlayout.layout.padded.PaddedLayout`).

Padding is integer addition, not F₂-linear, so the subspace closed form of :mod:`.closed_form`
does not apply in general (padded accesses can be 3-way conflicted, and different warps or
instructions of one access can cost differently). Two regimes:

* **row-aligned padding** — every pad a multiple of the row of banks (``P·element_bits`` a
  multiple of ``row_bits``) and every interval a whole number of bank words
  (``I·element_bits`` a multiple of ``word_bits``): the padding then moves each word by a
  multiple of a row, keeping its bank, and maps distinct words to distinct words, so every
  phase costs what it costs on the linear component alone. The closed form of
  :func:`~linlayout.bank_conflicts` on ``memory.linear`` is exact (proof: ``docs/padding.md``).
* otherwise, **enumeration per phase**: for every block, warp and instruction, every phase's
  lanes (at most 64) are listed with their padded bank words. The result reports the worst
  phase (``degree``) and the worst instruction (``wavefronts_per_instruction``).

Both agree with :func:`~linlayout.simulate_bank_access`, which replays padded layouts by brute
force (tested): :func:`simulate_padded_access` hands the simulator the padded offsets.

This module is an adapter above the engines: it calls :mod:`.closed_form` and
:mod:`.simulate` (which never import it); :mod:`.dispatch` routes padded memory here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from .. import f2
from ..errors import LayoutError
from ..hardware.access import plan_access, plan_vector, warp_bytes
from ..hardware.instructions import Instruction, parse_instruction
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout, padding_vector_log2
from .closed_form import linear_bank_conflicts
from .report import ConflictReport
from .simulate import simulate_access

__all__ = ["MAX_ENUMERATION_STEPS", "check_padded_vector", "padded_bank_conflicts",
           "padding_is_row_aligned", "simulate_padded_access"]

#: Default work limit of the per-phase enumeration: (block, warp, lane, register)
#: combinations visited (about ten seconds of Python at the limit).
MAX_ENUMERATION_STEPS = 1 << 22


def padding_is_row_aligned(memory: PaddedLayout, model: BankModel) -> bool:
    """True when the padding cannot change any bank count (the closed-form regime).

    Every pad is a multiple of the bank row (``P·element_bits % row_bits == 0``) and every
    interval is a whole number of bank words (``I·element_bits % word_bits == 0``); proof in
    ``docs/padding.md``.
    """
    e = model.element_bits
    row_bits = (1 << model.banks_log2) << model.word_log2
    word_bits = 1 << model.word_log2
    return all(p * e % row_bits == 0 and i * e % word_bits == 0 for i, p in memory.pairs)


def check_padded_vector(vector_elems: int | None, memory: PaddedLayout) -> None:
    """Raise when an explicit ``vector_elems`` is wider than the padding allows.

    Raises:
        LayoutError: ``vector_elems`` > the smallest interval or the smallest pad.
    """
    cap = 1 << padding_vector_log2(memory.pairs)
    if vector_elems is not None and isinstance(vector_elems, int) and vector_elems > cap:
        raise LayoutError(
            f"vector_elems={vector_elems} is not possible with padding {list(memory.pairs)}: a "
            f"vector would straddle a gap or lose its alignment; at most {cap} elements "
            "(every interval and every pad must be a multiple of the vector)")


def padded_bank_conflicts(
    layout: LinearLayout,
    memory: PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
    force_enumeration: bool = False,
    max_steps: int = MAX_ENUMERATION_STEPS,
) -> ConflictReport:
    """Exact bank conflicts of ``layout`` stored to / loaded from a padded layout.

    Arguments and result as :func:`linlayout.bank_conflicts`, with ``memory`` a
    :class:`~linlayout.layout.padded.PaddedLayout`. The default vector is also capped by the
    padding (:attr:`PaddedLayout.max_vector_elems`): padding can cost vector width. ``degree``
    is the worst phase and ``wavefronts_per_instruction`` the worst instruction over all
    warps and blocks (padded instructions may differ); when they differ,
    ``uneven_wavefronts_per_warp`` (hence ``wavefronts_per_warp``) is the exact total of the
    costliest warp. ``conflict_offsets`` is empty.
    ``force_enumeration=True`` skips the row-aligned closed form (to check it). The
    enumeration visits every (warp, lane, register) of the tile once; more than ``max_steps``
    such steps is refused up front.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`; a ``vector_elems`` wider than the
            padding allows; a matrix instruction (ldmatrix/stmatrix on padded layouts is not
            modelled); an enumeration above ``max_steps`` (the message gives both numbers).

    Source: the address function of Triton's ``applyPadding`` (``TritonGPUToLLVM/Utility.cpp``)
    and the vector cap of ``lowerLocalLdSt`` (``getMinInterval``); counting as in
    ``docs/padding.md``.
    """
    if not isinstance(memory, PaddedLayout):
        raise LayoutError(f"memory must be a PaddedLayout, got {type(memory).__name__}")
    model = bank_model(element_bits, hardware)
    instr = parse_instruction(instruction)
    if instr.is_matrix:
        raise LayoutError(f"{instr.name} on a padded layout is not modelled; use ld/st.shared")
    check_padded_vector(vector_elems, memory)
    kmax = padding_vector_log2(memory.pairs)
    if not force_enumeration and padding_is_row_aligned(memory, model):
        if vector_elems is None:  # the default vector, capped by the padding
            plan = plan_access(layout, memory.linear, model.warp_log2)
            vector_elems = 1 << plan_vector(plan, model, None, kmax)[2]
        rep = linear_bank_conflicts(layout, memory.linear, element_bits=element_bits,
                                    vector_elems=vector_elems, hardware=hardware,
                                    instruction=instruction)
        return replace(rep, conflict_offsets=())
    return _enumerate(layout, memory, model, vector_elems, kmax, max_steps,
                      instr.is_plain_load)


def simulate_padded_access(layout: LinearLayout, memory: PaddedLayout, model: BankModel,
                           instr: Instruction, *, vector_elems: int | None = None,
                           limit: int | None = None) -> ConflictReport:
    """:func:`linlayout.simulate_bank_access` for a padded layout: the brute-force simulator
    (:func:`~.simulate.simulate_access`) on ``memory.linear``, each element's offset going
    through the padding before it becomes a bank word; the default vector is capped by the
    padding, and the report gives the worst phase and the worst instruction.

    Args:
        layout: the distributed layout; memory: the padded shared-memory layout.
        model: the validated bank model; instr: the parsed instruction.
        vector_elems, limit: as :func:`linlayout.simulate_bank_access`.

    Raises:
        LayoutError: a matrix instruction (not modelled on padded layouts), a
            ``vector_elems`` wider than the padding allows, or as the simulator.

    Source: the address function of Triton's ``applyPadding`` (module docstring).
    """
    if instr.is_matrix:
        raise LayoutError(f"{instr.name} on a padded layout is not modelled; use "
                          "ld/st.shared")
    table = memory.all_padded_offsets()  # unpadded -> padded element offset
    cap_log2 = padding_vector_log2(memory.pairs)
    if vector_elems is not None and isinstance(vector_elems, int) and \
            vector_elems > 1 << cap_log2:
        raise LayoutError(f"vector_elems={vector_elems} is not possible with padding "
                          f"{list(memory.pairs)}: at most {1 << cap_log2} elements")
    return simulate_access(layout, memory.linear, model, instr, vector_elems=vector_elems,
                           limit=limit, offset_map=table, cap_log2=cap_log2)


def _enumerate(layout: LinearLayout, memory: PaddedLayout, model: BankModel,
               vector_elems: int | None, kmax: int, max_steps: int,
               load: bool = False) -> ConflictReport:
    """Per-phase enumeration over every block, warp and instruction (module docstring);
    ``load``: an ``ld.shared``, whose return may be packed (padding keeps equal elements at
    equal addresses, so the lane-pair test is the linear one)."""
    plan = plan_access(layout, memory.linear, model.warp_log2)
    steps = 1 << (len(plan.block) + len(plan.warp) + model.warp_log2 + len(plan.register))
    if steps > max_steps:
        raise LayoutError(
            f"counting this padded access enumerates {steps} (block, warp, lane, register) "
            f"combinations, over the limit of {max_steps}; count one warp's share of the tile, "
            "use row-aligned padding (closed form), or pass max_steps=")
    inv, lane_offs, k = plan_vector(plan, model, vector_elems, kmax)
    warp_offs = [f2.apply(inv, c) for c in plan.warp]
    block_offs = [f2.apply(inv, c) for c in plan.block]
    reg_offs = [f2.apply(inv, c) for c in plan.register]
    mask = (1 << plan.offset_bits) - 1
    pairs = memory.pairs
    groups: dict[int, list[int]] = defaultdict(list)
    for r in f2.images(reg_offs):
        groups[r >> k].append(r)
    e = model.element_bits
    word_bits = 1 << model.word_log2
    nbanks = 1 << model.banks_log2
    warp = 1 << model.warp_log2
    lanes = f2.images(lane_offs)  # plan_access zero-extends the lane bits to the warp
    masks = model.phase_masks(k, model.packed(lane_offs, k, load))
    members: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for lane in range(warp):
        members[tuple(bin(lane & m).count("1") & 1 for m in masks)].append(lane)
    import numpy as np  # lazily: `import linlayout` stays light

    # every (base, instruction, lane, register) at once: the lanes' phase, the padded element
    # offsets, the bank words each element covers, the distinct words per (base,
    # instruction, phase) and their banks — the per-element Python loop this replaces took
    # 6 to 20 s on a 128x128 tile. Instructions hold equal register groups (a vector each).
    phase_of = np.zeros(warp, dtype=np.int64)
    for p, lanes_in in enumerate(members.values()):
        phase_of[lanes_in] = p
    nphases = len(members)
    width = max(len(g) for g in groups.values())
    # (instructions, registers); a shorter group repeats its first register, which adds no
    # distinct word
    regs = np.array([g + g[:1] * (width - len(g)) for g in groups.values()], dtype=np.int64)
    nins = regs.shape[0]
    words_per_elem = -(-e // word_bits) + 1
    worst_degree, worst_waves = 1, 0
    totals: set[int] = set()
    per_warp = 0
    bases = np.array(f2.images(block_offs + warp_offs), dtype=np.int64)
    lane_arr = np.array(lanes, dtype=np.int64)
    # chunks of bases bound the arrays (a few times max_steps words in all)
    chunk = max(1, (1 << 20) // max(1, nins * warp * regs.shape[1]))
    for at in range(0, len(bases), chunk):
        b = bases[at:at + chunk]
        nb = len(b)
        x = (b[:, None, None, None] ^ regs[None, :, None, :] ^ lane_arr[None, None, :, None]) \
            & mask  # (bases, instructions, lanes, registers)
        padded = x.copy()
        for i, p in pairs:
            padded += (x // i) * p
        first = padded * e
        lo, hi = first // word_bits, (first + e - 1) // word_bits
        # (base, instruction, phase) as one index, broadcast over lanes and registers
        slot = (np.arange(nb)[:, None, None, None] * nins + np.arange(nins)[None, :, None, None]
                ) * nphases + phase_of[None, None, :, None]
        slot = np.broadcast_to(slot, x.shape)
        span = int(hi.max()) + 1
        keys = [(slot * span + lo + j)[lo + j <= hi] for j in range(words_per_elem)]
        distinct = np.unique(np.concatenate(keys))  # distinct (slot, word)
        slots, words = distinct // span, distinct % span
        counts = np.bincount(slots * nbanks + words % nbanks,
                             minlength=nb * nins * nphases * nbanks)
        degrees = np.maximum(counts.reshape(nb, nins, nphases, nbanks).max(axis=3), 1)
        worst_degree = max(worst_degree, int(degrees.max()))
        per_ins = degrees.sum(axis=2)  # (bases, instructions): wavefronts of each
        worst_waves = max(worst_waves, int(per_ins.max()))
        totals.update(int(t) for t in np.unique(per_ins))
        per_warp = max(per_warp, int(per_ins.sum(axis=1).max()))
    hw = model.hardware
    return ConflictReport(
        degree=worst_degree,
        wavefronts_per_instruction=worst_waves,
        vector_elems=1 << k,
        phases=len(members),
        lanes_per_phase=warp // len(members),
        access_bits=e << k,
        element_bits=e,
        instructions_per_warp=len(groups),
        bytes_per_warp=warp_bytes(lane_offs, reg_offs, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=(),
        uneven_wavefronts_per_warp=per_warp if len(totals) > 1 else None,
    )
