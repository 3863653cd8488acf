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

from .. import f2
from .._checks import instance_of
from ..conflicts import ConflictReport
from ..errors import LayoutError
from ..layout import LinearLayout
from ..lowering import Target, access_map
from ..synthesis.options import side_options
from ..synthesis.plans import Problem, chain_dims_ok
from ..synthesis.transfer import Transfer
from ..lowering.emitted import Emitted
from ..lowering.local import ld_st, matrix
from ..lowering.round_trip_pack import round_trip_permutes
from ..lowering.scratch import drop_broadcast_registers
from .cost import resolve_weights
from .problem import ConversionProblem
from .shuffle import AMD_PACK_PERMUTES, AMD_WIDE_PACK_PERMUTES

__all__ = ["RoundTripFloor", "ScratchRoundTrip", "offset_layout", "packing_floor",
           "round_trip_packing", "side_emitted"]

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


@dataclass(frozen=True)
class RoundTripFloor:
    """The least cost of any round trip through shared memory once packing is paid
    (:func:`packing_floor`).

    Attributes:
        cost: the floor, in the weights' units.
        store_vector_elems: the store's elements per lane per instruction at which it is
            reached.
        permutes: the ``v_perm_b32`` (kind ``prmt``) paid there.
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
    on AMD that counts the packing of 8- and 16-bit source elements held one per register.

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

    Returns None where it claims nothing: an NVIDIA target (16-bit packing is a ``mov``;
    8-bit packing is priced on the access, not the width), elements of 32 bits or more, or a
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
    table = AMD_WIDE_PACK_PERMUTES if wide_source else AMD_PACK_PERMUTES
    bits = problem.element_bits
    if target.is_nvidia or bits not in (8, 16):
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
    best = None
    for st in options[0]:
        j = min(32 // bits, 1 << st.vector_log2)
        permutes = registers // j * table[bits][j]
        store = (st.wavefronts_bound * ws["wavefront"]
                 + st.instructions_per_warp * ws["st.shared"] + permutes * ws["prmt"])
        for ld in options[1]:
            if not chain_dims_ok((st, ld), problem_):
                continue  # no layout gives both sides these vectors
            c = store + ld.wavefronts_bound * ws["wavefront"] \
                + ld.instructions_per_warp * ws["ld.shared"]
            if best is None or c < best[0]:
                best = (c, 1 << st.vector_log2, 1 << ld.vector_log2, permutes)
    if best is None:
        return None
    cost = best[0] + ws["bar.sync"]
    note = (f"every round trip stores 2^k and loads 2^m elements per lane that some layout "
            f"can give both sides, pays their wavefront bounds and the v_perm_b32 packing its "
            f"stored words (one source element per register): at least {cost:g} "
            f"({best[1]}-element stores with {best[3]} v_perm_b32, {best[2]}-element loads, "
            "one barrier)")
    return RoundTripFloor(cost, best[1], best[3], note)
