"""How each side of a transfer can access the tile, and what no memory layout can beat.

A *side* is one distributed layout that stores or loads the tile. With a given memory layout
the compiler vectorises the side as widely as the layout allows, so the layout decides each
side's access: ``ld/st.shared`` of ``2^k`` elements per lane (``k`` from 0 to the widest
vector its registers and alignment allow), or a matrix instruction (``ldmatrix``/
``stmatrix``) when the caller allows one. Each such :class:`SideOption` has an exact
instruction count and phase count, and a lower bound on its conflict degree that holds for
*every* memory layout giving the side that access:

* ``instructions_per_warp = 2^(dim R − k)`` (``R``: the span of the register images; the
  vector takes ``k`` of them);
* each of an instruction's phases serves the lanes ``Λ`` of one phase plus the vector and
  within-word directions ``Z``: any ``s``-dimensional segment span meets ``X = Λ + Z`` in
  at least ``s − (d − dim X)`` dimensions (``d`` tensor bits), and ``dim X`` is at least
  ``max(dim Λ + k, w)`` (``w`` within-word bits; the vector avoids every lane direction, and
  the within-word bits beyond the vector can at best be lane directions);
* so ``wavefronts_per_warp ≥ instructions · phases · 2^max(0, s − d + dim X)``.

Summing each side's best option gives a lower bound for the whole transfer that no layout
beats (:func:`cost_bound`): a layout that reaches it is optimal, with no search needed.

Worked example (the 64×64 fp16 tile of a blocked ``[1, 8]`` store read as an mma dot
operand, 4 warps): the store can vectorise up to 8 elements (16 bytes): at ``k = 3`` it takes
4 instructions of 4 phases, conflict-free at best, 16 wavefronts; the load holds 2
consecutive elements: 16 instructions of 1 phase, 16 wavefronts. The bound is 32 wavefronts
and 20 instructions per warp — the textbook 128-byte swizzle reaches it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate
from operator import itemgetter, or_
from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware.instructions import DEFAULT, Instruction, MatrixGeometry, all_variants, \
    matrix_geometry, matrix_geometry_spare, parse_instruction
from ..hardware.kinds import Distributed
from ..hardware.model import BankModel
from .._memo import memoize
from .transfer import Objective

__all__ = ["SideOption", "best_plain_option", "cost_bound", "paired_exponent",
           "side_options"]


@dataclass(frozen=True)
class SideOption:
    """One way a side can access the tile, with its exact counts and its conflict bound.

    Attributes:
        side: index of the side (0 the store, then the loads).
        instruction: the :class:`~linlayout.hardware.Instruction` (``ld/st.shared`` or a
            matrix instruction).
        vector_log2: ``k`` for ``ld/st.shared`` (``2^k`` elements per lane); for a matrix
            instruction the offset bits of one 16-byte row.
        instructions_per_warp: instructions one warp issues with this access.
        phases: phases per instruction.
        bound_exponent: ``e`` with degree ``≥ 2^e`` for every memory layout giving this
            access.
        geometry: the matrix geometry (None for ``ld/st.shared``).
        prefix: for a matrix instruction, the tensor directions its row needs at offset bits
            ``0 … row bits − 1``, in order; empty otherwise.
        constraints: for a matrix instruction, the directions whose offsets must be clear of
            the row bits (``check_memory``'s rule), split as ``(all row bits, bits from the
            lane chunk up)``; empty otherwise.
        phase_mask: for ``ld/st.shared`` of a side whose lane columns are unit vectors or
            zero, on hardware whose phases split the lanes by lane id, the tensor bits of
            one phase's lanes (the OR of the first lanes' columns: what
            :meth:`~linlayout.hardware.model.BankModel.phase_info` puts in a phase at this
            vector, packed or not); None otherwise. Derived, not compared.
    """

    side: int
    instruction: Instruction
    vector_log2: int
    instructions_per_warp: int
    phases: int
    bound_exponent: int
    geometry: MatrixGeometry | None = None
    prefix: tuple[int, ...] = ()
    constraints: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    chunk_bits: int = 0
    phase_mask: int | None = field(default=None, compare=False, repr=False)

    @property
    def is_matrix(self) -> bool:
        """True for ldmatrix/stmatrix."""
        return self.geometry is not None

    @cached_property
    def wavefronts_bound(self) -> int:
        """The least wavefronts per warp any memory layout giving this access can cost
        (``instructions_per_warp · phases · 2^bound_exponent``; kept once read, or set when
        :func:`side_options` builds the option: the searches read it for every option)."""
        return self.instructions_per_warp * self.phases << self.bound_exponent


#: The fields of :class:`SideOption` that have defaults, with them.
_OPTION_DEFAULTS = {"geometry": None, "prefix": (), "constraints": ((), ()), "chunk_bits": 0,
                    "phase_mask": None}


def _option(**fields: object) -> SideOption:
    """``SideOption(**fields)`` without the frozen dataclass's per-field ``__setattr__`` (a
    synthesis builds a dozen; the object is the same, equal and hashable alike)."""
    opt = _new(SideOption)
    opt.__dict__.update(_OPTION_DEFAULTS, **fields)
    return opt


_new = object.__new__


#: ``ld/st.shared`` as an :class:`~linlayout.hardware.Instruction` (immutable: parsed once,
#: at import, like :func:`~linlayout.hardware.instructions.all_variants`).
_PLAIN = parse_instruction(DEFAULT)


def side_options(index: int, side: Distributed, reg_basis: tuple[int, ...], model: BankModel,
                 d: int, matrix: Sequence[Instruction] | None = None,
                 plain: bool = True, unit_masks: tuple[int, int] | None = None
                 ) -> list[SideOption]:
    """Every access option of one side (module docstring), widest ``ld/st.shared`` first.

    Args:
        index: the side's index (0: the store).
        side: its flat columns; reg_basis: the echelon basis of its register images.
        model: the bank model; d: the tensor's bit count.
        matrix: the matrix instructions to consider for this side (None: none).
        plain: include the ``ld/st.shared`` options.
        unit_masks: when every column of the side is a unit vector or zero, the OR of its
            register columns and of its lane, warp and block columns (what
            :class:`~.direct.UnitSides` holds), so that the registers' meet with the
            threads is read off them; None: worked out here.

    Raises:
        LayoutError: a matrix instruction named explicitly (``matrix`` of one entry with
            ``plain`` False) that the side's registers cannot use (the message says why).
    """
    matrix = tuple(matrix) if matrix else ()
    if matrix and len(matrix) == 6:  # every variant of one direction ("auto"): keyed by it
        for token, variants in _AUTO.items():
            if matrix == variants:
                matrix = token  # type: ignore[assignment]
                break
    return list(_side_options(index, side, tuple(reg_basis), model, d, matrix, plain,
                              unit_masks))


#: :func:`~linlayout.hardware.instructions.all_variants` of each direction, under the short
#: key :func:`side_options` caches them by (a tuple of instructions hashes field by field).
_AUTO = {"auto store": tuple(all_variants(store=True)),
         "auto load": tuple(all_variants(store=False))}


@memoize(256)
def _side_options(index: int, side: Distributed, reg_basis: tuple[int, ...], model: BankModel,
                  d: int, matrix: tuple[Instruction, ...], plain: bool,
                  unit_masks: tuple[int, int] | None = None) -> tuple[SideOption, ...]:
    """:func:`side_options`, cached (the internal searches of one ``lowering="triton"``
    synthesis ask again for the same sides; an option is immutable); ``matrix`` may be a key
    of :data:`_AUTO`."""
    kinds = None
    if type(matrix) is str:
        kinds = _AUTO_KINDS[matrix]
        matrix = _AUTO[matrix]
    out: list[SideOption] = []
    if plain:
        new = _new
        fields = {**_OPTION_DEFAULTS, "side": index, "instruction": _PLAIN}
        for k, ipw, phases, exp, wb, mask in _plain_rows(index, side, reg_basis, model, d,
                                                          unit_masks):
            opt = new(SideOption)
            opt.__dict__.update(fields, vector_log2=k, instructions_per_warp=ipw, phases=phases,
                                bound_exponent=exp, wavefronts_bound=wb, phase_mask=mask)
            out.append(opt)
    if matrix:
        out += _matrix_options(index, matrix, side, reg_basis, model, d,
                               max(0, d - model.seg_lo),
                               explicit=not plain and len(matrix) == 1,
                               kinds=kinds or _kinds(matrix))
    return tuple(out)


def _plain_rows(index: int, side: Distributed, reg_basis: tuple[int, ...], model: BankModel,
                d: int, unit_masks: tuple[int, int] | None, least: str | None = None
                ) -> list[tuple[int, int, int, int, int, int | None]]:
    """The fields of a side's ``ld/st.shared`` options, widest vector first: one
    ``(vector_log2, instructions_per_warp, phases, bound_exponent, wavefronts_bound,
    phase_mask)`` per vector width (:func:`side_options`' arguments; the options are built
    from these rows, or only the one a caller picks: :func:`best_plain_option`).

    ``least``: an objective's name — only the rows up to the last one that can be the first
    of least key under it (:func:`best_plain_option`). Narrower vectors issue more
    instructions, so under ``"instructions"`` the widest row is that one. Under
    ``"wavefronts"``, with phases split by lane id, a row costs at least ``instructions ·
    phases · 2^floor`` wavefronts (``floor``: the exponent's vector-free part), and that
    product never falls as the vector narrows (halving the vector doubles the instructions
    and at most halves the phases: a lane's bits shrink by one, so a phase gains at most one
    lane bit) — once it reaches the least wavefronts so far, no narrower row can win (a tie
    in wavefronts goes to the fewer instructions, the wider vector)."""
    nseg = max(0, d - model.seg_lo)
    w = model.within_word_bits
    lane = side.lane
    rank_r = len(reg_basis)
    # a phase by lane id holds a prefix of the lanes: their ranks
    if unit_masks is not None:  # unit columns: the meet is the masks' common bits
        blocked = (unit_masks[0] & unit_masks[1]).bit_count()
        # the tensor bits of each prefix of the lanes
        lane_masks = list(accumulate(lane, or_, initial=0))
        lane_ranks = list(map(int.bit_count, lane_masks))
    else:
        blocked, lane_ranks = _thread_ranks(reg_basis, side)
        lane_masks = [None] * len(lane_ranks)
    kmax = min(rank_r - blocked, model.max_vector_log2, d, model.seg_lo)
    lam_rank: dict[tuple[int, ...], int] = {}
    load = index > 0
    # whether a load's return packs depends on the width only through may_pack
    packs = load and model.packed(lane, kmax, load)
    # may_pack holds from one width up (packs: it holds at kmax, so for a load on
    # hardware that packs): the first width of two bank words per lane
    pack_from = model.word_log2 + 1 - model.element_log2 if packs else kmax + 1
    info = model.phase_info
    # phases split by lane id at every width (no override): BankModel.lane_prefix
    # inline, p = min(warp, max(0, log2(row bits) − max(log2(bits per lane), log2(word
    # bits)))); the clamps bind only where a row has more banks than a warp lanes, or a
    # lane moves more than a row
    by_id = not model.hardware.phase_overrides
    e, word, warp = model.element_log2, model.word_log2, model.warp_log2
    row = word + model.banks_log2
    clamp = row - word > warp or e + kmax > row
    # exponent max(0, lam + k − (d − nseg), w − (d − nseg)): ``floor`` is its k-free part
    base = nseg - d
    floor = w + base if w + base > 0 else 0
    rows = []
    if least == "instructions":
        kmax_only = True
        prune = False
    else:
        kmax_only = False
        prune = least == "wavefronts" and by_id
    fewest = -1  # the least wavefronts of the rows so far (pruning)
    for k in range(kmax, -1, -1):
        if by_id:
            bits = e + k - 1 if k >= pack_from else e + k  # a packed return: half as wide
            p = row - (bits if bits > word else word)
            if clamp:
                p = warp if p > warp else (p if p > 0 else 0)
            lam, mask, phases = lane_ranks[p], lane_masks[p], 1 << (warp - p)
            if prune and fewest >= 0 and (phases << (rank_r - k + floor)) >= fewest:
                break
        else:
            masks, phase, prefix = info(k, k >= pack_from)
            phases = 1 << len(masks)
            if prefix is not None:
                lam, mask = lane_ranks[prefix], lane_masks[prefix]
            else:
                lam = lam_rank.get(phase)
                if lam is None:
                    lam = lam_rank[phase] = f2.rank(f2.compose(lane, phase))
                mask = None
        ipw = 1 << (rank_r - k)
        exp = lam + k + base
        if exp < floor:
            exp = floor
        wb = ipw * phases << exp
        rows.append((k, ipw, phases, exp, wb, mask))
        if kmax_only:
            break
        if fewest < 0 or wb < fewest:
            fewest = wb
    return rows


def best_plain_option(index: int, side: Distributed, reg_basis: tuple[int, ...],
                      model: BankModel, d: int, objective: Objective,
                      unit_masks: tuple[int, int] | None = None) -> SideOption:
    """The side's first ``ld/st.shared`` option of least key — ``min`` of
    :func:`side_options` (``ld/st.shared`` only, widest vector first) by
    ``objective.key(wavefronts_bound, instructions_per_warp)`` — with no other option built
    (the direct construction of a usual synthesis needs this one only).

    Args: as :func:`side_options`; objective: the :class:`~.transfer.Objective` ordering
    the keys.

    Returns:
        The :class:`SideOption` equal to the one ``side_options`` lists (every field alike).

    Raises:
        Nothing of its own: a hot-path helper of :func:`side_options` for inputs the
        synthesis has already validated (``synthesize_swizzle`` checks layouts, hardware
        and objective before it is called).
    """
    rows = _plain_rows(index, side, reg_basis, model, d, unit_masks, objective.name)
    k, ipw, phases, exp, wb, mask = min(
        rows, key=_WAVES_FIRST if objective.name == "wavefronts" else _INSTRS_FIRST)
    opt = _new(SideOption)
    opt.__dict__.update(_OPTION_DEFAULTS, side=index, instruction=_PLAIN, vector_log2=k,
                        instructions_per_warp=ipw, phases=phases, bound_exponent=exp,
                        wavefronts_bound=wb, phase_mask=mask)
    return opt


#: A row's key under each objective (:func:`best_plain_option`; read at C speed).
_WAVES_FIRST, _INSTRS_FIRST = itemgetter(4, 1), itemgetter(1, 4)


def _thread_ranks(reg_basis: tuple[int, ...], side: Distributed) -> tuple[int, list[int]]:
    """``(dim(R ∩ T), ranks)`` in one pass over the side's thread columns: the register span
    ``R`` (``reg_basis``, an echelon basis) met with the span ``T`` of the lanes, warps and
    blocks — the register directions a vector cannot use (every thread's run must be its
    own) — and the rank of every prefix of the lanes (:func:`f2.prefix_ranks`).

    Unit and zero vectors (Triton's usual layouts) span coordinate subspaces: the
    intersection is that of their masks and a prefix's rank its mask's bit count, read off
    in that one pass; otherwise ``dim R + dim T − dim(R + T)`` and eliminations."""
    masks = [0]
    t = 0
    for c in side.lane:
        if c & (c - 1):
            break
        t |= c
        masks.append(t)
    else:
        lane_ranks = [m.bit_count() for m in masks]
        for c in side.warp + side.block:
            if c & (c - 1):
                break
            t |= c
        else:
            r = 0
            for b in reg_basis:
                if b & (b - 1):
                    break
                r |= b
            else:
                return (r & t).bit_count(), lane_ranks
        return _blocked(reg_basis, side), lane_ranks
    return _blocked(reg_basis, side), f2.prefix_ranks(side.lane)


def _blocked(reg_basis: tuple[int, ...], side: Distributed) -> int:
    """``dim(R ∩ T)`` of :func:`_thread_ranks` by ranks."""
    threads = [c for c in side.lane + side.warp + side.block if c]
    if not threads or not reg_basis:
        return 0
    return len(reg_basis) + f2.rank(threads) - f2.rank(list(reg_basis) + threads)


@memoize(1024)
def _geometry(instr: Instruction, register: tuple[int, ...], lane: tuple[int, ...],
              element_bits: int) -> tuple[MatrixGeometry, int] | None:
    """``matrix_geometry_spare``'s answer for ``instr``'s kind, or None when that kind does
    not fit (cached: the internal searches of one ``lowering="triton"`` synthesis ask again
    for the same sides)."""
    try:
        return matrix_geometry_spare(instr, register, lane, element_bits, trusted=True)
    except LayoutError:
        return None


def _matrix_options(index: int, matrix: tuple[Instruction, ...], side: Distributed,
                    reg_basis: tuple[int, ...], model: BankModel, d: int, nseg: int,
                    explicit: bool, kinds: tuple[tuple[Any, ...], ...]) -> list[SideOption]:
    """The options of the matrix instructions ``matrix`` (in their order) the side can use
    (LayoutError instead when one was asked for explicitly and does not fit:
    :func:`~linlayout.hardware.instructions.matrix_geometry`'s own).

    Every ``.xN`` of a kind (``.trans`` or not, load or store) has the kind's geometry and
    fits when the rank of the registers outside the rows' span is at least ``log2(N)``
    (:func:`~linlayout.hardware.instructions.matrix_geometry_spare`), so each kind is worked
    out once: its geometry, that rank, the register rank beyond the row (the instruction
    count) and the alignment constraints. A ``.trans`` kind moves 16-bit elements only: it is
    not tried for other widths (:func:`~linlayout.hardware.instructions.check_element`).
    ``kinds`` is :func:`_kinds` of ``matrix``."""
    if model.warp_log2 != 5 or model.hardware.row_bytes < 128:
        if explicit:
            raise LayoutError(f"{matrix[0].name} needs 32-lane warps and 128-byte rows of "
                              "banks")
        return []
    bits = model.element_bits
    firsts, entries = kinds
    # per kind: the fields its options share, the .xN fit and the register rank beyond the row
    shared: list[tuple[dict[str, Any], int, int] | None] = []
    for trans, instr in firsts:  # what every .xN of a kind shares, from its first one
        found = None if trans and bits != 16 and not explicit else \
            _geometry(instr, side.register, side.lane, bits)
        if found is None:
            shared.append(None)
            continue
        geom, spare = found
        row = geom.row
        row_bits = len(row)
        fields = {
            "side": index, "vector_log2": row_bits, "geometry": geom, "prefix": row,
            "bound_exponent": max(0, nseg - (d - (row_bits + 3))),
            "constraints": (tuple(filter(None, geom.rows + side.warp)),  # the nonzero ones
                            tuple(filter(None, side.register))),
            "chunk_bits": 0 if trans else max(0, 5 - (bits.bit_length() - 1)),
            "phase_mask": None}
        shared.append((fields, spare, f2.rank_modulo(reg_basis, row) - (1 if trans else 0)))
    out: list[SideOption] = []
    new = _new
    for instr, at, n, mat_log2 in entries:
        known = shared[at]
        if known is None or known[1] < mat_log2:
            if explicit:  # its own error, with its message
                matrix_geometry(instr, side.register, side.lane, bits)
            continue
        opt = new(SideOption)
        opt.__dict__.update(known[0], instruction=instr, phases=n,
                            instructions_per_warp=1 << max(0, known[2] - mat_log2))
        out.append(opt)
    return out


def _kinds(matrix: Sequence[Instruction]) -> tuple[tuple[tuple[bool, Instruction], ...],
                                                   tuple[tuple[Instruction, int, int, int], ...]]:
    """What :func:`_matrix_options` reads of the instructions: each kind's ``.trans`` and
    first instruction, in the order the kinds first appear (a kind: ``.trans`` or not, load
    or store); and each instruction with its kind's index there, its matrices ``n`` and
    ``log2 n``."""
    firsts: list[tuple[bool, Instruction]] = []
    index: dict[tuple[bool, bool | None], int] = {}
    entries = []
    for i in matrix:
        kind = (i.trans, i.store)
        if kind not in index:
            index[kind] = len(firsts)
            firsts.append((i.trans, i))
        entries.append((i, index[kind], i.matrices, i.matrices.bit_length() - 1))
    return tuple(firsts), tuple(entries)


#: :func:`_kinds` of the :data:`_AUTO` variants (constants, worked out at import).
_AUTO_KINDS = {token: _kinds(v) for token, v in _AUTO.items()}


def matrix_instructions(request: object, index: int) -> tuple[list[Instruction], bool]:
    """The matrix instructions a side may use, and whether ``ld/st.shared`` stays allowed.

    ``request`` is ``"auto"`` (every variant of the side's direction, ld/st.shared too), None
    or an ``ld/st.shared`` name (no matrix instruction), or one matrix instruction name
    (that one only).

    Raises:
        LayoutError: an unknown name, or a load instruction named for the store (or the
            reverse).
    """
    if request == "auto":
        return all_variants(store=index == 0), True
    instr = parse_instruction(request)  # type: ignore[arg-type]
    if not instr.is_matrix:
        return [], True
    if instr.store != (index == 0):
        raise LayoutError(f"{instr.name} is a {'store' if instr.store else 'load'}; side "
                          f"{index} is {'the store' if index == 0 else 'a load'}")
    return [instr], False


def paired_exponent(option: SideOption, other: SideOption, side: Distributed,
                    other_side: Distributed, model: BankModel, d: int) -> int:
    """A lower bound ``e`` on the conflict exponent of one ``ld/st.shared`` side (degree
    ``≥ 2^e`` in every phase) over every memory layout in which it vectorises exactly
    ``option.vector_log2`` and the other side exactly ``other.vector_log2`` — at least
    ``option.bound_exponent``, more when the other side's longer vector takes bank bits this
    side's lanes cannot use.

    Proof. Let ``k`` be this side's vector, ``z = max(k, w)``, ``s`` the first segment bit
    (``min(seg_lo, d)``), ``Λ`` the lanes of one phase (``phase_lanes``, packed or not: the
    phases :func:`~linlayout.conflicts.closed_form.count_offsets` counts) and ``h`` their
    offsets shifted right by ``z``. The exponent is ``rank(h) − rank(h mod 2^(s−z))``
    (:func:`~linlayout.conflicts.closed_form.phase_exponent`). Alignment clears offset bits
    ``< k`` of every lane, so ``rank(h) ≥ max(rank Λ + k, z) − z``. Split the bank bits
    ``[z, s)`` at ``t = min(max(k', z), s)`` (``k'``: the other side's vector): the bits
    ``[t, s)`` add at most ``s − t`` to the rank; each bit ``i < k'`` is, by the other side's
    alignment, a functional vanishing on that side's thread directions ``C``, so on ``Λ``
    the bits ``[z, t)`` have rank at most ``min(t − z, dim(Λ + C) − dim C)``. Hence
    ``e ≥ max(rank Λ + k, z) − z − min(t − z, dim(Λ + C) − dim C) − (s − t)``; with the
    ``t − z`` term this is the bound of :func:`side_options`.

    Args:
        option, other: the two sides' ``ld/st.shared`` options (not matrix instructions).
        side, other_side: their flat columns; model: the bank model; d: the tensor's bits.
    """
    k = option.vector_log2
    z = max(k, model.within_word_bits)
    seg = min(model.seg_lo, d)
    if z >= seg:
        return option.bound_exponent
    t = min(max(other.vector_log2, z), seg)
    lanes = [c for c in f2.compose(side.lane, model.phase_lanes(
        k, model.packed(side.lane, k, option.side > 0))) if c]
    rank_lanes = f2.rank(lanes)
    threads = [c for c in other_side.lane + other_side.warp + other_side.block if c]
    rank_c = f2.rank(threads)
    rho = min(t - z, f2.rank(lanes + threads) - rank_c)
    return max(option.bound_exponent, max(rank_lanes + k, z) - z - rho - (seg - t))


def cost_bound(options: Sequence[Sequence[SideOption]], weights: Sequence[int],
               objective: Objective) -> tuple[tuple[int, int], list[SideOption]]:
    """The least key any memory layout can reach, and each side's option that reaches it.

    Every side is minimised on its own (a layout cannot do better for a side than that
    side's best option); the weighted sums of the per-side minima bound the total. For the
    lexicographic second component only the options that reach their side's minimum of the
    first count.

    Returns:
        ``((first, second), best option per side)`` with ``first`` and ``second`` in the
        objective's order (:meth:`~.transfer.Objective.key`).
    """
    total = [0, 0]
    chosen = []
    for opts, wt in zip(options, weights):
        best = min(opts, key=lambda o: objective.key(o.wavefronts_bound,
                                                     o.instructions_per_warp))
        chosen.append(best)
        key = objective.key(best.wavefronts_bound, best.instructions_per_warp)
        total[0] += wt * key[0]
        total[1] += wt * key[1]
    return (total[0], total[1]), chosen
