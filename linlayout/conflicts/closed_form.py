"""Exact shared-memory bank-conflict counts in closed form.

The hardware model (``docs/hardware-model.md``; NVIDIA defaults): shared memory has ``num_banks`` banks of
``bank_bytes`` bytes; word ``w`` (a ``bank_bytes``-sized word) lives in bank ``w % num_banks``.
A warp-level ``ld/st.shared`` in which each lane moves ``access_bits`` bits is split into
**phases** of ``row_bits / max(access_bits, word_bits)`` lanes by lane id (``row_bits =
num_banks · bank_bytes · 8``): on NVIDIA 8-byte accesses run as 2 half-warp phases, 16-byte
accesses as 4 quarter-warp phases. Other models (:mod:`linlayout.hardware`) may group lanes
differently, as long as a phase is a coset of a subspace of lane ids. Inside a phase, lanes asking for the same word are
served together (broadcast on load, merged on store) and a bank serves one word per wavefront,
so a phase takes as many wavefronts as the most distinct words any single bank is asked for.
Different warps never conflict.

The closed form (Lemma 9.4 of the Linear Layouts paper, arXiv 2505.23819, generalised to
sub-word accesses; proof in ``docs/theory.md``). Let ``P = memory⁻¹ ∘ layout`` map hardware bits to
element-offset bits. Split the offset bits into

* ``Z``: the lowest ``z = max(k, w)`` bits — the vector (``2^k`` elements) and, for elements
  narrower than a word, the ``w`` within-word bits;
* bank bits up to ``seg_lo = log2(row_bits / element_bits)``;
* segment bits from ``seg_lo`` up (two offsets that differ only there share a bank).

For a phase whose lanes span offset images ``Λ``, the phase takes ``2^e`` wavefronts with
``e = dim(span(segment bits) ∩ (span(Λ) + Z))``, computed as
``rank(Λ mod Z) − rank(bank part of Λ mod Z)``. For word-or-wider accesses this is Lemma 9.4;
for sub-word accesses it also counts lanes whose offsets differ in within-word *and* segment
bits, which the plain lemma misses. :func:`linlayout.simulate_bank_access` checks it by brute
force.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import f2
from ..errors import LayoutError
from .._checks import log2_exact
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..hardware.lds import is_lds_instruction
from ..hardware.instructions import (Instruction, check_matrix_access, check_memory,
                                     parse_instruction)
from ..hardware.kinds import distributed_columns, memory_columns, require_same_tensor
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .report import ConflictReport

__all__ = ["ConflictReport", "bank_conflicts", "count_matrix", "count_offsets", "warp_bytes"]

@dataclass(frozen=True)
class AccessPlan:
    """A distributed layout and a shared-memory layout, validated and in flat-int form.

    Attributes:
        memory_cols: flattened tensor coordinate of each memory input bit: the offset bits
            first (element offsets), then block bits.
        offset_bits: how many of ``memory_cols`` are offset bits.
        register, lane, warp, block: flattened tensor coordinates of each input bit of the
            distributed layout; ``lane`` is zero-extended to the warp's lanes.
    """

    memory_cols: tuple[int, ...]
    offset_bits: int
    register: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    block: tuple[int, ...]


def plan_access(layout: LinearLayout, memory: LinearLayout, warp_log2: int = 5) -> AccessPlan:
    """Validate a (distributed layout, shared-memory layout) pair; return it in flat form.

    Raises:
        LayoutError: wrong in dims, mismatched out dims or sizes, too many lanes, or a memory
            layout that is not a bijection.
    """
    dist = distributed_columns(layout, "layout", warp_log2)
    require_same_tensor(layout, memory, "layout", "memory")
    mem_cols, offset_bits = memory_columns(memory, layout.out_dim_names)
    return AccessPlan(
        memory_cols=mem_cols,
        offset_bits=offset_bits,
        register=dist.register,
        lane=dist.lane,
        warp=dist.warp,
        block=dist.block,
    )


def alignment_log2(offsets: Sequence[int]) -> int:
    """Largest k such that every offset is a multiple of 2^k (zero offsets impose nothing).

    A vector of ``2^k`` elements is one instruction only if every thread's run starts on a
    multiple of ``2^k``: the element offsets of the lane, warp and block bits must have their
    low ``k`` bits clear (registers may mix in vector bits: the compiler renames them).
    """
    k = 64
    for x in offsets:
        if x:
            k = min(k, (x & -x).bit_length() - 1)
    return k


def widest_vector_log2(memory_cols: Sequence[int], offset_bits: int,
                       register_basis: Sequence[int], model: BankModel,
                       align_log2: int = 64) -> int:
    """Largest k with memory offset bits 0..k-1 in span(registers), every thread's run of
    ``2^k`` offsets aligned (``k ≤ align_log2``), and 2^k·element_bits ≤ the widest access.

    Args:
        memory_cols: tensor coordinate (flat int) of each memory input bit, offset bits first.
        offset_bits: how many of ``memory_cols`` are offset bits.
        register_basis: :func:`linlayout.f2.echelon` basis of the register images.
        align_log2: :func:`alignment_log2` of the lane, warp and block offsets.
    """
    piv = register_basis
    k = 0
    limit = min(model.max_vector_log2, offset_bits, align_log2)
    while k < limit and f2.reduce(memory_cols[k], piv) == 0:
        k += 1
    return k


def phase_exponent(phase: Sequence[int], z: int, seg_lo: int,
                   with_basis: bool = False) -> tuple[int, tuple[int, ...]]:
    """``e = dim(span(segment bits) ∩ (span(phase) + span(offset bits < z)))`` and a basis.

    Args:
        phase: element offsets spanning the accesses of one phase (lanes or matrix rows).
        z: offset bits below ``z`` are the vector / within-word / row bits.
        seg_lo: first segment offset bit.
        with_basis: also return a basis of that intersection (else ``()``).
    """
    hi = [x >> z for x in phase]
    bank_mask = (1 << (seg_lo - z)) - 1
    exp = f2.rank(hi) - f2.rank([h & bank_mask for h in hi])
    basis: tuple[int, ...] = ()
    if exp and with_basis:
        zs = [1 << j for j in range(z)]
        top = max([x.bit_length() for x in phase] + [seg_lo + 1])
        seg = [1 << j for j in range(seg_lo, top)]
        basis = tuple(sorted(f2.intersection(list(phase) + zs, seg)))
    return exp, basis


def count_offsets(
    lane_offs: tuple[int, ...] | list[int],
    reg_offs: tuple[int, ...] | list[int],
    vector_log2: int,
    model: BankModel,
    with_basis: bool = True,
) -> ConflictReport:
    """The closed form on offset-space images (the engine of :func:`bank_conflicts`).

    Args:
        lane_offs: element offset of each lane bit (``warp_log2`` of them, zero-extended);
            the lanes of one phase are ``model.phase_lanes(vector_log2)``.
        reg_offs: element offset of each register bit.
        vector_log2: k, log2 of the vector width in elements.
        model: validated hardware parameters.
        with_basis: also compute ``conflict_offsets``.
    """
    z = max(vector_log2, model.within_word_bits)
    phase = f2.compose(lane_offs, model.phase_lanes(vector_log2))
    exp, basis = phase_exponent(phase, z, model.seg_lo, with_basis)
    kmask = (1 << vector_log2) - 1
    instructions = 1 << f2.rank([x & ~kmask for x in reg_offs])
    p = model.warp_log2 - len(model.phase_masks(vector_log2))
    phases = 1 << (model.warp_log2 - p)
    degree = 1 << exp
    hw = model.hardware
    return ConflictReport(
        degree=degree,
        wavefronts_per_instruction=phases * degree,
        vector_elems=1 << vector_log2,
        phases=phases,
        lanes_per_phase=1 << p,
        access_bits=model.element_bits << vector_log2,
        element_bits=model.element_bits,
        instructions_per_warp=instructions,
        bytes_per_warp=warp_bytes(lane_offs, reg_offs, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=basis,
    )


def warp_bytes(lane_offs: Sequence[int], reg_offs: Sequence[int], model: BankModel) -> int:
    """Distinct bytes one warp moves: ``2^rank(lane and register offsets)`` elements, in bytes
    (rounded up for sub-byte totals)."""
    elems_log2 = f2.rank(list(lane_offs) + list(reg_offs))
    return -(-(model.element_bits << elems_log2) // 8)


def count_matrix(
    instr: Instruction,
    row_offs: Sequence[int],
    row_bits: int,
    reg_offs: Sequence[int],
    lane_offs: Sequence[int],
    model: BankModel,
    with_basis: bool = True,
) -> ConflictReport:
    """The closed form for an ldmatrix/stmatrix access (one phase per 8×8 matrix).

    Args:
        instr: the matrix instruction.
        row_offs: element offsets of the three row directions of a matrix.
        row_bits: offset bits of one 16-byte row.
        reg_offs: element offsets of each register bit.
        lane_offs: element offsets of each lane bit (for the bytes the warp moves).
        model: hardware parameters (a row of banks must hold the 8 rows: 128 bytes).
    """
    exp, basis = phase_exponent(row_offs, row_bits, model.seg_lo, with_basis)
    keep = (1 << row_bits) - 1
    # registers beyond the chunk (or the .trans row selector) and the matrix index
    rest = f2.rank([x & ~keep for x in reg_offs]) - (1 if instr.trans else 0)
    mat_log2 = instr.matrices.bit_length() - 1
    instructions = 1 << max(0, rest - mat_log2)
    degree = 1 << exp
    hw = model.hardware
    return ConflictReport(
        degree=degree,
        wavefronts_per_instruction=instr.matrices * degree,
        vector_elems=1 << row_bits,
        phases=instr.matrices,
        lanes_per_phase=8,
        access_bits=128,
        element_bits=model.element_bits,
        instructions_per_warp=instructions,
        bytes_per_warp=warp_bytes(lane_offs, reg_offs, model),
        row_bytes=hw.row_bytes,
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=basis,
        instruction=instr.name,
    )


def check_vector(vector_elems: Any, memory_cols: tuple[int, ...], offset_bits: int,
                 register_cols: tuple[int, ...], model: BankModel, align_log2: int = 64) -> int:
    """Validate a requested vector width; return its log2.

    Raises:
        LayoutError: not a power of two, wider than 128 bits, or not backed by registers.
    """
    k = log2_exact(vector_elems, "vector_elems")
    if k > model.max_vector_log2:
        raise LayoutError(
            f"vector_elems={vector_elems} of {model.element_bits}-bit elements exceeds the "
            f"{model.hardware.max_access_bytes * 8}-bit widest access; use at most "
            f"{1 << model.max_vector_log2}"
        )
    widest = widest_vector_log2(memory_cols, offset_bits, f2.echelon(register_cols), model)
    if k > widest:
        raise LayoutError(
            f"vector_elems={vector_elems} is not possible: only the first {1 << widest} "
            "consecutive offsets of the memory layout are held in one thread's registers"
        )
    if k > align_log2:
        raise LayoutError(
            f"vector_elems={vector_elems} is not possible: a lane's (or warp's) run of offsets "
            f"starts at a multiple of {1 << align_log2} elements only, so its vector would "
            "straddle two aligned blocks"
        )
    return k


def plan_vector(plan: AccessPlan, model: BankModel, vector_elems: Any = None,
                cap_log2: int = 64) -> tuple[list[int], list[int], int]:
    """The ``ld/st.shared`` vector of a planned access: ``(inverse memory columns, lane
    offsets, log2 of the vector)``. The default vector is the widest the registers back, the
    lanes', warps' and blocks' alignment allows and ``cap_log2`` (e.g. padding) permits; a
    requested one is checked (:func:`check_vector`).

    Raises:
        LayoutError: a requested vector that is not possible (:func:`check_vector`), or a lane
            bit that reaches another CTA's shared memory.
    """
    inv = f2.inverse(plan.memory_cols)
    lane_offs = [f2.apply(inv, c) for c in plan.lane]
    align = alignment_log2(lane_offs + [f2.apply(inv, c) for c in plan.warp + plan.block])
    if vector_elems is None:
        k = min(align, cap_log2, widest_vector_log2(plan.memory_cols, plan.offset_bits,
                                                    f2.echelon(plan.register), model))
    else:
        k = check_vector(vector_elems, plan.memory_cols, plan.offset_bits, plan.register, model,
                         align)
    offset_mask = (1 << plan.offset_bits) - 1
    for i, x in enumerate(lane_offs):
        if x & ~offset_mask:
            raise LayoutError(
                f"lane bit {i} moves the access to another CTA's shared memory (memory 'block' "
                "bits); a warp's ld/st.shared addresses only its own CTA"
            )
    return inv, lane_offs, k


def bank_conflicts(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
) -> ConflictReport:
    """Exact bank conflicts of a warp storing or loading ``layout`` into/from ``memory``.

    Args:
        layout: distributed layout, in dims among ``register, lane, warp, block`` → tensor out
            dims. A lane dim smaller than the warp is padded with broadcast (zero) lanes.
        memory: shared-memory layout, a bijection with in dims ``offset`` (elements)
            [+ ``block``] or ``vector, bank, segment`` [+ ``reps``] (flattened in that order)
            onto the same out dims with the same sizes; or a
            :class:`~linlayout.layout.padded.PaddedLayout` (counted by
            :func:`linlayout.conflicts.padded.padded_bank_conflicts`).
        element_bits: bits per element, a power of two from 1 to the widest access (128).
        vector_elems: elements per lane per instruction; default the widest ``2^k`` such that
            memory offsets ``0..2^k-1`` are held in one thread's registers, every lane's,
            warp's and block's run of offsets starts on a multiple of ``2^k`` (else no single
            instruction moves it), and ``2^k · element_bits`` fits the widest access (128 bits).
        hardware: a :class:`linlayout.hardware.HardwareModel` (default ``NVIDIA``; presets
            ``AMD_CDNA3``, ``AMD_CDNA4``; ``NVIDIA.with_banks(num_banks=16)`` for other bank
            counts): banks, bank words, warp size, widest access and phases.
        instruction: ``"ld.shared"``/``"st.shared"`` (default, vectorised) or a matrix
            instruction ``"ldmatrix.x4"``, ``"stmatrix.x2.trans"``, …
            (:mod:`linlayout.hardware.instructions`), or an AMD LDS mnemonic (``"ds_read_b128"``,
            ``"ds_read2_b64"``, ``"ds_read_b64_tr_b16"``, ``"global_load_lds_dwordx4"``, …;
            :mod:`linlayout.hardware.lds`, counted by
            :func:`linlayout.conflicts.lds.lds_bank_conflicts`, default hardware
            ``AMD_CDNA4``); ``vector_elems`` does not apply to those.

    Returns:
        A :class:`ConflictReport`: degree, wavefronts per instruction, vector width, phases,
        and the warp's whole-tile cost (instructions and wavefronts per warp, the bytes it
        moves and the floors they imply).

    Raises:
        LayoutError: invalid dims, sizes or parameters; a vector the registers cannot back; a
            lane whose access leaves its CTA's shared memory (memory ``block`` bits); a
            matrix instruction the layouts cannot use (the message says why).
        NotInvertibleError: the memory layout is not a bijection.

    Source: Lemma 9.4 of the Linear Layouts paper (arXiv 2505.23819), generalised to sub-word
    accesses (module docstring); verified against :func:`simulate_bank_access`.
    """
    if instruction is not None and is_lds_instruction(instruction):
        from .lds import lds_bank_conflicts  # imports this module
        return lds_bank_conflicts(layout, memory, element_bits=element_bits,
                                  instruction=instruction, hardware=hardware, simulate=False,
                                  vector_elems=vector_elems)
    if isinstance(memory, PaddedLayout):
        from .padded import padded_bank_conflicts  # imports this module
        return padded_bank_conflicts(layout, memory, element_bits=element_bits,
                                     vector_elems=vector_elems, hardware=hardware,
                                     instruction=instruction)
    model = bank_model(element_bits, hardware)
    instr = parse_instruction(instruction)
    plan = plan_access(layout, memory, model.warp_log2)
    if instr.is_matrix:
        geom = check_matrix_access(instr, plan.register, plan.lane, model.warp_log2,
                                   model.hardware.row_bytes, model.element_bits, vector_elems)
        inv = f2.inverse(plan.memory_cols)
        row_offs, row_bits = check_memory(instr, geom, inv, plan.register, plan.lane,
                                          plan.warp, model.element_bits)
        reg_offs = [f2.apply(inv, c) for c in plan.register]
        lane_offs = [f2.apply(inv, c) for c in plan.lane]
        return count_matrix(instr, row_offs, row_bits, reg_offs, lane_offs, model)
    inv, lane_offs, k = plan_vector(plan, model, vector_elems)
    reg_offs = [f2.apply(inv, c) for c in plan.register]
    return count_offsets(lane_offs, reg_offs, k, model)
