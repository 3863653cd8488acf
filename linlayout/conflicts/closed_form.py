"""Exact shared-memory bank-conflict counts in closed form: the engine on linear layouts.

It imports only the access rule (:mod:`linlayout.hardware.access`), the report and the layers
below; padded layouts (:mod:`.padded`), AMD LDS instructions (:mod:`.lds`) and the public
:func:`linlayout.bank_conflicts` (:mod:`.dispatch`) sit above it and call it.

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

from collections.abc import Callable, Sequence
from functools import reduce
from itertools import chain
from operator import or_

from .. import f2
from ..hardware.access import alignment_log2, plan_access, plan_vector, warp_bytes, \
    widest_vector_log2
from ..hardware.instructions import (DEFAULT, Instruction, check_matrix_access, check_memory,
                                     parse_instruction)
from ..hardware.kinds import Distributed
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..layout import LinearLayout
from .report import ConflictReport

__all__ = ["count_matrix", "count_offsets", "count_side", "linear_bank_conflicts",
           "phase_exponent"]


def phase_exponent(phase: Sequence[int], z: int, seg_lo: int,
                   with_basis: bool = False) -> tuple[int, tuple[int, ...]]:
    """``e = dim(span(segment bits) ∩ (span(phase) + span(offset bits < z)))`` and a basis.

    Args:
        phase: element offsets spanning the accesses of one phase (lanes or matrix rows).
        z: offset bits below ``z`` are the vector / within-word / row bits.
        seg_lo: first segment offset bit.
        with_basis: also return a basis of that intersection (else ``()``).

    Source: Lemma 9.4 of the Linear Layouts paper, generalised to sub-word accesses (module
    docstring).
    """
    exp = -1
    # unit and zero offsets (most layouts; as many set bits as nonzero offsets): one
    # dimension per segment bit they hold
    if z <= seg_lo and sum(map(int.bit_count, phase)) == len(phase) - phase.count(0):
        exp = (reduce(or_, phase, 0) >> seg_lo).bit_count()
    if exp < 0:
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
    load: bool = False,
) -> ConflictReport:
    """The closed form on offset-space images (the ``ld/st.shared`` engine of
    :func:`linear_bank_conflicts`, also used by the swizzle synthesizer).

    Args:
        lane_offs: element offset of each lane bit (``warp_log2`` of them, zero-extended);
            the lanes of one phase are ``model.phase_lanes(vector_log2, packed)``.
        reg_offs: element offset of each register bit.
        vector_log2: k, log2 of the vector width in elements.
        model: validated hardware parameters.
        with_basis: also compute ``conflict_offsets``.
        load: the access is an ``ld.shared`` (its return may be packed:
            :meth:`~linlayout.hardware.model.BankModel.packed`); False counts a store or an
            access of unstated direction.

    Returns:
        The access's :class:`ConflictReport` (Lemma 9.4 generalised, module docstring).
    """
    z = max(vector_log2, model.within_word_bits)
    packed = model.packed(lane_offs, vector_log2, load)
    phase = f2.compose(lane_offs, model.phase_lanes(vector_log2, packed))
    exp, basis = phase_exponent(phase, z, model.seg_lo, with_basis)
    kmask = (1 << vector_log2) - 1
    instructions = 1 << f2.rank([x & ~kmask for x in reg_offs])
    p = model.warp_log2 - len(model.phase_masks(vector_log2, packed))
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


def count_side(mem_cols: Sequence[int], inv: Sequence[int], side: Distributed,
               reg_basis: Sequence[int], model: BankModel, with_basis: bool = True,
               load: bool = False, elems_log2: int | None = None,
               offset_of: Callable[[int], int] | None = None) -> ConflictReport:
    """What ``bank_conflicts(side, memory, instruction="ld.shared" if load else
    "st.shared")`` returns, from flat columns: the default vector
    (:func:`~linlayout.hardware.access.default_vector_log2`) counted by :func:`count_offsets`
    — the swizzle synthesizer counts every layout it builds with this.

    Args:
        mem_cols: the memory layout's ``d`` columns (tensor coordinate of each offset bit).
        inv: its inverse's columns (offset of each tensor bit): a bijection of ``d`` bits
            (not read when ``offset_of`` is given).
        side: the distributed layout's flat columns (:class:`~linlayout.hardware.kinds.
            Distributed`, lanes zero-extended to the warp).
        reg_basis: the :func:`~linlayout.f2.echelon` basis of its register images.
        model: the bank model; with_basis, load: as :func:`count_offsets`.
        elems_log2: ``rank(side.lane + side.register)`` (log2 of the elements one warp
            moves), when the caller knows it (a synthesis counts each side many times).
        offset_of: when every lane, warp and block column of ``side`` is a unit vector or
            zero, ``inv`` as a lookup from such a column to its offset (zero to zero: e.g.
            a dict's ``__getitem__``), so that the thread offsets are read at C speed rather
            than composed; None: composed from ``inv``. Either gives the same offsets.

    Returns:
        The same :class:`ConflictReport` as :func:`count_offsets` on the offsets of the
        lanes and registers. Two of its ranks need no offsets: the vector's ``k`` offset
        bits lie in the registers' span, so the registers' offsets beyond the vector have
        rank ``dim R − k`` (instructions ``2^(dim R − k)``), and ``inv`` is a bijection, so
        the lanes' and registers' offsets have the rank of their tensor columns (the bytes
        one warp moves).

    Source: Lemma 9.4 of the Linear Layouts paper (arXiv 2505.23819), generalised (module
    docstring); the vector rule of :mod:`linlayout.hardware.access`.
    """
    d = len(mem_cols)
    if offset_of is None:
        lane_offs = f2.compose_unchecked(inv, side.lane, d)  # memory offset of each lane bit
    else:
        lane_offs = list(map(offset_of, side.lane))
    k = widest_vector_log2(mem_cols, d, reg_basis, model)
    if k:  # the runs of every thread (lanes, warps, blocks) must align to the vector
        k = min(k, alignment_log2(chain(lane_offs, (
            f2.compose_unchecked(inv, side.warp + side.block, d) if offset_of is None
            else map(offset_of, side.warp + side.block)))))
    w, e, word, warp = model.within_word_bits, model.element_log2, model.word_log2, \
        model.warp_log2
    z = k if k > w else w
    # a store never packs, nor a load of less than two bank words per lane (the test that
    # BankModel.packed starts with, read here before calling it)
    packed = load and e + k > word and model.packed(lane_offs, k, load)
    hw = model.hardware
    if not hw.phase_overrides:  # the usual split by lane id: BankModel.lane_prefix inline
        bits = e + k - packed
        p = word + model.banks_log2 - (bits if bits > word else word)
        prefix = warp if p > warp else (p if p > 0 else 0)
        nmasks = warp - prefix
        phase = lane_offs[:prefix]
    else:
        masks, lanes, prefix = model.phase_info(k, packed)
        nmasks = len(masks)
        phase = lane_offs[:prefix] if prefix is not None else f2.compose(lane_offs, lanes)
    seg_lo = model.seg_lo
    if z <= seg_lo and not with_basis and \
            sum(map(int.bit_count, phase)) == len(phase) - phase.count(0):
        # phase_exponent's unit-offset case inline: one dimension per segment bit held
        exp, basis = (reduce(or_, phase, 0) >> seg_lo).bit_count(), ()
    else:
        exp, basis = phase_exponent(phase, z, seg_lo, with_basis)
    if elems_log2 is None:
        elems_log2 = f2.rank(side.lane + side.register)
    phases = 1 << nmasks
    degree = 1 << exp
    report = _new(ConflictReport)  # the frozen dataclass, without its per-field __setattr__
    report.__dict__.update(
        degree=degree,
        wavefronts_per_instruction=phases * degree,
        vector_elems=1 << k,
        phases=phases,
        lanes_per_phase=1 << (warp - nmasks),
        access_bits=model.element_bits << k,
        element_bits=model.element_bits,
        instructions_per_warp=1 << (len(reg_basis) - k),
        bytes_per_warp=-(-(model.element_bits << elems_log2) // 8),
        row_bytes=1 << (model.word_log2 + model.banks_log2 - 3),  # hw.row_bytes
        max_instruction_bytes=hw.warp_size * hw.max_access_bytes,
        conflict_offsets=basis,
        instruction=DEFAULT,
        uneven_wavefronts_per_warp=None,
    )
    return report


_new = object.__new__


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
        with_basis: also compute ``conflict_offsets``.

    Returns:
        The access's :class:`ConflictReport`, ``instruction`` set to the matrix variant.

    Source: PTX ISA ``ldmatrix``/``stmatrix`` (each 8×8 matrix's 8 row addresses are one
    phase); the degree by :func:`phase_exponent`.
    """
    exp, basis = phase_exponent(row_offs, row_bits, model.seg_lo, with_basis)
    keep = (1 << row_bits) - 1
    # registers beyond the chunk (or the .trans row selector, register 0, unless it is a
    # broadcast: a repeated row) and the matrix index
    whole = [x & ~keep for x in reg_offs]
    rest = f2.rank(whole) - (f2.rank(whole[:1]) if instr.trans else 0)
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


def linear_bank_conflicts(
    layout: LinearLayout,
    memory: LinearLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
) -> ConflictReport:
    """:func:`linlayout.bank_conflicts` for a linear memory layout and an NVIDIA-style
    instruction (``ld/st.shared`` or ldmatrix/stmatrix): the closed-form engine.

    Arguments, result and errors are those of :func:`linlayout.bank_conflicts` with
    ``memory`` a :class:`~linlayout.layout.LinearLayout` (anything else is refused by
    :func:`~linlayout.hardware.access.plan_access`) and ``instruction`` not an AMD LDS
    mnemonic (those are counted by :mod:`.lds`, padded memory by :mod:`.padded`; both call
    this function).

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`.
        NotInvertibleError: the memory layout is not a bijection.

    Source: Lemma 9.4 of the Linear Layouts paper (arXiv 2505.23819), generalised to sub-word
    accesses (module docstring); the vector by :mod:`linlayout.hardware.access`.
    """
    model = bank_model(element_bits, hardware)
    instr = parse_instruction(instruction)
    plan = plan_access(layout, memory, model.warp_log2)
    if instr.is_matrix:
        geom = check_matrix_access(instr, plan.register, plan.lane, model.warp_log2,
                                   model.hardware.row_bytes, model.element_bits, vector_elems)
        inv = f2.inverse(plan.memory_cols)
        row_offs, row_bits = check_memory(instr, geom, inv, plan.register, plan.lane,
                                          plan.warp, model.element_bits, any_row_order=True)
        reg_offs = [f2.apply(inv, c) for c in plan.register]
        lane_offs = [f2.apply(inv, c) for c in plan.lane]
        return count_matrix(instr, row_offs, row_bits, reg_offs, lane_offs, model)
    inv, lane_offs, k = plan_vector(plan, model, vector_elems)
    reg_offs = [f2.apply(inv, c) for c in plan.register]
    return count_offsets(lane_offs, reg_offs, k, model, load=instr.is_plain_load)
