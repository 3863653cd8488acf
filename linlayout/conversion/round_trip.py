"""The byte permutes a round trip through shared memory spends packing and unpacking, priced
alike for Triton's scratch layout and the planner's swizzled one.

A round trip stores each thread's source registers as vectors and loads the destination's
back. Elements under 32 bits are put into 32-bit words before a wide store and taken out
after a wide load: Triton 3.9 builds and splits LLVM vectors (``lowerLdStShared``,
``ConvertLayoutOpToLLVM.cpp``) and LLVM's instruction selection spends byte permutes on it
(:func:`~linlayout.lowering.round_trip_pack.round_trip_permutes`, measured on compiled
code: on NVIDIA three ``prmt.b32`` per 8-bit word stored 4 bytes or more at a time and four
per word of a multi-word 8-bit load; on AMD ``v_perm_b32`` by where the producer left the
elements). Both shared-memory paths — Triton's own (:mod:`.triton`) and the planner's
(:func:`~linlayout.plan_conversion`'s ``shared_memory`` family) — would be emitted through
the same vector stores and loads, so both are priced with that one rule, on their own
instructions and vectors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import f2
from .._checks import instance_of
from ..conflicts import ConflictReport
from ..errors import LayoutError
from ..hardware.kinds import Distributed
from ..hardware.model import BankModel
from ..layout import LinearLayout
from ..lowering import Target, access_map
from ..lowering.emitted import Emitted
from ..lowering.local import ld_st, matrix
from ..lowering.round_trip_pack import round_trip_permutes
from ..lowering.scratch import drop_broadcast_registers
from ..synthesis.options import side_options
from ..synthesis.plans import Problem, chain_dims_ok
from ..synthesis.transfer import Transfer
from .cost import resolve_weights
from .problem import ELEMENT_BITS, ConversionProblem
from .shuffle import AMD_PACK_PERMUTES, AMD_WIDE_PACK_PERMUTES

__all__ = ["RoundTripFloor", "ScratchRoundTrip", "matrix_floor", "offset_layout",
           "packing_floor", "round_trip_packing", "side_emitted"]

@dataclass(frozen=True)
class ScratchRoundTrip:
    """A round trip through one given scratch layout (Triton's own, for the shared family's
    ``"triton scratch"`` variant), shaped like the parts of a
    :class:`~linlayout.SwizzleResult` a plan reports and the executor runs.

    Attributes:
        layout: the scratch layout (in dims ``vector, bank, segment, reps``), a bijection
            onto the tensor (:func:`~linlayout.conversion.execute_shared` runs it).
        store, load: each side's exact :class:`~linlayout.ConflictReport`.
        reps: rounds the conversion is split into.
    """

    layout: LinearLayout
    store: ConflictReport
    load: ConflictReport
    reps: int


_MATRIX = re.compile(r"^(ld|st)matrix\.x(\d)(\.trans)?$")


def offset_layout(memory: LinearLayout) -> LinearLayout:
    """A scratch layout (in dims such as ``vector, bank, segment, reps``, flattened in that
    order) as one ``offset`` in dim over the same tensor: offset bit ``i`` is the layout's
    ``i``-th input column (the flattening Triton's ``lowerLdStShared`` addresses by).

    Raises:
        LayoutError: ``memory`` is not a :class:`~linlayout.LinearLayout`.
    """
    instance_of(memory, LinearLayout, "memory")
    return LinearLayout.from_columns(memory.columns, {"offset": 1 << len(memory.columns)},
                                     dict(memory.out_dims))


def side_emitted(side: str, layout: LinearLayout, memory: LinearLayout, instruction: str,
                 vector_elems: int, element_bits: int, target: Target) -> Emitted:
    """The instruction one side of a round trip issues, as an
    :class:`~linlayout.lowering.emitted.Emitted` record.

    Args:
        side: ``"store"`` or ``"load"``.
        layout: the distributed layout of that side (broadcast registers dropped).
        memory: the scratch layout with one ``offset`` in dim (:func:`offset_layout`).
        instruction: the bank counter's instruction name (``"ld/st.shared"``,
            ``"ldmatrix.x4.trans"``, ``"stmatrix.x2"``, or an AMD LDS mnemonic).
        vector_elems: elements each lane moves per instruction.
        element_bits: bits per element.
        target: the compilation target.

    Raises:
        LayoutError: the layout does not fit the memory; no access of that width exists.
    """
    m = access_map(layout, memory, element_bits)
    found = _MATRIX.match(instruction)
    if found:
        return matrix(side, m, int(found.group(2)), bool(found.group(3)))
    if instruction == "ld/st.shared":
        return ld_st(side, m, target, vector_elems)
    bits = max(8, element_bits)
    return Emitted(side, instruction, max(1, m.registers_per_thread // vector_elems),
                   vector_elems, bits, vector_elems * bits // 8, instruction)


def round_trip_packing(problem: ConversionProblem, memory: LinearLayout,
                       store: Emitted, load: Emitted, target: Target,
                       source_load: tuple[int, int] | None = None,
                       packed_source: bool = False, *, wide_source: bool = False) -> int:
    """The byte permutes per thread (``prmt.b32``/``v_perm_b32``, kind ``prmt``) that pack
    ``problem``'s source into ``store`` and unpack ``load`` through ``memory`` (module
    docstring); 0 for 32- and 64-bit elements.

    Args:
        problem: the conversion.
        memory: the scratch layout with one ``offset`` in dim (:func:`offset_layout`).
        store, load: each side's instruction (:func:`side_emitted`).
        target: the compilation target.
        source_load, packed_source: where the producer left the source elements (AMD), as
            :func:`~linlayout.lowering.convert_path` takes them.
        wide_source: the producer left each 8/16-bit element in a 32-bit register (a
            gather's or ``redux.sync`` reduction's result): on NVIDIA each 32-bit word of two
            16-bit elements stored costs a ``prmt.b32``, on AMD four bytes pack with no
            ``v_perm_b32`` (:func:`~linlayout.lowering.convert_path`'s ``wide_source``).

    Raises:
        LayoutError: an argument of the wrong type (``wide_source`` not a bool), or the
            source does not fit ``memory``.

    Source: :func:`~linlayout.lowering.round_trip_pack.round_trip_permutes`.
    """
    instance_of(problem, ConversionProblem, "problem")
    lean = drop_broadcast_registers(problem.src)
    bits = max(8, problem.element_bits)
    emitted = round_trip_permutes(lean, access_map(lean, memory, bits), (store,), (load,),
                                  problem.element_bits, target, source_load, packed_source,
                                  wide_source=wide_source)
    return sum(e.per_thread or 0 for e in emitted)


#: ``{element_bits: {elements a stored word holds: prmt.b32 per word}}`` on NVIDIA for a
#: wide source (each 16-bit element the low half of its own 32-bit register, upper bits
#: unknown): a word of two such elements is joined by one ``prmt.b32``, as NVPTX selects
#: Triton's ``<2 x i16>`` packing (every other spelling measured takes two or three integer
#: instructions: ``papers/conversion/wide_join_isel.py``)
NVIDIA_WIDE_PACK_PERMUTES: Mapping[int, Mapping[int, int]] = {16: {1: 0, 2: 1}}


@dataclass(frozen=True)
class RoundTripFloor:
    """The least cost of any round trip through shared memory once packing is paid
    (:func:`packing_floor`).

    Attributes:
        cost: the floor, in the weights' units.
        store_vector_elems: the store's elements per lane per instruction at which it is
            reached (``ld/st.shared``); 0 where a ``stmatrix`` reaches it.
        permutes: the ``v_perm_b32`` (``prmt.b32`` on NVIDIA; kind ``prmt``) paid there.
        note: the argument, in words.
    """

    cost: float
    store_vector_elems: int
    permutes: int
    note: str


def packing_floor(problem: ConversionProblem, target: Target,
                  weights: Mapping[str, float] | None = None, *,
                  wide_source: bool = False) -> RoundTripFloor | None:
    """A lower bound on the cost of every round trip of ``problem`` through shared memory
    that counts the packing of 8- and 16-bit source elements held one per register (on AMD;
    on NVIDIA of 16-bit elements left in 32-bit registers).

    Every round trip stores the source with some ``ds_write`` access of ``2^k`` elements per
    lane (``k`` from 0 to the widest the registers allow:
    :func:`~linlayout.synthesis.options.side_options`, whose bound ``W_store(k)`` no memory
    layout giving that access beats — Lemma 9.5's dimension count, ``docs/theory.md``) and
    loads the destination with some access of ``2^m`` (``W_load(m)``), and its layout gives
    both sides at least those vectors, which
    :func:`~linlayout.synthesis.plans.chain_dims_ok` rules out for some ``(k, m)`` (the first
    ``max(k, m)`` offset bits must lie in both sides' register spans, clear of their
    threads).
    A store of ``2^k`` elements writes words of ``j = min(32 / element_bits, 2^k)``
    elements, each from ``j`` different registers (one element per register), which the
    pricing rule of :func:`round_trip_packing` assembles with
    :data:`~linlayout.conversion.shuffle.AMD_PACK_PERMUTES` ``[element_bits][j]``
    ``v_perm_b32`` per word (a 16-bit pair one — some instruction must write a word of two
    registers; four bytes two; two bytes none, ``v_lshl_or_b32``), whatever the layout;
    the load side unpacks for nothing. So every round trip costs at least
    ``min over feasible (k, m) of (W_store(k) + W_load(m)) · w_wavefront + I_store(k) · w_st
    + I_load(m) · w_ld + permutes(k) · w_prmt``, plus ``w_bar``. The synthesized bound
    counts packing as free; this floor makes a wide store pay its packing and a narrow one
    its wavefronts.

    Why reuse cannot undercut it (the flaw that refuted the shuffle family's per-element
    packing bound, where one packed word is read by several shuffles): the scratch layout
    is a bijection, so a round trip stores each element of a thread once (broadcast
    registers dropped), and the ``registers / j`` words a thread stores hold disjoint sets
    of ``j`` elements — no word is stored twice, and no instruction writes two of them (a
    32-bit register holds one word). So each word is built on its own, and is priced as
    LLVM's AMDGPU back end builds it (:data:`~linlayout.conversion.shuffle.
    AMD_PACK_PERMUTES`: one ``v_perm_b32`` per 16-bit pair, two per four bytes; the
    ``v_lshl_or_b32`` that joins two zero-extended bytes is priced at nothing, as on every
    path: see :mod:`~linlayout.conversion.cost`). The floor bounds round trips lowered as
    LLVM lowers them, not every instruction sequence: a hand-written ``v_lshl_or_b32``
    would join a 16-bit pair too. The load side unpacks for nothing, so a word loaded by
    many lanes (a broadcast read) costs nothing more either. Where a vector's offsets are
    reached through sums of register bases (offset 1 = ``r0 ⊕ r1``), its words still join
    registers (:func:`round_trip_packing` prices them so).

    On NVIDIA it claims something only for a wide 16-bit source (``wide_source``: each
    element the low half of a 32-bit register, as a gather or ``redux.sync`` reduction
    leaves it): every stored word of two elements joins two registers, one ``prmt.b32``
    as NVPTX selects Triton's packing (:data:`NVIDIA_WIDE_PACK_PERMUTES`; at the machine
    level too, a 32-bit store takes one register); the argument above then holds for the
    ``st.shared`` vectors. The matrix instructions the target has are options too
    (``stmatrix`` on sm_90+, ``ldmatrix`` on sm_75+, every ``.x1/.x2/.x4`` and ``.trans``
    variant), and their accesses are not the vector options: a ``.trans`` store puts a
    register's two elements at offsets a row apart, so it needs no vector chain with the
    load, and Triton's lowering uses an ``.x1`` on tiles smaller than its 8×8 matrix with
    lanes repeated. Each is priced at what no access can beat (:func:`matrix_floor`: the
    16 bytes a lane an instruction moves, one bank row a wavefront) and, as a store, at
    ``registers / 2`` ``prmt.b32`` — every ``stmatrix`` operand is a 32-bit register of two
    16-bit elements, each element stored once — and paired with any option of the other
    side, no chain asked (a ``stmatrix.x1.trans`` round trip of 1 wavefront and 1 ``prmt``
    each way is 10.5, which the ``ld/st.shared`` options alone floored at 11). It bounds
    round trips whose joins are spelled so (a join with shifts costs nothing under the
    counted kinds, though more instructions), as the shuffle bounds do
    (``nvidia_lone_shuffle_bound``). Checked, besides the ``ld/st.shared`` brute force (on
    sm_70, where no matrix instruction exists), against every ``stmatrix``/``ldmatrix``
    variant on every offset-bit permutation and 300 random memory layouts of 8×8 to 16×16
    tiles, and against the round trips the planner builds for seeded random layouts on
    sm_80 and sm_90 (``tests/conversion/test_round_trip.py``).

    Returns None where it claims nothing: an NVIDIA target otherwise (16-bit packing is a
    ``mov``; 8-bit packing is priced on the access, not the width), elements of 32 bits or more, or a
    source that is not one element per register (the caller decides that: see
    :func:`~linlayout.plan_conversion`, which asks only where the producer left one element
    per register and the source is no float truncation). ``wide_source``: each element is the
    low bytes of a 32-bit register with unknown upper bits (a gather's or reduction's
    result), whose four bytes pack for nothing
    (:data:`~linlayout.conversion.shuffle.AMD_WIDE_PACK_PERMUTES`). Brute-force checked against every
    memory layout of a 16-element tile, each side at every vector it can use, and of an
    8-element tile on a 2-lane warp for a third of its destinations at 8 and 16 bits, priced
    by :func:`round_trip_packing` (``tests/conversion/test_round_trip.py``: never above the
    cheapest round trip, and equal to it).

    Raises:
        LayoutError: an argument of the wrong type (``wide_source`` not a bool), or bad
            weights.

    Source: ``transferWithinBlockSwizzling`` and ``lowerLdStShared``
    (``ConvertLayoutOpToLLVM.cpp``, Triton 3.9) as the AMDGPU back end selects them
    (:mod:`~linlayout.lowering.round_trip_pack`).
    """
    instance_of(problem, ConversionProblem, "problem")
    instance_of(target, Target, "target")
    ws = resolve_weights(weights)
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    bits = problem.element_bits
    if target.is_nvidia:
        if not (wide_source and bits == 16):
            return None
        table = NVIDIA_WIDE_PACK_PERMUTES
    else:
        table = AMD_WIDE_PACK_PERMUTES if wide_source else AMD_PACK_PERMUTES
    if bits not in (8, 16):
        return None
    src, dst = (drop_broadcast_registers(x) for x in (problem.src, problem.dst))
    transfer = Transfer.make(src, dst, element_bits=bits, hardware=problem.hardware)
    d = transfer.store.total_out_bits
    options = [side_options(i, side, tuple(f2.echelon(side.register)), transfer.model, d)
               for i, side in enumerate(transfer.sides)]
    sides = transfer.sides
    problem_ = Problem(sides=sides, regs=tuple(f2.echelon(x.register) for x in sides),
                       model=transfer.model, d=d,
                       dim_bits=tuple(b for _, b in transfer.store.out_dims_log2),
                       weights=(1, 1))
    registers = 1 << f2.rank(list(sides[0].register))
    # each side as (wavefronts, instructions, elements per lane per access, the option for
    # chain_dims_ok or None): its ld/st.shared options and, on NVIDIA where the target has
    # them (stmatrix on sm_90+, ldmatrix on sm_75+), any matrix instruction, priced at what
    # no access can beat (matrix_floor)
    ways: list[list[tuple[int, int, int | None, Any]]] = [
        [(o.wavefronts_bound, o.instructions_per_warp, 1 << o.vector_log2, o) for o in opts]
        for opts in options]
    if target.is_nvidia:
        for i, has in ((0, target.cc >= 90), (1, target.cc >= 75)):
            if has:
                ways[i].append((*matrix_floor(sides[i], transfer.model, bits), None, None))
    best = None
    for st_w, st_i, st_v, st in ways[0]:
        # a stmatrix stores 32-bit registers of two 16-bit elements each: words of two
        j = 2 if st is None else min(32 // bits, st_v)
        permutes = registers // j * table[bits][j]
        store = st_w * ws["wavefront"] + st_i * ws["st.shared"] + permutes * ws["prmt"]
        for ld_w, ld_i, ld_v, ld in ways[1]:
            if st is not None and ld is not None and not chain_dims_ok((st, ld), problem_):
                continue  # no layout gives both sides these vectors
            c = store + ld_w * ws["wavefront"] + ld_i * ws["ld.shared"]
            if best is None or c < best[0]:
                best = (c, 0 if st is None else st_v, 0 if ld is None else ld_v, permutes)
    if best is None:
        return None
    cost = best[0] + ws["bar.sync"]
    permute = "prmt.b32" if target.is_nvidia else "v_perm_b32"
    note = ("every round trip stores 2^k and loads 2^m elements per lane that some layout "
            "can give both sides"
            + (", or uses a matrix instruction (stmatrix/ldmatrix)" if target.is_nvidia else "")
            + f", pays their wavefront bounds and the {permute} packing its "
            f"stored words (one source element per register): at least {cost:g} "
            f"({f'{best[1]}-element stores' if best[1] else 'stmatrix'} with {best[3]} "
            f"{permute}, {f'{best[2]}-element loads' if best[2] else 'ldmatrix'}, one barrier)")
    return RoundTripFloor(cost, best[1], best[3], note)


def matrix_floor(side: Distributed, model: BankModel, element_bits: int) -> tuple[int, int]:
    """``(wavefronts, instructions)`` per warp that no access of ``side`` by any
    instruction moving at most 16 bytes per lane — ``ld/st.shared`` up to ``.v4.b32``,
    ``ldmatrix``/``stmatrix`` up to ``.x4`` (four 32-bit registers a lane) — can beat,
    whatever the memory layout.

    **Lemma.** A thread holds ``2^rank(registers)`` distinct elements of the side (broadcast
    registers dropped) and each instruction moves at most 16 of its bytes, so a warp issues
    at least ``I = ⌈2^rank(registers) · element_bits / 128⌉`` instructions; each takes at
    least one wavefront, and one wavefront serves at most one bank row (``2^banks`` words
    of ``2^word`` bits: 128 bytes on NVIDIA) of distinct bytes, while the warp moves
    ``2^rank(registers + lanes)`` distinct elements. So ``wavefronts ≥ max(I, ⌈distinct
    bytes / row bytes⌉)``. Used by :func:`packing_floor` for the matrix instructions, whose
    access (``.x1/.x2/.x4``, ``.trans``, a tile smaller than the 8×8 matrices with lanes
    repeated, as Triton's lowering picks it) the ``ld/st.shared`` options do not describe.

    Raises:
        LayoutError: ``side`` not a :class:`~linlayout.hardware.kinds.Distributed`,
            ``model`` not a :class:`~linlayout.hardware.model.BankModel`, or an element
            width not in :data:`~linlayout.conversion.problem.ELEMENT_BITS`.

    Source: the PTX ISA (``ldmatrix``/``stmatrix``: ``.x4`` moves four 32-bit registers a
    lane; ``ld``/``st``: at most ``.v4.b32``) and the bank model (one bank row per
    wavefront).
    """
    instance_of(side, Distributed, "side")
    instance_of(model, BankModel, "model")
    if isinstance(element_bits, bool) or element_bits not in ELEMENT_BITS:
        raise LayoutError(f"element_bits must be one of {list(ELEMENT_BITS)}, got "
                          f"{element_bits!r}")
    per_lane = 1 << f2.rank([c for c in side.register if c])
    per_warp = 1 << f2.rank([c for c in (*side.register, *side.lane) if c])
    instructions = -(-per_lane * element_bits // 128)
    row_bits = 1 << (model.word_log2 + model.banks_log2)
    return max(instructions, -(-per_warp * element_bits // row_bits)), instructions
