"""Why an access costs what it costs: the lanes, banks and words behind a conflict count.

:func:`explain_conflicts` counts an access with :func:`linlayout.bank_conflicts` and then
lists, for the first instruction of each distinct kind, every phase: its lanes, its degree,
and for the bank asked for the most distinct 4-byte words (bank words) those words, the lanes
asking for each and their byte addresses. The lists come from enumerating the phase's lanes
(at most one warp per instruction kind), so they hold for every memory and instruction the
counter takes: linear and padded layouts, ``ld/st.shared``, ldmatrix/stmatrix (a phase is
one 8×8 matrix, its lanes the 8 lanes that supply its row addresses) and AMD LDS
instructions.

On a linear memory layout it also gives the reason in Lemma 9.4's terms: each basis vector of
the conflict subspace ``span(segment bits) ∩ (span(phase) + Z)``
(:attr:`ConflictReport.conflict_offsets`) is realised by two lanes (or two matrix rows) of
one phase whose element offsets differ only in segment bits (and in bits below ``z``, inside
one vector or word): same bank, different word. The ``2^e`` words of the worst bank are a
coset of that subspace.

This module is the top of :mod:`linlayout.conflicts`: it calls :mod:`.dispatch` and nothing
in the package imports it. Rendering as text lives in :mod:`linlayout.show.conflicts`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware.access import plan_access
from ..hardware.instructions import Instruction, parse_instruction
from ..hardware.lds import (is_lds_instruction, lds_hardware, lds_instruction,
                            transpose_address_layout)
from ..hardware.model import AMD_CDNA4, BankModel, HardwareModel, bank_model
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .dispatch import bank_conflicts
from .report import ConflictReport
from .simulate import phase_lanes_by_id

__all__ = ["MAX_EXPLAIN_STEPS", "CollidingPair", "ConflictExplanation",
           "InstructionExplanation", "PhaseExplanation", "WordRequest", "explain_conflicts"]

#: Above this many (block, warp, lane, register) combinations a padded access is explained by
#: its first instruction only (the kinds of the others are not enumerated).
MAX_EXPLAIN_STEPS = 1 << 18


@dataclass(frozen=True)
class WordRequest:
    """One bank word asked for within a phase.

    Attributes:
        word: the word's index (its byte address divided by the bank width).
        bank: ``word % num_banks``.
        byte_address: the word's first byte.
        lanes: the lanes asking for it, ascending (for ldmatrix/stmatrix: the lanes supplying
            the addresses of the rows it holds).
        lane_bytes: each lane's access byte address (its first byte; a matrix row's start),
            in the order of ``lanes``.
    """

    word: int
    bank: int
    byte_address: int
    lanes: tuple[int, ...]
    lane_bytes: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"word": self.word, "bank": self.bank, "byte_address": self.byte_address,
                "lanes": list(self.lanes), "lane_bytes": list(self.lane_bytes)}


@dataclass(frozen=True)
class PhaseExplanation:
    """One phase of an instruction (lanes served together; one 8×8 matrix for ldmatrix).

    Attributes:
        index: the phase's position in the instruction (phase 0 holds lane 0).
        lanes: its lane ids, ascending.
        degree: its wavefronts: the most distinct words any one bank is asked for.
        bank: the worst bank (the lowest-numbered one with ``degree`` words).
        words: the words that bank is asked for, by word index.
        conflicted_banks: how many banks are asked for ``degree`` words (0 when degree is 1).
    """

    index: int
    lanes: tuple[int, ...]
    degree: int
    bank: int
    words: tuple[WordRequest, ...]
    conflicted_banks: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"index": self.index, "lanes": list(self.lanes), "degree": self.degree,
                "bank": self.bank, "conflicted_banks": self.conflicted_banks,
                "words": [w.to_dict() for w in self.words]}


@dataclass(frozen=True)
class InstructionExplanation:
    """The first instruction of one kind (same degree in every phase, in order).

    Attributes:
        registers: the register ids (combinations of the layout's register bits) it moves
            per lane, ascending; for ldmatrix/stmatrix those of lane 0.
        warp, block: the warp and block (CTA) ids it was found in.
        count: how many instructions share this kind (in :attr:`ConflictExplanation.scope`).
        phases: each phase, in order.
    """

    registers: tuple[int, ...]
    warp: int
    block: int
    count: int
    phases: tuple[PhaseExplanation, ...]

    @property
    def wavefronts(self) -> int:
        """The instruction's wavefronts: the sum of its phases' degrees."""
        return sum(p.degree for p in self.phases)

    @property
    def worst_phase(self) -> PhaseExplanation:
        """The first phase of the largest degree."""
        return max(self.phases, key=lambda p: p.degree)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, with ``wavefronts`` and the worst phase's index."""
        return {"registers": list(self.registers), "warp": self.warp, "block": self.block,
                "count": self.count, "wavefronts": self.wavefronts,
                "worst_phase": self.worst_phase.index,
                "phases": [p.to_dict() for p in self.phases]}


@dataclass(frozen=True)
class CollidingPair:
    """One direction of the conflict subspace, realised by two lanes of the worst phase.

    Attributes:
        direction: the basis vector of ``span(segment bits) ∩ (span(phase) + Z)`` (an element
            offset made of segment bits only).
        lanes: two lanes of one phase (for ldmatrix/stmatrix: the lanes supplying two rows'
            addresses) that reach the same bank in different words.
        offsets: their first elements' offsets (elements).
        byte_addresses: the same as byte addresses.
        segment_bits: the offset bits in which they differ at or above the first segment bit.
        low_bits: the offset bits below ``z`` (inside one vector, word or matrix row) in which
            they also differ; empty when they differ in segment bits only.
    """

    direction: int
    lanes: tuple[int, int]
    offsets: tuple[int, int]
    byte_addresses: tuple[int, int]
    segment_bits: tuple[int, ...]
    low_bits: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"direction": self.direction, "lanes": list(self.lanes),
                "offsets": list(self.offsets), "byte_addresses": list(self.byte_addresses),
                "segment_bits": list(self.segment_bits), "low_bits": list(self.low_bits)}


@dataclass(frozen=True)
class ConflictExplanation:
    """A counted access and the collisions behind its count.

    Attributes:
        report: the count (:func:`linlayout.bank_conflicts`).
        method: ``"closed form"`` (linear memory: every instruction costs the same, one is
            listed) or ``"enumeration"`` (padded memory: every instruction of every warp was
            enumerated and grouped by kind) or ``"first instruction"`` (padded memory too
            large to enumerate: the first instruction only).
        scope: what :attr:`InstructionExplanation.count` counts: ``"per warp"`` or ``"all
            warps"``.
        instructions: the first instruction of each kind, most frequent first.
        pairs: for a linear memory layout, one :class:`CollidingPair` per basis vector of the
            conflict subspace (``log2(degree)`` of them); empty otherwise.
        num_banks, bank_bytes: the bank model; element_bits: bits per element.
        seg_lo: the first segment offset bit (offsets differing only at or above it share a
            bank); z: offset bits below it are the vector / within-word / row bits.
    """

    report: ConflictReport
    method: str
    scope: str
    instructions: tuple[InstructionExplanation, ...]
    pairs: tuple[CollidingPair, ...]
    num_banks: int
    bank_bytes: int
    element_bits: int
    seg_lo: int
    z: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field but ``report`` (whose data the caller prints beside it)."""
        return {"method": self.method, "scope": self.scope, "num_banks": self.num_banks,
                "bank_bytes": self.bank_bytes, "element_bits": self.element_bits,
                "seg_lo": self.seg_lo, "z": self.z,
                "instructions": [i.to_dict() for i in self.instructions],
                "pairs": [p.to_dict() for p in self.pairs]}


def explain_conflicts(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
) -> ConflictExplanation:
    """Count an access (:func:`linlayout.bank_conflicts`) and explain the count.

    Arguments are those of :func:`linlayout.bank_conflicts`.

    Returns:
        A :class:`ConflictExplanation`: per instruction kind and phase, the lanes, the worst
        bank and its words with the lanes asking for each; on linear memory also the colliding
        lane pairs of Lemma 9.4's subspace. The phases' degrees of each listed instruction sum
        to its wavefronts.

    Raises:
        LayoutError, NotInvertibleError: as :func:`linlayout.bank_conflicts`.

    Source: the bank model of ``docs/hardware-model.md``; the subspace of Lemma 9.4 (Linear
    Layouts, arXiv 2505.23819), generalised in ``docs/theory.md``.
    """
    report = bank_conflicts(layout, memory, element_bits=element_bits,
                            vector_elems=vector_elems, hardware=hardware,
                            instruction=instruction)
    lay, hw = layout, hardware
    if instruction is not None and is_lds_instruction(instruction):
        lds = lds_instruction(instruction)
        hw = lds_hardware(lds, AMD_CDNA4 if hardware is None else hardware)
        if lds.transpose_bits:
            lay = transpose_address_layout(layout, element_bits)
        instr = parse_instruction(None)
    else:
        instr = parse_instruction(instruction)
    model = bank_model(element_bits, hw)
    padded = memory if isinstance(memory, PaddedLayout) else None
    plan = plan_access(lay, padded.linear if padded is not None else memory, model.warp_log2)
    inv = f2.inverse(plan.memory_cols)
    mask = (1 << plan.offset_bits) - 1
    table = padded.all_padded_offsets() if padded is not None else None
    lane_offs = [f2.apply(inv, c) & mask for c in plan.lane]
    reg_offs = [f2.apply(inv, c) & mask for c in plan.register]
    if instr.is_matrix:
        return _explain_matrix(report, instr, model, lane_offs, reg_offs)
    k = report.vector_elems.bit_length() - 1
    z = max(k, model.within_word_bits)
    bases = [f2.apply(inv, c) & mask for c in plan.warp + plan.block]
    steps = 1 << (len(bases) + model.warp_log2 + len(plan.register))
    if padded is None:
        method, scope, bases = "closed form", "per warp", [0]
    elif steps <= MAX_EXPLAIN_STEPS:
        method, scope = "enumeration", "all warps"
    else:
        method, scope, bases = "first instruction", "per warp", [0]
    groups: dict[int, list[int]] = defaultdict(list)
    for r, off in enumerate(f2.images(reg_offs)):
        groups[off >> k].append(r)
    reg_images = f2.images(reg_offs)
    lanes = f2.images(lane_offs)
    packed = model.packed(lane_offs, k, instr.is_plain_load)
    members = phase_lanes_by_id(model, k, packed)
    nwarps = 1 << len(plan.warp)
    kinds: dict[tuple[int, ...], InstructionExplanation] = {}
    counts: dict[tuple[int, ...], int] = defaultdict(int)
    for index, base in enumerate(f2.images(bases)):
        for regs in groups.values():
            offs = {lane: sorted((base ^ lanes[lane] ^ reg_images[r]) & mask for r in regs)
                    for lane in range(1 << model.warp_log2)}
            phases = tuple(_phase(i, ph, offs, model, table) for i, ph in enumerate(members))
            key = tuple(p.degree for p in phases)
            counts[key] += 1
            if key not in kinds:
                kinds[key] = InstructionExplanation(tuple(regs), index % nwarps,
                                                    index // nwarps, 0, phases)
    if scope == "per warp":
        counts = {key: report.instructions_per_warp for key in counts}
    instructions = tuple(sorted(
        (InstructionExplanation(e.registers, e.warp, e.block, counts[key], e.phases)
         for key, e in kinds.items()), key=lambda e: -e.count))
    pairs: tuple[CollidingPair, ...] = ()
    if padded is None and report.conflict_offsets:
        phase_lanes = model.phase_lanes(k, packed)
        phase_offs = [f2.apply(lane_offs, pl) for pl in phase_lanes]
        pairs = tuple(_pair(b, phase_offs, phase_lanes, z, model) for b in
                      report.conflict_offsets)
    return ConflictExplanation(report, method, scope, instructions, pairs,
                               1 << model.banks_log2, model.hardware.bank_bytes, element_bits,
                               model.seg_lo, z)


def _phase(index: int, lanes: list[int], offs: dict[int, list[int]], model: BankModel,
           table: list[int] | None) -> PhaseExplanation:
    """One phase of an ``ld/st.shared`` instruction: each lane's elements (``offs``,
    unpadded element offsets, mapped through ``table`` when padded) → its bank words."""
    e = model.element_bits
    word_bits = 1 << model.word_log2
    asks: dict[int, dict[int, int]] = defaultdict(dict)  # word -> lane -> first byte
    for lane in lanes:
        padded = [table[o] if table is not None else o for o in offs[lane]]
        first_byte = min(padded) * e // 8
        for off in padded:
            for word in range(off * e // word_bits, (off * e + e - 1) // word_bits + 1):
                asks[word][lane] = first_byte
    return _phase_from_words(index, tuple(lanes), asks, model)


def _phase_from_words(index: int, lanes: tuple[int, ...], asks: dict[int, dict[int, int]],
                      model: BankModel) -> PhaseExplanation:
    """A phase from the words its lanes ask for: the worst bank and its words."""
    nbanks = 1 << model.banks_log2
    by_bank: dict[int, list[int]] = defaultdict(list)
    for word in asks:
        by_bank[word % nbanks].append(word)
    degree = max(len(ws) for ws in by_bank.values())
    bank = min(b for b, ws in by_bank.items() if len(ws) == degree)
    worst = [b for b, ws in by_bank.items() if len(ws) == degree]
    words = tuple(
        WordRequest(w, bank, w * model.hardware.bank_bytes, tuple(sorted(asks[w])),
                    tuple(asks[w][lane] for lane in sorted(asks[w])))
        for w in sorted(by_bank[bank]))
    return PhaseExplanation(index, lanes, degree, bank, words,
                            len(worst) if degree > 1 else 0)


def _bits(x: int) -> tuple[int, ...]:
    return tuple(i for i in range(x.bit_length()) if x >> i & 1)


def _pair(direction: int, phase_offs: list[int], phase_ids: list[int] | tuple[int, ...],
          z: int, model: BankModel) -> CollidingPair:
    """The two lanes (or rows) of phase 0 realising ``direction``: lane 0 and the lane whose
    offset is ``direction`` plus bits below ``z``."""
    c = f2.solve([x >> z for x in phase_offs], direction >> z)
    if c is None:  # impossible: the direction lies in span(phase) + Z
        raise LayoutError("internal: a conflict direction outside the phase's span")
    other = f2.apply(list(phase_ids), c)
    off = f2.apply(phase_offs, c)
    e = model.element_bits
    return CollidingPair(direction, (0, other), (0, off), (0, off * e // 8),
                         tuple(b for b in _bits(off) if b >= z),
                         tuple(b for b in _bits(off) if b < z))


def _explain_matrix(report: ConflictReport, instr: Instruction, model: BankModel,
                    lane_offs: list[int], reg_offs: list[int]) -> ConflictExplanation:
    """ldmatrix/stmatrix: each matrix of the first instruction (warp 0) is a phase; row ``r``
    of the instruction's ``m``-th matrix has its address supplied by lane ``8m + r`` (PTX
    ISA). Matrices are taken in the order lane 0's registers reach them."""
    e = model.element_bits
    row_elems = 128 // e
    chunk = 1 if instr.trans else 32 // e
    lanes = f2.images(lane_offs)
    regs = f2.images(reg_offs)
    rows: dict[int, dict[int, int]] = defaultdict(dict)  # matrix key -> row -> start offset
    order: list[int] = []
    reg_of: dict[int, list[int]] = defaultdict(list)
    for r, roff in enumerate(regs):
        if instr.trans:
            key = r >> 1
        else:
            p0 = roff % row_elems % chunk
            key = (roff - p0) // row_elems
        if key not in rows:
            order.append(key)
        reg_of[key].append(r)
        for lane in range(32):
            off = lanes[lane] ^ roff
            row = 2 * (lane & 3) + (r & 1) if instr.trans else lane >> 2
            rows[key].setdefault(row, off - off % row_elems)
    word_bits = 1 << model.word_log2
    phases = []
    for m, key in enumerate(order[:instr.matrices]):
        asks: dict[int, dict[int, int]] = defaultdict(dict)
        for row, start in rows[key].items():
            for word in range(start * e // word_bits, (start * e + 127) // word_bits + 1):
                asks[word][8 * m + row] = start * e // 8
        phases.append(_phase_from_words(m, tuple(8 * m + r for r in range(8)), asks, model))
    used = tuple(sorted(r for key in order[:instr.matrices] for r in reg_of[key]))
    first = InstructionExplanation(used, 0, 0, report.instructions_per_warp, tuple(phases))
    row_bits = report.vector_elems.bit_length() - 1
    pairs: tuple[CollidingPair, ...] = ()
    if report.conflict_offsets:
        starts = rows[order[0]]
        row_offs = [starts[1 << i] ^ starts[0] for i in range(3)]
        pairs = tuple(_pair(b, row_offs, [1, 2, 4], row_bits, model)
                      for b in report.conflict_offsets)
        pairs = tuple(CollidingPair(p.direction, p.lanes,
                                    (starts[0], starts[0] ^ p.offsets[1]),
                                    (starts[0] * e // 8, (starts[0] ^ p.offsets[1]) * e // 8),
                                    p.segment_bits, p.low_bits) for p in pairs)
    return ConflictExplanation(report, "closed form", "per warp", (first,), pairs,
                               1 << model.banks_log2, model.hardware.bank_bytes, e,
                               model.seg_lo, row_bits)
